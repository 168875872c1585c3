"""Settings come from defaults, then environment, then assertion config; bad values are named."""

import pytest

from reeljudge.errors import BadInputError
from reeljudge.gemini.settings import has_gemini_credentials, load_settings


def test_defaults_pin_the_api_version_per_backend():
    s = load_settings({}, env={})
    assert (s.model, s.judge, s.cache_mode, s.resolved_backend, s.resolved_api_version) == (
        "gemini-2.5-flash", "auto", "readwrite", "developer", "v1beta")
    assert load_settings({}, env={"GOOGLE_GENAI_USE_VERTEXAI": "true"}).resolved_api_version == "v1"


def test_config_beats_environment_beats_default():
    env = {"REELJUDGE_MODEL": "gemini-2.5-pro", "REELJUDGE_TEMPERATURE": "0.5", "REELJUDGE_CACHE": "replay"}
    s = load_settings({"temperature": 0.1, "max_tokens": 999, "thinking_budget": None}, env=env)
    assert (s.model, s.temperature, s.max_output_tokens, s.thinking_budget, s.cache_mode) == (
        "gemini-2.5-pro", 0.1, 999, None, "replay")


@pytest.mark.parametrize("config,name", [({"judge": "gpt"}, "judge"), ({"cache": "sometimes"}, "cache_mode"),
                                         ({"temperature": "warm"}, "temperature"), ({"max_attempts": "many"}, "max_attempts")])
def test_bad_values_are_refused_naming_the_setting(config, name):
    with pytest.raises(BadInputError, match=name):
        load_settings(config, env={})


def test_credentials_per_backend():
    s = load_settings({}, env={})
    assert not has_gemini_credentials(s, env={})
    assert has_gemini_credentials(s, env={"GOOGLE_API_KEY": "k"})
    vertex = load_settings({"backend": "vertex"}, env={})
    assert not has_gemini_credentials(vertex, env={"GEMINI_API_KEY": "k"})
    assert has_gemini_credentials(vertex, env={"GOOGLE_CLOUD_PROJECT": "p"})
