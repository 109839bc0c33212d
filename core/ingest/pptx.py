"""PPTX via python-pptx: every slide a section, in slide order, its blocks' `page` the slide
number (so a citation says which slide).

- The slide's title placeholder is a level-1 heading holding the title alone: the citation
  already says "slide 3", and "Slide 3: Prices" would say it twice in every section path
  and add "Slide 3" to every passage's words. A slide without a title is headed "Slide N",
  so its text never runs into the slide before it.
- Text frames (placeholders, text boxes, shapes with text) give a block per paragraph: a
  bulleted or numbered one (its own bullet, or the one its placeholder inherits from the
  layout and master) is a list item at whatever level, numbered ones keep their number
  ("2. ..."); the others are paragraphs. Footer, date and slide-number placeholders are
  running text and dropped.
- A table is the Markdown table every parser makes, header row first; a one-column table
  is a box of paragraphs. A grouped shape is walked, its members in their own order.
- Shapes are read top to bottom, left to right (shapes whose tops are within a fiftieth of
  the slide's height are one row, read left to right), the title first.
- Speaker notes come under the slide as a level-2 section "Speaker notes": every quote from
  them is cited "§ Title > Speaker notes", so nobody looks for it on the slide itself.
- Hidden shapes (hidden in the selection pane) are not read: no one sees them. A hidden
  slide is read: it shows in PowerPoint's editing views, only not in the slide show.
- A chart (bar, column, line, pie, area, radar) is read from the data the deck keeps for it:
  its title, then a table of its categories and series ("Quarter | Revenue | Costs",
  "Q1 | 120 | 80"), so "what was revenue in Q2?" is answered from the chart a reader sees.
- A SmartArt diagram (a process, a cycle, an organisation chart) is read from its data part:
  each node's text a list item, in the order the diagram's connections give (parent before
  children, siblings in their order).
- Pictures, scatter and bubble charts, media and embedded objects give no text here; the
  slides holding such a chart (or a diagram whose data cannot be read) are named in a
  warning, since their labels and numbers are text a reader sees and a question may need.

Bounded like DOCX and XLSX: a corrupt zip or a zip bomb is refused before python-pptx
unpacks anything (it loads every part into memory); its XML parser resolves no entities.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

from core.ingest.base import NOT_PPTX, IngestError, PageProgress, check_office_zip
from core.ingest.blocks import clean_inline, finish, normalize_rows, table_block
from core.ingest.ocr import page_list
from core.schema import Block, ParsedDocument

# python-pptx reads every part of the package into memory: refuse absurd unpacked sizes
MAX_UNPACKED_BYTES = 300 * 1024 * 1024
NO_SLIDE_TEXT = ("The presentation has no text on its slides or in their speaker notes (only pictures or "
                 "charts?); save it as PDF from PowerPoint and upload that instead.")
SHOW_OR_TEMPLATE = ("This is a PowerPoint show (.ppsx) or template (.potx); open it in PowerPoint, save it as a "
                    "presentation (.pptx) and upload that.")
NOTES_HEADING = "Speaker notes"
# titles PowerPoint writes when nobody named the deck: the first slide's title says more
_GENERIC_TITLES = {"powerpoint presentation", "presentation"}
_TITLE_TYPES = {"TITLE", "CENTER_TITLE", "VERTICAL_TITLE"}
_RUNNING_TYPES = {"DATE", "FOOTER", "SLIDE_NUMBER", "HEADER"}  # the same on every slide
_A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
_DGM = "{http://schemas.openxmlformats.org/drawingml/2006/diagram}"
_R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_BULLETS = {f"{_A}buNone": "none", f"{_A}buChar": "char", f"{_A}buBlip": "char", f"{_A}buAutoNum": "number"}
_SAME_ROW = 50  # tops within 1/50 of the slide's height are one row
# what a graphic frame holds, by its graphicData's URI, when it is text this parser does not read
_UNREAD = {"http://schemas.openxmlformats.org/drawingml/2006/chart": "chart",
           "http://schemas.openxmlformats.org/drawingml/2006/diagram": "diagram"}
_ROMAN = ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"), (40, "xl"),
          (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"))


class PptxParser:
    def parse(self, path: Path, on_page: PageProgress | None = None) -> ParsedDocument:
        import pptx  # here, not at the top: 0.15 s of every CLI start-up otherwise

        path = Path(path)
        check_archive(path)
        try:
            deck = pptx.Presentation(str(path))
        except Exception as exc:  # noqa: BLE001 - python-pptx raises many kinds on bad input
            raise IngestError(SHOW_OR_TEMPLATE if _show_or_template(path) else NOT_PPTX) from exc
        slides = list(deck.slides)
        tolerance = (deck.slide_height or 6858000) / _SAME_ROW
        blocks: list[Block] = []
        unread: list[int] = []  # slides holding a chart or diagram
        for number, slide in enumerate(slides, start=1):
            blocks += slide_blocks(slide, number, tolerance, unread)
            if on_page:
                on_page(number, len(slides))
        if not blocks:
            raise IngestError(NO_SLIDE_TEXT)
        warnings = []
        if unread:
            many = len(unread) > 1
            warnings.append(f"Slide{'s' if many else ''} {page_list(unread)} {'hold' if many else 'holds'} charts "
                            "or SmartArt diagrams, whose text is not read; if questions need it, save the deck as "
                            "PDF from PowerPoint and upload that instead.")
        title = clean_inline(deck.core_properties.title or "")
        if title.lower() in _GENERIC_TITLES:
            title = ""
        first = blocks[0].text if blocks[0].text != f"Slide {blocks[0].page}" else ""  # an untitled slide names nothing
        return finish(blocks, pages=len(slides), title=title or first or path.stem, warnings=warnings)


def check_archive(path: Path) -> None:
    """Reject corrupt zips and zip bombs before python-pptx unpacks anything."""
    check_office_zip(path, part="ppt/presentation.xml", invalid=NOT_PPTX, label="PPTX",
                     max_unpacked=MAX_UNPACKED_BYTES)


def _show_or_template(path: Path) -> bool:
    """Whether the zip is a slide show or template, which python-pptx refuses to open: its
    main part's content type says so."""
    try:
        with zipfile.ZipFile(path) as archive:
            types = archive.read("[Content_Types].xml")[:1_000_000]
    except (KeyError, OSError, zipfile.BadZipFile, ValueError):
        return False
    return b"presentationml.slideshow.main" in types or b"presentationml.template.main" in types \
        or b"slideshow.macroEnabled.main" in types or b"template.macroEnabled.main" in types


def slide_blocks(slide: Any, number: int, tolerance: float, unread: list[int] | None = None) -> list[Block]:
    """The blocks of one slide: its title as a heading, its shapes' text in reading order,
    its speaker notes under their own heading; [] for a slide with no text at all. A slide
    holding a chart or diagram, whose text is not read, has its number added to `unread`."""
    shapes = [s for s in slide.shapes if not _hidden(s)]
    title_shape = next((s for s in shapes if _placeholder_type(s) in _TITLE_TYPES and s.has_text_frame
                        and s.text_frame.text.strip()), None)
    title = clean_inline(title_shape.text_frame.text) if title_shape is not None else ""
    body: list[Block] = []
    kinds: set[str] = set()
    for shape in _reading_order([s for s in shapes if s is not title_shape], tolerance):
        body += _shape_blocks(shape, tolerance, kinds)
    if kinds and unread is not None:
        unread.append(number)
    notes = _notes_blocks(slide)
    if not (title or body or notes):
        return []
    out = [Block(kind="heading", text=title or f"Slide {number}", level=1)]
    out += body
    if notes:
        out.append(Block(kind="heading", text=NOTES_HEADING, level=2))
        out += notes
    for block in out:
        block.page = number
    return out


def _reading_order(shapes: list[Any], tolerance: float) -> list[Any]:
    """Top to bottom, and left to right within a row of shapes whose tops are within
    `tolerance` of the row's first: two columns placed by hand a little apart still read
    left column first."""
    rows: list[list[Any]] = []
    for shape in sorted(shapes, key=lambda s: (_at(s, "top"), _at(s, "left"))):
        if rows and _at(shape, "top") - _at(rows[-1][0], "top") <= tolerance:
            rows[-1].append(shape)
        else:
            rows.append([shape])
    return [shape for row in rows for shape in sorted(row, key=lambda s: _at(s, "left"))]


def _at(shape: Any, side: str) -> int:
    try:
        return int(getattr(shape, side) or 0)  # a placeholder inherits its position from the layout
    except (TypeError, ValueError, KeyError, AttributeError):
        return 0


def _shape_blocks(shape: Any, tolerance: float, unread: set[str]) -> list[Block]:
    """A shape's blocks; the kind of a chart or diagram, whose text is not read, is added to `unread`."""
    if shape._element.tag == f"{_P}grpSp":
        members = [s for s in shape.shapes if not _hidden(s)]
        return [b for member in _reading_order(members, tolerance) for b in _shape_blocks(member, tolerance, unread)]
    kind = _UNREAD.get(getattr(shape._element, "graphicData_uri", "") or "")
    if kind == "chart" and (chart := _chart_blocks(shape)):
        return chart
    if kind == "diagram" and (nodes := _diagram_blocks(shape)):
        return nodes
    if kind:
        unread.add(kind)
        return []
    if getattr(shape, "has_table", False):
        return _table_blocks(shape.table)
    if getattr(shape, "has_text_frame", False) and _placeholder_type(shape) not in _RUNNING_TYPES:
        return _text_blocks(shape)
    return []  # a picture, chart, diagram, connector, media or embedded object


def _chart_blocks(shape: Any) -> list[Block]:
    """A chart's title and its data as a table (a column of categories, one per series);
    [] for a chart without categories (scatter, bubble) or whose data cannot be read."""
    try:
        chart = shape.chart
        plots = [plot for plot in chart.plots if len(plot.categories)]
        if not plots:
            return []
        categories = [_chart_value(c) for c in plots[0].categories]
        series = [s for plot in plots for s in plot.series]
        rows = [[_category_name(chart), *(clean_inline(s.name or "") or f"Series {n}" for n, s in enumerate(series, 1))]]
        values = [list(s.values) for s in series]
        rows += [[category, *(_chart_value(v[i]) if i < len(v) else "" for v in values)]
                 for i, category in enumerate(categories)]
        title = clean_inline(chart.chart_title.text_frame.text) if chart.has_title and \
            chart.chart_title.has_text_frame else ""
    except Exception:  # noqa: BLE001 - a chart python-pptx cannot read is named as unread, as before
        return []
    table = table_block(normalize_rows(rows))
    return [Block(kind="paragraph", text=title), table] if title else [table]


def _diagram_blocks(shape: Any) -> list[Block]:
    """A SmartArt diagram's node texts as list items, depth first along its "parent of"
    connections; [] when its data part cannot be read."""
    from pptx.oxml import parse_xml  # python-pptx's parser: no entities resolved

    try:
        ids = shape._element.find(f".//{_DGM}relIds")
        root = parse_xml(shape.part.related_part(ids.get(f"{_R}dm")).blob)
    except Exception:  # noqa: BLE001 - a diagram python-pptx cannot reach is named as unread, as before
        return []
    points = {pt.get("modelId"): pt for pt in root.iter(f"{_DGM}pt")}
    children: dict[str, list[tuple[int, str]]] = {}
    for link in root.iter(f"{_DGM}cxn"):
        if link.get("type", "parOf") == "parOf":
            order = int(link.get("srcOrd", "0")) if (link.get("srcOrd") or "0").isdigit() else 0
            children.setdefault(link.get("srcId"), []).append((order, link.get("destId")))
    nodes: list[str] = []
    seen: set[str] = set()
    stack = [key for key, pt in points.items() if pt.get("type") == "doc"][:1]
    while stack:
        key = stack.pop()
        if key in seen:
            continue
        seen.add(key)
        if points.get(key) is not None and points[key].get("type", "node") == "node":
            nodes.append(key)
        stack += [child for _, child in sorted(children.get(key, []), reverse=True)]
    if not nodes:  # no connections: the points in the order they are listed
        nodes = [key for key, pt in points.items() if pt.get("type", "node") == "node"]
    texts = [clean_inline(" ".join("".join(t.text or "" for t in p.iter(f"{_A}t")) for p in points[key].iter(f"{_A}p")))
             for key in nodes]
    return [Block(kind="list_item", text=text) for text in texts if text]


def _category_name(chart: Any) -> str:
    try:
        axis = chart.category_axis
        return clean_inline(axis.axis_title.text_frame.text) if axis.has_title else "Category"
    except Exception:  # noqa: BLE001 - a pie chart has no axes
        return "Category"


def _chart_value(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else f"{value:g}"
    return clean_inline(str(getattr(value, "label", value)))


def _table_blocks(table: Any) -> list[Block]:
    # a cell covered by a merge holds no text of its own: empty keeps the columns in place
    rows = normalize_rows([["" if cell.is_spanned else cell.text for cell in row.cells] for row in table.rows])
    if not rows:
        return []
    if len(rows[0]) >= 2:
        return [table_block(rows)]
    return [Block(kind="paragraph", text=row[0]) for row in rows if row[0]]  # a one-column layout box


def _text_blocks(shape: Any) -> list[Block]:
    styles = _inherited_styles(shape)
    counters: dict[int, int] = {}  # level -> the number its next numbered paragraph shows
    out: list[Block] = []
    for paragraph in shape.text_frame.paragraphs:
        text = clean_inline(paragraph.text)
        level = max(0, min(int(paragraph.level or 0), 8))
        for deeper in [k for k in counters if k > level]:
            del counters[deeper]  # a paragraph of a higher level ends the numbering below it
        if not text:
            continue
        bullet = _bullet(paragraph._p.pPr, level, styles)
        if bullet is None or bullet.tag == f"{_A}buNone":
            counters.pop(level, None)
            out.append(Block(kind="paragraph", text=text))
            continue
        if bullet.tag == f"{_A}buAutoNum":
            shown = counters.get(level) or _start_at(bullet)
            counters[level] = shown + 1
            text = f"{_number(bullet.get('type') or '', shown)} {text}"
        out.append(Block(kind="list_item", text=text))
    return out


def _inherited_styles(shape: Any) -> list[Any]:
    """Where a paragraph's bullet comes from when it sets none itself, nearest first: the
    shape's own list styles, then those of the layout and master placeholders it inherits
    from, then the master's text styles for its kind of placeholder."""
    styles = [_list_style(shape)]
    base = shape
    for _ in range(2):  # a slide placeholder's layout placeholder, then that one's master placeholder
        try:
            base = base._base_placeholder  # python-pptx 1.0.2 (pinned): the placeholder inherited from
        except (AttributeError, KeyError, NotImplementedError, ValueError):
            break
        if base is None:
            break
        styles.append(_list_style(base))
    kind = _placeholder_type(shape)
    if kind is not None:
        master = _slide_master(shape)
        text_styles = master.element.find(f"{_P}txStyles") if master is not None else None
        if text_styles is not None:
            name = "titleStyle" if kind in _TITLE_TYPES else "bodyStyle"
            styles.append(text_styles.find(f"{_P}{name}"))
    return [s for s in styles if s is not None]


def _list_style(shape: Any) -> Any:
    body = shape._element.find(f"{_P}txBody")
    return body.find(f"{_A}lstStyle") if body is not None else None


def _slide_master(shape: Any) -> Any:
    part = getattr(shape, "part", None)
    layout = getattr(part, "slide_layout", None)  # a slide's part has a layout; a notes slide's none
    try:
        return layout.slide_master if layout is not None else None
    except (AttributeError, KeyError):
        return None


def _bullet(own: Any, level: int, styles: list[Any]) -> Any:
    """The bullet element (buNone, buChar, buBlip or buAutoNum) that decides a paragraph of
    `level`: its own properties', else the nearest style's for that level; None: no bullet."""
    for properties in [own] + [style.find(f"{_A}lvl{level + 1}pPr") for style in styles]:
        if properties is None:
            continue
        for child in properties:
            if child.tag in _BULLETS:
                return child
    return None


def _start_at(bullet: Any) -> int:
    try:
        return max(1, int(bullet.get("startAt") or 1))
    except ValueError:
        return 1


def _number(scheme: str, n: int) -> str:
    """What an auto-number shows: "arabicPeriod" 3 -> "3.", "alphaLcParenR" 2 -> "b)",
    "romanUcPeriod" 4 -> "IV.", "arabicParenBoth" 5 -> "(5)"; other schemes read as arabic."""
    if scheme.startswith(("alphaLc", "alphaUc")):
        letter = chr(ord("a") + (n - 1) % 26) * ((n - 1) // 26 + 1)  # as PowerPoint counts: ..., z, aa, bb
        shown = letter.upper() if scheme.startswith("alphaUc") else letter
    elif scheme.startswith(("romanLc", "romanUc")):
        shown = _roman(n).upper() if scheme.startswith("romanUc") else _roman(n)
    else:
        shown = str(n)
    if scheme.endswith("ParenBoth"):
        return f"({shown})"
    if scheme.endswith("ParenR"):
        return f"{shown})"
    if scheme.endswith("Plain"):
        return shown
    return f"{shown}."


def _roman(n: int) -> str:
    out = ""
    for value, letters in _ROMAN:
        while n >= value:
            out += letters
            n -= value
    return out


def _notes_blocks(slide: Any) -> list[Block]:
    if not slide.has_notes_slide:  # asking for `notes_slide` would make one
        return []
    frame = slide.notes_slide.notes_placeholder
    return _text_blocks(frame) if frame is not None and not _hidden(frame) else []


def _placeholder_type(shape: Any) -> str | None:
    """The placeholder's kind ("TITLE", "BODY", ...), None for any other shape."""
    try:
        if not shape.is_placeholder:
            return None
        return shape.placeholder_format.type.name
    except (AttributeError, KeyError, ValueError):
        return "OBJECT"  # a type this python-pptx does not know: content, as PowerPoint's default is


def _hidden(shape: Any) -> bool:
    """Hidden in PowerPoint's selection pane: seen neither when editing nor in the show."""
    element = getattr(shape, "_element", None)
    properties = element[0].find(f"{_P}cNvPr") if element is not None and len(element) else None
    return properties is not None and properties.get("hidden") in ("1", "true")
