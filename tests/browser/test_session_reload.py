"""A signed-in user reloads the page in Chromium and is still signed in (the session token
travels in the URL); after Sign out a reload shows the sign-in again."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import console_with_user, sign_in
from tests.browser.test_journeys import expect, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_a_sign_in_survives_a_reload_and_sign_out_ends_it(fresh_server, page, shot, tmp_path):
    url = console_with_user(fresh_server, tmp_path, "ann", "admin")
    page.goto(url + "/?tenant=acme")
    sign_in(page, "ann")
    expect()(page.get_by_text(re.compile("Signed in as"))).to_be_visible()
    # the run after signing in (it writes the session token into the URL) must end first: a
    # page link clicked during it was lost once in a suite run under load
    wait_idle(page)
    page.get_by_role("link", name="Documents").click()
    expect()(page.get_by_role("heading", name="Documents", level=1)).to_be_visible()
    wait_idle(page)
    assert re.search(r"[?&]session=gws_", page.url), page.url  # kept across the page switch

    page.reload()
    expect()(page.get_by_role("heading", name="Documents", level=1)).to_be_visible()
    expect()(page.get_by_text(re.compile("Signed in as"))).to_be_visible()
    wait_idle(page)
    shot(page, "27-signed-in-after-reload", full_page=False)

    signed_in_url = page.url
    page.get_by_role("button", name="Sign out").click()
    expect()(page.get_by_role("heading", name="Sign in", level=1)).to_be_visible()
    wait_idle(page)
    assert "session=" not in page.url, page.url
    page.goto(signed_in_url)  # the URL that still holds the token: ended, so the sign-in form
    expect()(page.get_by_role("heading", name="Sign in", level=1)).to_be_visible()
    assert not page.errors, page.errors
