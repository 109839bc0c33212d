#!/usr/bin/env python3
"""Build the bundled demo corpus in data/demo/ (deterministic, reproducible).

The corpus belongs to a fictional company, Northwind Appliances & Services GmbH
(washing machines, the HomeHub subscription service, shipping, a service-van fleet).
Every document is written from one content model (a list of blocks) and rendered
to PDF (PyMuPDF), DOCX (python-docx), Markdown, HTML or plain text.

Fonts: PDFs embed the Nimbus Sans fonts that ship inside PyMuPDF itself
(``pymupdf.Font("helv").buffer``), which cover Latin and Cyrillic, so the build
needs nothing outside the virtualenv. Output is byte-for-byte reproducible: fixed
metadata and dates, no random PDF ids, fixed zip timestamps in DOCX files.

Run:  .venv/bin/python scripts/build_demo.py [--out data/demo] [--check]

Facts stated in more than one document, always with the same values (an answer citing
either document is right; eval sets name one of them as gold_source):
- customer service +49 40 5550 1200 and its hours; call-out fee €89; engineer visit within
  3 business days in Germany; 5-year motor warranty (warranty, FAQ, CarePlus, RU error codes);
- water pressure 0.5-10 bar; drain height 60-100 cm; drain hose at most 2.5 m; 4 transport
  bolts; 220-240 V with a 10 A fuse (specifications, safety, warranty, RU installation,
  RU error codes);
- drain filter every 3 months; Drum Clean at 90 °C monthly; 14 °dH hardness limit; dosing tanks
  1.3 l / 0.5 l; reset = hold Start/Pause 5 s; child lock = Temp + Spin 3 s; serial number NW +
  10 digits; 2.4 GHz Wi-Fi; Android 10 / iOS 15 (FAQ, specifications, warranty, RU care,
  RU installation, release notes);
- Premium: up to 5 household members aged 16+; invoices kept 10 years; spare parts 10 years;
- installation €49, removal €25, third delivery €39, depot 7 days, damage report within 7 days
  (shipping, FAQ, RU delivery); fleet hotline +49 40 5550 1450 (fleet manual, handbook);
- in the fleet manual, torques and the oil capacity appear both in the text and in tables.

Deliberate traps:
- "30 days" is the CarePlus hardware-contract cancellation window (cancellation-policy.md);
  HomeHub Annual plans are non-refundable and Monthly plans refundable within 14 days
  (subscription-terms.pdf, refund table); the release notes mention that the Premium trial
  was shortened "from 14 days to 7 days";
- the fleet manual says "E10 petrol is permitted" while E10 is also a washing-machine error code;
  it names the KT-220 diesel only to say it is not covered;
- the HTML page carries a promo ("free next-day delivery to all countries") only in <script>
  and <style>, which a parser must drop;
- the FAQ names Brno, Czech Republic (motor plant), a country Northwind does not deliver to;
- nothing in the corpus mentions E401, a paragraph 99-x, a flux capacitor, the CEO, Globex.
"""
from __future__ import annotations

import argparse
import hashlib
import io
import sys
import zipfile
from datetime import datetime
from html import escape
from pathlib import Path

import pymupdf

ROOT = Path(__file__).resolve().parents[1]
COMPANY = "Northwind Appliances & Services GmbH"

# ---------------------------------------------------------------------------
# Content model
# ---------------------------------------------------------------------------
# A document is a dict: file, title, subtitle, lang, code, revision, date, owner,
# blocks (list of tuples):
#   ("h1", text) ("h2", text) ("h3", text)
#   ("p", text)                      body paragraph
#   ("para", label, text)            numbered paragraph, e.g. ("para", "7-2", "...")
#   ("ol", [items]) ("ul", [items])  numbered / bulleted list
#   ("table", header, rows, widths)  widths: relative column widths
#   ("note", text)                   highlighted note paragraph
#   ("pagebreak",)                   PDF only (ignored by the other formats)


def H1(t):
    return ("h1", t)


def H2(t):
    return ("h2", t)


def H3(t):
    return ("h3", t)


def P(t):
    return ("p", " ".join(t.split()))


def PARA(label, t):
    return ("para", label, " ".join(t.split()))


def OL(*items):
    return ("ol", [" ".join(i.split()) for i in items])


def UL(*items):
    return ("ul", [" ".join(i.split()) for i in items])


def TABLE(header, rows, widths=None):
    return ("table", header, rows, widths or [1] * len(header))


def NOTE(t):
    return ("note", " ".join(t.split()))


PAGEBREAK = ("pagebreak",)

# ---------------------------------------------------------------------------
# PDF renderer
# ---------------------------------------------------------------------------
PAGE_W, PAGE_H = 595.0, 842.0  # A4
MARGIN_L, MARGIN_R = 68.0, 68.0
TOP, BOTTOM = 80.0, 770.0
BODY = 11.0          # body font size (>= 11 keeps Nimbus spaces wider than find_tables' x tolerance)
LEAD = 1.42          # line height factor
GREY = (0.35, 0.35, 0.35)
ACCENT = (0.05, 0.27, 0.45)

_FONTS = {
    "R": pymupdf.Font("helv"),   # Nimbus Sans Regular (Latin + Cyrillic)
    "B": pymupdf.Font("hebo"),   # Nimbus Sans Bold
    "I": pymupdf.Font("heit"),   # Nimbus Sans Italic
}
_FONTNAMES = {"R": "NWSans", "B": "NWSansBold", "I": "NWSansItalic"}

LABELS = {
    "en": {"page": "Page {n} of {N}", "contents": "Contents", "control": "Document control",
           "docno": "Document number", "rev": "Revision", "date": "Effective date",
           "owner": "Document owner", "class": "Classification", "public": "Public"},
    "ru": {"page": "Страница {n} из {N}", "contents": "Содержание", "control": "Сведения о документе",
           "docno": "Номер документа", "rev": "Редакция", "date": "Дата вступления в силу",
           "owner": "Владелец документа", "class": "Доступ", "public": "Открытый"},
}


def wrap(text: str, font: str, size: float, width: float) -> list[str]:
    f = _FONTS[font]
    lines, cur = [], ""
    for part in text.split("\n"):
        cur = ""
        for word in part.split(" "):
            cand = word if not cur else cur + " " + word
            if f.text_length(cand, fontsize=size) <= width or not cur:
                cur = cand
            else:
                lines.append(cur)
                cur = word
        lines.append(cur)
    return lines


class PdfWriter:
    def __init__(self, doc_meta: dict):
        self.meta = doc_meta
        self.lang = doc_meta["lang"]
        self.doc = pymupdf.open()
        self.page = None
        self.y = TOP
        self.width = PAGE_W - MARGIN_L - MARGIN_R
        self.new_page()

    # -- pages ------------------------------------------------------------
    def new_page(self):
        self.page = self.doc.new_page(width=PAGE_W, height=PAGE_H)
        for key, name in _FONTNAMES.items():
            self.page.insert_font(fontname=name, fontbuffer=_FONTS[key].buffer)
        self.y = TOP

    def ensure(self, height: float):
        if self.y + height > BOTTOM:
            self.new_page()

    def text(self, x, y, s, font="R", size=BODY, color=(0, 0, 0)):
        self.page.insert_text((x, y), s, fontname=_FONTNAMES[font], fontsize=size,
                              color=color, lineheight=LEAD)

    # -- blocks -----------------------------------------------------------
    def heading(self, text, size, space_before, space_after, color=ACCENT):
        lines = wrap(text, "B", size, self.width)
        h = len(lines) * size * LEAD
        if self.y > TOP:
            self.y += space_before
        self.ensure(h + space_after + 3 * BODY * LEAD)  # keep with next
        self.text(MARGIN_L, self.y + size, "\n".join(lines), "B", size, color)
        self.y += h + space_after

    def paragraph(self, text, font="R", size=BODY, indent=0.0, label=None, label_w=0.0,
                  label_font="B", after=7.0, color=(0, 0, 0)):
        x = MARGIN_L + indent + label_w
        lines = wrap(text, font, size, self.width - indent - label_w)
        h = len(lines) * size * LEAD
        self.ensure(h)
        if label:
            self.text(MARGIN_L + indent, self.y + size, label, label_font, size)
        self.text(x, self.y + size, "\n".join(lines), font, size, color)
        self.y += h + after

    def note(self, text):
        size = BODY - 0.5
        lines = wrap(text, "I", size, self.width - 24)
        h = len(lines) * size * LEAD + 12
        self.ensure(h)
        r = pymupdf.Rect(MARGIN_L, self.y, MARGIN_L + self.width, self.y + h)
        self.page.draw_rect(r, color=None, fill=(0.93, 0.95, 0.98), width=0)
        self.page.draw_line((MARGIN_L, self.y), (MARGIN_L, self.y + h), color=ACCENT, width=2.5)
        self.text(MARGIN_L + 12, self.y + 6 + size, "\n".join(lines), "I", size)
        self.y += h + 9

    def table(self, header, rows, widths):
        size = BODY
        total = float(sum(widths))
        cols = [self.width * w / total for w in widths]
        pad = 5.0

        def layout(row, font):
            cells = [wrap(str(c), font, size, cw - 2 * pad) for c, cw in zip(row, cols)]
            h = max(len(c) for c in cells) * size * LEAD + 2 * pad - 2
            return cells, h

        head_cells, head_h = layout(header, "B")
        body = [layout(r, "R") for r in rows]
        self.y += 3
        first_rows_h = sum(h for _, h in body[:2])
        self.ensure(head_h + first_rows_h)

        def draw_row(cells, h, font, fill=None):
            x = MARGIN_L
            for lines, cw in zip(cells, cols):
                r = pymupdf.Rect(x, self.y, x + cw, self.y + h)
                if fill:
                    self.page.draw_rect(r, color=None, fill=fill, width=0)
                self.page.draw_rect(r, color=(0.25, 0.25, 0.25), width=0.7)
                self.text(x + pad, self.y + pad + size - 1, "\n".join(lines), font, size)
                x += cw
            self.y += h

        draw_row(head_cells, head_h, "B", fill=(0.86, 0.90, 0.95))
        for cells, h in body:
            if self.y + h > BOTTOM:
                self.new_page()
                draw_row(head_cells, head_h, "B", fill=(0.86, 0.90, 0.95))
            draw_row(cells, h, "R")
        self.y += 12

    def cover(self, toc):
        m, L = self.meta, LABELS[self.lang]
        self.page.draw_rect(pymupdf.Rect(0, 0, PAGE_W, 150), color=None, fill=ACCENT, width=0)
        self.text(MARGIN_L, 70, COMPANY, "B", 12, (1, 1, 1))
        self.text(MARGIN_L, 100, m["code"], "R", 11, (0.85, 0.9, 1))
        self.y = 200
        self.heading(m["title"], 24, 0, 10, color=(0, 0, 0))
        if m.get("subtitle"):
            self.paragraph(m["subtitle"], "R", 13, after=24, color=GREY)
        self.heading(L["control"], 13, 10, 6)
        rows = [[L["docno"], m["code"]], [L["rev"], m["revision"]], [L["date"], m["date"]],
                [L["owner"], m["owner"]], [L["class"], L["public"]]]
        self.kv_table(rows)
        if toc:
            self.heading(L["contents"], 13, 14, 6)
            for t in toc:
                self.paragraph(t, "R", BODY, indent=8, after=2)
        self.new_page()

    def kv_table(self, rows):
        size = BODY
        cols = [self.width * 0.38, self.width * 0.62]
        for k, v in rows:
            h = size * LEAD + 8
            x = MARGIN_L
            for txt, cw, font in ((k, cols[0], "B"), (v, cols[1], "R")):
                r = pymupdf.Rect(x, self.y, x + cw, self.y + h)
                self.page.draw_line(r.bl, r.br, color=(0.7, 0.7, 0.7), width=0.5)
                self.text(x + 4, self.y + 4 + size - 1, txt, font, size)
                x += cw
            self.y += h
        self.y += 10

    def render(self, blocks):
        toc = [b[1] for b in blocks if b[0] == "h1"]
        self.cover(toc)
        for b in blocks:
            kind = b[0]
            if kind == "h1":
                self.heading(b[1], 16, 14, 8)
            elif kind == "h2":
                self.heading(b[1], 13, 10, 6)
            elif kind == "h3":
                self.heading(b[1], 11.5, 6, 4, color=(0, 0, 0))
            elif kind == "p":
                self.paragraph(b[1])
            elif kind == "para":
                self.paragraph(b[2], label=b[1] + ".", label_w=40, after=8)
            elif kind == "ol":
                for i, item in enumerate(b[1], 1):
                    self.paragraph(item, indent=10, label=f"{i}.", label_w=20, label_font="R", after=4)
                self.y += 4
            elif kind == "ul":
                for item in b[1]:
                    self.paragraph(item, indent=10, label="•", label_w=16, label_font="R", after=4)
                self.y += 4
            elif kind == "table":
                self.table(b[1], b[2], b[3])
            elif kind == "note":
                self.note(b[1])
            elif kind == "pagebreak":
                if self.y > TOP:
                    self.new_page()
            else:
                raise ValueError(kind)

    def finish(self, path: Path):
        m, L = self.meta, LABELS[self.lang]
        n_pages = self.doc.page_count
        for i, page in enumerate(self.doc, 1):
            footer = f"{COMPANY}  ·  {m['code']} {m['revision']}  ·  " + L["page"].format(n=i, N=n_pages)
            page.draw_line((MARGIN_L, 790), (PAGE_W - MARGIN_R, 790), color=(0.7, 0.7, 0.7), width=0.5)
            page.insert_text((MARGIN_L, 805), footer, fontname=_FONTNAMES["R"], fontsize=8, color=GREY)
            if i > 1:
                page.insert_text((MARGIN_L, 50), m["title"], fontname=_FONTNAMES["R"], fontsize=8, color=GREY)
                page.draw_line((MARGIN_L, 56), (PAGE_W - MARGIN_R, 56), color=(0.7, 0.7, 0.7), width=0.5)
        stamp = "D:" + m["date_iso"].replace("-", "") + "090000+01'00'"
        self.doc.set_metadata({
            "title": m["title"], "author": COMPANY, "subject": m.get("subtitle", ""),
            "creator": "Northwind document system", "producer": "PyMuPDF",
            "creationDate": stamp, "modDate": stamp, "keywords": "", "trapped": "",
        })
        self.doc.subset_fonts()
        path.write_bytes(self.doc.tobytes(garbage=4, deflate=True, no_new_id=True))
        return n_pages


def render_pdf(doc: dict, path: Path) -> int:
    w = PdfWriter(doc)
    w.render(doc["blocks"])
    return w.finish(path)


# ---------------------------------------------------------------------------
# DOCX renderer
# ---------------------------------------------------------------------------
def render_docx(doc: dict, path: Path) -> int:
    import docx
    from docx.shared import Pt

    d = docx.Document()
    style = d.styles["Normal"]
    style.font.name = "Calibri"
    style.font.size = Pt(11)
    d.add_heading(doc["title"], level=0)
    if doc.get("subtitle"):
        d.add_paragraph(doc["subtitle"], style="Subtitle")
    L = LABELS[doc["lang"]]
    meta = d.add_table(rows=0, cols=2)
    meta.style = "Light List Accent 1"
    for k, v in ((L["docno"], doc["code"]), (L["rev"], doc["revision"]),
                 (L["date"], doc["date"]), (L["owner"], doc["owner"])):
        cells = meta.add_row().cells
        cells[0].text, cells[1].text = k, v
    for b in doc["blocks"]:
        kind = b[0]
        if kind in ("h1", "h2", "h3"):
            d.add_heading(b[1], level=int(kind[1]))
        elif kind == "p":
            d.add_paragraph(b[1])
        elif kind == "note":
            p = d.add_paragraph(style="Intense Quote")
            p.add_run(b[1])
        elif kind == "para":
            p = d.add_paragraph()
            p.add_run(b[1] + ". ").bold = True
            p.add_run(b[2])
        elif kind == "ol":
            for item in b[1]:
                d.add_paragraph(item, style="List Number")
        elif kind == "ul":
            for item in b[1]:
                d.add_paragraph(item, style="List Bullet")
        elif kind == "table":
            header, rows = b[1], b[2]
            t = d.add_table(rows=1, cols=len(header))
            t.style = "Table Grid"
            for cell, text in zip(t.rows[0].cells, header):
                cell.text = ""
                cell.paragraphs[0].add_run(text).bold = True
            for r in rows:
                cells = t.add_row().cells
                for cell, text in zip(cells, r):
                    cell.text = text
            d.add_paragraph()
        elif kind == "pagebreak":
            pass
        else:
            raise ValueError(kind)
    cp = d.core_properties
    when = datetime.fromisoformat(doc["date_iso"] + "T09:00:00")
    cp.author = COMPANY
    cp.last_modified_by = COMPANY
    cp.title = doc["title"]
    cp.subject = doc.get("subtitle", "")
    cp.created = when
    cp.modified = when
    cp.last_printed = when
    cp.revision = 1
    cp.language = "ru-RU" if doc["lang"] == "ru" else "en-GB"
    buf = io.BytesIO()
    d.save(buf)
    path.write_bytes(_fixed_zip(buf.getvalue()))
    return 0


def _fixed_zip(data: bytes) -> bytes:
    """Rewrite a zip with fixed timestamps and member order (reproducible DOCX)."""
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            zi = zipfile.ZipInfo(info.filename, date_time=(2024, 1, 1, 0, 0, 0))
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.external_attr = 0o644 << 16
            dst.writestr(zi, src.read(info.filename))
    return out.getvalue()


# ---------------------------------------------------------------------------
# Markdown / HTML / text renderers
# ---------------------------------------------------------------------------
def _md_cell(s: str) -> str:
    return s.replace("|", "\\|")


def render_md(doc: dict, path: Path) -> int:
    out = [f"# {doc['title']}", ""]
    if doc.get("subtitle"):
        out += [doc["subtitle"], ""]
    L = LABELS[doc["lang"]]
    out += [f"{L['docno']}: {doc['code']} · {L['rev']}: {doc['revision']} · {L['date']}: {doc['date']}", ""]
    for b in doc["blocks"]:
        kind = b[0]
        if kind == "h1":
            out += [f"## {b[1]}", ""]
        elif kind == "h2":
            out += [f"### {b[1]}", ""]
        elif kind == "h3":
            out += [f"#### {b[1]}", ""]
        elif kind == "p":
            out += [b[1], ""]
        elif kind == "note":
            out += [f"> {b[1]}", ""]
        elif kind == "para":
            out += [f"{b[1]}. {b[2]}", ""]
        elif kind == "ol":
            out += [f"{i}. {item}" for i, item in enumerate(b[1], 1)] + [""]
        elif kind == "ul":
            out += [f"- {item}" for item in b[1]] + [""]
        elif kind == "table":
            header, rows = b[1], b[2]
            out.append("| " + " | ".join(_md_cell(h) for h in header) + " |")
            out.append("|" + "|".join("---" for _ in header) + "|")
            for r in rows:
                out.append("| " + " | ".join(_md_cell(c) for c in r) + " |")
            out.append("")
        elif kind == "pagebreak":
            pass
        else:
            raise ValueError(kind)
    path.write_text("\n".join(out).rstrip() + "\n", encoding="utf-8")
    return 0


HTML_STYLE = """
    body { font-family: "Segoe UI", Arial, sans-serif; margin: 0; color: #1d2733; }
    header.site { background: #0b4573; color: #fff; padding: 12px 32px; }
    nav.site-nav a { color: #fff; margin-right: 18px; text-decoration: none; }
    main { max-width: 880px; margin: 24px auto; padding: 0 24px; line-height: 1.55; }
    table { border-collapse: collapse; margin: 12px 0 20px; }
    th, td { border: 1px solid #9aa7b4; padding: 6px 10px; text-align: left; }
    th { background: #dce6f1; }
    .note { background: #eef3fa; border-left: 4px solid #0b4573; padding: 8px 14px; }
    footer.site { font-size: 12px; color: #5a6570; padding: 24px 32px; border-top: 1px solid #ccd; }
    .promo-banner::after { content: "Next-day delivery to every country!"; }
"""

HTML_SCRIPT = """
    // Analytics and marketing banner (not part of the policy text).
    window.dataLayer = window.dataLayer || [];
    function track(event) { window.dataLayer.push({event: event, page: "shipping"}); }
    var promoText = "FLASH SALE: free next-day delivery to all countries, today only!";
    document.addEventListener("DOMContentLoaded", function () {
      var el = document.querySelector(".promo-banner");
      if (el) { el.setAttribute("data-text", promoText); }
      track("page_view");
    });
"""


def render_html(doc: dict, path: Path) -> int:
    lang = doc["lang"]
    body = []
    for b in doc["blocks"]:
        kind = b[0]
        if kind == "h1":
            body.append(f"<h2>{escape(b[1])}</h2>")
        elif kind == "h2":
            body.append(f"<h3>{escape(b[1])}</h3>")
        elif kind == "h3":
            body.append(f"<h4>{escape(b[1])}</h4>")
        elif kind == "p":
            body.append(f"<p>{escape(b[1])}</p>")
        elif kind == "note":
            body.append(f'<p class="note">{escape(b[1])}</p>')
        elif kind == "para":
            body.append(f"<p><b>{escape(b[1])}.</b> {escape(b[2])}</p>")
        elif kind in ("ol", "ul"):
            items = "\n".join(f"      <li>{escape(i)}</li>" for i in b[1])
            body.append(f"<{kind}>\n{items}\n    </{kind}>")
        elif kind == "table":
            head = "".join(f"<th>{escape(h)}</th>" for h in b[1])
            rows = "\n".join("        <tr>" + "".join(f"<td>{escape(c)}</td>" for c in r) + "</tr>"
                             for r in b[2])
            body.append(f"<table>\n      <thead><tr>{head}</tr></thead>\n      <tbody>\n{rows}\n      </tbody>\n    </table>")
        elif kind == "pagebreak":
            pass
        else:
            raise ValueError(kind)
    L = LABELS[lang]
    html = f"""<!DOCTYPE html>
<html lang="{lang}">
<head>
  <meta charset="utf-8">
  <title>{escape(doc['title'])} | Northwind Appliances &amp; Services</title>
  <style>{HTML_STYLE}  </style>
  <script>{HTML_SCRIPT}  </script>
</head>
<body>
  <header class="site">
    <nav class="site-nav" aria-label="Main">
      <a href="/">Home</a>
      <a href="/washing-machines">Washing machines</a>
      <a href="/homehub">HomeHub</a>
      <a href="/careplus">CarePlus</a>
      <a href="/support">Support</a>
      <a href="/shipping">Shipping</a>
      <a href="/account">My account</a>
    </nav>
    <div class="promo-banner" aria-hidden="true"></div>
  </header>
  <main>
    <h1>{escape(doc['title'])}</h1>
    <p class="doc-meta">{escape(L['docno'])}: {escape(doc['code'])} · {escape(L['rev'])}: {escape(doc['revision'])} · {escape(L['date'])}: {escape(doc['date'])}</p>
    {chr(10).join('    ' + x if i else x for i, x in enumerate(body))}
  </main>
  <footer class="site">
    <p>© 2024 {escape(COMPANY)} · Speicherstraße 14, 20457 Hamburg · <a href="/imprint">Imprint</a> · <a href="/privacy">Privacy</a></p>
  </footer>
  <script>
    track("footer_loaded");
  </script>
</body>
</html>
"""
    path.write_text(html, encoding="utf-8")
    return 0


def render_txt(doc: dict, path: Path) -> int:
    out = [doc["title"].upper(), "=" * len(doc["title"]), ""]
    if doc.get("subtitle"):
        out += [doc["subtitle"], ""]
    L = LABELS[doc["lang"]]
    out += [f"{L['docno']}: {doc['code']}", f"{L['rev']}: {doc['revision']}", f"{L['date']}: {doc['date']}", ""]
    for b in doc["blocks"]:
        kind = b[0]
        if kind == "h1":
            out += ["", b[1].upper(), "-" * len(b[1]), ""]
        elif kind in ("h2", "h3"):
            out += [b[1], ""]
        elif kind in ("p", "note"):
            out += [b[1], ""]
        elif kind == "para":
            out += [f"{b[1]}. {b[2]}", ""]
        elif kind == "ol":
            out += [f"{i}) {item}" for i, item in enumerate(b[1], 1)] + [""]
        elif kind == "ul":
            out += [f"* {item}" for item in b[1]] + [""]
        elif kind == "table":
            header, rows = b[1], b[2]
            widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
            fmt = lambda r: "  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731, B023 - used at once, in this loop pass
            out += [fmt(header), "  ".join("-" * w for w in widths)] + [fmt(r) for r in rows] + [""]
        elif kind == "pagebreak":
            pass
        else:
            raise ValueError(kind)
    path.write_text("\n".join(out).rstrip() + "\n", encoding="utf-8")
    return 0


RENDERERS = {".pdf": render_pdf, ".docx": render_docx, ".md": render_md,
             ".html": render_html, ".txt": render_txt}


# ---------------------------------------------------------------------------
# Documents
# ---------------------------------------------------------------------------
def doc_subscription_terms():
    return dict(
        file="subscription-terms.pdf", lang="en", code="LEG-HH-004", revision="Rev 4.2",
        date="1 March 2024", date_iso="2024-03-01", owner="HomeHub Product & Legal",
        title="HomeHub Subscription Terms",
        subtitle="Terms for the Northwind HomeHub connected-appliance service (Standard and Premium)",
        blocks=[
            H1("1. Scope and definitions"),
            P("""These Subscription Terms govern the Northwind HomeHub service ("HomeHub"), the
            connected-appliance platform that lets customers start, monitor and diagnose Northwind
            appliances from the HomeHub app and the HomeHub web portal. They apply in addition to the
            Northwind General Terms of Sale. Where the two conflict, these Subscription Terms prevail
            for everything that concerns HomeHub."""),
            P("""HomeHub is provided by Northwind Appliances & Services GmbH, Speicherstraße 14,
            20457 Hamburg, Germany, registered with the Hamburg Local Court under HRB 148207
            ("Northwind", "we", "us")."""),
            UL("""Subscriber: the person who created the HomeHub account and holds the payment method.""",
               """Household member: a person invited by the Subscriber to share a Premium subscription.""",
               """Paid term: the period covered by the most recent payment, which is one calendar month
               for a Monthly plan and twelve months for an Annual plan.""",
               """Connected appliance: a Northwind appliance with built-in Wi-Fi that has been paired with
               a HomeHub account."""),
            H1("2. Plans and prices"),
            P("""HomeHub is available in two tiers, Standard and Premium. Each tier can be billed every
            month (Monthly plan) or once a year (Annual plan). All prices include German VAT at 19%.
            For customers in other EU countries the VAT rate of the customer's country applies and the
            displayed price is adjusted accordingly."""),
            TABLE(["Tier", "Monthly plan", "Annual plan", "Included"], [
                ["Standard", "€4.99 per month", "€49.00 per year",
                 "Remote start and monitoring for up to 3 appliances; cycle history for 90 days"],
                ["Premium", "€8.99 per month", "€89.00 per year",
                 "Up to 10 appliances; remote diagnostics; cycle history for 2 years; up to 5 household members"],
            ], [1.1, 1.3, 1.3, 3.2]),
            P("""Premium Subscribers receive a 10% discount on CarePlus service contracts bought while
            their Premium subscription is active. The discount is applied at checkout when the
            customer is signed in with the HomeHub account."""),
            H2("2.1 Free trial"),
            P("""New customers can try Premium free of charge for 7 days. The free trial is available
            once per household. Unless it is cancelled before the trial ends, it converts into a paid
            Monthly Premium plan. We send a reminder e-mail 2 days before the end of the trial."""),
            H2("2.2 Switching between plans"),
            P("""An upgrade from Standard to Premium takes effect immediately; for the rest of the
            current paid term we charge only the price difference, calculated per day. A downgrade
            from Premium to Standard, and a change from the Monthly plan to the Annual plan or back,
            takes effect at the next renewal date."""),
            H1("3. Billing and payment"),
            P("""The Monthly plan is billed in advance on the same calendar day each month as the day of
            the first payment. Where that day does not exist in a month (for example the 31st), we
            bill on the last day of that month. The Annual plan is billed in advance once every
            twelve months."""),
            P("""We accept Visa, Mastercard, American Express, PayPal and SEPA Direct Debit. SEPA Direct
            Debit is available for Annual plans only. Invoices are issued electronically and can be
            downloaded from the Billing page of the HomeHub portal for 10 years after issue."""),
            P("""If a payment fails, we retry the charge up to 3 times over 10 days and notify the
            Subscriber by e-mail after each failed attempt. If the last attempt also fails, the
            subscription is suspended: remote functions stop working, but the cycle history is kept
            for 60 days so that the account can be restored as soon as the outstanding amount is
            paid."""),
            H1("4. Refunds and cancellation"),
            P("""The refund and cancellation rules depend on the billing plan and are set out in the
            table below. They apply equally to the Standard and the Premium tier."""),
            TABLE(["Plan", "Refund", "Cancellation"], [
                ["Monthly", "Full refund within 14 days of purchase", "Cancel any time"],
                ["Annual", "Non-refundable", "Cancel any time, access continues to the end of the paid term"],
            ], [1, 2, 2.6]),
            P("""For a Monthly plan, the 14-day refund period starts on the day of the first payment of a
            new subscription. It does not apply to later monthly renewals, which are not refunded.
            Approved refunds are paid back to the original payment method within 5 business days."""),
            P("""Cancelling an Annual plan stops the automatic renewal. The subscription stays fully
            active until the end of the paid term, and unused months are not refunded, either in full
            or pro rata."""),
            H2("4.1 How to cancel"),
            OL("""In the HomeHub app, open Settings, then Subscription, and tap Cancel subscription.""",
               """Alternatively, write to billing@northwind-appliances.example from the e-mail address
               registered with the account.""",
               """We confirm the cancellation by e-mail within 24 hours. Keep the confirmation: it states
               the date on which access ends."""),
            P("""A cancelled subscription can be restarted at any time from the same screen. Cycle history
            that is still stored at that moment is kept."""),
            H1("5. Changes to prices and features"),
            P("""We may change HomeHub prices with effect from the next renewal. We announce a price
            change at least 6 weeks in advance by e-mail and in the app. A Subscriber who does not
            accept the new price can cancel before it takes effect. Prices are increased at most once
            per calendar year, and the price of a paid term that has already been paid never changes."""),
            P("""We may add or improve features at any time. During a paid term we will not remove a
            core feature. The core features are remote start, cycle monitoring and error
            notifications. If we decide to discontinue HomeHub entirely, we will give at least
            3 months' notice."""),
            H1("6. Household sharing (Premium)"),
            P("""A Premium Subscriber can invite up to 5 household members. Household members must live
            at the same address as the Subscriber and must be at least 16 years old. Every household
            member signs in with their own login. The Subscriber can remove a household member at any
            time under Settings, Household. Sharing a Premium subscription with people outside the
            household is not permitted."""),
            H1("7. Service availability"),
            P("""We aim for HomeHub availability of 99.5% in each calendar month, not counting scheduled
            maintenance that we announce at least 48 hours in advance. Scheduled maintenance normally
            takes place on Tuesdays between 02:00 and 04:00 CET."""),
            P("""If availability falls below 99.5% in a calendar month, Premium Subscribers can request a
            service credit of 10% of the monthly fee, or of one twelfth of the annual fee, for that
            month. The request must reach us within 2 months after the end of the affected month."""),
            NOTE("""Connected appliances keep working locally when HomeHub is unavailable. Only the remote
            functions depend on the service; programmes started on the appliance itself always run."""),
            H1("8. Account data"),
            P("""When a subscription ends, the HomeHub account remains available in free mode with
            local-network control only. Cycle history beyond the Standard limit of 90 days is deleted
            60 days after a Premium subscription ends. We process personal data as described in the
            Northwind Privacy Policy."""),
            H1("9. Suspension of accounts"),
            P("""We may suspend an account that is used to interfere with the service, that shares a
            Premium subscription outside the household, or that remains unpaid after the retry period
            described in section 3. Before a suspension for any reason other than non-payment we
            warn the Subscriber by e-mail and allow 7 days to remedy the issue."""),
            H1("10. Liability, law and contact"),
            P("""Northwind is liable without limitation for intent and gross negligence and for injury to
            life, body or health. For slight negligence we are liable only for breach of essential
            contractual obligations, limited to the damage typically foreseeable under this contract."""),
            P("""These Subscription Terms are governed by German law, excluding the UN Convention on
            Contracts for the International Sale of Goods. For merchants the place of jurisdiction is
            Hamburg. Consumers keep the protection of the mandatory law of their country of
            residence."""),
            P("""Questions about billing: HomeHub billing team, billing@northwind-appliances.example,
            telephone +49 40 5550 1300, Monday to Friday from 9:00 to 17:00 CET."""),
        ],
    )


def doc_cancellation_policy():
    return dict(
        file="cancellation-policy.md", lang="en", code="CS-CP-002", revision="Rev 2.0",
        date="1 January 2024", date_iso="2024-01-01", owner="Customer Service Operations",
        title="CarePlus Service Contracts: Cancellation Policy",
        subtitle="How to cancel a CarePlus hardware service contract and what you get back.",
        blocks=[
            H1("Which contracts this policy covers"),
            P("""This policy applies to CarePlus hardware service contracts for Northwind washing
            machines, bought directly from Northwind or from an authorised Northwind dealer. A CarePlus
            contract covers repairs after the manufacturer's warranty has ended."""),
            TABLE(["Contract", "Cover ends", "Price", "What is included"], [
                ["CarePlus Basic", "3 years after delivery", "€119", "Parts and labour for repairs"],
                ["CarePlus Complete", "5 years after delivery", "€189",
                 "Parts and labour, plus one accidental-damage repair"],
            ]),
            P("""This policy does not cover HomeHub subscriptions or the return of appliances. HomeHub
            subscriptions follow the HomeHub Subscription Terms; returns of appliances are explained in
            the customer FAQ."""),
            H1("30-day cancellation window"),
            P("""You can cancel a CarePlus service contract within 30 days of the contract start date
            and receive a full refund, provided that no service visit or repair has been carried out
            under the contract."""),
            P("""If a service visit has already taken place within those 30 days, the refund is reduced
            by the cost of that visit at the standard rate: the €89 call-out fee plus the parts that
            were fitted."""),
            H1("Cancelling after the first 30 days"),
            P("""After the cancellation window has closed you can still cancel at the end of any contract
            month with one month's notice. You then receive a pro-rata refund for the unused months,
            minus an administration fee of €25."""),
            P("""No refund is made after the cancellation window if repairs carried out under the
            contract have already cost more than the price of the contract."""),
            H1("How to cancel"),
            OL("""Find your contract number. It starts with CP- followed by the year and six digits,
            for example CP-2024-104877, and is printed on the contract confirmation.""",
               """Cancel online under My account, then My contracts, or call customer service on
            +49 40 5550 1200.""",
               """We confirm the cancellation by e-mail within 3 business days.""",
               """The refund is paid to the original payment method within 10 business days after the
            confirmation."""),
            H1("Transferring a contract"),
            P("""If you sell the washing machine, the CarePlus contract can be transferred to the new
            owner once, free of charge. Send us the new owner's name and address together with the
            contract number. A transfer does not restart the cancellation window."""),
            H1("Contact"),
            P("""Customer service is available Monday to Friday from 8:00 to 18:00 and on Saturday from
            9:00 to 14:00 (CET) on +49 40 5550 1200 or at careplus@northwind-appliances.example."""),
        ],
    )


def doc_vehicle_manual():
    return dict(
        file="vehicle-maintenance-manual.pdf", lang="en", code="FLT-MM-200", revision="Rev C",
        date="4 March 2024", date_iso="2024-03-04", owner="Fleet Management, Hamburg-Billbrook workshop",
        title="Fleet Maintenance Manual: Kestrel KT-200 Service Van",
        subtitle="Maintenance procedures for the Northwind field-service fleet (2.0 L petrol, engine code KP20)",
        blocks=[
            H1("Chapter 1. General"),
            PARA("1-1", """Purpose. This manual sets out the maintenance procedures, intervals and limits for
            the Northwind field-service fleet of Kestrel KT-200 vans. It is written for the fleet
            workshop technicians and for the field-service engineers who drive the vans."""),
            PARA("1-2", """Applicability. The manual applies to Kestrel KT-200 vans with the 2.0 L petrol
            engine (engine code KP20), fleet numbers NW-101 to NW-164, first registered from 2021
            onwards. The diesel variant, the Kestrel KT-220, is serviced by the dealer under a
            separate contract and is not covered by this manual."""),
            PARA("1-3", """Responsibilities. Drivers carry out the daily checks in Chapter 2. Scheduled
            maintenance is carried out only by the fleet workshop in Hamburg-Billbrook or by a workshop
            approved in writing by the Fleet Manager. Any deviation from the limits in this manual
            must be approved by the Fleet Manager before the vehicle returns to service."""),
            PARA("1-4", """Records. Every inspection, repair and part replacement is recorded in the FleetLog
            system within 24 hours, with the fleet number, odometer reading and the technician's
            name. A vehicle whose scheduled service is more than 1,000 km overdue is blocked in
            FleetLog and must not be dispatched."""),
            PARA("1-5", """Warnings and cautions. A WARNING draws attention to a risk of injury. A CAUTION
            draws attention to a risk of damage to the vehicle or equipment. Read both before starting
            a procedure."""),
            PAGEBREAK,
            H1("Chapter 2. Daily checks by the driver"),
            PARA("2-1", """Walk-around check. Before the first trip of each day the driver walks around the
            vehicle and checks the points below. The check takes about 5 minutes and is confirmed in
            the FleetLog app."""),
            OL("""Tyres: visible damage, bulges and obviously low pressure.""",
               """Lights: headlights, indicators, brake lights and hazard lights.""",
               """Fluids: no puddles under the vehicle; engine oil and washer fluid warning lights off
               after start.""",
               """Load: cargo secured with the lashing straps; roof ladder locked.""",
               """Documents: vehicle registration, fuel card and accident report form in the glovebox."""),
            PARA("2-2", """Tyre pressures. Check tyre pressures cold, at least once a week and before every
            long trip. The fleet pressures are 3.6 bar front and 4.0 bar rear for a laden van, and
            3.2 bar front and 3.4 bar rear for an unladen van."""),
            PARA("2-3", """Warning lights. If the oil pressure warning light or the red coolant temperature
            light comes on while driving, stop as soon as it is safe, switch off the engine and call
            the fleet hotline on +49 40 5550 1450. Do not continue the journey."""),
            PARA("2-4", """Defect reporting. Defects are reported in the FleetLog app with a photo. Defects
            that affect safety (brakes, steering, tyres, lights) take the vehicle out of service until
            the workshop has cleared it."""),
            PAGEBREAK,
            H1("Chapter 3. Service intervals"),
            PARA("3-1", """Schedule. Service intervals are based on distance or time, whichever comes first.
            The workshop plans services from the FleetLog odometer readings."""),
            TABLE(["Item", "Interval", "Remarks"], [
                ["Service A (oil and filter, inspection)", "Every 15,000 km or 12 months",
                 "See Chapter 7"],
                ["Service B (Service A plus filters)", "Every 30,000 km or 24 months",
                 "Air filter and cabin filter replaced"],
                ["Brake fluid change", "Every 2 years", "DOT 4 only"],
                ["Spark plugs", "Every 60,000 km", "See para 8-1"],
                ["Coolant change", "Every 5 years or 150,000 km", "See Chapter 6"],
                ["Timing chain inspection", "At 120,000 km", "Workshop only"],
            ], [2.4, 2.0, 1.8]),
            PARA("3-2", """Seasonal checks. In October every van receives a winter check: winter tyres,
            battery test, coolant frost protection down to -30 °C and winter screenwash. Winter tyres
            are fitted from October to Easter."""),
            PARA("3-3", """Tolerance. A service may be brought forward by up to 1,500 km to fit the
            workshop schedule. It must not be postponed beyond the interval without the Fleet
            Manager's approval (see para 1-4)."""),
            PAGEBREAK,
            H1("Chapter 4. Tyres and wheels"),
            PARA("4-1", """Tyre size. The KT-200 uses 215/65 R16C tyres with load index 109/107 on all four
            wheels. Only tyres of the same make and tread pattern may be fitted on one axle."""),
            PARA("4-2", """Tread depth. The legal minimum tread depth is 1.6 mm, but fleet vans must have
            their tyres replaced when the tread depth falls to 3 mm. Measure at three points across
            the tread."""),
            PARA("4-3", """Wheel change. Loosen the wheel lug nuts by half a turn before lifting the
            vehicle. After fitting the wheel, tighten the lug nuts in a star pattern to 120 N·m with a
            calibrated torque wrench. Re-check the torque after 50 km."""),
            PARA("4-4", """Spare wheel. The full-size spare wheel is stored under the rear of the van and is
            lowered with the winch key from the tool kit. Check the spare wheel pressure at every
            Service A."""),
            H1("Chapter 5. Brakes"),
            PARA("5-1", """Brake pads. Replace the brake pads when the friction lining is worn to 2 mm or
            less. Always replace pads on both wheels of an axle."""),
            PARA("5-2", """Brake discs. The minimum thickness of the front brake discs is 25.0 mm (new:
            28.0 mm). The minimum thickness of the rear brake discs is 10.0 mm (new: 12.0 mm). Discs
            at or below the minimum are replaced in pairs."""),
            PARA("5-3", """Brake fluid. Use DOT 4 brake fluid only. Change the brake fluid every 2 years
            regardless of distance. Brake fluid absorbs moisture; never reuse fluid from an opened
            container that is more than 6 months old."""),
            NOTE("""WARNING: Brake work on the fleet vans is carried out by the workshop only. Drivers
            must not adjust or bleed the brakes."""),
            PAGEBREAK,
            H1("Chapter 6. Cooling system"),
            PARA("6-1", """Coolant. Use Kestrel Longlife Coolant KLC-5 mixed 50/50 with demineralised water.
            The cooling system holds 7.8 litres. Do not mix KLC-5 with other coolant types."""),
            PARA("6-2", """Checking the level. Check the coolant level with the engine cold. The level must
            be between the MIN and MAX marks on the expansion tank."""),
            NOTE("""WARNING: Never open the expansion tank cap while the engine is hot. Wait until the
            coolant temperature gauge shows less than 50 °C, then open the cap slowly by a quarter
            turn to release the pressure."""),
            PARA("6-3", """Coolant change. Replace the coolant every 5 years or 150,000 km. Bleed the system
            through the bleed screw on the upper radiator hose until the coolant runs without
            bubbles."""),
            H1("Chapter 7. Engine lubrication"),
            PARA("7-1", """Oil specification. Use SAE 5W-30 fully synthetic engine oil meeting ACEA C2 or
            Kestrel specification KS-504. Oils of other viscosities are not approved for the KP20
            engine."""),
            PARA("7-2", """Engine oil capacity. The engine oil capacity is 5 quarts (4.7 litres) with filter
            change. Without a filter change the engine takes 4.4 litres. Fill 4.2 litres first,
            run the engine for one minute, then top up to the MAX mark."""),
            PARA("7-3", """Checking the oil level. Check the level with the vehicle on level ground and the
            engine at operating temperature, at least 5 minutes after switching off. The difference
            between the MIN and MAX marks on the dipstick is 1.0 litre. Never fill above the MAX
            mark."""),
            PARA("7-4", """Oil and filter change. Change the engine oil and the oil filter at every
            Service A, that is every 15,000 km or 12 months."""),
            OL("""Warm up the engine, switch it off and raise the vehicle on the lift.""",
               """Remove the oil drain plug and drain the oil into the workshop collector.""",
               """Unscrew the oil filter housing cap and replace the filter element and its O-ring.""",
               """Fit the drain plug with a new sealing washer and tighten it to 30 N·m.""",
               """Tighten the oil filter housing cap to 25 N·m.""",
               """Fill with oil as described in para 7-2 and reset the service indicator."""),
            PARA("7-5", """Used oil. Used oil and filters go into the workshop's waste oil tank and the
            marked filter bin. They are collected by a licensed disposal contractor. Never pour used
            oil into drains or on the ground."""),
            PAGEBREAK,
            H1("Chapter 8. Ignition and fuel system"),
            PARA("8-1", """Spark plugs. The KP20 engine uses four iridium spark plugs with an electrode gap
            of 0.8 mm. Replace them every 60,000 km and tighten them to 25 N·m on a cold engine."""),
            PARA("8-2", """Fuel. Use unleaded petrol of at least 95 RON. E10 petrol is permitted. The fuel
            tank holds 70 litres. Filling the van with diesel by mistake: do not start the engine;
            call the fleet hotline to have the van towed."""),
            PARA("8-3", """Fuel cards. Each van carries its own fuel card, which is valid only for the
            registration number printed on it. Receipts are photographed in the FleetLog app."""),
            H1("Chapter 9. Torque specifications"),
            PARA("9-1", """General. Use a calibrated torque wrench for every fastener listed below. Torque
            wrenches are calibrated every 12 months. Threads must be clean and dry unless stated
            otherwise. Self-locking nuts and stretch bolts are always replaced."""),
            TABLE(["Fastener", "Torque (N·m)", "Torque (lb-ft)"], [
                ["Wheel lug nuts", "120 N·m", "89 lb-ft"],
                ["Oil drain plug", "30 N·m", "22 lb-ft"],
                ["Oil filter housing cap", "25 N·m", "18 lb-ft"],
                ["Spark plugs", "25 N·m", "18 lb-ft"],
                ["Front brake caliper bracket bolts", "115 N·m", "85 lb-ft"],
                ["Front brake caliper guide bolts", "28 N·m", "21 lb-ft"],
                ["Rear brake caliper bolts", "35 N·m", "26 lb-ft"],
                ["Engine mount bolts", "80 N·m", "59 lb-ft"],
                ["Battery terminal clamps", "6 N·m", "4.4 lb-ft"],
                ["Roof rack mounting bolts", "12 N·m", "9 lb-ft"],
            ], [2.6, 1.4, 1.4]),
            PARA("9-2", """Re-checking. After any work on the wheels, the wheel lug nuts are re-checked after
            50 km. The re-check is recorded in FleetLog."""),
            PAGEBREAK,
            H1("Chapter 10. Battery and electrical system"),
            PARA("10-1", """Battery. The KT-200 has a 12 V, 70 Ah AGM battery under the driver's seat. An
            AGM battery must be charged with a charger that has an AGM setting."""),
            PARA("10-2", """Battery test. Test the battery at every Service A and at the winter check. Replace
            the battery if the resting voltage of a fully charged battery is below 12.4 V or if the
            tester reports less than 70% of the rated cold-cranking current."""),
            PARA("10-3", """Disconnecting. Switch off all consumers and remove the key. Disconnect the
            negative terminal first and reconnect it last."""),
            PARA("10-4", """Jump-starting. Use only the jump-start points in the engine compartment, never the
            battery terminals under the seat. Connect the red lead to the positive point, then the
            black lead to the earth point, and let the donor vehicle run for 3 minutes before
            starting."""),
            H1("Chapter 11. Loads and equipment"),
            PARA("11-1", """Payload. The maximum payload of the KT-200 is 1,150 kg, including the driver,
            passengers and the fitted shelving (85 kg). The maximum roof load is 150 kg, including
            the roof rack."""),
            PARA("11-2", """Towing. The maximum braked trailer load is 2,000 kg and the maximum unbraked
            trailer load is 750 kg. Towing requires the driver to hold the appropriate licence
            class."""),
            PARA("11-3", """Load securing. A washing machine must be transported upright, with transport
            bolts fitted, and secured with two lashing straps to the lashing rails. Never transport
            an appliance lying on its front or back."""),
            PARA("11-4", """Safety equipment. Each van carries a first-aid kit, a warning triangle, two
            high-visibility vests and a 2 kg powder fire extinguisher. The fire extinguisher is
            inspected every 2 years."""),
            H1("Appendix A. Fluids and capacities"),
            TABLE(["Fluid", "Specification", "Capacity"], [
                ["Engine oil (with filter)", "SAE 5W-30, ACEA C2 / KS-504", "4.7 litres"],
                ["Coolant", "KLC-5, 50/50 with demineralised water", "7.8 litres"],
                ["Brake fluid", "DOT 4", "approx. 1.0 litre"],
                ["Windscreen washer fluid", "Summer or winter screenwash", "4.5 litres"],
                ["Fuel", "Unleaded petrol, min. 95 RON", "70 litres"],
            ], [2.2, 2.8, 1.4]),
        ],
    )


def doc_warranty():
    return dict(
        file="warranty-policy.pdf", lang="en", code="CS-WAR-010", revision="Rev 3.1",
        date="1 February 2024", date_iso="2024-02-01", owner="Customer Service Operations",
        title="Northwind Appliance Warranty",
        subtitle="Manufacturer's warranty for AquaLine washing machines and Northwind accessories",
        blocks=[
            H1("1. Who gives this warranty"),
            P("""This manufacturer's warranty is given by Northwind Appliances & Services GmbH, Speicherstraße
            14, 20457 Hamburg, Germany, for AquaLine washing machines and Northwind accessories bought
            new from Northwind or from an authorised Northwind dealer. It is valid in every country to
            which Northwind delivers, as listed in the Shipping Policy."""),
            P("""The warranty is given in addition to your statutory rights against the seller, which
            it does not limit. Claims under the statutory guarantee can be made whether or not the
            conditions of this warranty are met."""),
            H1("2. Warranty periods"),
            P("""AquaLine washing machines are covered for 2 years on all components. The inverter motor is
            covered for 5 years. All warranty periods start on the date of delivery shown on the
            delivery note; if the delivery date cannot be shown, the date of the invoice applies."""),
            TABLE(["Product or component", "Warranty period", "What is covered"], [
                ["AquaLine washing machine (all components)", "2 years", "Parts and labour"],
                ["Inverter motor of AquaLine washing machines", "5 years",
                 "Parts; labour is included in the first 2 years only"],
                ["Accessories (hoses, stacking kit, anti-vibration feet)", "1 year", "Replacement part"],
                ["Parts fitted during a paid repair", "12 months", "Parts and labour for that repair"],
            ], [2.6, 1.3, 2.5]),
            P("""The motor warranty covers the motor itself: the stator, the rotor and the motor
            electronics. It does not cover the drive belt, the drum bearings or the control board of
            the appliance, which are covered for 2 years like all other components."""),
            P("""For repairs after the warranty has ended, customers can buy a CarePlus service contract
            (see the CarePlus Cancellation Policy for the available contracts)."""),
            H1("3. What the warranty covers"),
            P("""During the warranty period Northwind repairs, free of charge, any defect that is caused
            by a fault in materials or manufacture. We decide whether the defect is repaired or the
            defective part is replaced. Replaced parts become the property of Northwind."""),
            P("""If the same defect cannot be repaired after 3 repair attempts, or if a repair is not
            economically reasonable, we replace the appliance with the same or an equivalent model.
            A repair or replacement does not extend or restart the warranty period; a replacement
            appliance is covered for the remainder of the original period."""),
            H1("4. Exclusions"),
            P("""The warranty does not cover damage or malfunctions caused by the following:"""),
            OL("""Installation that does not follow the installation instructions, in particular
            operating the machine with the transport bolts still fitted.""",
               """Connection to a water supply outside the permitted pressure range of 0.5 to 10 bar,
               or to an unsuitable electrical supply.""",
               """Limescale damage where the water hardness is above 14 °dH and no water softener or
               descaling product was used.""",
               """Blockage of the drain filter or the drain pump by foreign objects such as coins,
               buttons, hairpins or underwire from bras.""",
               """Commercial use, for example in laundrettes, hotels, hair salons or shared laundry
               rooms of more than 6 households.""",
               """Cosmetic damage to the appliance that is not reported within 7 days of delivery.""",
               """Consumables and wearing parts: door seal, detergent drawer, filters, light bulbs and
               fuses.""",
               """Repairs or modifications by persons not authorised by Northwind, and the use of spare
               parts that are not original Northwind parts."""),
            H1("5. How to make a warranty claim"),
            P("""Report the defect to Northwind customer service on +49 40 5550 1200 (Monday to Friday
            8:00 to 18:00, Saturday 9:00 to 14:00 CET), in the HomeHub app or at
            support@northwind-appliances.example. Please have the following ready:"""),
            UL("""the model number, for example WM-820;""",
               """the serial number, which starts with NW followed by 10 digits and is printed on the
               label on the inside of the door frame;""",
               """the proof of purchase (invoice or delivery note);""",
               """the error code shown on the display, if any."""),
            P("""A service engineer visits within 3 business days in Germany and within 5 business days
            in the other delivery countries. For the visit, the appliance must be accessible; the
            engineer does not move built-in appliances out of kitchen units."""),
            H1("6. Repairs outside the warranty"),
            P("""Repairs that are not covered by the warranty or by a CarePlus contract are charged at
            the standard rates: a call-out fee of €89, labour at €72 per hour billed in 15-minute
            increments after the first hour, and parts at the current list price. The engineer gives
            a cost estimate before starting work; repairs above €150 require the customer's
            approval."""),
            P("""Spare parts that are needed for repairs remain available for 10 years after the last
            unit of a model was produced."""),
            H1("7. Where the warranty applies"),
            P("""The warranty applies to appliances installed and used in a country to which Northwind
            delivers. If an appliance is moved to another country, it must be installed there
            according to local electrical and water standards. In countries to which Northwind does
            not deliver, the warranty is limited to the supply of spare parts."""),
        ],
    )


def doc_specifications():
    return dict(
        file="product-specifications.pdf", lang="en", code="PRD-AQ-2024", revision="Rev 1.3",
        date="15 January 2024", date_iso="2024-01-15", owner="Product Management, Laundry",
        title="AquaLine Washing Machines: Technical Specifications",
        subtitle="AquaLine 7 (WM-700), AquaLine 8 Pro (WM-820) and AquaLine 9 Steam (WM-910), model year 2024",
        blocks=[
            H1("1. Model overview"),
            P("""The AquaLine range consists of three front-loading washing machines with the same
            cabinet width of 600 mm and the same height of 850 mm, so that all three fit under a
            standard kitchen worktop. All models use a brushless inverter motor and have a stainless
            steel drum."""),
            UL("""AquaLine 7 (WM-700): the entry model with 7 kg capacity and mechanical programme
               selector.""",
               """AquaLine 8 Pro (WM-820): 8 kg capacity, touch display and HomeHub connectivity.""",
               """AquaLine 9 Steam (WM-910): 9 kg capacity, steam programmes, automatic dosing and
               HomeHub connectivity."""),
            H1("2. Key specifications"),
            TABLE(["Specification", "AquaLine 7 (WM-700)", "AquaLine 8 Pro (WM-820)", "AquaLine 9 Steam (WM-910)"], [
                ["Load capacity", "7 kg", "8 kg", "9 kg"],
                ["Maximum spin speed", "1200 rpm", "1400 rpm", "1600 rpm"],
                ["Energy efficiency class", "B", "A", "A"],
                ["Energy per 100 cycles (Eco 40-60)", "59 kWh", "49 kWh", "52 kWh"],
                ["Water per cycle (Eco 40-60)", "46 litres", "48 litres", "52 litres"],
                ["Noise during spin", "76 dB(A)", "72 dB(A)", "71 dB(A)"],
                ["Depth", "550 mm", "590 mm", "620 mm"],
                ["Net weight", "63 kg", "70 kg", "76 kg"],
                ["Number of programmes", "14", "16", "18"],
                ["HomeHub (Wi-Fi 2.4 GHz)", "Not available", "Built in", "Built in"],
                ["Recommended retail price", "€499", "€699", "€899"],
            ], [2.3, 1.6, 1.6, 1.7]),
            P("""Energy values are measured on the Eco 40-60 programme at rated capacity according to
            Regulation (EU) 2019/2014. Height 850 mm and width 600 mm are the same for all models;
            the depth includes the door and the connections at the back."""),
            H1("3. Programmes"),
            P("""The WM-910 offers 18 programmes. The most important are listed below; the WM-700 and
            WM-820 offer the same programmes except the two steam programmes and Allergy Care."""),
            TABLE(["Programme", "Maximum temperature", "Maximum load (WM-910)", "Duration"], [
                ["Cotton", "90 °C", "9 kg", "2 h 59 min at 60 °C"],
                ["Eco 40-60", "60 °C", "9 kg", "3 h 38 min"],
                ["Synthetics", "60 °C", "4 kg", "1 h 52 min at 40 °C"],
                ["Wool / Hand wash", "40 °C", "2 kg", "52 min"],
                ["Quick 15'", "30 °C", "2 kg", "15 min"],
                ["Steam Refresh", "Steam only", "1.5 kg", "20 min"],
                ["Allergy Care", "60 °C", "4.5 kg", "2 h 20 min"],
                ["Drum Clean", "90 °C", "No laundry", "1 h 45 min"],
            ], [2.0, 1.6, 1.8, 1.8]),
            P("""Allergy Care keeps the wash temperature at 60 °C for at least 45 minutes and adds an extra
            rinse. It is certified by the European Centre for Allergy Research Foundation (ECARF)."""),
            H1("4. Installation and connection data"),
            TABLE(["Parameter", "Value"], [
                ["Electrical supply", "220-240 V, 50 Hz"],
                ["Fuse", "10 A"],
                ["Maximum connected load", "2,300 W"],
                ["Water pressure", "0.5-10 bar (0.05-1 MPa)"],
                ["Water inlet connection", "3/4 inch thread, cold water only"],
                ["Inlet hose length", "1.5 m"],
                ["Drain hose length", "1.5 m"],
                ["Drain height", "60-100 cm above the floor"],
            ], [2, 3]),
            P("""The WM-910 is supplied with an Aquastop inlet hose that closes the water supply
            automatically if the hose leaks. The WM-700 and WM-820 can be retrofitted with the
            Aquastop hose AS-15 (€34)."""),
            H1("5. Features"),
            UL("""Automatic dosing (WM-910 only): two tanks for liquid detergent (1.3 litres) and fabric
            conditioner (0.5 litres), enough for up to 20 wash cycles.""",
               """Delay start: up to 24 hours on all models.""",
               """Child lock on all models: hold the Temp and Spin buttons together for 3 seconds.""",
               """Load sensing: the WM-820 and WM-910 weigh the laundry and reduce water and energy use
               for partial loads."""),
            H1("6. Accessories"),
            TABLE(["Accessory", "Article number", "Price"], [
                ["Stacking kit for a Northwind dryer", "SK-60", "€39"],
                ["Anti-vibration feet (set of 4)", "AV-4", "€24"],
                ["Aquastop inlet hose", "AS-15", "€34"],
                ["Pedestal with drawer, 30 cm", "PD-30", "€129"],
            ], [3, 1.5, 1]),
            H1("7. Spare parts and sustainability"),
            P("""Spare parts are available for 10 years after the last unit of a model was produced.
            The packaging is made of 95% recyclable material; the polystyrene corners were replaced by
            moulded cardboard in 2023."""),
        ],
    )


def doc_employee_handbook():
    return dict(
        file="employee-handbook.pdf", lang="en", code="HR-HB-001", revision="Rev 6",
        date="1 January 2024", date_iso="2024-01-01", owner="People & Culture",
        title="Employee Handbook",
        subtitle="Working at Northwind: hours, leave, benefits and conduct (employees in Germany)",
        blocks=[
            H1("1. About this handbook"),
            P("""This handbook summarises the most important rules for employees of Northwind Appliances
            & Services GmbH in Germany. It does not replace the employment contract, the works
            agreements or the law. If this handbook and a works agreement differ, the works agreement
            applies. Questions go to People & Culture at people@northwind-appliances.example."""),
            H1("2. Working time"),
            P("""The regular working time for full-time employees is 38.5 hours per week, Monday to
            Friday. Office employees work flexitime with core hours from 10:00 to 15:00, during which
            they are expected to be available. Working time is recorded in the TimeNord system."""),
            P("""Field-service engineers work in shifts between 7:00 and 19:00 according to the monthly
            roster. Saturday shifts are paid with a supplement of 25%; work on Sundays and public
            holidays requires the approval of the Head of Field Service and is paid with a
            supplement of 50%."""),
            P("""Overtime must be approved in advance by the line manager. Up to 40 hours of overtime can
            be carried in the flexitime account; hours above that must be taken as time off within
            3 months."""),
            H1("3. Remote work"),
            P("""Office employees may work remotely on up to 3 days per week after agreeing the days with
            their team. Remote work from another country is allowed for up to 20 working days per
            calendar year and must be registered with People & Culture in advance, because it can
            have tax and social-security consequences."""),
            P("""Northwind pays a monthly remote-work allowance of €30 to employees who work remotely on
            at least 8 days in the month. Equipment (laptop, headset, second monitor) is provided by
            IT and remains company property."""),
            H1("4. Leave"),
            H2("4.1 Annual leave"),
            P("""Full-time employees are entitled to 28 working days of paid annual leave per calendar
            year. Part-time employees receive leave in proportion to their working days. In addition,
            24 December and 31 December are paid days off."""),
            P("""Leave is requested in TimeNord at least 2 weeks in advance for periods of up to
            5 days, and at least 6 weeks in advance for longer periods. Up to 5 days of unused leave
            can be carried over into the next year; carried-over days must be taken by 31 March."""),
            H2("4.2 Special leave"),
            TABLE(["Occasion", "Paid days off"], [
                ["Own wedding or registered partnership", "2 days"],
                ["Birth of a child (second parent)", "2 days"],
                ["Death of a spouse, partner, child or parent", "3 days"],
                ["Moving house (once per calendar year)", "1 day"],
                ["Volunteer day for a charity chosen by the employee", "1 day"],
            ], [3.2, 1.2]),
            H2("4.3 Sickness"),
            P("""Employees who are unable to work because of illness inform their line manager by 9:00 on
            the first day of absence. A medical certificate is required from the third calendar day
            of illness. In Germany most certificates are transmitted electronically by the doctor;
            the employee only needs to confirm the absence in TimeNord."""),
            H2("4.4 Parental leave"),
            P("""Parental leave follows the German Federal Parental Allowance and Parental Leave Act.
            Employees request it in writing at least 7 weeks before it starts. Northwind tops up the
            statutory parental allowance to 80% of net salary for the first 2 months of parental
            leave taken by each parent."""),
            H1("5. Probation and notice"),
            P("""The probationary period is 6 months. During probation either party can terminate the
            employment with 2 weeks' notice. After probation, the statutory notice periods apply
            unless the employment contract provides for longer ones."""),
            H1("6. Pay and benefits"),
            UL("""Salaries are paid on the last business day of each month.""",
               """A company pension scheme: Northwind adds 20% to every euro that an employee converts
               from salary, up to 4% of salary.""",
               """A personal training budget of €1,200 per calendar year for courses and conferences
               related to the job, approved by the line manager.""",
               """Bicycle leasing through salary conversion for up to 2 bicycles per employee.""",
               """Staff discount of 25% on Northwind appliances, for up to 3 appliances per calendar
               year.""",
               """A public-transport job ticket, subsidised with €30 per month."""),
            H1("7. Code of conduct"),
            H2("7.1 Gifts and invitations"),
            P("""Employees may accept gifts from business partners only up to a value of €35 per gift
            and partner per year. Gifts of higher value are declined or reported to Compliance.
            Cash and vouchers that can be exchanged for cash are never accepted."""),
            H2("7.2 Speaking up"),
            P("""Concerns about breaches of law or of this code can be raised with the line manager,
            with Compliance at compliance@northwind-appliances.example, or anonymously through the
            whistleblowing portal, which is operated by an external ombudsperson. Reports are
            acknowledged within 7 days. Retaliation against anyone who raises a concern in good faith
            is a disciplinary offence."""),
            H2("7.3 Information security"),
            P("""Passwords must have at least 12 characters. Multi-factor authentication is mandatory for
            e-mail, HomeHub administration tools and remote access. Lost or stolen laptops and
            phones are reported to the IT service desk on +49 40 5550 1600 immediately, at any time
            of day."""),
            P("""Customer data is accessed only as far as the task requires. Customer data must never be
            copied to private devices or private cloud storage."""),
            H1("8. Company vehicles"),
            P("""Field-service engineers use vans from the Northwind fleet. Private use of fleet vans is
            not permitted, except for the journey between home and the first or last customer
            appointment of the day when the engineer is on standby. The Fleet Maintenance Manual
            describes the daily checks that drivers must carry out."""),
            P("""Traffic fines incurred with a company vehicle are paid by the driver. Accidents are
            reported to the fleet hotline on +49 40 5550 1450 on the same day."""),
            H1("9. Travel and expenses"),
            P("""Business travel, hotel limits, daily allowances and expense claims are governed by the
            Travel and Expense Policy (HR-POL-07)."""),
        ],
    )


def doc_shipping():
    return dict(
        file="shipping-policy.html", lang="en", code="CS-SHP-003", revision="Rev 3.0",
        date="15 February 2024", date_iso="2024-02-15", owner="Logistics",
        title="Shipping Policy",
        blocks=[
            H1("Where we deliver"),
            P("""We deliver to the 13 countries listed in the table below. We cannot deliver to any other
            country, to Packstations or to PO boxes. Washing machines are delivered by a two-person
            crew of our freight partner Nordfracht Logistik; parcels (accessories, spare parts,
            detergents) are sent with DHL."""),
            H1("Delivery times and standard shipping costs"),
            P("""Delivery times are counted in business days (Monday to Friday, excluding public holidays
            in the destination country) from the day the order is dispatched. Orders placed before
            14:00 CET on a business day are dispatched on the same day."""),
            TABLE(["Country", "Standard delivery", "Express delivery", "Standard shipping"], [
                ["Germany", "2-3 business days", "Next business day", "Free"],
                ["Austria", "3-4 business days", "2 business days", "€9.90"],
                ["Netherlands", "3-4 business days", "2 business days", "€9.90"],
                ["Belgium", "3-4 business days", "2 business days", "€9.90"],
                ["Luxembourg", "3-4 business days", "2 business days", "€9.90"],
                ["France", "3-4 business days", "2 business days", "€12.90"],
                ["Denmark", "4-5 business days", "2 business days", "€14.90"],
                ["Poland", "4-6 business days", "3 business days", "€14.90"],
                ["Italy", "5-7 business days", "3 business days", "€19.90"],
                ["Spain", "5-7 business days", "3 business days", "€19.90"],
                ["Switzerland", "5-7 business days", "3 business days", "€29.90"],
                ["United Kingdom", "6-8 business days", "4 business days", "€29.90"],
                ["United States", "7-10 business days", "5 business days", "€49.90"],
            ]),
            P("""Standard shipping to EU countries is free for orders over €500. Express delivery costs a
            surcharge of €19.90 on top of the standard shipping cost, except for the United States,
            where express delivery costs €89.00 in total. Express delivery is available for parcels
            only; washing machines are always delivered by the standard freight service."""),
            H1("Customs and import duties"),
            P("""Deliveries to Switzerland, the United Kingdom and the United States are made outside the
            EU customs territory. Import duties and import taxes are charged by the carrier to the
            recipient on delivery and are not included in our prices. We provide the commercial
            invoice with every shipment."""),
            P("""Washing machines delivered to the United States and the United Kingdom are the local
            versions with the required plug and, for the United States, a 120 V compatible control
            board."""),
            H1("Delivery of washing machines"),
            P("""Our freight partner contacts you by e-mail or text message to agree a delivery day. On the
            day before delivery you receive a 4-hour time window. The crew carries the appliance to
            the room of your choice and takes the packaging away. Additional services such as
            installation and removal of an old appliance can be booked at checkout in Germany and
            Austria."""),
            P("""If nobody is at home, the crew makes a second attempt on another day. After two failed
            attempts the appliance is returned to the depot and held there for 7 days; a third
            delivery costs €39."""),
            H1("Tracking your order"),
            P("""You receive a tracking link by e-mail within 24 hours of dispatch. You can also follow the
            delivery under My account, then Orders. Parcels to Packstations and PO boxes are not
            accepted, because a signature is required on delivery."""),
            H1("Damaged or incomplete deliveries"),
            P("""Please check the packaging in the presence of the delivery crew and note any visible
            damage on the delivery note. Report damage to the appliance or missing parts to customer
            service within 7 days of delivery, with photos of the damage and of the packaging."""),
            UL("""Telephone: +49 40 5550 1200 (Monday to Friday 8:00 to 18:00, Saturday 9:00 to 14:00
               CET)""",
               """E-mail: shipping@northwind-appliances.example""",
               """Web form: Support, then Report a delivery problem"""),
        ],
    )


def doc_privacy():
    return dict(
        file="privacy-policy.docx", lang="en", code="LEG-PRV-001", revision="Rev 3.1",
        date="1 April 2024", date_iso="2024-04-01", owner="Data Protection Officer",
        title="Privacy Policy",
        subtitle="How Northwind processes personal data of customers, HomeHub users and website visitors",
        blocks=[
            H1("1. Controller"),
            P("""The controller responsible for the processing of personal data described in this policy
            is Northwind Appliances & Services GmbH, Speicherstraße 14, 20457 Hamburg, Germany,
            e-mail privacy@northwind-appliances.example."""),
            H1("2. Data Protection Officer"),
            P("""Our Data Protection Officer is Dr. Katrin Vogel. You can contact her at
            dpo@northwind-appliances.example or by post at Northwind Appliances & Services GmbH,
            Data Protection Officer, Speicherstraße 14, 20457 Hamburg. Letters marked
            "Confidential - Data Protection Officer" are opened only by the Data Protection Officer."""),
            H1("3. What data we process"),
            H2("3.1 Customer and order data"),
            P("""When you buy from us we process your name, delivery and billing address, e-mail address,
            telephone number, order history and payment information. Card numbers are processed by
            our payment service provider PayNord Payments and are never stored by Northwind."""),
            H2("3.2 HomeHub and appliance data"),
            P("""Connected appliances send operating data to HomeHub: programme selections, cycle start
            and end times, energy and water consumption, error codes and the firmware version.
            We use this data to provide the remote functions, to show your cycle history and, with
            remote diagnostics, to identify faults before an engineer visits."""),
            H2("3.3 Service data"),
            P("""For service visits we process the appliance's model and serial number, the fault
            description, the engineer's report, photos of the installation and your signature."""),
            H2("3.4 Website data"),
            P("""When you visit our website, our servers record your IP address, the pages requested, the
            date and time and your browser type. Analytics cookies are set only with your consent and
            expire after 13 months."""),
            H1("4. Purposes and legal bases"),
            TABLE(["Purpose", "Legal basis"], [
                ["Processing orders, deliveries and payments", "Art. 6(1)(b) GDPR (contract)"],
                ["Providing HomeHub and remote diagnostics", "Art. 6(1)(b) GDPR (contract)"],
                ["Invoices and accounting records", "Art. 6(1)(c) GDPR (legal obligation)"],
                ["Product safety recalls", "Art. 6(1)(c) GDPR (legal obligation)"],
                ["Improving our appliances with anonymised usage statistics", "Art. 6(1)(f) GDPR (legitimate interest)"],
                ["Newsletter and marketing e-mails", "Art. 6(1)(a) GDPR (consent)"],
                ["Recording customer service calls", "Art. 6(1)(a) GDPR (consent)"],
            ]),
            H1("5. How long we keep data"),
            P("""We delete personal data when it is no longer needed for the purpose for which it was
            collected, unless the law requires us to keep it longer. The following retention periods
            apply:"""),
            TABLE(["Data category", "Retention period"], [
                ["Customer account data", "Until 3 months after the account is closed"],
                ["Invoices and accounting records", "10 years"],
                ["Business letters and e-mails", "6 years"],
                ["HomeHub appliance operating data", "24 months, then anonymised"],
                ["Recordings of customer service calls", "90 days"],
                ["Service visit reports", "3 years after the visit"],
                ["Job application documents", "6 months after the application process ends"],
                ["Website server logs", "7 days"],
                ["Proof of marketing consent", "3 years after the consent is withdrawn"],
            ]),
            P("""The 10-year period for invoices and the 6-year period for business letters follow from
            German commercial and tax law (section 257 of the German Commercial Code and section 147
            of the German Fiscal Code)."""),
            H1("6. Recipients and processors"),
            P("""We share personal data only where it is necessary: with our freight partner Nordfracht
            Logistik and with DHL for deliveries, with PayNord Payments for payments, with authorised
            service partners for repairs, and with our hosting provider, whose data centres are in
            Frankfurt am Main. All processors are bound by data processing agreements under Art. 28
            GDPR."""),
            H1("7. Transfers outside the EU"),
            P("""HomeHub data is stored in the EU. Data is transferred to a country outside the EU or the
            EEA only when you order a delivery to the United Kingdom, Switzerland or the United
            States, and only to the carrier and the customs authorities. For the United States we
            use the EU standard contractual clauses."""),
            H1("8. Your rights"),
            P("""Under the GDPR you have the following rights regarding your personal data:"""),
            ("ul", [
                "Right of access (Art. 15 GDPR): a copy of the data we hold about you.",
                "Right to rectification (Art. 16 GDPR): correction of inaccurate data.",
                "Right to erasure (Art. 17 GDPR): deletion of your data where there is no reason to keep it.",
                "Right to restriction of processing (Art. 18 GDPR).",
                "Right to data portability (Art. 20 GDPR): your data in a machine-readable format.",
                "Right to object (Art. 21 GDPR) to processing based on legitimate interest and to direct marketing.",
                "Right to withdraw consent at any time, with effect for the future.",
            ]),
            P("""We answer requests within one month of receipt. For complex or numerous requests this
            period can be extended by two further months; we will tell you within the first month if
            that is the case. HomeHub users can download their cycle history and account data
            themselves under Settings, Privacy, Export my data."""),
            H1("9. Complaints"),
            P("""You have the right to lodge a complaint with a data protection supervisory authority. The
            authority responsible for Northwind is the Hamburg Commissioner for Data Protection and
            Freedom of Information."""),
            H1("10. Security"),
            P("""All connections between the HomeHub app, connected appliances and our servers are
            encrypted with TLS 1.2 or higher. Northwind's information security management system has
            been certified to ISO/IEC 27001 since 2022. HomeHub accounts can be protected with
            two-factor authentication."""),
            H1("11. Children"),
            P("""HomeHub accounts and household memberships are available only to persons aged 16 or
            over. We do not knowingly collect data from children under 16."""),
            H1("12. Changes to this policy"),
            P("""We update this policy when our processing changes. The current version is always
            available on our website and in the HomeHub app. We inform registered customers by e-mail
            about significant changes."""),
        ],
    )


def doc_faq():
    def qa(q, a):
        return [H2(q), P(a)]

    blocks = [H1("Orders and payment")]
    blocks += qa("Which payment methods can I use in the online shop?",
                 """You can pay by Visa, Mastercard, American Express, PayPal or bank transfer. For orders
                 over €400 we also offer 0% financing over 12 months through PayNord Payments.""")
    blocks += qa("Can I change the delivery address after ordering?",
                 """Yes, as long as the order has not been dispatched. Call customer service on
                 +49 40 5550 1200 and have your order number ready; it starts with NWO- followed by
                 8 digits.""")
    blocks += qa("Do you sell gift cards?",
                 """Yes. Digital gift cards are available for amounts from €25 to €500 and are valid for
                 3 years from the date of purchase. They cannot be used to pay for HomeHub
                 subscriptions.""")
    blocks += qa("Do you offer discounts for business customers?",
                 """Businesses that buy 5 or more appliances receive a volume offer. Write to
                 b2b@northwind-appliances.example with the models and quantities you need.""")
    blocks += [H1("Returns")]
    blocks += qa("Can I return a washing machine?",
                 """Yes. You can return an unused appliance in its original packaging within 28 days of
                 delivery and receive the full purchase price. Collection of the return is free in
                 Germany; in all other delivery countries we charge €49 for the collection.""")
    blocks += qa("How quickly will I get my money back after a return?",
                 """We refund the purchase price within 5 business days after the returned appliance has
                 arrived at our warehouse in Hamburg and has been checked.""")
    blocks += [H1("Delivery and installation")]
    blocks += qa("Can the delivery crew install my new washing machine?",
                 """Yes. In Germany and Austria you can book installation and connection for €49 at
                 checkout. The crew removes the transport bolts, connects the machine to the existing
                 water inlet and drain, levels it and runs a short test.""")
    blocks += qa("Will you take my old washing machine away?",
                 """Yes. When you book the removal service at checkout for €25, the crew takes your old
                 appliance away for recycling on the day of delivery. It must be disconnected and
                 drained before the crew arrives.""")
    blocks += qa("How do I track my order?",
                 """You receive a tracking link by e-mail within 24 hours of dispatch. You can also follow
                 the status under My account, then Orders.""")
    blocks += [H1("Using your washing machine")]
    blocks += qa("How do I clear an error code from the display?",
                 """Fix the cause first (see the error code guide), then press and hold the Start/Pause
                 button for 5 seconds. The display returns to the programme selection.""")
    blocks += qa("How do I switch the child lock on and off?",
                 """Hold the Temp and Spin buttons together for 3 seconds. A key symbol on the display
                 shows that the child lock is active. The child lock stays active when the machine is
                 switched off.""")
    blocks += qa("Which detergent should I use?",
                 """Use a low-foaming detergent suitable for front-loading machines. Liquid detergent is
                 best for the automatic dosing of the AquaLine 9 Steam; never put powder detergent into
                 the dosing tanks.""")
    blocks += qa("How often should I clean the drain filter?",
                 """Clean the drain filter every 3 months, and immediately if the machine drains slowly or
                 shows error E20. Coins, hairpins and buttons in the filter are the most common cause of
                 drainage problems.""")
    blocks += qa("My washing machine smells musty. What can I do?",
                 """Run the Drum Clean programme at 90 °C without laundry once a month and leave the door
                 and the detergent drawer slightly open after each wash so that the drum can dry.""")
    blocks += qa("Where can I find the serial number?",
                 """The serial number is printed on the label on the inside of the door frame. It starts
                 with NW followed by 10 digits.""")
    blocks += qa("Where are AquaLine washing machines made?",
                 """All AquaLine washing machines are assembled at our partner plant in Wrocław, Poland.
                 The inverter motors are made in Brno, Czech Republic.""")
    blocks += [H1("HomeHub app")]
    blocks += qa("Which phones does the HomeHub app support?",
                 """The HomeHub app requires Android 10 or later or iOS 15 or later. It is available in
                 Google Play and in the App Store.""")
    blocks += qa("Why can't my washing machine connect to my Wi-Fi?",
                 """AquaLine washing machines connect only to 2.4 GHz Wi-Fi networks; 5 GHz networks are
                 not supported. Check that your router broadcasts a 2.4 GHz network and that the machine
                 is within range.""")
    blocks += qa("Does my washing machine still work if HomeHub is down?",
                 """Yes. All programmes can be started on the machine itself. Only remote start, remote
                 monitoring and notifications need HomeHub.""")
    blocks += qa("Can several people in my family use HomeHub?",
                 """With Premium, the Subscriber can invite up to 5 household members, each with their
                 own login. A Standard subscription has one login.""")
    blocks += qa("How do I delete my HomeHub account?",
                 """Open Settings, then Account, then Delete account in the HomeHub app. Cancel a paid
                 subscription first; an account with an active paid subscription cannot be deleted.""")
    blocks += [H1("Service and repairs")]
    blocks += qa("How do I book a repair?",
                 """Call customer service, use the HomeHub app or the web form under Support. In Germany an
                 engineer usually visits within 3 business days.""")
    blocks += qa("What does a repair cost after the warranty?",
                 """Outside the warranty we charge a call-out fee of €89 plus labour and parts. With a
                 CarePlus contract, repairs are covered at no extra cost.""")
    blocks += qa("What are your customer service hours?",
                 """Customer service is available by telephone on +49 40 5550 1200 from Monday to Friday,
                 8:00 to 18:00, and on Saturday from 9:00 to 14:00 (CET). E-mails to
                 support@northwind-appliances.example are answered within 1 business day.""")
    return dict(
        file="faq.md", lang="en", code="CS-FAQ-001", revision="Rev 12",
        date="2 May 2024", date_iso="2024-05-02", owner="Customer Service Operations",
        title="Frequently Asked Questions",
        subtitle="Short answers to the questions our customer service hears most often.",
        blocks=blocks,
    )


def doc_travel_policy():
    return dict(
        file="travel-expense-policy.docx", lang="en", code="HR-POL-07", revision="Rev 2.3",
        date="1 January 2024", date_iso="2024-01-01", owner="Finance and People & Culture",
        title="Travel and Expense Policy",
        subtitle="Business travel, accommodation, allowances and expense claims",
        blocks=[
            H1("1. Scope"),
            P("""This policy applies to all employees of Northwind Appliances & Services GmbH who travel on
            company business, including field-service engineers on overnight assignments. Travel
            should be avoided where a video call achieves the same purpose."""),
            H1("2. Approval"),
            TABLE(["Trip", "Approved by"], [
                ["Domestic trip (within Germany)", "Line manager"],
                ["International trip", "Head of department"],
                ["Any trip with estimated costs above €2,500", "Head of Finance"],
                ["Business class flight", "Head of Finance"],
            ]),
            P("""Trips are approved in the travel portal TravelNord before anything is booked. Bookings
            made outside TravelNord are reimbursed only if they were cheaper than the TravelNord
            offer at the time of booking."""),
            H1("3. Transport"),
            H2("3.1 Rail"),
            P("""Rail is the preferred means of transport for trips within Germany. Employees travel in
            second class; first class is allowed for journeys with a scheduled travel time of
            4 hours or more in one direction."""),
            H2("3.2 Air"),
            P("""Flights are booked in economy class for flights with a scheduled duration of under
            6 hours and in premium economy for longer flights. Flights must be booked at least 10 days
            before departure unless the trip was arranged at shorter notice. Domestic flights are
            allowed only where the train journey would take more than 5 hours."""),
            H2("3.3 Cars"),
            P("""Rental cars are booked in the compact class. Employees who use their private car for a
            business trip receive €0.30 per kilometre driven. Trips of more than 500 km by private car
            need the line manager's prior approval. Fleet vans may be used for business trips only by
            field-service engineers."""),
            H1("4. Accommodation"),
            P("""Hotels are booked through TravelNord. The following maximum rates per night apply,
            including breakfast where available:"""),
            TABLE(["Location", "Maximum per night"], [
                ["Berlin, Frankfurt, Hamburg, Munich", "€150"],
                ["Other cities in Germany", "€110"],
                ["London, Paris", "€220"],
                ["Zurich", "€240"],
                ["Cities in the United States", "USD 250"],
                ["Other locations abroad", "€130"],
            ]),
            P("""Higher rates during trade fairs must be approved by the head of department before the
            booking. Private accommodation booked through platforms is allowed if it is cheaper than
            the hotel limit and an invoice in the company's name is issued."""),
            H1("5. Daily allowances"),
            P("""For trips within Germany, Northwind pays the tax-free daily allowances for meals:
            €28 for each full day of absence of 24 hours, and €14 for the day of arrival and the day
            of departure and for day trips with an absence of more than 8 hours. If a meal is provided
            (for example breakfast included in the hotel rate), the allowance is reduced by 20% of
            the full-day amount for breakfast and by 40% each for lunch and dinner. Allowances for
            trips abroad follow the rates published by the German Federal Ministry of Finance."""),
            H1("6. Business entertainment and other costs"),
            UL("""Business meals with customers or partners: up to €60 per person, including drinks;
            the names of all participants and the purpose are stated on the claim.""",
               """Alcohol is reimbursed only as part of business entertainment.""",
               """Taxis are reimbursed when public transport is not reasonable, for example between
               22:00 and 6:00 or with heavy luggage.""",
               """Mobile data and roaming charges are covered by the company phone contract; private
               phones are not reimbursed.""",
               """Laundry costs are reimbursed for trips of more than 5 consecutive nights."""),
            H1("7. Corporate credit cards"),
            P("""Employees who travel more than 6 times a year receive a corporate credit card with a
            monthly limit of €3,000. The card may not be used for private purchases or for cash
            withdrawals above €200 per trip."""),
            H1("8. Expense claims"),
            P("""Expense claims are submitted in TravelNord within 2 months after the end of the trip,
            with receipts for every item above €10. Approved claims are reimbursed with the next
            monthly salary payment. Claims submitted later than 6 months after the trip are not
            reimbursed."""),
            H1("9. Travel safety and insurance"),
            P("""All business travellers are covered by the company's travel health and accident
            insurance. The 24-hour travel emergency line is +49 40 5550 1777. Trips to countries with
            a travel warning from the German Federal Foreign Office require the approval of the Head
            of Finance and of People & Culture."""),
        ],
    )


def doc_safety():
    return dict(
        file="safety-instructions.txt", lang="en", code="PRD-SAF-700", revision="Rev 5",
        date="15 January 2024", date_iso="2024-01-15", owner="Product Safety",
        title="Safety Instructions for AquaLine Washing Machines",
        subtitle="Read these instructions before installing and using the appliance. Keep them for later use.",
        blocks=[
            H1("1. Intended use"),
            P("""AquaLine washing machines are intended only for washing textiles that are labelled as
            machine washable, in private households and similar environments such as staff kitchens
            and holiday homes. Any other use is improper and can be dangerous."""),
            P("""The appliance must be installed indoors in a frost-free room. Water left in the appliance
            can freeze and damage it at temperatures below 0 °C."""),
            H1("2. Children and vulnerable persons"),
            UL("""Children under 8 years of age must be kept away from the appliance unless they are
               continuously supervised.""",
               """Children aged 8 and over, and persons with reduced physical, sensory or mental
               capabilities, may use the appliance only if they are supervised or have been instructed
               in its safe use and understand the hazards involved.""",
               """Children must not play with the appliance. Cleaning and user maintenance must not be
               carried out by children without supervision.""",
               """Keep packaging, plastic film and detergents out of the reach of children. There is a
               risk of suffocation and of poisoning.""",
               """Use the child lock to prevent children from changing a running programme."""),
            H1("3. Electrical safety"),
            OL("""Connect the appliance only to a correctly installed, earthed socket with a supply of
               220-240 V, 50 Hz, protected by a 10 A fuse.""",
               """Do not use extension cables, multiple sockets or adapters.""",
               """After installation, the plug must remain accessible so that the appliance can be
               disconnected from the mains.""",
               """Never pull the plug out by the cable, and never touch the plug with wet hands.""",
               """A damaged power cable may only be replaced by Northwind customer service or a
               similarly qualified person, to avoid danger."""),
            H1("4. Water connection"),
            P("""Connect the appliance to the cold water supply only, with a water pressure between 0.5
            and 10 bar. Use only the new hoses supplied with the appliance; old hoses must not be
            reused."""),
            P("""The Aquastop hose contains an electric valve in its safety housing. Do not cut the Aquastop
            hose and do not immerse the safety housing in water."""),
            H1("5. Before the first use"),
            P("""Remove all 4 transport bolts at the back of the appliance and close the openings with the
            plastic caps supplied. Operating the machine with the transport bolts fitted causes
            serious damage. Keep the transport bolts: they must be refitted whenever the appliance
            is transported."""),
            H1("6. Safe operation"),
            UL("""Do not wash items that have been treated with solvents, petrol, paint thinner or other
               flammable substances. Such items can cause a fire or an explosion.""",
               """Do not open the door when water is visible in the drum. After a programme ends, the
               door lock releases after about 2 minutes.""",
               """The door glass can become very hot during programmes at 60 °C and above. Keep children
               away from the door during the wash.""",
               """Never climb onto the appliance and do not use it as a step.""",
               """Do not exceed the maximum load of the selected programme.""",
               """Dyes and decalcifying agents must be suitable for use in washing machines. Follow the
               manufacturer's instructions."""),
            H1("7. Cleaning and maintenance"),
            P("""Always switch off the appliance and unplug it before cleaning or maintenance. Before
            opening the drain filter, let hot water cool down: water from programmes at high
            temperatures can cause scalding."""),
            P("""Do not clean the appliance with a pressure washer or a steam cleaner."""),
            H1("8. In the event of a fault"),
            P("""If the appliance is damaged, smells of burning, or water leaks from it, unplug it
            immediately, close the water tap and contact Northwind customer service on
            +49 40 5550 1200. Do not use the appliance again until it has been checked."""),
            H1("9. Disposal"),
            P("""At the end of its life, the appliance must not be disposed of with household waste. Take it
            to a collection point for electrical and electronic equipment. When you buy a new
            Northwind appliance, we take back an old appliance of the same type free of charge on
            request at one of our partner collection points."""),
            P("""Before disposal, unplug the appliance, cut off the power cable and remove the door lock so
            that children cannot lock themselves in."""),
        ],
    )


def doc_release_notes():
    return dict(
        file="release-notes.md", lang="en", code="HH-REL-5", revision="5.4.0",
        date="14 May 2024", date_iso="2024-05-14", owner="HomeHub Engineering",
        title="HomeHub App Release Notes",
        subtitle="Changes to the HomeHub app for Android and iOS, newest first.",
        blocks=[
            H1("Version 5.4.0 (14 May 2024)"),
            UL("""New: monthly energy report with the energy and water use of each connected appliance,
               compared with the previous month.""",
               """New: remote start of the Steam Refresh programme on the AquaLine 9 Steam (WM-910).""",
               """Improved: notifications for error codes now include a link to the matching
               troubleshooting steps.""",
               """Fixed: the remaining time shown in the app could differ by up to 10 minutes from
               the time on the appliance display."""),
            H1("Version 5.3.2 (2 April 2024)"),
            UL("""Fixed: on some Android 14 devices the app closed when a household member was invited.""",
               """Fixed: the cycle history did not load for accounts with more than 500 cycles."""),
            H1("Version 5.3.0 (5 March 2024)"),
            UL("""New: dark mode, following the phone's system setting.""",
               """New: two-factor authentication for HomeHub accounts, with an authenticator app or
               text message.""",
               """Changed: the minimum supported versions are now Android 10 and iOS 15. Older
               versions of the app continue to work until 30 June 2024 but receive no updates.""",
               """Improved: pairing a new appliance takes about 40 seconds instead of 2 minutes."""),
            H1("Version 5.2.1 (23 January 2024)"),
            UL("""Fixed: the price of the Premium Annual plan was displayed without VAT in Austria.""",
               """Fixed: the German translation of the error E21 notification."""),
            H1("Version 5.2.0 (9 January 2024)"),
            UL("""New: household sharing for Premium subscriptions, with up to 5 household members.""",
               """New: the appliance firmware can be updated from the app. Updates are installed only
               while the appliance is idle and take about 4 minutes.""",
               """Changed: the free trial of Premium was shortened from 14 days to 7 days for new
               customers."""),
            H1("Known issues"),
            UL("""After a router restart, an appliance can take up to 15 minutes to appear online again
               in the app.""",
               """On iOS 15, widgets on the home screen are not updated in the background.""")
        ],
    )


# --- Russian documents -------------------------------------------------------
def doc_error_codes_ru():
    return dict(
        file="kody-oshibok-stiralnyh-mashin.pdf", lang="ru", code="CS-ERR-RU-3", revision="Ред. 3",
        date="20 февраля 2024 г.", date_iso="2024-02-20", owner="Служба поддержки клиентов",
        title="Коды ошибок стиральных машин AquaLine",
        subtitle="Руководство службы поддержки: значение кодов E10–E60, причины и порядок устранения",
        blocks=[
            H1("1. Общие сведения"),
            P("""Руководство предназначено для операторов службы поддержки и для владельцев стиральных
            машин AquaLine 7 (WM-700), AquaLine 8 Pro (WM-820) и AquaLine 9 Steam (WM-910) с
            программным обеспечением версии 3.x. Код ошибки отображается на дисплее машины, а у моделей
            с подключением к HomeHub дополнительно приходит уведомлением в приложение."""),
            P("""Перед любыми действиями по устранению неисправности отключите машину от электросети.
            Если одна и та же ошибка появляется более 3 раз в течение 24 часов, не пытайтесь устранить
            её самостоятельно, а вызовите сервисного инженера."""),
            H2("1.1 Сброс ошибки"),
            P("""После устранения причины нажмите и удерживайте кнопку «Старт/Пауза» в течение 5 секунд.
            Дисплей вернётся к выбору программы. Если код ошибки появляется снова сразу после сброса,
            причина не устранена."""),
            H1("2. Сводная таблица кодов"),
            TABLE(["Код", "Значение", "Основные причины"], [
                ["E10", "Нет подачи воды", "Закрыт водопроводный кран; засорён фильтр-сетка заливного шланга"],
                ["E11", "Медленный набор воды", "Низкое давление в водопроводе; перегнут заливной шланг"],
                ["E12", "Перелив воды", "Неисправен заливной клапан"],
                ["E20", "Проблема слива", "Засорён сливной фильтр; перегнут сливной шланг; неисправен сливной насос"],
                ["E21", "Слив длится слишком долго", "Частично засорён фильтр; слишком длинный сливной шланг"],
                ["E30", "Утечка воды", "Сработал датчик защиты от протечек в поддоне"],
                ["E31", "Ошибка датчика уровня воды", "Неисправен датчик уровня (прессостат) или его трубка"],
                ["E50", "Неисправность двигателя", "Перегрузка барабана; неисправность двигателя или его электроники"],
                ["E60", "Ошибка нагрева воды", "Неисправен нагревательный элемент (ТЭН) или датчик температуры"],
            ], [0.8, 2.0, 3.6]),
            PAGEBREAK,
            H1("3. Ошибки подачи воды"),
            H2("E10 — нет подачи воды"),
            P("""Код E10 появляется, если машина не начала набирать воду в течение 4 минут после запуска
            программы. Чаще всего закрыт водопроводный кран или засорён фильтр-сетка на входе
            заливного шланга."""),
            OL("""Убедитесь, что водопроводный кран полностью открыт и в доме есть вода.""",
               """Проверьте, не перегнут и не пережат ли заливной шланг.""",
               """Закройте кран, отсоедините заливной шланг от машины и очистите фильтр-сетку под
               проточной водой мягкой щёткой.""",
               """Подсоедините шланг, откройте кран и запустите программу «Полоскание»."""),
            H2("E11 — медленный набор воды"),
            P("""Код E11 означает, что вода поступает, но нужный уровень не достигнут за 8 минут. Для
            нормальной работы требуется давление воды от 0,5 до 10 бар. Если давление ниже 0,5 бар,
            машина набирает воду слишком медленно."""),
            P("""Проверьте напор воды в других кранах. Если напор слабый во всём доме, обратитесь в
            управляющую компанию. Если напор нормальный, очистите фильтр-сетку, как описано для E10."""),
            H2("E12 — перелив воды"),
            P("""Код E12 означает, что уровень воды в баке выше допустимого. При этой ошибке машина
            автоматически включает сливной насос. Немедленно закройте водопроводный кран и отключите
            машину от сети."""),
            P("""Причина почти всегда — неисправный заливной клапан, который не закрывается. Эту ошибку
            нельзя устранить самостоятельно: вызовите сервисного инженера и не пользуйтесь машиной до
            ремонта."""),
            H1("4. Ошибки слива"),
            H2("E20 — проблема слива"),
            P("""Код E20 означает, что машина не может слить воду. Возможные причины: засорён сливной
            фильтр, перегнут сливной шланг, неисправен сливной насос."""),
            NOTE("""Внимание: если стирка шла при температуре выше 40 °C, перед открытием фильтра дайте воде
            остыть не менее 20 минут — горячая вода может вызвать ожоги."""),
            P("""Порядок устранения ошибки E20:"""),
            OL("""Отключите машину от электросети.""",
               """Подставьте плоскую ёмкость объёмом не менее 2 литров и постелите полотенце. Откройте
               лючок в правом нижнем углу передней панели.""",
               """Вытащите аварийный шланг слива, снимите заглушку и слейте остатки воды в ёмкость.""",
               """Выкрутите сливной фильтр против часовой стрелки. Удалите посторонние предметы (монеты,
               пуговицы, заколки, ворс) и промойте фильтр под проточной водой.""",
               """Установите фильтр на место и закрутите его по часовой стрелке до упора. Закройте
               заглушку аварийного шланга и лючок.""",
               """Проверьте сливной шланг: он не должен быть перегнут, а его верхняя точка должна
               находиться на высоте от 60 до 100 см от пола.""",
               """Включите машину и запустите программу «Слив/Отжим»."""),
            P("""Если после чистки фильтра ошибка E20 сохраняется, а при запуске слива не слышно работы
            насоса, вероятно, неисправен сливной насос. В этом случае обратитесь в сервисный центр.
            Засор фильтра посторонними предметами не является гарантийным случаем."""),
            H2("E21 — слив длится слишком долго"),
            P("""Код E21 появляется, если вода не ушла из бака за 10 минут. Обычно это частичный засор
            сливного фильтра или шланга. Также ошибка возникает, если сливной шланг удлинён и его
            общая длина превышает 2,5 м."""),
            P("""Очистите сливной фильтр, как описано для кода E20, и проверьте длину и прокладку шланга.
            Не используйте удлинители сливного шланга длиннее, чем допускает инструкция по
            установке."""),
            PAGEBREAK,
            H1("5. Протечки и датчики"),
            H2("E30 — утечка воды"),
            P("""Код E30 означает, что сработал датчик защиты от протечек в поддоне основания машины.
            Машина прекращает набор воды и включает сливной насос."""),
            OL("""Отключите машину от сети и закройте водопроводный кран.""",
               """Проверьте, нет ли воды на полу и подтёков у заливного и сливного шлангов.""",
               """Проверьте, плотно ли закрыт сливной фильтр и не переполнен ли лоток для моющего
               средства.""",
               """Если причина найдена и устранена, дайте поддону высохнуть в течение 24 часов при
               открытом лючке, затем запустите программу «Полоскание»."""),
            P("""Если вода в поддоне появляется снова или причина не найдена, машиной пользоваться нельзя:
            вызовите сервисного инженера."""),
            H2("E31 — ошибка датчика уровня воды"),
            P("""Код E31 указывает на неисправность датчика уровня воды (прессостата) или на повреждение
            его трубки. Машина не может определить, сколько воды в баке. Ошибка устраняется только
            сервисным инженером."""),
            H1("6. Двигатель и нагрев"),
            H2("E50 — неисправность двигателя"),
            P("""Код E50 появляется, если двигатель не может вращать барабан. Сначала проверьте, не
            перегружен ли барабан: максимальная загрузка составляет 7 кг для WM-700, 8 кг для WM-820 и
            9 кг для WM-910, а для деликатных программ она меньше."""),
            P("""Выньте часть белья, выключите машину на 10 минут и запустите программу снова. Если ошибка
            повторяется, вызовите сервисного инженера. На инверторный двигатель стиральных машин
            AquaLine действует гарантия 5 лет."""),
            H2("E60 — ошибка нагрева воды"),
            P("""Код E60 означает, что вода не нагрелась до заданной температуры за 60 минут. Причина —
            неисправность нагревательного элемента (ТЭН) или датчика температуры. Машину можно временно
            использовать для стирки в холодной воде; для ремонта вызовите сервисного инженера."""),
            H1("7. Вызов сервисного инженера"),
            P("""Сервисную заявку можно оставить по телефону +49 40 5550 1200 (понедельник–пятница с 8:00
            до 18:00, суббота с 9:00 до 14:00 по центральноевропейскому времени), в приложении HomeHub
            или на сайте в разделе «Поддержка». Подготовьте модель машины, серийный номер и код
            ошибки."""),
            P("""Выезд сервисного инженера в Германии выполняется в течение 3 рабочих дней. Если ремонт не
            покрывается гарантией или договором CarePlus, стоимость выезда составляет 89 евро, работа
            оплачивается дополнительно."""),
        ],
    )


def doc_installation_ru():
    return dict(
        file="ustanovka-stiralnoy-mashiny.docx", lang="ru", code="PRD-INST-RU-2", revision="Ред. 2",
        date="15 января 2024 г.", date_iso="2024-01-15", owner="Отдел продукта",
        title="Инструкция по установке стиральной машины AquaLine",
        subtitle="Подготовка места, подключение к воде и электросети, первый запуск",
        blocks=[
            H1("1. Комплект поставки"),
            P("""Проверьте комплектность до начала установки. В комплект входят: заливной шланг длиной
            1,5 м, сливной шланг длиной 1,5 м с держателем, 4 пластиковые заглушки для отверстий
            транспортировочных болтов, гаечный ключ и инструкция по эксплуатации."""),
            H1("2. Требования к месту установки"),
            ("ul", [
                "Пол должен быть ровным и прочным; допустимый уклон — не более 2°.",
                "Не устанавливайте машину на ковёр или ковровое покрытие: оно мешает вентиляции снизу.",
                "Температура в помещении должна быть выше 5 °C; при замерзании воды машина может быть повреждена.",
                "Между машиной и стенами или мебелью оставьте зазор не менее 2 см.",
                "Для встраивания под столешницу высота ниши должна быть не менее 85 см.",
            ]),
            H1("3. Удаление транспортировочных болтов"),
            P("""На задней стенке машины находятся 4 транспортировочных болта, которые фиксируют бак во
            время перевозки. Перед первым включением их обязательно нужно удалить."""),
            ("ol", [
                "Открутите болты гаечным ключом на 13 мм против часовой стрелки.",
                "Извлеките болты вместе с пластиковыми втулками.",
                "Закройте отверстия пластиковыми заглушками из комплекта.",
                "Сохраните болты: их нужно установить снова при каждой перевозке машины.",
            ]),
            P("""Включение машины с неудалёнными транспортировочными болтами приводит к серьёзным
            повреждениям, которые не покрываются гарантией."""),
            H1("4. Подключение к водопроводу"),
            P("""Машина подключается только к холодной воде. Давление в водопроводе должно составлять от
            0,5 до 10 бар. Кран подключения должен иметь резьбу 3/4 дюйма. Используйте только новые
            шланги из комплекта; старые шланги повторно использовать нельзя."""),
            P("""Затяните накидную гайку заливного шланга от руки, без инструмента. После подключения
            откройте кран и проверьте соединения на герметичность."""),
            H1("5. Подключение слива"),
            P("""Сливной шланг можно подвесить на край ванны или раковины с помощью держателя либо
            подключить к сифону. Верхняя точка сливного шланга должна находиться на высоте от 60 до
            100 см от пола."""),
            P("""Максимальная общая длина сливного шланга — 2,5 м. При более длинном шланге машина сливает
            воду слишком медленно и показывает ошибку E21."""),
            H1("6. Подключение к электросети"),
            P("""Подключайте машину только к розетке с заземлением, рассчитанной на напряжение 220–240 В и
            защищённой предохранителем на 10 А. Не используйте удлинители и тройники. После установки
            вилка должна оставаться доступной."""),
            H1("7. Выравнивание"),
            P("""Выровняйте машину с помощью регулируемых ножек и проверьте положение строительным уровнем
            на верхней крышке вдоль и поперёк. Затем затяните контргайки на всех четырёх ножках
            ключом. Неровно установленная машина сильно вибрирует при отжиме."""),
            TABLE(["Параметр", "Значение"], [
                ["Давление воды", "от 0,5 до 10 бар"],
                ["Высота слива", "от 60 до 100 см"],
                ["Максимальная длина сливного шланга", "2,5 м"],
                ["Электропитание", "220–240 В, 50 Гц, предохранитель 10 А"],
                ["Допустимый уклон пола", "не более 2°"],
            ]),
            H1("8. Первый запуск"),
            P("""Перед первой стиркой запустите программу «Хлопок» при 60 °C без белья, добавив около 20 мл
            моющего средства. Так из машины удаляются остатки воды после заводских испытаний."""),
            P("""Модели AquaLine 8 Pro и AquaLine 9 Steam после первого запуска можно подключить к
            приложению HomeHub. Для подключения нужна сеть Wi-Fi с частотой 2,4 ГГц."""),
            H1("9. Услуга установки"),
            P("""Если вы не хотите устанавливать машину самостоятельно, закажите установку при оформлении
            заказа. В Германии и Австрии услуга установки и подключения стоит 49 евро."""),
        ],
    )


def doc_delivery_ru():
    return dict(
        file="dostavka-krupnoy-tehniki.md", lang="ru", code="CS-DLV-RU-1", revision="Ред. 1",
        date="1 марта 2024 г.", date_iso="2024-03-01", owner="Отдел логистики",
        title="Доставка крупной бытовой техники: услуги и условия",
        subtitle="Для клиентов в Германии и Австрии: подъём на этаж, установка, вывоз старой техники.",
        blocks=[
            H1("Как проходит доставка"),
            P("""Стиральные машины доставляет бригада из двух человек нашего партнёра Nordfracht Logistik.
            После отправки заказа партнёр связывается с вами по электронной почте или SMS, чтобы
            согласовать день доставки."""),
            P("""Накануне дня доставки вы получаете SMS с 4-часовым интервалом. Водитель звонит за 60 минут
            до приезда. Бригада заносит машину в выбранное вами помещение и забирает упаковку."""),
            H1("Дополнительные услуги"),
            P("""Дополнительные услуги заказываются при оформлении заказа и доступны только в Германии и
            Австрии."""),
            TABLE(["Услуга", "Стоимость"], [
                ["Подъём на этаж при наличии лифта", "Бесплатно"],
                ["Подъём на этаж без лифта", "5 евро за каждый этаж, начиная со второго"],
                ["Установка и подключение", "49 евро"],
                ["Вывоз старой техники", "25 евро"],
                ["Повторная доставка после двух неудачных попыток", "39 евро"],
            ]),
            P("""При установке бригада удаляет транспортировочные болты, подключает машину к имеющимся
            водопроводу и канализации, выравнивает её и запускает короткую тестовую программу.
            Монтаж новых кранов, сифонов и розеток в услугу не входит."""),
            P("""Старую технику бригада забирает в день доставки новой. Старая машина должна быть отключена
            от воды и электросети, а вода из неё слита."""),
            H1("Как подготовиться к доставке"),
            OL("""Освободите проход: ширина дверных проёмов и коридоров должна быть не менее 70 см.""",
               """Проверьте, что кран холодной воды и слив находятся не дальше 1,5 м от места
               установки — это длина шлангов из комплекта.""",
               """Подготовьте розетку с заземлением рядом с местом установки.""",
               """Если вы живёте выше второго этажа в доме без лифта, укажите это при заказе."""),
            H1("Если вас не было дома"),
            P("""Если вас нет дома в согласованный интервал, бригада приезжает ещё раз в другой день. После
            двух неудачных попыток машина возвращается на склад и хранится там 7 дней. Третья доставка
            оплачивается отдельно."""),
            H1("Повреждения при доставке"),
            P("""Осмотрите упаковку в присутствии бригады и отметьте видимые повреждения в накладной.
            О повреждениях машины сообщите в службу поддержки в течение 7 дней с момента доставки и
            приложите фотографии."""),
        ],
    )


def doc_care_ru():
    return dict(
        file="uhod-za-stiralnoy-mashinoy.txt", lang="ru", code="CS-CARE-RU-1", revision="Ред. 1",
        date="10 апреля 2024 г.", date_iso="2024-04-10", owner="Служба поддержки клиентов",
        title="Уход за стиральной машиной AquaLine",
        subtitle="Памятка для владельцев: регулярная чистка и хранение",
        blocks=[
            H1("График ухода"),
            TABLE(["Что делать", "Как часто"], [
                ["Чистка сливного фильтра", "каждые 3 месяца"],
                ["Чистка фильтра-сетки заливного шланга", "каждые 6 месяцев"],
                ["Программа «Очистка барабана» при 90 °C", "раз в месяц"],
                ["Промывка лотка для моющего средства", "раз в 2 недели"],
                ["Осмотр шлангов", "раз в год"],
            ]),
            H1("Сливной фильтр"),
            P("""Сливной фильтр находится за лючком в правом нижнем углу передней панели. Чистите его каждые
            3 месяца, а также сразу, если машина медленно сливает воду или показывает ошибку E20.
            Перед чисткой отключите машину от сети и подставьте ёмкость для воды."""),
            H1("Барабан и уплотнитель дверцы"),
            P("""Раз в месяц запускайте программу «Очистка барабана» при 90 °C без белья. Это удаляет налёт
            и неприятный запах."""),
            P("""После каждой стирки протирайте резиновый уплотнитель дверцы сухой тканью и оставляйте
            дверцу и лоток для моющего средства приоткрытыми, чтобы барабан просох."""),
            H1("Жёсткая вода"),
            P("""Если жёсткость воды превышает 14 °dH, используйте смягчитель воды или средство от накипи
            для стиральных машин. Повреждения из-за накипи при жёсткости воды выше 14 °dH без
            использования смягчителя не покрываются гарантией."""),
            P("""Узнать жёсткость воды можно у местной водоснабжающей компании или с помощью тест-полосок."""),
            H1("Автоматическое дозирование (AquaLine 9 Steam)"),
            P("""Резервуары автоматического дозирования рассчитаны на 1,3 литра жидкого моющего средства и
            0,5 литра кондиционера. Промывайте резервуары тёплой водой при смене средства. Никогда не
            засыпайте в резервуары порошок."""),
            H1("Если вы уезжаете"),
            P("""Если вы уезжаете больше чем на неделю, закройте водопроводный кран и оставьте дверцу
            приоткрытой."""),
            P("""Если машина будет стоять в помещении с температурой ниже 0 °C, слейте воду из сливного
            фильтра и заливного шланга, чтобы остатки воды не замёрзли."""),
            H1("Чего делать нельзя"),
            ("ul", [
                "Не мойте машину из шланга, мойкой высокого давления или пароочистителем.",
                "Не используйте абразивные средства и растворители для чистки корпуса и дисплея.",
                "Не снимайте заднюю стенку и не пытайтесь ремонтировать машину самостоятельно: это лишает вас гарантии.",
            ]),
        ],
    )


DOCUMENTS = [
    doc_subscription_terms, doc_cancellation_policy, doc_vehicle_manual, doc_warranty,
    doc_specifications, doc_employee_handbook, doc_shipping, doc_privacy, doc_faq,
    doc_travel_policy, doc_safety, doc_release_notes,
    doc_error_codes_ru, doc_installation_ru, doc_delivery_ru, doc_care_ru,
]

FORBIDDEN = ["E401", "99-", "flux capacitor", "Globex", "Bluefin"]  # eval traps: must not exist


def build(out: Path) -> list[dict]:
    out.mkdir(parents=True, exist_ok=True)
    report = []
    for fn in DOCUMENTS:
        doc = fn()
        path = out / doc["file"]
        text_blob = repr(doc)
        for bad in FORBIDDEN:
            if bad.lower() in text_blob.lower():
                raise SystemExit(f"build_demo: forbidden string {bad!r} in {doc['file']}")
        pages = RENDERERS[path.suffix](doc, path)
        report.append({"file": doc["file"], "lang": doc["lang"], "pages": pages,
                       "bytes": path.stat().st_size,
                       "sha256": hashlib.sha256(path.read_bytes()).hexdigest()})
    return report


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "data" / "demo"), help="output folder")
    ap.add_argument("--check", action="store_true",
                    help="build into a temporary folder and compare with --out (exit 1 if different)")
    args = ap.parse_args(argv)
    out = Path(args.out)
    if args.check:
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            report = build(Path(tmp))
            diff = [r["file"] for r in report
                    if not (out / r["file"]).exists()
                    or hashlib.sha256((out / r["file"]).read_bytes()).hexdigest() != r["sha256"]]
        if diff:
            print("build_demo: out of date: " + ", ".join(diff), file=sys.stderr)
            return 1
        print(f"build_demo: {len(report)} documents in {out} are up to date")
        return 0
    report = build(out)
    pdf_pages = 0
    for r in report:
        pages = f"{r['pages']} pages" if r["pages"] else "-"
        pdf_pages += r["pages"]
        print(f"{r['file']:<40} {r['lang']}  {pages:>9}  {r['bytes']:>8} bytes")
    print(f"{len(report)} documents, {pdf_pages} PDF pages -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
