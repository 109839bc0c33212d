"""Citation pills: one pill per marker, opening it highlights every quote marked so."""

from ui.components import _quote_span, merge_by_index


def test_quotes_sharing_a_marker_are_opened_together():
    text = "E20 means a drain problem. Check the drain filter. Then check the hose."
    cites = [
        {"index": 1, "chunk_id": "d:1", "quote": "E20 means a drain problem.", "char_start": 0, "char_end": 26,
         "rects": [[0, 0, 10, 10]]},
        {"index": 2, "chunk_id": "d:2", "quote": "Other.", "char_start": 0, "char_end": 6, "rects": []},
        {"index": 1, "chunk_id": "d:1", "quote": "Then check the hose.", "char_start": 51, "char_end": 71,
         "rects": [[0, 20, 10, 30]]},
    ]
    merged = merge_by_index(cites)
    assert sorted(merged) == [1, 2]
    assert merged[1]["rects"] == [[0, 0, 10, 10], [0, 20, 10, 30]]
    assert _quote_span(text, merged[1]) == (0, 71)
    assert "E20 means" in merged[1]["quote"] and "the hose" in merged[1]["quote"]
    assert _quote_span("Other. More.", merged[2]) == (0, 6)
