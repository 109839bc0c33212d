"""Settings page: per-tenant knobs saved through core's validation."""

from core.config import load_tenant_overrides


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
    # the sidebar reflects the tenant's settings on the next run
    app.run()
    assert any("gate 0.62" in c.value and "strict" in c.value for c in app.sidebar.caption)


def test_invalid_values_are_refused_with_one_sentence(app, goto, settings, monkeypatch):
    from ui import services

    goto(app, "pages/settings.py")

    def reject(defaults, tenant, values):  # core's validation is the last word
        from core.config import validate_overrides

        return validate_overrides({**values, "top_k": 99})

    monkeypatch.setattr(services, "save_tenant_settings", reject)
    next(b for b in app.button if b.label == "Save settings").click().run()
    assert any("top\\_k must be between 1 and 20" in e.value for e in app.error)
    assert load_tenant_overrides(settings, "acme") == {}


def test_llm_without_endpoint_warns(app, goto, settings):
    goto(app, "pages/settings.py")
    next(s for s in app.selectbox if s.options == ["extractive", "llm"]).select("llm")
    next(b for b in app.button if b.label == "Save settings").click().run()
    assert any("No LLM endpoint is configured" in w.value for w in app.warning)
    app.run()
    assert any("LLM not configured" in m.value for m in app.sidebar.markdown)
