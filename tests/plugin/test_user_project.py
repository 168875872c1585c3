"""reeljudge in a user's own promptfoo project, from the built artifacts only.

Builds the wheel and the npm tarball once, makes a project outside the repository (own package.json
pinning promptfoo, own virtualenv with only the wheel), runs the installed ``reeljudge init`` there
(package references, and ``--python-entries`` in a subfolder), then one ``promptfoo eval`` of every
suite through both entry forms: filmability with the offline judge, the video probes, the A/B judge
with ``judge: probes``, and filmability, Gecko and the A/B judge against the fake Gemini server.
The same eval holds clips stored the way promptfoo's own video providers store them (through
promptfoo's own ``storeBlob`` as Veo does and ``storeMedia`` as Sora does, by
tests/providers/promptfoo_stores.mjs, linked into the project), with no var naming the clip: every
clip judge finds them in the provider response, as the starter configs' comments promise.
Every reeljudge module and data file any Python process opened must come from the installed package.
Runs on the promptfoo under test (REELJUDGE_PROMPTFOO: pinned or latest; scripts/test.sh runs both).
"""

from __future__ import annotations

import copy
import hashlib
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from support.fake_gemini import FakeGemini, json_reply
from support.filmability_scripts import judgement
from support.promptfoo_run import comparable, judged
from support.user_project import (ROOT, artifacts, foreign_loads, loaded_paths, promptfoo_project,  # noqa: F401
                                  run_eval, site_packages, user_env, user_python)
from reeljudge.promptfoo.clips import CLIP_VARS
from support.ab_judge_scripts import prefer
from support.gecko_scripts import script_prompt

pytestmark = pytest.mark.e2e

CLIPS = ROOT / "datasets" / "clips"
VARS = {"narration": "voiceover", "prompt": "brief", "video": "clip_file", "reference": "baseline_clip"}  # the user's own names
AB_PROMPT = "A red ball rolls past a textured wall while the camera pans; one continuous shot."
GECKO_PROMPT = "A disc gliding over a colourful texture"
KINDS = ("package", "python")
STORES_PROVIDER = ROOT / "tests" / "providers" / "promptfoo_stores.mjs"
#: provider label → (the store promptfoo_stores.mjs uses, the clip it stores, the carrier our results name)
STORES = {"veo-like": ("blob", "gen_clean", "promptfoo-blob"), "sora-like": ("media", "gen_fade_out", "media-store")}
#: entry form → the store provider its judges read from (each form and each store once: half the eval time of every pair;
#: tests/media/test_media_e2e.py judges both stores from the clone)
STORE_OF = {"package": "veo-like", "python": "sora-like"}
#: the clip judges run on the stored clips: (starter, config on top: the clip var nulled, as the starter's comment says)
STORE_JUDGES = (("probes", {"var": None}), ("gecko", {"media_var": None}),
                ("ab", {"media_var": None, "judge": "gemini"}), ("ab", {"media_var": None, "judge": "probes"}))


def init(python: Path, folder: Path, *args: str) -> str:
    """Run the installed ``reeljudge init`` (the venv's console script); its output."""
    names = [f"--{k.replace('_', '-')}-var={v}" for k, v in VARS.items()]
    proc = subprocess.run([str(python.parent / "reeljudge"), "init", str(folder), *names, *args], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def starter_assert(project: Path, suite: str, kind: str, config: dict[str, Any]) -> dict[str, Any]:
    """The assertion ``init`` wrote for ``suite`` (from the python-entries subfolder for kind python), with ``config`` on top."""
    folder = project if kind == "package" else project / "py"
    written = yaml.safe_load((folder / f"promptfooconfig.{suite}.yaml").read_text())["defaultTest"]["assert"][0]
    assertion = copy.deepcopy(written)
    if kind == "python":
        assertion["value"] = "file://py/" + assertion["value"].removeprefix("file://")
    assertion["config"].update(config)
    return assertion


def suites(project: Path, kind: str) -> list[dict[str, Any]]:
    """Every suite's tests for one entry form, each with the assertion ``init`` wrote for its judge."""
    clip = lambda name: f"clips/{name}.mp4"  # noqa: E731 - relative to the project, as a user writes it
    n, p, v, r = VARS["narration"], VARS["prompt"], VARS["video"], VARS["reference"]

    def test(name: str, suite: str, vars_: dict[str, str], **config: Any) -> dict[str, Any]:
        return {"description": f"{kind}: {name}", "vars": vars_, "assert": [starter_assert(project, suite, kind, config)]}

    return [
        test("film local good", "filmability", {n: "Redis stores everything in memory, making it fast",
                                                "terms": '["server room", "computer RAM", "data center lights"]'}, judge="local"),
        test("film local abstract", "filmability",
             {n: "Redis stores everything in memory", "terms": '["performance", "efficiency", "caching"]'},
             judge="local"),
        test("probes clean", "probes", {p: AB_PROMPT, v: clip("gen_clean"), "terms": "x"}),
        test("probes black", "probes", {p: AB_PROMPT, v: clip("gen_black"), "terms": "x"}),
        test("ab probes", "ab", {p: AB_PROMPT, v: clip("gen_clean"), r: clip("gen_flicker")}, judge="probes"),
        test("film gemini", "filmability", {n: "Servers hum in a cold room", "terms": "server rack, cold aisle"}, judge="gemini"),
        test("gecko gemini", "gecko", {p: GECKO_PROMPT, v: clip("gen_clean")}),
        test("ab gemini", "ab", {p: AB_PROMPT, v: clip("gen_clean"), r: clip("gen_flicker")}, judge="gemini"),
    ]


def error_tests(project: Path, kind: str) -> list[dict[str, Any]]:
    """Tests whose clip cannot be judged (missing, empty, not a video; a missing reference): their reasons name the
    clip as the test wrote it, relative to the project, never by the machine path it resolves to."""
    p, v, r = VARS["prompt"], VARS["video"], VARS["reference"]

    def test(name: str, suite: str, vars_: dict[str, str], **config: Any) -> dict[str, Any]:
        return {"description": f"errors {kind}: {name}", "providers": ["echo"], "vars": {"terms": "x", p: AB_PROMPT, **vars_},
                "assert": [starter_assert(project, suite, kind, config)]}

    return [
        test("probes missing", "probes", {v: "clips/missing.mp4"}),
        test("probes empty", "probes", {v: "clips/empty.mp4"}),
        test("probes not a video", "probes", {v: "clips/notes.mp4"}),
        test("gecko missing", "gecko", {v: "clips/missing.mp4"}),
        test("ab missing reference", "ab", {v: "clips/gen_clean.mp4", r: "clips/missing.mp4"}, judge="probes"),
    ]


def store_test(project: Path, kind: str) -> dict[str, Any]:
    """The test of one entry form's store provider (run on it alone), judged by every clip judge; no var names the clip."""
    vars_ = {"terms": AB_PROMPT, VARS["prompt"]: AB_PROMPT, VARS["reference"]: "clips/gen_flicker.mp4"}
    return {"description": f"{kind}: {STORE_OF[kind]} store", "providers": [STORE_OF[kind]], "vars": vars_,
            "assert": [starter_assert(project, suite, kind, config) for suite, config in STORE_JUDGES]}


def store_providers(project: Path) -> list[dict[str, Any]]:
    """The store providers, from the repository's test provider linked (not copied) into the project."""
    (project / "providers").mkdir()
    (project / "providers" / STORES_PROVIDER.name).symlink_to(STORES_PROVIDER)
    return [{"id": f"file://providers/{STORES_PROVIDER.name}", "label": label,
             "config": {"store": store, "clip": f"clips/{clip}.mp4"}}
            for label, (store, clip, _carrier) in STORES.items()]


def sha(name: str) -> str:
    return hashlib.sha256((CLIPS / f"{name}.mp4").read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def user_run(promptfoo_project, user_python, tmp_path_factory):  # noqa: F811 - fixtures from user_project
    """One eval of every suite in both entry forms, in the user's project: (results by description, what it opened, ...)."""
    project, node = promptfoo_project
    first = init(user_python, project)
    again = init(user_python, project)
    init(user_python, project / "py", "--python-entries")
    (project / "clips").mkdir(exist_ok=True)  # init made it (its example clips)
    for name in ("gen_clean", "gen_black", "gen_flicker", "gen_fade_out"):
        shutil.copy(CLIPS / f"{name}.mp4", project / "clips")
    (project / "clips" / "empty.mp4").write_bytes(b"")
    (project / "clips" / "notes.mp4").write_text("not a video, only a name that says so\n")
    tests = [{**t, "providers": ["echo"]} for kind in KINDS for t in suites(project, kind)] + [
        t for kind in KINDS for t in error_tests(project, kind)]
    config = {"description": "a user's project", "prompts": ["{{terms}}"], "providers": ["echo", *store_providers(project)],
              "tests": tests + [store_test(project, kind) for kind in KINDS]}
    (project / "all.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    trace = tmp_path_factory.mktemp("trace")
    with FakeGemini() as fake:
        fake.on("Servers hum", json_reply(judgement(3, 3, 1)))
        script_prompt(fake, GECKO_PROMPT, matched=True)
        prefer(fake, AB_PROMPT, sha("gen_clean"), sha("gen_flicker"))
        prefer(fake, AB_PROMPT, sha("gen_fade_out"), sha("gen_flicker"))
        script_prompt(fake, AB_PROMPT, matched=True)
        env = user_env(project, user_python, node=node, GEMINI_API_KEY="test-key-not-real", GOOGLE_GEMINI_BASE_URL=fake.url,
                       REELJUDGE_CACHE="off", REELJUDGE_MAX_ATTEMPTS="1", REELJUDGE_E2E_TRACE=str(trace),
                       REELJUDGE_E2E_REPO=str(ROOT))
        code, results, output = run_eval(project, "all.yaml", env, "-j", "4")
    assert code in (0, 100) and results, output[-4000:]
    by = {r["testCase"]["description"]: r for r in results["results"]["results"]}
    return {"by": by, "output": output, "project": project, "python": user_python, "trace": trace, "init": (first, again)}


def test_init_scaffolds_once_and_a_second_run_changes_nothing(user_run):
    first, again = user_run["init"]
    assert "created promptfooconfig.filmability.yaml" in first and "created reeljudge.gate.yaml" in first
    assert "nothing changed" in again and "created" not in again
    written = yaml.safe_load((user_run["project"] / "promptfooconfig.ab.yaml").read_text())["defaultTest"]["assert"][0]
    assert written["value"] == "package:reeljudge:abJudge" and written["config"]["reference_var"] == VARS["reference"]
    assert (user_run["project"] / "py" / "reeljudge_entries" / "gecko.py").read_text().count("\n") == 3


def reason(row: dict[str, Any]) -> str:
    """The judge's own reason (the first component's)."""
    return row["gradingResult"]["componentResults"][0]["reason"]


@pytest.mark.parametrize("kind", KINDS)
def test_every_judge_works_from_the_users_project(user_run, kind):
    by = {name.split(": ", 1)[1]: row for name, row in user_run["by"].items() if name.startswith(f"{kind}: ")
          and not name.endswith(" store")}
    assert len(by) == 8, sorted(user_run["by"])
    expected_type = "javascript" if kind == "package" else "python"
    assert all(r["gradingResult"]["componentResults"][0]["assertion"]["type"] == expected_type for r in by.values())
    good, abstract = by["film local good"], by["film local abstract"]
    assert good["success"] and set(good["namedScores"]) >= {"film_score", "film_relevance",
                                                            "film_filmability", "film_variety"}, good["gradingResult"]
    assert "local judge" in reason(good)
    assert not abstract["success"] and abstract["namedScores"]["film_score"] < 0.8
    assert (by["probes clean"]["success"]
            and {"black_frames", "frozen_frames", "flicker"} <= set(by["probes clean"]["namedScores"]))
    assert not by["probes black"]["success"] and "black" in reason(by["probes black"]).lower()
    ab = by["ab probes"]
    assert (ab["success"] and ab["score"] == 1.0
            and ab["namedScores"]["ab_probes_new_temporal_consistency"] == 1.0), ab["gradingResult"]
    film = by["film gemini"]
    assert film["success"] and film["namedScores"]["film_score"] == 1.0, film["gradingResult"]
    gecko = by["gecko gemini"]
    assert gecko["success"] and "gecko_coverage" in gecko["namedScores"], gecko["gradingResult"]
    pair = by["ab gemini"]
    assert (pair["success"] and pair["namedScores"]["ab_win"] == 1.0
            and pair["namedScores"]["ab_consistent"] == 1.0), pair["gradingResult"]


def same(result: dict[str, Any], kind: str) -> Any:
    """A result without timings, and without its test's name (the one thing the two forms' tests differ in)."""
    return json.loads(json.dumps(comparable(result)).replace(f"{kind}: ", ""))


def test_the_package_reference_and_the_python_entry_give_the_same_results(user_run):
    by = user_run["by"]
    names = [n.split(": ", 1)[1] for n in by if n.startswith("package: ") and not n.endswith(" store")]
    assert len(names) >= 4 and all(f"python: {name}" in by for name in names), sorted(by)
    for name in names:
        a, b = by[f"package: {name}"], by[f"python: {name}"]
        assert (a["success"], a["score"]) == (b["success"], b["score"]), name
        assert same(a["gradingResult"], "package") == same(b["gradingResult"], "python"), name


def source(path: Path) -> Path:
    """A module's source path for its cached bytecode (``x/__pycache__/m.cpython-311.pyc`` → ``x/m.py``)."""
    if path.parent.name == "__pycache__":
        return path.parent.parent / (path.name.split(".")[0] + ".py")
    return path


def test_every_reeljudge_file_loaded_came_from_the_installed_package(user_run):
    site = site_packages(user_run["python"])
    opened = loaded_paths(user_run["trace"])
    assert foreign_loads(opened, site, user_run["project"]) == []
    package = {source(p).relative_to(site).as_posix() for p in opened if p.is_relative_to(site / "reeljudge")}
    for needed in ("reeljudge/__init__.py", "reeljudge/warm/worker.py", "reeljudge/data/rubrics/filmability.md",
                   "reeljudge/data/rubrics/gecko_video_generate.md", "reeljudge/data/rubrics/ab_judge.ab-v1.md",
                   "reeljudge/data/protocols/ab-v1.yaml"):
        assert needed in package, (needed, sorted(package)[:40])
    cfg = (user_run["python"].parent.parent / "pyvenv.cfg").read_text()
    assert str(ROOT) not in cfg


@pytest.mark.parametrize("kind", KINDS)
def test_clips_in_promptfoos_own_blob_and_media_stores_are_judged_by_every_installed_judge(user_run, kind):
    label = STORE_OF[kind]
    _store, clip, carrier = STORES[label]
    row = user_run["by"][f"{kind}: {label} store"]
    assert row["provider"]["label"] == label and row["success"], row["gradingResult"]
    assert VARS["video"] not in row["vars"] and not set(CLIP_VARS) & set(row["vars"])  # only the response leads to the clip
    # not their sub-checks
    judges = [c for c in row["gradingResult"]["componentResults"] if (c.get("metadata") or {}).get("judge")]
    assert [c["assertion"]["type"] for c in judges] == ["javascript" if kind == "package" else "python"] * len(STORE_JUDGES)
    for judge, mode in (("video_probes", None), ("gecko", None), ("ab_judge", "gemini"), ("ab_judge", "probes")):
        meta = judged(row, judge, mode)["metadata"]
        media = meta["media"]["new"] if judge == "ab_judge" else meta["media"]
        assert media["carrier"] == carrier and media["sha256"] == sha(clip), (judge, media)
        assert "the provider response's video." in media["found_in"], media
    assert judged(row, "ab_judge", "gemini")["metadata"]["winner"] == "new"
    assert judged(row, "ab_judge", "probes")["metadata"]["media"]["reference"]["file"] == "clips/gen_flicker.mp4"
    # promptfoo's video object is kept (the viewer plays it)
    video, stored = row["response"]["video"], user_run["project"] / ".promptfoo"
    if carrier == "promptfoo-blob":  # promptfoo's own storeBlob wrote into the user's promptfoo folder
        digest = video["blobRef"]["hash"]
        assert judged(row, "video_probes")["metadata"]["media"]["file"] == f"promptfoo://blob/{digest}" and digest == sha(clip)
        assert hashlib.sha256((stored / "blobs" / digest[:2] / digest[2:4] / digest).read_bytes()).hexdigest() == digest
    else:  # and its storeMedia into its media store
        key = video["storageRef"]["key"]
        assert judged(row, "gecko")["metadata"]["media"]["file"] == f"storageRef:{key}"
        assert (stored / "media" / key).read_bytes() == (CLIPS / f"{clip}.mp4").read_bytes()
    rows = json.dumps(list(user_run["by"].values()))  # every result row: no machine path
    assert str(ROOT) not in rows and str(user_run["project"]) not in rows and str(Path.home()) + "/" not in rows


def reasons_and_metadata(node: Any) -> list[str]:
    """Every reason and every metadata value (as JSON) of a grading result and its nested results."""
    if not isinstance(node, dict):
        return []
    found = [str(node.get("reason") or ""), json.dumps(node.get("metadata") or {})]
    return found + [text for child in node.get("componentResults") or [] for text in reasons_and_metadata(child)]


def test_no_reason_or_metadata_names_a_file_by_its_machine_path(user_run, tmp_path_factory):
    """Files are named relative to the config's folder (as the test wrote them) or by carrier, also when they
    cannot be judged; no reason or metadata value of the run holds its temporary folder."""
    by = user_run["by"]
    errors = {name: row for name, row in by.items() if name.startswith("errors ")}
    assert len(errors) == 5 * len(KINDS) and not any(row["success"] for row in errors.values())
    for kind in KINDS:
        assert "'clips/missing.mp4': clips/missing.mp4: file not found" in reason(by[f"errors {kind}: probes missing"])
        assert "clips/empty.mp4: file is empty" in reason(by[f"errors {kind}: probes empty"])
        assert "notes.mp4: not a decodable media file" in reason(by[f"errors {kind}: probes not a video"])
        assert "clips/missing.mp4: file not found" in reason(by[f"errors {kind}: gecko missing"])
        assert "clips/missing.mp4: file not found" in reason(by[f"errors {kind}: ab missing reference"])
    folders = {str(f) for f in (tmp_path_factory.getbasetemp(), user_run["project"]) for f in (f, f.resolve())}
    for name, row in by.items():
        texts = reasons_and_metadata(row["gradingResult"]) + [json.dumps(row.get("metadata") or {}), str(row.get("error") or "")]
        leaked = [(folder, text[:300]) for text in texts for folder in folders if folder in text]
        assert leaked == [], (name, leaked)
