"""Question words documents spell otherwise: acronyms ("the CEO"), abbreviations ("the
admin fee") and everyday words ("get my money back" for a refund, "the buyer" for the new
owner, «артикул» for a part number).

1. `expand_question` writes the documents' words after each such word, so retrieval and the
   word checks see both ("Can I get my money back refund?").
2. The gate counts such a word as known when the documents use its expansion
   (`core/gate.py` unknown_word, via `ACRONYMS`, which holds all three tables).
3. `everyday_terms` lets the extractive generator count an everyday phrase as covered by a
   unit that holds the documents' word ("refund" covers "money back").
4. A tenant adds its own everyday words as `synonyms` (Settings page, `Settings.synonyms`):
   each of the three steps above reads them with the built-in ones, so an expert can teach
   the tenant that "the app" is HomeHub after a refusal saying the documents never mention it.
"""

from __future__ import annotations

import re

from core.lexical import LexicalIndex, tokenize

# Acronyms a question may use for words the documents spell out ("the CEO" for "Chief
# Executive Officer"): checked by their expansion.
ACRONYMS: dict[str, str] = {
    "ceo": "chief executive officer", "cfo": "chief financial officer", "cto": "chief technology officer",
    "coo": "chief operating officer", "dpo": "data protection officer", "hr": "human resources",
    "faq": "frequently asked questions", "vat": "value added tax", "sla": "service level agreement",
}


# Shortened words people type ("the ADMIN fee") for what documents spell out; checked and
# expanded like the acronyms above.
ABBREVIATIONS: dict[str, str] = {
    "admin": "administration", "info": "information", "approx": "approximately", "dept": "department",
    "qty": "quantity",
}  # not "min"/"temp": minutes and temporary read the same


# Everyday words for what policies and manuals say in their own terms ("get my MONEY BACK"
# is a refund, the BUYER of a machine its new owner): the question is searched and checked
# with the document word added, as with the acronyms above.
EVERYDAY_WORDS: dict[str, str] = {
    "money back": "refund", "pay back": "refund reimburse", "send back": "return", "give back": "return",
    "buyer": "new owner", "pass on": "transfer", "hand over": "transfer", "supplier": "business partner",
    "vendor": "business partner", "fix": "repair", "mend": "repair", "broken": "defect", "boss": "manager",
    "sick": "illness", "kids": "children", "present": "gift", "presents": "gifts", "washer": "washing machine",
    "washers": "washing machines", "repairman": "engineer", "technician": "engineer",
    "bike": "bicycle", "bikes": "bicycles", "in a row": "consecutive", "pollen filter": "cabin filter",
    # a dimension asked by its adjective is stated by its noun ("How DEEP is it?" - "Depth: 590 mm")
    "how deep": "depth", "how wide": "width", "how tall": "height", "how high": "height",
    # "what's THE MOST the hotel can cost" asks for the maximum
    "the most": "maximum",
    # the ordinary service is the standard one ("REGULAR shipping", «ОБЫЧНАЯ доставка»)
    "regular shipping": "standard shipping", "regular delivery": "standard delivery",
    "normal shipping": "standard shipping", "normal delivery": "standard delivery",
    "обычная доставка": "стандартная доставка", "обычной доставки": "стандартной доставки",
    # data kept for a time is retained ("how long do you KEEP my e-mails" - "Retention period")
    "how long do you keep": "retention", "hang on to": "keep retain retention",
    "вернуть деньги": "возврат", "техник": "инженер",
    "стиралка": "стиральная машина", "стиралку": "стиральную машину", "стиралки": "стиральной машины",
    "стиралке": "стиральной машине",
    # a note from the doctor is what policies call a medical certificate
    "doctor note": "medical certificate", "sick note": "medical certificate",
    # what expires is valid until then ("Does the gift card have an EXPIRY date?" - "valid for 3 years")
    "expiry": "valid", "expiry date": "valid",
    "артикул": "номер код", "сломалась": "неисправность", "сломался": "неисправность",
    # a distance-based rate is paid per kilometre ("the MILEAGE RATE" - "€0.30 per kilometre");
    # "mileage" alone may be a service interval ("at what mileage is it replaced")
    "mileage rate": "per kilometre", "mileage allowance": "per kilometre",
    "mileage reimbursement": "per kilometre",
}
ACRONYMS.update(ABBREVIATIONS)
ACRONYMS.update(EVERYDAY_WORDS)
_SHORT_RE = re.compile(r"\b(?:" + "|".join(
    re.escape(w) for w in sorted([*ABBREVIATIONS, *EVERYDAY_WORDS], key=len, reverse=True)) + r")\b|\b[A-Z]{2,4}\b",
    re.IGNORECASE)


Synonyms = tuple[tuple[str, str], ...]  # a tenant's (phrase, documents' words), see core/config.py
_WORD_RE = re.compile(r"[^\W_]+(?:-[^\W_]+)*")


def phrase_stems(phrase: str) -> tuple[str, ...]:
    """The stems of a phrase's words, one a word (a stopword kept: "the app")."""
    return tuple((tokenize(w, keep_stopwords=True) or [w.lower()])[0] for w in _WORD_RE.findall(phrase))


def synonym_spans(text: str, synonyms: Synonyms) -> list[tuple[int, int, str, str]]:
    """(start, end, phrase, documents' words) of each of the tenant's synonyms in the text,
    matched word by word on stems, so that «тормозную жидкость» finds the synonym
    «тормозная жидкость»; longer phrases first, no two overlapping."""
    if not synonyms:
        return []
    words = [(m.start(), m.end(), phrase_stems(m.group(0))[0]) for m in _WORD_RE.finditer(text)]
    out: list[tuple[int, int, str, str]] = []
    taken: set[int] = set()
    for phrase, doc_words in sorted(synonyms, key=lambda p: -len(phrase_stems(p[0]))):
        stems = phrase_stems(phrase)
        for i in range(len(words) - len(stems) + 1):
            span = range(i, i + len(stems))
            if stems and not taken & set(span) and tuple(words[j][2] for j in span) == stems:
                out.append((words[i][0], words[span[-1]][1], phrase, doc_words))
                taken.update(span)
    return sorted(out)


def everyday_terms(question: str, synonyms: Synonyms = ()) -> list[tuple[set[str], set[str]]]:
    """(stems of the everyday phrase, stems of the documents' words) for each everyday
    phrase of the question (the tenant's synonyms matched on stems), whether or not it was
    already expanded."""
    out = []
    own = {phrase for phrase, _ in synonyms}
    for phrase, doc_words in EVERYDAY_WORDS.items():
        if phrase not in own and re.search(rf"\b{re.escape(phrase)}\b", question, re.IGNORECASE):
            out.append((set(tokenize(phrase, keep_stopwords=True)), set(tokenize(doc_words, keep_stopwords=True))))
    for phrase, doc_words in dict.fromkeys((p, d) for _, _, p, d in synonym_spans(question, synonyms)):
        out.append((set(phrase_stems(phrase)), set(tokenize(doc_words, keep_stopwords=True))))
    return out


def expand_question(text: str, synonyms: Synonyms = ()) -> str:
    """The text with known acronyms (CEO), abbreviations (admin), everyday words (money
    back) and the tenant's synonyms each followed by the words documents use for them."""
    def expand(m: re.Match[str]) -> str:
        word = m.group(0)
        if word.lower() in ABBREVIATIONS or word.lower() in EVERYDAY_WORDS or (
                word.isupper() and word.lower() in ACRONYMS):
            return f"{word} {ACRONYMS[word.lower()]}"
        return word
    text = _SHORT_RE.sub(expand, text)
    for _, end, _, doc_words in reversed(synonym_spans(text, synonyms)):
        text = f"{text[:end]} {doc_words}{text[end:]}"
    return text


def unused_targets(synonyms: dict[str, str], lexicon: LexicalIndex) -> list[str]:
    """The tenant's synonyms whose documents' words its documents never use: such a synonym
    changes nothing (the gate and the coverage read it only when they do), which the admin
    who adds it should hear at once. Returns their phrases, sorted."""
    return sorted(phrase for phrase, doc_words in synonyms.items()
                  if not any(lexicon.df.get(t, 0) > 0 for t in tokenize(doc_words, keep_stopwords=True)))
