"""Text that is encoded data, not writing: a base64 image or a hex dump saved as a ".txt".

Words are short and separated by spaces; encoded data is long unbroken runs. A text whose
non-space characters lie mostly (`ENCODED_SHARE`) in runs longer than `RUN` characters is
data: indexing it gives thousands of chunks no question can match, and "too long to index,
split it" would send the admin to split a blob. URLs, paths and hashes in prose are runs
too, but never most of a document."""

from __future__ import annotations

RUN = 60  # longer than any word, compound or ordinary URL
ENCODED_SHARE = 0.8
LEAST = 1000  # characters: a short note of codes is left to be read


def encoded_share(text: str) -> float:
    """The share of `text`'s non-space characters that lie in runs longer than `RUN`."""
    runs = text.split()
    total = sum(len(r) for r in runs)
    return sum(len(r) for r in runs if len(r) > RUN) / total if total else 0.0


def looks_encoded(text: str) -> bool:
    """Is `text` encoded data rather than writing (see the module docstring)?"""
    return len(text) >= LEAST and encoded_share(text) >= ENCODED_SHARE


def encoded_message(text: str) -> str:
    return (f"The file holds no readable text: {encoded_share(text):.0%} of it is unbroken runs of "
            f"over {RUN} characters (encoded data, such as a base64 image?); upload the original "
            "document instead.")
