"""Settings read from the environment: a bad value is one sentence naming its variable."""

import pytest

from core.config import load_settings


@pytest.mark.parametrize("name, value, said", [
    ("GROUNDWORK_LLM_TIMEOUT_S", "abc", "GROUNDWORK_LLM_TIMEOUT_S must be a number of 0 or more; 'abc' is not."),
    ("GROUNDWORK_LLM_TIMEOUT_S", "inf", "'inf' is not"),
    ("GROUNDWORK_LLM_TIMEOUT_S", "-5", "'-5' is not"),
    ("GROUNDWORK_LLM_TIMEOUT_S", "nan", "'nan' is not"),
    ("GROUNDWORK_LLM_RETRIES", "1.5", "GROUNDWORK_LLM_RETRIES must be a whole number of 0 or more"),
    ("GROUNDWORK_MAX_CHUNKS_PER_DOC", "1.5k", "GROUNDWORK_MAX_CHUNKS_PER_DOC: Maximum chunks per document must be"),
    ("GROUNDWORK_MAX_CHUNKS_PER_DOC", "-1", "-1 is outside that range"),
    ("GROUNDWORK_GATE_THRESHOLD", "-1", "GROUNDWORK_GATE_THRESHOLD: Gate threshold must be between 0 and 1"),
])
def test_a_bad_environment_value_is_one_sentence_naming_it(tmp_path, name, value, said):
    # a reliability pass: "abc" gave a 16-line traceback from every command, "inf" an
    # OverflowError mid-ask, -5 a note that the endpoint "did not answer within -5 s", and a
    # gate threshold of -1 answered a question the documents never address
    with pytest.raises(ValueError) as caught:
        load_settings({"GROUNDWORK_DATA": str(tmp_path), name: value})
    assert said in str(caught.value) and "\n" not in str(caught.value)


def test_good_environment_values_are_read_as_their_types(tmp_path):
    s = load_settings({"GROUNDWORK_DATA": str(tmp_path), "GROUNDWORK_LLM_TIMEOUT_S": "7.5",
                       "GROUNDWORK_TOP_K": "8", "GROUNDWORK_GATE_THRESHOLD": " 0.4 ", "GROUNDWORK_LLM_RETRIES": "0"})
    assert (s.llm_timeout_s, s.top_k, s.gate_threshold, s.llm_retries) == (7.5, 8, 0.4, 0)


def test_the_cli_says_the_bad_variable_and_stops(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {**os.environ, "GROUNDWORK_DATA": str(tmp_path), "GROUNDWORK_LLM_TIMEOUT_S": "abc"}
    res = subprocess.run([sys.executable, "-m", "core.cli", "tenants", "list"], cwd=Path(__file__).resolve().parents[2],
                         env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 2 and res.stderr.startswith("error: GROUNDWORK_LLM_TIMEOUT_S must be")
    assert "Traceback" not in res.stderr
