"""The reusable action in a team's own repository: a temporary git repository OUTSIDE this one, with
its own six-narration filmability suite (its own JavaScript term generator, a one-line Python
assertion that uses the installed reeljudge, the offline judge), and the two workflow files exactly
as docs/gates.md documents them. The action's steps run locally (tests/support/workflow_runner.py) with the
real promptfoo 0.121.20: a push to main writes the baseline artifact; pull requests change the
generator's terms. The only stand-ins: the install inputs point at this project's installs (no
network in tests), ``gh`` is a script that serves the main run's artifact, GitHub's REST API is the
in-memory stand-in, and for "another judge" the main run is judged by Gemini on the wire-level fake.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from support.fake_gemini import FakeGemini, json_reply
from support.workflow_runner import ROOT, Runner, new_github_state

pytestmark = pytest.mark.e2e

SHA = "0123456789abcdef0123456789abcdef01234567"
ACTION = "acme-tools/reeljudge"
GOOD = {
    "A chef slices fresh vegetables in a busy restaurant kitchen": ["chef slicing vegetables", "restaurant kitchen",
                                                                    "knife on cutting board"],
    "Waves crash against the rocky coast at sunset": ["ocean waves", "rocky coast", "sunset sky"],
    "A cyclist rides through city traffic in the rain": ["cyclist in rain", "city traffic", "wet street"],
    "Farmers harvest wheat with a combine in golden fields": ["combine harvester", "wheat field", "farmer"],
    "A dog catches a frisbee in the park": ["dog catching frisbee", "green park", "dog running"],
    "Children build a sandcastle on the beach": ["children on beach", "sandcastle", "sand bucket"],
}
CHEF, WAVES, _, FARM, DOG, _ = GOOD
ABSTRACT = {CHEF: ["efficiency", "culinary excellence", "quality"], FARM: ["productivity", "agriculture", "growth"],
            WAVES: ["tranquility", "power", "beauty"], DOG: ["dog catching frisbee", "joy", "fun"]}  # 0.3 each
GENERATOR = """const fs = require('fs');
const path = require('path');
module.exports = class TermsGenerator {
  id() { return 'terms-generator'; }
  async callApi(prompt, context) {
    const table = JSON.parse(fs.readFileSync(path.join(__dirname, 'terms.json'), 'utf8'));
    return { output: JSON.stringify(table[context.vars.narration] || []) };
  }
};
"""


def _snippet(name: str) -> str:
    """A workflow file as docs/gates.md documents it, pinned to this test's commit of the action."""
    text = (ROOT / "docs" / "gates.md").read_text()
    match = re.search(rf"<!-- action-snippet: {name} -->\n```yaml\n(.*?)```", text, re.DOTALL)
    assert match, f"docs/gates.md has no {name} snippet"
    return match.group(1).replace("reeljudge/reeljudge@COMMIT_SHA", f"{ACTION}@{SHA}")


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=dev", "-c", "user.email=dev@example.invalid", *args], cwd=repo, check=True,
                   capture_output=True, text=True)


def _team_repo(folder: Path) -> Path:
    """The team's repository: its suite, generator, assertion and the documented workflows, committed on main."""
    folder.mkdir(parents=True)
    names = ("chef", "waves", "cyclist", "farmers", "dog", "children")
    tests = [{"description": name, "vars": {"narration": narration}} for name, narration in zip(names, GOOD)]
    config = {"description": "acme B-roll terms", "prompts": ["{{narration}}"],
              "providers": [{"id": "file://generator.js", "label": "generator"}],
              "defaultTest": {"assert": [{"type": "python", "value": "file://check_film.py",
                                          "config": {"narration_var": "narration", "threshold": 0.6}}]},
              "tests": tests}
    (folder / "promptfooconfig.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    (folder / "generator.js").write_text(GENERATOR)
    (folder / "terms.json").write_text(json.dumps(GOOD, indent=1))
    (folder / "check_film.py").write_text("from reeljudge.assertions.filmability import get_assert  # noqa: F401\n")
    workflows = folder / ".github" / "workflows"
    workflows.mkdir(parents=True)
    (workflows / "reeljudge.yml").write_text(_snippet("gate"))
    (workflows / "reeljudge-comment.yml").write_text(_snippet("comment"))
    (folder / ".gitignore").write_text("reeljudge-results/\nreeljudge-baseline/\nreeljudge-gate/\n")
    return commit_main(folder, "the suite")


def commit_main(folder: Path, message: str) -> Path:
    """``folder`` as a new git repository whose main branch holds everything in it, in one commit."""
    _git(folder, "init", "-q", "-b", "main")
    _git(folder, "add", "-A")
    _git(folder, "commit", "-qm", message)
    return folder


def _fake_gh(folder: Path) -> Path:
    """A ``gh`` that answers ``run list`` with the main run's id and ``run download`` from its artifacts; or, as the
    file ``answer`` says, as gh answers on a bad day: ``403`` and ``502`` (the API refuses ``run list``, in gh's
    words), ``expired`` (the run is found, its artifact is past its retention: gh skips expired artifacts and says
    so), ``empty`` (no push run found)."""
    folder.mkdir(parents=True, exist_ok=True)
    gh = folder / "gh"
    gh.write_text("""#!/usr/bin/env bash
echo "$*" >> "$FAKE_GH_DIR/calls"
answer=$(cat "$FAKE_GH_DIR/answer" 2>/dev/null)
api="https://api.github.com/repos/acme/reels/actions/workflows/reeljudge.yml/runs?branch=main&event=push&per_page=1"
case "$answer $1 $2" in
  "403 run list") echo "HTTP 403: Resource not accessible by integration ($api)" >&2; exit 1 ;;
  "502 run list") echo "HTTP 502: Bad Gateway ($api)" >&2; exit 1 ;;
  "empty run list") exit 0 ;;
  "expired run download") echo "no valid artifacts found to download" >&2; exit 1 ;;
esac
if [ "$1 $2" = "run list" ]; then cat "$FAKE_GH_DIR/last-push-run" 2>/dev/null; exit 0; fi
if [ "$1 $2" = "run download" ]; then
  id=$3; shift 3; name=""; dir="."
  while [ $# -gt 0 ]; do case "$1" in --name) name=$2; shift 2 ;; --dir) dir=$2; shift 2 ;; *) shift ;; esac; done
  [ -d "$FAKE_GH_DIR/runs/$id/$name" ] || { echo "no artifact $name in run $id" >&2; exit 1; }
  mkdir -p "$dir" && cp -r "$FAKE_GH_DIR/runs/$id/$name/." "$dir/"; exit 0
fi
echo "fake gh: $*" >&2; exit 1
""")
    gh.chmod(0o755)
    return folder


class Team:
    """The team's repository and its runs: pushes to main and pull requests, each a job of the documented workflow."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.repo = _team_repo(tmp / "acme-reels")
        self.gh = _fake_gh(tmp / "gh")
        self.state = tmp / "github.json"
        new_github_state(self.state, 7, "0" * 40)
        self.env = {"FAKE_GH_DIR": str(self.gh), "PATH": f"{self.gh}:{os.environ['PATH']}",
                    "GITHUB_REPOSITORY": "acme/reels", "GITHUB_SERVER_URL": "https://github.com", "GITHUB_RUN_ID": "1",
                    "GITHUB_WORKFLOW_REF": "acme/reels/.github/workflows/reeljudge.yml@refs/heads/main",
                    "REELJUDGE_CACHE_DIR": str(tmp / "judge-cache"), "PROMPTFOO_CONFIG_DIR": str(tmp / "promptfoo")}

    def _job(self, workflow: str, job: str) -> dict:
        data = yaml.safe_load((self.repo / ".github" / "workflows" / workflow).read_text())
        steps = data["jobs"][job]["steps"]
        for step in steps:  # this test cannot download: reeljudge and promptfoo are this project's installs
            if str(step.get("uses", "")).startswith(ACTION) and step["with"].get("mode") != "comment":
                step["with"].update({"reeljudge-spec": "preinstalled",
                                     "reeljudge-command": str(ROOT / ".venv" / "bin" / "reeljudge"),
                                     "promptfoo-command": str(ROOT / "node_modules" / ".bin" / "promptfoo")})
        return data["jobs"][job]

    def run(self, run_id: str, event: str, head_sha: str = "", gemini_url: str = ""):
        """One run of the gate job on the checked-out branch; its artifacts under runs/<run_id>."""
        context = {"github.event_name": event, "github.token": "token-read-only", "secrets.GEMINI_API_KEY": "",
                   "github.event.repository.default_branch": "main", "github.event.pull_request.number": "7",
                   "github.event.pull_request.head.sha": head_sha, "github.ref": "refs/heads/main"}
        env = dict(self.env)
        if gemini_url:  # the main run has the repository's key (here: for the fake Gemini)
            context["secrets.GEMINI_API_KEY"] = "test-key"
            env["GOOGLE_GEMINI_BASE_URL"] = gemini_url
        artifacts = self.gh / "runs" / run_id
        runner = Runner(self.repo, context, artifacts, self.state, actions={ACTION: ROOT}, env=env)
        self.last_runner = runner
        job = runner.run_job(self._job("reeljudge.yml", "gate"))
        if event == "push" and not job.failed:
            (self.gh / "last-push-run").write_text(run_id + "\n")
        return job

    def comment(self, run_id: str, head_sha: str):
        context = {"github.event_name": "workflow_run", "github.event.workflow_run.event": "pull_request",
                   "github.event.workflow_run.id": run_id, "github.event.workflow_run.head_sha": head_sha, "github.token": ""}
        workspace = self.tmp / f"comment-{run_id}"
        workspace.mkdir()
        runner = Runner(workspace, context, self.gh / "runs" / run_id, self.state, actions={ACTION: ROOT}, env=self.env)
        return runner.run_job(self._job("reeljudge-comment.yml", "comment"))

    def pull_request(self, name: str, terms: dict[str, list[str]], threshold: float | None = None) -> tuple[object, dict, str]:
        """A pull request that changes the generator's terms (and the suite's threshold): its gate job, report and
        comment text."""
        _git(self.repo, "checkout", "-q", "-b", name, "main")
        (self.repo / "terms.json").write_text(json.dumps({**GOOD, **terms}, indent=1))
        if threshold is not None:
            config = self.repo / "promptfooconfig.yaml"
            config.write_text(config.read_text().replace("threshold: 0.6", f"threshold: {threshold}"))
        _git(self.repo, "commit", "-qam", name, "--allow-empty")
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=self.repo, capture_output=True, text=True).stdout.strip()
        job = self.run(name, "pull_request", head_sha=sha)
        report = json.loads((self.repo / "reeljudge-gate" / "report.json").read_text())
        comment = (self.repo / "reeljudge-gate" / "comment.md").read_text()
        _git(self.repo, "checkout", "-q", "main")
        return job, report, comment


@pytest.fixture(scope="module")
def team(tmp_path_factory):
    team = Team(tmp_path_factory.mktemp("team"))
    main = team.run("main-1", "push")
    assert not main.failed, [(s.name, s.output[-3000:]) for s in main.steps]
    return team


def _action_output(job) -> str:
    return next(s.output for s in job.steps if s.name == "reeljudge gate")


def test_the_documented_workflows_are_zizmor_clean(team):
    proc = subprocess.run([str(ROOT / ".venv" / "bin" / "zizmor"), "--offline", "--pedantic", "--strict-collection",
                           "--no-progress", "--color", "never",
                           str(team.repo / ".github" / "workflows")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "No findings to report" in proc.stdout + proc.stderr, proc.stdout + proc.stderr


def test_a_push_to_main_keeps_its_results_as_the_baseline_artifact(team):
    results = json.loads((team.gh / "runs" / "main-1" / "reeljudge-results" / "promptfooconfig.json").read_text())
    rows = results["results"]["results"]
    assert len(rows) == 6 and all(r["success"] for r in rows)
    identity = rows[0]["gradingResult"]["componentResults"][0]["metadata"]["judge_identity"]
    assert identity["engine"] == "local" and identity["deterministic"] is True  # the offline judge, recorded


def test_an_unchanged_candidate_passes_against_the_artifact_baseline(team):
    job, report, comment = team.pull_request("docs-only", {})
    assert not job.failed, _action_output(job)[-3000:]
    assert report["verdict"] == "passed" and report["exit_code"] == 0
    assert comment.splitlines()[1].startswith("## reeljudge gate: ✅ passed")
    assert "Baseline: the results of run main-1 on main" in comment
    calls = (team.gh / "calls").read_text()
    assert "run list --repo acme/reels --workflow reeljudge.yml --branch main --event push --status success" in calls


def test_six_tests_with_two_flips_fail_by_max_newly_failing_and_the_one_comment_lists_them(team):
    job, report, comment = team.pull_request("two-flips", {CHEF: ABSTRACT[CHEF], FARM: ABSTRACT[FARM]})
    assert job.failed and "regression (exit 1: the job fails)" in _action_output(job)
    [suite] = report["suites"]
    [flips] = suite["flips"]
    assert flips["max_newly_failing"] == 0 and flips["deterministic"] and flips["too_many_failing"]
    assert sorted(t["test"] for t in flips["tests"]) == ["chef [generator]", "farmers [generator]"]
    first = comment.splitlines()[1]
    assert first.startswith("## reeljudge gate: ❌ regression — promptfooconfig: generator: 2 of 6 paired tests newly fail")
    assert "6 paired tests: drops smaller than" in comment
    chef = next(line for line in comment.splitlines() if line.startswith("| promptfooconfig · generator | chef [generator]"))
    assert "newly failing" in chef and "PASS 1.0 EXCELLENT" in chef and "FAIL 0.3 POOR" in chef  # both runs' reasons
    sha = subprocess.run(["git", "rev-parse", "two-flips"], cwd=team.repo, capture_output=True, text=True).stdout.strip()
    state = json.loads(team.state.read_text())
    state["pulls"]["7"]["head_sha"] = sha
    team.state.write_text(json.dumps(state))
    posted = team.comment("two-flips", sha)
    assert not posted.failed, [s.output for s in posted.steps]
    bots = [c for c in json.loads(team.state.read_text())["comments"] if c["user"]["type"] == "Bot"]
    assert len(bots) == 1 and bots[0]["body"] == comment


def test_a_planted_regression_fails_with_the_newly_failing_tests_listed(team):
    job, report, comment = team.pull_request("planted", {k: ABSTRACT[k] for k in (CHEF, WAVES, FARM, DOG)})
    assert job.failed and report["verdict"] == "regression"
    [suite] = report["suites"]
    score = next(m for m in suite["metrics"] if m["metric"] == "score")
    assert score["verdict"] == "regression" and score["difference"]["high"] < -0.02
    assert {t["test"] for t in suite["flips"][0]["tests"] if t["kind"] == "newly failing"} == {
        "chef [generator]", "waves [generator]", "farmers [generator]", "dog [generator]"}
    assert comment.count("| newly failing |") == 4


def test_a_small_noisy_drop_without_flips_is_inconclusive(team):
    # 1.0 → 0.8
    job, report, comment = team.pull_request("small-drop", {WAVES: ["ocean waves", "rocky coast", "serenity", "beauty"]})
    assert job.failed and report["verdict"] == "inconclusive" and report["exit_code"] == 3
    [suite] = report["suites"]
    assert not suite["flips"][0]["tests"]
    assert comment.splitlines()[1].startswith("## reeljudge gate: ❔ inconclusive (blocking) — promptfooconfig: `")
    assert "inconclusive: the data cannot tell" not in comment  # the log line is not the comment
    assert "inconclusive (exit 3: the job fails)" in _action_output(job)


def test_a_baseline_judged_by_another_judge_is_refused_with_the_reason(team):
    with FakeGemini() as fake:
        fake.on("Grade these search terms", json_reply({
            "breakdown": {"relevance": 3, "filmability": 3, "variety": 1}, "unfilmableTerms": [], "points": 7, "score": 1.0,
            "reason": "concrete, relevant, varied"}))
        _git(team.repo, "checkout", "-q", "-b", "main-gemini", "main")
        # the default branch's run had the key, and its suite asks Gemini for every list (judge: auto with a key is the
        # cascade: the offline judge decides the lists it is sure of, these six among them, and Gemini is not asked)
        config = team.repo / "promptfooconfig.yaml"
        suite = yaml.safe_load(config.read_text())
        suite["defaultTest"]["assert"][0]["config"]["judge"] = "gemini"
        config.write_text(yaml.safe_dump(suite, sort_keys=False))
        _git(team.repo, "commit", "-qam", "judge: gemini")
        try:
            main = team.run("main-2", "push", gemini_url=fake.url)
        finally:
            _git(team.repo, "checkout", "-q", "main")
    try:
        assert not main.failed, _action_output(main)[-3000:]
        assert "gemini-2.5-flash" in (team.gh / "runs" / "main-2" / "reeljudge-results" / "promptfooconfig.json").read_text()
        job, report, comment = team.pull_request("fork-no-key", {})  # a fork: no key, the offline judge (judge: auto)
        assert job.failed and report["verdict"] == "could not compare" and report["exit_code"] == 2
        message = report["suites"][0]["error"]
        assert re.search(r"baseline judged by gemini-2\.5-flash \(filmability, version [0-9a-f]{12}\), candidate by the "
                         r"offline judge \(filmability, version \d+-[0-9a-f]{12}\): not comparable", message), message
        assert "not comparable" in comment.splitlines()[1]
    finally:  # the module's later tests compare with main-1, whatever happened here
        (team.gh / "last-push-run").write_text("main-1\n")


def test_promptfoo_0_121_20_crashing_at_shutdown_after_300_tests_is_read_as_a_finished_eval(tmp_path):
    tests = [{"vars": {"x": f"item {i}"}, "assert": [{"type": "contains", "value": "item"}]} for i in range(300)]
    (tmp_path / "promptfooconfig.yaml").write_text(yaml.safe_dump({"prompts": ["{{x}}"], "providers": ["echo"], "tests": tests}))
    promptfoo = str(ROOT / "node_modules" / ".bin" / "promptfoo")
    env = {**os.environ, "RUNNER_TEMP": str(tmp_path / "temp"), "PROMPTFOO_CONFIG_DIR": str(tmp_path / "pf"),
           "INPUT_REELJUDGE_SPEC": "preinstalled", "INPUT_REELJUDGE_COMMAND": str(ROOT / ".venv" / "bin" / "reeljudge"),
           "INPUT_PROMPTFOO_COMMAND": promptfoo, "INPUT_CONFIGS": "big=promptfooconfig.yaml", "INPUT_RESULTS_DIR": "out"}
    script = str(ROOT / "action" / "gate.sh")
    assert subprocess.run(["bash", script, "install"], cwd=tmp_path, env=env, capture_output=True, text=True).returncode == 0
    for _attempt in range(3):  # the crash is a race at shutdown: on a loaded machine one run in a few misses it
        crash = subprocess.run([promptfoo, "eval", "-c", "promptfooconfig.yaml", "-o", "raw.json", "--no-progress-bar"],
                               cwd=tmp_path, env={**env, "PROMPTFOO_DISABLE_DEBUG_LOG": "0", "PROMPTFOO_DISABLE_TELEMETRY": "1"},
                               capture_output=True, text=True)
        if crash.returncode == 1:
            break
    assert crash.returncode == 1 and "write after end" in crash.stdout + crash.stderr  # the known crash, on a complete eval
    assert len(json.loads((tmp_path / "raw.json").read_text())["results"]["results"]) == 300
    avoided = subprocess.run(["bash", script, "evaluate"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert avoided.returncode == 0 and "big: finished (promptfoo exit 0)\n" in avoided.stdout, avoided.stdout + avoided.stderr
    for _attempt in range(3):  # the same race: every run passes, and one of them meets the crash
        recognised = subprocess.run(["bash", script, "evaluate"], cwd=tmp_path, env={**env, "PROMPTFOO_DISABLE_DEBUG_LOG": "0"},
                                    capture_output=True, text=True)
        assert recognised.returncode == 0, recognised.stdout + recognised.stderr
        if "promptfoo exited 1" in recognised.stdout:
            break
    assert "big: promptfoo exited 1 after writing a complete results file: read as a finished eval" in recognised.stdout
    (tmp_path / "promptfooconfig.yaml").write_text("prompts: [\n")  # a broken config writes no results: a failure
    broken = subprocess.run(["bash", script, "evaluate"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert (broken.returncode == 1 and "promptfooconfig.yaml does not parse: YAML" in broken.stderr
            and "no complete results file" in broken.stderr)
    shutil.rmtree(tmp_path / "pf", ignore_errors=True)


#: 1.0 → 0.8 on one narration, no test flips (threshold 0.6): against the baseline inconclusive, alone it passes
SMALL_DROP = {WAVES: ["ocean waves", "rocky coast", "serenity", "beauty"]}


def _posted(team: Team, run_id: str) -> str:
    """The one bot comment after the comment job for the gate run ``run_id`` (the pull request's head is that run's)."""
    sha = subprocess.run(["git", "rev-parse", run_id], cwd=team.repo, capture_output=True, text=True).stdout.strip()
    state = json.loads(team.state.read_text())
    state["pulls"]["7"]["head_sha"] = sha
    team.state.write_text(json.dumps(state))
    posted = team.comment(run_id, sha)
    assert not posted.failed, [s.output for s in posted.steps]
    [bot] = [c for c in json.loads(team.state.read_text())["comments"] if c["user"]["type"] == "Bot"]
    return bot["body"]


@pytest.mark.parametrize("answer, said", [
    ("403", "gh run list failed (exit 1): HTTP 403: Resource not accessible by integration"),
    ("502", "gh run list failed (exit 1): HTTP 502: Bad Gateway"),
    ("expired", "the reeljudge-results artifact of run main-1 on main (https://github.com/acme/reels/actions/runs/main-1) "
                'is gone: gh run download said "no valid artifacts found to download"')])
def test_a_baseline_look_up_that_fails_is_could_not_compare_never_green(team, answer, said):
    """gh answering 403, 502 or an expired artifact is not "no baseline yet" (which would judge the drop alone: green)."""
    (team.gh / "answer").write_text(answer)
    try:
        job, report, comment = team.pull_request(f"gh-{answer}", SMALL_DROP)
    finally:
        (team.gh / "answer").unlink()
    summary = team.last_runner.summary.read_text()
    assert job.failed and report["verdict"] == "could not compare" and report["exit_code"] == 2, _action_output(job)[-3000:]
    first = comment.splitlines()[1]
    assert first.startswith(f"## reeljudge gate: ⚠️ could not compare — baseline: could not fetch the baseline: {said}"), first
    if answer == "expired":  # what a team does about it (docs/gates.md: an expired baseline)
        assert ("(an artifact is kept 90 days: a push to main, or re-running its last run, records a new baseline)"
                in comment.splitlines()[3])
    assert f"Baseline: could not be fetched ({said}" in comment and first in summary
    assert "could not compare (exit 2: the job fails)" in _action_output(job)
    assert _posted(team, f"gh-{answer}").splitlines()[1] == first


def test_the_comment_never_turns_red_to_green_for_a_run_that_compared_less(team):
    """The same drop: inconclusive against the baseline (❔, posted); then a run whose look-up found nothing judges it
    alone (✅ in its own report): the one comment is not edited to ✅."""
    job, report, comment = team.pull_request("drop-compared", SMALL_DROP)
    assert report["verdict"] == "inconclusive" and "<!-- reeljudge-gate-compared: promptfooconfig -->" in comment
    assert _posted(team, "drop-compared") == comment
    (team.gh / "answer").write_text("empty")
    try:
        job, report, comment = team.pull_request("drop-alone", SMALL_DROP)
    finally:
        (team.gh / "answer").unlink()
    assert not job.failed and report["verdict"] == "passed" and comment.splitlines()[1].startswith("## reeljudge gate: ✅")
    body = _posted(team, "drop-alone")
    assert body.splitlines()[1].startswith("## reeljudge gate: ⚠️ not compared as before — promptfooconfig: compared with "
                                           "a baseline by the run before, not by this one"), body
    assert "✅" not in body.splitlines()[1]


def _stub_wheel(folder: Path) -> Path:
    """A wheel named reeljudge whose ``reeljudge --version`` answers (what the install step checks), without the
    package's dependencies: a virtualenv made from it takes seconds."""
    import zipfile

    folder.mkdir(parents=True, exist_ok=True)
    wheel = folder / "reeljudge-0.0.1-py3-none-any.whl"
    info = "reeljudge-0.0.1.dist-info"
    files = {"reeljudge_stub.py": "def main():\n    print('reeljudge 0.0.1')\n",
             f"{info}/METADATA": "Metadata-Version: 2.1\nName: reeljudge\nVersion: 0.0.1\n",
             f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: a test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
             f"{info}/entry_points.txt": "[console_scripts]\nreeljudge = reeljudge_stub:main\n"}
    files[f"{info}/RECORD"] = "".join(f"{name},,\n" for name in [*files, f"{info}/RECORD"])
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return wheel


def test_a_restored_virtualenv_whose_interpreter_moved_is_rebuilt_in_place(tmp_path):
    """setup-python's "3.11" moved to a new patch; the cached virtualenv links to the old one's path. The install
    step rebuilds it (``python3 -m venv`` over it exits 1, and every run after would be red)."""
    base = Path(getattr(sys, "_base_executable", sys.executable)).resolve()
    old, new = tmp_path / "toolcache" / "3.11.9", tmp_path / "toolcache" / "3.11.10"
    (old / "bin").mkdir(parents=True)
    (old / "bin" / "python3").symlink_to(base)
    temp = tmp_path / "temp"
    env = {**os.environ, "RUNNER_TEMP": str(temp), "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1",
           "INPUT_REELJUDGE_SPEC": str(_stub_wheel(tmp_path / "wheels")), "INPUT_CACHE_KEY": "reeljudge-install-v2-test"}
    script = str(ROOT / "action" / "gate.sh")

    def install(python_dir: Path) -> subprocess.CompletedProcess:
        path = os.pathsep.join([str(python_dir / "bin"), *os.environ["PATH"].split(os.pathsep)])
        return subprocess.run(["bash", script, "install"], cwd=tmp_path, env={**env, "PATH": path},
                              capture_output=True, text=True, timeout=300)

    first = install(old)
    assert first.returncode == 0 and "installing reeljudge from" in first.stdout, first.stdout + first.stderr
    old.rename(new)  # the runner's new image: the venv's bin/python now points at nothing
    venv = temp / "reeljudge-action" / "venv"
    assert not (venv / "bin" / "python").exists()
    healed = install(new)
    assert healed.returncode == 0, healed.stdout + healed.stderr
    assert "the restored virtualenv does not run here (its bin/python does not start: " in healed.stdout
    assert "rebuilt in a fresh folder" in healed.stdout and "(reeljudge 0.0.1)" in healed.stdout
    assert (venv / ".reeljudge-install-key").read_text().strip() == "reeljudge-install-v2-test"  # saved as good
    again = install(new)
    assert again.returncode == 0 and "the cached virtualenv matches" in again.stdout, again.stdout + again.stderr


def test_a_pull_request_that_lowers_its_threshold_is_named_not_an_improvement(team):
    """The suite's threshold lowered from 0.6 to 0.3 (what would let abstract terms through) is named and not compared:
    compared as like with like, it would pass with the change unseen."""
    job, report, comment = team.pull_request("lowered", {}, threshold=0.3)
    assert job.failed and report["verdict"] == "could not compare" and report["exit_code"] == 2, _action_output(job)[-3000:]
    first = comment.splitlines()[1]
    assert first.startswith("## reeljudge gate: ⚠️ could not compare — promptfooconfig: filmability: threshold 0.6 → 0.3 "
                            "in promptfooconfig: the judge's options changed"), first
    assert "could not compare (exit 2: the job fails)" in _action_output(job)


def test_no_gh_or_no_token_is_could_not_compare_and_the_committed_folder_is_not_taken_instead(tmp_path):
    """Without gh or a token the look-up cannot happen: could not compare, never a silent fall-back (to the committed
    folder, or to "no baseline yet")."""
    (tmp_path / "baselines").mkdir()
    (tmp_path / "baselines" / "suite.json").write_text("{}")
    tools = tmp_path / "bin"  # this runner's tools, without gh
    tools.mkdir()
    for name in ("bash", "mkdir", "rm", "ls", "cat", "cp", "tr", "sed", "cut", "grep", "dirname", "basename", "touch"):
        (tools / name).symlink_to(shutil.which(name))
    env = {"RUNNER_TEMP": str(tmp_path / "temp"), "GITHUB_REPOSITORY": "acme/reels", "INPUT_BASELINE": "artifact",
           "GITHUB_WORKFLOW_REF": "acme/reels/.github/workflows/reeljudge.yml@refs/pull/7/merge", "GH_TOKEN": "token-read-only"}
    state = tmp_path / "temp" / "reeljudge-action"

    def baseline(path: str, **more: str) -> str:
        proc = subprocess.run([shutil.which("bash"), str(ROOT / "action" / "gate.sh"), "baseline"], cwd=tmp_path,
                              env={**env, "PATH": path, **more}, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert not (state / "baseline-missing").exists() and not list((tmp_path / "reeljudge-baseline").iterdir())
        return (state / "baseline-error").read_text().strip()

    assert baseline(str(tools)) == "gh (GitHub's CLI) is not on this runner's PATH"
    gh = _fake_gh(tmp_path / "gh")
    assert baseline(f"{gh}:{tools}", GH_TOKEN="", FAKE_GH_DIR=str(gh)) == (
        "no token to read the runs with (the github-token input is empty)")
    (gh / "answer").write_text("empty")  # the look-up succeeded and found no push run: the committed folder
    proc = subprocess.run([shutil.which("bash"), str(ROOT / "action" / "gate.sh"), "baseline"], cwd=tmp_path,
                          env={**env, "PATH": f"{gh}:{tools}", "FAKE_GH_DIR": str(gh)}, capture_output=True, text=True)
    assert proc.returncode == 0 and "baseline: the committed baselines/ folder" in proc.stdout, proc.stdout + proc.stderr
