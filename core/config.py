"""Settings: one dataclass built from environment variables, plus per-tenant overrides.

Passed explicitly to whatever needs it; there is no module-level singleton.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, fields, replace
from functools import cache
from pathlib import Path
from typing import Any

# Knobs a tenant may override (stored in <data>/tenants/<key>/settings.json).
TENANT_KNOBS = ("gate_threshold", "top_k", "strict_mode", "provider", "candidates", "chunk_tokens",
                "judge_threshold", "max_chunks_per_doc", "synonyms")
MAX_SYNONYMS = 200
ANSWER_MODEL = Path(__file__).with_name("answer") / "model.json"


@cache
def recommended_threshold() -> float:
    """The answer-confidence threshold evals.train chose for the shipped answer model."""
    return float(json.loads(ANSWER_MODEL.read_text(encoding="utf-8"))["threshold"])


MAX_QUESTION_CHARS = 2000  # a question (and the one before it in a chat) the pipeline reads

@dataclass(frozen=True)
class Settings:
    data_dir: Path = Path("data")
    # ingest
    chunk_tokens: int = 220
    chunk_overlap: int = 40
    max_file_mb: int = 50
    # embedding costs ~0.25 s a chunk on 2 cores: 1500 chunks is ~6 minutes for one file
    max_chunks_per_doc: int = 1500
    # scanned PDF pages read by OCR (core/ingest/ocr.py): on unless GROUNDWORK_OCR=0; the
    # Tesseract language data is looked for in `tessdata` (GROUNDWORK_TESSDATA, else the
    # standard TESSDATA_PREFIX), then where Debian installs it
    ocr: bool = True
    ocr_dpi: int = 300
    ocr_max_pages: int = 200  # a few seconds a page on 2 cores: a larger scan is refused in part, said so
    tessdata: str | None = None
    # console: how long a sign-in lasts, reloads included (GROUNDWORK_SESSION_HOURS; core/users.py)
    session_hours: float = 12.0
    # retrieval
    candidates: int = 20
    top_k: int = 5
    rrf_k: int = 60
    # gate + guard
    # the answer model's recommended threshold (leave-one-domain-out, evals.train)
    gate_threshold: float = field(default_factory=lambda: recommended_threshold())
    strict_mode: bool = False
    # answers under gate_threshold + this go to the review queue (core/review.py)
    review_margin: float = 0.1
    # the share of confident answers queued for a spot check (core/review.py): a wrong answer
    # given with confidence shows nowhere until someone reads it; 0 turns it off
    review_sample: float = 0.05
    # generation
    provider: str = "extractive"  # extractive | llm
    llm_base_url: str | None = None
    llm_model: str | None = None
    llm_api_key: str | None = None
    llm_timeout_s: float = 20.0
    llm_retries: int = 1
    # a stronger model on the same endpoint for hard questions: those whose retrieval
    # evidence is under the gate threshold (core/pipeline.py); None = one model for all
    llm_strong_model: str | None = None
    # a second OpenAI-compatible endpoint asked when the first fails (down, slow, bad key)
    llm_fallback_base_url: str | None = None
    llm_fallback_model: str | None = None
    judge_threshold: float = 0.5  # P(supported) the model judge needs (provider llm only)
    # model-driven steps (core/llm_steps.py), off until measured to pay for themselves
    llm_grade_passages: bool = False
    llm_self_check: bool = False
    llm_suggest_followups: bool = False
    # HyDE: the model's hypothetical passage is a third ranking in retrieval (core/llm_steps.py)
    llm_hyde: bool = False
    # the model as answerability judge of the extractive answer (core/llm_steps.py
    # `judge_answer`): asked when the answer model's confidence is at least the floor, it
    # answers when P(YES) reaches the threshold. Both chosen on a development set (docs/quality.md)
    # with the bundled local 1.5B model (docs/quality.md); another model wants its own
    llm_judge_answers: bool = False
    llm_judge_floor: float = 0.5
    llm_judge_answers_threshold: float = 0.6
    # the endpoint's prices (USD per 1,000 tokens) for the cost estimate in traces and spans
    llm_price_in_per_1k: float = 0.0
    llm_price_out_per_1k: float = 0.0
    # scale-out
    chroma_url: str | None = None
    # OpenTelemetry: spans of every ask go to this OTLP (gRPC) endpoint; from the standard
    # OTEL_EXPORTER_OTLP_ENDPOINT variable (core/telemetry.py)
    otel_endpoint: str | None = None
    embed_threads: int = 2
    # the tenant's own words for what its documents say otherwise ("the app" -> "PeopleDesk"):
    # (phrase, documents' words) pairs, see core/expand.py; a tenant setting only
    synonyms: tuple[tuple[str, str], ...] = ()

    @property
    def llm_configured(self) -> bool:
        return bool(self.llm_base_url or self.llm_api_key) and bool(self.llm_model)

    def for_tenant(self, tenant: str) -> Settings:
        """These settings with the tenant's stored overrides applied."""
        overrides = load_tenant_overrides(self, tenant)
        if "synonyms" in overrides:  # stored as a mapping; frozen settings hold pairs
            overrides["synonyms"] = tuple(sorted(overrides["synonyms"].items()))
        return replace(self, **overrides) if overrides else self

    def public_dict(self) -> dict[str, Any]:
        """Settings as stored with traces and eval runs (never the API key)."""
        out = asdict(self)
        out["data_dir"] = str(self.data_dir)
        out.pop("llm_api_key", None)
        return out


def _env_bool(value: str) -> bool:
    return value.strip().lower() in ("1", "true", "yes", "on")


def load_settings(env: dict[str, str] | None = None) -> Settings:
    """Settings from GROUNDWORK_* environment variables; defaults work offline."""
    env = dict(os.environ if env is None else env)
    kwargs: dict[str, Any] = {"data_dir": Path(env.get("GROUNDWORK_DATA", "data")).resolve()}
    for f in fields(Settings):
        key = "GROUNDWORK_" + f.name.upper()
        if f.name in ("data_dir", "synonyms") or key not in env or env[key] == "":
            continue
        kwargs[f.name] = _coerce(f.name, f.type, env[key])
    if "tessdata" not in kwargs and env.get("TESSDATA_PREFIX", "").strip():
        kwargs["tessdata"] = env["TESSDATA_PREFIX"].strip()
    if env.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip():
        kwargs["otel_endpoint"] = env["OTEL_EXPORTER_OTLP_ENDPOINT"].strip()
    if "llm_api_key" not in kwargs and env.get("OPENAI_API_KEY"):
        kwargs["llm_api_key"] = env["OPENAI_API_KEY"]
    if "llm_base_url" in kwargs or "llm_api_key" in kwargs:
        if kwargs.get("llm_model") and "GROUNDWORK_PROVIDER" not in env:
            kwargs["provider"] = "llm"
    return Settings(**kwargs)


def _coerce(name: str, type_name: Any, raw: str) -> Any:
    """An environment value as its setting's type. A bad number is one sentence naming the
    variable ("abc" gave a 16-line traceback from every command, "inf" one mid-ask, and -5 a
    note that the endpoint "did not answer within -5 s": a reliability pass)."""
    t = str(type_name)
    if t.startswith("bool"):
        return _env_bool(raw)
    if not (t.startswith("int") or t.startswith("float")):
        return raw
    integer = t.startswith("int")
    if name in _FLOAT_RANGES or name in _INT_RANGES:
        try:
            return _number(name, raw.strip(), integer)
        except ValueError as exc:
            raise ValueError(f"GROUNDWORK_{name.upper()}: {exc}") from None
    kind = "a whole number" if integer else "a number"
    try:
        number = float(raw)
    except ValueError:
        number = float("nan")
    if number != number or number in (float("inf"), float("-inf")) or number < 0 \
            or (integer and not number.is_integer()):
        raise ValueError(f"GROUNDWORK_{name.upper()} must be {kind} of 0 or more; '{_shown(raw)}' is not.")
    return int(number) if integer else number


# What each knob is called in messages (the Settings page's words) and the range it takes.
KNOB_LABELS = {
    "gate_threshold": "Gate threshold", "judge_threshold": "Model judge threshold", "top_k": "Top-k",
    "candidates": "Candidates", "chunk_tokens": "Chunk size", "max_chunks_per_doc": "Maximum chunks per document",
    "strict_mode": "Strict mode", "provider": "Answer provider", "synonyms": "Synonyms",
    "review_sample": "Spot-check share",
}
_FLOAT_RANGES = {"gate_threshold": (0.0, 1.0), "judge_threshold": (0.0, 1.0), "review_sample": (0.0, 1.0)}
_INT_RANGES = {"top_k": (1, 20), "candidates": (5, 100), "chunk_tokens": (60, 500), "max_chunks_per_doc": (1, None)}


def _range_text(lo: float, hi: float | None) -> str:
    return f"at least {lo:g}" if hi is None else f"between {lo:g} and {hi:g}"


def _shown(value: Any) -> str:
    text = str(value)
    return text if len(text) <= 40 else text[:40] + "…"


def _number(key: str, value: Any, integer: bool) -> float | int:
    label = KNOB_LABELS[key]
    lo, hi = (_INT_RANGES if integer else _FLOAT_RANGES)[key]
    kind = "a whole number " if integer else "a number "
    try:
        if isinstance(value, bool):
            raise TypeError
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{label} must be {kind}{_range_text(lo, hi)}; '{_shown(value)}' is not a number.") from None
    if number != number or (integer and not number.is_integer()):  # NaN, or 2.5 for an integer knob
        raise ValueError(f"{label} must be {kind}{_range_text(lo, hi)}; {_shown(value)} is not.")
    if number < lo or (hi is not None and number > hi):
        shown = int(number) if number.is_integer() else number
        raise ValueError(f"{label} must be {_range_text(lo, hi)}; {shown} is outside that range.")
    return int(number) if integer else number


def validate_overrides(values: dict[str, Any]) -> dict[str, Any]:
    """Check tenant overrides one by one; raise ValueError with one clear sentence on bad input
    (what is wrong and the allowed range). `check_combination` checks them together."""
    clean: dict[str, Any] = {}
    for key, value in values.items():
        if key not in TENANT_KNOBS:
            raise ValueError(f"Unknown setting '{key}'; allowed: {', '.join(TENANT_KNOBS)}.")
        if key in _FLOAT_RANGES:
            value = _number(key, value, integer=False)
        elif key in _INT_RANGES:
            value = _number(key, value, integer=True)
        elif key == "strict_mode":
            value = value if isinstance(value, bool) else _env_bool(str(value))
        elif key == "provider":
            if value not in ("extractive", "llm"):
                raise ValueError("Answer provider must be 'extractive' or 'llm'.")
        elif key == "synonyms":
            value = validate_synonyms(value)
        clean[key] = value
    return clean


def validate_synonyms(value: Any) -> dict[str, str]:
    """A tenant's synonyms: {phrase: the documents' words}, phrases of 1-4 words, lower-cased
    and single-spaced; ValueError with one sentence naming the bad entry."""
    from core.lexical import tokenize  # the index's own words: a stopword is no synonym

    if not isinstance(value, dict):
        raise ValueError("Synonyms must be a mapping of a phrase to the documents' words.")
    if len(value) > MAX_SYNONYMS:
        raise ValueError(f"There are {len(value)} synonyms; keep it to {MAX_SYNONYMS}.")
    clean: dict[str, str] = {}
    for phrase, words in value.items():
        key, said = " ".join(str(phrase).split()).lower(), " ".join(str(words or "").split())
        if not any(ch.isalpha() for ch in key) or len(key) > 60 or len(key.split()) > 4:
            raise ValueError(f"Synonym '{_shown(phrase)}' must be a word or a phrase of up to 4 words "
                             "(60 characters), with letters in it.")
        if not tokenize(key):  # "the" or "is it" would be expanded in nearly every question
            raise ValueError(f"Synonym '{_shown(key)}' is only common words; use the word your users mean.")
        if not any(ch.isalpha() for ch in said) or len(said) > 120:
            raise ValueError(f"Synonym '{_shown(key)}' needs the documents' words for it (up to 120 characters).")
        if said.lower() == key:
            raise ValueError(f"Synonym '{_shown(key)}' stands for itself; give the words the documents use instead.")
        clean[key] = said
    return clean


def parse_synonym_lines(text: str) -> dict[str, str]:
    """Synonym lines as people write them ("the app = PeopleDesk", one a line; blank lines and
    lines starting with # are skipped); ValueError naming the first bad line.
    `validate_synonyms` checks each entry when it is saved."""
    out: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        phrase, sep, words = line.partition("=")
        if not sep or not phrase.strip() or not words.strip():
            raise ValueError(f"Line {number} is not 'your word = the documents' words' (for example: "
                             "the app = PeopleDesk); nothing was saved.")
        out[phrase.strip()] = words.strip()
    return out


def check_combination(settings: Settings) -> None:
    """Settings that contradict each other (each fine alone); ValueError with one sentence."""
    if settings.top_k > settings.candidates:
        raise ValueError(f"Top-k ({settings.top_k}) must not exceed the number of candidates retrieved "
                         f"({settings.candidates}); lower top-k or raise the candidates.")
    if settings.chunk_overlap >= settings.chunk_tokens:
        raise ValueError(f"Chunk size ({settings.chunk_tokens} tokens) must be larger than the chunk overlap "
                         f"({settings.chunk_overlap} tokens, GROUNDWORK_CHUNK_OVERLAP).")


def tenant_settings_path(settings: Settings, tenant: str) -> Path:
    from core.tenants import tenant_dir

    return tenant_dir(settings, tenant) / "settings.json"


def load_tenant_overrides(settings: Settings, tenant: str) -> dict[str, Any]:
    path = tenant_settings_path(settings, tenant)
    if not path.exists():
        return {}
    try:
        return validate_overrides(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, json.JSONDecodeError):
        return {}  # a damaged overrides file must not take the tenant down


def save_tenant_overrides(settings: Settings, tenant: str, values: dict[str, Any], *,
                          replace_all: bool = False) -> dict[str, Any]:
    """Merge validated overrides into the tenant's settings file (or, with `replace_all`, make
    them the whole set: `{}` resets the tenant to the defaults); return the stored set.

    Nothing is written when a value is out of range or the result contradicts itself (top-k
    above the candidates): ValueError with one sentence."""
    clean = validate_overrides(values)
    path = tenant_settings_path(settings, tenant)
    merged = clean if replace_all else {**load_tenant_overrides(settings, tenant), **clean}
    if {"top_k", "candidates", "chunk_tokens"} & clean.keys():
        check_combination(replace(settings, **merged))
    if not merged:
        path.unlink(missing_ok=True)
        return {}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(merged, indent=2), encoding="utf-8")
    tmp.replace(path)
    return merged
