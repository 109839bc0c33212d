#!/usr/bin/env python3
"""Check eval sets (evals/sets/*.jsonl) against their corpora.

For every set NAME.jsonl the manifest NAME.corpus.json beside it maps each tenant to
the folders (relative to the repo root) that hold that tenant's documents.

Checks:
- every line is a JSON object with exactly the expected fields;
- ids are unique within the set; tenant is in the manifest; kind, lang, split valid;
- split follows the fixed rule: "calib" if sha256(id) is even, else "test";
- answerable: expected_answer, gold_source and gold_quote are non-empty strings,
  gold_source is a file in one of the tenant's folders, gold_quote (<= 200 chars) is a
  substring of the document's extracted text after whitespace normalisation
  (case-sensitive), and expected_answer is a substring of gold_quote (normalised,
  case-insensitive);
- unanswerable / misleading: expected_answer, gold_source and gold_quote are null.

Text extraction (independent of the project's own parsers): PyMuPDF page.get_text()
for PDF (a table-row quote, "a | b | c", matches its cells in order), python-docx
paragraphs + table cells for DOCX, openpyxl's cells for XLSX and the csv module's (delimiter
sniffed) for CSV, rows joined by " | ", raw text for md/txt, BeautifulSoup get_text() for
HTML with script/style removed.

Usage: .venv/bin/python scripts/check_sets.py [evals/sets/NAME.jsonl ...]
Exit 0 when all sets pass, 1 otherwise (one line per problem on stderr).
"""
from __future__ import annotations

import hashlib
import json
import re
import sys
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIELDS = ["id", "tenant", "question", "kind", "expected_answer", "gold_source",
          "gold_quote", "category", "lang", "split"]
# optional: the question asked before a follow-up; how the question is phrased
OPTIONAL = {"previous", "style"}
KINDS = {"answerable", "unanswerable", "misleading"}
LANGS = {"en", "ru"}
MAX_QUOTE = 200


def split_for(qid: str) -> str:
    return "calib" if int(hashlib.sha256(qid.encode()).hexdigest(), 16) % 2 == 0 else "test"


def norm(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip()


@cache
def extract_text(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        import pymupdf
        with pymupdf.open(path) as doc:
            return "\n".join(page.get_text() for page in doc)
    if suffix == ".xlsx":  # every sheet's rows, cells joined by " | "
        import openpyxl
        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
        try:
            return "\n".join(" | ".join("" if v is None else str(v) for v in row)
                             for ws in book.worksheets for row in ws.iter_rows(values_only=True))
        finally:
            book.close()
    if suffix == ".docx":
        import docx
        d = docx.Document(str(path))
        parts = [p.text for p in d.paragraphs]
        for table in d.tables:
            for row in table.rows:
                for cell in row.cells:
                    parts.append(cell.text)
                parts.append(" | ".join(cell.text for cell in row.cells))  # a row quoted whole
        return "\n".join(parts)
    if suffix in (".html", ".htm"):
        from bs4 import BeautifulSoup
        soup = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
        for tag in soup(["script", "style", "noscript", "template"]):
            tag.decompose()
        rows = [" | ".join(c.get_text(" ", strip=True) for c in tr.find_all(["td", "th"])) for tr in soup.find_all("tr")]
        return soup.get_text() + "\n" + "\n".join(rows)  # a table row quoted whole
    if suffix == ".csv":  # a row quoted as its cells joined by " | ", as the parsers render it
        import csv
        text = path.read_text(encoding="utf-8")
        try:  # "," or ";" (a European spreadsheet's export), as the parser finds it
            dialect = csv.Sniffer().sniff(text[:4096], delimiters=",;\t")
        except csv.Error:
            dialect = csv.excel
        return "\n".join(" | ".join(row) for row in csv.reader(text.splitlines(), dialect))
    if suffix in (".md", ".markdown", ".txt"):
        return path.read_text(encoding="utf-8")
    raise ValueError(f"unsupported format: {path.name}")


def find_source(name: str, folders: list[Path]) -> Path | None:
    for folder in folders:
        hits = sorted(p for p in folder.rglob("*") if p.is_file() and p.name == name)
        if hits:
            return hits[0]
    return None


def check_set(set_path: Path) -> list[str]:
    problems: list[str] = []
    manifest_path = set_path.with_name(set_path.name.removesuffix(".jsonl") + ".corpus.json")
    if not manifest_path.exists():
        return [f"{set_path}: manifest {manifest_path.name} not found"]
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    # a tenant's entry is its folders, or {"folders": [...], "knobs": {...}}
    entries = {t: e.get("folders", []) if isinstance(e, dict) else e for t, e in manifest.items()}
    folders = {t: [ROOT / f for f in ([fs] if isinstance(fs, str) else fs)] for t, fs in entries.items()}
    for t, fs in folders.items():
        for f in fs:
            if not f.is_dir():
                problems.append(f"{manifest_path.name}: folder {f} of tenant {t!r} does not exist")
    seen: set[str] = set()
    lines = set_path.read_text(encoding="utf-8").splitlines()
    for n, line in enumerate(lines, 1):
        where = f"{set_path.name}:{n}"
        if not line.strip():
            problems.append(f"{where}: empty line")
            continue
        try:
            q = json.loads(line)
        except json.JSONDecodeError as e:
            problems.append(f"{where}: invalid JSON ({e})")
            continue
        if not isinstance(q, dict) or sorted(k for k in q if k not in OPTIONAL) != sorted(FIELDS):
            problems.append(f"{where}: fields must be exactly {FIELDS}")
            continue
        qid = q["id"]
        where = f"{set_path.name}:{n} ({qid})"
        if not isinstance(qid, str) or not qid:
            problems.append(f"{where}: id must be a non-empty string")
            continue
        if qid in seen:
            problems.append(f"{where}: duplicate id")
        seen.add(qid)
        if q["tenant"] not in folders:
            problems.append(f"{where}: tenant {q['tenant']!r} not in {manifest_path.name}")
        if q["kind"] not in KINDS:
            problems.append(f"{where}: kind {q['kind']!r} not in {sorted(KINDS)}")
        if q["lang"] not in LANGS:
            problems.append(f"{where}: lang {q['lang']!r} not in {sorted(LANGS)}")
        if q["split"] != split_for(qid):
            problems.append(f"{where}: split must be {split_for(qid)!r} (sha256 parity rule)")
        if not isinstance(q["question"], str) or not q["question"].strip():
            problems.append(f"{where}: empty question")
        if not isinstance(q["category"], str) or not q["category"]:
            problems.append(f"{where}: empty category")
        gold = (q["expected_answer"], q["gold_source"], q["gold_quote"])
        if q["kind"] != "answerable":
            if any(g is not None for g in gold):
                problems.append(f"{where}: expected_answer, gold_source, gold_quote must be null for {q['kind']}")
            continue
        if not all(isinstance(g, str) and g.strip() for g in gold):
            problems.append(f"{where}: answerable needs expected_answer, gold_source and gold_quote")
            continue
        answer, source, quote = gold
        if len(quote) > MAX_QUOTE:
            problems.append(f"{where}: gold_quote longer than {MAX_QUOTE} characters")
        if norm(answer).lower() not in norm(quote).lower():
            problems.append(f"{where}: expected_answer {answer!r} not in gold_quote")
        path = find_source(source, folders.get(q["tenant"], []))
        if path is None:
            problems.append(f"{where}: gold_source {source!r} not found in the folders of tenant {q['tenant']!r}")
            continue
        text = norm(extract_text(path))
        # a table row quoted as the parsers render it ("Microchipping | 25.00 | 25.00") stands
        # in a PDF's text as its cells in order, one after another
        if norm(quote) not in text and not (" | " in quote and norm(quote.replace(" | ", " ")) in text):
            problems.append(f"{where}: gold_quote not found in {source}: {quote!r}")
    return problems


def main(argv: list[str]) -> int:
    sets = [Path(a) for a in argv] or sorted((ROOT / "evals" / "sets").glob("*.jsonl"))
    if not sets:
        print("check_sets: no sets found", file=sys.stderr)
        return 1
    failed = False
    for s in sets:
        problems = check_set(s)
        for p in problems:
            print(p, file=sys.stderr)
        n = sum(1 for line in s.read_text(encoding="utf-8").splitlines() if line.strip())
        print(f"{s.name}: {n} questions, {'OK' if not problems else f'{len(problems)} problem(s)'}")
        failed |= bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
