"""Gemini settings: how a judge is called, retried and cached, and the one credentials check.

Filled by the one options loader (``reeljudge.options``) from an assertion's or provider's
``config:`` over ``REELJUDGE_*`` environment variables over the defaults below.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Literal, Mapping

from reeljudge.cache import CacheMode, JudgeCache, cache_dir_option, cache_mode_option, open_cache
from reeljudge.errors import JudgeError
from reeljudge.options import load_one, option, parse_bool
from reeljudge.retry import RetryPolicy

Backend = Literal["developer", "vertex"]

DEFAULT_MODEL = "gemini-2.5-flash"
API_VERSIONS: dict[str, str] = {"developer": "v1beta", "vertex": "v1"}


@dataclass(frozen=True)
class JudgeSettings:
    """Everything that decides how a Gemini judge is called, retried and cached."""

    model: str = option(DEFAULT_MODEL, env="REELJUDGE_MODEL", doc="the Gemini model that judges")
    temperature: float = option(0.0, env="REELJUDGE_TEMPERATURE", minimum=0, maximum=2, doc="sampling temperature", verdict=True)
    thinking_budget: int | None = option(0, env="REELJUDGE_THINKING_BUDGET", minimum=0,
                                         doc="thinking tokens (null: the model's default)", verdict=True)
    max_output_tokens: int = option(4096, env="REELJUDGE_MAX_OUTPUT_TOKENS", minimum=1, doc="reply length limit")
    backend: Backend | None = option(None, env="REELJUDGE_BACKEND",
                                     doc="developer or vertex (null: vertex when GOOGLE_GENAI_USE_VERTEXAI is true)")
    api_version: str | None = option(None, env="REELJUDGE_API_VERSION", doc="API version (null: pinned per backend)")
    base_url: str | None = option(None, doc="a different API endpoint (tests, proxies)")
    timeout_s: float = option(60.0, env="REELJUDGE_TIMEOUT_S", minimum=0.001, doc="seconds per request attempt")
    deadline_s: float = option(240.0, env="REELJUDGE_DEADLINE_S", minimum=0.001, doc="seconds for all attempts of one request")
    max_attempts: int = option(4, env="REELJUDGE_MAX_ATTEMPTS", minimum=1,
                               doc="attempts per request (408, 429, 5xx, timeouts retried)")
    backoff_initial_s: float = option(1.0, env="REELJUDGE_BACKOFF_INITIAL_S", minimum=0, doc="first backoff between attempts")
    backoff_max_s: float = option(20.0, env="REELJUDGE_BACKOFF_MAX_S", minimum=0, doc="longest backoff between attempts")
    cache_mode: CacheMode = cache_mode_option(key="cache")
    cache_dir: str = cache_dir_option()

    def judge_cache(self) -> JudgeCache:
        """The one judge cache these settings choose: folder ``cache_dir`` in mode ``cache_mode``."""
        return open_cache(self.cache_dir, self.cache_mode)

    @property
    def resolved_backend(self) -> Backend:
        """The backend in force: the setting, else vertex when GOOGLE_GENAI_USE_VERTEXAI is true."""
        if self.backend:
            return self.backend
        flag = os.environ.get("GOOGLE_GENAI_USE_VERTEXAI", "").strip()
        return "vertex" if flag and _truthy(flag) else "developer"

    @property
    def resolved_api_version(self) -> str:
        """The pinned API version for the backend in force."""
        return self.api_version or API_VERSIONS[self.resolved_backend]

    @property
    def retry(self) -> RetryPolicy:
        """The retry policy these settings describe."""
        return RetryPolicy(self.max_attempts, self.timeout_s, self.deadline_s, self.backoff_initial_s, self.backoff_max_s)

    def generation_fingerprint(self) -> dict[str, Any]:
        """The settings that shape a reply, for cache keys."""
        return {
            "model": self.model,
            "temperature": self.temperature,
            "thinking_budget": self.thinking_budget,
            "max_output_tokens": self.max_output_tokens,
        }


def load_settings(config: Mapping[str, Any] | None = None, env: Mapping[str, str] | None = None) -> JudgeSettings:
    """Settings alone from a config holding nothing else (see ``reeljudge.options.load_options``)."""
    return load_one(config, JudgeSettings, owner="gemini settings", env=env)


def _truthy(text: str) -> bool:
    try:
        return parse_bool(text, "GOOGLE_GENAI_USE_VERTEXAI")
    except Exception:  # noqa: BLE001 - google-genai treats anything else as false too
        return False


def answers_without_credentials(settings: JudgeSettings) -> bool:
    """Whether a judge can be asked with no credentials: replay reads recorded replies, plan records requests."""
    return settings.cache_mode in ("replay", "plan")


def has_gemini_credentials(settings: JudgeSettings, env: Mapping[str, str] | None = None) -> bool:
    """Whether a Gemini call could authenticate: an API key, or Vertex with a project set."""
    env = os.environ if env is None else env
    if settings.resolved_backend == "vertex":
        return bool(env.get("GOOGLE_CLOUD_PROJECT"))
    return bool(env.get("GEMINI_API_KEY") or env.get("GOOGLE_API_KEY"))


def require_credentials(settings: JudgeSettings, purpose: str, hint: str = "") -> None:
    """JudgeError (kind ``no_credentials``) saying what to set, when ``purpose`` cannot authenticate."""
    if has_gemini_credentials(settings):
        return
    if settings.resolved_backend == "vertex":
        need = "set GOOGLE_CLOUD_PROJECT (and GOOGLE_CLOUD_LOCATION) with application-default credentials"
    else:
        need = "set GEMINI_API_KEY (or GOOGLE_API_KEY)"
    raise JudgeError(
        f"no Gemini credentials for {purpose} on the {settings.resolved_backend} backend: {need}{hint}",
        kind="no_credentials",
    )
