"""Photos and scans of pages uploaded as images (PNG, JPEG, TIFF): read by OCR as scanned PDF
pages are, one page per frame; an image that would decode to an absurd size, or hold more
pages than OCR reads, is refused from its header before anything is decoded."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pymupdf
import pytest
from PIL import Image, ImageOps

from core.config import Settings
from core.documents import ingest_file
from core.ingest import IngestError, parse_file
from core.ingest.ocr import OCR_OFF, page_reader
from core.pipeline import ask
from tests.conftest import ANSWERING_THRESHOLD

HANDBOOK = Path(__file__).parents[3] / "data" / "demo" / "employee-handbook.pdf"
needs_ocr_data = pytest.mark.skipif(page_reader(Settings()) is None,
                                    reason="Tesseract language data is not installed (scripts/test.sh installs it)")


def _photo(path: Path, page: int = 3, dpi: int = 200) -> Path:
    """A page of the demo handbook as an image file (its type from the name)."""
    pix = pymupdf.open(HANDBOOK)[page - 1].get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)
    image = Image.frombytes("L", (pix.width, pix.height), pix.samples)
    image.save(path, dpi=(dpi, dpi))
    return path


@needs_ocr_data
def test_a_photographed_page_is_read_with_its_table(tmp_path):
    parsed = parse_file(_photo(tmp_path / "leave.jpg"), Settings())
    assert parsed.pages == 1
    tables = [b.text for b in parsed.blocks if b.kind == "table"]
    assert len(tables) == 1 and "| Moving house (once per calendar year) | 1 day |" in tables[0].splitlines()
    assert parsed.warnings == ["The image was read by OCR; recognised text can hold errors, so check quotes from "
                               "it against the page."]


@needs_ocr_data
def test_a_multi_page_tiff_is_a_page_a_frame(tmp_path):
    frames = [Image.open(_photo(tmp_path / f"p{n}.png", page=n)) for n in (2, 3)]
    frames[0].save(tmp_path / "fax.tif", save_all=True, append_images=frames[1:], dpi=(200, 200),
                   compression="tiff_deflate")
    parsed = parse_file(tmp_path / "fax.tif", Settings())
    assert parsed.pages == 2 and {b.page for b in parsed.blocks} == {1, 2}
    assert any(b.text == "Full-time employees are entitled to 28 working days of paid annual leave per calendar "
                         "year." and b.page == 1 for b in parsed.blocks)
    assert parsed.warnings[0].startswith("Pages 1-2 were read by OCR")
    with pytest.raises(IngestError, match=r"^The image holds 2 pages; OCR reads at most 1 pages of one file"):
        parse_file(tmp_path / "fax.tif", replace(Settings(), ocr_max_pages=1))


def test_an_image_bomb_is_refused_from_its_header(tmp_path):
    # 20,000 x 20,000 pixels: 400 million, decoded it would take 400 MB or more
    Image.new("1", (20_000, 20_000)).save(tmp_path / "bomb.png", optimize=True)
    assert (tmp_path / "bomb.png").stat().st_size < 2_000_000
    with pytest.raises(IngestError, match=r"^The image is larger than 100 million pixels"):
        parse_file(tmp_path / "bomb.png", Settings())


def test_an_image_without_ocr_is_refused_with_what_to_do(tmp_path):
    with pytest.raises(IngestError) as err:
        parse_file(_photo(tmp_path / "leave.png", dpi=100), replace(Settings(), ocr=False))
    assert str(err.value) == f"This image of a document can only be read by OCR, and {OCR_OFF}."


def test_a_damaged_image_is_refused(tmp_path):
    good = _photo(tmp_path / "leave.jpg", dpi=100).read_bytes()
    (tmp_path / "cut.jpg").write_bytes(good[:200])
    with pytest.raises(IngestError, match=r"^The file is not a readable image \(it may be damaged\)"):
        parse_file(tmp_path / "cut.jpg", Settings())


@needs_ocr_data
def test_an_answer_from_a_photo_is_boxed_on_the_kept_image(settings, tmp_path):
    answering = replace(settings, gate_threshold=ANSWERING_THRESHOLD)
    result = ingest_file(answering, "t", _photo(tmp_path / "leave-photo.png"))
    assert result.status == "ready", result.error
    answer = ask(answering, "t", "How many paid days off do I get when I move house?")
    assert answer.status == "answered", answer.answer
    cited = answer.citations[0]
    assert cited.source == "leave-photo.png" and cited.page == 1
    assert cited.quote == "| Moving house (once per calendar year) | 1 day |"
    (x0, y0, x1, y1), = cited.rects  # on the image as PyMuPDF lays it out, where the console draws it
    page = pymupdf.open(next((settings.data_dir / "tenants").rglob("*.png")))[0]
    assert 0 <= x0 < x1 <= page.rect.width and 0 <= y0 < y1 <= page.rect.height and x1 - x0 > 200


def test_a_folder_ingest_picks_up_images(tmp_path):
    from core.documents import iter_files

    for name in ("scan.png", "photo.JPG", "fax.tiff", "page.jpeg", "clip.mp4", "icon.gif"):
        (tmp_path / name).write_bytes(b"x")
    assert sorted(p.name for p in iter_files([tmp_path])) == ["fax.tiff", "page.jpeg", "photo.JPG", "scan.png"]


def test_a_jpeg_cut_off_halfway_is_refused_not_half_read(tmp_path):
    whole = _photo(tmp_path / "leave.jpg", dpi=100).read_bytes()
    (tmp_path / "half.jpg").write_bytes(whole[: len(whole) // 2])  # its header is whole, its pixels not
    with pytest.raises(IngestError, match=r"^The file is not a readable image \(it may be damaged\)"):
        parse_file(tmp_path / "half.jpg", Settings())


@needs_ocr_data
def test_a_photo_taken_upside_down_or_sideways_is_turned_and_read_with_its_table(tmp_path):
    """Read as it lay, the page was noise and was refused (QA pass); it is turned upright."""
    for turn in (180, 90):
        Image.open(_photo(tmp_path / "leave.png")).rotate(turn, expand=True).save(tmp_path / f"turned{turn}.png",
                                                                                   dpi=(200, 200))
        parsed = parse_file(tmp_path / f"turned{turn}.png", Settings())
        tables = [b.text for b in parsed.blocks if b.kind == "table"]
        assert len(tables) == 1 and "| Moving house (once per calendar year) | 1 day |" in tables[0].splitlines(), turn
        assert "The image was taken upside down or sideways and was turned upright to be read." in parsed.warnings


@needs_ocr_data
def test_a_mirrored_photo_is_refused_not_indexed_as_noise(tmp_path):
    # a mirror image reads as noise whichever way up it is turned
    ImageOps.mirror(Image.open(_photo(tmp_path / "leave.png"))).save(tmp_path / "mirrored.png", dpi=(200, 200))
    with pytest.raises(IngestError) as err:
        parse_file(tmp_path / "mirrored.png", Settings())
    assert str(err.value) == ("This image is a scan and OCR read no legible text in it either way up (too faint, "
                              "mirrored, or no text?); scan it again and upload it.")


@needs_ocr_data
def test_a_tiff_named_png_says_so_first(tmp_path):
    Image.open(_photo(tmp_path / "leave.png")).save(tmp_path / "fax.tiff", dpi=(200, 200))
    (tmp_path / "fax.png").write_bytes((tmp_path / "fax.tiff").read_bytes())
    parsed = parse_file(tmp_path / "fax.png", Settings())
    assert parsed.warnings[0] == "The file is named '.png' but holds a TIFF image; it was read as a TIFF image."


@needs_ocr_data
@pytest.mark.parametrize("stated", [1, 72, 10_000])
def test_an_image_stating_a_wrong_resolution_is_read_as_a_page(tmp_path, stated):
    """A page photographed or scanned at 200 dpi whose file says 1, 72 or 10,000: the page was
    laid out 24 m or 5 mm wide and its letters rendered 3.5 times too large ("va ve") or to a
    few pixels, and the QA pass's 1-dpi image took 70 s and 620 MB."""
    path = _photo(tmp_path / "leave.png")
    Image.open(path).save(tmp_path / "stated.png", dpi=(stated, stated))
    parsed = parse_file(tmp_path / "stated.png", Settings())
    table = next(b.text for b in parsed.blocks if b.kind == "table")
    assert "| Moving house (once per calendar year) | 1 day |" in table.splitlines()


@needs_ocr_data
def test_an_answer_from_a_photo_stating_1_dpi_is_boxed_where_it_stands(settings, tmp_path):
    answering = replace(settings, gate_threshold=ANSWERING_THRESHOLD)
    Image.open(_photo(tmp_path / "leave.png")).save(tmp_path / "leave-1dpi.png", dpi=(1, 1))
    assert ingest_file(answering, "t", tmp_path / "leave-1dpi.png").status == "ready"
    answer = ask(answering, "t", "How many paid days off do I get when I move house?")
    (x0, y0, x1, y1), = answer.citations[0].rects
    page = pymupdf.open(next((settings.data_dir / "tenants").rglob("*.png")))[0]
    # the row is a line across the page's table, a fifth of the way down or more
    assert 0.05 < x0 / page.rect.width < 0.5 < x1 / page.rect.width and 0.2 < y0 / page.rect.height < 0.8
