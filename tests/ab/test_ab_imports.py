"""Importing pairs: manifests (YAML, CSV), promptfoo results, content-hashed clips, bad imports refused."""

from __future__ import annotations

import hashlib
import json

import pytest
import yaml

from support.ab_study import CLIP_S, make_clips
from reeljudge.media.anonymise import strip_names
from reeljudge.ab.store.imports import ImportRefused, build_samples, read_manifest, read_promptfoo
from reeljudge.ab.study.workspace import Workspace
from reeljudge.cli import main


@pytest.fixture
def clips(tmp_path):
    return make_clips(tmp_path / "src", 4)


def _import(ws, path):
    return build_samples(read_manifest(path), ws.fix_protocol(), ws.clips)


def test_yaml_and_csv_manifests_import_with_content_hashed_clips(tmp_path, clips):
    ws = Workspace(tmp_path / "study")
    (tmp_path / "src" / "m.yaml").write_text(yaml.safe_dump({"samples": [
        {"prompt": "a ball", "clip_a": "clip0.mp4", "clip_b": "clip1.mp4", "system_a": "x", "system_b": "y"},
    ]}))
    (tmp_path / "src" / "m.csv").write_text("prompt,clip_a,clip_b,family,system_a,system_b,source\n"
                                            "a wall,clip2.mp4,clip3.mp4,edit,y,x,clip0.mp4\n")
    result = _import(ws, tmp_path / "src" / "m.yaml")
    added, _ = ws.store.add_samples(result.samples, list(result.clips.values()))
    result2 = _import(ws, tmp_path / "src" / "m.csv")
    ws.store.add_samples(result2.samples, list(result2.clips.values()))
    samples = ws.store.samples()
    assert added == 1 and len(samples) == 2
    first, second = samples
    assert first.systems == ("x", "y") and first.family == "text-to-video"
    stripped = {i: hashlib.sha256(strip_names(clips[i], tmp_path / f"stripped{i}.mp4").read_bytes()).hexdigest() for i in (0, 3)}
    assert second.systems == ("x", "y") and second.clip_a == stripped[3]  # canonical order by system; the clip as stripped
    assert second.family == "edit" and second.source_clip == stripped[0]
    assert stripped[3] != hashlib.sha256(clips[3].read_bytes()).hexdigest()  # the import blinds every clip: its names are gone
    for sha in (first.clip_a, first.clip_b, second.clip_a):
        stored = ws.store.clip(sha)
        assert (ws.clips.root / f"{sha}.mp4").read_bytes() == ws.clips.path(stored).read_bytes()
        assert hashlib.sha256(ws.clips.path(stored).read_bytes()).hexdigest() == sha
        assert stored.fps == pytest.approx(24) and stored.duration == pytest.approx(CLIP_S, abs=0.05)
    again = _import(ws, tmp_path / "src" / "m.yaml")
    assert ws.store.add_samples(again.samples, list(again.clips.values())) == (0, 1)  # same content, same sample


@pytest.mark.parametrize(
    "row, text",
    [
        ({"clip_a": "missing.mp4"}, "clip_a: .*missing.mp4: file not found"),
        ({"clip_b": "clip0.mp4"}, "same clip"),
        ({"family": "txt2vid"}, "unknown task family 'txt2vid'"),
        ({"clip_b": "broken.mp4"}, "clip_b: .*broken.mp4: (not a decodable|cannot be decoded)"),
        ({"system_b": "x"}, "same system"),
        ({"colour": "red"}, "unknown field"),
        ({"family": "edit"}, "needs the source clip"),
        ({"prompt": ""}, "missing prompt"),
    ],
)
def test_bad_rows_are_refused_with_the_file_named_and_nothing_stored(tmp_path, clips, row, text):
    (tmp_path / "src" / "broken.mp4").write_bytes(b"\x00\x00\x00\x18ftypmp42 this is not a video" * 20)
    good = {"prompt": "a ball", "clip_a": "clip0.mp4", "clip_b": "clip1.mp4", "system_a": "x", "system_b": "y"}
    rows = [good, {**good, "prompt": "another", **row}]
    path = tmp_path / "src" / "bad.yaml"
    path.write_text(yaml.safe_dump(rows))
    ws = Workspace(tmp_path / "study")
    with pytest.raises(ImportRefused, match=rf"bad.yaml row 2: .*{text}") as caught:
        _import(ws, path)
    assert "row 1" not in str(caught.value)
    assert ws.store.samples() == []


def test_cli_import_refuses_a_bad_manifest_and_says_which_file(tmp_path, clips, capsys):
    path = tmp_path / "src" / "m.csv"
    path.write_text("prompt,clip_a,clip_b\nok,clip0.mp4,nope.mp4\n")
    assert main(["ab", "import", str(path), "--data", str(tmp_path / "study")]) == 1
    err = capsys.readouterr().err
    assert "m.csv: import refused, nothing stored" in err and "m.csv row 1: clip_b:" in err and "nope.mp4: file not found" in err
    assert Workspace(tmp_path / "study").store.samples() == []


def _results(tmp_path, clips, *, sha_override=None, error_cell=False):
    def cell(idx, label, clip, desc):
        sha = sha_override or hashlib.sha256(clip.read_bytes()).hexdigest()
        response = {"output": str(clip), "metadata": {"clip_path": str(clip), "clip": {"sha256": sha}}}
        if error_cell and label == "beta":
            response = {"error": "clip provider: test 'x', var 'clip': gone.mp4: file not found"}
        return {"testIdx": idx, "provider": {"id": "file://providers/clips.py", "label": label}, "vars": {"prompt": desc},
                "prompt": {"raw": desc}, "response": response, "testCase": {"description": desc}, "success": True}

    cells = [cell(0, "alpha", clips[0], "p0"), cell(0, "beta", clips[1], "p0"), cell(1, "alpha", clips[2], "p1"),
             cell(1, "beta", clips[3], "p1")]
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"results": {"results": cells}}))
    return path


def test_promptfoo_results_pair_two_providers_clips_for_the_same_test(tmp_path, clips):
    specs = read_promptfoo(_results(tmp_path, clips))
    ws = Workspace(tmp_path / "study")
    result = build_samples(specs, ws.fix_protocol(), ws.clips)
    assert [(s.prompt, s.systems) for s in result.samples] == [("p0", ("alpha", "beta")), ("p1", ("alpha", "beta"))]
    assert "results.json test 0 (p0)" in result.samples[0].origin


def test_promptfoo_results_refused_when_a_clip_is_missing_or_changed(tmp_path, clips):
    with pytest.raises(ImportRefused,
                       match=r"results.json test 0 \(p0\): provider 'beta' has no clip \(clip provider: .*gone.mp4"):
        read_promptfoo(_results(tmp_path, clips, error_cell=True))
    specs = read_promptfoo(_results(tmp_path, clips, sha_override="0" * 64))
    ws = Workspace(tmp_path / "study")
    with pytest.raises(ImportRefused, match=r"results.json test 0 \(p0\): clip_a: .*changed since the eval"):
        build_samples(specs, ws.fix_protocol(), ws.clips)


@pytest.mark.e2e
def test_video_ab_suite_results_import_end_to_end(tmp_path):
    from support.promptfoo_run import run_promptfoo_eval

    code, results, output = run_promptfoo_eval("promptfooconfig.ab.yaml", tmp_path)
    assert code == 0, output[-2000:]
    path = tmp_path / "results.json"
    assert main(["ab", "import", str(path), "--data", str(tmp_path / "study")]) == 0
    samples = Workspace(tmp_path / "study").store.samples()
    assert len(samples) == 4 and all(s.systems == ("alpha-gen", "beta-gen") for s in samples)
