"""The ruled lines of a scanned page: found in its pixels, taken out before OCR, and used
as the grid of its tables.

Tesseract's page layout drops a ruled table's cells, or whole columns of them (a two-column
table lost its header row and its whole right-hand column), while the same image
with the rules whitened reads every cell in row order. The rules are also where the
table's cells are, which OCR alone cannot say.

1. A rule is a run of dark pixels far longer than any stroke of a letter: at least 0.6
   inch across, or 0.35 inch down (a capital of 40 points is about 0.4 inch tall, so
   titles set that large could lose a stem; body text never does), and at most 0.04 inch
   thick (a dark banner or a filled box is a band, and keeps the text printed on it).
2. Runs on neighbouring pixel rows (columns) at about the same place are one rule, drawn
   as a segment in page units (72 a inch).
3. A table is a group of vertical rules whose spans overlap, with the horizontal rules
   across them: its columns are cut at the vertical rules that run down at least half
   its height, its rows at the horizontal rules that run across at least half its width.
   A table drawn with horizontal rules only (no column lines) is not found: its cells
   stay lines of text.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

DARK = 160  # grey level under which a pixel is ink
MIN_ACROSS_INCH = 0.6
MIN_DOWN_INCH = 0.35
MERGE_PX = 6  # runs this close at both ends, on neighbouring rows, are one rule
# a rule is a line, not a band: a dark banner or a filled box is as long, but thick (and
# whitening it would erase the light text printed on it)
MAX_THICK_INCH = 0.04
GROW_PX = 2  # pixels around a rule whitened with it


@dataclass(frozen=True)
class Rule:
    """A ruled line in page units: `at` is its y (across) or x (down), from `start` to `end`."""

    at: float
    start: float
    end: float


@dataclass(frozen=True)
class Rules:
    across: list[Rule]
    down: list[Rule]


def find_rules(gray: np.ndarray, dpi: int, rendered: float | None = None) -> tuple[Rules, np.ndarray]:
    """The page's rules (page units) and a mask of their pixels, from a grey image of the
    paper at `dpi`, rendered at `rendered` dots per page inch (the same unless an image's
    stated resolution was not believed: core/ingest/ocr.py `PageReader.resolution`)."""
    dark = gray < DARK
    thick = max(int(MAX_THICK_INCH * dpi), 2)
    across_mask = _thin(_long_runs(dark, int(MIN_ACROSS_INCH * dpi)), thick)
    down_mask = _thin(_long_runs(dark.T, int(MIN_DOWN_INCH * dpi)), thick).T
    scale = 72.0 / (rendered or dpi)
    rules = Rules(across=_segments(across_mask, scale), down=_segments(down_mask.T, scale))
    return rules, _grown(across_mask | down_mask, GROW_PX)


def _grown(mask: np.ndarray, by: int) -> np.ndarray:
    """The mask and the pixels within `by` of it: a rule's soft edges (grey, not dark, on a
    scan turned straight or a JPEG) read as dashes once its dark core is whitened."""
    out = mask.copy()
    for shift in range(1, by + 1):
        out[shift:, :] |= mask[:-shift, :]
        out[:-shift, :] |= mask[shift:, :]
        out[:, shift:] |= mask[:, :-shift]
        out[:, :-shift] |= mask[:, shift:]
    return out


def _long_runs(dark: np.ndarray, min_len: int) -> np.ndarray:
    """True where a pixel is in a run of dark pixels, along a row, at least `min_len` long."""
    out = np.zeros_like(dark)
    for i in np.flatnonzero(dark.sum(axis=1) >= min_len):
        edges = np.diff(np.concatenate(([0], dark[i].astype(np.int8), [0])))
        for s, e in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1), strict=True):
            if e - s >= min_len:
                out[i, s:e] = True
    return out


def _thin(runs: np.ndarray, max_thick: int) -> np.ndarray:
    """`runs` (long runs along each row) without the stacks of more than `max_thick` rows
    of them: looked at along each column, a rule is a few pixels thick, a band is not."""
    out = runs.copy()
    for j in np.flatnonzero(runs.sum(axis=0) > max_thick):
        edges = np.diff(np.concatenate(([0], runs[:, j].astype(np.int8), [0])))
        for s, e in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1), strict=True):
            if e - s > max_thick:
                out[s:e, j] = False
    return out


def _segments(mask: np.ndarray, scale: float) -> list[Rule]:
    """Runs along the rows of `mask`, those on neighbouring rows at the same place merged
    into one rule at their middle row."""
    found: list[list[int]] = []  # [first row, last row, start, end]
    active: list[list[int]] = []
    for i, row in enumerate(mask):
        if not row.any():
            active = []
            continue
        edges = np.diff(np.concatenate(([0], row.astype(np.int8), [0])))
        now = []
        for s, e in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1), strict=True):
            same = next((seg for seg in active if abs(seg[2] - s) <= MERGE_PX and abs(seg[3] - e) <= MERGE_PX), None)
            if same is None:
                same = [i, i, int(s), int(e)]
                found.append(same)
            same[1] = i
            now.append(same)
        active = now
    return [Rule(at=(first + last + 1) / 2 * scale, start=s * scale, end=e * scale) for first, last, s, e in found]


def table_grids(rules: Rules) -> list[tuple[list[float], list[float]]]:
    """(column edges, row edges) of each ruled table, in page units, top to bottom."""
    groups: list[list[Rule]] = []
    for rule in sorted(rules.down, key=lambda r: r.start):
        group = next((g for g in groups if any(_overlap(rule, other) > 0.5 for other in g)), None)
        if group is None:
            groups.append([rule])
        else:
            group.append(rule)
    grids = []
    for group in groups:
        if len(group) < 2:
            continue
        top, bottom = min(r.start for r in group), max(r.end for r in group)
        left, right = min(r.at for r in group), max(r.at for r in group)
        columns = _edges([r.at for r in group if r.end - r.start >= 0.5 * (bottom - top)])
        rows = _edges([r.at for r in rules.across if top - 3 <= r.at <= bottom + 3
                       and min(r.end, right) - max(r.start, left) >= 0.5 * (right - left)])
        if len(columns) >= 3 and len(rows) >= 3:  # two columns and two rows at least
            grids.append((columns, rows))
    return sorted(grids, key=lambda g: g[1][0])


def _overlap(a: Rule, b: Rule) -> float:
    """How much of the shorter of two vertical rules' spans the other covers."""
    shared = min(a.end, b.end) - max(a.start, b.start)
    return shared / max(min(a.end - a.start, b.end - b.start), 1e-6)


def _edges(positions: list[float], tolerance: float = 3.0) -> list[float]:
    """Positions closer than `tolerance` (a thick rule drawn twice) as one."""
    out: list[float] = []
    for p in sorted(positions):
        if out and p - out[-1] <= tolerance:
            continue
        out.append(p)
    return out
