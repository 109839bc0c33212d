"""Tenant overrides: one shared validation (Settings page, calibrate --apply, any caller)."""

import pytest

from core.config import load_tenant_overrides, save_tenant_overrides, tenant_settings_path, validate_overrides


@pytest.mark.parametrize("values, sentence", [
    ({"gate_threshold": 5}, "Gate threshold must be between 0 and 1; 5 is outside that range."),
    ({"gate_threshold": -1}, "Gate threshold must be between 0 and 1; -1 is outside that range."),
    ({"judge_threshold": "high"}, "Model judge threshold must be a number between 0 and 1; 'high' is not a number."),
    ({"top_k": 2.5}, "Top-k must be a whole number between 1 and 20; 2.5 is not."),
    ({"candidates": 500}, "Candidates must be between 5 and 100; 500 is outside that range."),
    ({"max_chunks_per_doc": 0}, "Maximum chunks per document must be at least 1; 0 is outside that range."),
])
def test_out_of_range_values_name_the_allowed_range(settings, values, sentence):
    with pytest.raises(ValueError) as err:
        save_tenant_overrides(settings, "acme", values)
    assert str(err.value) == sentence
    assert not tenant_settings_path(settings, "acme").exists()


def test_top_k_may_not_exceed_the_candidates(settings):
    with pytest.raises(ValueError, match=r"Top-k \(20\) must not exceed the number of candidates retrieved \(5\)"):
        save_tenant_overrides(settings, "acme", {"top_k": 20, "candidates": 5})
    assert load_tenant_overrides(settings, "acme") == {}
    # against the stored overrides too: candidates 10 first, then top-k 15 alone
    save_tenant_overrides(settings, "acme", {"candidates": 10})
    with pytest.raises(ValueError, match=r"Top-k \(15\) must not exceed"):
        save_tenant_overrides(settings, "acme", {"top_k": 15})
    assert load_tenant_overrides(settings, "acme") == {"candidates": 10}
    assert save_tenant_overrides(settings, "acme", {"top_k": 10}) == {"candidates": 10, "top_k": 10}


def test_whole_numbers_stay_integers():
    assert validate_overrides({"top_k": 3.0, "gate_threshold": "0.6"}) == {"top_k": 3, "gate_threshold": 0.6}


def test_replace_all_with_nothing_resets_to_the_defaults(settings):
    save_tenant_overrides(settings, "acme", {"gate_threshold": 0.8, "strict_mode": True})
    assert settings.for_tenant("acme").gate_threshold == 0.8
    assert save_tenant_overrides(settings, "acme", {}, replace_all=True) == {}
    assert not tenant_settings_path(settings, "acme").exists()
    assert settings.for_tenant("acme") == settings


def test_synonyms_are_checked_and_normalised():
    clean = validate_overrides({"synonyms": {"  The   App ": "HomeHub", "стиралка": "стиральная машина"}})
    assert clean == {"synonyms": {"the app": "HomeHub", "стиралка": "стиральная машина"}}
    for bad, says in [("not a mapping", "mapping"), ({"123": "x"}, "letters"), ({"a b c d e": "x"}, "4 words"),
                      ({"app": ""}, "documents' words"), ({"is it": "x"}, "only common words"), ({"app": "App"}, "stands for itself"),
                      ({f"w{n}": "x" for n in range(201)}, "keep it to 200")]:
        with pytest.raises(ValueError, match=says):
            validate_overrides({"synonyms": bad})


def test_a_tenants_synonyms_reach_its_settings_only(settings):
    save_tenant_overrides(settings, "acme", {"synonyms": {"the app": "HomeHub"}})
    assert settings.for_tenant("acme").synonyms == (("the app", "HomeHub"),)
    assert settings.for_tenant("globex").synonyms == ()
