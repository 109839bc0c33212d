"""ui.pdf: the page image carries the highlight over the quote's rectangles, and only there."""

import io

import pymupdf
import pytest

from ui.pdf import render_page_png


@pytest.fixture
def pdf(tmp_path):
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), "The warranty covers manufacturing defects for 24 months.", fontsize=11)
    page.insert_text((72, 300), "Unrelated text far below.", fontsize=11)
    path = tmp_path / "w.pdf"
    doc.save(path)
    rects = [[round(v, 1) for v in (r.x0, r.y0, r.x1, r.y1)] for r in page.search_for("24 months")]
    return path, rects


def pixel(png: bytes, x: float, y: float, dpi: int = 110) -> tuple[int, int, int]:
    pix = pymupdf.Pixmap(io.BytesIO(png).getvalue())
    scale = dpi / 72
    return tuple(pix.pixel(int(x * scale), int(y * scale))[:3])


def test_highlight_is_drawn_over_the_rects_only(pdf):
    path, rects = pdf
    assert rects
    png = render_page_png(path, 1, rects)
    x0, y0, x1, y1 = rects[0]
    inside = pixel(png, x1 - 1, y0 + 1)  # top-right corner of the match: background, not glyph
    outside = pixel(png, 300, 200)
    assert outside == (255, 255, 255)
    r, g, b = inside
    assert r > 200 and b < 180, inside  # amber
    plain = render_page_png(path, 1, [])
    assert pixel(plain, x1 - 1, y0 + 1) == (255, 255, 255)


def test_the_kept_file_is_not_modified(pdf):
    path, rects = pdf
    before = path.read_bytes()
    render_page_png(path, 1, rects)
    assert path.read_bytes() == before


def test_a_missing_page_is_one_clear_error(pdf):
    path, _ = pdf
    with pytest.raises(ValueError, match="page 3 does not exist"):
        render_page_png(path, 3, [])


def test_the_zoomed_quote_keeps_the_start_of_its_line(pdf):
    path, rects = pdf  # "24 months" stands at the end of a line that starts at x = 72
    png = render_page_png(path, 1, rects, zoom_to_quote=True, context_pt=20, min_width_pt=50)
    pix = pymupdf.Pixmap(io.BytesIO(png).getvalue())
    scale = 110 / 72
    line_start_to_quote_end = (rects[0][2] - 72) * scale
    assert pix.width >= line_start_to_quote_end  # the line's first words are in the picture
    assert pix.height < 200 * scale  # still a band around the quote, not the whole page


def test_a_page_image_upload_is_drawn_with_its_quote_boxed(tmp_path):
    """A photo or scan uploaded as PNG/JPEG/TIFF is the cited page itself: PyMuPDF opens it as a
    document that takes no highlight ("is no PDF", QA pass), so it is drawn as a PDF page."""
    from PIL import Image

    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 600, 800), False)
    pix.clear_with(255)
    pix.set_dpi(72, 72)  # a page unit a pixel
    pix.save(tmp_path / "scan.png")
    png = render_page_png(tmp_path / "scan.png", 1, [[100, 100, 300, 120]], dpi=72)
    image = Image.open(io.BytesIO(png)).convert("RGB")
    assert image.size == (600, 800)
    assert image.getpixel((200, 110)) != (255, 255, 255)  # the highlight is drawn where the box says
    assert image.getpixel((500, 700)) == (255, 255, 255)
    with pytest.raises(ValueError, match="page 2 does not exist"):
        render_page_png(tmp_path / "scan.png", 2)


@pytest.mark.parametrize("turn", [180, 90])
def test_a_scan_fed_the_wrong_way_is_shown_upright_with_its_quote_boxed(tmp_path, turn):
    upright = pymupdf.open()
    page = upright.new_page(width=300, height=400)
    page.insert_text((30, 60), "Receipts within 30 days.", fontsize=14)
    picture = page.get_pixmap(dpi=72)
    # as fed to the scanner: the picture turned back the other way (a landscape sheet for 90)
    fed = pymupdf.open()
    sheet = fed.new_page(width=400 if turn == 90 else 300, height=300 if turn == 90 else 400)
    sheet.insert_image(sheet.rect, pixmap=picture, rotate=(360 - turn) % 360)
    fed.save(tmp_path / "fed.pdf")
    # where "30 days" stands on the sheet as fed: the upright box taken there by the turn back
    turned = fed[0]
    turned.set_rotation(turn)
    box = page.search_for("30 days")[0] * turned.derotation_matrix
    rects = [[box.x0, box.y0, box.x1, box.y1]]
    shown = pymupdf.Pixmap(render_page_png(tmp_path / "fed.pdf", 1, rects, dpi=72, turn=turn))
    assert (shown.width, shown.height) == (300, 400)  # upright, as the original stood
    centre = page.search_for("30 days")[0]
    assert shown.pixel(int(centre.x0 + 3), int((centre.y0 + centre.y1) / 2))[:3] != (255, 255, 255)
    amber = [shown.pixel(x, y)[:3] for x in range(int(centre.x0), int(centre.x1)) for y in range(int(centre.y0), int(centre.y1))]
    assert any(r > 200 and b < 150 for r, g, b in amber)  # the highlight lies over the words, upright
    zoomed = pymupdf.Pixmap(render_page_png(tmp_path / "fed.pdf", 1, rects, dpi=72, zoom_to_quote=True, turn=turn))
    assert zoomed.width > zoomed.height  # a band across the upright page, not down a sideways one


def test_the_zoomed_quote_on_a_scan_keeps_its_whole_row(tmp_path):
    """A scan has no text to widen the band to: a quote in a table's first cell was shown
    without the row's last columns (QA pass). The band now reaches the ink either side."""
    source = pymupdf.open()
    page = source.new_page(width=595, height=842)
    page.insert_text((60, 400), "Moving house", fontsize=11)
    page.insert_text((470, 400), "2 days paid", fontsize=11)
    page.insert_text((60, 700), "A footer line far below the row", fontsize=11)
    scan = pymupdf.open()
    scan.new_page(width=595, height=842).insert_image(page.rect, pixmap=page.get_pixmap(dpi=100))
    scan.save(tmp_path / "scan.pdf")
    quote = [60.0, 390.0, 130.0, 403.0]  # the first cell only, as OCR boxes it
    png = render_page_png(tmp_path / "scan.pdf", 1, [quote], dpi=72, zoom_to_quote=True, context_pt=20,
                          min_width_pt=100)
    pix = pymupdf.Pixmap(io.BytesIO(png).getvalue())
    assert pix.width >= 530 - 60  # out to the end of "2 days paid"
    assert pix.height < 120  # still a band around the row
