"""Sign-in and roles: single-user mode by default; with accounts, only the sign-in form for
a visitor, only a user's tenants in the picker and only their role's pages."""

from streamlit.testing.v1 import AppTest

from core import users
from tests.pages.conftest import ROOT

PASSWORD = "correct horse battery"


def sign_in(at: AppTest, name: str, password: str = PASSWORD) -> AppTest:
    at.text_input[0].input(name)
    at.text_input[1].input(password)
    next(b for b in at.button if b.label == "Sign in").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def fresh(data_dir) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    return at.run()


def test_single_user_mode_says_so(app):
    assert any("Single-user mode" in c.value for c in app.sidebar.caption)
    assert app.sidebar.selectbox(key="tenant").value == "acme"


def test_a_signed_out_visitor_sees_only_the_sign_in(settings, data_dir):
    users.add_user(settings, "ann", PASSWORD, "acme", "expert")
    at = fresh(data_dir)
    assert [t.value for t in at.title] == ["Sign in"]
    assert not at.sidebar.selectbox and not at.dataframe and not at.chat_input
    sign_in(at, "ann", "wrong password!")
    assert any("Wrong user name or password" in e.value for e in at.error)
    assert [t.value for t in at.title] == ["Sign in"]


def test_a_manager_sees_only_quality_and_cannot_open_documents(settings, data_dir):
    users.add_user(settings, "max", PASSWORD, "acme", "manager")
    at = sign_in(fresh(data_dir), "max")
    assert [t.value for t in at.title] == ["Quality"]
    assert any("Signed in as **max** · manager" in c.value for c in at.sidebar.caption)
    import pytest

    with pytest.raises(ValueError, match="Known pages: \\['.*quality.py'\\]"):
        at.switch_page("pages/documents.py")  # not a page of this user's navigation at all


def test_a_user_of_one_tenant_cannot_pick_or_link_another(settings, data_dir):
    from core.documents import ensure_tenant

    ensure_tenant(settings, "beta")
    users.add_user(settings, "ann", PASSWORD, "acme", "admin")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["tenant"] = "beta"
    at.run()
    sign_in(at, "ann")
    picker = at.sidebar.selectbox(key="tenant")
    assert picker.options == ["acme"] and picker.value == "acme"
    assert [t.value for t in at.title] == ["Ask"]
    at.switch_page("pages/documents.py").run()
    assert [t.value for t in at.title] == ["Documents"]  # an admin's page
    next(b for b in at.sidebar.button if b.label == "Sign out").click().run()
    assert [t.value for t in at.title] == ["Sign in"]


def test_accounts_from_the_command_line(settings):
    assert not users.sign_in_required(settings)
    from core.documents import ensure_tenant

    ensure_tenant(settings, "acme")
    assert users.add_user(settings, "Ann", PASSWORD, "acme", "expert") == "created"
    assert users.authenticate(settings, "ann", PASSWORD) == {"acme": "expert"}
    assert users.authenticate(settings, "ann", "nope") is None and users.authenticate(settings, "bob", PASSWORD) is None
    stored = users.list_users(settings)
    assert stored[0]["username"] == "ann" and PASSWORD not in str(stored)
    import pytest

    with pytest.raises(ValueError, match="at least"):
        users.add_user(settings, "cy", "short", "acme", "expert")
    with pytest.raises(LookupError):
        users.add_user(settings, "cy", PASSWORD, "nowhere", "expert")
    assert users.remove_user(settings, "ann") and not users.sign_in_required(settings)
