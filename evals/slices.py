"""Where the answer-or-refuse decision fails: held-out separation per slice of questions.

    python -m evals.slices --cache FILE [--extra]

FILE is a signal cache of `python -m evals.train --cache FILE`. Algorithm:

1. Run the same leave-one-domain-out as `evals.train` (each domain answered by models
   trained on the others; threshold and runner-up ratio chosen as there).
2. Label each held-out question: "quoted" when it is answerable and the units the answer
   would quote hold the expected answer; "declinable" when it is unanswerable or
   misleading. (Answerable questions whose quote misses the answer are left out: no
   decision can make them right.)
3. Per slice (the question's style in its set: plain / paraphrase / scene, or `demo` when
   the set gives none; and whether the best unit is in the question's language), report
   the AUC of the answer confidence for quoted against declinable: the probability that
   a right answer outranks a question that should be declined (ties count half). 0.5 is
   no separation; the threshold cannot do better than the AUC lets it. Also the AUC of
   the best unit's own score (`p_best`), and the median confidence of each label.

The figures say which slice a new signal must move (docs/quality.md, ninth session:
plain 0.84, paraphrase 0.65, other language 0.64).
"""

from __future__ import annotations

import argparse
import json
import pickle
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from evals.train import Record, answer_label, catalogue, load_questions, lodo


def auc(positive: Sequence[float], negative: Sequence[float]) -> float | None:
    """P(a positive scores above a negative), ties half; None when a side is empty."""
    pos, neg = np.asarray(positive, float), np.asarray(negative, float)
    if not len(pos) or not len(neg):
        return None
    above = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return round(float(above / (len(pos) * len(neg))), 3)


def slice_report(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """`rows`: one per held-out question with `slices` (names), `label` (quoted /
    declinable / missed), `confidence` and `p_best`."""
    names = sorted({s for r in rows for s in r["slices"]})
    report = {}
    for name in names:
        inside = [r for r in rows if name in r["slices"]]
        pos = [r for r in inside if r["label"] == "quoted"]
        neg = [r for r in inside if r["label"] == "declinable"]
        report[name] = {
            "questions": len(inside), "quoted": len(pos), "declinable": len(neg),
            "auc_confidence": auc([r["confidence"] for r in pos], [r["confidence"] for r in neg]),
            "auc_p_best": auc([r["p_best"] for r in pos], [r["p_best"] for r in neg]),
            "median_quoted": round(float(np.median([r["confidence"] for r in pos])), 3) if pos else None,
            "median_declinable": round(float(np.median([r["confidence"] for r in neg])), 3) if neg else None,
        }
    return report


def held_out_rows(records: list[Record], style_of: dict[tuple[str, str], str], l2: float = 1.0) -> list[dict[str, Any]]:
    chosen, report = lodo(records, l2)
    quoting = report["quoting"]
    rows = []
    for ranked, answer in chosen.values():
        for r in ranked:
            if r.qsig is None:
                continue
            rec = r.record
            label = ("declinable" if rec.kind != "answerable"
                     else "quoted" if answer_label(r, quoting) else "missed")
            language = "other language" if r.qsig["cross_language"] else "same language"
            rows.append({"slices": ("all", style_of.get((rec.domain, rec.qid), "demo"), language),
                         "label": label, "confidence": float(answer.proba(answer.matrix([r.qsig]))[0]),
                         "p_best": r.qsig["p_best"]})
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m evals.slices", description=__doc__.split("\n")[0])
    p.add_argument("--cache", type=Path, required=True)
    p.add_argument("--extra", action="store_true", help="all domains, the extra sets too (evals/train.py EXTRA)")
    args = p.parse_args(argv)
    domains = catalogue(args.extra)
    # the questions trained on, each with the style its set gives (`demo` when none)
    style_of = {(d, q["qid"]): q["style"] or "demo" for d in domains for q in load_questions(d, domains)}
    records = [Record(**d) for d in pickle.loads(args.cache.read_bytes())]
    records = [r for r in records if (r.domain, r.qid) in style_of]
    print(json.dumps(slice_report(held_out_rows(records, style_of)), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
