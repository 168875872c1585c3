"""Gold tasks told apart by what a rater sees (issue 46, item 2): the hostile rater's classifier stays at chance.

Before issue 46 gold was told apart three ways, each at 1.00 accuracy over 30 tasks with ``--normalise``:
its family was "text-to-video" whatever the study's (the page prints it), its rate ``round(fps)``
(24 where the study ran at 23.976), and both sides took one study clip's frame size while the two
systems differ. Here a study of two systems of different sizes and lengths at 24000/1001 (an
image-to-video study, and an edit study whose page shows a source clip) gets gold pairs from
``reeljudge ab gold``; one rater rates everything through the server. The classifier is the hostile
rater's: from each task's JSON (family, label, the page's rows, each side's size, rate and length,
the source clip) and each clip's container headers read without decoding (codec, profile, pixel
format, size, rate, time base, frame count, length, streams, codec extradata, metadata), a task is
flagged gold when what it shows occurs in no study task. Bytes and bit rate follow the pictures,
which a rater judges anyway, and are left out.
"""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from reeljudge.ab.study.assignment import QCOptions
from reeljudge.ab.store.imports import build_samples, read_manifest
from reeljudge.ab.study.workspace import Workspace
from reeljudge.cli import main
from support.ab_study import invite, running_server, take_task, valid_form

#: the two systems as the study gives them: frame size and frames at 24000/1001
SYSTEMS = {"sys-x": (160, 96, 6), "sys-y": (128, 72, 4)}
PAIRS = 8
GOLD = 6


def _study(root: Path, family: str) -> Workspace:
    """A study of ``PAIRS`` tasks by two systems of different sizes and lengths at 23.976 fps, normalised."""
    from reeljudge.synth.clips import BASE, make_clip

    src = root / "src"
    rows = []
    for i in range(PAIRS):
        row: dict[str, Any] = {"prompt": f"The lantern on the pier sways in the wind, take {i}", "family": family,
                               "system_a": "sys-x", "system_b": "sys-y"}
        for key, (system, (width, height, frames)) in zip(("clip_a", "clip_b"), SYSTEMS.items()):
            seed = 300 + 2 * i + (key == "clip_b")
            spec = replace(BASE, width=width, height=height, frames=frames, fps=24000 / 1001, seed=seed)
            row[key] = make_clip(src / f"{system}-{i}.mp4", spec).name
        if family == "edit":
            row["source"] = make_clip(src / f"source-{i}.mp4", replace(BASE, width=160, height=96, frames=5,
                                                                      fps=24000 / 1001, seed=700 + i)).name
        rows.append(row)
    (src / "manifest.yaml").write_text(yaml.safe_dump(rows))
    ws = Workspace(root / "study")
    protocol = ws.fix_protocol()
    ws.fix_blinding("normalise")
    result = build_samples(read_manifest(src / "manifest.yaml"), protocol, ws.clips, blinding="normalise")
    ws.store.add_samples(result.samples, list(result.clips.values()))
    assert main(["ab", "gold", "--data", str(ws.root), "--count", str(GOLD)]) == 0
    return ws


def _headers(data: bytes) -> tuple[Any, ...]:
    """What a clip's container says without decoding a frame."""
    import av

    with av.open(io.BytesIO(data)) as container:
        video = container.streams.video[0]
        context = video.codec_context
        return (container.format.name, len(container.streams), tuple(sorted(container.metadata.items())),
                tuple(sorted(video.metadata.items())), context.name, context.profile, context.pix_fmt, context.width,
                context.height, str(video.average_rate), str(video.time_base), video.frames, video.duration,
                container.duration, bytes(context.extradata or b"").hex())


def _seen(client: httpx.Client, url: str, task: dict[str, Any]) -> tuple[Any, ...]:
    """Everything the task shows a rater (but the prompt's words and the pictures), side order aside."""
    sides = sorted((clip["width"], clip["height"], clip["fps"], clip["duration"], _headers(client.get(url + clip["url"]).content))
                   for clip in task["clips"].values())
    source = task["source"]
    shown_source = None if source is None else (source["duration"], _headers(client.get(url + source["url"]).content))
    rows = tuple(sorted(k for k in task if k not in ("assignment_id", "prompt", "clips", "source")))
    return (task["family"], task["family_label"], rows, task["min_full_plays"], task["max_speed"], tuple(sides),
            shown_source)


@pytest.mark.parametrize("family", ["image-to-video", "edit"])
def test_a_classifier_on_the_task_json_and_the_clip_headers_cannot_tell_gold_from_study_tasks(tmp_path, family):
    ws = _study(tmp_path, family)
    gold_ids = {s.sample_id for s in ws.store.samples() if s.kind == "gold"}
    token = invite(ws, "mallory")
    shown: list[tuple[bool, tuple[Any, ...], str]] = []
    with running_server(ws, QCOptions(gold_every=2)) as url, httpx.Client(timeout=30) as client:
        for n in range(PAIRS + GOLD + 1):
            task, watch = take_task(client, url, token)
            if task is None:
                break
            sample_id = ws.store.query("SELECT sample_id FROM assignments WHERE assignment_id = ?",
                                       (task["assignment_id"],))[0][0]
            shown.append((sample_id in gold_ids, _seen(client, url, task), task["prompt"]))
            body = {"assignment_id": task["assignment_id"], "submission_id": f"hostile-{n:04d}",
                    "form": valid_form("A", family), "watch": watch}
            assert client.post(f"{url}/api/r/{token}/submit", json=body).status_code == 200
    gold = [seen for is_gold, seen, _ in shown if is_gold]
    study = [seen for is_gold, seen, _ in shown if not is_gold]
    assert len(gold) >= 2 and len(study) == PAIRS  # a gold pair goes only to a rater not handed its prompt yet
    flagged = [seen for seen in gold if seen not in study]  # the classifier: "shows what no study task shows"
    assert flagged == [], flagged[:1]
    for i in range(len(gold[0])):  # and no single row of it either
        assert {g[i] for g in gold} <= {s[i] for s in study}, i
    assert {p for is_gold, _, p in shown if is_gold} <= {p for is_gold, _, p in shown if not is_gold}  # a study prompt
    # both systems' sizes stay on both kinds of task, and 23.976 stays 24000/1001
    assert {tuple(side[:3]) for seen in gold for side in seen[5]} == {tuple(side[:3]) for seen in study for side in seen[5]}
    assert all(str(side[4][9]) == "24000/1001" for seen in gold for side in seen[5])
