"""What the answer step knows about one language, behind one small interface.

A language is data, not rules: its letters (to tell which language a text is in), the
PyStemmer algorithm, stop words, the question words that say what kind of answer is
asked for, negations, month names, the words of time and money units. Everything a
model cannot learn from a few hundred labelled questions, and nothing about any one
domain. A third language is one new module registered in `core/lang/__init__.py`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from core.lang.wording import WORDING

# The kinds of answer a question may ask for; `matches_type` in core/answer/question.py
# reads a unit for each of them.
ANSWER_TYPES = ("number", "amount", "duration", "money", "date", "time", "person", "place", "reason",
                "frequency", "yesno", "how", "other")


@dataclass(frozen=True)
class Language:
    code: str  # "en", "ru"
    name: str  # what a reader calls it: "English"
    letters: frozenset[str]  # lowercase letters only this language's script uses
    stemmer: str  # PyStemmer algorithm name
    stopwords: frozenset[str]
    # question phrase (lowercase words, space-separated) -> answer type; the longest
    # phrase found among the question's first words wins ("how many days" before "how many")
    question_words: dict[str, str]
    negations: frozenset[str]  # whole words
    months: frozenset[str]  # whole words (inflected forms listed: no substring tests)
    weekdays: frozenset[str]
    time_units: frozenset[str]  # whole words: day, days, недели ...
    money_words: frozenset[str]  # whole words: dollars, рублей ...
    number_words: dict[str, int] = field(default_factory=dict)  # "two" -> 2
    yes_no_starts: frozenset[str] = frozenset()  # first words of a yes/no question
    # everyday words for what documents say in their own terms ("pay back" -> reimburse),
    # acronyms and abbreviations they spell out ("CEO", "admin"): searched with both.
    # General language only; a tenant's own words are its synonyms (Settings page).
    everyday: dict[str, str] = field(default_factory=dict)
    # words of asking and of conversation, not of content ("tell me", "exactly", "хочу"):
    # never topic terms, and a claim need not find them in its source
    filler: frozenset[str] = frozenset()
    # a tag that turns a statement into a question, after its last comma: "..., correct?",
    # «..., верно?»; it asks for confirmation and names no topic the passage must hold
    tag_questions: frozenset[str] = frozenset()
    # words that open a conditional clause ("IF your name does NOT match, ..."): a negation
    # inside one states a case, it does not deny anything (core/answer/facts.outside_conditions)
    conditionals: frozenset[str] = frozenset()
    # a negation that bounds an amount, not denies ("no later than", «не менее»): whole
    # phrases, lowercase, as the tokenizer spells them
    bounds: frozenset[str] = frozenset()
    # prefixes that negate a word ("UNpaid", "NON-transferable", «НЕоплачиваемый»)
    negating_prefixes: tuple[str, ...] = ()
    # pronouns that point back to something said before ("who else can I report IT to?",
    # «а где ЕГО взять?»): in a chat such a question leans on the one before it
    pronouns: frozenset[str] = frozenset()
    # a word two after a pronoun that makes it a placeholder for what follows, pointing
    # nowhere ("how much does IT cost TO freeze a membership?", "is IT possible TO ...")
    anticipating: frozenset[str] = frozenset()
    # words that say whose a thing is ("MY puppy", «МОЕМУ щенку»): in a chat, "And kittens?"
    # after a question about the asker's own puppy asks the same of kittens (core/followup.py)
    possessives: frozenset[str] = frozenset()
    # words a follow-up swaps for each other ("what about the REAR?" after "the front ...")
    opposites: tuple[tuple[str, str], ...] = ()
    # states that exclude each other ("open" / "closed", «разрешено» / «запрещено»): a
    # question that takes one for granted against a passage stating the other is corrected
    # (core/answer/premise.py); a negating prefix ("UNavailable") needs no pair here
    contraries: tuple[tuple[str, str], ...] = ()
    # words that say a thing costs nothing ("free", «бесплатно»): a question that takes it for
    # granted against a passage stating a price is corrected (core/answer/premise.py)
    free_words: frozenset[str] = frozenset()
    acronyms: dict[str, str] = field(default_factory=dict)
    # Tesseract's name of the language's OCR data ("eng": eng.traineddata), for scanned PDFs
    ocr_code: str = ""
    # words for a kind of day ("weekend", «будни»): a follow-up "and on Saturday?" takes the place of one
    day_kinds: frozenset[str] = frozenset()
    # each month's number by its word forms ("jan" -> 1, «января» -> 1), to read a date
    month_numbers: dict[str, int] = field(default_factory=dict)
    # phrases that bound when a statement holds ("valid until", «действует до»): a price
    # list "valid until 31 January 2026" is no longer the one in force after that day
    valid_until: tuple[str, ...] = ()
    valid_from: tuple[str, ...] = ()
    # words that bound a range in a table cell holding a number ("under 20 kg" / "20 kg and
    # over", «до 20 кг» / «от 20 кг»): stop words elsewhere, they tell two rows' keys apart
    range_words: frozenset[str] = frozenset()
    # words that put a number's bound below or above it ("FROM the age of 3", "UNDER 3";
    # «С 3 лет», «ДО 3 лет»), a word or two ("at least"): a question asking under a number
    # the documents start from is corrected (core/answer/premise.py); "to" alone bounds
    # either way and is in neither
    lower_bounds: frozenset[str] = frozenset()
    upper_bounds: frozenset[str] = frozenset()
    # the same bounds said after the number ("20 kg AND OVER", «20 кг И БОЛЕЕ»), and the bound
    # words that leave the number itself out ("UNDER 20 kg", «СВЫШЕ 20 кг»): a bracketed
    # table row holds the asked value or not (core/answer/brackets.py)
    lower_after: frozenset[str] = frozenset()
    upper_after: frozenset[str] = frozenset()
    strict_bounds: frozenset[str] = frozenset()
    # a word between two numbers that spans them ("500 TO 2,000 EUR", «с 5 ПО 10»)
    span_words: frozenset[str] = frozenset()
    # phrases that name what a statement leaves out ("enter by the side door INSTEAD OF the main door",
    # "all staff EXCEPT contractors", «КРОМЕ субботы»): a claim that keeps the word and drops
    # the phrase says the opposite (core/verify.py); lowercase, as `tokens` spells them
    excluding: frozenset[str] = frozenset()
    # words that open a clause the asker takes for granted ("SINCE the lab is open on Sundays,
    # when ..."; «РАЗ клиника работает в воскресенье, ...»): that clause is a premise the
    # documents may contradict, whatever the question asks (core/answer/premise.py)
    premise_openers: tuple[str, ...] = ()
    # OCR data its documents need besides their own (Russian technical text writes codes and
    # names in Latin letters: "E10", "Wi-Fi")
    ocr_with: tuple[str, ...] = ()
    # capitals of this script that OCR reads in place of Latin ones (and a digit) inside a code:
    # a Russian scan's code "A37" came out "АЗ7", which no question typed in Latin matches
    ocr_lookalikes: dict[str, str] = field(default_factory=dict)
    # each letter written in Latin letters ("Алматы" -> "almaty"): a name a document in
    # another script writes so is no word the tenant lacks (core/pipeline.py unknown_words)
    latin: dict[str, str] = field(default_factory=dict)
    # phrases by which a document says it is out of force ("superseded", «утратил силу»),
    # the labels of a status line ("status"), and the kinds of document a line may name
    # ("policy", «положение»): core/withdrawn.py; lowercase, as `words_of` spells them
    withdrawn: tuple[str, ...] = ()
    status_labels: frozenset[str] = frozenset()
    document_words: frozenset[str] = frozenset()
    demonstratives: frozenset[str] = frozenset()  # "THIS policy", «НАСТОЯЩЕЕ положение»
    # what a new edition says of the one it replaces ("SUPERSEDES: v2.1", «ВЗАМЕН редакции 2.1»):
    # lowercase, found anywhere in an opening line
    superseding: tuple[str, ...] = ()
    # words saying a numbered clause is deleted, replaced or amended ("Clause 7.4 of the
    # agreement is deleted and replaced by ..."): whole words (core/reference.py `amends`)
    amending: frozenset[str] = frozenset()
    status_links: frozenset[str] = frozenset()  # "superseded BY", «утратило силу С»
    # the product's sentences in this language (keys of core/lang/wording.py's WORDING)
    wording: dict[str, str] = field(default_factory=dict)

    def say(self, key: str, /, **values: object) -> str:
        """The product's sentence `key` in this language, or in English when it has none
        (a template may leave out a field it needs not: Russian names no language). `key`
        is positional-only, as a template may have a field of that name ("“{key}” of ...")."""
        return self.wording.get(key, WORDING[key]).format(**values)

    def in_latin(self, word: str) -> str:
        """The word in Latin letters, lowercase; unchanged when the language has no table."""
        return "".join(self.latin.get(ch, ch) for ch in word.lower()) if self.latin else word.lower()

    @cached_property
    def stopword_stems(self) -> frozenset[str]:
        """The stems of the stop words: "needed" is no topic word where "need" is none (a
        refusal named "needed" as a word the documents never use)."""
        from core.lexical import stem_of  # the index's stemmer; core.lexical reads the languages

        return frozenset(stem_of(w) for w in self.stopwords)

    @cached_property
    def asking_words(self) -> frozenset[str]:
        """Every word of the question phrases ("how often" -> how, often): words of asking,
        never a topic the documents should have used."""
        return frozenset(w for phrase in self.question_words for w in phrase.split())

    def asking_phrase(self, words: list[str]) -> str | None:
        """The question phrase that sets the answer type: the first one among the words, and
        of those starting there the longest ("how many days" before "how many"), or None. The
        longest anywhere read "Why does a late return COST 20 EUR?" as asking for money, and
        its premise went unchecked."""
        joined = " " + " ".join(words) + " "
        found = [(joined.find(f" {phrase} "), -len(phrase), phrase) for phrase in self.question_words
                 if f" {phrase} " in joined]
        return min(found)[2] if found else None

    def answer_type(self, words: list[str]) -> str | None:
        """The answer type the question's words ask for, or None (free form)."""
        phrase = self.asking_phrase(words)
        if phrase:
            return self.question_words[phrase]
        if words and words[0] in self.yes_no_starts:
            return "yesno"
        return None

    def without_tag(self, text: str) -> str:
        """The question without a confirming tag after its last comma ("The rate is GBP 495,
        correct?" -> "The rate is GBP 495?"): a QA pass saw "never mentions 'correct'"."""
        head, comma, tail = text.rstrip().rpartition(",")
        if comma and " ".join(tail.strip(" ?!.").lower().split()) in self.tag_questions:
            return head.rstrip() + "?"
        return text

    def slot_words(self, words: list[str]) -> frozenset[str]:
        """Words of the asking phrase that name the answer's slot, not its topic: "how LONG",
        "how OFTEN", «как ЧАСТО», «ПОЧЕМУ». An answer states a duration, it rarely says "long"
        (4 in 100 gold quotes of "how long" questions did), so counting such a word as a topic
        the passage must hold marks every answer down. Unit words stay topics ("how many DAYS":
        the answer says days)."""
        phrase = self.asking_phrase(words)
        if not phrase:
            return frozenset()
        return frozenset(phrase.split()) - self.time_units - self.money_words
