"""Streamlit's own OIDC sign-in (`st.login`) against a real authorization-code flow: a
local OpenID Connect provider (tests/browser/oidc_provider.py), the console configured
through an `[auth]` secrets file as an operator would, Debian's Chromium clicking through.

A person whose e-mail holds a role signs in with the organisation and sees only their
tenant; one whose e-mail holds no role sees no tenant's data; signing out ends it.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from evals.bench_ui import free_port
from tests.browser.conftest import console
from tests.browser.oidc_provider import Provider
from tests.browser.test_journeys import expect, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SECRETS = """[auth]
redirect_uri = "{url}/oauth2callback"
cookie_secret = "a-cookie-secret-for-this-test-only"
client_id = "groundwork-console"
client_secret = "{secret}"
server_metadata_url = "{metadata}"
"""


def _sign_in_with_the_organisation(page, url: str, email: str) -> None:
    page.goto(url)
    page.get_by_role("button", name="Sign in with your organisation").click()
    expect()(page.get_by_role("heading", name="Example organisation")).to_be_visible()
    page.get_by_label("E-mail").fill(email)
    page.get_by_role("button", name="Continue").click()


def test_oidc_sign_in_shows_only_the_users_tenant(tmp_path: Path, page, shot) -> None:
    from core import users
    from core.config import load_settings
    from core.documents import ensure_tenant, ingest_file

    data = tmp_path / "data"
    settings = load_settings({"GROUNDWORK_DATA": str(data)})
    for tenant in ("alpha", "bravo"):
        ensure_tenant(settings, tenant)
    doc = tmp_path / "bravo-secret.md"
    doc.write_text("# Bravo\n\nThe bravo launch code is 7741.\n", encoding="utf-8")
    assert ingest_file(settings, "bravo", doc).status == "ready"
    users.add_user(settings, "Ana@Example.com", None, "alpha", "admin", organisation_only=True)
    users.add_user(settings, "boss@example.com", None, "bravo", "admin", organisation_only=True)

    port = free_port()
    with Provider("groundwork-console", "provider-secret") as idp:
        secrets_file = tmp_path / "secrets.toml"
        secrets_file.write_text(SECRETS.format(url=f"http://127.0.0.1:{port}", secret="provider-secret",
                                               metadata=idp.metadata_url), encoding="utf-8")
        log = tmp_path / "streamlit.log"
        with console(data, log, port=port, args=("--secrets.files", str(secrets_file))) as url:
            # signed out: the sign-in page only, with the organisation's button
            page.goto(url + "/documents?tenant=bravo")
            expect()(page.get_by_role("heading", name="Sign in", level=1)).to_be_visible()
            wait_idle(page)
            expect()(page.get_by_text("bravo-secret.md")).to_have_count(0)
            shot(page, "28-oidc-sign-in", full_page=False)

            _sign_in_with_the_organisation(page, url, "ana@example.com")
            expect()(page.get_by_text(re.compile(r"Signed in as .*ana@example\.com"))).to_be_visible(timeout=60_000)
            wait_idle(page)
            assert idp.tokens_issued == 1  # the console exchanged the code for a signed ID token
            picker = page.get_by_test_id("stSidebar").get_by_role("combobox", name="Tenant")
            expect()(picker).to_have_value("alpha")
            shot(page, "29-oidc-signed-in", full_page=False)
            # the other tenant by URL: not opened, its document never shown
            page.goto(url + "/documents?tenant=bravo")
            expect()(page.get_by_role("heading", name="Documents", level=1)).to_be_visible()
            wait_idle(page)
            expect()(page.get_by_text("bravo-secret.md")).to_have_count(0)
            expect()(picker).to_have_value("alpha")
            picker.click()
            expect()(page.get_by_role("option", name="alpha")).to_be_visible()
            expect()(page.get_by_role("option", name="bravo")).to_have_count(0)
            page.keyboard.press("Escape")

            # signing out ends the provider's session cookie too: the sign-in page again
            page.get_by_role("button", name="Sign out").click()
            expect()(page.get_by_role("heading", name="Sign in", level=1)).to_be_visible(timeout=60_000)
            # the logout route clears Streamlit's (HttpOnly) auth cookie on its way back
            deadline = time.monotonic() + 30
            while [c for c in page.context.cookies() if c["name"].startswith("_streamlit_user")]:
                assert time.monotonic() < deadline, "Sign out left the provider's sign-in cookie"
                page.wait_for_timeout(200)
            page.goto(url)
            expect()(page.get_by_role("heading", name="Sign in", level=1)).to_be_visible()

            # an e-mail the console has no account for: signed in with the provider, no tenant
            _sign_in_with_the_organisation(page, url, "stranger@example.com")
            expect()(page.get_by_text(re.compile("no role in any tenant|ask an admin", re.I)).first).to_be_visible(
                timeout=60_000)
            expect()(page.get_by_text("bravo-secret.md")).to_have_count(0)
            assert not page.errors, page.errors
