"""Numbers for the Quality page, from stored eval runs (pure functions, no Streamlit).

Reports follow DESIGN.md: `overall`, `by_kind`, `by_category` map metric -> value (rates are
fractions in [0, 1], latencies in ms); `questions` holds one Answer dict per question plus
`id`, `kind`, `outcome` (and `category` where the set has one).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from dataclasses import dataclass
from typing import Any

from evals.metrics import LOWER_IS_BETTER  # deltas and drift flip their sign for these
from ui.safe import clean, csv_cell, escape_md

COUNTS = ("n", "errors")  # question counts beside the metrics, never rates
LABELS = {
    "grounded_only": "Handled right", "answer_correct": "Answer correct",
    "citation_accuracy": "Citation accuracy", "rival_quotes": "Rival quotes", "refusal_correct": "Refusal correct",
    "hallucination": "Wrong or made up", "too_conservative": "Answerable, refused", "closest_hit": "Closest hit",
    "faithfulness": "Faithfulness", "mrr": "MRR", "latency_p50_ms": "Latency p50",
    "latency_p95_ms": "Latency p95",
}


HELP = {
    "grounded_only": "Questions handled the way a grounded assistant must: a correct, cited answer, or a "
                     "refusal where the documents do not hold the answer (grounded_only).",
    "answer_correct": "Answerable questions answered with the expected answer.",
    "citation_accuracy": "Correct answers whose cited quote stands verbatim in the cited chunk and supports them.",
    "hit_rate": "Answerable questions whose gold quote is in a retrieved top-k chunk of the gold source.",
    "rival_quotes": "Correct answers that also quote a sentence of another passage, one not holding the answer: "
                    "it reads as a second, rival answer. Lower is better.",
    "refusal_correct": "Unanswerable and misleading questions that were refused.",
    "hallucination": "Answers with an unsupported statement: any answer to an unanswerable or misleading "
                     "question, or a wrong answer to an answerable one (hallucination). Lower is better.",
    "too_conservative": "Answerable questions that were refused (too_conservative). Lower is better.",
    "closest_hit": "Of the answerable questions that were refused, those whose expected answer stands in a "
                   "highlighted closest sentence: the refusal still points at the answer.",
    "faithfulness": "Supported claims over all claims of answered questions: each answer says what its quotes "
                    "say, whether or not it answers the question right (Answer correct says that).",
    "mrr": "Mean reciprocal rank of the chunk holding the gold quote.",
    "latency_p50_ms": "Median time per ask, end to end.",
    "latency_p95_ms": "95th percentile time per ask, end to end.",
}


def label(metric: str, retrieval_k: int | None = None) -> str:
    if metric in LABELS:
        return LABELS[metric]
    if metric.startswith("hit_rate"):
        suffix = metric[len("hit_rate"):]
        return "Hit rate" + (suffix or (f"@{retrieval_k}" if retrieval_k else ""))
    return metric.replace("_", " ").capitalize()


def is_latency(metric: str) -> bool:
    return metric.startswith("latency") or metric.endswith("_ms")


def is_rate(metric: str, value: Any) -> bool:
    return not is_latency(metric) and isinstance(value, int | float) and not isinstance(value, bool)


def lower_is_better(metric: str) -> bool:
    return metric in LOWER_IS_BETTER or is_latency(metric)


def fmt_value(metric: str, value: Any) -> str:
    if value is None:
        return "–"
    if is_latency(metric):
        return f"{value / 1000:.2f} s" if value >= 1000 else f"{value:.0f} ms"
    if metric == "mrr":
        return f"{value:.3f}"
    return f"{100 * value:.1f}%"


def _delta_format(metric: str) -> tuple[float, int, str]:
    """(scale, decimals, unit) of a shown change: whole ms, MRR to 0.001, rates in 0.1 points."""
    if is_latency(metric):
        return 1.0, 0, " ms"
    if metric == "mrr":
        return 1.0, 3, ""
    return 100.0, 1, " pts"


def shown_delta(metric: str, now: Any, before: Any) -> float | None:
    """now - before in the unit and precision it is shown in. A change too small to show is 0,
    so a 0.3 ms latency wobble reads as no change instead of "+0 ms" coloured as a regression."""
    if now is None or before is None:
        return None
    scale, decimals, _ = _delta_format(metric)
    return round(scale * (now - before), decimals)


def fmt_delta(metric: str, now: Any, before: Any) -> str | None:
    """"+12 ms", "+4.46 s", "-50.0 pts", "±0 ms" (a zero change gets no sign, so no direction)."""
    shown = shown_delta(metric, now, before)
    if shown is None:
        return None
    _, decimals, unit = _delta_format(metric)
    sign = "±" if shown == 0 else "+" if shown > 0 else "-"
    if is_latency(metric) and abs(shown) >= 1000:  # in seconds, like the value above it
        return f"{sign}{abs(shown) / 1000:.2f} s"
    return f"{sign}{abs(shown):.{decimals}f}{unit}"


CARD_ROWS = (
    ("grounded_only", "answer_correct", "citation_accuracy", "faithfulness"),
    ("hallucination", "refusal_correct", "too_conservative", "rival_quotes"),
    ("hit_rate", "mrr", "latency_p50_ms", "latency_p95_ms"),
)


# fewer answers than this and the faithfulness card does not judge its target: one quoted
# answer is "100% faithful" whether it was right or not (QA pass: green beside 100% made up)
MIN_ANSWERS_TO_JUDGE = 10


def answered_count(report: dict[str, Any]) -> int | None:
    """How many of a run's questions were answered (faithfulness counts their claims); None
    for a report without its questions."""
    questions = report.get("questions")
    if questions is None:
        return None
    return sum(1 for r in questions if r.get("status") not in ("refused", "error"))


def too_few_to_judge(metric: str, target: Any, interval: list[float] | None, answers: int | None) -> str:
    """Why a card's target badge should not say on or off target ("" when it may): the rate's
    95% interval holds the target on both sides of it, or faithfulness rests on too few
    answers."""
    if target is None:
        return ""
    if metric == "faithfulness" and answers is not None and answers < MIN_ANSWERS_TO_JUDGE:
        return "too few to tell"  # the card's caption says over how many answers
    if interval and interval[0] < target.value < interval[1]:
        return "within chance"
    return ""


def card_rows(overall: dict[str, Any]) -> list[list[str]]:
    """The headline metrics present in a report, in themed rows of at most four."""
    rows = [[m for m in row if m in overall] for row in CARD_ROWS]
    return [row for row in rows if row]


def headline_metrics(overall: dict[str, Any]) -> list[str]:
    """Headline metrics present in a report, in card order."""
    return [m for row in card_rows(overall) for m in row]


# ---- which runs can be compared ------------------------------------------------------------


def series_key(run: dict[str, Any]) -> tuple[Any, ...]:
    """What must match for two runs to be compared: set, split, tenants asked, mode (a
    calibration run has the gate pinned open) and question limit. Runs are already of one
    tenant (the one picked in the sidebar)."""
    return (run.get("set_name") or run.get("set"), run.get("split") or "all",
            tuple(run.get("tenants") or ()), run.get("mode") or "run", run.get("limit"))


def series_label(key: tuple[Any, ...]) -> str:
    _, split, tenants, mode, limit = key
    return (f"split {split} · asked as {', '.join(tenants) or '?'} · "
            f"{'calibration (gate open)' if mode == 'calibration' else 'run'} · "
            f"{f'first {limit} questions' if limit is not None else 'all questions'}")


def group_series(runs: list[dict[str, Any]]) -> dict[tuple[Any, ...], list[dict[str, Any]]]:
    """Runs (oldest first) grouped by `series_key`; the group with the newest run first."""
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for r in runs:
        groups.setdefault(series_key(r), []).append(r)
    order = sorted(groups, key=lambda k: max(r.get("created_at") or 0 for r in groups[k]), reverse=True)
    return {k: groups[k] for k in order}


def previous_run(runs: list[dict[str, Any]], run_id: str) -> dict[str, Any] | None:
    """The run stored just before `run_id` among `runs` (one comparable series, oldest first)."""
    ids = [r["run_id"] for r in runs]
    if run_id not in ids:
        return None
    i = ids.index(run_id)
    return runs[i - 1] if i > 0 else None


# ---- drift ---------------------------------------------------------------------------------


@dataclass
class Drift:
    metric: str
    before: float
    now: float
    run_before: str
    run_now: str

    @property
    def worsened_by(self) -> float:
        return (self.now - self.before) if lower_is_better(self.metric) else (self.before - self.now)

    def sentence(self) -> str:
        return (f"{label(self.metric)} went from {fmt_value(self.metric, self.before)} to "
                f"{fmt_value(self.metric, self.now)} ({100 * self.worsened_by:.1f} points worse) "
                f"between runs {self.run_before} and {self.run_now}.")


def drift_alerts(runs: list[dict[str, Any]], margin: float, upto: str | None = None) -> list[Drift]:
    """Rate metrics that got worse by more than `margin` (absolute, e.g. 0.05 = 5 points)
    from the previous run to the latest (or to run `upto`). Latencies are not alerted on:
    they depend on the machine more than on the system. `runs` must be one comparable
    series (`group_series`): a calib run against a test run, or a calibration run with the
    gate open against a normal one, is no drift."""
    if upto is not None:
        ids = [r["run_id"] for r in runs]
        runs = runs[: ids.index(upto) + 1] if upto in ids else runs
    if len(runs) < 2:
        return []
    before, now = runs[-2], runs[-1]
    out = []
    for metric, value in (now.get("overall") or {}).items():
        old = (before.get("overall") or {}).get(metric)
        if metric in COUNTS:
            continue
        if not (is_rate(metric, value) and is_rate(metric, old)):
            continue
        drift = Drift(metric, float(old), float(value), before["run_id"], now["run_id"])
        if drift.worsened_by > margin + 1e-9:
            out.append(drift)
    return out


# ---- frames for the charts -----------------------------------------------------------------


def history_rows(runs: list[dict[str, Any]], metrics: list[str]) -> list[dict[str, Any]]:
    """Long format: one row per (run, metric) for the history chart; `interval` is the
    rate's 95 % interval [low, high] where the run kept one, else None."""
    rows = []
    for r in runs:
        for m in metrics:
            value = (r.get("overall") or {}).get(m)
            if value is not None:
                rows.append({"run_id": r["run_id"], "when": dt.datetime.fromtimestamp(r.get("created_at") or 0),
                             "metric": m, "label": label(m), "value": value,
                             "interval": (r.get("intervals") or {}).get(m)})
    return rows


def group_rows(report: dict[str, Any], group: str, metrics: list[str]) -> list[dict[str, Any]]:
    """Long format from `by_kind` / `by_category` / `by_lang` / `by_crossing` / `by_tenant`: one row per (group value, metric)."""
    rows = []
    for name, values in (report.get(group) or {}).items():
        for m in metrics:
            if values.get(m) is not None:
                rows.append({"group": str(name), "metric": m, "label": label(m), "value": values[m],
                             "n": values.get("n", values.get("count"))})
    return rows


def latencies_ms(report: dict[str, Any]) -> list[float]:
    out = []
    for q in report.get("questions") or []:
        total = (q.get("timings_ms") or {}).get("total", q.get("latency_ms"))
        if total is not None:
            out.append(float(total))
    return out


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def asked_thresholds(report: dict[str, Any]) -> dict[str, float]:
    """{tenant asked: the answer threshold it was asked with}, from the settings the run
    stored (evals/run.py): a pinned threshold (a calibration run's 0), else the tenant's own
    override kept with the run (an eval tenant's manifest knobs), else the run's base setting."""
    settings = report.get("settings") or {}
    overrides = settings.get("tenant_overrides") or {}
    pinned = _number((settings.get("pins") or {}).get("gate_threshold"))
    base = settings.get("gate_threshold")
    tenants = report.get("tenants_asked") or sorted(overrides) or [report.get("tenant") or ""]
    out = {}
    for t in tenants:
        value = pinned if pinned is not None else _number((overrides.get(t) or {}).get("gate_threshold", base))
        if value is not None:
            out[t] = value
    return out


def run_threshold(report: dict[str, Any]) -> float | None:
    """The gate threshold the run used (calibration runs pin it to 0: use the tenant's)."""
    current = (report.get("calibration") or {}).get("current_thresholds") or {}
    if current:
        return float(next(iter(current.values())))
    return next(iter(asked_thresholds(report).values()), None)


def threshold_caption(report: dict[str, Any], tenant: str, tenant_threshold: float) -> str:
    """Markdown: the threshold a run was asked with, and whose settings those were. A manager
    who changed the tenant's threshold and ran a set again saw nothing move, without a word
    that a run on the set's corpus asks fresh eval tenants with their own settings (QA pass)."""
    from core.tenants import is_eval_tenant

    thresholds = asked_thresholds(report)
    if report.get("mode") == "calibration":
        head = "Asked with the gate open (threshold 0: a calibration run)"
    elif not thresholds:
        head = "This run did not store its answer threshold"
    elif len(set(thresholds.values())) == 1:
        head = f"Asked with the answer threshold (gate) **{next(iter(thresholds.values())):.2f}**"
    else:
        head = "Asked with the answer thresholds (gate) " + ", ".join(
            f"**{v:.2f}** ({escape_md(t, inline=True)})" for t, v in thresholds.items())
    whose = escape_md(tenant, inline=True)
    asked = report.get("tenants_asked") or [t for t in thresholds if t]
    now = f"{tenant_threshold:.2f}"
    if asked and all(is_eval_tenant(t) for t in asked):
        return (f"{head}. Eval runs use the eval tenants' own settings (defaults, or knobs in the set's "
                f"manifest), not {whose}'s (its threshold is {now} now).")
    return f"{head}, with the settings {whose} had then (its threshold is {now} now)."


def recommended_threshold(report: dict[str, Any]) -> float | None:
    rec = (report.get("calibration") or {}).get("recommended") or {}
    return rec.get("threshold")


# ---- compare and export --------------------------------------------------------------------

def flip_rows(comparison: dict[str, Any]) -> list[dict[str, Any]]:
    """Flipped questions of `evals.compare.compare_reports`, as table rows (A -> B)."""
    return [{
        "change": f.get("change"), "id": f.get("id"), "kind": f.get("kind"), "category": f.get("category"),
        "question": clean(f.get("question", "")), "outcome A": f.get("a"), "outcome B": f.get("b"),
        "answer A": clean(f.get("answer_a") or "")[:300], "answer B": clean(f.get("answer_b") or "")[:300],
    } for f in comparison.get("flips") or []]


def delta_rows(comparison: dict[str, Any]) -> list[dict[str, Any]]:
    """Overall metrics A, B and the change, formatted; `better` marks the direction."""
    rows = []
    for m, d in (comparison.get("overall") or {}).items():
        if m == "n":
            rows.append({"metric": "questions", "A": str(d.get("a")), "B": str(d.get("b")),
                         "change": f"{d.get('delta') or 0:+.0f}", "better": ""})
            continue
        rows.append({"metric": label(m), "A": fmt_value(m, d.get("a")), "B": fmt_value(m, d.get("b")),
                     "change": fmt_delta(m, d.get("b"), d.get("a")),
                     "better": {True: "better", False: "worse"}.get(d.get("better"), "")})
    return rows


QUESTION_COLUMNS = ("id", "kind", "category", "question", "outcome", "status", "confidence",
                    "factuality", "latency_ms", "answer", "expected_answer", "refusal_reason", "note")


def questions_csv(report: dict[str, Any]) -> bytes:
    """Per-question results as CSV (UTF-8 with BOM for spreadsheets; formula-safe cells)."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=["run_id", *QUESTION_COLUMNS], extrasaction="ignore")
    writer.writeheader()
    for q in report.get("questions") or []:
        row = {k: q.get(k) for k in QUESTION_COLUMNS}
        row["latency_ms"] = (q.get("timings_ms") or {}).get("total", q.get("latency_ms"))
        row["run_id"] = report.get("run_id")
        writer.writerow({k: csv_cell(clean(v) if isinstance(v, str) else v) for k, v in row.items()})
    return ("\ufeff" + buf.getvalue()).encode("utf-8")


def runs_csv(runs: list[dict[str, Any]]) -> bytes:
    """One row per run: id, time, tenant, split, tenants asked, mode, limit, then every overall metric."""
    metrics = list(dict.fromkeys(m for r in runs for m in (r.get("overall") or {})))
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(["run_id", "set", "created_at", "tenant", "split", "tenants_asked", "mode", "limit", *metrics])
    for r in runs:
        when = dt.datetime.fromtimestamp(r.get("created_at") or 0).isoformat(timespec="seconds")
        writer.writerow([csv_cell(x) for x in (r["run_id"], r.get("set_name"), when, r.get("tenant"), r.get("split"),
                                               " ".join(r.get("tenants") or []), r.get("mode"), r.get("limit"))]
                        + [(r.get("overall") or {}).get(m) for m in metrics])
    return ("\ufeff" + buf.getvalue()).encode("utf-8")


def question_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Per-question table rows (text cleaned; shown with st.dataframe, never as Markdown)."""
    rows = []
    for qq in report.get("questions") or []:
        rows.append({
            "id": qq.get("id"), "kind": qq.get("kind"), "category": qq.get("category"),
            "outcome": qq.get("outcome"), "status": qq.get("status"),
            "confidence": qq.get("confidence"), "question": clean(qq.get("question", "")),
            "answer": clean(qq.get("answer", ""))[:500],
            "ms": (qq.get("timings_ms") or {}).get("total", qq.get("latency_ms")),
        })
    return rows


# ---- why questions were refused -------------------------------------------------------------

# (class, phrases of the refusal reasons core/ writes for it); the first match wins
REFUSAL_CLASSES = (
    ("names something the documents never mention", ("never mentions",)),
    ("an identifier, section, page or value no passage holds", ("No passage mentions", "is numbered", "comes from", "No passage gives")),
    ("no sentence passed the answer rules", ("No passage states", "No sentence in the passages")),
    ("the closest sentence ignores a word of the question", ("does not address",)),
    ("confidence under the threshold", ("below the threshold", "too low for the threshold")),
    ("the answer failed its checks", ("not supported", "failed verification", "no valid citations")),
)
SHOULD_ANSWER, RIGHT_TO_REFUSE = "answerable (too conservative)", "unanswerable or misleading (right to refuse)"


REFUSAL_CODES = {
    "unknown_name": REFUSAL_CLASSES[0][0], "unknown_word": REFUSAL_CLASSES[0][0],
    "missing_identifier": REFUSAL_CLASSES[1][0], "missing_reference": REFUSAL_CLASSES[1][0],
    "no_candidate": REFUSAL_CLASSES[2][0], "no_passages": REFUSAL_CLASSES[2][0],
    "low_confidence": REFUSAL_CLASSES[4][0], "failed_checks": REFUSAL_CLASSES[5][0],
}


def refusal_class(reason: str | None, code: str | None = None) -> str:
    """The kind of refusal: by the code core/ gave it; runs stored before refusals had
    codes are read off their reason sentence."""
    if code in REFUSAL_CODES:
        return REFUSAL_CODES[code]
    for name, phrases in REFUSAL_CLASSES:
        if any(p in (reason or "") for p in phrases):
            return name
    return "other"


def refusal_counts(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Refused questions per (reason class, whether they should have been answered), most first."""
    counts: dict[tuple[str, str], int] = {}
    for qq in report.get("questions") or []:
        if qq.get("status") != "refused":
            continue
        key = (refusal_class(qq.get("refusal_reason"), qq.get("refusal_code")),
               SHOULD_ANSWER if qq.get("kind") == "answerable" else RIGHT_TO_REFUSE)
        counts[key] = counts.get(key, 0) + 1
    totals: dict[str, int] = {}
    for (reason, _), n in counts.items():
        totals[reason] = totals.get(reason, 0) + n
    return [{"reason": r, "bucket": b, "n": n}
            for (r, b), n in sorted(counts.items(), key=lambda kv: (-totals[kv[0][0]], kv[0]))]


def wrong_refusal_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Answerable questions that were refused: why, and the first closest sentence shown
    (text cleaned; shown with st.dataframe, never as Markdown)."""
    rows = []
    for qq in report.get("questions") or []:
        if qq.get("status") != "refused" or qq.get("kind") != "answerable":
            continue
        closest = [c.get("sentence") or "" for c in qq.get("closest") or []]
        rows.append({"id": qq.get("id"), "question": clean(qq.get("question", "")),
                     "expected": clean(qq.get("expected_answer") or ""),
                     "why": refusal_class(qq.get("refusal_reason"), qq.get("refusal_code")),
                     "closest sentence": clean(next((c for c in closest if c), ""))[:300]})
    return rows
