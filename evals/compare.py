"""`python -m evals.compare RUN_A RUN_B [--tenant T]` — what changed between two eval runs.

RUN_A / RUN_B are run ids stored in SQLite (`python -m evals.run` prints them and the tenant
each run is stored for) or paths to report JSON files. Stored runs are read for --tenant
only (without it: runs stored for no tenant), like every other read. The comparison:
  1. Overall metrics side by side with B − A; `better` says whether the change is an
     improvement (hallucination, too_conservative and latencies improve downwards).
  2. The same per kind, per category, per tenant and per language.
  3. Questions (matched by id) whose outcome flipped, each marked improved, regressed or
     changed; outcome quality: correct = refused_ok > too_conservative > wrong = hallucinated
     = error (an ask that raised).
  4. Questions present in only one of the runs.
  5. Whether the change is beyond chance: the exact sign test over the questions that
     improved and regressed (evals/metrics/intervals.py), p-value and a sentence.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from core.config import Settings, load_settings
from evals.metrics import GROUPS, LOWER_IS_BETTER, METRICS, verdict
from evals.run import fmt

OUTCOME_QUALITY = {"correct": 2, "refused_ok": 2, "too_conservative": 1, "wrong": 0, "hallucinated": 0,
                   "error": 0}


def metric_deltas(a: Mapping[str, Any], b: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    out = {}
    for name in [*METRICS, "n", "errors"]:
        va, vb = a.get(name), b.get(name)
        if va is None and vb is None:
            continue
        delta = None if va is None or vb is None else round(vb - va, 4)
        better = None
        if delta and name != "n":
            better = (delta < 0) if name in LOWER_IS_BETTER else (delta > 0)
        out[name] = {"a": va, "b": vb, "delta": delta, "better": better}
    return out


def compare_reports(a: Mapping[str, Any], b: Mapping[str, Any]) -> dict[str, Any]:
    """Metric deltas (overall and per group) and the questions whose outcome flipped."""
    result: dict[str, Any] = {
        "a": {"run_id": a.get("run_id"), "set": a.get("set"), "created_at": a.get("created_at"),
              "git_commit": a.get("git_commit")},
        "b": {"run_id": b.get("run_id"), "set": b.get("set"), "created_at": b.get("created_at"),
              "git_commit": b.get("git_commit")},
        "overall": metric_deltas(a.get("overall") or {}, b.get("overall") or {}),
    }
    for group in GROUPS:
        ga, gb = a.get(group) or {}, b.get(group) or {}
        result[group] = {k: metric_deltas(ga.get(k) or {}, gb.get(k) or {}) for k in [*ga, *(k for k in gb if k not in ga)]}
    qa = {q["id"]: q for q in a.get("questions") or []}
    qb = {q["id"]: q for q in b.get("questions") or []}
    flips = []
    for qid, q in qa.items():
        other = qb.get(qid)
        if other is None or q.get("outcome") == other.get("outcome"):
            continue
        before, after = OUTCOME_QUALITY.get(q.get("outcome"), 0), OUTCOME_QUALITY.get(other.get("outcome"), 0)
        flips.append({
            "id": qid, "kind": q.get("kind"), "category": q.get("category"), "tenant": q.get("tenant"),
            "question": q.get("question"), "a": q.get("outcome"), "b": other.get("outcome"),
            "change": "improved" if after > before else "regressed" if after < before else "changed",
            "answer_a": q.get("answer"), "answer_b": other.get("answer"),
        })
    result["flips"] = flips
    result["improved"] = sum(1 for f in flips if f["change"] == "improved")
    result["regressed"] = sum(1 for f in flips if f["change"] == "regressed")
    result["significance"] = verdict(result["improved"], result["regressed"])
    result["only_in_a"] = [i for i in qa if i not in qb]
    result["only_in_b"] = [i for i in qb if i not in qa]
    return result


def load_report(settings: Settings, ref: str, tenant: str | None = None) -> dict[str, Any]:
    """A report from a JSON file path or a run id stored for `tenant`; ValueError if neither."""
    from core import store

    path = Path(ref)
    if path.suffix == ".json" or path.is_file():
        if not path.is_file():
            raise ValueError(f"Report file {ref} does not exist.")
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{ref} is not a JSON report ({exc.msg}).") from None
    report = store.get_eval_run(settings, ref, tenant=tenant)
    if report is None:
        owner = f"tenant '{tenant}'" if tenant else "no tenant (pass --tenant T for a run stored for T)"
        raise ValueError(f"No stored eval run '{ref}' for {owner}, and no such file.")
    return report


def format_comparison(cmp: Mapping[str, Any]) -> str:
    a, b = cmp["a"], cmp["b"]
    lines = [f"A = {a['run_id']} ({a['set']}, {(a.get('git_commit') or '?')[:12]})   "
             f"B = {b['run_id']} ({b['set']}, {(b.get('git_commit') or '?')[:12]})", ""]
    rows = [("metric", "A", "B", "B − A", "")]
    for name, d in cmp["overall"].items():
        delta = "—" if d["delta"] is None else _fmt_delta(name, d["delta"])
        mark = "" if d["better"] is None else ("better" if d["better"] else "worse")
        rows.append((name, fmt(name, d["a"]), fmt(name, d["b"]), delta, mark))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    for r in rows:
        lines.append("  ".join(c.ljust(w) if i in (0, 4) else c.rjust(w)
                               for i, (c, w) in enumerate(zip(r, widths, strict=True))).rstrip())
    lines.append("")
    lines.append(f"outcome flips: {len(cmp['flips'])} ({cmp['improved']} improved, {cmp['regressed']} regressed)")
    lines.append(cmp["significance"]["sentence"])
    for f in cmp["flips"]:
        lines.append(f"  {f['change']:<9} {f['id']} [{f['kind']}/{f['category']}] {f['a']} -> {f['b']}: "
                     f"{(f['question'] or '')[:80]}")
    if cmp["only_in_a"] or cmp["only_in_b"]:
        lines.append(f"only in A: {len(cmp['only_in_a'])} questions; only in B: {len(cmp['only_in_b'])}")
    return "\n".join(lines)


def _fmt_delta(name: str, delta: float) -> str:
    if name == "n" or name.endswith("_ms"):
        return f"{delta:+.0f}"
    if name == "mrr":
        return f"{delta:+.3f}"
    return f"{100 * delta:+.1f} pp"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m evals.compare", description="Compare two eval runs.")
    p.add_argument("run_a", help="run id or report JSON path (the baseline)")
    p.add_argument("run_b", help="run id or report JSON path (the candidate)")
    p.add_argument("--tenant", help="the tenant the stored runs belong to (evals.run prints it)")
    p.add_argument("--json", action="store_true", help="print the comparison as JSON")
    args = p.parse_args(argv)
    settings = load_settings()
    try:
        cmp = compare_reports(load_report(settings, args.run_a, args.tenant),
                              load_report(settings, args.run_b, args.tenant))
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(cmp, ensure_ascii=False, indent=1, default=str) if args.json else format_comparison(cmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
