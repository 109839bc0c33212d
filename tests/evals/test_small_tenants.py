"""evals/small_tenants.py: the development questions split over tenants of a few documents."""

from __future__ import annotations

import json
from pathlib import Path

from evals.small_tenants import plan


def _domain(tmp_path: Path, name: str, files: list[str], rows: list[dict]) -> dict:
    folder = tmp_path / name
    folder.mkdir()
    for f in files:
        (folder / f).write_text(f"# {f}\n", encoding="utf-8")
    sets = tmp_path / f"{name}.jsonl"
    sets.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return {"tenant": name, "corpus": [folder], "sets": [sets]}


def test_questions_go_with_their_document_in_groups_of_the_size(tmp_path: Path) -> None:
    rows = [
        {"id": "a1", "question": "q a1", "kind": "answerable", "gold_source": "a.md"},
        {"id": "c1", "question": "q c1", "kind": "answerable", "gold_source": "c.md"},
        {"id": "d1", "question": "q d1", "kind": "answerable", "gold_source": "d.md"},
        # no gold document: its answer may be anywhere, so it is left out
        {"id": "x1", "question": "q x1", "kind": "answerable"},
        # unanswerable and misleading ones go where retrieval over the whole domain points
        {"id": "u1", "question": "q u1", "kind": "unanswerable"},
        {"id": "m1", "question": "q m1", "kind": "misleading"},
    ]
    domains = {"dom": _domain(tmp_path, "dom", ["a.md", "b.md", "c.md", "d.md"], rows)}
    near = {"q u1": "d.md", "q m1": "a.md"}
    got = plan(domains, lambda domain, question: near.get(question), size=2, sets_dir=tmp_path / "out")

    assert sorted(got) == ["small-dom-0", "small-dom-1"]
    # b.md has no question, so the groups are (a, c) and (d)
    assert [p.name for p in got["small-dom-0"]["corpus"]] == ["a.md", "c.md"]
    assert [p.name for p in got["small-dom-1"]["corpus"]] == ["d.md"]
    asked = {name: [json.loads(line)["id"] for line in entry["sets"][0].read_text().splitlines()]
             for name, entry in got.items()}
    assert asked == {"small-dom-0": ["a1", "m1", "c1"], "small-dom-1": ["d1", "u1"]}
    assert {entry["parent"] for entry in got.values()} == {"dom"}
    assert all(entry["tenant"] == name for name, entry in got.items())


def test_a_question_retrieval_places_nowhere_is_left_out(tmp_path: Path) -> None:
    rows = [{"id": "u1", "question": "q", "kind": "unanswerable"},
            {"id": "a1", "question": "q a", "kind": "answerable", "gold_source": "a.md"}]
    domains = {"dom": _domain(tmp_path, "dom", ["a.md"], rows)}
    got = plan(domains, lambda domain, question: None, size=3, sets_dir=tmp_path / "out")
    assert [json.loads(line)["id"] for line in got["small-dom-0"]["sets"][0].read_text().splitlines()] == ["a1"]


def _records(seed: int) -> list:
    import numpy as np

    from core.answer.signals import FEATURES
    from evals.train import Record

    rng = np.random.default_rng(seed)
    out = []
    for d in ("alpha", "beta", "gamma"):
        for q in range(24):
            kind = ("answerable", "answerable", "unanswerable")[q % 3]
            signals, labels = [], []
            for u in range(4):
                s = {f: float(rng.random()) for f in FEATURES}
                right = kind == "answerable" and u == 0
                s["sim_unit"] = s["sim_window"] = 0.9 if right else float(rng.random()) * 0.6
                signals.append(s)
                labels.append(int(right))
            out.append(Record(d, f"{d}-{q}", kind, signals, labels))
    return out


def test_small_records_equal_to_the_whole_ones_give_the_held_out_figures() -> None:
    """Each domain's small-tenant questions are answered as leave-one-domain-out answers
    that domain: asked the very same records, both columns agree domain by domain."""
    from evals.small_tenants import held_out_small

    records = _records(0)
    got = held_out_small(records, records)
    assert sorted(got["domains"]) == ["alpha", "beta", "gamma"]
    for figures in got["domains"].values():
        assert figures["small"]["n"] == figures["large"]["n"] == 24
        for key in ("grounded_only", "answer_correct", "hallucination", "too_conservative", "refusal_correct"):
            assert figures["small"][key] == figures["large"][key]
    # and a domain only the small records hold is not reported (no held-out model for it)
    extra = [r for r in _records(1) if r.domain == "alpha"]
    for r in extra:
        r.domain = "delta"
    assert "delta" not in held_out_small(records, records + extra)["domains"]


def test_a_small_tenant_holds_exactly_its_files(settings, tmp_path: Path) -> None:
    from core import store
    from core.config import load_tenant_overrides
    from evals.train import ensure_tenant

    folder = tmp_path / "corpus"
    folder.mkdir()
    for name in ("a.md", "b.md", "c.md"):
        (folder / name).write_text(f"# {name}\n\nThe {name[0]} policy applies to everyone.\n", encoding="utf-8")
    tenants = {"small-x-0": {"tenant": "small-x-0", "corpus": [folder / "a.md", folder / "c.md"], "sets": []},
               # a domain's tenant knobs apply before its documents are read
               "strict": {"tenant": "strict", "corpus": [folder / "b.md"], "sets": [],
                          "knobs": {"max_chunks_per_doc": 1}}}
    ensure_tenant(settings, "small-x-0", tenants)
    assert sorted(d["file_name"] for d in store.list_documents(settings, "small-x-0")) == ["a.md", "c.md"]
    (folder / "b.md").write_text("# b\n\n" + "\n\n".join(f"Rule {i} applies to the {i}th floor of the building, "
                                                        "which every visitor signs in at. " * 8 for i in range(40)),
                                 encoding="utf-8")
    ensure_tenant(settings, "strict", tenants)
    assert load_tenant_overrides(settings, "strict")["max_chunks_per_doc"] == 1
    assert [d["status"] for d in store.list_documents(settings, "strict")] == ["failed"]  # too long for the knob
