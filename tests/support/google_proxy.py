"""A TLS-terminating CONNECT proxy on 127.0.0.1 that plays one Google host, for clients whose base URL is hard-coded.

promptfoo's own Veo provider always calls ``https://generativelanguage.googleapis.com/v1beta``;
its fetch honours ``HTTPS_PROXY`` and trusts an extra CA from ``PROMPTFOO_CA_CERT_PATH``. So a test
points ``HTTPS_PROXY`` here and ``PROMPTFOO_CA_CERT_PATH`` at ``tls.ca``: the proxy accepts
``CONNECT`` only to ``host:443`` (anything else: 403, recorded in ``refused``), answers the TLS
handshake with a leaf certificate for ``host`` signed by a throw-away CA made by ``make_tls``, reads
the decrypted HTTP/1.1 requests and forwards each to ``upstream`` (the fake Gemini server,
``tests/support/fake_gemini.py``) with ``X-Forwarded-Host``/``-Proto``, so URLs the fake hands out name the
Google host again. Every request it forwarded is in ``requests`` (method, path with query, headers).

Use in tests::

    tls = make_tls(tmp_path / "tls", GOOGLE_HOST)
    with GoogleProxy(tls, upstream=fake.url) as proxy:
        env = {"HTTPS_PROXY": proxy.url, "PROMPTFOO_CA_CERT_PATH": str(tls.ca), ...}
"""

from __future__ import annotations

import datetime
import http.client
import ssl
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from support.local_server import LocalServer

GOOGLE_HOST = "generativelanguage.googleapis.com"
MAX_BODY = 8 * 1024 * 1024  # the largest request body forwarded (Veo starts are small JSON)
HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade",
              "host", "content-length"}


@dataclass(frozen=True)
class TlsFiles:
    """PEM files: the throw-away CA's certificate (what the client trusts), the leaf's certificate and key."""

    ca: Path
    cert: Path
    key: Path


@dataclass(frozen=True)
class SeenRequest:
    """One request the proxy forwarded: method, path with query, headers (names lower-cased)."""

    method: str
    path: str
    headers: dict[str, str]


def _name(common_name: str) -> Any:
    """An X.509 name with one common name."""
    from cryptography import x509
    from cryptography.x509.oid import NameOID

    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _certificate(subject: str, issuer: str, public_key: Any, signing_key: Any, *, ca: bool, host: str | None) -> Any:
    """A certificate valid for a day: a CA (may sign certificates) or a TLS server leaf for ``host``."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.x509.oid import ExtendedKeyUsageOID

    now = datetime.datetime.now(datetime.timezone.utc)
    builder = (
        x509.CertificateBuilder().subject_name(_name(subject)).issuer_name(_name(issuer)).public_key(public_key)
        .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=0 if ca else None), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(public_key), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(signing_key.public_key()), critical=False)
    )
    if ca:
        usage = x509.KeyUsage(False, False, False, False, False, True, True, False, False)  # keyCertSign, cRLSign
        builder = builder.add_extension(usage, critical=True)
    else:
        builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName(host or subject)]), critical=False)
        builder = builder.add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
    return builder.sign(signing_key, hashes.SHA256())


def make_tls(folder: Path, host: str) -> TlsFiles:
    """A new CA and a leaf certificate for ``host`` signed by it, written as PEM files into ``folder``."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    folder.mkdir(parents=True, exist_ok=True)
    ca_key, leaf_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_cert = _certificate("reeljudge test CA (throw-away)", "reeljudge test CA (throw-away)", ca_key.public_key(), ca_key,
                           ca=True, host=None)
    leaf = _certificate(host, "reeljudge test CA (throw-away)", leaf_key.public_key(), ca_key, ca=False, host=host)
    files = TlsFiles(folder / "ca.pem", folder / "leaf.pem", folder / "leaf.key")
    files.ca.write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    files.cert.write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
    files.key.write_bytes(leaf_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                 serialization.NoEncryption()))
    return files


class GoogleProxy(LocalServer):
    """The proxy; ``with GoogleProxy(tls, upstream=url) as proxy`` serves until the block ends."""

    def __init__(self, tls: TlsFiles, *, upstream: str, host: str = GOOGLE_HOST) -> None:
        self.host = host
        self.upstream = urlsplit(upstream)
        if not self.upstream.hostname:
            raise ValueError(f"GoogleProxy: upstream {upstream!r} names no host")
        self.upstream_host: str = self.upstream.hostname
        self.connects: list[str] = []  # every target asked for (CONNECT host:port, or a plain request's), allowed or not
        self.refused: list[str] = []  # the targets refused (403 to a CONNECT, 405 to a plain request)
        self.requests: list[SeenRequest] = []
        self.lock = threading.Lock()
        self.tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.tls.load_cert_chain(tls.cert, tls.key)
        self.tls.set_alpn_protocols(["http/1.1"])
        self._listen(_connect_handler(self), name="google-proxy")  # url: the value for HTTPS_PROXY

    def record(self, request: SeenRequest) -> None:
        """Note a forwarded request (called from handler threads)."""
        with self.lock:
            self.requests.append(request)

    def forward(self, method: str, path: str, headers: dict[str, str], body: bytes) -> tuple[int, str,
                                                                                             list[tuple[str, str]], bytes]:
        """Send one request to the upstream server; (status, reason, headers, body) of its answer."""
        connection = http.client.HTTPConnection(self.upstream_host, self.upstream.port, timeout=60)
        try:
            sent = {k: v for k, v in headers.items() if k.lower() not in HOP_BY_HOP}
            sent.update({"X-Forwarded-Host": self.host, "X-Forwarded-Proto": "https", "Content-Length": str(len(body))})
            connection.request(method, path, body=body, headers=sent)
            answer = connection.getresponse()
            data = answer.read()
            kept = [(k, v) for k, v in answer.getheaders() if k.lower() not in HOP_BY_HOP]
            return answer.status, answer.reason, kept, data
        finally:
            connection.close()


def _connect_handler(proxy: GoogleProxy) -> type[BaseHTTPRequestHandler]:
    """The handler of the proxy's plain-HTTP side: CONNECT to the one allowed host, nothing else."""

    class ConnectHandler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        timeout = 60

        def log_message(self, *args: Any) -> None:  # keep test output clean
            pass

        def do_CONNECT(self) -> None:  # noqa: N802 - http.server naming
            with proxy.lock:
                proxy.connects.append(self.path)
            if self.path != f"{proxy.host}:443":
                with proxy.lock:
                    proxy.refused.append(self.path)
                self.send_error(403, f"this test proxy tunnels only to {proxy.host}:443")
                self.close_connection = True
                return
            self.send_response(200, "Connection Established")
            self.end_headers()
            try:
                tunnel = proxy.tls.wrap_socket(self.connection, server_side=True)
            except (ssl.SSLError, OSError):
                self.close_connection = True
                return
            _tunnel_handler(proxy)(tunnel, self.client_address, self.server)  # serves the tunnel until the client closes it
            self.close_connection = True

        def _refuse(self) -> None:  # a plain-HTTP request through the proxy (an absolute URL): its host is a target too
            target = urlsplit(self.path)
            if target.hostname:
                with proxy.lock:
                    proxy.connects.append(f"{target.hostname}:{target.port or 80}")
                    proxy.refused.append(proxy.connects[-1])
            self.send_error(405, "this test proxy only tunnels (CONNECT)")

        do_GET = do_POST = do_PUT = do_DELETE = _refuse  # noqa: N815 - http.server naming

    return ConnectHandler


def _tunnel_handler(proxy: GoogleProxy) -> type[BaseHTTPRequestHandler]:
    """The handler of the decrypted requests inside one tunnel: each forwarded to the upstream server."""

    class TunnelHandler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        timeout = 60

        def log_message(self, *args: Any) -> None:
            pass

        def _relay(self) -> None:
            if self.headers.get("Transfer-Encoding"):
                self.send_error(411, "this test proxy reads only bodies with a Content-Length")
                self.close_connection = True
                return
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:  # bounded before it is read
                self.send_error(413, f"request body over {MAX_BODY} bytes")
                self.close_connection = True
                return
            body = self.rfile.read(length) if length else b""
            headers = {k.lower(): v for k, v in self.headers.items()}
            proxy.record(SeenRequest(self.command, self.path, headers))
            status, reason, answer_headers, data = proxy.forward(self.command, self.path, dict(self.headers.items()), body)
            self.send_response(status, reason)
            for key, value in answer_headers:
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_DELETE = _relay  # noqa: N815

    return TunnelHandler
