"""The rating page's static files, served from memory (issue 46: a rater's page loads behind any shared address).

Every file of ``static/`` is read once when the app is made, with its version (the first 12 hex digits of its SHA-256) and a
gzip copy. The page a rater opens (``/r/<token>``) names its stylesheet and script under its own token and version
(``/r/<token>/static/rater.js?v=<version>``): the fair share (``fair_share.py``) charges them to the token's own bucket for
static files, never to the address's bucket (which a tokenless flood from the same address empties) nor to the bucket the
rater's tasks and clips draw on; a browser keeps them a year (``immutable``) and asks again only when a file changes (its
version, and so its address, changes with it). ``/static/<name>`` still serves them to the admin pages, charged to the
address as before; without the current version it is revalidated (ETag) on every use. Nothing here opens a file once the
app is made: a process at its open-files limit still serves its page.
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # starlette: the rating extra
    from starlette.requests import Request
    from starlette.responses import Response

#: a year: how long a browser keeps a static file fetched at its current version
IMMUTABLE_S = 365 * 24 * 3600
PAGE = "rater.html"
#: a reference to a static file in the page (``href="/static/rater.css"``), made the token's own on the way out
_REFERENCE = re.compile(r"""(["'])/static/([A-Za-z0-9_.-]+)\1""")
_TOKEN_SLOT = "{token}"


@dataclass(frozen=True)
class Asset:
    """One static file in memory: its bytes, gzip copy, media type and version."""

    body: bytes
    gzipped: bytes
    media_type: str
    version: str


class Assets:
    """The rating page's static files, read once from ``folder``; answers ``/static/<name>``, ``/r/<token>/static/<name>`` and
    the page itself."""

    def __init__(self, folder: Path) -> None:
        self.files: dict[str, Asset] = {}
        for path in sorted(folder.iterdir()):
            if path.is_file():
                body = path.read_bytes()
                media = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
                if media.startswith("text/") or media in ("application/javascript", "image/svg+xml"):
                    media += "; charset=utf-8"
                self.files[path.name] = Asset(body, gzip.compress(body, 9, mtime=0), media, hashlib.sha256(body).hexdigest()[:12])
        page = self.files[PAGE].body.decode("utf-8").replace("{", "{{").replace("}", "}}")
        self._page = _REFERENCE.sub(self._reference, page)

    def _reference(self, match: re.Match[str]) -> str:
        """The page's reference to a static file, under the rater's token and at the file's version."""
        quote, name = match.group(1), match.group(2)
        asset = self.files.get(name)
        if asset is None:
            return match.group(0)
        return f"{quote}/r/{_TOKEN_SLOT}/static/{name}?v={asset.version}{quote}"

    def page(self, token: str) -> bytes:
        """The rating page for ``token`` (a token the fair share already matched: URL-safe characters only)."""
        return self._page.format(token=token).encode("utf-8")

    def response(self, request: Request, name: str, scoped: bool) -> Response:
        """``name`` as the answer to ``request``: 304 when the browser holds this version, gzip when it takes it; kept a year
        when asked for at its current version (``scoped``: under a rater's token, so ``private``), else revalidated."""
        from starlette.responses import PlainTextResponse, Response

        asset = self.files.get(name)
        if asset is None or name == PAGE:
            return PlainTextResponse("not found", status_code=404)
        etag = f'"{asset.version}"'
        if request.query_params.get("v") == asset.version:
            cache = f"{'private' if scoped else 'public'}, max-age={IMMUTABLE_S}, immutable"
        else:
            cache = "no-cache"
        headers = {"ETag": etag, "Cache-Control": cache, "Vary": "Accept-Encoding"}
        if etag in request.headers.get("if-none-match", ""):
            return Response(status_code=304, headers=headers)
        if "gzip" in request.headers.get("accept-encoding", ""):
            headers["Content-Encoding"] = "gzip"
            return Response(asset.gzipped, media_type=asset.media_type, headers=headers)
        return Response(asset.body, media_type=asset.media_type, headers=headers)
