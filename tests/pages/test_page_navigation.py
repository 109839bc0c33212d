"""Every page renders under st.navigation with the sidebar's tenant picker and provider status."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]

PAGES = ["pages/ask.py", "pages/traces.py", "pages/documents.py", "pages/settings.py", "pages/quality.py"]


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
