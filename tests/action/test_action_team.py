"""A real team's repository through ``action.yml`` as GitHub runs it: its own Python dependencies, no call
paid twice, secrets per suite.

The team's term generator is a Python provider that imports a package from PyPI (``iniconfig``, named in the
project's requirements.txt and installed by the ``python-dependencies`` input from a local ``--find-links`` folder:
no test reaches the internet) and needs a secret (``TERMS_API_KEY``); its suite, eight narrations, is judged by the
filmability judge on Gemini (the wire-level fake). Beside it, init's filmability starter (echo, the offline judge)
needs nothing. Runs share actions/cache's store as GitHub's service does (a pull request reads main's scope and saves
under its own): the push to main calls everything and records it; a pull request that changes one narration calls
one generator and one judge, seven of each replayed; a fork's pull request without the secrets reports the suite
"not run: needs …" and judges the other.
"""

from __future__ import annotations

import json
import resource
from pathlib import Path

import pytest
import yaml

from support.fake_gemini import FakeGemini, json_reply
from support.filmability_scripts import judgement
from support.package_index import _cached_wheel, _repack, _uv_wheels
from support.user_project import artifacts, user_python  # noqa: F401
from test_action_harness import ACTION, Repo, _git, sources, user_repo  # noqa: F401

pytestmark = [pytest.mark.e2e, pytest.mark.pinned_promptfoo]

GENERATOR = '''"""The team's term generator (an LLM client in real life): narration in, B-roll search terms out."""
import json
import os

import iniconfig  # a package from PyPI, named in requirements.txt

from reeljudge.providers.cached import cached_generator


@cached_generator
def call_api(prompt, options, context):
    assert os.environ.get("TERMS_API_KEY"), "the generator needs TERMS_API_KEY"
    words = [w.strip(".,").lower() for w in prompt.split() if len(w) > 4][:3]
    return {"output": json.dumps([f"{w} close-up" for w in words]), "metadata": {"client": iniconfig.__name__}}
'''
NARRATIONS = [
    "Marathon runners hit the wall around mile twenty.",
    "Sear the steak in a hot cast-iron pan.",
    "Vaccines train the immune system early.",
    "Roman roads connected distant provinces.",
    "The conductor lifts the baton slowly.",
    "Residents board up windows before hurricanes.",
    "The jury returned its verdict yesterday.",
    "Farmers harvest wheat before autumn rain.",
]
CHANGED = "Glaciers carve valleys over centuries."
NEEDS = "terms: TERMS_API_KEY GEMINI_API_KEY  # the generator's key and the judge's"


def _terms_suite(narrations: list[str]) -> str:
    """The team's suite: the generator's terms for each narration, judged by the filmability judge on Gemini."""
    return yaml.safe_dump({
        "description": "our term generator",
        "prompts": ["{{narration}}"],
        "providers": ["file://terms_generator.py"],
        "defaultTest": {"assert": [{"type": "javascript", "value": "package:reeljudge:filmability",
                                    "config": {"narration_var": "narration", "threshold": 0.8, "judge": "gemini"}}]},
        "tests": [{"description": f"narration {i + 1}", "vars": {"narration": n}} for i, n in enumerate(narrations)],
    }, sort_keys=False)


def _team_repo(folder: Path, python: Path, template: Path, wheels: Path) -> Path:
    """init's filmability starter, then the team's generator, its requirements.txt and its suite; the workflow's step
    given TERMS_API_KEY from the secrets."""
    repo = user_repo(folder, python, template, "--judges", "filmability")
    (repo / "terms_generator.py").write_text(GENERATOR)
    (repo / "requirements.txt").write_text("iniconfig  # the term generator's\n")
    (repo / "promptfooconfig.terms.yaml").write_text(_terms_suite(NARRATIONS))
    workflow = repo / ".github" / "workflows" / "reeljudge.yml"
    data = yaml.safe_load(workflow.read_text())
    step = next(s for s in data["jobs"]["gate"]["steps"] if str(s.get("uses", "")).startswith(ACTION))
    step["env"]["TERMS_API_KEY"] = "${{ secrets.TERMS_API_KEY }}"
    step["with"].update({"configs": "promptfooconfig.filmability.yaml promptfooconfig.terms.yaml", "needs": NEEDS,
                         "python-dependencies": "requirements.txt"})
    workflow.write_text(yaml.safe_dump(data, sort_keys=False))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "our term generator and its suite")
    return repo


def _script(fake: FakeGemini, narrations: list[str]) -> None:
    for narration in narrations:
        fake.on(narration, json_reply(judgement(3, 3, 1)))


def _calls_line(text: str) -> str:
    return next(line for line in text.splitlines() if "Calls: generators" in line)


def _measured(repo: Repo, run, *args, **kwargs) -> tuple:
    """``repo.run(*args, **kwargs)`` and what its evaluation took: (its result, a line of wall and CPU seconds). Printed,
    never asserted (the machine is shared)."""
    cpu = lambda: (lambda r: r.ru_utime + r.ru_stime)(resource.getrusage(resource.RUSAGE_CHILDREN))  # noqa: E731
    before = cpu()
    result = run(*args, **kwargs)
    wall = sum(t for name, t in repo.last_runner.timings if name == "Evaluate the configs")
    return result, f"evaluate {wall:.0f} s wall; the whole job {cpu() - before:.0f} s CPU"


@pytest.fixture(scope="module")
def team(tmp_path_factory, sources, user_python):  # noqa: F811
    """The team's repository after a push to main with every secret: (repo, the push job's output, its summary)."""
    tmp = tmp_path_factory.mktemp("team")
    extra = tmp / "pypi"  # iniconfig's wheel, as PyPI serves it (from uv's cache: offline)
    extra.mkdir()
    _repack(*_cached_wheel(_uv_wheels(), "iniconfig", None), extra)
    repo = Repo(tmp, _team_repo(tmp / "reels", user_python, sources[2], extra), sources, cache=tmp / "actions-cache")
    # the action's own: the workspace's .reeljudge/cache, kept by actions/cache (empty is unset, and hides the test
    # process's own REELJUDGE_CACHE_DIR, which the root conftest makes anew for every test)
    repo.env["REELJUDGE_CACHE_DIR"] = ""
    repo.env["PIP_FIND_LINKS"] += f" {extra}"
    with FakeGemini() as fake:
        _script(fake, NARRATIONS)
        (job, _workspace, output), spent = _measured(repo, repo.run, "main-1", "push", key="test-key-not-real",
                                                     gemini_url=fake.url, secrets={"TERMS_API_KEY": "terms-key-not-real"})
        print(f"\nthe push to main (8 generator and 8 judge calls): {spent}")
        judged = len(fake.calls())
    assert not job.failed, output[-6000:]
    assert judged == len(NARRATIONS)
    return repo, output, repo.last_runner.summary.read_text()


def test_the_push_installs_the_projects_own_package_and_calls_every_generator_and_judge(team):
    repo, output, summary = team
    assert "installing the project's Python dependencies (requirements.txt)" in output
    rows = json.loads((repo.gh / "runs" / "main-1" / "reeljudge-results" / "terms.json").read_text())["results"]["results"]
    assert len(rows) == 8 and all(r["success"] for r in rows), [r.get("error") or r["gradingResult"]["reason"] for r in rows]
    assert {r["response"]["metadata"]["client"] for r in rows} == {"iniconfig"}  # the generator imported it
    assert _calls_line(summary) == ("Calls: generators 8 made, 0 replayed; LLM judges 8 made, 0 replayed "
                                    "(from the caches this run restored).")


def test_a_pull_request_changing_one_narration_of_eight_calls_one_generator_and_one_judge(team):
    repo, _output, _summary = team
    store = next(repo.cache.glob("refs_heads_main"))
    main_entries = sorted(p.relative_to(store) for p in store.rglob("*.tar.zst"))
    assert any(p.name.startswith("reeljudge-calls-v1-") for p in main_entries)  # the push recorded its calls
    _git(repo.repo, "checkout", "-q", "-b", "one-narration", "main")
    (repo.repo / "promptfooconfig.terms.yaml").write_text(_terms_suite([*NARRATIONS[:2], CHANGED, *NARRATIONS[3:]]))
    _git(repo.repo, "commit", "-qam", "a better third narration")
    _git(repo.repo, "checkout", "-q", "main")
    with FakeGemini() as fake:
        _script(fake, [*NARRATIONS, CHANGED])
        (job, workspace, output), spent = _measured(repo, repo.run, "one-narration", "pull_request", "one-narration",
                                                    key="test-key-not-real", gemini_url=fake.url,
                                                    secrets={"TERMS_API_KEY": "terms-key-not-real"})
        print(f"\nthe pull request changing one narration (1 and 1, 7 and 7 replayed): {spent}")
        judged = list(fake.calls())
    assert not job.failed, output[-6000:]
    assert len(judged) == 1 and CHANGED in json.dumps(judged[0].body)  # the one judge call: the changed narration's
    comment = (workspace / "reeljudge-gate" / "comment.md").read_text()
    assert _calls_line(comment) == ("- Calls: generators 1 made, 7 replayed; LLM judges 1 made, 7 replayed "
                                    "(from the caches this run restored).")
    assert "the cached virtualenv has requirements.txt's packages" in output  # the install, cached: not reinstalled
    assert "installing the project's Python dependencies" not in output
    report = json.loads((workspace / "reeljudge-gate" / "report.json").read_text())
    assert report["verdict"] == "passed", comment
    verdicts = {}  # the seven unchanged tests: the same verdicts, scores and reasons as main's (replayed, not re-judged)
    for run in (repo.gh / "runs" / "main-1", workspace):
        for row in json.loads((run / "reeljudge-results" / "terms.json").read_text())["results"]["results"]:
            graded, narration = row["gradingResult"], row["testCase"]["vars"]["narration"]
            verdicts.setdefault(narration, []).append((graded["pass"], graded["score"], graded["reason"]))
    unchanged = [n for n in NARRATIONS if n != NARRATIONS[2]]
    assert all(len(verdicts[n]) == 2 and verdicts[n][0] == verdicts[n][1] for n in unchanged), verdicts
    assert sorted(p.relative_to(store) for p in store.rglob("*.tar.zst")) == main_entries  # main's scope untouched
    assert list(repo.cache.glob("refs_heads_one-narration/*/reeljudge-calls-v1-*")), "the pull request saves in its own scope"


def test_a_fork_pull_request_without_the_secrets_reports_the_suite_not_run_and_judges_the_others(team):
    repo, _output, _summary = team
    job, report, comment, output = repo.pull_request("fork", lambda r: (r / "NOTES.md").write_text("from a fork\n"),
                                                     secrets={"TERMS_API_KEY": ""})  # a fork's run: every secret empty
    assert not job.failed, output[-6000:]
    assert report["verdict"] == "passed" and [s["name"] for s in report["suites"]] == ["filmability"]
    assert "- ⚪ `terms`: not run: needs TERMS_API_KEY GEMINI_API_KEY" in comment
    assert "terms: not run: needs TERMS_API_KEY GEMINI_API_KEY" in output
    assert not (repo.tmp / "fork" / "reeljudge-results" / "terms.json").exists()
