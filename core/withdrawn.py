"""Documents that say of themselves that they are out of force.

A tenant keeps an old edition beside the new one ("Policy v2.1 ... Status: SUPERSEDED by
Policy v3.0"). Quoted as if in force, its old rule was answered at 0.94 with nothing to
warn (a QA pass). A document is out of force when its opening says so:

1. The first `OPENING_LINES` non-blank lines of its first chunk are read, sentence by
   sentence; a sentence longer than `MAX_STATUS_WORDS` words is content, not a status.
2. A line is a status when it holds one of its language's `Language.withdrawn` phrases
   ("superseded", "no longer in force", «утратил силу»), not right after a negation
   ("not superseded"), and it is said of the document: after a status label ("Status:
   SUPERSEDED by v3.0"), opening a short banner or followed by "by", "since" ("OBSOLETE -
   do not use", "Superseded by v3.0"; not "Archived files are kept for 7 years"), or in
   the title or a line opening "this"/«настоящий» that names the kind of document it is
   (`Language.document_words`: "This policy is no longer in force"). "Supersedes v2.1" is
   the new edition's line and says nothing of the kind.
3. A document whose opening names the edition it replaces ("Supersedes: Policy v2.1
   (2022)", «Взамен редакции 2.1»; `Language.superseding`) puts out of force another
   document among the passages whose opening or file name holds every version and year
   that line names (2.1 and 2022 of "Version 2.1, effective 1 March 2022"). A line that
   names no version or year tells no edition and puts nothing out of force.
4. Retrieval ranks such a document's passages after every passage of a document in force
   and keeps them only when it keeps no passage in force (core/retrieve.py), so they are
   quoted only when nothing else was found, and then with
   a note; the Documents page marks the document.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from core import store
from core.answer.question import words_of
from core.config import Settings
from core.ingest.sentences import sentences
from core.lang import Language, language_of
from core.lexical import tokenize

OPENING_LINES = 12
MAX_STATUS_WORDS = 14


def _status_lines(text: str) -> Iterator[tuple[int, str, list[str], Language]]:
    """The opening's sentences short enough to be a status, each with its line's place, its
    words and its language (step 1). A line is read sentence by sentence: "Version 2025.
    Effective 1 January 2025. This policy supersedes the Staff Benefits Policy of 2022." is
    content as a whole, and its last sentence the edition it replaces (a QA pass)."""
    for n, line in enumerate(_opening(text)):
        for sentence in sentences(line):
            words = words_of(sentence)
            if words and len(words) <= MAX_STATUS_WORDS:
                yield n, sentence, words, language_of(sentence)


def status_line(text: str) -> str:
    """The line of a document's opening that says it is out of force, or ""."""
    for n, line, words, lang in _status_lines(text):
        joined = " " + " ".join(words) + " "
        for phrase in lang.withdrawn:
            at = joined.find(f" {phrase} ")
            if at < 0:
                continue
            before, after = joined[:at].split(), joined[at + len(phrase) + 2:].split()
            if before and before[-1] in lang.negations:
                continue
            if _about_itself(before, after, words, n, lang):
                return line.lstrip("#*_> ").strip()
    return ""


BANNER_WORDS = 4  # "OBSOLETE - do not use": a line opening with the phrase is a banner when short


def _about_itself(before: list[str], after: list[str], words: list[str], n: int, lang: Language) -> bool:
    """Is the status phrase said of the document? After a status label ("Status: superseded");
    opening a banner ("OBSOLETE - do not use", "Superseded by v3.0"; not "Archived files are
    kept ..."); or in its title or a line of its own kind ("This policy is no longer in force")."""
    if before:
        return before[0] in lang.status_labels or (
            bool(set(words) & lang.document_words) and (n == 0 or before[0] in lang.demonstratives))
    return len(words) <= BANNER_WORDS or (bool(after) and after[0] in lang.status_links)


def _opening(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()][:OPENING_LINES]


def versions(text: str) -> set[str]:
    """The tokens of a text that hold a digit, as a version or a year: "v2.1" -> 2.1,
    "policy_2022_old.txt" -> 2022 (a file name's "_" and "-" part words)."""
    spaced = "".join(ch if ch.isalnum() or ch == "." else " " for ch in text)
    out = set()
    for token in spaced.split():
        token = token.strip(".").lower()
        token = token[1:] if token[:1] == "v" and token[1:2].isdigit() else token
        if any(ch.isdigit() for ch in token):
            out.add(token)
    return out


def superseding_line(text: str) -> tuple[str, set[str]]:
    """The line of a document's opening that names the edition it replaces ("Supersedes:
    Policy v2.1 (2022)"), and the versions and years it names; ("", set()) when none,
    or when it names no version or year to tell the edition by."""
    for line in _opening(text):
        for sentence in sentences(line):
            lowered, lang = sentence.casefold(), language_of(sentence)
            for phrase in lang.superseding:
                at = lowered.find(phrase)
                if at < 0:
                    continue
                named_part = sentence[at + len(phrase):]
                if len(words_of(sentence)) > MAX_STATUS_WORDS:
                    # a long sentence (a title block run into one line by the PDF) is read up to
                    # the end of the clause the phrase opens: "... Revision 3 replaces Revision 2
                    # of 14 June 2022, which is withdrawn" (a QA pass)
                    named_part = named_part.replace(";", ",").split(",")[0]
                    if len(words_of(named_part)) > MAX_STATUS_WORDS:
                        continue
                if named := versions(named_part):
                    said = sentence[:at + len(phrase)] + named_part
                    return said.lstrip("#*_> ").replace("**", "").strip(), named
    return "", set()


def _title(text: str) -> set[str]:
    """The stems of a document's first line."""
    return set(tokenize(" ".join(_opening(text)[:1])))


def out_of_force(settings: Settings, tenant: str, doc_ids: set[str],
                 known: dict[str, dict[str, Any]] | None = None) -> dict[str, str]:
    """doc_id -> why each of these documents is out of force, as a clause: "it says so:
    “Status: SUPERSEDED by v3.0”", or "policy.md replaces it: “Supersedes: v2.1 (2022)”".
    `known`: chunk rows already read (store.get_chunks)."""
    first = store.get_chunks(settings, tenant, [f"{d}:0000" for d in sorted(doc_ids)], known)
    rows = {r["doc_id"]: r for r in first.values() if r.get("tenant") == tenant}
    found = {doc_id: f"it says so: “{line}”" for doc_id, row in rows.items() if (line := status_line(row["text"]))}
    told: dict[str, set[str]] = {}  # doc_id -> the versions and years its opening and name hold
    for doc_id, row in rows.items():
        line, named = superseding_line(row["text"])
        if not line:
            continue
        # the new edition's own year and day said in that line ("replaces the 2024 edition from
        # 1 April 2025") name no old edition: what its opening says elsewhere is its own (a QA
        # pass: the 2024 edition, quoted beside the 2025 one, was never put out of force)
        own = versions(" ".join(_opening(row["text"])).replace(line, " "))
        named = named - own or named
        # the old edition's title shares a word with this line or with the new one's title:
        # "Supersedes: the 2022 policy" puts no unrelated document of 2022 out of force
        naming = set(tokenize(line)) | _title(row["text"])
        for other, old in rows.items():
            if other == doc_id or other in found:
                continue
            if other not in told:
                told[other] = versions(" ".join(_opening(old["text"])) + " " + str(old.get("source") or ""))
            if named <= told[other] and _title(old["text"]) & naming:
                found[other] = f"{row.get('source') or doc_id} replaces it: “{line}”"
    return found
