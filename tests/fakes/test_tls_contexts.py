"""The tests' TLS contexts (``one_tls_context`` in tests/conftest.py): the default ones built once per process,
any other one as its client asked."""

from __future__ import annotations

import ssl
from pathlib import Path

import certifi
import httpx
import pytest
from google import genai


def websocket_context(client: genai.Client) -> ssl.SSLContext:
    """The TLS context google-genai built for a client's websocket (the same call as for its HTTP client)."""
    return client._api_client._websocket_ssl_ctx["ssl"]


def test_google_genai_clients_share_the_default_context_and_a_ca_of_their_own_gets_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = (genai.Client(api_key="test-key-not-real") for _ in range(2))
    assert websocket_context(first) is websocket_context(second)
    assert websocket_context(first).verify_mode == ssl.CERT_REQUIRED and websocket_context(first).get_ca_certs()
    bundle = tmp_path / "ca.pem"
    bundle.write_bytes(Path(certifi.where()).read_bytes())
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))  # a user's own CA bundle: a context of its own
    own = websocket_context(genai.Client(api_key="test-key-not-real"))
    assert own is not websocket_context(first) and own.verify_mode == ssl.CERT_REQUIRED


def test_httpx_shares_the_default_context_only() -> None:
    from httpx._transports.default import create_ssl_context

    assert create_ssl_context() is create_ssl_context()
    unverified = create_ssl_context(verify=False)
    assert unverified is not create_ssl_context() and unverified.verify_mode == ssl.CERT_NONE
    with httpx.Client() as one, httpx.Client() as two:
        assert one._transport._pool._ssl_context is two._transport._pool._ssl_context
