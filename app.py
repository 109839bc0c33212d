"""Groundwork console: sign-in (when accounts exist), navigation grouped by role, tenant
picker and provider status.

Every page is a thin script under pages/; shared rendering lives in ui/.
"""

from pathlib import Path

import streamlit as st

from ui import auth
from ui.state import base_settings, finish_abandoned_deletions, sidebar, start_warm_up

# a local file: a Material icon as favicon is fetched from fonts.gstatic.com, which is offline here
st.set_page_config(page_title="Groundwork", page_icon=str(Path(__file__).parent / "ui" / "favicon.png"), layout="wide")
start_warm_up(base_settings())  # models load while the user reads the page
# a tenant deletion a killed process left half-done: finished in the background
finish_abandoned_deletions(str(base_settings().data_dir), base_settings())

# (file stem, title, icon) per group; a signed-in user sees only their role's pages
PAGES = {
    "Domain experts": [("ask", "Ask", ":material/chat:"), ("traces", "Traces", ":material/manage_search:"),
                       ("review", "Review", ":material/rate_review:")],
    "Admins": [("documents", "Documents", ":material/description:"), ("settings", "Settings", ":material/tune:")],
    "Managers": [("quality", "Quality", ":material/monitoring:")],
}

user = auth.current_user(base_settings())
if user is False:  # accounts exist and nobody is signed in: the sign-in form, nothing else
    st.navigation(auth.sign_in_pages(base_settings(), [stem for specs in PAGES.values() for stem, _, _ in specs]),
                  position="hidden").run()
    st.stop()

st.sidebar.markdown("### :material/fact_check: Groundwork")
_, tenant = sidebar(set(user.roles) if user else None)
auth.sidebar_note(base_settings(), user, tenant)
shown = None if user is None else auth.page_names(user.role_in(tenant))
groups: dict[str, list] = {}
for group, specs in PAGES.items():
    kept = [s for s in specs if shown is None or s[0] in shown]
    if kept:
        groups[group] = kept
# every page keeps its own address (/ask, /quality: a bookmark, a reload); Streamlit serves the
# default page only at /, so the default is a hidden page at / that opens the first one
nav = {group: [st.Page(f"pages/{stem}.py", title=title, icon=icon) for stem, title, icon in specs]
       for group, specs in groups.items()}
home = next(iter(nav.values()))[0] if nav else None
if home is not None:
    nav[""] = [auth.root_page(home)]
else:
    nav = {"": [st.Page(lambda: st.info("You have no role in any tenant yet; ask an admin."), title="No access")]}
if shown is not None:  # the other pages' addresses say whose they are (a bookmark, a shared link)
    nav.setdefault("", []).extend(auth.not_for_role_page(stem, title, user.role_in(tenant), tenant, home)
                                  for specs in PAGES.values() for stem, title, _ in specs if stem not in shown)
page = st.navigation(nav, position=auth.nav_position())
page.run()
