"""How common each word stem is in general text: what a tenant's own word counts cannot say.

A tenant of three documents has no word statistics worth the name. "long" stands in none of
its passages, so by the tenant's counts alone it is as much an unknown topic of "How long
does the course take?" as a name the documents never use; a refusal that names "long" as
the word to teach a synonym for helps nobody. `core/pipeline.py` `unknown_words` names the
rarest unknown word in general text first.

Tried as a prior for the tenant's IDF weights (Dirichlet smoothing: df' = df + 100 p(t),
n' = n + 100 pseudo-chunks) and dropped: leave-one-domain-out moved 0.553 -> 0.550 on the
whole development tenants and 0.582 -> 0.588 on tenants of three documents
(`evals.small_tenants`), noise both (docs/quality.md, tenth session).

The table is data of the registered languages (core/lang): the stems of wordfreq's word
lists (Wikipedia, subtitles, news, books and web text), stemmed as `core.lexical.tokenize`
stems, with f >= MIN_FREQUENCY. `chunk_probability` is the chance that a chunk of
CHUNK_WORDS words holds a word of the stem: 1 - exp(-CHUNK_WORDS * f(t)), f(t) the summed
frequency of the stem's words. It is built by `python -m core.lang.frequency` from the
pinned wordfreq and shipped, so nothing is built at run time.
"""

from __future__ import annotations

import functools
import gzip
import io
import math
from pathlib import Path

TABLE = Path(__file__).with_name("stem_frequency.tsv.gz")
MIN_FREQUENCY = 1e-6
CHUNK_WORDS = 150.0  # about what a chunk of 220 tokens holds


@functools.cache
def stem_frequencies() -> dict[str, float]:
    """stem -> summed frequency of its words in general text (0 when absent)."""
    if not TABLE.exists():  # a checkout without the data file: every word unknown to general
        return {}           # text, so unknown words keep the question's order (last first)
    out = {}
    with gzip.open(TABLE, "rt", encoding="utf-8") as f:
        for line in f:
            stem, _, value = line.rstrip("\n").partition("\t")
            out[stem] = float(value)
    return out


def chunk_probability(stem: str) -> float:
    """The chance that a chunk of general text holds a word of this stem."""
    return 1.0 - math.exp(-CHUNK_WORDS * stem_frequencies().get(stem, 0.0))


def build() -> bytes:
    """The table's bytes, from wordfreq's large lists of every registered language."""
    import wordfreq

    from core.lang import LANGUAGES
    from core.lexical import tokenize

    table: dict[str, float] = {}
    for code in sorted(LANGUAGES):
        for word, freq in wordfreq.get_frequency_dict(code, "large").items():
            if freq < MIN_FREQUENCY or not word.isalpha():
                continue
            stems = tokenize(word)
            if len(stems) == 1 and not stems[0][0].isdigit():  # a stop word has none; "ten" is the value 10
                table[stems[0]] = table.get(stems[0], 0.0) + freq
    text = "".join(f"{stem}\t{freq:.4g}\n" for stem, freq in sorted(table.items()))
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0) as f:  # mtime 0: the same bytes every build
        f.write(text.encode("utf-8"))
    return out.getvalue()


if __name__ == "__main__":
    TABLE.write_bytes(build())
    print(f"wrote {TABLE} ({TABLE.stat().st_size} bytes, {len(stem_frequencies())} stems)")
