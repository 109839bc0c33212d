"""Every page renders under st.navigation with the sidebar's tenant picker and provider status."""

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]

PAGES = ["pages/ask.py", "pages/traces.py", "pages/review.py", "pages/documents.py", "pages/settings.py", "pages/quality.py"]


def test_sidebar_has_tenant_picker_and_provider(app):
    picker = app.sidebar.selectbox(key="tenant")
    assert picker.value == "acme" and picker.options == ["acme"]
    assert any("extractive" in m.value for m in app.sidebar.markdown)
    assert [t.value for t in app.title] == ["Ask"]


@pytest.mark.parametrize("path", PAGES)
def test_every_page_renders(app, goto, path):
    goto(app, path)
    assert app.sidebar.selectbox(key="tenant").value == "acme"  # the picker survives navigation
    assert app.title[0].value == path.split("/")[1].removesuffix(".py").capitalize()


def test_demo_is_the_default_tenant(data_dir, settings):
    from core.documents import ensure_tenant

    ensure_tenant(settings, "demo")  # created after acme, still the default
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    assert at.sidebar.selectbox(key="tenant").value == "demo"
    assert at.sidebar.selectbox(key="tenant").options == ["acme", "demo"]


def test_no_tenant_yet_points_to_documents(tmp_path, monkeypatch, goto):
    monkeypatch.setenv("GROUNDWORK_DATA", str(tmp_path / "empty"))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    assert not at.exception
    assert any("Documents" in i.value for i in at.sidebar.info)
    goto(at, "pages/documents.py")
    at.text_input[0].set_value("newco")
    at.button[0].click().run()  # "Create tenant" (form submit)
    assert not at.exception
    assert at.sidebar.selectbox(key="tenant").value == "newco"


def test_tenant_from_the_url_then_the_picker_is_free(data_dir, settings):
    from core.documents import ensure_tenant

    ensure_tenant(settings, "demo")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["tenant"] = "acme"  # a shared trace link names its tenant
    at.run()
    assert at.sidebar.selectbox(key="tenant").value == "acme"  # not the default demo
    at.sidebar.selectbox(key="tenant").select("demo").run()
    assert at.sidebar.selectbox(key="tenant").value == "demo"
    assert at.query_params["tenant"] in ("demo", ["demo"])  # the URL follows the picker


def _plain(md: str) -> str:
    return re.sub(r"\\(.)", r"\1", md)


def _param(at, name):
    value = at.query_params.get(name)
    return value[-1] if isinstance(value, list) else value


def test_the_url_carries_the_tenant_on_every_page_and_a_reload_keeps_it(data_dir, settings, goto):
    """QA: F5 reset the sidebar to demo, so an admin could upload into the wrong tenant."""
    from core.documents import ensure_tenant

    ensure_tenant(settings, "demo")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    assert _param(at, "tenant") == "demo"  # the default is in the URL from the first run
    at.sidebar.selectbox(key="tenant").select("acme").run()
    for path in PAGES:
        goto(at, path)
        assert _param(at, "tenant") == "acme", path
    # F5: a new session opening the same URL
    reloaded = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    reloaded.query_params["tenant"] = _param(at, "tenant")
    reloaded.switch_page("pages/documents.py").run()
    assert not reloaded.exception
    assert reloaded.sidebar.selectbox(key="tenant").value == "acme"
    assert any("acme" in c.value for c in reloaded.caption)  # the page works on acme, not demo


def test_other_query_params_are_kept(data_dir):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["trace"] = "t123"
    at.run()
    assert _param(at, "trace") == "t123" and _param(at, "tenant") == "acme"


def test_an_unknown_tenant_in_the_url_is_said(data_dir, settings):
    from core.documents import ensure_tenant

    ensure_tenant(settings, "demo")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["tenant"] = "nosuch"
    at.run()
    assert not at.exception
    assert [_plain(w.value) for w in at.warning] == ["No tenant 'nosuch'; showing demo."]
    assert at.sidebar.selectbox(key="tenant").value == "demo"
    assert _param(at, "tenant") == "demo"


def test_eval_tenants_are_behind_a_toggle_and_listed_last(data_dir, settings):
    from core.documents import ensure_tenant

    ensure_tenant(settings, "eval-demo-demo")  # what `evals.run --ingest` builds
    ensure_tenant(settings, "demo")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    picker = at.sidebar.selectbox(key="tenant")
    assert picker.options == ["acme", "demo"] and picker.value == "demo"
    at.sidebar.toggle(key="show_eval_tenants").set_value(True).run()
    picker = at.sidebar.selectbox(key="tenant")
    assert picker.options == ["acme", "demo", "eval-demo-demo (eval)"] and picker.value == "demo"
    picker.select("eval-demo-demo").run()
    assert at.sidebar.selectbox(key="tenant").value == "eval-demo-demo"
    at.sidebar.toggle(key="show_eval_tenants").set_value(False).run()  # hiding them leaves the eval tenant
    assert at.sidebar.selectbox(key="tenant").value == "demo"
    linked = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    linked.query_params["tenant"] = "eval-demo-demo"  # a link to an eval tenant still opens it
    linked.run()
    assert linked.sidebar.selectbox(key="tenant").value == "eval-demo-demo"
    assert linked.sidebar.toggle(key="show_eval_tenants").value is True


def _create(at, name):
    at.text_input[0].set_value(name)
    next(b for b in at.button if b.label == "Create tenant").click().run()
    assert not at.exception, [e.value for e in at.exception]


def test_creating_a_tenant_says_created_or_already_exists(app, goto, settings):
    from core.documents import ensure_tenant

    ensure_tenant(settings, "demo")
    goto(app, "pages/documents.py")
    assert app.sidebar.selectbox(key="tenant").value == "acme"
    _create(app, "Компания Ромашка")
    assert app.sidebar.selectbox(key="tenant").value == "Компания Ромашка"
    assert "Created tenant 'Компания Ромашка'." in [_plain(i.value) for i in app.info]
    _create(app, "demo")
    assert app.sidebar.selectbox(key="tenant").value == "demo"
    notes = [_plain(i.value) for i in app.info]
    assert "Tenant 'demo' already exists; switched to it." in notes and not any("Created" in n for n in notes)
    app.run()
    assert not any("already exists" in _plain(i.value) for i in app.info)  # said once


@pytest.mark.parametrize("bad, sentence", [
    ("Demo", "Tenant 'Demo' differs from the existing tenant 'demo' only in letter case or accents; "
             "use 'demo' or choose a clearly different id."),
    ("../etc", "Tenant id must not contain a path separator (/ or \\)."),
    ("<b>x</b>", "Tenant id must not contain markup characters (< or >)."),
    ("!!!", "Tenant id must contain at least one letter or digit."),
])
def test_creating_a_confusing_tenant_is_refused(app, goto, settings, bad, sentence):
    from core import store
    from core.documents import ensure_tenant

    ensure_tenant(settings, "demo")
    goto(app, "pages/documents.py")
    _create(app, bad)
    assert [_plain(e.value) for e in app.error] == [sentence]
    assert [t["id"] for t in store.list_tenants(settings)] == ["acme", "demo"]
    assert app.sidebar.selectbox(key="tenant").value == "acme"
