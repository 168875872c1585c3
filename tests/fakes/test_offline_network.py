"""The test run's network stays on 127.0.0.1 (tests/conftest.py): outbound HTTP(S) is refused locally."""

from __future__ import annotations

import os
import subprocess
import urllib.error
import urllib.request

import pytest

from support.offline_network import REFUSING_PROXY


def test_an_outside_host_is_refused_by_the_local_proxy_not_looked_up() -> None:
    """A request to a public host goes to the refusing local port (connection refused), never to DNS."""
    assert os.environ["HTTPS_PROXY"] == REFUSING_PROXY and "127.0.0.1" in os.environ["NO_PROXY"]
    with pytest.raises(urllib.error.URLError) as caught:
        urllib.request.urlopen("https://r.promptfoo.app/", timeout=5)
    assert isinstance(caught.value.reason, ConnectionRefusedError), caught.value.reason


def test_node_subprocesses_inherit_the_refusal() -> None:
    """The environment promptfoo's Node runs in carries the refusing proxy and the loopback exception."""
    script = "console.log(process.env.HTTPS_PROXY + ' ' + process.env.NO_PROXY)"
    out = subprocess.run(["node", "-e", script], capture_output=True, text=True, timeout=300, check=True).stdout.split()
    assert out == [REFUSING_PROXY, "127.0.0.1,localhost,::1"]


def test_loopback_servers_are_reached_directly(fake) -> None:
    """The fake Gemini server on 127.0.0.1 is reached without the proxy."""
    with pytest.raises(urllib.error.HTTPError) as caught:  # the fake answers unknown paths with 404
        urllib.request.urlopen(f"{fake.url}/no-such-path", timeout=60)
    assert caught.value.code == 404
