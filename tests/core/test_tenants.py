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


# ---- creating a tenant (the Documents page's form and ui.services.create_tenant) ----------


def _create(settings, tenant):
    from ui.services import create_tenant

    return create_tenant(settings, tenant)


def _ids(settings):
    from core import store

    return [t["id"] for t in store.list_tenants(settings)]


def test_ids_the_tenancy_rules_allow_get_distinct_collections(settings):
    from core import store

    ids = ["Компания Ромашка", "a b", "x" * 128, "acme", "Acme Ltd. (EU)", "ünïcødé"]
    for t in ids:
        assert _create(settings, t) == t
    assert _create(settings, "  spaced  ") == "spaced"  # surrounding spaces dropped
    rows = store.list_tenants(settings)
    assert [r["id"] for r in rows] == ids + ["spaced"]
    assert len({r["collection"] for r in rows}) == len(rows)
    assert all(CHROMA_NAME.match(r["collection"]) for r in rows)


@pytest.mark.parametrize("bad, sentence", [
    ("", "Tenant id must be a non-empty string."),
    ("   ", "Tenant id must be a non-empty string."),
    ("...", "Tenant id must contain at least one letter or digit."),
    ("-_-", "Tenant id must contain at least one letter or digit."),
    ("../etc", "Tenant id must not contain a path separator (/ or \\)."),
    ("a/b", "Tenant id must not contain a path separator (/ or \\)."),
    ("..\\etc", "Tenant id must not contain a path separator (/ or \\)."),
    ("a\tb", "Tenant id must not contain control characters."),
    ("a\x7fb", "Tenant id must not contain control characters."),
    ("a\u200bb", "Tenant id must not contain invisible or control characters."),
    ("<b>x</b>", "Tenant id must not contain markup characters (< or >)."),
    ("x" * 129, "Tenant id is longer than 128 characters."),
    ("eval-demo-demo", "Tenant ids starting with 'eval-' are reserved for the eval harness; choose another id."),
])
def test_bad_new_ids_are_refused_with_one_sentence(settings, bad, sentence):
    with pytest.raises(TenantError) as err:
        _create(settings, bad)
    assert str(err.value) == sentence
    assert _ids(settings) == []


@pytest.mark.parametrize("twin", ["Demo", "DEMO", "ｄｅｍｏ", "démo", "de\u0301mo"])  # accents: a reliability pass
def test_an_id_differing_only_in_case_is_refused(settings, twin):
    _create(settings, "demo")
    with pytest.raises(TenantError) as err:
        _create(settings, twin)
    assert str(err.value) == (f"Tenant '{twin}' differs from the existing tenant 'demo' only in letter case "
                              "or accents; use 'demo' or choose a clearly different id.")
    assert _ids(settings) == ["demo"]


def test_creating_an_existing_tenant_returns_it_unchanged(settings):
    assert _create(settings, "demo") == "demo"
    assert _create(settings, "demo ") == "demo"
    assert _ids(settings) == ["demo"]


def _files_outside(root, data):
    return {p for p in root.rglob("*") if data not in p.parents and p != data}


@pytest.mark.parametrize("tenant", ["../etc", "../../etc", "..", "/tmp/x", "Компания/../../x"])
def test_no_tenant_id_writes_outside_the_data_folder(settings, tmp_path, write_file, tenant):
    """Tenant folders are named by a hash of the id, so even an id an older version (or the
    CLI's `ingest --tenant`) accepted cannot climb out of GROUNDWORK_DATA."""
    from core.documents import ingest_file

    data = settings.data_dir
    source = write_file("notes.md", "# Notes\n\nThe gate opens at seven in the morning.\n")
    before = _files_outside(tmp_path, data)
    with pytest.raises(TenantError):
        _create(settings, tenant)  # the form refuses it
    result = ingest_file(settings, tenant, source)  # the lenient path still stays inside
    assert result.status == "ready", result
    assert tenant_dir(settings, tenant).parent == data / "tenants"
    assert _files_outside(tmp_path, data) == before
    assert not (tmp_path / "etc").exists() and not (data / "etc").exists()
    assert not list((data / "tenants").glob("*/files/../../etc"))
