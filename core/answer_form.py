"""Answer forms: a question that asks for a telephone number, an e-mail address, a web
address, a weight, a code or a version is answered only by text that holds one.

Algorithm:
1. `asked_forms` matches the question against each form's asking patterns ("what phone
   number", "по какому телефону", "which e-mail address", "how much does X weigh",
   "сколько весит"). Mentions that do not ask for the form ("my phone was stolen", "can I
   cancel by e-mail?", "does it weigh the laundry?") match none of them. "Which error
   code", "какой код", "какая ошибка" ask for a code; "which app version / release",
   «в какой версии» for a version number (5.4.0, "Version 5"); "how deep / wide / tall /
   far", «какой ширины», «на каком расстоянии» for a length with its unit ("how far
   AHEAD" asks for a time). A weight asked
   with a capacity word or verb ("how heavy a LOAD", "how heavy a trailer may it TOW")
   asks for a capacity: any mass answers it.
2. `holds_form` looks for the form itself in a candidate text: a dialable number of at
   least seven digits, an address with "@", a URL, a number followed by a mass or length
   unit, a code of capitals and digits (E20, SK-60).
3. The extractive generator drops a unit that lacks an asked form: a sentence about the
   data protection officer that gives her e-mail does not answer "her telephone number",
   and the sentence about a valve that "does not close" does not answer "which error code
   shows when the door lock does not close".
4. A unit that holds the form needs not repeat the asking words: "Telephone: +49 ..."
   answers "What is the phone NUMBER..." and "write to b2b@..." answers "which E-MAIL
   ADDRESS", so `form_words` are counted as covered in the topic-word coverage.
5. Whose form it is: "the e-mail address OF THE IT SERVICE DESK" (`form_owner`) is not
   answered by the support address; the generator wants half the weight of the owner's
   words that the knowledge base knows in the unit's context.
"""

from __future__ import annotations

import re

from core.lexical import tokenize

ASKED: dict[str, re.Pattern[str]] = {
    "phone": re.compile(
        r"\b(?:tele)?phone\s+(?:number|line)\b|\bhotline\s+number\b|\b(?:what|which)\s+(?:phone\s+|telephone\s+)?"
        r"number\s+(?:do|should|can|must|to)\b[^?]*\bcall\b|\bnumber\s+(?:do|should|can)\s+I\s+call\b|"
        r"\bfax\s+number\b|номер\w*\s+телефон\w*|\bпо\s+какому\s+(?:номеру|телефону)\b|\bкакой\s+(?:у\s+\w+\s+)?телефон\b|"
        r"\bкуда\s+звонить\b", re.IGNORECASE),
    "email": re.compile(
        r"\be-?mail\s+address\b|\b(?:what|which)\s+e-?mail\b|\bадрес\w*\s+электронной\s+почты\b|"
        r"\bкакой\s+(?:адрес\s+)?e-?mail\b", re.IGNORECASE),
    "url": re.compile(r"\b(?:website|web|internet)\s+address\b|\burl\b|\b(?:what|which)\s+(?:website|web\s*page|site)\b|"
                      r"\bадрес\w*\s+(?:веб-?)?сайта\b|\bна\s+каком\s+сайте\b", re.IGNORECASE),
    "mass": re.compile(r"\b(?:how\s+much|what)\s+(?:does|do|did|will|would|can|could)\b[^?]*\bweigh\b|\bweights?\b|"
                       r"\bhow\s+heavy\b|\bвесит\b|\bвесят\b|\bвес\b|\bмасс[аыу]\b", re.IGNORECASE),
    "code": re.compile(r"\b(?:what|which)\s+(?:error\s+|fault\s+)?code\b|\b(?:what|which)\s+(?:error|fault)\s+"
                       r"(?:is|does|do|will|appears?|shows?)\b|\bкак(?:ой|ая|ие)\s+(?:код\w*|ошибк\w*)\b|"
                       r"\bкак(?:ую|ой)\s+ошибк\w*\b|"
                       # a part's number is a code ("AV-4"), whatever column or warranty row names the part
                       r"\b(?:part|article|item|product)\s+(?:number|no\.?|code)s?\b|\bартикул\w*\b",
                       re.IGNORECASE),
    # "What VAT RATE is included?", «какой процент»: a percentage, not the prices it is in
    "percent": re.compile(r"\bwhat\s+(?:[\w-]+\s+){0,2}?percentage\b|\bhow\s+many\s+per\s?cent\b|"
                          r"(?<=\bvat\s)rate\b|(?<=\btax\s)rate\b|\bкакой\s+(?:\w+\s+)?процент\b|\bсколько\s+процент\w*\b|"
                          # only "rate" asks (its asking words count as covered): VAT is the topic
                          r"\bставк\w+(?=\s+ндс\b)", re.IGNORECASE),
    # "How DEEP is the 8 Pro?", "how far from the router", «какой ширины»: a length with its
    # unit, not the other numbers of the row ("how far AHEAD" asks for a time, not a length)
    "length": re.compile(r"\bhow\s+(?:deep|wide|tall)\b|\bhow\s+far\b(?!\s+(?:ahead|in\s+advance|back|before))|"
                         r"\bwhat\s+(?:is\s+|are\s+)?(?:the\s+)?(?:[\w-]+\s+)?(?:depth|width|height|distance)\b|"
                         r"\bкак(?:ой|ая|ую|ов[аоы]?)\s+(?:\w+\s+)?(?:глубин[аыу]|ширин[аыу]|высот[аыу]|расстояни[ея])\b|"
                         r"\bна\s+каком\s+расстоянии\b|\bкак\s+далеко\b", re.IGNORECASE),
    # "Which app VERSION added ...", «в какой версии»: a version number
    "version": re.compile(r"\b(?:which|what)\s+(?:[\w-]+\s+){0,2}?(?:version|release)\b|"
                          r"\bsince\s+which\s+(?:[\w-]+\s+)?(?:version|release)\b|"
                          r"\b[вс]\s+какой\s+(?:\w+\s+)?версии\b|\bкакая\s+(?:\w+\s+)?версия\b", re.IGNORECASE),
}

FORMS: dict[str, re.Pattern[str]] = {
    "phone": re.compile(r"(?<![\w.])\+?\d(?:[\s()/-]?\d){6,}(?![\w.]*@)"),
    "email": re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),
    "url": re.compile(r"\bhttps?://\S+|\bwww\.\S+|\b[\w-]+\.(?:com|de|org|net|eu|ru|example)/\S*", re.IGNORECASE),
    "mass": re.compile(r"\d\s*(?:kg|g|t|lbs?|tonnes?|kilograms?|grams?|кг|г|т)\b", re.IGNORECASE),
}
FORMS["code"] = re.compile(r"\b[A-ZА-ЯЁ]{1,4}-?\d{1,5}\b")  # capitals then digits: E20, SK-60
FORMS["load"] = FORMS["mass"]
FORMS["percent"] = re.compile(r"\d\s*%|\d\s+per\s?cent\b|\d\s+процент", re.IGNORECASE)
FORMS["length"] = re.compile(r"\d\s*(?:mm|cm|m|km|metres?|meters?|inch(?:es)?|ft|feet|мм|см|м|км|метр\w*)(?![\w²³])",
                             re.IGNORECASE)
FORMS["version"] = re.compile(r"\b\d+\.\d+\.\d+\b|\b(?:version|release|версия|версии)\s+\d+(?:\.\d+)*\b",
                              re.IGNORECASE)


# A mass next to these words is how much an appliance or vehicle takes, not what it weighs.
CAPACITY_RE = re.compile(r"\b(?:capacity|load|payload|загрузк\w*|вместимост\w*|ёмкост\w*)\b", re.IGNORECASE)


# "How heavy a trailer may it TOW?", "how heavy can the shelf HOLD": a limit, i.e. a capacity
LIMIT_VERB_RE = re.compile(r"\b(?:carry|carries|tow|tows|hold|holds|take|takes|support|supports|bear|lift|"
                           r"выдерж\w*|букси\w*|перевоз\w*|поднима\w*)\b", re.IGNORECASE)


def asked_forms(question: str) -> list[str]:
    """The answer forms the question asks for (step 1). "How heavy a LOAD can it carry?"
    asks for a capacity: any mass answers it."""
    forms = [name for name, pattern in ASKED.items() if pattern.search(question)]
    takes = CAPACITY_RE.search(question) or LIMIT_VERB_RE.search(question)
    return ["load" if f == "mass" and takes else f for f in forms]


def holds_form(text: str, form: str) -> bool:
    """Does the text hold the form itself (step 2)? A mass counts only where no capacity
    word stands in the four words before it or right after it ("8 kg capacity"), nor in
    the first cell of a table row ("Load capacity; AquaLine 7: 7 kg; ...")."""
    if form == "mass" and ";" in text and CAPACITY_RE.search(text.split(";", 1)[0]):
        return False
    for m in FORMS[form].finditer(text):
        if form != "mass":
            return True
        before = " ".join(text[:m.start()].split()[-4:])
        after = " ".join(text[m.end():].split()[:1])
        if not CAPACITY_RE.search(f"{before} {after}"):
            return True
    return False


def form_words(question: str) -> set[str]:
    """Stems of the words that ask for a form ("phone number", "e-mail address"), step 4."""
    out: set[str] = set()
    for pattern in ASKED.values():
        for m in pattern.finditer(question):
            out |= set(tokenize(m.group(0)))
    return out


# "the e-mail address OF THE IT SERVICE DESK", "the phone number FOR the Compliance team"
OWNER_RE = re.compile(
    r"\b(?:e-?mail\s+address|e-?mail|(?:tele)?phone\s+number|phone|hotline(?:\s+number)?|fax\s+number|"
    r"website|web\s+address)\s+(?:of|for)\s+(?:the\s+|your\s+|our\s+|a\s+)?"
    r"([^?,.;]+?)(?=\s+(?:if|when|to|in\s+case|so|because|about|regarding)\b|[?,.;]|$)",
    re.IGNORECASE,
)


def form_owner(question: str) -> list[str]:
    """Stems of whose telephone number, e-mail or web address the question asks (step 5)."""
    m = OWNER_RE.search(question)
    return tokenize(m.group(1)) if m else []
