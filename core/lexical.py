"""Per-tenant BM25 (segments of term counts, core/bm25.py) with language-aware stemming
(PyStemmer).

Each token is stemmed by its own script: Cyrillic words with the Russian stemmer, Latin
words with the English one, so one index serves mixed EN/RU corpora and queries.
Identifiers such as AB12, 7-2 or 4.7 are kept whole as tokens.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
import shutil
import uuid
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import Stemmer

from core import bm25
from core.bm25 import Segment, doc_of, merge_tiers
from core.lang import LANGUAGES

TOKEN_RE = re.compile(r"[A-Za-z]+\d+[A-Za-z\d]*|\d+(?:[.,\-/]\d+)*|[^\W\d_]+", re.UNICODE)
CYRILLIC_RE = re.compile(r"[а-яё]", re.IGNORECASE)

# stop words and stemmers come from the language modules (core/lang/): one place per language
STOPWORDS = frozenset(w for lang in LANGUAGES.values() for w in lang.stopwords)
_STEMMER_OF = {letter: lang.stemmer for lang in LANGUAGES.values() for letter in lang.letters}


@functools.lru_cache(maxsize=8)
def _stemmer(lang: str) -> Stemmer.Stemmer:
    return Stemmer.Stemmer(lang)


# Bumped whenever tokenize() changes: a BM25 index written with another version is rebuilt
# on first use (core/index.py), so queries and index always agree.
TOKENIZER_VERSION = 7

# English contractions: "wouldn't" is "would not" (not an unknown word "wouldn"), "I've
# got" has no word "ve", "PeopleDesk's" is PeopleDesk
_CONTRACTIONS = [
    (re.compile(r"\b(ca|wo)n['’]t\b", re.I), lambda m: {"ca": "can", "wo": "will"}[m.group(1).lower()] + " not"),
    (re.compile(r"n['’]t\b", re.I), lambda m: " not"),
    (re.compile(r"\b(what|that|it|there|here|who|where|how|when|which|he|she)['’]s\b", re.I), lambda m: m.group(1) + " is"),
    (re.compile(r"(?<=[A-Za-z])['’](ve|m|re|ll|d|s)\b", re.I),
     lambda m: {"ve": " have", "m": " am", "re": " are", "ll": " will", "d": " would", "s": ""}[m.group(1).lower()]),
]


def expand_contractions(text: str) -> str:
    """English contractions written out ("wouldn't" -> "would not", "I've" -> "I")."""
    if "'" not in text and "’" not in text:
        return text
    for pattern, repl in _CONTRACTIONS:
        text = pattern.sub(repl, text)
    return text

# Russian imperatives keep their ending through the Snowball stemmer ("подготовьте" ->
# "подготовьт"), while questions use the infinitive ("что подготовить" -> "подготов"), and
# instructions are written in the imperative. Read them as the infinitive first.
RU_IMPERATIVE_RE = re.compile(r"(?<=[а-яё]{3})(?:уйте|ьте|йте)$")
_INFINITIVE_ENDING = {"уйте": "овать", "ьте": "ить", "йте": "ть"}  # используйте, оставьте, открывайте


def _as_infinitive(word: str) -> str:
    return RU_IMPERATIVE_RE.sub(lambda m: _INFINITIVE_ENDING[m.group(0)], word)


# Number words read as their digits: "a three-year lease" asks about "3 years", "две недели"
# about "2 недели". "one"/"один" stay words: they are pronouns as often as numbers.
NUMBER_WORDS = {
    "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
    "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "fifteen": "15",
    "twenty": "20", "thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "ninety": "90",
    **dict.fromkeys(["два", "две", "двух"], "2"), **dict.fromkeys(["три", "трёх", "трех"], "3"),
    **dict.fromkeys(["четыре", "четырёх", "четырех"], "4"), **dict.fromkeys(["пять", "пяти"], "5"),
    **dict.fromkeys(["шесть", "шести"], "6"), **dict.fromkeys(["семь", "семи"], "7"),
    **dict.fromkeys(["восемь", "восьми"], "8"), **dict.fromkeys(["девять", "девяти"], "9"),
    **dict.fromkeys(["десять", "десяти"], "10"), **dict.fromkeys(["двенадцать", "двенадцати"], "12"),
    **dict.fromkeys(["тридцать", "тридцати"], "30"),
}


# Units spelled out read as their symbol: "per kilometre" and "per km" are one question,
# «весит 70 килограммов» and "70 kg" one answer.
UNIT_WORDS_RE = re.compile(  # one match per token: tokenize() is on every hot path
    r"^(?:(?P<km>kilomet(?:re|er)s?)|(?P<mm>millimet(?:re|er)s?)|(?P<cm>centimet(?:re|er)s?)|(?P<kg>kilograms?)"
    r"|(?P<ru_km>километр\w*)|(?P<ru_mm>миллиметр\w*)|(?P<ru_cm>сантиметр\w*)|(?P<ru_kg>килограмм\w*))$")
_UNIT_SYMBOLS = {"km": "km", "mm": "mm", "cm": "cm", "kg": "kg", "ru_km": "км", "ru_mm": "мм", "ru_cm": "см",
                 "ru_kg": "кг"}


def _unit_symbol(word: str) -> str | None:
    m = UNIT_WORDS_RE.match(word)
    return _UNIT_SYMBOLS[m.lastgroup] if m and m.lastgroup else None


# "e-mails" is one word, as "emails" is (not "e" and "mail")
E_MAIL_RE = re.compile(r"\b(e)-(?=mail)", re.IGNORECASE)


def tokenize(text: str, keep_stopwords: bool = False) -> list[str]:
    """Lowercased, stemmed tokens; identifiers (AB12, 7-2, 4.7) kept whole."""
    out: list[str] = []
    if "-" in text:
        text = E_MAIL_RE.sub(r"\1", text)
    for raw in TOKEN_RE.findall(expand_contractions(text)):
        tok = raw.lower().replace(",", ".")
        if tok in NUMBER_WORDS:  # before the stop words: "три", "два" are on that list
            tok = NUMBER_WORDS[tok]
        elif not keep_stopwords and tok in STOPWORDS:
            continue
        elif tok.isalpha() and (symbol := _unit_symbol(tok)):
            tok = symbol
        elif tok.isalpha():
            algorithm = next((_STEMMER_OF[ch] for ch in tok if ch in _STEMMER_OF), "english")
            if algorithm == "russian":
                tok = _as_infinitive(tok)
            tok = _stemmer(algorithm).stemWord(tok)
        out.append(tok)
    return out


def stem_of(word: str) -> str:
    """A word's stem as the index writes it (the word itself, lowercased, when it has none)."""
    stems = tokenize(word, keep_stopwords=True)
    return stems[0] if stems else word.lower()


def pair_stems(pairs: Iterable[tuple[str, str]]) -> dict[str, frozenset[str]]:
    """Stem -> the stems of the words paired with it, both ways (front / rear, open / closed)."""
    out: dict[str, set[str]] = {}
    for a, b in pairs:
        out.setdefault(stem_of(a), set()).add(stem_of(b))
        out.setdefault(stem_of(b), set()).add(stem_of(a))
    return {k: frozenset(v) for k, v in out.items()}


FAMILY_PREFIX = 6  # shorter stems begin too many unrelated words
MANIFEST = "manifest.json"  # the version's segments and what each document's chunks were


def fingerprint(chunks: list[tuple[str, int]]) -> str:
    """What a document's chunks were when indexed: their ids and lengths (the registry
    gives both without reading every text into Python; a re-index whose chunks keep their
    ids and lengths is named by its caller, core/index.py `rebuild_lexical`)."""
    return hashlib.sha1("\n".join(f"{cid}:{n}" for cid, n in chunks).encode("utf-8")).hexdigest()


def fingerprints(items: list[tuple[str, str]]) -> dict[str, str]:
    by_doc: dict[str, list[tuple[str, int]]] = {}
    for cid, text in items:
        by_doc.setdefault(doc_of(cid), []).append((cid, len(text)))
    return {d: fingerprint(chunks) for d, chunks in by_doc.items()}


class LexicalIndex:
    """A BM25 index over one tenant's chunks (segments of whole documents, core/bm25.py),
    persisted in its own folder; `updated` adds and removes documents without a rebuild."""

    def __init__(self, segments: list[Segment] | None = None, docs: dict[str, str] | None = None,
                 legacy_ids: list[str] | None = None) -> None:
        self.segments = segments or []
        self.docs = docs or {}  # doc_id -> fingerprint of its chunks when indexed
        self.chunk_ids = legacy_ids if legacy_ids is not None else [c for s in self.segments for c in s.chunk_ids]
        self.df: dict[str, int] = {}  # chunk frequency per token, for IDF weights elsewhere
        self.doc_df: dict[str, int] = {}  # in how many documents (not chunks) each token occurs
        for s in self.segments:  # documents are never split across segments, so shares add up
            for t, n, d in zip(s.vocab, s.df().tolist(), s.doc_df.tolist()):
                self.df[t] = self.df.get(t, 0) + n
                self.doc_df[t] = self.doc_df.get(t, 0) + d
        self.documents = len({doc_of(cid) for cid in self.chunk_ids})
        self._prefixes: dict[str, bool] = {}
        self.tokenizer_version = TOKENIZER_VERSION  # as loaded from disk (1: written before versions)
        self.legacy = legacy_ids is not None  # a bm25s index of before segments: rebuilt on first use

    def knows_family(self, token: str) -> bool:
        """Is the token, or for a long English stem a word it begins ("complain" ->
        "complaint", which the stemmer keeps apart), or for a long stem of another script a
        word of its first FAMILY_PREFIX letters, in the index?"""
        if self.df.get(token, 0) > 0:
            return True
        if len(token) < FAMILY_PREFIX or not token.isalpha():
            return False
        if not token.isascii():
            # a Russian stem differs from its family's by more than an ending («стандартн» /
            # «стандарт», «страховк» / «страхован»): a QA pass saw them named as words the
            # documents never use, and sent to Synonyms; the first letters tell the family
            return self.knows_prefix(token[:FAMILY_PREFIX])
        return self.knows_prefix(token)

    def knows_prefix(self, prefix: str) -> bool:
        """Does any token of the index begin with the prefix? Cached per index."""
        if prefix not in self._prefixes:
            self._prefixes[prefix] = any(t.startswith(prefix) for t in self.df)
        return self._prefixes[prefix]

    def document_share(self, token: str) -> float:
        """The share of the tenant's documents that use the token (0 when unknown)."""
        return self.doc_df.get(token, 0) / self.documents if self.documents else 0.0

    def idf(self, token: str) -> float:
        """Smoothed IDF in [0, ~log N]; unseen tokens get the highest weight."""
        n = max(len(self.chunk_ids), 1)
        return math.log(1 + (n - self.df.get(token, 0) + 0.5) / (self.df.get(token, 0) + 0.5))

    @classmethod
    def build(cls, items: list[tuple[str, str]]) -> LexicalIndex:
        """items: (chunk_id, text) pairs, whole documents."""
        return cls().updated(set(), items)

    def updated(self, removed: set[str], added: list[tuple[str, str]],
                docs: dict[str, str] | None = None) -> LexicalIndex:
        """A new index: this one less the documents `removed`, plus the chunks `added`
        (whole documents, tokenized here: the only tokenizing an upload pays), segments
        merged by tier. `docs` gives the added documents' fingerprints when the caller
        knows them (else they are computed from the texts)."""
        segments = [s.without(removed) if s.docs & removed else s for s in self.segments]
        if added:
            segments.append(Segment.build([cid for cid, _ in added],
                                          [tokenize(text) or ["_"] for _, text in added]))
        kept = {d: fp for d, fp in self.docs.items() if d not in removed}
        return LexicalIndex(merge_tiers([s for s in segments if s.size]),
                            {**kept, **(docs if docs is not None else fingerprints(added))})

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        tokens = tokenize(query)
        if not tokens or not self.segments or k <= 0:
            return []
        got = bm25.scores(self.segments, tokens, self.df)
        k = min(k, len(got))
        top = np.argpartition(-got, k - 1)[:k] if k < len(got) else np.arange(len(got))
        top = top[np.lexsort((top, -got[top]))]  # best first; ties in index order
        return [(self.chunk_ids[int(i)], float(got[i])) for i in top if got[i] > 0]

    def save(self, folder: Path) -> None:
        """Write a new version beside the current one, then point `folder` (a link) at it
        in one rename: a reader sees the old version or the new one, never half of one (a
        reader still loading the old one when it is removed reads again, core/index.py).
        Segments the current version already holds are hard-linked, not written again."""
        folder.parent.mkdir(parents=True, exist_ok=True)
        tag = uuid.uuid4().hex[:8]
        tmp = folder.with_name(f"{folder.name}.tmp-{tag}")
        tmp.mkdir()
        current = folder.resolve() if folder.is_symlink() else None
        for n, segment in enumerate(self.segments):
            held = current / segment.name if current and segment.name else None
            if held and held.exists():
                try:
                    os.link(held, tmp / segment.name)
                    continue
                except OSError:  # a file system without hard links: written again
                    pass
            segment.save(tmp / f"seg-{tag}-{n}.npz")
        manifest = {"tokenizer": TOKENIZER_VERSION, "docs": self.docs,
                    "segments": [{"file": s.name, "chunks": s.size} for s in self.segments]}
        (tmp / MANIFEST).write_text(json.dumps(manifest, ensure_ascii=False), encoding="utf-8")
        (tmp / "ids.json").write_text(json.dumps(self.chunk_ids), encoding="utf-8")
        (tmp / "tokenizer.txt").write_text(str(TOKENIZER_VERSION), encoding="utf-8")
        version = folder.with_name(f"{folder.name}.v-{tag}")
        tmp.rename(version)
        if folder.is_dir() and not folder.is_symlink():  # written before versions: moved aside once
            folder.rename(folder.with_name(f"{folder.name}.old-{tag}"))
        link = folder.with_name(f"{folder.name}.link-{tag}")
        os.symlink(version.name, link)  # relative: the data folder may be copied or moved
        os.replace(link, folder)
        for stale in stale_versions(folder):
            shutil.rmtree(stale, ignore_errors=True)

    @classmethod
    def load(cls, folder: Path) -> LexicalIndex:
        folder = folder.resolve() if folder.is_symlink() else folder
        version_file = folder / "tokenizer.txt"
        version = int(version_file.read_text()) if version_file.exists() else 1
        manifest_file = folder / MANIFEST
        if not manifest_file.exists():
            ids_file = folder / "ids.json"
            ids = json.loads(ids_file.read_text(encoding="utf-8")) if ids_file.exists() else []
            index = cls(legacy_ids=ids) if ids else cls()  # a bm25s index: rebuilt on first use
        else:
            manifest = json.loads(manifest_file.read_text(encoding="utf-8"))
            index = cls([Segment.load(folder / s["file"]) for s in manifest["segments"]], manifest["docs"])
        index.tokenizer_version = version
        return index


def stale_versions(folder: Path) -> list[Path]:
    """Everything beside the BM25 link but its current version: versions replaced or never
    linked, temp folders and links of a write that died."""
    current = os.readlink(folder) if folder.is_symlink() else None
    return sorted(p for p in folder.parent.glob(folder.name + ".*") if p.name != current)
