"""Documents that say of themselves that they are out of force.

A tenant keeps an old edition beside the new one ("Leave Policy v2.1 ... Status: SUPERSEDED
by Leave Policy v3.0"). Quoted as if in force, its old rule was answered at 0.94 with
nothing to warn (a QA pass). A document is out of force when its opening says so:

1. The first `OPENING_LINES` non-blank lines of its first chunk are read; a line longer
   than `MAX_STATUS_WORDS` words is content, not a status.
2. A line is a status when it holds one of its language's `Language.withdrawn` phrases
   ("superseded", "no longer in force", «утратил силу»), not right after a negation
   ("not superseded"), and it is said of the document: after a status label ("Status:
   SUPERSEDED by v3.0"), opening a short banner or followed by "by", "since" ("OBSOLETE -
   do not use", "Superseded by v3.0"; not "Archived files are kept for 7 years"), or in
   the title or a line opening "this"/«настоящий» that names the kind of document it is
   (`Language.document_words`: "This policy is no longer in force"). "Supersedes v2.1" is
   the new edition's line and says nothing of the kind.
3. Retrieval ranks such a document's passages after every passage of a document in force
   (core/retrieve.py), so they are quoted only when nothing else was found, and then with
   a note; the Documents page marks the document.
"""

from __future__ import annotations

from core import store
from core.answer.question import words_of
from core.config import Settings
from core.lang import Language, language_of

OPENING_LINES = 12
MAX_STATUS_WORDS = 14


def status_line(text: str) -> str:
    """The line of a document's opening that says it is out of force, or ""."""
    lines = [line.strip() for line in text.splitlines() if line.strip()][:OPENING_LINES]
    for n, line in enumerate(lines):
        words = words_of(line)
        if not words or len(words) > MAX_STATUS_WORDS:
            continue
        lang = language_of(line)
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


def out_of_force(settings: Settings, tenant: str, doc_ids: set[str]) -> dict[str, str]:
    """doc_id -> the status line of each document that says it is out of force."""
    rows = store.get_chunks(settings, tenant, [f"{d}:0000" for d in sorted(doc_ids)])
    found = {}
    for row in rows.values():
        if row.get("tenant") == tenant and (line := status_line(row["text"])):
            found[row["doc_id"]] = line
    return found
