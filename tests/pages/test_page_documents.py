"""Documents page: multi-file upload with per-file results, table, chunk viewer, delete, re-index."""

from core import store


def upload(at, files):
    at.file_uploader[0].set_value(files).run()
    next(b for b in at.button if b.label.startswith("Index ")).click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_upload_many_files_reports_each(app, goto, settings):
    goto(app, "pages/documents.py")
    upload(app, [
        ("shipping.md", b"# Shipping\n\nParcels ship within 2 business days.\n", "text/markdown"),
        ("broken.pdf", b"%PDF-1.4 this is not really a pdf", "application/pdf"),
        ("engine.md", (store.chunk_rows(settings, "acme")[0]["text"]).encode(), "text/markdown"),
    ])
    results = app.session_state["upload_results::acme"]
    assert [r["status"] for r in results][:2] == ["ready", "failed"]
    assert results[1]["error"]
    assert any("**shipping\\.md**: indexed" in s.value for s in app.success)
    assert any("**broken\\.pdf**" in e.value for e in app.error)
    table = app.dataframe[-1].value if "file" in app.dataframe[-1].value.columns else None
    docs = next(d.value for d in app.dataframe if "chunks" in d.value.columns and "name" in d.value.columns)
    assert "shipping.md" in set(docs["name"]) and "broken.pdf" in set(docs["name"])
    assert {"name", "pages", "chunks", "language", "status", "uploaded at", "uploaded by"} <= set(docs.columns)
    assert table is None or "file" in table.columns
    assert not app.file_uploader[0].value  # the uploader was cleared


def test_search_and_chunk_viewer_renders_tables_as_tables(app, goto):
    goto(app, "pages/documents.py")
    app.text_input(key="doc_search").input("engine").run()
    docs = next(d.value for d in app.dataframe if "name" in d.value.columns)
    assert list(docs["name"]) == ["engine.md"]
    bodies = [m.value for m in app.markdown]
    assert any(":orange-badge[table]" in b for b in bodies)  # kind badge
    table = next(d.value for d in app.dataframe if "Axle" in d.value.columns)
    assert list(table["Pressure"]) == ["2.4 bar", "2.2 bar"]
    assert any("4.5 litres" in t.value for t in app.text)  # prose chunk as plain text


def test_delete_needs_confirmation(app, goto, settings):
    goto(app, "pages/documents.py")
    app.selectbox(key="doc_open").select_index(0).run()
    doc_id = app.selectbox(key="doc_open").value
    name = store.get_document(settings, "acme", doc_id)["file_name"]
    next(b for b in app.button if b.label == "Delete…").click().run()
    assert any("cannot be undone" in w.value for w in app.warning)
    next(b for b in app.button if b.label == "Cancel").click().run()
    assert store.get_document(settings, "acme", doc_id) is not None
    next(b for b in app.button if b.label == "Delete…").click().run()
    next(b for b in app.button if b.label == "Yes, delete").click().run()
    assert not app.exception
    assert store.get_document(settings, "acme", doc_id) is None
    assert not store.chunk_rows(settings, "acme", doc_id)
    assert any("Deleted" in s.value for s in app.success)
    docs = next(d.value for d in app.dataframe if "name" in d.value.columns)
    assert name not in set(docs["name"])


def test_reindex_keeps_the_document(app, goto, settings):
    goto(app, "pages/documents.py")
    doc_id = app.selectbox(key="doc_open").value
    chunks = len(store.chunk_rows(settings, "acme", doc_id))
    next(b for b in app.button if b.label == "Re-index").click().run()
    assert not app.exception
    assert any("Re-indexed" in s.value for s in app.success)
    docs = store.list_documents(settings, "acme")
    assert sum(d["chunks"] for d in docs if d["status"] == "ready") >= chunks


def test_create_tenant_rejects_bad_ids(app, goto):
    goto(app, "pages/documents.py")
    app.text_input[0].set_value("   ")
    next(b for b in app.button if b.label == "Create tenant").click().run()
    assert any("empty string" in e.value for e in app.error)  # core's sentence, escaped
