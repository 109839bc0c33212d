"""Tenant ids, validation and the names derived from them (collection, folder)."""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Iterable
from pathlib import Path

from core.config import Settings

MAX_TENANT_LEN = 128
EVAL_TENANT_PREFIX = "eval-"  # tenants the eval harness builds (`evals.run --ingest`): eval-<set>-<tenant>


class TenantError(ValueError):
    """A tenant id that cannot be used."""


class TenantBeingDeleted(TenantError):
    """The tenant's deletion was decided and is not finished: it takes no writes, and its id
    cannot be created again until the deletion is done (core/tenant_deletion.py)."""

    def __init__(self, tenant: str) -> None:
        self.tenant = tenant
        super().__init__(f"Tenant '{tenant}' is being deleted; finish it with `python -m core.cli tenants delete "
                         f"--tenant '{tenant}' --yes`, then create it again if needed.")


def validate_tenant(tenant: str) -> str:
    """An id any read or write path may use (DESIGN.md: any non-empty string up to 128
    characters, without control characters). New ids pass `validate_new_tenant` too."""
    if not isinstance(tenant, str) or not tenant.strip():
        raise TenantError("Tenant id must be a non-empty string.")
    if len(tenant) > MAX_TENANT_LEN:
        raise TenantError(f"Tenant id is longer than {MAX_TENANT_LEN} characters.")
    if any(unicodedata.category(ch) == "Cc" for ch in tenant):
        raise TenantError("Tenant id must not contain control characters.")
    return tenant


def _fold(tenant: str) -> str:
    """What a reader tells apart: the same letters whatever their case, accents or Unicode
    composition ("racé" beside "race" was created, while the refusal of "Firm" beside "firm"
    said accents were checked too: a reliability pass)."""
    decomposed = unicodedata.normalize("NFKD", tenant.casefold())
    return unicodedata.normalize("NFKC", "".join(ch for ch in decomposed if unicodedata.category(ch) != "Mn"))


def validate_new_tenant(tenant: str, existing: Iterable[str] = ()) -> str:
    """The stricter rules for an id being created: letters or digits (any script, spaces
    inside allowed), no path separator, control or invisible character, no markup, and not
    a case variant of an `existing` id. Returns the id; TenantError with one sentence.
    An id already in `existing` passes (creating it again is a no-op)."""
    validate_tenant(tenant)
    if tenant != tenant.strip():
        raise TenantError("Tenant id must not start or end with a space.")
    if any(unicodedata.category(ch) in ("Cf", "Co", "Cs", "Cn", "Zl", "Zp") for ch in tenant):
        raise TenantError("Tenant id must not contain invisible or control characters.")
    if "<" in tenant or ">" in tenant:
        raise TenantError("Tenant id must not contain markup characters (< or >).")
    if "/" in tenant or "\\" in tenant:
        raise TenantError("Tenant id must not contain a path separator (/ or \\).")
    if not any(unicodedata.category(ch)[0] in "LN" for ch in tenant):
        raise TenantError("Tenant id must contain at least one letter or digit.")
    existing = list(existing)
    if tenant not in existing:
        twin = next((t for t in existing if _fold(t) == _fold(tenant)), None)
        if twin is not None:
            raise TenantError(f"Tenant '{tenant}' differs from the existing tenant '{twin}' only in letter case "
                              f"or accents; use '{twin}' or choose a clearly different id.")
    return tenant


def is_eval_tenant(tenant: str) -> bool:
    """A tenant the eval harness builds and empties (`evals.run --ingest`), not a user's."""
    return tenant.startswith(EVAL_TENANT_PREFIX)


def tenant_key(tenant: str) -> str:
    """First 16 hex of sha256(tenant id): stable, ASCII, collision-free in practice."""
    validate_tenant(tenant)
    return hashlib.sha256(tenant.encode("utf-8")).hexdigest()[:16]


def collection_name(tenant: str) -> str:
    """Chroma collection for a tenant: `t_<16 hex>` fits every Chroma name rule."""
    return "t_" + tenant_key(tenant)


def tenant_dir(settings: Settings, tenant: str) -> Path:
    """The tenant's own folder: kept originals, lexical index, settings."""
    return Path(settings.data_dir) / "tenants" / tenant_key(tenant)


def conversations_dir(settings: Settings, tenant: str) -> Path:
    """The tenant's saved Ask-page chats (ui/conversations.py), outside its own folder."""
    return Path(settings.data_dir) / "conversations" / tenant_key(tenant)


def kept_file(settings: Settings, tenant: str, stored: str) -> Path:
    """Where a document's kept original is: the registry stores its name under the tenant's
    folder (older rows an absolute path, of which the name is what counts), so a copied or
    moved data folder finds its own files and never touches another folder's."""
    return tenant_dir(settings, tenant) / "files" / Path(stored).name
