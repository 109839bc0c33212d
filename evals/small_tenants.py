"""Small tenants: the development questions asked of a few documents at a time, as a new
customer's first upload holds them, held out by domain.

    python -m evals.small_tenants --data DIR --large FILE --cache FILE [--extra] [--size 3]

The development tenants hold 8 to 246 documents each; a customer trying Groundwork
uploads two or three. Word statistics differ there: a word as common as "long" may stand
in no passage, so it weighs as an unknown topic. This measures what that costs:

1. Each question goes with its gold document (`gold_source`). A question with none
   (unanswerable and misleading ones, the older demo sets) goes with the document that
   retrieval over its whole domain ranks first, so it stays near a topic the tenant holds.
   The whole domains' tenants must be in DIR (`python -m evals.train --data DIR` builds
   them).
2. Each domain's documents that some question goes with, sorted by name, in groups of
   `size`; one tenant per group (`small-<domain>-<k>`), asked the questions that go with
   its documents. An answerable question without a gold document is left out: its answer
   may be in a document not taken.
3. Signals are extracted as `evals.train` extracts them (cached in FILE).
4. Held out by domain, as `evals.train` holds out: for each domain, the unit and answer
   models are trained on the other domains' whole-tenant records (`--large`, a cache of
   `evals.train`), with the threshold and runner-up ratio that the whole-tenant
   leave-one-domain-out chooses, and they answer that domain's small-tenant questions.
   Printed beside the same domain's whole-tenant held-out figures.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from core.config import Settings, load_settings
from core.retrieve import retrieve
from evals.train import (
    SHIPPED,
    Record,
    Spec,
    catalogue,
    ensure_tenant,
    extract,
    fit_unit,
    load_questions,
    lodo,
    outcomes,
    rank,
    set_rows,
    summary,
)

PREFIX = "small-"


def _files(domain: dict) -> dict[str, Path]:
    return {p.name: p for folder in domain["corpus"] for p in sorted(folder.rglob("*")) if p.is_file()}


def first_document(settings: Settings) -> Callable[[dict, str], str | None]:
    """The file name of the passage retrieval over the whole domain's tenant ranks first."""
    def locate(domain: dict, question: str) -> str | None:
        top = retrieve(settings, domain["tenant"], question).top
        return Path(top[0].source).name if top else None
    return locate


def plan(domains: dict[str, dict], locate: Callable[[dict, str], str | None], size: int = 3,
         sets_dir: Path | None = None) -> dict[str, dict]:
    """Steps 1-2: the small tenants as a catalogue of `evals.train` (tenant, corpus of
    files, sets written to `sets_dir`), each with the name of the domain it came from.
    `locate(domain, question)` names the document a question without a gold one goes with."""
    sets_dir = sets_dir or Path(tempfile.mkdtemp(prefix="small-sets-"))
    sets_dir.mkdir(parents=True, exist_ok=True)
    out: dict[str, dict] = {}
    for name, domain in domains.items():
        files = _files(domain)
        placed: dict[str, list[dict]] = {}
        for _, row in set_rows(domain):
            gold = row.get("gold_source")
            if gold not in files:
                if row["kind"] == "answerable":
                    continue
                gold = locate(domain, row.get("question") or row["q"])
            if gold in files:
                placed.setdefault(gold, []).append(row)
        names = sorted(placed)
        for k in range(0, len(names), size):
            group = names[k:k + size]
            small = f"{PREFIX}{name}-{k // size}"
            path = sets_dir / f"{small}.jsonl"
            path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for g in group for r in placed[g]),
                            encoding="utf-8")
            out[small] = {"tenant": small, "corpus": [files[g] for g in group], "sets": [path], "parent": name}
    return out


def held_out_small(large: list[Record], small: list[Record], l2: float = 1.0,
                   spec: Spec = SHIPPED) -> dict[str, Any]:
    """Step 4: each domain's small-tenant answers from models trained on the other domains'
    whole tenants, at the knobs the whole-tenant leave-one-domain-out chooses."""
    chosen, report = lodo(large, l2, spec)
    threshold, quoting = report["threshold"], report["quoting"]
    domains = sorted({r.domain for r in small} & {r.domain for r in large})
    by_domain = {}
    for d in domains:
        answer = chosen[d][1]  # the held-out answer model lodo fitted without d
        unit = fit_unit([r for r in large if r.domain != d], l2, spec)
        ranked = rank([r for r in small if r.domain == d], unit, spec)
        by_domain[d] = {"small": summary(outcomes(ranked, answer, threshold, quoting),
                                         [r.record.kind for r in ranked]),
                        "large": {k: v for k, v in report["domains"][d].items()
                                  if k in ("n", "grounded_only", "answer_correct", "hallucination",
                                           "too_conservative", "refusal_correct")}}
    mean = {size: {k: round(float(np.mean([f[size][k] for f in by_domain.values()])), 3)
                   for k in ("grounded_only", "answer_correct", "hallucination", "too_conservative",
                             "refusal_correct")}
            for size in ("small", "large")}
    return {"threshold": threshold, "runner_up": quoting.runner_up,
            "runner_up_other_passage": quoting.other_passage, "mean": mean, "domains": by_domain}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m evals.small_tenants", description=__doc__.split("\n")[0])
    p.add_argument("--data", type=Path, required=True, help="data folder of `evals.train` (whole tenants)")
    p.add_argument("--large", type=Path, required=True, help="signal cache of `evals.train --cache`")
    p.add_argument("--cache", type=Path, required=True, help="small-tenant signal cache: read if present, else written")
    p.add_argument("--extra", action="store_true", help="with the extra development sets and domains")
    p.add_argument("--size", type=int, default=3, help="documents per small tenant")
    args = p.parse_args(argv)
    domains = catalogue(args.extra)
    large = [Record(**d) for d in pickle.loads(args.large.read_bytes())]
    if args.cache.exists():
        small = [Record(**d) for d in pickle.loads(args.cache.read_bytes())]
    else:
        settings = load_settings({**os.environ, "GROUNDWORK_DATA": str(args.data)})
        tenants = plan(domains, first_document(settings), args.size, args.data / "small-sets")
        small = []
        for name, entry in tenants.items():
            print(f"small_tenants: {name} ({len(entry['corpus'])} documents)", file=sys.stderr)
            ensure_tenant(settings, name, tenants)
            for r in extract(settings, name, log=lambda m: print(m, file=sys.stderr), domains=tenants):
                r.domain = entry["parent"]
                small.append(r)
        args.cache.write_bytes(pickle.dumps([vars(r) for r in small]))
    # a cache may hold more (the extra sets): exactly the chosen questions, as evals.train
    wanted = {(d, q["qid"]) for d in domains for q in load_questions(d, domains)}
    report = held_out_small([r for r in large if (r.domain, r.qid) in wanted],
                            [r for r in small if (r.domain, r.qid) in wanted])
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
