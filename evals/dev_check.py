"""`python -m evals.dev_check FILE... [--tenant demo] [--show all|fail]`

Development questions (evals/dev/*.jsonl), kept apart from the eval sets: rules are tried
on these and on the calib split, never on the test split. A row is {"q", "exp", "kind"}
(and "previous", the chat question a follow-up comes after; `--alone` asks it without):
`exp` is a short text a right answer must contain, or null when the knowledge base does
not answer the question (misleading or unanswerable). Needs the tenant already ingested
(`python -m core.cli ingest --tenant demo data/demo` in the same GROUNDWORK_DATA).

Outcome per row:
1. `exp` null: refused -> refused_ok; answered -> hallucinated.
2. `exp` given: refused -> too_conservative; answered and the answer contains `exp`
   (spaces ignored, case-folded) -> correct; otherwise -> wrong.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from core.config import load_settings


def outcome(expected: str | None, status: str, answer: str) -> str:
    """Steps 1-2 of the module docstring."""
    answered = status in ("answered", "narrowed", "fallback")
    if expected is None:
        return "hallucinated" if answered else "refused_ok"
    if not answered:
        return "too_conservative"
    squash = lambda s: "".join(s.split()).casefold()  # noqa: E731
    return "correct" if squash(expected) in squash(answer) else "wrong"


def load_rows(path: Path) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    for n, row in enumerate(rows, start=1):
        # an empty `exp` would count every answer correct and every refusal too conservative
        if (row.get("exp") is None) != (row.get("kind") != "answerable") or row.get("exp") == "":
            raise ValueError(f"{path.name} row {n}: an answerable row needs a non-empty exp, "
                             "any other kind exp null.")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--tenant", default="demo")
    parser.add_argument("--show", choices=("all", "fail"), default="fail")
    parser.add_argument("--alone", action="store_true",
                        help="ask follow-ups without the question before them (what reading them whole gains)")
    args = parser.parse_args(argv)
    from core.pipeline import ask  # heavy import after argument errors
    from core.trace import ORIGIN_EVAL

    settings = load_settings()
    for path in args.files:
        tally: Counter[str] = Counter()
        for row in load_rows(path):
            answer = ask(settings, args.tenant, row["q"], previous=None if args.alone else row.get("previous"), origin=ORIGIN_EVAL)
            result = outcome(row.get("exp"), answer.status, answer.answer)
            tally[result] += 1
            if args.show == "all" or result not in ("correct", "refused_ok"):
                shown = answer.answer if answer.status != "refused" else answer.refusal_reason or ""
                print(f"{result:16} {row['q']}\n{'':16} -> {answer.status}: {' '.join(shown.split())[:160]}")
        print(f"{path.name}: " + ", ".join(f"{k} {v}" for k, v in sorted(tally.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
