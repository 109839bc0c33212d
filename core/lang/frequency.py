"""How common each word stem is in general text: a prior for a tenant's word weights.

A tenant of three documents has no word statistics worth the name. "long" stands in none of
its passages, so by the tenant's own counts it weighs as the rarest word of "How long does
the course take?", and the answer model reads half the question as a topic the knowledge
base lacks. General text says which words every text uses. `LexicalIndex.idf` adds it as
pseudo-chunks (Dirichlet smoothing of the chunk frequency, as in language-model retrieval):

    df' = df + PRIOR_CHUNKS * p(t),   n' = n + PRIOR_CHUNKS,   p(t) = 1 - exp(-CHUNK_WORDS * f(t))

f(t) is the summed frequency in general text of the words whose stem is t, and p(t) the
chance that a chunk of CHUNK_WORDS words holds one of them. A large tenant's own counts
outweigh the prior; a small tenant's weights fall back to general text.

The table is data of the registered languages (core/lang): the stems of wordfreq's word
lists (Wikipedia, subtitles, news, books and web text), stemmed as `core.lexical.tokenize`
stems, with f >= MIN_FREQUENCY (rarer words barely move a weight). It is built by
`python -m core.lang.frequency` from the pinned wordfreq and shipped, so nothing is built
at run time.
"""

from __future__ import annotations

import functools
import gzip
import io
import math
from pathlib import Path

TABLE = Path(__file__).with_name("stem_frequency.tsv.gz")
MIN_FREQUENCY = 1e-6
PRIOR_CHUNKS = 100.0
CHUNK_WORDS = 150.0  # about what a chunk of 220 tokens holds


@functools.cache
def stem_frequencies() -> dict[str, float]:
    """stem -> summed frequency of its words in general text (0 when absent)."""
    if not TABLE.exists():
        return {}
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
