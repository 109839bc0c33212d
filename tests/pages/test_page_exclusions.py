"""Documents page: a passage kept out of answers stays out after Re-index, and a new version
says which exclusions found their passage again and which were let back in."""

from core import store
from tests.pages.conftest import ENGINE_MD


def shown(markdown: str) -> str:
    """The text as rendered: without the escapes that keep a sentence from reading as markup."""
    return markdown.replace("\\", "")


def _oil(settings):
    return next(c for c in store.chunk_rows(settings, "acme") if "4.5 litres" in c["text"])


def test_re_index_and_a_new_version_say_what_became_of_the_exclusions(app, goto, settings):
    goto(app, "pages/documents.py")
    oil = _oil(settings)
    app.selectbox(key="doc_open").select(oil["doc_id"]).run()
    app.toggle(key=f"chunk_use_{oil['chunk_id']}").set_value(False).run()
    assert not app.exception

    next(b for b in app.button if b.label == "Re-index").click().run()
    assert not app.exception
    assert any("1 passage was kept out of answers: 1 still is" in shown(i.value) for i in app.info)
    assert _oil(settings)["disabled"]
    assert app.toggle(key=f"chunk_use_{_oil(settings)['chunk_id']}").value is False  # the switch shows it

    changed = ENGINE_MD.replace("4.5 litres", "4.8 litres").encode()
    app.file_uploader[0].set_value([("engine.md", changed, "text/markdown")]).run()
    next(b for b in app.button if b.label.startswith("Index ")).click().run()
    assert not app.exception
    note = next(shown(w.value) for w in app.warning if "kept out of answers" in shown(w.value))
    assert "1 changed and is used in answers again" in note and "4.5 litres" in note
    oil = next(c for c in store.chunk_rows(settings, "acme") if "4.8 litres" in c["text"])
    assert not oil["disabled"]
