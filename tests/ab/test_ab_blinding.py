"""Blinding in the bytes (issue 39): a scripted rater that never watches learns nothing from a task's place, the clips'
names, a repeated prompt or the clips' bytes.

Finding (100 tasks): gold was every 5th task (100/100 by position), both gold clips shared one x264 settings string
(100/100), gold prompts repeated (86/100), and the encoder string told which system was on side A (80/80). Here a
study of 40 pairs from two systems that encode differently (x264 preset and rate factor, title, comment and handler
name) is imported through the CLI, gold pairs are added with ``ab gold``, four raters take every task, and the
classifiers of ``support.blinding`` are scored against the truth.
"""

from __future__ import annotations

import httpx
import pytest

from support.ab_study import invite, running_server
from support.blinding import SYSTEMS, all_scores, codec_fingerprint, encoder_names, seen_tasks, summary, two_system_study_files
from reeljudge.ab.study.assignment import QCOptions
from reeljudge.ab.study.workspace import open_study
from reeljudge.cli import main

RATERS = ("r1", "r2", "r3", "r4")
EVERY = 5
STRIPPED_NAMES = ("hdlr:VideoHandler",)  # FFmpeg's one default handler name: the same on every clip


@pytest.fixture(scope="module")
def manifest(tmp_path_factory):
    return two_system_study_files(tmp_path_factory.mktemp("two-systems"), 40)


def _study(root, manifest, *flags):
    """A study imported and given gold pairs through the CLI, as a user does, with a fixed side seed."""
    assert main(["ab", "import", "--data", str(root), str(manifest), *flags]) == 0
    assert main(["ab", "gold", "--data", str(root), "--count", "6", "--frames", "24"]) == 0
    ws = open_study(root)
    ws.store.set_meta_once("side_seed", "blinding-test-seed")
    return ws


def _scores(ws):
    tasks = {}
    for rater in RATERS:
        ws.store.add_rater(rater, "human", f"token-{rater}-0000000000")
        tasks[rater] = seen_tasks(ws, rater, QCOptions(gold_every=EVERY))
    scores = {s.name: s for s in all_scores(tasks, EVERY)}
    golds = sum(t.gold for seen in tasks.values() for t in seen)
    return tasks, scores, golds


def test_the_sources_tell_the_systems_apart(manifest):
    """The fixture is a fair test: before an import, names and bytes tell sys-x from sys-y."""
    x, y = (manifest.parent / f"{system}-0.mp4" for system in SYSTEMS)
    assert (any("x264 - core" in n for n in encoder_names(x.read_bytes()))
            and any("SysX" in n for n in encoder_names(x.read_bytes())))
    assert encoder_names(x.read_bytes()) != encoder_names(y.read_bytes())
    assert codec_fingerprint(x.read_bytes()) != codec_fingerprint(y.read_bytes())


def test_a_normalised_study_leaves_every_classifier_at_chance(tmp_path, manifest):
    ws = _study(tmp_path / "study", manifest, "--normalise")
    assert ws.blinding == "normalise"
    clips = [ws.clips.path(ws.store.clip(sha)).read_bytes() for s in ws.store.samples() for sha in (s.clip_a, s.clip_b)]
    assert {encoder_names(c) for c in clips} == {STRIPPED_NAMES}  # gold clips went the same way as the study's
    assert len({codec_fingerprint(c) for c in clips}) == 1  # one profile: nothing but the pictures differs
    tasks, scores, golds = _scores(ws)
    assert golds >= len(RATERS), summary(scores.values())  # gold was served: "at chance" is not a vacuous pass
    for score in scores.values():
        assert score.guesses and score.at_chance(), summary(scores.values())
    assert scores["gold by repeated prompt"].hits == 0  # a gold task never carries a prompt its rater was handed

    token = invite(ws, "web")
    with running_server(ws, QCOptions(min_raters=5, max_raters=5, gold_every=0)) as url, httpx.Client(timeout=30) as client:
        task = client.get(f"{url}/api/r/{token}/task").json()["task"]
        served = [client.get(url + task["clips"][side]["url"]).content for side in ("A", "B")]
    assert ([encoder_names(b) for b in served] == [STRIPPED_NAMES] * 2 and codec_fingerprint(served[0])
            == codec_fingerprint(served[1]))


def test_a_stripped_study_hides_places_names_and_prompts_but_not_codec_settings(tmp_path, manifest):
    """Without --normalise the packets are kept: the names are gone, the codec's configuration (SPS/PPS) is not."""
    ws = _study(tmp_path / "study", manifest)
    names = {encoder_names(ws.clips.path(ws.store.clip(sha)).read_bytes()) for s in ws.store.samples()
             for sha in (s.clip_a, s.clip_b)}
    assert names == {STRIPPED_NAMES}
    tasks, scores, golds = _scores(ws)
    assert golds >= len(RATERS), summary(scores.values())
    for name in ("gold by position", "gold by encoder names", "gold by repeated prompt", "side by encoder names"):
        assert scores[name].guesses and scores[name].at_chance(), summary(scores.values())
    by_bytes = scores["side by bytes (codec fingerprint)"]
    assert by_bytes.rate == 1.0, summary(scores.values())  # what --normalise is for (docs/ab.md, "Blinding in the bytes")
    assert ws.blinding == "strip"


def test_a_study_is_blinded_one_way(tmp_path, manifest, capsys):
    """Every clip of a study takes one path: a second import asking for the other is refused, nothing stored."""
    ws = _study(tmp_path / "study", manifest)
    before = len(ws.store.samples())
    assert main(["ab", "import", "--data", str(ws.root), str(manifest), "--normalise"]) == 1
    assert "imported without --normalise" in capsys.readouterr().err
    assert len(ws.store.samples()) == before
