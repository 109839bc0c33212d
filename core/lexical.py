"""Per-tenant BM25 (bm25s) with language-aware stemming (PyStemmer).

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
from pathlib import Path

import bm25s
import Stemmer

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


# Number words read as their digits: "a three-year plan" asks about "3 years", "две недели"
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


FAMILY_PREFIX = 6  # shorter stems begin too many unrelated words
TOKENS_FILE = "tokens.json"  # each text's tokens, keyed by text_key, for the next rebuild


def text_key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def _known(known: dict[str, list[str]], key: str) -> list[str] | None:
    got = known.get(key)
    return got if isinstance(got, list) and got and all(isinstance(t, str) for t in got) else None


def load_tokens(folder: Path) -> dict[str, list[str]]:
    """The tokens an index version kept of its texts; empty when it kept none, was written
    by another tokenizer version, or cannot be read (a rebuild then tokenizes everything)."""
    try:
        if (folder / "tokenizer.txt").read_text().strip() != str(TOKENIZER_VERSION):
            return {}
        got = json.loads((folder / TOKENS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return got if isinstance(got, dict) else {}


class LexicalIndex:
    """A BM25 index over one tenant's chunks, persisted in its own folder."""

    def __init__(
        self, chunk_ids: list[str], retriever: bm25s.BM25 | None, df: dict[str, int] | None = None,
        doc_df: dict[str, int] | None = None,
    ) -> None:
        self.chunk_ids = chunk_ids
        self.retriever = retriever
        self.df = df or {}  # document frequency per token, for IDF weights elsewhere
        self.doc_df = doc_df or {}  # in how many documents (not chunks) each token occurs
        self.documents = len({cid.split(":")[0] for cid in chunk_ids})
        self._prefixes: dict[str, bool] = {}
        self.tokenizer_version = TOKENIZER_VERSION  # as loaded from disk (1: written before versions)
        self.tokens: dict[str, list[str]] = {}  # text_key -> tokens, kept by build() for save()

    def knows_family(self, token: str) -> bool:
        """Is the token, or for a long English stem a word it begins ("complain" ->
        "complaint", which the stemmer keeps apart), in the index?"""
        if self.df.get(token, 0) > 0:
            return True
        if len(token) < FAMILY_PREFIX or not token.isascii() or not token.isalpha():
            return False
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
    def build(cls, items: list[tuple[str, str]], known: dict[str, list[str]] | None = None) -> LexicalIndex:
        """items: (chunk_id, text) pairs. `known` maps text_key(text) to its tokens from an
        earlier build (`load_tokens`): tokenizing is most of a rebuild's time (55% at 10k
        chunks), and an upload changes few texts."""
        if not items:
            return cls([], None)
        known = known or {}
        keys = [text_key(text) for _, text in items]
        corpus = [_known(known, k) or tokenize(text) or ["_"] for k, (_, text) in zip(keys, items)]
        retriever = bm25s.BM25()
        retriever.index(corpus, show_progress=False)
        df: dict[str, int] = {}
        docs: dict[str, set[str]] = {}
        for (cid, _), tokens in zip(items, corpus):
            for tok in set(tokens):
                df[tok] = df.get(tok, 0) + 1
                docs.setdefault(tok, set()).add(cid.split(":")[0])
        index = cls([cid for cid, _ in items], retriever, df, {t: len(d) for t, d in docs.items()})
        index.tokens = dict(zip(keys, corpus))
        return index

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        tokens = tokenize(query)
        if not tokens or self.retriever is None or not self.chunk_ids:
            return []
        k = min(k, len(self.chunk_ids))
        docs, scores = self.retriever.retrieve([tokens], k=k, show_progress=False)
        return [
            (self.chunk_ids[int(d)], float(s)) for d, s in zip(docs[0], scores[0]) if s > 0
        ]

    def save(self, folder: Path) -> None:
        """Write a new version beside the current one, then point `folder` (a link) at it
        in one rename: a reader sees the old version or the new one, never half of one (a
        reader still loading the old one when it is removed reads again, core/index.py)."""
        folder.parent.mkdir(parents=True, exist_ok=True)
        tag = uuid.uuid4().hex[:8]
        tmp = folder.with_name(f"{folder.name}.tmp-{tag}")
        tmp.mkdir()
        (tmp / "df.json").write_text(json.dumps(self.df, ensure_ascii=False), encoding="utf-8")
        (tmp / "doc_df.json").write_text(json.dumps(self.doc_df, ensure_ascii=False), encoding="utf-8")
        (tmp / "ids.json").write_text(json.dumps(self.chunk_ids), encoding="utf-8")
        (tmp / "tokenizer.txt").write_text(str(TOKENIZER_VERSION), encoding="utf-8")
        if self.tokens:  # for the next rebuild (load_tokens); never read by a search
            (tmp / TOKENS_FILE).write_text(json.dumps(self.tokens, ensure_ascii=False), encoding="utf-8")
        if self.retriever is not None:
            self.retriever.save(str(tmp), show_progress=False)
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
        ids_file = folder / "ids.json"
        if not ids_file.exists():
            return cls([], None)
        ids = json.loads(ids_file.read_text(encoding="utf-8"))
        if not ids:
            return cls([], None)
        df_file = folder / "df.json"
        df = json.loads(df_file.read_text(encoding="utf-8")) if df_file.exists() else {}
        doc_df_file = folder / "doc_df.json"
        doc_df = json.loads(doc_df_file.read_text(encoding="utf-8")) if doc_df_file.exists() else {}
        index = cls(ids, bm25s.BM25.load(str(folder), show_progress=False, verbosity=0), df, doc_df)
        version_file = folder / "tokenizer.txt"
        index.tokenizer_version = int(version_file.read_text()) if version_file.exists() else 1
        return index


def stale_versions(folder: Path) -> list[Path]:
    """Everything beside the BM25 link but its current version: versions replaced or never
    linked, temp folders and links of a write that died."""
    current = os.readlink(folder) if folder.is_symlink() else None
    return sorted(p for p in folder.parent.glob(folder.name + ".*") if p.name != current)
