"""`evals.bench scale` builds tenants of the asked sizes from copies of a source tenant and
reports each size's stages, disk and memory."""

from __future__ import annotations

from pathlib import Path

import pytest

from core import doctor, store
from core.answer.prepare import prepare_answer_vectors
from core.answer_vectors import AnswerVectors
from core.config import load_settings
from core.documents import ingest_file
from core.models import get_embedder
from evals.bench_scale import bench_scale, build

pytestmark = pytest.mark.slow


def _source(tmp_path: Path) -> Path:
    data = tmp_path / "source"
    settings = load_settings({"GROUNDWORK_DATA": str(data)})
    for n in range(3):
        path = tmp_path / f"policy-{n}.md"
        path.write_text(f"# Policy {n}\n\n" + "\n\n".join(
            f"Rule {n}.{i}: requests are answered within {i + 2} days by team {n}." for i in range(8)), encoding="utf-8")
        assert ingest_file(settings, "src", path).status == "ready"
    return data


def test_copies_fill_a_consistent_tenant_of_the_asked_size(tmp_path: Path) -> None:
    source = load_settings({"GROUNDWORK_DATA": str(_source(tmp_path))})
    chunks = len(store.chunk_rows(source, "src"))
    prepare_answer_vectors(source, "src", get_embedder())
    built = build(source, "src", chunks * 2 + 1, tmp_path / "scaled")
    assert built["chunks"] == chunks * 2 + 1 and built["copies"] == 3
    scaled = load_settings({"GROUNDWORK_DATA": str(tmp_path / "scaled")})
    texts = [r["text"] for r in store.chunk_rows(scaled, "scale")]
    assert len(texts) == chunks * 2 + 1 and len(set(texts)) == len(texts)  # every copy differs
    assert any("(copy 2)" in t for t in texts)
    found = doctor.check(scaled, "scale")
    assert not found.orphan_vectors and not found.missing_vectors and not found.bm25_missing
    # prepared as the source was: every copied unit has its vector stored
    assert built["answer_vectors_n"] == AnswerVectors.of(scaled, "scale").count() > 2 * chunks
    from core.answer.prepare import texts_of
    from core.answer.vectors import model_name
    from core.answer_vectors import key_of

    model = model_name(get_embedder())
    keys = {key_of(model, t) for r in store.chunk_rows(scaled, "scale") for t in texts_of(r)}
    assert len(AnswerVectors.of(scaled, "scale").get(sorted(keys))) == len(keys)


def test_the_benchmark_reports_every_size(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    report = bench_scale([20, 40], 2, _source(tmp_path), "src", keep=False)
    assert set(report["sizes"]) == {20, 40}
    for size in (20, 40):
        r = report["sizes"][size]
        assert r["build"]["chunks"] == size and r["ask"]["peak_rss_mb"] > 0 and r["build"]["answer_vectors_n"] > 0
        assert r["build"]["bm25_upload"] > 0 and r["build"]["bm25_delete"] > 0 and r["build"]["bm25_upload_chunks"] > 0
        asked = sum(st["n"] for group in ("answered", "refused") for s, st in r["ask"][group].items() if s == "total")
        assert asked == 2
    out = capsys.readouterr().out
    assert "20 chunks" in out and "40 chunks" in out and "retrieve" in out
