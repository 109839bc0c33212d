"""Answer generation. Generators are a one-method Protocol in a plain dict registry.

The embedded default is `extractive`: no model, the answer is verbatim sentences (or table
rows shown with their header) from the passages, each followed by its [n] marker.

Extractive algorithm:
1. From the question take its topic words (IDF-weighted), its identifiers (E20, 7-2) and
   the kind of answer it asks for (duration, money, number, time of day, date, end point,
   place, person, a value in an asked unit ("in amps"), or free-form; explicit asks such as "how many days", "сколько стоит" or
   "where are they made" are hard requirements).
2. Split every passage into units: sentences, and table rows paired with their header.
3. Hard filters: a unit that addresses a model ("ignore previous instructions", "SYSTEM:",
   "note for AI assistants"), or shares its paragraph with such text, is never quoted; when the question cites a section or paragraph ("para 7-2"), the
   unit's own paragraph or section path must carry that number (a line that merely refers
   to para 7-2 is not para 7-2); a unit's context (section path + table header + unit,
   and for identifiers also the head of its paragraph) must hold every identifier of the
   question; it must not name a rival of a question's qualifier in its
   place (monthly vs annual), nor only another action than the asked one (the hoses
   INSPECTED every year say nothing of when they are REPLACED), nor leave such a qualifier unstated (unless its passage
   speaks of the asked kind alone: a passage on the drain filter need not repeat
   "drain"); it must not be about another kind of appliance (the washing machine's drain
   filter is not the dryer's, title included) nor another model than the question's, as the passages
   name models by name and code ("Maximum load (WM-910)" is not the AquaLine 7's, "AquaLine
   7 (WM-700)"), nor name a rival of a name in the question where the question's own name
   is absent (the passages set "Standard and Premium" side by side, so "With Premium, ..."
   does not answer for Standard); it must not give a condition value of the question only for another case
   ("at 40 °C" against "2 h 59 min at 60 °C"); it must say more than
   the question's own words (a title such as "Engine oil capacity." is not an answer); it
   must hold at least half the weight of the question's topic words that the knowledge
   base contains anywhere (words it never uses may be paraphrases, so they don't count;
   an everyday phrase such as "money back" counts as held when its document word
   "refund" is; when the unit's context holds the question's identifier and the asked
   kind of answer, a third will do: "E10" and "how many minutes" pin the topic down;
   words only a scene-setting sentence uses, "My father passed away last night. How
   many paid days off...?", weigh half, unless that scene names something the knowledge
   base never does, "I live in Lisbon."; the better of the two shares counts);
   a table row is read with what stands above its table (section, title, lead-in), not
   with text after the table, and a numbered step with the steps just before and after
   it ("2. Put a flat container under it" with "3. ...drain the water into it"); the
   attribute asked about ("What is the TORQUE for...") where the knowledge base knows its
   words, each by name, a synonym (capacity ~ holds) or a value in its own unit ("5W-30"
   is a viscosity, "€0.30 per km" a rate, "€89" a price), in the unit's context or in its numbered paragraph's caption ("4-1. Tyre
   size. ..."); of a many-word attribute only the head must stand there, its modifiers
   ("SUPERVISORY authority") may stand elsewhere in the passage; qualifier words in it
   ("TOP spin speed") are left to the contrast check; a quantity the question asks
   about (pressure, capacity, мощность) must be named and the unit must give a number
   (a step's own number, "3. Pull out the hose", is none; a question asking for an
   address or a number to call asks for no quantity, whatever "volume offer" says);
   a group or programme the question is narrowed to ("for PART-TIME employees", "for
   MANAGERS", "on the COTTON programme") must be named; "how many BOLTS" needs a number
   that counts bolts ("4 transport bolts", or a row under a "Bolts" header), not some
   other number of the passage; a duration is a number with its time unit ("14 days"),
   not a rate ("€4.99 per month"), and "how many days" is not answered by
   "immediately"; "which COMPANY / INSURER / AUTHORITY" needs a name
   other than the question's own ("...a supervisory authority" names none); an asked
   answer form (a telephone number, an e-mail address, a web address, a weight, a code, a
   version; see core/answer_form.py) must be in the unit itself (a version may stand in
   the heading above it, as release notes write it: that heading is then quoted too), and
   its asking words ("phone number") then count as covered, and whose form it is ("the
   e-mail address OF THE IT SERVICE DESK") must be named in the unit's context (half the
   weight of the owner's words the knowledge base knows); a yes/no question whether one
   may do something ("Can I EXTEND my contract?", "Можно ли ПОДКЛЮЧИТЬ...", "Will you
   WARN me?") needs a unit that speaks of that verb (core/analysis.py `asked_verb`) and of
   what it acts on ("transfer the WARRANTY" is not answered by a transferable contract),
   where the documents use those words; whom a yes/no question asks about ("Do STAFF get
   a discount?") must be named in the unit's passage when the documents know the word, and
   so must the process whose length is asked ("how long does DELIVERY take", «сколько дней
   идёт ДОСТАВКА»: a service visit's 3 days are no delivery time);
   for an explicit ask the unit must hold that kind of thing ("how many minutes" in
   minutes or hours, not months; "how often" an interval such as "every 2 years", not
   "each van"), and a duration or an amount of money must be said of
   something the question names: the clause or table cell holding it (with the row's
   first cell) must hold one of the question's topic words ("cycle history for 90 days"
   is no refund period), a word other than the question's identifier and, where the
   question has rarer ones, not a word in a tenth of the tenant's passages: under E20,
   "let the water cool for 20 minutes" is not how long the draining takes, nor under E50
   "switch the MACHINE off for 10 minutes" how soon the code appears.
   A time of day asked ("at what time", «во сколько») needs a clock time ("14:00"); a
   place where something is made needs a unit that speaks of making it (the warrantor's
   address in Hamburg is no place of manufacture); what the asked attribute belongs to
   ("What torque does the REAR AXLE HUB NUT need?", "the capacity of the WASHER FLUID
   RESERVOIR") must be half named in the unit's context or paragraph (the lug nuts'
   torque is not the hub nut's, though the identifier KT-200 lets a third of the topic do);
   what a yes/no question asks to exist ("Is there a WAITING PERIOD...") is its attribute.
4. Lexical score = 0.55 * context coverage + 0.25 * unit coverage + 0.20 * passage prior
   (1/rank), coverage being the IDF-weighted share of topic words present. The loose
   type match of step 5 also holds for a unit giving the asked quantity in its unit.
5. The best `SEMANTIC_POOL` units are re-scored with their dense similarity to the
   question (e5, rescaled to [0, 1]) so paraphrases count:
   support = 0.35 * context coverage + 0.15 * unit coverage + 0.30 * similarity
             + 0.10 * passage prior + 0.10 * loose type match.
6. Answer with the best unit plus up to two more within 85% of it (and the items of a
   list a chosen unit introduces; a numbered procedure whole, across a chunk boundary;
   for "why", the next sentence of the best unit's paragraph when it gives the reason
   none of them gives: "Do not wash items treated with petrol." + "Such items can cause
   a fire or an explosion."), in document order, at most MAX_CLAIMS units: past that the runners-up give way to
   the list, then the last steps go (the verifier checks no more claims than that). The best support goes back to the
   pipeline, which refuses when the combined confidence is below the tenant threshold:
   a nearby fact is not an answer.
7. Unaddressed topic: for each word of the question that the knowledge base never uses
   ("colours", "refurbished", "refrigerant"), embed the question without that word; if
   the best unit is then closer to the question by at least `ABLATION_MARGIN` cosine,
   the unit does not speak about that word — refuse. A paraphrase in the unit ("How DEEP"
   against "Depth") makes the question *less* close without the word, so it passes.
   Cross-language pairs (a Russian word, an English unit) are skipped. The margin was
   read off the calib split (answerable questions' unknown words: at most +0.009 on the
   same-language pairs; unanswerable topics: +0.011 to +0.032).

A name in the question (Globex, Austria) must also appear in the unit's passage, not
merely somewhere in the knowledge base, unless it is the publisher's own name: one found
in `HOUSE_NAME_SHARE` of the tenant's documents ("Northwind" in the demo) is the
background of every passage, stated or not.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from core.analysis import (
    NUMBER_RE,
    ORGANISATION_ASKED_RE,
    PRODUCTION_ASKED_RE,
    PRODUCTION_SAID_RE,
    QUANTITY_UNITS,
    REASON_ASKED_RE,
    REASON_SAID_RE,
    SLOT_WORDS,
    Unit,
    action_conflict,
    asked_object,
    asked_verb,
    asking_part,
    attribute_owner,
    content_terms,
    contrast_conflict,
    counts,
    focus_terms,
    has_section,
    identifiers,
    is_qualifier,
    looks_like_instruction,
    matches_type,
    measures,
    model_aliases,
    names_rival,
    other_model,
    process_subject,
    proper_names,
    quantity_named,
    question_type,
    required_qualifiers,
    says_verb,
    section_refs,
    subject_conflict,
    units,
    value_anchored,
    value_conflict,
    without_names,
    yes_no_subject,
)
from core.answer_form import asked_forms, form_owner, form_words, holds_form
from core.expand import Synonyms, everyday_terms, phrase_stems
from core.gate import coverage, term_weights, unknown_word
from core.lexical import CYRILLIC_RE, LexicalIndex, tokenize
from core.reference import section_reading
from core.retrieve import Candidate
from core.verify import MAX_CLAIMS

RUNNER_UP = 0.85
MAX_UNITS = 3
SEMANTIC_POOL = 8
MIN_KNOWN_COVERAGE = 0.5
MIN_PINNED_COVERAGE = 0.35
SCENE_WEIGHT = 0.5
LIST_ITEMS = 4  # items taken after a unit that introduces a list (not a numbered one)
MAX_STEPS = 12  # steps of a numbered procedure quoted at most
SIM_FLOOR, SIM_CEIL = 0.76, 0.90
HOUSE_NAME_SHARE = 0.7  # a name in this share of the tenant's documents is its publisher's
ABLATION_MARGIN = 0.01  # see step 7; read off the calib split


@dataclass
class Selected:
    passage: int  # 1-based index into the passages given
    unit: Unit
    score: float


@dataclass
class Generation:
    text: str  # answer with [n] markers; empty when refusing
    selected: list[Selected] = field(default_factory=list)
    refusal_reason: str | None = None
    prompt: str | None = None
    raw_output: str | None = None
    provider: str = "extractive"
    model: str | None = None
    tokens: dict[str, int] = field(default_factory=dict)
    support: float = 0.0  # how well the best chosen unit answers the question, 0..1
    rejected: list[dict[str, Any]] = field(default_factory=list)  # units a hard filter dropped, and why


class Generator(Protocol):
    def generate(self, question: str, passages: list[Candidate], lexicon: LexicalIndex) -> Generation: ...


def is_title(unit: Unit) -> bool:
    """A short sentence with no number: a paragraph caption, not a statement."""
    return unit.kind == "sentence" and len(unit.text.split()) <= 4 and not any(ch.isdigit() for ch in unit.text)


_unit_vectors: dict[str, Any] = {}  # sentence -> vector; chunks recur across questions


def similarity_scores(embedder: Any, question: str, texts: list[str]) -> list[float]:
    """e5 cosine of each text to the question, rescaled to [0, 1] between SIM_FLOOR and SIM_CEIL."""
    vecs = embed_units(embedder, texts)
    q = embedder.embed_query(question)
    return [min(max((float(v) - SIM_FLOOR) / (SIM_CEIL - SIM_FLOOR), 0.0), 1.0) for v in vecs @ q]


def embed_units(embedder: Any, texts: list[str]) -> Any:
    """Passage vectors for sentences, cached per process (bounded)."""
    import numpy as np

    todo = [t for t in dict.fromkeys(texts) if t not in _unit_vectors]
    if todo:
        if len(_unit_vectors) > 20000:
            _unit_vectors.clear()
        for text, vec in zip(todo, embedder.embed_passages(todo)):
            _unit_vectors[text] = vec
    return np.vstack([_unit_vectors[t] for t in texts])


def _house_name(tokens: Iterable[str], lexicon: LexicalIndex) -> bool:
    """Is the name (as tokens) the publisher's own, there in nearly every document?"""
    return all(lexicon.document_share(t) >= HOUSE_NAME_SHARE for t in tokens)


def paragraph_of(text: str, unit: Unit) -> str:
    """The line (paragraph or table row) of the chunk that holds the unit."""
    start = text.rfind("\n", 0, unit.start) + 1
    end = text.find("\n", unit.end)
    return text[start:end if end >= 0 else len(text)]


STEP_NUMBER_RE = re.compile(r"^\s*\d{1,2}[.)]\s+")
CAPTION_RE = re.compile(r"^\s*(?:\d+(?:[.-]\d+)*\.?\s+)?([^\W\d][^.\d]{0,40}?)\.\s")


def _caption(paragraph: str) -> str:
    """The short title a paragraph opens with ("7-2. Engine oil capacity. ..."), or ""."""
    m = CAPTION_RE.match(paragraph)
    return m.group(1) if m and len(m.group(1).split()) <= 4 else ""


def neighbour_step_tokens(passage: Candidate, step: str, seen: dict[tuple[str, str], set[str]]) -> set[str]:
    """Tokens of the numbered steps just before and after this one: "2. Put a flat container
    under it" is read with "3. ...drain the rest of the water into the container". `seen`
    keeps them per step, as every sentence of a step asks the same."""
    key = (passage.chunk_id, step.strip())
    if key not in seen:
        steps = [line.strip() for line in passage.text.split("\n") if STEP_NUMBER_RE.match(line)]
        at = next((i for i, line in enumerate(steps) if line == key[1]), None)
        around = [] if at is None else steps[max(at - 1, 0):at] + steps[at + 1:at + 2]
        seen[key] = set(tokenize("\n".join(around), keep_stopwords=True))
    return seen[key]


def lead_in_tokens(passage: Candidate, row: Unit, seen: dict[tuple[str, int], set[str]]) -> set[str]:
    """Tokens of what stands above a table row's table (section, title, lead-in text): they
    name what every row is about. Text after the table speaks of something else. `seen`
    keeps them per table, as every row of a table asks the same."""
    lines = passage.text[:row.start].rstrip("\n").split("\n")
    while lines and lines[-1].strip().startswith("|"):
        lines.pop()
    key = (passage.chunk_id, len(lines))
    if key not in seen:
        seen[key] = set(tokenize(f"{passage.section}\n{passage.title}\n" + "\n".join(lines), keep_stopwords=True))
    return seen[key]


def _names_the_document(unit: Unit, passage: Candidate) -> bool:
    """The document's title or a heading above the unit, standing as a line of its own
    ("Fleet Maintenance Manual: Kestrel KT-200 Service Van"): a caption, not a statement."""
    def key(text: str) -> str:
        return " ".join(text.split()).strip(" .:").casefold()

    said = key(unit.text)
    return bool(said) and said in {key(passage.title), *map(key, passage.section.split(" > "))}


def heading_of(passage: Candidate) -> str:
    return passage.section.split(" > ")[-1] if passage.section else ""


COMMON_WORD_SHARE = 0.1  # of the tenant's passages: above it a word names no particular topic


class ExtractiveGenerator:
    """Verbatim sentences from the passages; see the module docstring for the algorithm."""

    def __init__(self, embedder: Any = None, min_support: float = 0.0, synonyms: Synonyms = ()) -> None:
        self.embedder = embedder  # optional: adds the semantic term to the score
        self.min_support = min_support
        self.synonyms = synonyms  # the tenant's own everyday words (core/expand.py)
        self.rejected: list[tuple[int, str, str]] = []

    def score_units(self, question: str, passages: list[Candidate], lexicon: LexicalIndex) -> list[Selected]:
        weights = term_weights(content_terms(question), lexicon)
        ids = identifiers(question)
        question_tokens = set(tokenize(question))
        known = {t: w for t, w in weights.items() if lexicon.df.get(t, 0) > 0}
        # words only the scene uses ("My FATHER passed away LAST NIGHT. How many days off...")
        # tell where the user stands, not what the answer must say: they count for less
        # -- unless the scene names what the documents never do ("I live in LISBON. How long
        # does delivery take?"): then the scene is part of the question
        asked_tokens = set(tokenize(asking_part(question)))
        scene_unknown = any(all(lexicon.df.get(t, 0) == 0 for t in tokenize(n, keep_stopwords=True))
                            for n in proper_names(question))
        to_cover = known if scene_unknown else {
            t: (w if t in asked_tokens else w * SCENE_WEIGHT) for t, w in known.items()}

        def covered(tokens: set[str]) -> float:
            return max(coverage(known, tokens), coverage(to_cover, tokens))
        # qualifiers in the attribute ("TOP spin speed") are the contrast check's business
        focus = [t for t in focus_terms(question) if lexicon.df.get(t, 0) > 0 and not is_qualifier(t)]
        qtype = question_type(question)
        kind, explicit = qtype if qtype else (None, False)
        org_asked = bool(ORGANISATION_ASKED_RE.search(question))
        production_asked = kind == "place" and bool(PRODUCTION_ASKED_RE.search(question))
        verb = asked_verb(question)
        if verb and not lexicon.knows_family(verb) and not (len(verb) >= 6 and lexicon.knows_prefix(verb[:6])):
            verb = None  # a verb the documents never use is the unaddressed-word check's business
        acted_on = asked_object(question) if verb else None
        if acted_on and lexicon.df.get(acted_on, 0) == 0:
            acted_on = None
        forms = asked_forms(question)
        asking_words = form_words(question) if forms else set()
        owner = term_weights([t for t in form_owner(question) if lexicon.df.get(t, 0) > 0], lexicon) if forms else {}
        # "What torque does the REAR AXLE HUB NUT need?": the wheel lug nuts' torque is not it
        owned = term_weights([t for t in attribute_owner(question) if lexicon.df.get(t, 0) > 0], lexicon) \
            if not owner else {}  # whose address or phone number: the answer-form check below
        everyday = everyday_terms(question, self.synonyms)
        # what a value must be said of: the question's topic words the KB knows, or the
        # documents' words for its everyday phrases ("money back" -> refund)
        anchors = {t for t in known if t not in SLOT_WORDS.get(kind or "", frozenset())} | {
            t for _, doc_words in everyday for t in doc_words}
        # a word in a tenth of all passages ("water" in a washing-machine manual) anchors nothing:
        # "let the WATER cool for 2 hours" is no drain time
        common = COMMON_WORD_SHARE * len(lexicon.chunk_ids)
        anchors = {t for t in anchors if lexicon.df.get(t, 0) < common} or anchors
        # "How many BOLTS...": the answer must count bolts, not give some other number
        counted = focus[-1] if kind == "number" and explicit and focus and re.search(
            r"\bhow many\b", question, re.IGNORECASE) and focus[-1] not in ("time",) else None
        # a question asking for an address or a number to call is not asking for a volume
        quantities = [m for m in measures(question) if lexicon.df.get(m, 0) > 0] \
            if not set(forms) - {"mass", "load"} else []
        value_units = [q for q in dict.fromkeys([*focus, *quantities]) if q in QUANTITY_UNITS]
        narrowed_to = required_qualifiers(question)
        # "Do STAFF get a discount?": a text about subscribers' discount says nothing of staff
        subjects = [t[0] for t in (tokenize(w) for w in [*yes_no_subject(asking_part(question)),
                                                         *process_subject(question)])
                    if t and lexicon.df.get(t[0], 0) > 0]
        question_names = proper_names(question)
        refs = section_refs(question)
        names = [set(tokenize(n, keep_stopwords=True)) for n in question_names]
        # the publisher's own name ("Northwind" in nearly every document) is the background
        # of every passage, stated or not; any other name must be in the unit's passage
        names = [n for n in names if n and all(lexicon.df.get(t, 0) > 0 for t in n)
                 and not _house_name(n, lexicon)]
        scored: list[Selected] = []
        aliases = [m for p in passages for m in model_aliases(p.text)]
        all_text = "\n".join(p.text for p in passages)  # where rival names stand side by side
        lead_ins: dict[tuple[str, int], set[str]] = {}
        steps_around: dict[tuple[str, str], set[str]] = {}
        parts: dict[int, tuple[float, float, float, float]] = {}
        rejected: list[tuple[int, str, str]] = []
        self.rejected = rejected  # (passage, unit text, why): shown in the trace

        def reject(unit: Unit, why: str) -> None:
            rejected.append((number, unit.text[:200], why))

        for number, passage in enumerate(passages, start=1):
            prior = 1.0 / max(passage.rank, 1)
            passage_tokens = set(tokenize(f"{passage.section}\n{passage.title}\n{passage.text}",
                                          keep_stopwords=True))
            if any(not n <= passage_tokens for n in names):
                rejected.append((number, passage.text[:60], "passage lacks a name of the question"))
                continue  # the passage is about something else than the name asked about
            for unit in units(passage.text, heading_of(passage)):
                if unit.kind == "heading":
                    continue
                context = f"{passage.section}\n{unit.context}"
                paragraph = paragraph_of(passage.text, unit)
                # identifiers may stand at the head of the unit's paragraph ("7-2. Engine oil...")
                if any(i not in f"{context}\n{paragraph}".lower() and i not in passage.subject_ids for i in ids):
                    reject(unit, "an identifier of the question is missing")
                    continue
                if contrast_conflict(question, context, passage.text):
                    reject(unit, "names a rival qualifier or leaves one unstated")
                    continue
                if action_conflict(question, context):
                    reject(unit, "names another action than the one asked about")
                    continue  # "The hoses are INSPECTED every year" is no replacement interval
                if subject_conflict(question, f"{passage.title}\n{context}"):
                    reject(unit, "is about another kind of appliance")
                    continue  # the washing machine's drain filter is not the dryer's
                if names_rival(question_names, context, all_text):
                    reject(unit, "names a rival of a name in the question")
                    continue  # "With Premium, ..." does not answer for Standard
                if other_model(question, context, aliases):
                    reject(unit, "is about another model")
                    continue  # "Maximum load (WM-910)" is not the AquaLine 7's
                if value_conflict(question, context):
                    reject(unit, "gives the asked value for another condition")
                    continue  # "at 40 °C" is not answered by the row for 60 °C
                if refs and not all(has_section(r, passage.section, paragraph) for r in refs):
                    reject(unit, "not the section or paragraph asked about")
                    continue  # the question cites para 7-2: quote para 7-2, not a line that refers to it
                if looks_like_instruction(paragraph):
                    reject(unit, "addresses a model")
                    continue  # text aimed at a model (prompt injection) is never quoted as fact
                if set(tokenize(unit.text)) <= question_tokens or is_title(unit) or _names_the_document(unit, passage):
                    reject(unit, "restates the question or is a caption")
                    continue  # restates the question or is a caption ("Engine oil capacity.")
                # a name the question itself gives ("Who pays duties to SWITZERLAND?") is no answer
                # a step's own number ("3. Pull out the hose...") is no value
                said = STEP_NUMBER_RE.sub("", unit.text, count=1)
                type_ok = matches_type(said, kind, question, question_names)
                if explicit and not type_ok:
                    reject(unit, f"holds no {kind}")
                    continue
                if explicit and not value_anchored(unit, kind, anchors - set(ids)):
                    reject(unit, f"gives a {kind} of something else")
                    continue  # "cycle history for 90 days" is no refund period (an E30 pins it)
                # a numbered paragraph's caption ("4-1. Tyre size. The KT-200 uses ...") names
                # what each of its sentences is about
                ctx_tokens = set(tokenize(f"{context}\n{_caption(paragraph)}", keep_stopwords=True))
                # a table's caption or lead-in sentence sits in the same chunk: it names the
                # attribute for every row ("Hotels ... maximum rates per night" over the rows)
                named_in = ctx_tokens | lead_in_tokens(passage, unit, lead_ins) if unit.kind == "row" else ctx_tokens
                if STEP_NUMBER_RE.match(paragraph):  # a numbered step is read with the steps around it
                    named_in = named_in | neighbour_step_tokens(passage, paragraph, steps_around)
                if verb and not says_verb(verb, named_in | set(tokenize(paragraph, keep_stopwords=True))):
                    reject(unit, "does not speak of the action asked about")
                    continue  # "Can I EXTEND my contract?" is not answered by the contract's term
                if acted_on and not says_verb(acted_on, named_in):
                    reject(unit, "does not speak of what the action is done to")
                    continue  # transferring the CarePlus contract is not transferring the warranty
                # the head of a many-word attribute must be named here; its modifiers
                # ("SUPERVISORY authority") may stand in the passage around it
                if not all(quantity_named(t, named_in if t == focus[-1] else named_in | passage_tokens, unit.text)
                           for t in focus):
                    reject(unit, "does not name the attribute asked about")
                    continue  # the attribute asked about (torque, capacity...) is not named here
                if owned and coverage(owned, named_in | set(tokenize(paragraph, keep_stopwords=True))) < MIN_KNOWN_COVERAGE:
                    reject(unit, "does not name what the attribute asked about belongs to")
                    continue
                # release notes put the version in the heading over its changes
                missing_form = next((f for f in forms if not holds_form(unit.text, f) and not (
                    f == "version" and holds_form(heading_of(passage), f))), None)
                if missing_form:
                    reject(unit, f"holds no {missing_form}")
                    continue  # "the DPO's telephone number" is not answered by her e-mail address
                if owner and coverage(owner, ctx_tokens) < MIN_KNOWN_COVERAGE:
                    reject(unit, f"does not say whose {forms[0]} it is")
                    continue  # the support address is not the IT service desk's
                if org_asked and not [n for n in proper_names(without_names(unit.text, question_names))
                                      if not _house_name(tokenize(n, keep_stopwords=True), lexicon)]:
                    reject(unit, "names no organisation")
                    continue  # the publisher itself ("Northwind fleet") is no answer to "which insurer"
                if production_asked and not PRODUCTION_SAID_RE.search(f"{context}\n{paragraph}"):
                    reject(unit, "does not say where it is made")
                    continue  # the warrantor's address in Hamburg is no place of manufacture
                if counted and not (
                        counts(unit.text, counted) or (unit.kind == "row" and counted in ctx_tokens)):
                    reject(unit, f"does not count the {counted} asked about")
                    continue
                if any(not q <= ctx_tokens for q in narrowed_to):
                    reject(unit, "does not name the group the question is narrowed to")
                    continue  # "for PART-TIME employees", "on the COTTON programme": not this unit
                if any(t not in passage_tokens for t in subjects):
                    reject(unit, "does not speak of whom the question asks about")
                    continue
                if any(not quantity_named(m, ctx_tokens, unit.text) for m in quantities) or (
                        quantities and not NUMBER_RE.search(said)):
                    reject(unit, "does not give the quantity asked about")
                    continue  # "What tyre PRESSURE...": the unit must name it and give a number
                # an everyday phrase ("money back") is covered by the documents' word ("refund")
                said_otherwise = {t for words, doc_words in everyday if doc_words & named_in for t in words}
                # an identifier the unit's context holds (E10, 7-2) already pins the topic down;
                # with the kind of answer asked (a duration...) a third of the other words will do
                needed = MIN_PINNED_COVERAGE if ids and explicit and type_ok else MIN_KNOWN_COVERAGE
                said_here = named_in | asking_words | said_otherwise
                # the sentences before a value in its paragraph say what the value is of ("New: the
                # firmware can be updated from the app. Installing takes about 4 minutes."); read
                # only when the unit gives the kind or names the attribute asked (the FREQUENCY
                # of "...нужна сеть Wi-Fi с частотой 2,4 ГГц") and falls short without them
                unit_tokens = set(tokenize(unit.text, keep_stopwords=True))
                short = bool(known) and covered(said_here) < needed
                if short and ((kind and type_ok) or focus and all(t in unit_tokens for t in focus)):
                    said_here = said_here | set(tokenize(
                        passage.text[passage.text.rfind("\n", 0, unit.start) + 1:unit.start], keep_stopwords=True))
                    short = covered(said_here) < needed
                if short:
                    reject(unit, "covers under half of the question's topic words")
                    continue  # most of what the question names (and the KB knows) is absent here
                ctx_cov = coverage(weights, ctx_tokens) if weights else 1.0
                unit_cov = coverage(weights, unit_tokens) if weights else 1.0
                score = 0.55 * ctx_cov + 0.25 * unit_cov + 0.20 * prior
                # an asked form (phone number, e-mail...) is the answer's type; every unit left holds
                # it; so is the value of an asked quantity in its own unit ("5W-30" for a viscosity)
                gives_value = any(QUANTITY_UNITS[q].search(unit.text) for q in value_units)
                parts[id(unit)] = (ctx_cov, unit_cov, prior,
                                   1.0 if (type_ok and kind) or forms or gives_value else 0.0)
                scored.append(Selected(number, unit, round(score, 4)))
        scored.sort(key=lambda s: s.score, reverse=True)
        pool = scored[:SEMANTIC_POOL]
        sims = [0.0] * len(pool)
        if self.embedder is not None and pool:
            sims = similarity_scores(self.embedder, question, [s.unit.text for s in pool])
        for sel, sim in zip(pool, sims):
            ctx_cov, unit_cov, prior, type_bonus = parts[id(sel.unit)]
            sel.score = round(0.35 * ctx_cov + 0.15 * unit_cov + 0.30 * sim + 0.10 * prior
                              + 0.10 * type_bonus, 4)
        return sorted(pool, key=lambda s: s.score, reverse=True)

    def generate(self, question: str, passages: list[Candidate], lexicon: LexicalIndex) -> Generation:
        generation = self._generate(question, passages, lexicon)
        generation.rejected = [{"passage": n, "text": t, "why": w} for n, t, w in self.rejected]
        return generation

    def _generate(self, question: str, passages: list[Candidate], lexicon: LexicalIndex) -> Generation:
        reading = section_reading(question, passages)
        if reading is not None and reading.ambiguous:
            return Generation("", refusal_reason=(
                f"Section {reading.ref} stands in several documents ({', '.join(reading.ambiguous)}); "
                "name the document in the question."))
        if reading is not None and not any(
                looks_like_instruction(paragraph_of(passages[reading.passage - 1].text, u)) for u in reading.units):
            # "What does para 7-2 say?" names its answer's place: the section is read out
            # (core/reference.py); its number matched exactly, so support is full. A paragraph
            # holding text aimed at a model goes to the ordinary selection, which never quotes it.
            chosen = [Selected(reading.passage, u, 1.0) for u in reading.units]
            return Generation(_marked(chosen), chosen, support=1.0)
        scored = self.score_units(question, passages, lexicon)
        if not scored:
            if any(n == 1 and why == "addresses a model" for n, _, why in self.rejected):
                # the best passage shares its paragraph with text aimed at a model: nothing of
                # that paragraph is quoted, and the user should know why, not "not found"
                return Generation("", refusal_reason=(
                    "The passage that matches best also holds instructions aimed at an AI assistant, "
                    "so none of it is quoted; open the source document to read it."))
            return Generation("", refusal_reason="No passage states what the question asks.")
        if scored[0].score < self.min_support:
            return Generation("", support=scored[0].score,
                              refusal_reason="No sentence in the passages answers the question closely enough.")
        best = scored[0]
        if self.embedder is not None:
            off_topic = unaddressed_words(question, best.unit.text, lexicon, self.embedder, self.synonyms)
            if off_topic:
                return Generation("", support=best.score, refusal_reason=(
                    f"The closest passage does not address “{off_topic[0]}”, a word the knowledge base never uses."))
        chosen = [best]
        for cand in scored[1:]:
            if len(chosen) >= MAX_UNITS:
                break
            if cand.unit.text not in {c.unit.text for c in chosen} and cand.score >= RUNNER_UP * best.score:
                chosen.append(cand)
        chosen += _version_headings(question, chosen, passages)
        chosen += _reason_after(question, best, chosen, passages)
        # in document order: the best unit's document first, then each document where it
        # is first cited; within one, by chunk and offset (a procedure before the sentence
        # after it, whatever chunk ranked higher)
        doc_of = {n: (p.doc_id, p.ordinal) for n, p in enumerate(passages, start=1)}
        first_cited: dict[str, int] = {}
        for sel in sorted(chosen, key=lambda s: s.passage):
            first_cited.setdefault(doc_of[sel.passage][0], sel.passage)
        best_doc = doc_of[best.passage][0]
        chosen.sort(key=lambda s: (doc_of[s.passage][0] != best_doc, first_cited[doc_of[s.passage][0]],
                                   doc_of[s.passage][1], s.unit.start))
        # "Steps:" alone answers nothing: its items follow it, even from the next chunk
        expanded: list[Selected] = []
        listed: list[Selected] = []
        for sel in chosen:
            if any(e.passage == sel.passage and e.unit.start <= sel.unit.start < e.unit.end for e in expanded):
                continue  # already quoted as an item of a list above
            expanded.append(sel)
            if sel.unit.text.rstrip().endswith(":"):
                items = _list_items(sel, passages)
                expanded += items
                listed += [sel, *items]
        if len(expanded) > MAX_CLAIMS:
            # the verifier checks MAX_CLAIMS claims: a long list keeps the best unit and its
            # own steps, the runners-up give way, and the last steps go only when they must
            keep = [s for s in expanded if s is best or any(s is x for x in listed)]
            if len(keep) > MAX_CLAIMS:  # the best unit stays wherever document order puts it
                others = [s for s in keep if s is not best][:MAX_CLAIMS - 1]
                keep = [s for s in keep if s is best or any(s is o for o in others)]
            expanded = keep
        chosen = expanded
        return Generation(_marked(chosen), chosen, support=best.score)


def _marked(chosen: list[Selected]) -> str:
    """The answer text: each unit verbatim, followed by its passage's [n] marker."""
    return " ".join(f"{s.unit.text.rstrip()} [{s.passage}]" for s in chosen)


def _list_items(intro: Selected, passages: list[Candidate]) -> list[Selected]:
    """The items of the list a unit introduces ("Порядок устранения ошибки E20:"): a
    numbered list runs on over its steps and their second sentences, into the next chunk
    of the same section when that was retrieved (a procedure cut at a chunk boundary must
    not lose its last steps); any other list gives its first `LIST_ITEMS` units."""
    passage = passages[intro.passage - 1]
    after = [(intro.passage, u) for u in units(passage.text, heading_of(passage))
             if u.start > intro.unit.start and u.kind != "heading"]
    following = next((n for n, p in enumerate(passages, start=1) if p.doc_id == passage.doc_id
                      and p.ordinal == passage.ordinal + 1 and p.section == passage.section), None)
    if following is not None:
        nxt = passages[following - 1]
        after += [(following, u) for u in units(nxt.text, heading_of(nxt)) if u.kind != "heading"]
    if not after or not STEP_NUMBER_RE.match(after[0][1].text):
        return [Selected(n, u, intro.score) for n, u in after[:LIST_ITEMS]]
    taken, steps = [after[0]], 1
    for (n, u), (pn, pu) in zip(after[1:], after):
        if u.text in {t.text for _, t in taken}:
            continue  # the next chunk repeats the last step (chunks overlap)
        if STEP_NUMBER_RE.match(u.text):
            if steps == MAX_STEPS:
                break
            steps += 1
        elif n != pn or "\n\n" in passages[n - 1].text[pu.end:u.start]:
            break  # a new paragraph after a step: the list has ended
        taken.append((n, u))
    # a step's further sentences are part of it: one step, one claim ("2. Put a container
    # under it. Open the flap.")
    merged: list[tuple[int, Unit]] = []
    for n, u in taken:
        if merged and not STEP_NUMBER_RE.match(u.text) and merged[-1][0] == n:
            _, step = merged[-1]
            text = passages[n - 1].text
            merged[-1] = (n, Unit(f"{step.text} {u.text}", text[step.start:u.end], step.start, u.end,
                                  f"{step.context} {u.text}", step.kind))
        else:
            merged.append((n, u))
    return [Selected(n, u, intro.score) for n, u in merged]


def _reason_after(question: str, best: Selected, chosen: list[Selected], passages: list[Candidate]) -> list[Selected]:
    """For "why ...", the sentence right after the best one when it gives the reason the
    chosen sentences do not ("Do not wash items treated with petrol." -> "Such items can
    cause a fire or an explosion."): same paragraph, and it reads as a reason."""
    if not REASON_ASKED_RE.search(question) or any(REASON_SAID_RE.search(s.unit.text) for s in chosen):
        return []
    passage = passages[best.passage - 1]
    nxt = next((u for u in units(passage.text, heading_of(passage)) if u.start >= best.unit.end), None)
    if nxt is None or nxt.kind != "sentence" or "\n\n" in passage.text[best.unit.end:nxt.start] \
            or not REASON_SAID_RE.search(nxt.text) or any(s.passage == best.passage and s.unit.start == nxt.start
                                                          for s in chosen):
        return []
    return [Selected(best.passage, nxt, best.score)]


def _version_headings(question: str, chosen: list[Selected], passages: list[Candidate]) -> list[Selected]:
    """For "which version ...", the heading that holds the version ("Version 5.4.0 (14 May
    2024)") of a chosen change that does not state it, quoted with it."""
    if "version" not in asked_forms(question):
        return []
    out: list[Selected] = []
    for sel in chosen:
        if holds_form(sel.unit.text, "version") or any(o.passage == sel.passage for o in out):
            continue
        passage = passages[sel.passage - 1]
        head = next((u for u in units(passage.text, heading_of(passage))
                     if u.kind == "heading" and u.start < sel.unit.start and holds_form(u.text, "version")), None)
        if head is not None:
            out.append(Selected(sel.passage, head, sel.score))
    return out


def unaddressed_words(question: str, unit_text: str, lexicon: LexicalIndex, embedder: Any,
                      synonyms: Synonyms = ()) -> list[str]:
    """Words of the question the knowledge base never uses and the unit does not speak
    about (step 7 of the module docstring)."""
    import numpy as np

    # a word of a tenant's synonym stands for the documents' words written after it
    taught = {stem for phrase, doc_words in synonyms for stem in phrase_stems(phrase)
              if any(lexicon.df.get(t, 0) > 0 for t in tokenize(doc_words, keep_stopwords=True))}
    unit_has_cyrillic = bool(CYRILLIC_RE.search(unit_text))
    words = []
    for word in dict.fromkeys(re.findall(r"[^\W\d_]{3,}", question)):
        if not unknown_word(word, lexicon) or phrase_stems(word)[0] in taught:
            continue
        if bool(CYRILLIC_RE.search(word)) != unit_has_cyrillic:
            continue  # a translation, not a missing topic
        words.append(word)
    if not words:
        return []
    unit_vec = embed_units(embedder, [unit_text])[0]
    base = float(np.dot(embedder.embed_query(question), unit_vec))
    out = []
    for word in words:
        without = " ".join(re.sub(rf"\b{re.escape(word)}\b", " ", question).split())
        if float(np.dot(embedder.embed_query(without), unit_vec)) - base >= ABLATION_MARGIN:
            out.append(word)
    return out


GENERATORS: dict[str, type] = {"extractive": ExtractiveGenerator}
