"""A signed-in user reloads the page in Chromium and is still signed in (the session token
travels in the URL); after Sign out a reload shows the sign-in again. A page link clicked as
soon as the sidebar appears after signing in opens its page."""

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
    page.get_by_role("link", name="Documents").click()  # at once, as a user does
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


# Every change of the page's address or of whether a sidebar page link is shown, in order.
LINKS_BY_ADDRESS_JS = """(() => {
  const seen = window.__linksByAddress = [];
  new MutationObserver(() => {
    const now = location.pathname + (document.querySelector('[data-testid="stSidebarNavLink"]') ? ' links' : '');
    if (seen[seen.length - 1] !== now) seen.push(now);
  }).observe(document, {subtree: true, childList: true});
})()"""


def test_a_page_link_clicked_as_the_sidebar_appears_after_signing_in_opens_its_page(fresh_server, page, tmp_path):
    """Seen in a suite run under load: Documents, clicked right after signing in at /, never
    opened (Ask did). The run after the sign-in only switches from / to the first page, and a
    page link clicked in a run that ends in a page switch can be lost: Streamlit stops that
    run for the click, yet still starts the switch's run, whose page wins over the click's
    (ui/auth.py nav_position). So that run shows no page link; on a loaded machine the click
    fell in that window about one time in ten, hence several sign-ins, and each also checks
    that no page link was on offer while the address was still /."""
    url = console_with_user(fresh_server, tmp_path, "ann", "admin")
    page.add_init_script(LINKS_BY_ADDRESS_JS)
    for attempt in range(6):
        page.goto(url + "/?tenant=acme")
        expect()(page.get_by_role("heading", name="Sign in", level=1)).to_be_visible()
        # from the sign-in on (a fresh server's first page can flash Streamlit's own page list)
        page.evaluate("window.__linksByAddress.length = 0")
        sign_in(page, "ann")
        expect()(page.get_by_text(re.compile("Signed in as"))).to_be_visible()
        page.get_by_role("link", name="Documents").click()
        expect()(page.get_by_role("heading", name="Documents", level=1)).to_be_visible()
        seen = page.evaluate("window.__linksByAddress")
        assert "/ links" not in seen, (attempt, seen)  # a link shown by the run that switches away
    assert not page.errors, page.errors
