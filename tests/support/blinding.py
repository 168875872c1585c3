"""What a scripted rater who never watches can learn from its task list and the clip bytes (issue 39).

Four classifiers, as the issue's attacker built them:

- **position**: "every ``gold_every``-th task is gold";
- **encoder names**: the strings in a clip that name an encoder or a system (x264/x265 settings in
  SEI user data, container tags, handler and compressor names): "both sides carry the same names:
  gold", and "the side whose names are these is system X";
- **repeated prompt**: "a task whose prompt I have seen before is gold";
- **side by bytes**: a fingerprint of everything in the file that does not depend on the pictures
  (the box layout, the codec configuration with its SPS/PPS, time scales, edit lists, names):
  "the side with this fingerprint is system X".

Each is scored against the truth over a rater's tasks; ``at_chance`` says whether a score is within
three standard errors of what guessing gets. Also here: clips of two "systems" that differ the way
real generators do (x264 settings, container tags, handler names), for the study these run on.
"""

from __future__ import annotations

import hashlib
import math
import re
import struct
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

#: boxes that hold boxes (after their own header fields: bytes to skip)
_CONTAINERS = {b"moov": 0, b"trak": 0, b"mdia": 0, b"minf": 0, b"stbl": 0, b"udta": 0, b"edts": 0, b"dinf": 0,
               b"meta": 4, b"ilst": 0, b"stsd": 8, b"avc1": 78, b"avc3": 78, b"hvc1": 78, b"hev1": 78, b"av01": 78,
               b"vp09": 78, b"mp4a": 28}
#: boxes whose content follows the pictures (sizes, times, offsets, sample data), left out of the fingerprint
_CONTENT = {b"mdat", b"free", b"skip", b"stts", b"stsz", b"stz2", b"stsc", b"stco", b"co64", b"stss", b"ctts", b"sdtp",
            b"sgpd", b"sbgp", b"mvhd", b"tkhd", b"btrt", b"pasp"}
#: printable runs that name an encoder, wherever they are (SEI user data sits inside the first frame's bytes)
_ENCODER_TEXT = re.compile(rb"(?:x26[45]|Lav[fc]|libx26[45]|libvpx|libaom|HandBrake|ffmpeg|GPAC|Google|Sys[A-Z])[\x20-\x7e]{2,}")


def boxes(data: bytes, start: int = 0, end: int | None = None,
          path: tuple[bytes, ...] = ()) -> Iterator[tuple[tuple[bytes, ...], bytes]]:
    """(path of box types, payload) of every ISO BMFF box in ``data``, depth first."""
    end = len(data) if end is None else end
    pos = start
    while pos + 8 <= end:
        size, kind = struct.unpack(">I4s", data[pos:pos + 8])
        header = 8
        if size == 1:
            size, header = struct.unpack(">Q", data[pos + 8:pos + 16])[0], 16
        elif size == 0:
            size = end - pos
        if size < header or pos + size > end:
            return
        here = (*path, kind)
        payload = data[pos + header:pos + size]
        yield here, payload
        if kind in _CONTAINERS or path[-1:] == (b"ilst",):  # an ilst item (©nam, ©too, …) holds its data box
            yield from boxes(data, pos + header + _CONTAINERS.get(kind, 0), pos + size, here)
        pos += size


def encoder_names(data: bytes) -> tuple[str, ...]:
    """The strings in a clip that name an encoder or a system: sorted, deduplicated."""
    found = {m.group().decode("ascii", "replace").strip() for m in _ENCODER_TEXT.finditer(data)}
    for path, payload in boxes(data):
        kind = path[-1]
        if kind == b"hdlr" and len(payload) > 24:
            found.add("hdlr:" + payload[24:].split(b"\0", 1)[0].decode("utf-8", "replace"))
        elif kind == b"data" and b"ilst" in path:
            found.add("tag:" + payload[8:].decode("utf-8", "replace"))
        elif kind in (b"avc1", b"avc3", b"hvc1", b"hev1") and len(payload) >= 74:
            length = payload[42]
            found.add("compressor:" + payload[43:43 + min(length, 31)].decode("latin-1"))
    return tuple(sorted(name for name in found if name and not name.endswith(":")))


def codec_fingerprint(data: bytes) -> str:
    """A hash of everything in the file that does not follow the pictures: box layout, codec configuration
    (SPS/PPS), time scales, edit-list offsets and names (16 hex)."""
    digest = hashlib.sha256()
    for path, payload in boxes(data):
        kind = path[-1]
        digest.update(b"/".join(path) + b";")
        if kind in _CONTENT or kind in _CONTAINERS:
            continue
        if kind == b"mdhd":
            version = payload[0]
            digest.update(payload[12:16] if version == 0 else payload[20:24])  # the time scale, not the duration
        elif kind == b"elst":
            digest.update(payload[:8] + payload[12:16] if payload[0] == 0 else payload[:8] + payload[16:24])  # media time
        else:
            digest.update(payload)
    return digest.hexdigest()[:16]


@dataclass
class Seen:
    """One task as a rater's script saw it: its place, its prompt and its clips' bytes; and the truth."""

    position: int  # 0-based among this rater's tasks
    prompt: str
    bytes_a: bytes
    bytes_b: bytes
    gold: bool  # the truth, not shown to the rater
    system_on_a: str  # the truth: which system is on side A
    systems: tuple[str, str] = ("", "")


@dataclass
class Score:
    """A classifier's hits over its guesses, and what guessing would get."""

    name: str
    hits: int
    guesses: int
    chance: float  # the expected share of hits when guessing
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def rate(self) -> float:
        """Share of guesses that were right (0 without a guess)."""
        return self.hits / self.guesses if self.guesses else 0.0

    def at_chance(self, sigmas: float = 3.0) -> bool:
        """True when the hit rate is no more than ``sigmas`` standard errors above chance (or nothing was guessed)."""
        if not self.guesses:
            return True
        error = math.sqrt(self.chance * (1 - self.chance) / self.guesses)
        return self.rate <= self.chance + sigmas * error

    def __str__(self) -> str:
        return f"{self.name}: {self.hits}/{self.guesses} right ({self.rate:.0%}; chance {self.chance:.0%})"


def gold_by_position(tasks: Sequence[Seen], every: int) -> Score:
    """'Every n-th task is gold': hits among the tasks it calls gold."""
    called = [t for t in tasks if (t.position + 1) % every == 0]
    return Score("gold by position", sum(t.gold for t in called), len(called), _gold_share(tasks))


def gold_by_same_names(tasks: Sequence[Seen]) -> Score:
    """'Both clips carry the same encoder names: gold' (names of nothing prove nothing: both empty is no call)."""
    called = [t for t in tasks if encoder_names(t.bytes_a) and encoder_names(t.bytes_a) == encoder_names(t.bytes_b)]
    return Score("gold by encoder names", sum(t.gold for t in called), len(called), _gold_share(tasks))


def gold_by_same_fingerprint(tasks: Sequence[Seen]) -> Score:
    """'Both clips have the same codec fingerprint: gold'."""
    called = [t for t in tasks if codec_fingerprint(t.bytes_a) == codec_fingerprint(t.bytes_b)]
    return Score("gold by codec fingerprint", sum(t.gold for t in called), len(called), _gold_share(tasks))


def gold_by_repeated_prompt(tasks: Sequence[Seen]) -> Score:
    """'A prompt I have seen before is gold'."""
    seen: set[str] = set()
    called = []
    for t in sorted(tasks, key=lambda t: t.position):
        if t.prompt in seen:
            called.append(t)
        seen.add(t.prompt)
    return Score("gold by repeated prompt", sum(t.gold for t in called), len(called), _gold_share(tasks))


def side_by(tasks: Sequence[Seen], feature: Any, name: str) -> Score:
    """'The side whose ``feature`` is the one I noted on side A of my first pair shows system X': over pair tasks
    where the feature tells the sides apart, how often the side it points at shows the first pair's side-A system.
    Where it does not tell them apart the script has to guess: those tasks count as guesses at chance."""
    pairs = [t for t in tasks if not t.gold]
    if not pairs:
        return Score(name, 0, 0, 0.5)
    first = min(pairs, key=lambda t: t.position)
    reference, target = feature(first.bytes_a), first.system_on_a
    hits = 0
    told = 0
    for t in pairs:
        a, b = feature(t.bytes_a), feature(t.bytes_b)
        if a != b and reference in (a, b):
            told += 1
            picked_a = a == reference
            hits += (t.system_on_a == target) == picked_a
        else:
            hits += t.system_on_a == target  # it cannot tell: it picks side A
    return Score(name, hits, len(pairs), 0.5, {"told_apart": told})


def _gold_share(tasks: Sequence[Seen]) -> float:
    """The share of gold among the tasks (what calling tasks gold at random gets)."""
    return sum(t.gold for t in tasks) / len(tasks) if tasks else 0.0


def all_scores(per_rater: Mapping[str, Sequence[Seen]], every: int) -> list[Score]:
    """Every classifier of the issue, run on each rater's own task list and summed over the raters."""
    runs = [[gold_by_position(seen, every), gold_by_same_names(seen), gold_by_repeated_prompt(seen),
             side_by(seen, encoder_names, "side by encoder names"),
             side_by(seen, codec_fingerprint, "side by bytes (codec fingerprint)")]
            for seen in per_rater.values()]
    total = []
    for column in zip(*runs):
        guesses = sum(s.guesses for s in column)
        chance = sum(s.chance * s.guesses for s in column) / guesses if guesses else 0.0
        total.append(Score(column[0].name, sum(s.hits for s in column), guesses, chance))
    return total


# ---- clips of two systems that encode differently -------------------------------------------------------------

SYSTEMS = {
    "sys-x": {"preset": "veryfast", "crf": "20", "title": "SysX render 2.3", "handler": "SysX Video Handler"},
    "sys-y": {"preset": "ultrafast", "crf": "28", "title": "SysY generator 0.9", "handler": "SysY Media"},
}


def encode_as(path: Path, frames: Iterable[Any], system: str, fps: int = 24) -> Path:
    """Write RGB frames as ``system`` would: its x264 preset and rate factor (in the SEI settings string), its
    title and comment tags and its handler name."""
    import av
    import numpy as np

    settings = SYSTEMS[system]
    with av.open(str(path), "w", options={"movflags": "+faststart"}) as out:
        out.metadata["title"] = settings["title"]
        out.metadata["comment"] = f"made with {settings['title']}"
        stream = out.add_stream("libx264", rate=fps)
        stream.pix_fmt = "yuv420p"
        stream.options = {"preset": settings["preset"], "crf": settings["crf"], "x264-params": "threads=1:sliced-threads=0"}
        stream.metadata["handler_name"] = settings["handler"]
        for index, rgb in enumerate(frames):
            if index == 0:
                stream.width, stream.height = rgb.shape[1], rgb.shape[0]
            frame = av.VideoFrame.from_ndarray(np.ascontiguousarray(rgb), format="rgb24")
            frame.pts, frame.time_base = index, Fraction(1, fps)
            for packet in stream.encode(frame):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)
    return path


def two_system_study_files(folder: Path, n_pairs: int, frames: int = 24) -> Path:
    """``n_pairs`` prompts, each with a clip from sys-x and one from sys-y (distinct scenes), and a manifest; its path."""
    from dataclasses import replace

    import yaml

    from reeljudge.synth.clips import BASE, render

    folder.mkdir(parents=True, exist_ok=True)
    rows = []
    for i in range(n_pairs):
        row = {"prompt": f"Scene {i}: a camera pans across a textured wall while a ball crosses it",
               "system_a": "sys-x", "system_b": "sys-y"}
        for side, system in (("clip_a", "sys-x"), ("clip_b", "sys-y")):
            spec = replace(BASE, width=128, height=72, frames=frames, seed=1000 + 2 * i + (side == "clip_b"))
            row[side] = encode_as(folder / f"{system}-{i}.mp4", render(spec), system).name
        rows.append(row)
    manifest = folder / "manifest.yaml"
    manifest.write_text(yaml.safe_dump(rows))
    return manifest


def seen_tasks(ws: Any, rater: str, qc: Any, winner: str = "tie") -> list[Seen]:
    """Take and answer every task the store hands ``rater`` (store level: the script's view, the truth beside it)."""
    from reeljudge.ab.study.assignment import next_assignment
    from reeljudge.ab.store.records import build_record
    from support.ab_study import full_watch, valid_form

    tasks: list[Seen] = []
    while (task := next_assignment(ws.store, rater, qc)) is not None:
        task = task[0] if isinstance(task, tuple) else task
        sample = task.sample
        data = {side: ws.clips.path(ws.store.clip(sha)).read_bytes() for side, sha in task.clips.items()}
        tasks.append(Seen(len(tasks), sample.prompt, data["A"], data["B"], sample.kind == "gold",
                          task.shown["A"], sample.systems))
        record = build_record(sample_id=sample.sample_id, family=sample.family, protocol=ws.protocol.id, shown=task.shown,
                              clips=task.clips, form=valid_form(winner), rater_id=rater, served_at=task.served_at,
                              watch={"full_plays": {"A": 2, "B": 2}, "log": full_watch()["log"]})
        ws.store.append_judgement(record)
    return tasks


def summary(scores: Iterable[Score]) -> str:
    """One line per score."""
    return "\n".join(str(s) for s in scores)
