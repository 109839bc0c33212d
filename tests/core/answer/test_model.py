import numpy as np

from core.answer.model import ANSWER_FEATURES, AnswerModel, fit_logistic, load_model
from core.answer.signals import FEATURES


def test_logistic_regression_learns_a_separable_rule() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 3))
    y = (x[:, 0] - 0.5 * x[:, 2] > 0).astype(float)
    model = fit_logistic(x, y, np.ones(len(x)), ("a", "b", "c"), l2=0.1)
    assert ((model.proba(x) > 0.5) == (y == 1)).mean() > 0.95
    assert model.coef[0] > 0 > model.coef[2] and abs(model.coef[1]) < abs(model.coef[0]) / 5
    # the trace's drivers: the signal that decides most comes first
    drivers = model.contributions({"a": 3.0, "b": 0.0, "c": 0.0}, top=2)
    assert list(drivers)[0] == "a" and drivers["a"] > 0


def test_row_weights_matter() -> None:
    x = np.array([[0.0], [0.0], [1.0], [1.0]])
    y = np.array([0.0, 1.0, 0.0, 1.0])
    heavy_pos = fit_logistic(x, y, np.array([1.0, 1.0, 1.0, 9.0]), ("a",), l2=0.01)
    heavy_neg = fit_logistic(x, y, np.array([1.0, 1.0, 9.0, 1.0]), ("a",), l2=0.01)
    assert heavy_pos.coef[0] > 0 > heavy_neg.coef[0]


def test_the_shipped_model_reads_todays_signals() -> None:
    model = load_model()
    assert model.unit.features == FEATURES
    assert model.answer.features == ANSWER_FEATURES
    assert 0.0 < model.threshold < 1.0
    assert AnswerModel.from_dict(model.to_dict()).to_dict() == model.to_dict()
    # trained on several domains, with its leave-one-domain-out figures kept beside it
    assert len(model.meta["lodo"]) >= 3


def test_the_default_threshold_is_the_one_training_chose() -> None:
    from core.config import Settings

    assert Settings().gate_threshold == load_model().threshold
