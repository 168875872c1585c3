"""A/B samples and the clips they show, addressed by content hash.

A sample is one prompt with two systems' clips (and, for edit tasks, the source clip). Its id is
a hash of its content, so importing the same pair twice (in either order) gives the same sample.
A clip enters the study blinded (``ClipStore.intake``): its names stripped, or re-encoded to one
profile when the study asks (``BLINDING``), then copied into the A/B data folder as
``clips/<sha256>.<ext>`` (the hash of the blinded file).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Mapping

from reeljudge.errors import MediaError

PLAYABLE_SUFFIXES = {".mp4": "video/mp4", ".m4v": "video/mp4", ".webm": "video/webm"}  # as reeljudge.media.container.PLAYABLE
RESERVED_SYSTEMS = frozenset({"tie", "A", "B"})
#: how a study blinds its clips' bytes: "strip" (names, tags and user data removed, packets kept) or "normalise"
#: (also re-encoded to one profile, so no codec setting tells the systems apart)
BLINDING = ("strip", "normalise")
FILE_TIME = 946684800  # 2000-01-01T00:00:00Z: the access and modification time of every stored clip


@dataclass(frozen=True)
class Clip:
    """A stored clip: content hash, file name in the clip folder, size, type and playback facts."""

    sha256: str
    file: str
    bytes: int
    mime: str
    duration: float
    fps: float
    width: int
    height: int

    def as_dict(self) -> dict[str, Any]:
        """JSON form."""
        return asdict(self)


@dataclass(frozen=True)
class Sample:
    """One prompt, two systems' clips (``a`` and ``b`` in canonical order), optional edit source."""

    sample_id: str
    family: str
    prompt: str
    system_a: str
    clip_a: str
    system_b: str
    clip_b: str
    source_clip: str | None = None
    kind: str = "pair"  # "pair" or "gold"
    expected: str | None = None  # gold: the system that must win, or "tie"
    origin: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def systems(self) -> tuple[str, str]:
        """(system_a, system_b)."""
        return (self.system_a, self.system_b)

    def clip_of(self, system: str) -> str:
        """The clip sha256 of one of the sample's systems."""
        return self.clip_a if system == self.system_a else self.clip_b


def sample_id_for(family: str, prompt: str, pairs: Mapping[str, str], source_clip: str | None) -> str:
    """16 hex of the sha256 over the sample's content (order of ``pairs`` does not matter)."""
    payload = json.dumps([family, prompt, sorted(pairs.items()), source_clip], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


def make_sample(
    family: str, prompt: str, first: tuple[str, str], second: tuple[str, str], *,
    source_clip: str | None = None, kind: str = "pair", expected: str | None = None, origin: str = "",
    extra: Mapping[str, Any] | None = None,
) -> Sample:
    """A sample from two (system, clip sha256) pairs, put in canonical order (by system name)."""
    (sa, ca), (sb, cb) = sorted([first, second])
    sid = sample_id_for(family, prompt, {sa: ca, sb: cb}, source_clip)
    return Sample(sid, family, prompt, sa, ca, sb, cb, source_clip, kind, expected, origin, dict(extra or {}))


class ClipStore:
    """The folder of clips addressed by content hash."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    def path(self, clip: Clip) -> Path:
        """Where a stored clip lives."""
        return self.root / clip.file

    def check(self, source: Path, *, suffix: str | None = None) -> Clip:
        """Check a clip decodes and hash it (nothing is written); MediaError naming the file if it is unusable.
        ``suffix``: the clip's format when its file name has none (a blob in promptfoo's store)."""
        from reeljudge.media.refs import file_size, sha256_file

        size = file_size(source)
        suffix = (suffix if suffix is not None else source.suffix).lower()
        if suffix not in PLAYABLE_SUFFIXES:
            raise MediaError(f"{source}: {suffix or 'no extension'} does not play in browsers; convert it to MP4 (H.264) or WebM")
        facts = probe_clip(source)
        sha = sha256_file(source)
        return Clip(sha, f"{sha}{suffix}", size, PLAYABLE_SUFFIXES[suffix], **facts)

    def intake(self, source: Path, work: Path, *, suffix: str | None = None, blinding: str = "strip") -> tuple[Clip, Clip, Path]:
        """Check a clip, write its blinded copy (``blinding``: one of ``BLINDING``) into the folder ``work`` and check
        that: (the source's facts, the blinded clip's facts, its file). MediaError naming the file if either is unusable."""
        from reeljudge.media.anonymise import normalise, strip_names

        original = self.check(source, suffix=suffix)
        target = work / f"{original.sha256}{'.mp4' if blinding == 'normalise' else Path(original.file).suffix}"
        if not target.exists():
            normalise(source, target, work) if blinding == "normalise" else strip_names(source, target)
        return original, self.check(target), target

    def put_all(self, sources: Mapping[str, tuple[Clip, Path]]) -> None:
        """Copy checked clips in (each once), in the order of their content hashes, never of systems or sides, and
        give every stored clip the same file time, so neither the order nor the time of writing tells the clips apart."""
        from reeljudge.atomic import atomic_path

        for sha in sorted(sources):
            clip, source = sources[sha]
            target = self.root / clip.file
            if not target.exists():
                with atomic_path(target) as tmp:
                    shutil.copyfile(source, tmp)
            os.utime(target, (FILE_TIME, FILE_TIME))


def probe_clip(path: Path) -> dict[str, Any]:
    """Duration, fps and size of a clip after decoding its first frame; MediaError if it does not decode."""
    import av

    from reeljudge.media.container import ffmpeg_reason, open_info

    container, stream, info = open_info(path)
    try:
        frame = next(container.decode(stream), None)
    except av.error.FFmpegError as error:
        raise MediaError(f"{path}: cannot be decoded as video ({ffmpeg_reason(error)})") from None
    finally:
        container.close()
    if frame is None:
        raise MediaError(f"{path}: cannot be decoded as video (no frame)")
    return {"duration": round(info.declared_duration, 3), "fps": round(info.fps or 24.0, 3),
            "width": info.width, "height": info.height}
