"""Gemini settings: defaults, then environment, then config, through the one options loader."""

import pytest

from reeljudge.errors import BadInputError
from reeljudge.gemini.settings import has_gemini_credentials, load_settings


def test_defaults_pin_the_api_version_per_backend(monkeypatch):
    s = load_settings({}, env={})
    assert (s.model, s.cache_mode, s.resolved_backend, s.resolved_api_version) == (
        "gemini-2.5-flash", "readwrite", "developer", "v1beta")
    monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")
    assert load_settings({}, env={}).resolved_api_version == "v1"
    assert load_settings({"backend": "developer"}, env={}).resolved_api_version == "v1beta"


def test_config_beats_environment_beats_default():
    env = {"REELJUDGE_MODEL": "gemini-2.5-pro", "REELJUDGE_TEMPERATURE": "0.5", "REELJUDGE_CACHE": "replay"}
    s = load_settings({"temperature": 0.1, "max_output_tokens": 999, "thinking_budget": None}, env=env)
    assert (s.model, s.temperature, s.max_output_tokens, s.thinking_budget, s.cache_mode) == (
        "gemini-2.5-pro", 0.1, 999, None, "replay")
    assert load_settings({"cache": "OFF"}, env=env).cache_mode == "off"


@pytest.mark.parametrize("config,fragment", [
    ({"backend": "azure"}, "option 'backend' must be one of developer, vertex"),
    ({"cache": "sometimes"}, "option 'cache' must be one of readwrite, off, replay"),
    ({"temperature": "warm"}, "option 'temperature' must be a number"),
    ({"max_attempts": "many"}, "option 'max_attempts' must be a whole number"),
    ({"max_attempts": 0}, "option 'max_attempts' must be at least 1"),
    ({"max_tokens": 10}, "unknown option 'max_tokens' for gemini settings; did you mean 'max_output_tokens'?"),
    ({"cache_mode": "off"}, "unknown option 'cache_mode' for gemini settings; did you mean 'cache'?"),
])
def test_bad_values_are_refused_naming_the_setting(config, fragment):
    with pytest.raises(BadInputError, match=fragment.replace("(", r"\(").replace("?", r"\?")):
        load_settings(config, env={})


def test_a_bad_environment_value_names_the_variable():
    with pytest.raises(BadInputError, match="environment variable REELJUDGE_TIMEOUT_S must be a number"):
        load_settings({}, env={"REELJUDGE_TIMEOUT_S": "soon"})


def test_credentials_per_backend():
    s = load_settings({}, env={})
    assert not has_gemini_credentials(s, env={})
    assert has_gemini_credentials(s, env={"GOOGLE_API_KEY": "k"})
    vertex = load_settings({"backend": "vertex"}, env={})
    assert not has_gemini_credentials(vertex, env={"GEMINI_API_KEY": "k"})
    assert has_gemini_credentials(vertex, env={"GOOGLE_CLOUD_PROJECT": "p"})
