"""The token-reader experiment's model and its numpy training (evals/experiments/token_reader/)."""

import numpy as np

from evals.experiments.token_reader import fit as R
from evals.experiments.token_reader.model import centred


def _example(rng, h, answer: bool):
    q = rng.standard_normal((5, h))
    units = [rng.standard_normal((int(rng.integers(3, 8)), h)) for _ in range(4)]
    labels = [0, 0, 0, 0]
    if answer:  # one unit restates the question's tokens, slightly changed
        units[1] = np.vstack([q[1:] + 0.3 * rng.standard_normal((4, h)), rng.standard_normal((2, h))])
        labels[1] = 1
    return q, units, labels


def test_gradients_match_finite_differences():
    rng = np.random.default_rng(1)
    h, mean = 10, np.zeros(10)
    q, units, labels = _example(rng, h, True)
    ex = R.example("d", q, units, labels, mean)
    ex.q, ex.u, ex.raw = ex.q.astype(np.float64), ex.u.astype(np.float64), ex.raw.astype(np.float64)
    p = {k: v.astype(np.float64) for k, v in R.initial(h, 4, rng).items()}
    p["out"], p["out_bias"] = np.array([1.0, 0.5, -0.7]), np.array([0.2])
    _, grads = R.loss_and_grads(p, ex, 1.3)
    for name, value in p.items():
        for idx in np.ndindex(value.shape):
            old = value[idx]
            value[idx] = old + 1e-6
            up, _ = R.loss_and_grads(p, ex, 1.3)
            value[idx] = old - 1e-6
            down, _ = R.loss_and_grads(p, ex, 1.3)
            value[idx] = old
            assert abs((up - down) / 2e-6 - grads[name][idx]) < 1e-5, (name, idx)


def test_training_learns_which_unit_restates_the_question():
    rng = np.random.default_rng(0)
    h = 16
    rows = [_example(rng, h, True) for _ in range(60)]
    mean = np.vstack([u for _, units, _ in rows for u in units]).mean(0)
    train = [R.example("a" if i % 2 else "b", q, u, y, mean) for i, (q, u, y) in enumerate(rows[:40])]
    reader = R.fit(train, mean, seed=0, dim=8, epochs=3)
    hits = 0
    for q, units, labels in rows[40:]:
        logits = R.logits(reader, R.example("c", q, units, labels, mean))
        hits += int(np.argmax(logits) == labels.index(1))
    assert hits >= 18  # of 20; chance is 5


def test_training_is_seeded():
    rng = np.random.default_rng(2)
    rows = [R.example("a", *_example(rng, 8, True), np.zeros(8)) for _ in range(10)]
    first, second = R.fit(rows, np.zeros(8), seed=3, dim=4, epochs=1), R.fit(rows, np.zeros(8), seed=3, dim=4, epochs=1)
    assert np.array_equal(first.pq, second.pq) and np.array_equal(first.importance, second.importance)


def test_a_unit_that_is_the_question_matches_fully():
    rng = np.random.default_rng(4)
    reader = R.fit([], np.zeros(6), seed=0, dim=3, epochs=0)
    q = centred(rng.standard_normal((4, 6)), np.zeros(6))
    best, weakest, raw = reader.features(q, q)
    assert np.isclose(best, 1.0, atol=1e-5) and np.isclose(weakest, 1.0, atol=1e-5) and np.isclose(raw, 1.0, atol=1e-5)


def test_the_stored_form_keeps_the_tokens_geometry_in_fewer_int8_dimensions():
    from evals.experiments.token_reader.reader import stored_form

    rng = np.random.default_rng(5)
    basis = rng.standard_normal((4, 32))  # states that live in 4 of 32 dimensions
    tokens = {"q": {"a question": rng.standard_normal((3, 4)) @ basis + 2.0},
              "u": {f"unit {i}": rng.standard_normal((6, 4)) @ basis + 2.0 for i in range(20)}}
    small = stored_form(tokens, 4)
    q, u = small["q"]["a question"], small["u"]["unit 3"]
    assert q.shape == (3, 4) and u.shape == (6, 4)
    mean = np.vstack(list(tokens["u"].values())).mean(0)
    before = centred(tokens["q"]["a question"], mean) @ centred(tokens["u"]["unit 3"], mean).T
    after = centred(q, np.zeros(4)) @ centred(u, np.zeros(4)).T
    assert np.abs(before - after).max() < 0.02  # int8 rounding only


def test_the_batched_training_forward_scores_as_the_reader_does_one_unit():
    rng = np.random.default_rng(6)
    q, units, labels = _example(rng, 12, True)
    ex = R.example("d", q, units, labels, np.zeros(12))
    reader = R.fit([ex], np.zeros(12), seed=1, dim=5, epochs=2)
    one_by_one = [float(reader.features(ex.q, ex.u[i][ex.mask[i]]) @ reader.out + reader.out_bias)
                  for i in range(len(units))]
    assert np.allclose(R.logits(reader, ex), one_by_one, atol=1e-5)
