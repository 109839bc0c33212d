"""Sign-in and roles in the console (accounts and rules in core/users.py).

Single-user mode (no account exists): no sign-in, every page, and the sidebar says so.
Otherwise a visitor sees only the sign-in form; a signed-in user sees only their tenants in
the picker and only their role's pages for the picked tenant. Streamlit's own OIDC sign-in
(`st.login`) is used when `[auth]` is configured in `.streamlit/secrets.toml`: the
provider's e-mail is the user name, whose roles come from `core.cli users add`.

A local sign-in survives a reload for `Settings.session_hours`: its session token travels in
the URL (`?session=`), as Streamlit offers no supported way for a script to set a cookie
(`st.context.cookies` is read-only); docs/architecture.md weighs what that costs.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from core.config import Settings
from ui.safe import escape_md

_USER = "_signed_in"
_TOKEN = "_session_token"
_ENDED = "_session_ended"
_AT_ROOT = "_signed_in_at_root"  # the next run opens `/`, i.e. switches to the first page (nav_position)
PARAM = "session"  # the query parameter carrying the session token


@dataclass(frozen=True)
class User:
    name: str
    roles: dict[str, str]  # tenant -> expert | admin | manager

    def role_in(self, tenant: str | None) -> str | None:
        return self.roles.get(tenant) if tenant else None


def _oidc_configured() -> bool:
    try:
        return "auth" in st.secrets
    except Exception:  # no secrets file at all: Streamlit raises its own not-found error
        return False


def _sign_in_form(settings: Settings, at_root: bool = False) -> None:
    """The sign-in form; `at_root`: the form at `/` (the run after signing in there opens
    the first page by a page switch, see nav_position), else at a page's own address."""
    from core import users

    st.title("Sign in")
    st.caption("This Groundwork console has accounts; sign in to see your tenants.")
    if st.session_state.pop(_ENDED, False):
        st.info("Your sign-in has ended (signed out, expired or revoked); sign in again.", icon=":material/timer_off:")
    if _oidc_configured():
        st.button("Sign in with your organisation", on_click=st.login, icon=":material/login:")
        st.divider()
    with st.form("sign_in"):
        name = st.text_input("User name", max_chars=64)
        password = st.text_input("Password", type="password", max_chars=200)
        if st.form_submit_button("Sign in", type="primary"):
            try:
                roles = users.authenticate(settings, name, password)
            except users.SignInLocked as exc:
                st.error(str(exc), icon=":material/lock_clock:")
            else:
                _signed_in(settings, name, roles, at_root)


def _signed_in(settings: Settings, name: str, roles: dict[str, str] | None, at_root: bool) -> None:
    """After the password was checked: say it was wrong, or start the session."""
    from core import users

    if roles is None:
        st.error("Wrong user name or password.")
    else:
        user = User(" ".join(name.split()).lower(), roles)
        token = users.start_session(settings, user.name)
        st.session_state[_USER], st.session_state[_TOKEN] = user, token
        st.session_state[_AT_ROOT] = at_root
        st.query_params[PARAM] = token  # a reload of this URL finds the sign-in again
        st.rerun()


def current_user(settings: Settings) -> User | None | bool:
    """The signed-in user; None in single-user mode; False when a sign-in is needed."""
    from core import users

    if not users.sign_in_required(settings):
        st.session_state.pop(_USER, None)
        return None
    user = _from_token(settings)
    if user is None and _oidc_configured() and getattr(st.user, "is_logged_in", False):
        email = str(st.user.get("email") or "").lower()
        user = User(email, users.roles_of(settings, email)) if email else None
        if user is not None:
            st.session_state[_USER] = user
    if user is None:
        return False
    st.session_state.pop(_ENDED, None)  # signed in after all (the OIDC provider): no "ended" note later
    return User(user.name, users.roles_of(settings, user.name))  # roles as stored now


def signed_in_name() -> str | None:
    """The name of this run's signed-in user (app.py checked it first); None in single-user mode."""
    user = st.session_state.get(_USER)
    return user.name if user is not None else None


def _from_token(settings: Settings) -> User | None:
    """The session's user, checked against their token on every run (so sign-out elsewhere,
    expiry and a removed user end it at the next click); after a reload the URL's token
    signs the user in again. A dead token leaves the URL."""
    from core import users

    user, token = st.session_state.get(_USER), st.session_state.get(_TOKEN)
    if user is not None and token is None:
        return user  # signed in by the OIDC provider: its own cookie keeps it
    token = token or st.query_params.get(PARAM)
    name = users.session_user(settings, token) if token else None
    if name is None or (user is not None and user.name != name):
        if token:
            st.session_state[_ENDED] = True
        st.session_state.pop(_USER, None)
        st.session_state.pop(_TOKEN, None)
        if PARAM in st.query_params:
            del st.query_params[PARAM]
        return None
    if user is None:
        user = User(name, users.roles_of(settings, name))
        st.session_state[_USER], st.session_state[_TOKEN] = user, token
    if st.query_params.get(PARAM) != token:
        st.query_params[PARAM] = token  # a page switch drops the query string; a reload needs it
    return user


def sign_in_pages(settings: Settings, stems: list[str]) -> list:
    """The one page a signed-out visitor may open, also at every page's own address: a
    bookmark of /documents shows the sign-in form (not "Page not found") and, signed in,
    the page it names."""
    form = st.Page(lambda: _sign_in_form(settings, at_root=True), title="Sign in", icon=":material/login:",
                   url_path="sign-in")
    return [form] + [st.Page(lambda: _sign_in_form(settings), title="Sign in", url_path=stem, visibility="hidden")
                     for stem in stems]


def sidebar_note(settings: Settings, user: User | None, tenant: str | None) -> None:
    if user is None:
        st.sidebar.caption("Single-user mode: no sign-in (meant for 127.0.0.1). "
                           "Add an account with core.cli users add to turn sign-in on.")
        return
    role = user.role_in(tenant) or "no role"
    st.sidebar.caption(f"Signed in as **{escape_md(user.name, inline=True)}** · {escape_md(role, inline=True)}")
    if st.sidebar.button("Sign out", icon=":material/logout:", key="sign_out"):
        from core import users

        users.end_session(settings, st.session_state.pop(_TOKEN, None))  # the URL's token is dead now
        st.session_state.pop(_USER, None)
        if PARAM in st.query_params:
            del st.query_params[PARAM]
        if _oidc_configured() and getattr(st.user, "is_logged_in", False):
            # the browser goes to Streamlit's logout route, which drops the provider's cookie
            # and comes back signed out; a rerun here could draw first and race that redirect
            st.logout()
            return
        st.rerun()


ROOT_PATH = "home"  # the hidden default page's own name; Streamlit serves it at /


def nav_position() -> str:
    """Where this run's navigation goes: "hidden" on the run right after a sign-in at `/`,
    which only switches to the first page (root_page), else "sidebar".

    A page link clicked in a run that ends in `st.switch_page` (or `st.rerun`) can be lost:
    Streamlit (1.67, runner.fastReruns) stops that run's ScriptRunner and starts a new one
    for the click, but the stopped runner still begins the switch's run it had taken, and
    that sets the page to run in the session's one PagesManager, over the click's page, so
    the click's run opens the switched-to page (seen: Documents clicked as the sidebar
    appeared after signing in; Ask opened). A run without links offers nothing to lose;
    the first page's run draws them."""
    return "hidden" if st.session_state.pop(_AT_ROOT, False) else "sidebar"


def root_page(first):
    """The default page, hidden: Streamlit serves a default page only at `/` (its own
    address reads "Page not found"), so the first page of the role keeps its own address
    (/ask, /quality) and `/` opens it there, with the address's query parameters."""
    return st.Page(lambda: open_page(first), title=first.title, icon=first.icon, url_path=ROOT_PATH,
                   default=True, visibility="hidden")


def open_page(page) -> None:
    """Switch to `page`, keeping every query parameter (`?tenant=`, `?session=`, repeats too):
    `st.switch_page` drops them unless given."""
    from ui.state import say_again_next_run

    say_again_next_run()
    kept = {key: st.query_params.get_all(key) for key in st.query_params}
    st.switch_page(page, query_params={key: values[0] if len(values) == 1 else values for key, values in kept.items()})


def not_for_role_page(stem: str, title: str, role: str | None, tenant: str | None, home=None):
    """A hidden page at a page's own address for users whose role lacks it: a bookmark or a
    shared link says whose page it is, not Streamlit's "Page not found"."""
    return st.Page(lambda: not_for_role(stem, title, role, tenant, home), title=title, url_path=stem,
                   visibility="hidden")


def not_for_role(stem: str, title: str, role: str | None, tenant: str | None, home=None) -> None:
    """Whose page this is, and a link to the user's first page (`home`): a one-page
    navigation is hidden, so the way back is here."""
    from core.users import PAGES_OF_ROLE

    roles = [r for r, stems in PAGES_OF_ROLE.items() if stem in stems]
    where = f" in tenant **{escape_md(tenant, inline=True)}**" if tenant else ""
    # an account has one role a tenant: an admin reads a manager's page from a manager account
    who = ("Sign in with an account that has the role (admins give roles with `core.cli users add`)."
           if role == "admin" else "An admin can give you the role.")
    st.warning(f"**{title}** is for {' and '.join(f'{r}s' for r in roles)}; your role{where} is "
               f"**{escape_md(role or 'none', inline=True)}**. {who}", icon=":material/lock:")
    if home is not None:
        st.page_link(home, label=f"Open {home.title}", icon=":material/arrow_forward:")


def may_open(settings: Settings, stem: str, tenant: str | None) -> bool:
    """Whether this run's user may open page `stem` (file stem) for `tenant`: always in
    single-user mode, else by their role there as stored now. A link to a page the user may
    not open only leads to the sign-in form (a new tab) and then a lock."""
    from core import users

    name = signed_in_name()
    if name is None:
        return True
    return stem in page_names(users.roles_of(settings, name).get(tenant or ""))


def is_admin_of(settings: Settings, tenant: str) -> bool:
    """Whether this run's user is an admin of `tenant` as stored now (always in single-user mode)."""
    from core import users

    name = signed_in_name()
    return name is None or users.roles_of(settings, name).get(tenant) == "admin"


def page_names(role: str | None) -> set[str]:
    """The pages (file stems) a role may open."""
    from core.users import PAGES_OF_ROLE

    return set(PAGES_OF_ROLE.get(role or "", ()))
