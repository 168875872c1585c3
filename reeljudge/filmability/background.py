"""The background narrations: what narrations about other things say, embedded once and cached.

A search term is related to its narration only on positive evidence that this narration explains
it better than narrations about other things would. The "other things" are a bank of a
few hundred one-sentence narrations across many domains, written for reeljudge and shipped in the
wheel (:func:`reeljudge.package_data.background_narrations_path`). Each is embedded in the same two views as
the judged narration (its chunks and the whole sentence, :func:`reeljudge.filmability.relevance.narration_chunks`),
so a term's match to a background narration is measured exactly as its match to its own.

The bank's vectors are computed once per model and bank text, kept in the process, and stored in
the one judge cache (``reeljudge.cache``, record kind :data:`KIND`) so that the next process (promptfoo
starts one per assertion) reads them instead of embedding a few thousand phrases again.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Sequence

from reeljudge.package_data import background_narrations_path

if TYPE_CHECKING:  # pragma: no cover - typing only
    import numpy as np

    from reeljudge.cache import JudgeCache
    from reeljudge.filmability.embeddings import Embedder

#: the cache record kind of the bank's vectors
KIND = "embeddings.background"
#: format of the cached record (bump when its layout changes)
RECORD_FORMAT = 1
#: phrases embedded per model call (sorted by length first, so that short words are not padded to sentences)
BATCH = 64


#: the bank's domains about computing: a software explainer's own subject, so never "other things" for it
SOFTWARE_DOMAINS = frozenset(("software development", "computers networks and cloud", "cybersecurity and privacy"))


@dataclass(frozen=True)
class BackgroundNarration:
    """One narration of the bank and its domain."""

    domain: str
    text: str


@dataclass(frozen=True)
class BankVectors:
    """The bank embedded in two views: every narration's chunks (rows of ``chunks``, narration ``i``'s
    from ``starts[i]``), and each narration's whole sentence (``sentences``, also its first chunk)."""

    narrations: tuple[BackgroundNarration, ...]
    chunks: "np.ndarray"
    starts: "np.ndarray"
    sentences: "np.ndarray"


def read_bank(text: str | None = None) -> tuple[BackgroundNarration, ...]:
    """The narrations of the bank file (or of ``text`` in its format: ``domain | narration`` per line)."""
    if text is None:
        text = background_narrations_path().read_text(encoding="utf-8")
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        domain, sep, narration = line.partition("|")
        if not sep or not domain.strip() or not narration.strip():
            raise ValueError(f"background narrations, line {number}: expected 'domain | narration', got {line!r}")
        out.append(BackgroundNarration(domain.strip(), narration.strip()))
    return tuple(out)


def bank_digest(bank: Sequence[BackgroundNarration]) -> str:
    """A short hash of the bank's content (part of the cache record's identity)."""
    blob = "\n".join(f"{n.domain}|{n.text}" for n in bank).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()[:16]


_MEMO: dict[tuple[str, str], BankVectors] = {}


def bank_vectors(model: "Embedder", chunker: Callable[[str], list[str]], cache: "JudgeCache | None" = None) -> BankVectors:
    """The bank's vectors for ``model``: from this process, else the cache, else embedded now (and cached)."""
    bank = read_bank()
    digest = bank_digest(bank)
    key = (repr(sorted(model.info.as_dict().items())), digest)
    if key in _MEMO:
        return _MEMO[key]
    identity = {"model": model.info.as_dict(), "bank": digest, "format": RECORD_FORMAT}
    record = cache.get_record(KIND, identity) if cache is not None else None
    vectors = _from_record(bank, record) if record else None
    if vectors is None:
        vectors = _embed(model, bank, chunker)
        if cache is not None:
            cache.put_record(KIND, identity, _to_record(vectors))
    _MEMO[key] = vectors
    return vectors


def _embed(model: "Embedder", bank: Sequence[BackgroundNarration], chunker: Callable[[str], list[str]]) -> BankVectors:
    """Embed every narration's chunks (each distinct phrase once)."""
    import numpy as np

    per = [chunker(n.text) for n in bank]
    distinct = sorted(dict.fromkeys(c for chunks in per for c in chunks), key=len)  # alike lengths pad little
    vectors = np.vstack([model.embed(distinct[i:i + BATCH]) for i in range(0, len(distinct), BATCH)])
    row = {c: i for i, c in enumerate(distinct)}
    chunks = vectors[[row[c] for chunks in per for c in chunks]]
    starts = np.cumsum([0] + [len(c) for c in per[:-1]]).astype(np.int64)
    return BankVectors(tuple(bank), chunks, starts, chunks[starts])


def _to_record(v: BankVectors) -> dict[str, object]:
    """The vectors as a JSON-safe record (float32 bytes in base64: read back bit for bit)."""
    import numpy as np

    return {"dim": int(v.chunks.shape[1]), "starts": [int(s) for s in v.starts],
            "chunks": base64.b64encode(np.ascontiguousarray(v.chunks, dtype="<f4").tobytes()).decode("ascii")}


def _from_record(bank: Sequence[BackgroundNarration], record: dict[str, Any]) -> BankVectors | None:
    """The vectors of a cached record, or None when it does not fit the bank (then they are embedded anew)."""
    import numpy as np

    try:
        dim = int(record["dim"])
        starts = np.asarray(record["starts"], dtype=np.int64)
        chunks = np.frombuffer(base64.b64decode(str(record["chunks"])), dtype="<f4").reshape(-1, dim).astype(np.float32)
    except (KeyError, TypeError, ValueError):
        return None
    if len(starts) != len(bank) or (len(starts) and int(starts[-1]) >= len(chunks)):
        return None
    return BankVectors(tuple(bank), chunks, starts, chunks[starts])
