"""The answer step holds no domain vocabulary and few hand-written patterns (issue 26):
what it knows of a language lives in core/lang/, what it knows of a domain is a tenant's data."""

from __future__ import annotations

import re
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "core"
# words of the bundled demo corpus (appliances, plans, vehicles, its company and products)
DEMO_TERMS = ("washing", "dryer", "aqualine", "homehub", "northwind", "kestrel", "careplus", "pollen",
              "globex", "lug nut", "lug-nut", "drain", "стирал", "сушил", "refund", "warranty", "appliance",
              "vehicle", "oil capacity", "kt-200", "e20", "тормоз", "fleet", "torque", "spin speed",
              "dishwasher")
PATTERN_RE = re.compile(r"re\.compile|re\.(?:search|match|sub|findall|finditer|split|fullmatch)\(")
MAX_PATTERNS = 105


def _sources() -> list[Path]:
    return sorted(CORE.rglob("*.py"))


def demo_terms_in(text: str) -> list[str]:
    return [term for term in DEMO_TERMS if term in text.lower()]


def test_no_demo_domain_word_in_core() -> None:
    found = [f"{p.relative_to(CORE.parent)}: {term}" for p in _sources()
             for term in demo_terms_in(p.read_text(encoding="utf-8"))]
    assert found == []


def test_hand_written_patterns_stay_few() -> None:
    count = sum(len(PATTERN_RE.findall(p.read_text(encoding="utf-8"))) for p in _sources())
    assert count <= MAX_PATTERNS, f"{count} regular expressions in core/ (at most {MAX_PATTERNS})"


def imported_modules(text: str) -> set[str]:
    """Top-level packages a source imports (plain and from-imports, lazy ones included)."""
    import ast

    found = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.split(".")[0])
    return found


def test_core_never_imports_the_console_or_the_evals() -> None:
    found = [f"{p.relative_to(CORE.parent)}: {m}" for p in _sources()
             for m in imported_modules(p.read_text(encoding="utf-8")) & {"streamlit", "evals", "ui", "pages"}]
    assert found == []


def test_the_scans_are_not_vacuous() -> None:
    assert imported_modules("import streamlit as st\ndef f():\n    from evals.run import x\n") == {"streamlit", "evals"}
    assert demo_terms_in('"""Drain the AquaLine."""') == ["aqualine", "drain"]
    assert len(PATTERN_RE.findall("X = re.compile(r'a')\nre.sub('a', 'b', s)")) == 2
