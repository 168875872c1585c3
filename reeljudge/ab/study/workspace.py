"""An A/B data folder: the store (``ab.sqlite``), the clip folder, the admin token and the protocol.

Default folder ``.reeljudge/ab`` (``REELJUDGE_AB_DIR`` or ``--data`` to change it). A team server
can keep the store in PostgreSQL instead: ``--database postgresql://…`` or ``REELJUDGE_AB_DATABASE``
(one study per database or schema); the clips and the admin token stay in the folder.
"""

from __future__ import annotations

import hmac
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path

from reeljudge.ab.store.protocol import DEFAULT_PROTOCOL, Protocol, load_protocol
from reeljudge.ab.store.samples import BLINDING, ClipStore
from reeljudge.ab.store.store import Store
from reeljudge.environment import study_environment
from reeljudge.errors import BadInputError

DEFAULT_DIR = ".reeljudge/ab"
STORE_FILE = "ab.sqlite"
DATABASE_ENV = "REELJUDGE_AB_DATABASE"
PROTOCOL_KEY = "protocol"
BLINDING_KEY = "blinding"



def default_dir() -> Path:
    """``$REELJUDGE_AB_DIR`` or ``.reeljudge/ab`` under the working directory."""
    return Path(study_environment().ab_dir or DEFAULT_DIR)


@dataclass
class Workspace:
    """Everything one A/B study keeps, in one folder."""

    root: Path
    database: str | None = None  # a postgresql:// URL; default $REELJUDGE_AB_DATABASE, else <root>/ab.sqlite
    store: Store = field(init=False)
    clips: ClipStore = field(init=False)

    def __post_init__(self) -> None:
        self.root = Path(self.root)
        self.store = Store(self.database or study_environment().ab_database or self.root / STORE_FILE)
        self.clips = ClipStore(self.root / "clips")

    @property
    def protocol(self) -> Protocol:
        """The study's protocol version (fixed at the first import; ab-v1 by default)."""
        return load_protocol(self.store.meta(PROTOCOL_KEY) or DEFAULT_PROTOCOL)

    def fix_protocol(self, protocol_id: str = DEFAULT_PROTOCOL) -> Protocol:
        """Record the protocol version once (later calls must agree) and return it."""
        load_protocol(protocol_id)
        stored = self.store.set_meta_once(PROTOCOL_KEY, protocol_id)
        return load_protocol(stored)

    @property
    def blinding(self) -> str:
        """How the study blinds its clips (``samples.BLINDING``; fixed at the first import, "strip" by default)."""
        return self.store.meta(BLINDING_KEY) or BLINDING[0]

    def fix_blinding(self, blinding: str) -> str:
        """Record how clips are blinded, once: every clip of a study takes one path (a later import must agree)."""
        if blinding not in BLINDING:
            raise BadInputError(f"blinding {blinding!r}: not one of {', '.join(BLINDING)}")
        stored = self.store.set_meta_once(BLINDING_KEY, blinding)
        if stored != blinding:
            flag = "with --normalise" if stored == "normalise" else "without --normalise"
            raise BadInputError(f"this study's clips were imported {flag} ({stored}); import {flag} again: every clip of a "
                                "study is blinded the same way, or the way it was blinded would tell its clips apart")
        return stored

    def admin_token(self) -> str:
        """The admin token (made once, kept in ``admin-token`` readable by the owner only)."""
        path = self.root / "admin-token"
        if not path.exists():
            self.root.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as out:
                out.write(secrets.token_urlsafe(24))
        return path.read_text().strip()

    def is_admin(self, token: str | None) -> bool:
        """Constant-time check of an admin token."""
        return bool(token) and hmac.compare_digest(token.encode(), self.admin_token().encode())  # type: ignore[union-attr]


def open_study(root: str | os.PathLike[str], database: str | None = None) -> Workspace:
    """An existing study; BadInputError naming the folder (or database) when it holds none.

    Only the commands that create a study (``import``, ``gold``) open a folder with ``Workspace``
    directly; every other command comes here, so a mistyped ``--data`` is an error, not an empty study.
    """
    root = Path(root)
    location = database or study_environment().ab_database
    if not location and not (root / STORE_FILE).is_file():
        raise BadInputError(f"--data {root}: no A/B study there (no {STORE_FILE}); `reeljudge ab import` creates one")
    ws = Workspace(root, database=database)
    if ws.store.meta(PROTOCOL_KEY) is None:
        raise BadInputError(f"{ws.store.describe()}: holds no A/B study (nothing imported); `reeljudge ab import` creates one")
    return ws


def new_invite_token() -> str:
    """A fresh unguessable invite token for a rater's link."""
    return secrets.token_urlsafe(18)
