"""Ruled lines found in a scan's pixels: long thin runs are rules, letters are not, and a
grid of them is a table's cells."""

from __future__ import annotations

import numpy as np

from core.ingest.scan_rules import find_rules, table_grids

DPI = 100  # 1 pixel = 0.72 page units


def _page() -> np.ndarray:
    return np.full((1100, 850), 255, dtype=np.uint8)


def _grid(img: np.ndarray, xs: list[int], ys: list[int]) -> None:
    for y in ys:
        img[y : y + 2, xs[0] : xs[-1] + 2] = 0
    for x in xs:
        img[ys[0] : ys[-1] + 2, x : x + 2] = 0


def test_a_ruled_table_gives_its_column_and_row_edges():
    img = _page()
    _grid(img, xs=[100, 400, 600], ys=[200, 240, 280, 320])
    img[500:530, 100:104] = 0  # a letter's stem: 0.3 inch, not a rule
    img[600:602, 100:150] = 0  # an underline under a word: half an inch, not a rule
    rules, mask = find_rules(img, DPI)
    assert len(rules.across) == 4 and len(rules.down) == 3
    assert mask[200, 300] and mask[250, 400] and not mask[510, 101] and not mask[600, 120]
    ((columns, rows),) = table_grids(rules)
    assert [round(c / 0.72) for c in columns] == [101, 401, 601]  # the middle of each 2-pixel rule
    assert [round(r / 0.72) for r in rows] == [201, 241, 281, 321]


def test_two_tables_are_two_grids_top_to_bottom():
    img = _page()
    _grid(img, xs=[100, 300, 700], ys=[700, 740, 780])
    _grid(img, xs=[100, 500, 700], ys=[100, 140, 180, 220])
    grids = table_grids(find_rules(img, DPI)[0])
    assert [len(rows) for _, rows in grids] == [4, 3]
    assert [round(c / 0.72) for c in grids[1][0]] == [101, 301, 701]


def test_rules_across_without_column_lines_are_no_table():
    img = _page()
    for y in (200, 240, 280):
        img[y : y + 2, 100:700] = 0
    rules, _ = find_rules(img, DPI)
    assert len(rules.across) == 3 and table_grids(rules) == []


def test_a_box_around_a_paragraph_is_no_table():
    img = _page()
    _grid(img, xs=[100, 700], ys=[200, 400])  # one cell: a framed note
    assert table_grids(find_rules(img, DPI)[0]) == []


def test_a_dark_banner_is_no_rule_and_keeps_its_text():
    img = _page()
    img[0:150, :] = 40  # a dark title banner across the page
    img[60:80, 100:300] = 250  # light text printed on it
    _grid(img, xs=[100, 400, 600], ys=[300, 340, 380])
    rules, mask = find_rules(img, DPI)
    assert not mask[:150].any()  # nothing of the banner is whitened
    assert [len(rows) for _, rows in table_grids(rules)] == [3]
