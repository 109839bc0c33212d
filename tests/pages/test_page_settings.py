"""Settings page: per-tenant knobs saved through core's validation."""

import re

import pytest

from core.config import load_tenant_overrides, save_tenant_overrides, tenant_settings_path


def _plain(md: str) -> str:
    """A Markdown body as the reader sees it (escape_md's backslashes dropped)."""
    return re.sub(r"\\(.)", r"\1", md)


def _save(app):
    next(b for b in app.button if b.label == "Save settings").click().run()
    assert not app.exception, [e.value for e in app.exception]


def test_save_valid_settings(app, goto, settings):
    goto(app, "pages/settings.py")
    app.number_input[0].set_value(0.62)  # gate threshold
    app.number_input[1].set_value(3)  # top-k
    app.toggle[0].set_value(True)  # strict mode
    next(b for b in app.button if b.label == "Save settings").click().run()
    assert not app.exception
    assert any("Saved" in s.value for s in app.success)
    stored = load_tenant_overrides(settings, "acme")
    assert stored["gate_threshold"] == 0.62 and stored["top_k"] == 3 and stored["strict_mode"] is True
    effect = app.dataframe[0].value.set_index("setting")["in effect"]
    assert effect["gate_threshold"] == "0.62" and effect["top_k"] == "3"
    # the sidebar shows the saved settings at once (it showed the old gate until the next run)
    assert any("gate 0.62" in c.value and "strict" in c.value for c in app.sidebar.caption)


def test_saving_one_setting_pins_only_that_one(app, goto, settings):
    """Saving top-k alone stored all eight fields as overrides, so the tenant no longer
    followed the server's defaults (a new gate threshold, say) for what nobody changed (QA pass)."""
    goto(app, "pages/settings.py")
    app.number_input[1].set_value(3)  # top-k
    _save(app)
    assert load_tenant_overrides(settings, "acme") == {"top_k": 3}
    effect = app.dataframe[0].value.set_index("setting")["tenant override"]
    assert effect["top_k"] == "3" and not effect["gate_threshold"]


def test_invalid_values_are_refused_with_one_sentence(app, goto, settings, monkeypatch):
    from ui import services

    goto(app, "pages/settings.py")

    def reject(defaults, tenant, values):  # core's validation is the last word
        from core.config import validate_overrides

        return validate_overrides({**values, "top_k": 99})

    monkeypatch.setattr(services, "save_tenant_settings", reject)
    next(b for b in app.button if b.label == "Save settings").click().run()
    assert any("Top-k must be between 1 and 20" in _plain(e.value) for e in app.error)
    assert load_tenant_overrides(settings, "acme") == {}


def test_llm_without_endpoint_warns(app, goto, settings):
    goto(app, "pages/settings.py")
    next(s for s in app.selectbox if s.options == ["extractive", "llm"]).select("llm")
    next(b for b in app.button if b.label == "Save settings").click().run()
    assert any("No LLM endpoint is configured" in w.value for w in app.warning)
    assert any("LLM not configured" in m.value for m in app.sidebar.markdown)


@pytest.mark.parametrize("gate", [5.0, -1.0])
def test_out_of_range_gate_threshold_says_the_allowed_range(app, goto, settings, gate):
    """QA: gate 5 (or -1) -> the field only turned red; no message, nothing saved."""
    goto(app, "pages/settings.py")
    app.number_input[0].set_value(gate)
    _save(app)
    assert [_plain(e.value) for e in app.error] == [f"Gate threshold must be between 0 and 1; {int(gate)} is outside that range."]
    assert not app.success
    assert load_tenant_overrides(settings, "acme") == {}
    assert not tenant_settings_path(settings, "acme").exists()


def test_top_k_above_the_candidates_is_refused(app, goto, settings):
    """QA: top-k 20 with 5 candidates was saved."""
    goto(app, "pages/settings.py")
    app.number_input[1].set_value(20)  # top-k
    app.number_input[2].set_value(5)  # candidates
    _save(app)
    assert len(app.error) == 1 and "Top-k (20) must not exceed the number of candidates retrieved (5)" in _plain(app.error[0].value)
    assert not app.success
    assert load_tenant_overrides(settings, "acme") == {}


def test_reset_to_defaults_removes_the_overrides(app, goto, settings):
    save_tenant_overrides(settings, "acme", {"gate_threshold": 0.8, "top_k": 3})
    goto(app, "pages/settings.py")
    assert app.number_input[0].value == 0.8
    next(b for b in app.button if b.label == "Reset to defaults").click().run()
    assert not app.exception
    assert any("Reset to defaults: removed 2 overrides of **acme**" in _plain(s.value) for s in app.success)
    assert load_tenant_overrides(settings, "acme") == {}
    assert not tenant_settings_path(settings, "acme").exists()
    assert app.number_input[0].value == settings.gate_threshold  # the form shows the defaults
    table = app.dataframe[0].value.set_index("setting")
    assert (table["tenant override"] == "").all() and (table["in effect"] == table["default"]).all()
    assert next(b for b in app.button if b.label == "Reset to defaults").disabled  # nothing left to reset


def _ask(at, question):
    at.chat_input[0].set_value(question).run()
    assert not at.exception, [e.value for e in at.exception]
    return at.session_state["history"]["acme"][-1]


def test_a_refusal_over_an_unknown_word_leads_to_a_synonym_that_answers(app, goto, settings):
    question = "What is the lubricant capacity?"
    refused = _ask(app, question)
    assert refused["status"] == "refused" and "lubricant" in refused["refusal_reason"]
    assert any("“lubricant”" in c.value and "Settings → Synonyms" in c.value for c in app.caption)

    goto(app, "pages/settings.py")
    to_teach = app.dataframe[0].value  # the words users asked about that the documents never use
    assert to_teach["word"].tolist() == ["lubricant"] and to_teach["last question"].tolist() == [question]
    box = next(t for t in app.text_area if t.label.startswith("Synonyms"))
    box.set_value("# added after a refusal\nLubricant = engine oil")
    next(b for b in app.button if b.label == "Save synonyms").click().run()
    assert not app.exception and any("Saved 1 synonym." in s.value for s in app.success)
    assert load_tenant_overrides(settings, "acme")["synonyms"] == {"lubricant": "engine oil"}
    assert len(app.dataframe) == 1  # taught: no word is left to teach, only the settings table
    effect = app.dataframe[0].value.set_index("setting")["in effect"]
    assert effect["synonyms"] == "1 synonym"

    goto(app, "pages/ask.py")
    answered = _ask(app, question)
    assert answered["status"] == "answered" and "4.5 litres" in answered["answer"]


def test_a_malformed_synonym_line_saves_nothing(app, goto, settings):
    goto(app, "pages/settings.py")
    box = next(t for t in app.text_area if t.label.startswith("Synonyms"))
    box.set_value("the app = HomeHub\nwasher washing machine")
    next(b for b in app.button if b.label == "Save synonyms").click().run()
    assert [_plain(e.value) for e in app.error] == [
        "Line 2 is not 'your word = the documents' words' (for example: the app = PeopleDesk); nothing was saved."]
    assert "synonyms" not in load_tenant_overrides(settings, "acme")


def test_a_word_to_teach_is_picked_from_the_list_and_answered_after(app, goto, settings):
    question = "What is the lubricant capacity?"
    _ask(app, question)
    _ask(app, "How heavy is the gizmo?")

    goto(app, "pages/settings.py")
    pick = next(s for s in app.selectbox if s.label == "Word your users asked about")
    assert sorted(pick.options) == ["gizmo", "lubricant"]
    pick.set_value("lubricant")
    next(t for t in app.text_input if t.label == "The documents' words for it").set_value("engine oil")
    next(b for b in app.button if b.label == "Add synonym").click().run()
    assert not app.exception, [e.value for e in app.exception]
    assert any("Taught “lubricant = engine oil”" in _plain(s.value) for s in app.success)
    assert not app.warning  # the documents use "engine oil"
    assert load_tenant_overrides(settings, "acme")["synonyms"] == {"lubricant": "engine oil"}
    box = next(t for t in app.text_area if t.label.startswith("Synonyms"))
    assert box.value == "lubricant = engine oil"  # the lines above show what was taught
    assert next(s for s in app.selectbox if s.label == "Word your users asked about").options == ["gizmo"]

    goto(app, "pages/ask.py")
    assert _ask(app, question)["status"] == "answered"


def test_a_synonym_for_words_the_documents_never_use_is_saved_with_a_warning(app, goto, settings):
    _ask(app, "How heavy is the gizmo?")
    _ask(app, "How heavy is the dingbat?")
    goto(app, "pages/settings.py")

    def teach(word, doc_words):
        next(s for s in app.selectbox if s.label == "Word your users asked about").set_value(word)
        next(t for t in app.text_input if t.label == "The documents' words for it").set_value(doc_words)
        next(b for b in app.button if b.label == "Add synonym").click().run()
        assert not app.exception, [e.value for e in app.exception]

    teach("gizmo", "flux capacitor")
    assert load_tenant_overrides(settings, "acme")["synonyms"] == {"gizmo": "flux capacitor"}
    assert [_plain(w.value) for w in app.warning] == [
        "The documents never use the words on the right of “gizmo = flux capacitor”: such a synonym changes "
        "nothing until they do. Check the spelling, or use a word the documents use."]

    teach("dingbat", "  ")  # nothing typed: one sentence, nothing saved
    assert [_plain(e.value) for e in app.error] == [
        "Type the documents' words for “dingbat” (what they say instead); nothing was saved."]
    assert load_tenant_overrides(settings, "acme")["synonyms"] == {"gizmo": "flux capacitor"}


def test_api_keys_are_created_shown_once_listed_and_revoked(app, goto, settings):
    from core import keys

    goto(app, "pages/settings.py")
    next(t for t in app.text_input if t.label.startswith("Label")).input("zapier")  # the key's label
    next(b for b in app.button if b.label == "Create key").click().run()
    assert not app.exception
    shown = [c.value for c in app.code]
    assert len(shown) == 1 and keys.tenant_for_key(settings, shown[0]) == "acme"
    table = next(d.value for d in app.dataframe if "key id" in d.value.columns)
    assert list(table["label"]) == ["zapier"] and list(table["state"]) == ["live"]
    assert shown[0] not in table.to_string()
    app.run()
    assert not app.code  # shown once
    next(b for b in app.button if b.label == "Revoke").click().run()
    # the console QA pass: one click revoked it, with no question and no word after
    assert keys.tenant_for_key(settings, shown[0]) == "acme"
    assert any(w.value.startswith("Revoke ") and "401 at once" in w.value for w in app.warning)
    next(b for b in app.button if b.label == "Cancel").click().run()
    assert keys.tenant_for_key(settings, shown[0]) == "acme" and not app.warning
    next(b for b in app.button if b.label == "Revoke").click().run()
    next(b for b in app.button if b.label == "Yes, revoke").click().run()
    assert keys.tenant_for_key(settings, shown[0]) is None
    assert any("requests with it now get 401" in s.value for s in app.success)
    table = next(d.value for d in app.dataframe if "key id" in d.value.columns)
    assert list(table["state"]) == ["revoked"]


def test_an_admin_raises_the_chunk_limit_that_a_too_long_file_names(app, goto, settings):
    """The QA pass: a file too long to index told a browser admin to raise an environment
    variable; the limit is now a tenant setting of this page, and the error names it."""
    goto(app, "pages/settings.py")
    limit = next(n for n in app.number_input if n.label.startswith("Maximum chunks per document"))
    next(b for b in app.button if b.label == "Save settings").click().run()
    assert "max_chunks_per_doc" not in load_tenant_overrides(settings, "acme")  # unchanged: not pinned
    limit = next(n for n in app.number_input if n.label.startswith("Maximum chunks per document"))
    limit.set_value(4000)
    next(b for b in app.button if b.label == "Save settings").click().run()
    assert not app.exception
    assert load_tenant_overrides(settings, "acme")["max_chunks_per_doc"] == 4000


def _delete_tenant(at, typed: str):
    at.text_input(key="delete_tenant_typed:acme").input(typed).run()
    assert not at.exception, [e.value for e in at.exception]
    return at.button(key="delete_tenant")


def test_an_admin_deletes_the_tenant_after_typing_its_id_and_the_picker_moves_on(app, goto, settings):
    from core import store
    from core.documents import ensure_tenant
    from core.tenants import tenant_dir

    ensure_tenant(settings, "beta")
    goto(app, "pages/settings.py")
    assert any("3 documents, 0 asks" in m.value for m in app.markdown)  # what would go, before anything does
    assert app.button(key="delete_tenant").disabled
    assert _delete_tenant(app, "Acme").disabled  # not the id: the button stays off
    button = _delete_tenant(app, "acme")
    assert not button.disabled
    button.click().run()
    assert not app.exception, [e.value for e in app.exception]
    assert not store.tenant_exists(settings, "acme") and store.list_documents(settings, "acme") == []
    assert not tenant_dir(settings, "acme").exists()
    assert store.list_documents(settings, "beta") == [] and store.tenant_exists(settings, "beta")
    assert app.sidebar.selectbox(key="tenant").value == "beta"
    assert app.sidebar.selectbox(key="tenant").options == ["beta"]
    assert any("Deleted tenant 'acme' and everything it held." in _plain(i.value) for i in app.info)
    assert app.query_params.get("tenant") == "beta"


def test_deleting_the_last_tenant_opens_the_create_tenant_form(app, goto, settings):
    from core import store

    goto(app, "pages/settings.py")
    _delete_tenant(app, "acme").click().run()
    assert not app.exception, [e.value for e in app.exception]
    assert store.list_tenants(settings) == []
    assert [t.value for t in app.title] == ["Documents"]
    assert app.text_input(key="new_tenant_id") is not None  # the create-tenant form
    assert any("Deleted tenant 'acme' and everything it held." in _plain(i.value) for i in app.info)


def test_a_signed_in_admin_deletes_their_tenant_and_keeps_their_other_roles(settings, data_dir):
    from streamlit.testing.v1 import AppTest

    from core import store, users
    from core.documents import ensure_tenant
    from tests.pages.conftest import ROOT
    from tests.pages.test_page_auth import PASSWORD, sign_in

    ensure_tenant(settings, "beta")
    users.add_user(settings, "ann", PASSWORD, "acme", "admin")
    users.add_user(settings, "ann", None, "beta", "admin")
    users.add_user(settings, "bob", PASSWORD, "acme", "expert")
    at = sign_in(AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run(), "ann")
    at.switch_page("pages/settings.py").run()
    _delete_tenant(at, "acme").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert not store.tenant_exists(settings, "acme")
    assert users.roles_of(settings, "ann") == {"beta": "admin"} and users.roles_of(settings, "bob") == {}
    assert at.sidebar.selectbox(key="tenant").value == "beta"


def test_the_console_finishes_at_start_a_tenant_deletion_whose_process_died(settings, data_dir):
    from streamlit.testing.v1 import AppTest

    from core import abandoned_deletions, index, store, tenant_deletion
    from core.config import save_tenant_overrides
    from core.documents import ensure_tenant
    from core.tenants import tenant_dir
    from tests.core.test_tenant_deletion import Crash, _gone_process
    from tests.pages.conftest import ROOT

    ensure_tenant(settings, "beta")
    save_tenant_overrides(settings, "beta", {"top_k": 3})  # a folder of its own, left by the killed delete

    def die(*args, **kwargs):
        raise Crash()

    with pytest.MonkeyPatch.context() as patch, pytest.raises(Crash):  # the fixture's GROUNDWORK_DATA stays
        patch.setattr(tenant_deletion, "this_process", _gone_process)  # a `tenants delete` killed ...
        patch.setattr(index, "drop_collection", die)  # ... after its rows went
        tenant_deletion.delete_tenant(settings, "beta")
    assert store.tenants_being_deleted(settings) == ["beta"] and tenant_dir(settings, "beta").exists()

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    assert abandoned_deletions.wait(120)
    assert store.tenants_being_deleted(settings) == [] and not tenant_dir(settings, "beta").exists()
    assert store.tenant_exists(settings, "acme")
