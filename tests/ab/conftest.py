"""The A/B tests' clients: one TLS context for all of them.

Every server of these tests speaks plain HTTP on 127.0.0.1, yet httpx builds a TLS context for each
client it makes (``httpx.get`` makes one per call), loading the CA bundle: 24 ms of CPU a client,
and a test polls /healthz, floods or opens dozens of clients. The context is built once per process
and handed to every client; a client that asks for something other than the default still builds
its own.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Iterator

import httpx._transports.default as transports
import pytest


@pytest.fixture(scope="session", autouse=True)
def one_tls_context() -> Iterator[None]:
    """Build httpx's default TLS context once for the session instead of once per client."""
    build = transports.create_ssl_context
    shared = lru_cache(maxsize=2)(lambda trust_env: build(verify=True, cert=None, trust_env=trust_env))

    def create(verify: Any = True, cert: Any = None, trust_env: bool = True) -> Any:
        return shared(trust_env) if verify is True and cert is None else build(verify=verify, cert=cert, trust_env=trust_env)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(transports, "create_ssl_context", create)
        yield
