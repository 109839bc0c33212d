import re

import pytest

from core.tenants import TenantError, collection_name, tenant_dir, validate_tenant

CHROMA_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{1,510}[a-z0-9]$")


@pytest.mark.parametrize("tenant", ["acme", "Компания Ромашка", "a b", "x" * 128, "ünïcødé/../etc", "1"])
def test_collection_names_fit_chroma_rules(tenant):
    name = collection_name(tenant)
    assert CHROMA_NAME.match(name)
    assert name.startswith("t_") and len(name) == 18


def test_ids_that_collide_under_naive_sanitising_stay_distinct():
    ids = ["a b", "a_b", "a-b", "a.b", "A b", "a  b", "компания", "kompaniya", "x" * 127 + "y", "x" * 128]
    names = {collection_name(t) for t in ids}
    assert len(names) == len(ids)


def test_collection_name_is_stable():
    assert collection_name("acme") == collection_name("acme")


@pytest.mark.parametrize("bad", ["", "   ", "x" * 129, "a\nb", None])
def test_invalid_tenant_ids_are_rejected(bad):
    with pytest.raises(TenantError):
        validate_tenant(bad)


def test_tenant_dirs_differ(settings):
    assert tenant_dir(settings, "a b") != tenant_dir(settings, "a_b")
    assert tenant_dir(settings, "a b").parent == tenant_dir(settings, "a_b").parent
