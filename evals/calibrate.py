"""`python -m evals.calibrate --set FILE --split calib [--apply --tenant T] [--out curve.json]`

Chooses the confidence gate's threshold from an eval set's calib split:
  1. Run the set once with gate_threshold = 0 (pinned over tenant overrides), so the gate
     refuses nothing; the pipeline's own refusals (no valid citation, guard) still happen.
  2. For every threshold t in 0.00, 0.01, ..., 1.00 simulate the gate: an answer whose
     `confidence < t` becomes refused. The pipeline's gate is exactly that comparison on the
     same confidence, and refusing happens before generation, so the simulation is exact.
  3. Per t compute refusal_correct, too_conservative, answer_correct, hallucination and
     grounded_only (definitions in `evals.metrics`).
  4. Recommend the t with the lowest hallucination among those with too_conservative <= 0.10;
     ties go to the highest grounded_only, then the lowest t. If no t meets the limit, take
     the highest grounded_only (then lowest hallucination, lowest t) and say so: when the
     pipeline's own refusals already exceed the limit, the threshold can only trade
     hallucinations against further refusals, and grounded_only weighs both.
  5. Store the curve with the run (report["calibration"]); `--apply` saves the recommended
     threshold as the gate_threshold override of --tenant (or of the set's own tenants).
     It refuses, before asking anything, a run with fewer than MIN_APPLY_QUESTIONS
     questions or without an unanswerable or misleading one: with nothing to refuse the
     sweep recommends 0.00, which switches the gate off.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from core.config import Settings, load_settings, save_tenant_overrides
from evals.metrics import Row, compute
from evals.metrics.base import NOT_ANSWERABLE
from evals.run import (
    SPLITS,
    EvalSetError,
    Log,
    Progress,
    add_common_args,
    build_report,
    collect,
    load_set,
    run_with_progress,
    select_rows,
    write_json,
)

CURVE_METRICS = ("refusal_correct", "too_conservative", "answer_correct", "hallucination", "grounded_only")
MAX_TOO_CONSERVATIVE = 0.10
MIN_APPLY_QUESTIONS = 30


def apply_problem(questions: Sequence[Mapping[str, Any]]) -> str | None:
    """Why a threshold chosen on these questions must not be saved (None when it may be)."""
    refusable = sum(1 for q in questions if q.get("kind") in NOT_ANSWERABLE)
    if len(questions) >= MIN_APPLY_QUESTIONS and refusable:
        return None
    return (f"--apply refused: the run has {len(questions)} questions, {refusable} of them unanswerable or "
            f"misleading, and a threshold is saved only from at least {MIN_APPLY_QUESTIONS} questions that "
            "include some to refuse (drop --limit or pick a larger split).")


def default_thresholds() -> list[float]:
    return [round(i / 100, 2) for i in range(101)]


def gate(answer: Mapping[str, Any], threshold: float) -> Mapping[str, Any]:
    """The answer as the pipeline would return it with the gate at `threshold`. A refusal
    stays one; an ask that raised (status `error`) stays a failure, never a refusal."""
    confidence = float(answer.get("confidence") or 0.0)
    if answer.get("status") in ("refused", "error") or confidence >= threshold:
        return answer
    return {**answer, "status": "refused", "citations": [], "claims": [],
            "refusal_reason": f"simulated gate: confidence {confidence:.2f} < {threshold:.2f}"}


def calibration_curve(rows: Sequence[Row], thresholds: Sequence[float] | None = None,
                      chunk_texts: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """One point per threshold: the curve metrics with the gate simulated at that threshold."""
    points = []
    for t in thresholds if thresholds is not None else default_thresholds():
        simulated = [(q, gate(a, t)) for q, a in rows]
        results = compute(simulated, chunk_texts, CURVE_METRICS)
        point: dict[str, Any] = {"threshold": round(float(t), 4)}
        point.update({name: None if r.value is None else round(r.value, 4) for name, r in results.items()})
        point["refused"] = sum(1 for _, a in simulated if a.get("status") == "refused")
        point["n"] = len(simulated)
        points.append(point)
    return points


def recommend(curve: Sequence[Mapping[str, Any]], max_too_conservative: float = MAX_TOO_CONSERVATIVE,
              ) -> dict[str, Any]:
    """The operating point: lowest hallucination with too_conservative <= the limit."""
    if not curve:
        raise ValueError("The calibration curve is empty.")

    def num(value: Any, default: float) -> float:
        return default if value is None else float(value)

    feasible = [p for p in curve if num(p.get("too_conservative"), 0.0) <= max_too_conservative + 1e-9]
    if feasible:
        best = min(feasible, key=lambda p: (num(p.get("hallucination"), 0.0),
                                            -num(p.get("grounded_only"), 0.0), p["threshold"]))
        reason = (f"lowest hallucination with too_conservative <= {max_too_conservative:.2f}"
                  " (ties: highest grounded_only, then lowest threshold)")
    else:
        best = min(curve, key=lambda p: (-num(p.get("grounded_only"), 0.0),
                                         num(p.get("hallucination"), 0.0), p["threshold"]))
        reason = (f"no threshold keeps too_conservative <= {max_too_conservative:.2f}; "
                  "took the highest grounded_only")
    return {**best, "feasible": bool(feasible), "max_too_conservative": max_too_conservative,
            "reason": reason}


def run_calibration(settings: Settings, set_path: str | Path, *, split: str = "calib",
                    tenant: str | None = None, ingest: bool = False, progress: Progress | None = None,
                    limit: int | None = None, max_too_conservative: float = MAX_TOO_CONSERVATIVE,
                    thresholds: Sequence[float] | None = None, save: bool = True, log: Log | None = None,
                    owner: str | None = None) -> dict[str, Any]:
    """Run the set with the gate open, sweep thresholds, and return the report with
    report["calibration"] = {"thresholds", "curve", "recommended", "max_too_conservative"}."""
    from core import store

    collected = collect(settings, set_path, split=split, tenant=tenant, ingest=ingest,
                        progress=progress, limit=limit, pins={"gate_threshold": 0.0}, log=log, owner=owner)
    report = build_report(collected)
    report["mode"] = "calibration"
    curve = calibration_curve(collected.rows, thresholds, collected.chunk_texts)
    report["calibration"] = {
        "thresholds": [p["threshold"] for p in curve],
        "curve": curve,
        "recommended": recommend(curve, max_too_conservative),
        "max_too_conservative": max_too_conservative,
        "current_thresholds": {t: settings.for_tenant(t).gate_threshold
                               for t in sorted({q["tenant"] for q, _ in collected.rows})},
    }
    if save:
        report["run_id"] = store.save_eval_run(settings, report)
    return report


def format_curve(calibration: Mapping[str, Any], every: int = 5) -> str:
    rec = calibration["recommended"]
    cols = ("threshold",) + CURVE_METRICS
    lines = ["  ".join(f"{c:>16}" for c in cols)]
    for p in calibration["curve"]:
        if round(p["threshold"] * 100) % every and p["threshold"] != rec["threshold"]:
            continue
        mark = "  <- recommended" if p["threshold"] == rec["threshold"] else ""
        cells = [f"{p['threshold']:>16.2f}"] + [
            f"{'—' if p[c] is None else f'{100 * p[c]:.1f}%':>16}" for c in CURVE_METRICS]
        lines.append("  ".join(cells) + mark)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m evals.calibrate",
                                description="Choose the confidence gate's threshold on an eval set.")
    add_common_args(p)
    p.add_argument("--split", default="calib", choices=["all", *SPLITS])
    p.add_argument("--apply", action="store_true",
                   help=f"save the recommended threshold for --tenant (or every tenant of the set); needs at "
                        f"least {MIN_APPLY_QUESTIONS} questions including unanswerable or misleading ones")
    p.add_argument("--max-too-conservative", type=float, default=MAX_TOO_CONSERVATIVE)
    p.add_argument("--out", type=Path, help="write the curve (JSON) here")
    p.add_argument("--no-store", action="store_true", help="do not store the run in SQLite")
    args = p.parse_args(argv)
    settings = load_settings()
    if args.apply:
        try:
            problem = apply_problem(select_rows(load_set(args.set), split=args.split, tenant=args.tenant,
                                                limit=args.limit))
        except EvalSetError as exc:
            problem = str(exc)
        if problem:
            print(f"error: {problem}", file=sys.stderr)
            return 2
    report, code = run_with_progress(
        f"calibrating ({args.set.name})",
        lambda progress, log: run_calibration(
            settings, args.set, split=args.split, tenant=args.tenant, ingest=args.ingest,
            progress=progress, limit=args.limit, max_too_conservative=args.max_too_conservative,
            save=not args.no_store, log=log, owner=args.owner))
    if report is None:
        return code
    cal = report["calibration"]
    rec = cal["recommended"]
    print(f"set {report['set']} · split {report['split']} · {len(report['questions'])} questions · "
          f"run {report.get('run_id')}")
    print(format_curve(cal))
    print(f"recommended gate_threshold: {rec['threshold']:.2f} ({rec['reason']})")
    print("  at it: " + ", ".join(f"{m} {'—' if rec[m] is None else f'{100 * rec[m]:.1f}%'}"
                                  for m in CURVE_METRICS))
    print("  current: " + ", ".join(f"{t} {v:.2f}" for t, v in cal["current_thresholds"].items()))
    if args.out:
        write_json(args.out, {"set": report["set"], "split": report["split"], "run_id": report.get("run_id"),
                              **cal})
        print(f"curve written to {args.out}")
    if args.apply:
        # the set's own tenants, not the eval tenants an --ingest run asked
        tenants = [args.tenant] if args.tenant else sorted(report.get("tenant_map") or cal["current_thresholds"])
        for t in tenants:
            save_tenant_overrides(settings, t, {"gate_threshold": rec["threshold"]})
            print(f"applied: tenant {t} gate_threshold = {rec['threshold']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
