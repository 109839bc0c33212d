"""Tenant ids, validation and the names derived from them (collection, folder)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from core.config import Settings

MAX_TENANT_LEN = 128


class TenantError(ValueError):
    """A tenant id that cannot be used."""


def validate_tenant(tenant: str) -> str:
    if not isinstance(tenant, str) or not tenant.strip():
        raise TenantError("Tenant id must be a non-empty string.")
    if len(tenant) > MAX_TENANT_LEN:
        raise TenantError(f"Tenant id is longer than {MAX_TENANT_LEN} characters.")
    if any(ord(ch) < 32 for ch in tenant):
        raise TenantError("Tenant id must not contain control characters.")
    return tenant


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
