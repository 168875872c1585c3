"""Judge settings: one typed record, filled from an assertion's ``config`` over the environment.

Precedence: assertion ``config`` > ``REELJUDGE_*`` environment variables > defaults below.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields, replace
from typing import Any, Literal, Mapping

from reeljudge.errors import BadInputError

Backend = Literal["developer", "vertex"]
CacheMode = Literal["readwrite", "off", "replay"]
JudgeChoice = Literal["auto", "gemini", "local"]

DEFAULT_MODEL = "gemini-2.5-flash"
API_VERSIONS: dict[str, str] = {"developer": "v1beta", "vertex": "v1"}


@dataclass(frozen=True)
class JudgeSettings:
    """Everything that decides how a judge is called and cached."""

    judge: JudgeChoice = "auto"
    model: str = DEFAULT_MODEL
    temperature: float = 0.0
    thinking_budget: int | None = 0
    max_output_tokens: int = 4096
    backend: Backend | None = None  # None: Vertex when GOOGLE_GENAI_USE_VERTEXAI is true, else developer
    api_version: str | None = None  # None: pinned per backend (API_VERSIONS)
    base_url: str | None = None
    timeout_s: float = 60.0
    deadline_s: float = 240.0
    max_attempts: int = 4
    backoff_initial_s: float = 1.0
    backoff_max_s: float = 20.0
    cache_mode: CacheMode = "readwrite"
    cache_dir: str = ".reeljudge/cache"

    @property
    def resolved_backend(self) -> Backend:
        """The backend in force (``load_settings`` fills it from GOOGLE_GENAI_USE_VERTEXAI when unset)."""
        return self.backend or "developer"

    @property
    def resolved_api_version(self) -> str:
        """The pinned API version for the backend in force."""
        return self.api_version or API_VERSIONS[self.resolved_backend]

    def generation_fingerprint(self) -> dict[str, Any]:
        """The settings that shape a reply, for cache keys."""
        return {
            "model": self.model,
            "temperature": self.temperature,
            "thinking_budget": self.thinking_budget,
            "max_output_tokens": self.max_output_tokens,
        }


_ENV = {
    "model": "REELJUDGE_MODEL",
    "judge": "REELJUDGE_JUDGE",
    "temperature": "REELJUDGE_TEMPERATURE",
    "thinking_budget": "REELJUDGE_THINKING_BUDGET",
    "max_output_tokens": "REELJUDGE_MAX_OUTPUT_TOKENS",
    "backend": "REELJUDGE_BACKEND",
    "api_version": "REELJUDGE_API_VERSION",
    "timeout_s": "REELJUDGE_TIMEOUT_S",
    "deadline_s": "REELJUDGE_DEADLINE_S",
    "max_attempts": "REELJUDGE_MAX_ATTEMPTS",
    "backoff_initial_s": "REELJUDGE_BACKOFF_INITIAL_S",
    "backoff_max_s": "REELJUDGE_BACKOFF_MAX_S",
    "cache_mode": "REELJUDGE_CACHE",
    "cache_dir": "REELJUDGE_CACHE_DIR",
}
_CHOICES: dict[str, tuple[str, ...]] = {
    "judge": ("auto", "gemini", "local"),
    "backend": ("developer", "vertex"),
    "cache_mode": ("readwrite", "off", "replay"),
}
_ALIASES = {"cache": "cache_mode", "timeout": "timeout_s", "deadline": "deadline_s", "max_tokens": "max_output_tokens"}


def load_settings(config: Mapping[str, Any] | None = None, env: Mapping[str, str] | None = None) -> JudgeSettings:
    """Settings from defaults, then environment, then the assertion config; BadInputError on a bad value."""
    env = os.environ if env is None else env
    values: dict[str, Any] = {}
    for name, var in _ENV.items():
        if env.get(var, "").strip():
            values[name] = env[var].strip()
    known = {f.name for f in fields(JudgeSettings)}
    for key, value in (config or {}).items():
        name = _ALIASES.get(key, key)
        if name in known:
            values[name] = value
    if "backend" not in values and _truthy(env.get("GOOGLE_GENAI_USE_VERTEXAI")):
        values["backend"] = "vertex"
    settings = JudgeSettings()
    return replace(settings, **{name: _coerce(settings, name, value) for name, value in values.items()})


def _coerce(defaults: JudgeSettings, name: str, value: Any) -> Any:
    """A config or env value converted to the field's type, or BadInputError naming the setting."""
    if name in _CHOICES:
        text = str(value).strip().lower()
        if text not in _CHOICES[name]:
            raise BadInputError(f"setting {name!r} must be one of {', '.join(_CHOICES[name])}; got {value!r}")
        return text
    default = getattr(defaults, name)
    try:
        if value is None or (isinstance(value, str) and value.strip().lower() in ("", "none", "null")):
            if name in ("thinking_budget", "api_version", "base_url", "backend"):
                return None
            raise ValueError("empty")
        if isinstance(default, bool):
            return _truthy(value)
        if isinstance(default, int) or name == "thinking_budget":
            return int(value)
        if isinstance(default, float):
            return float(value)
        return str(value)
    except (TypeError, ValueError):
        raise BadInputError(f"setting {name!r} has an invalid value {value!r}") from None


def _truthy(value: Any) -> bool:
    """True for 1/true/yes/on (any case)."""
    return str(value).strip().lower() in ("1", "true", "yes", "on")


def has_gemini_credentials(settings: JudgeSettings, env: Mapping[str, str] | None = None) -> bool:
    """Whether a Gemini call could authenticate: an API key, or Vertex with a project set."""
    env = os.environ if env is None else env
    if settings.resolved_backend == "vertex":
        return bool(env.get("GOOGLE_CLOUD_PROJECT"))
    return bool(env.get("GEMINI_API_KEY") or env.get("GOOGLE_API_KEY"))


def credentials_hint(settings: JudgeSettings) -> str:
    """What to set to get credentials for the backend in force."""
    if settings.resolved_backend == "vertex":
        return "set GOOGLE_CLOUD_PROJECT (and GOOGLE_CLOUD_LOCATION) with application-default credentials"
    return "set GEMINI_API_KEY (or GOOGLE_API_KEY)"
