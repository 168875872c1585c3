"""The test proxy of tests/support/google_proxy.py with a real HTTPS client (httpx): it tunnels only to the Google
host, proves that host with the throw-away CA, forwards to the fake Gemini server, and refuses the rest."""

from __future__ import annotations

import socket
import ssl
from pathlib import Path
from typing import Iterator

import httpx
import pytest

from support.fake_gemini import FakeGemini, tiny_mp4
from support.google_proxy import GOOGLE_HOST, MAX_BODY, GoogleProxy, make_tls

BASE = f"https://{GOOGLE_HOST}/v1beta"


@pytest.fixture
def proxied(fake: FakeGemini, tmp_path: Path) -> Iterator[tuple[GoogleProxy, Path]]:
    """A running proxy in front of the fake, and its CA file."""
    tls = make_tls(tmp_path / "tls", GOOGLE_HOST)
    with GoogleProxy(tls, upstream=fake.url) as proxy:
        yield proxy, tls.ca


def client(proxy: GoogleProxy, ca: Path) -> httpx.Client:
    """An HTTPS client that goes through the proxy and trusts only ``ca``."""
    return httpx.Client(proxy=proxy.url, verify=ssl.create_default_context(cafile=str(ca)), trust_env=False, timeout=60)


def test_a_veo_round_trip_goes_through_the_tunnel_and_comes_back_on_the_google_host(proxied, fake: FakeGemini) -> None:
    proxy, ca = proxied
    fake.operation_polls_before_done = 0
    with client(proxy, ca) as http:
        headers = {"x-goog-api-key": "k"}
        name = http.post(f"{BASE}/models/veo-3.1-generate-preview:predictLongRunning", headers=headers,
                         json={"instances": [{"prompt": "a kite"}]}).json()["name"]
        done = http.get(f"{BASE}/{name}", headers=headers).json()
        uri = done["response"]["generateVideoResponse"]["generatedSamples"][0]["video"]["uri"]
        assert uri.startswith(f"https://{GOOGLE_HOST}/v1beta/files/")  # the fake names the host the client asked for
        video = http.get(uri, headers=headers)
    assert video.status_code == 200 and video.content == tiny_mp4()
    assert set(proxy.connects) == {f"{GOOGLE_HOST}:443"} and proxy.refused == []
    assert [r.method for r in proxy.requests] == ["POST", "GET", "GET"]
    assert all(r.headers["x-goog-api-key"] == "k" for r in proxy.requests)
    assert fake.operation_requests()["start"][0].body == {"instances": [{"prompt": "a kite"}]}


def test_other_hosts_are_refused_and_nothing_is_forwarded(proxied) -> None:
    proxy, ca = proxied
    with client(proxy, ca) as http, pytest.raises(httpx.ProxyError, match="403"):
        http.get("https://example.com/")
    assert proxy.refused == ["example.com:443"] and proxy.requests == []


def test_a_client_that_does_not_trust_the_throwaway_ca_fails_the_handshake(proxied, tmp_path: Path) -> None:
    proxy, _ = proxied
    other = make_tls(tmp_path / "other", GOOGLE_HOST)
    with client(proxy, other.ca) as http, pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
        http.get(f"{BASE}/models")
    assert proxy.requests == []


def test_plain_requests_to_the_proxy_are_refused(proxied) -> None:
    proxy, _ = proxied
    assert httpx.get(f"{proxy.url}/v1beta/models", trust_env=False).status_code == 405
    assert proxy.connects == []
    # a plain-HTTP request sent through it names its host: recorded as a target, and refused
    assert httpx.get("http://example.com/page", proxy=proxy.url, trust_env=False).status_code == 405
    assert proxy.connects == proxy.refused == ["example.com:80"]


def test_a_body_over_the_bound_is_refused_before_it_is_read(proxied, fake: FakeGemini) -> None:
    proxy, ca = proxied
    host, port = proxy.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=60) as raw:
        raw.sendall(f"CONNECT {GOOGLE_HOST}:443 HTTP/1.1\r\nHost: {GOOGLE_HOST}:443\r\n\r\n".encode())
        assert raw.recv(4096).startswith(b"HTTP/1.1 200")
        context = ssl.create_default_context(cafile=str(ca))
        with context.wrap_socket(raw, server_hostname=GOOGLE_HOST) as tunnel:
            tunnel.sendall(f"POST /v1beta/x HTTP/1.1\r\nHost: {GOOGLE_HOST}\r\nContent-Length: {MAX_BODY + 1}\r\n\r\n".encode())
            assert tunnel.recv(4096).startswith(b"HTTP/1.1 413")
    assert proxy.requests == [] and fake.requests == []
