"""Settings: one dataclass built from environment variables, plus per-tenant overrides.

Passed explicitly to whatever needs it; there is no module-level singleton.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

# Knobs a tenant may override (stored in <data>/tenants/<key>/settings.json).
TENANT_KNOBS = ("gate_threshold", "top_k", "strict_mode", "provider", "candidates", "chunk_tokens",
                "judge_threshold", "max_chunks_per_doc")


@dataclass(frozen=True)
class Settings:
    data_dir: Path = Path("data")
    # ingest
    chunk_tokens: int = 220
    chunk_overlap: int = 40
    max_file_mb: int = 50
    # embedding costs ~0.25 s a chunk on 2 cores: 1500 chunks is ~6 minutes for one file
    max_chunks_per_doc: int = 1500
    # retrieval
    candidates: int = 20
    top_k: int = 5
    rrf_k: int = 60
    # gate + guard
    gate_threshold: float = 0.55  # evals.calibrate on the demo calib split (highest grounded_only)
    strict_mode: bool = False
    # generation
    provider: str = "extractive"  # extractive | llm
    llm_base_url: str | None = None
    llm_model: str | None = None
    llm_api_key: str | None = None
    llm_timeout_s: float = 20.0
    llm_retries: int = 1
    judge_threshold: float = 0.5  # P(supported) the model judge needs (provider llm only)
    # scale-out
    chroma_url: str | None = None
    embed_threads: int = 2

    @property
    def llm_configured(self) -> bool:
        return bool(self.llm_base_url or self.llm_api_key) and bool(self.llm_model)

    def for_tenant(self, tenant: str) -> Settings:
        """These settings with the tenant's stored overrides applied."""
        overrides = load_tenant_overrides(self, tenant)
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
        if f.name == "data_dir" or key not in env or env[key] == "":
            continue
        kwargs[f.name] = _coerce(f.type, env[key])
    if "llm_api_key" not in kwargs and env.get("OPENAI_API_KEY"):
        kwargs["llm_api_key"] = env["OPENAI_API_KEY"]
    if "llm_base_url" in kwargs or "llm_api_key" in kwargs:
        if kwargs.get("llm_model") and "GROUNDWORK_PROVIDER" not in env:
            kwargs["provider"] = "llm"
    return Settings(**kwargs)


def _coerce(type_name: Any, raw: str) -> Any:
    t = str(type_name)
    if t.startswith("int"):
        return int(raw)
    if t.startswith("float"):
        return float(raw)
    if t.startswith("bool"):
        return _env_bool(raw)
    return raw


def validate_overrides(values: dict[str, Any]) -> dict[str, Any]:
    """Check tenant overrides; raise ValueError with one clear sentence on bad input."""
    clean: dict[str, Any] = {}
    for key, value in values.items():
        if key not in TENANT_KNOBS:
            raise ValueError(f"Unknown setting '{key}'; allowed: {', '.join(TENANT_KNOBS)}.")
        if key in ("gate_threshold", "judge_threshold"):
            value = float(value)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{key} must be between 0 and 1.")
        elif key == "top_k":
            value = int(value)
            if not 1 <= value <= 20:
                raise ValueError("top_k must be between 1 and 20.")
        elif key == "candidates":
            value = int(value)
            if not 5 <= value <= 100:
                raise ValueError("candidates must be between 5 and 100.")
        elif key == "chunk_tokens":
            value = int(value)
            if not 60 <= value <= 500:
                raise ValueError("chunk_tokens must be between 60 and 500.")
        elif key == "max_chunks_per_doc":
            value = int(value)
            if value < 1:
                raise ValueError("max_chunks_per_doc must be at least 1.")
        elif key == "strict_mode":
            value = value if isinstance(value, bool) else _env_bool(str(value))
        elif key == "provider":
            if value not in ("extractive", "llm"):
                raise ValueError("provider must be 'extractive' or 'llm'.")
        clean[key] = value
    return clean


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


def save_tenant_overrides(settings: Settings, tenant: str, values: dict[str, Any]) -> dict[str, Any]:
    """Merge validated overrides into the tenant's settings file; return the merged set."""
    clean = validate_overrides(values)
    path = tenant_settings_path(settings, tenant)
    path.parent.mkdir(parents=True, exist_ok=True)
    merged = {**load_tenant_overrides(settings, tenant), **clean}
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(merged, indent=2), encoding="utf-8")
    tmp.replace(path)
    return merged
