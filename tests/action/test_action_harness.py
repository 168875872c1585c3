"""The pull-request gate ``reeljudge init`` writes, run through ``action.yml`` itself, in a user's repository.

The user's repository is made as a user makes it: the built npm tarball and a package.json naming
it (committed), the wheel's ``reeljudge init --gate all`` (its starter suites, gate file and two
workflows, committed), clips. Each job is a fresh clone of one branch; tests/support/workflow_runner.py
runs the workflow's steps and the action's own ``runs.steps`` (expressions substituted, each
``run:`` in its shell with GitHub's environment). Nothing is replaced: ``gate.sh install`` runs
the real ``pip install`` (a fresh virtualenv; the default spec is the action's own checkout,
editable) against a local ``--find-links`` folder (tests/support/package_index.py) and the real
``npm install`` offline from npm's cache. Two shortcuts, both of time: each clone's
``node_modules`` is seeded by hard links with promptfoo's tree but WITHOUT reeljudge (the
project's own ``npm install`` must add it from the committed tarball, or every
``package:reeljudge:*`` test errors), and the promptfoo prefix of the ``promptfoo-version`` mode
is seeded the same way (a cold npm install of promptfoo takes ~8 min on this machine); ``gh``
serves the push run's artifact and GitHub's REST API is the in-memory stand-in.

Flows: a push to main WITH the key (the Gecko suite judged by the fake Gemini) keeps the baseline;
an unchanged pull request without the key passes (Gecko "not run: no key", a neutral line); a
planted regression without the key fails (exit 1) and its comment is posted. Then every other
install mode the action offers, on a ``--python-entries`` project (no package.json).
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

from support.fake_gemini import FakeGemini
from support.npm_registry import LockedRegistry
from support.package_index import npm_env, pip_env, wheelhouse
from support.run_once import once_per_run
from test_action_repo import _fake_gh, commit_main
from support.user_project import ROOT, artifacts, make_project, user_python  # noqa: F401
from support.workflow_runner import Runner, new_github_state
from support.gecko_scripts import script_prompt

pytestmark = [pytest.mark.e2e, pytest.mark.pinned_promptfoo]  # the user project installs its own (pinned) promptfoo

ACTION = "reeljudge/reeljudge"  # the placeholder init writes, played by the action's checkout
STARTER_PROMPT = "A red ball rolls past a textured wall"  # the starters' example prompt
CLIPS = ROOT / "datasets" / "clips"
CREDENTIALS = ("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GEMINI_BASE_URL")


def _git(repo: Path, *args: str) -> str:
    proc = subprocess.run(["git", "-c", "user.name=dev", "-c", "user.email=dev@example.invalid", *args], cwd=repo,
                          capture_output=True, text=True, check=True)
    return proc.stdout.strip()


def action_checkout(folder: Path) -> Path:
    """The action's repository at one commit, as ``uses: owner/repo@sha`` checks it out (tracked and new files, links kept)."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True, check=True)
    for rel in listed.stdout.splitlines():
        src, dst = ROOT / rel, folder / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_symlink():
            dst.symlink_to(os.readlink(src))
        elif src.is_file():
            shutil.copy2(src, dst)
    _git(folder, "init", "-q", "-b", "main")
    _git(folder, "add", "-A")
    _git(folder, "commit", "-qm", "the action")
    return folder


@pytest.fixture(scope="session")
def sources(tmp_path_factory, artifacts):  # noqa: F811
    """(the action's checkout, the --find-links folder with reeljudge's dependencies and wheel, the promptfoo project
    template)."""
    def build(folder: Path):
        return action_checkout(folder / "action"), wheelhouse(folder / "wheels", [artifacts.wheel])
    action, wheels = once_per_run(tmp_path_factory, "action-harness", build)
    template, _node = once_per_run(tmp_path_factory, "user-pinned",
                                   lambda scratch: (make_project(scratch / "project", artifacts.npm, "pinned"), None))
    return action, wheels, template


def tools(folder: Path) -> dict[str, Path]:
    """What the setup actions put first on PATH: this Python (3.11, as python-version asks) and this Node (20.20)."""
    python, node = folder / "python" / "bin", folder / "node" / "bin"
    for target, names, exe in ((python, ("python", "python3"), getattr(sys, "_base_executable", sys.executable)),
                               (node, ("node",), shutil.which("node"))):
        target.mkdir(parents=True, exist_ok=True)
        for name in names:
            if not (target / name).exists():
                (target / name).symlink_to(exe)
    return {"actions/setup-python": python, "actions/setup-node": node}


def user_repo(folder: Path, python: Path, template: Path, *init_args: str, npm: bool = True) -> Path:
    """A user's repository on main: (with npm) package.json naming the committed tarball, init's files, clips."""
    folder.mkdir(parents=True)
    if npm:
        for name in ("package.json", "package-lock.json", *[p.name for p in template.glob("reeljudge-*.tgz")]):
            shutil.copy(template / name, folder / name)
    proc = subprocess.run([str(python.parent / "reeljudge"), "init", str(folder), *init_args], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (folder / "clips").mkdir(exist_ok=True)  # init made it (its example clips); these replace them
    for name, clip in (("example", "gen_clean"), ("new", "gen_clean"), ("reference", "gen_flicker")):
        shutil.copy(CLIPS / f"{clip}.mp4", folder / "clips" / f"{name}.mp4")
    (folder / "reeljudge-0.1.0-py3-none-any.whl").write_text("the wheel a user copied in: ignored\n")
    _git(folder, "init", "-q", "-b", "main")
    _git(folder, "add", "-A")
    _git(folder, "commit", "-qm", "reeljudge init")
    return folder


class Repo:
    """A user's repository and its gate runs (each a job in a fresh clone), with their artifacts under gh/runs/<id>."""

    def __init__(self, tmp: Path, repo: Path, sources: tuple[Path, Path, Path], cache: Path | None = None) -> None:
        self.tmp, self.repo, (self.action, wheels, self.template) = tmp, repo, sources
        self.cache = cache  # actions/cache's store, shared by this repository's runs (None: the cache is a no-op)
        self.wheel = next(wheels.glob("reeljudge-*.whl"))  # the built wheel, beside its dependencies
        self.gh = _fake_gh(tmp / "gh")
        self.state = tmp / "github.json"
        new_github_state(self.state, 7, "0" * 40)
        path = [p for p in os.environ["PATH"].split(os.pathsep) if p and not Path(p).resolve().is_relative_to(ROOT)]
        self.env = {"FAKE_GH_DIR": str(self.gh), "PATH": os.pathsep.join([str(self.gh), *path]),
                    "GITHUB_REPOSITORY": "acme/reels", "GITHUB_SERVER_URL": "https://github.com", "GITHUB_RUN_ID": "1",
                    "GITHUB_WORKFLOW_REF": "acme/reels/.github/workflows/reeljudge.yml@refs/heads/main",
                    "REELJUDGE_CACHE_DIR": str(tmp / "judge-cache"), "PROMPTFOO_CONFIG_DIR": str(tmp / "promptfoo"),
                    "npm_config_cache": subprocess.run(["npm", "config", "get", "cache"],
                                                       capture_output=True, text=True).stdout.strip(),
                    **pip_env(wheels), **npm_env()}
        self.tools = tools(tmp / "tools")

    def clone(self, branch: str, name: str) -> Path:
        """The job's checkout; its node_modules seeded with promptfoo's tree, without reeljudge (npm install adds it).
        With a cache store, every job checks out into the same folder, as on GitHub's runners (the cache's paths are
        absolute)."""
        workspace = self.tmp / name if self.cache is None else self.tmp / "work" / "reels"
        shutil.rmtree(workspace, ignore_errors=True)
        subprocess.run(["git", "clone", "-q", "--branch", branch, str(self.repo), str(workspace)], check=True)
        if (workspace / "package.json").exists():
            subprocess.run(["cp", "-al", str(self.template / "node_modules"), str(workspace / "node_modules")], check=True)
            shutil.rmtree(workspace / "node_modules" / "reeljudge")
            for private in (".package-lock.json", ".reeljudge-setup"):
                (workspace / "node_modules" / private).unlink(missing_ok=True)
        return workspace

    def run(self, run_id: str, event: str, branch: str = "main", *, key: str = "", gemini_url: str = "",
            inputs: dict[str, str] | None = None, registry: str = "", secrets: dict[str, str] | None = None):
        """One gate job; (its steps, its workspace, the action step's output). ``secrets``: more ``secrets.*`` than
        GEMINI_API_KEY (``key``), for a workflow whose step env names them."""
        workspace = self.clone(branch, run_id)
        sha = _git(workspace, "rev-parse", "HEAD")
        context = {"github.event_name": event, "github.token": "token-read-only", "secrets.GEMINI_API_KEY": key,
                   "github.event.repository.default_branch": "main", "github.event.pull_request.number": "7",
                   "github.event.pull_request.head.sha": sha, "github.ref": f"refs/heads/{branch}",
                   **{f"secrets.{name}": value for name, value in (secrets or {}).items()}}
        env = {**self.env, "GITHUB_RUN_ID": run_id,  # one id a run, as on GitHub (the call cache keys its entries by it)
               **({"GOOGLE_GEMINI_BASE_URL": gemini_url} if gemini_url else {})}
        if registry:  # npm asks this registry for what its cache lacks (promptfoo's packument), else reads the cache
            env.update({"npm_config_offline": "false", "npm_config_prefer_offline": "true", "npm_config_registry": registry})
        job = yaml.safe_load((workspace / ".github" / "workflows" / "reeljudge.yml").read_text())["jobs"]["gate"]
        step = next(s for s in job["steps"] if str(s.get("uses", "")).startswith(ACTION))
        step["with"].update(inputs or {})
        step["id"] = "gate"  # a user's later step reads the action's outputs, whatever happened before
        job["steps"].append({"name": "the gate's outputs", "if": "always()",
                             "env": {"VERDICT": "${{ steps.gate.outputs.verdict }}",
                                     "EXIT_CODE": "${{ steps.gate.outputs.exit-code }}"},
                             "run": 'echo "verdict=[$VERDICT] exit-code=[$EXIT_CODE]"'})
        runner = Runner(workspace, context, self.gh / "runs" / run_id, self.state, actions={ACTION: self.action}, env=env,
                        tools=self.tools,
                        cache=self.cache, temp=None if self.cache is None else self.tmp / "work" / "_temp")
        self.last_runner = runner
        if registry:  # what npm would extract into the promptfoo prefix (it still resolves and installs promptfoo@version)
            prefix = runner.temp / "reeljudge-action" / "promptfoo-npm"
            prefix.mkdir(parents=True)
            subprocess.run(["cp", "-al", str(ROOT / "node_modules"), str(prefix / "node_modules")], check=True)
            for private in (".package-lock.json", ".reeljudge-setup"):
                (prefix / "node_modules" / private).unlink(missing_ok=True)
        result = runner.run_job(job)
        if event == "push" and not result.failed:
            (self.gh / "last-push-run").write_text(run_id + "\n")
        output = next(s.output for s in result.steps if str(s.name) == step.get("name", step["uses"]))
        if self.cache is not None:  # the next job checks out into the same folder: keep what this one wrote
            kept = self.tmp / run_id
            for folder in ("reeljudge-gate", "reeljudge-results"):
                if (workspace / folder).is_dir():
                    shutil.copytree(workspace / folder, kept / folder)
            kept.mkdir(exist_ok=True)
            return result, kept, output
        return result, workspace, output

    def pull_request(self, name: str, change, **given) -> tuple:
        """A pull request (a branch off main changed by ``change``), gated without a key (``given``: more of ``run``'s
        arguments): (job, report, comment, output)."""
        _git(self.repo, "checkout", "-q", "-b", name, "main")
        change(self.repo)
        _git(self.repo, "add", "-A")
        _git(self.repo, "commit", "-qm", name, "--allow-empty")
        _git(self.repo, "checkout", "-q", "main")
        job, workspace, output = self.run(name, "pull_request", name, **given)
        gate = workspace / "reeljudge-gate"
        report = json.loads((gate / "report.json").read_text()) if (gate / "report.json").exists() else {}
        return job, report, (gate / "comment.md").read_text() if (gate / "comment.md").exists() else "", output


@pytest.fixture(scope="module")
def gated(tmp_path_factory, sources, user_python):  # noqa: F811
    """The user's repository after a push to main with the key: (repo, the push job's output)."""
    tmp = tmp_path_factory.mktemp("harness")
    repo = Repo(tmp, user_repo(tmp / "reels", user_python, sources[2], "--gate", "all"), sources)
    with FakeGemini() as fake:
        script_prompt(fake, STARTER_PROMPT, matched=True)
        job, _workspace, output = repo.run("main-1", "push", key="test-key-not-real", gemini_url=fake.url)
    assert not job.failed, output[-6000:]
    repo.push_summary = repo.last_runner.summary.read_text()
    return repo, output


def test_init_writes_a_keyless_gate_and_the_repository_commits_the_tarball_not_the_wheel(gated):
    repo, _output = gated
    workflow = yaml.safe_load((repo.repo / ".github" / "workflows" / "reeljudge.yml").read_text())
    given = next(s for s in workflow["jobs"]["gate"]["steps"] if "uses" in s and s["uses"].startswith(ACTION))["with"]
    assert given["configs"] == "promptfooconfig.filmability.yaml promptfooconfig.probes.yaml promptfooconfig.ab.yaml"
    assert given["key-configs"] == "promptfooconfig.gecko.yaml"
    tracked = _git(repo.repo, "ls-files").splitlines()
    assert "reeljudge-0.1.0.tgz" in tracked and "package.json" in tracked
    assert "reeljudge-0.1.0-py3-none-any.whl" not in tracked  # init's .gitignore lines keep the copied wheel out


def test_a_push_with_the_key_installs_from_the_index_and_judges_every_suite(gated):
    repo, output = gated
    assert "installing reeljudge from --editable" in output and "(reeljudge 0.1.0)" in output
    assert "installing the project's npm packages" in output and "node_modules/.bin/promptfoo" in output
    results = repo.gh / "runs" / "main-1" / "reeljudge-results"
    assert sorted(p.name for p in results.glob("*.json")) == ["ab.json", "filmability.json", "gecko.json", "probes.json"]
    for suite in ("filmability", "probes", "ab", "gecko"):
        rows = json.loads((results / f"{suite}.json").read_text())["results"]["results"]
        assert rows and all(r["success"] for r in rows), (suite, [r.get("error") or r["gradingResult"] for r in rows])
        assert f"{suite}: finished (promptfoo exit 0)\n" in output  # the exit it saw, nothing about exit 100
    assert "errored" not in output


def test_a_push_runs_summary_says_what_it_recorded_as_the_baseline(gated):
    """A push run's job summary lists what it recorded as the baseline: the suites, their pass rates and who judged them."""
    repo, _output = gated
    summary = repo.push_summary
    assert "## reeljudge gate: the baseline this run recorded — ab, filmability, gecko, probes" in summary
    assert "| suite | tests | passing | judged by |" in summary
    rows = {line.split(" | ")[0].strip("| "): line for line in summary.splitlines() if line.startswith("| ")}
    assert "the offline judge (filmability, version " in rows["filmability"] and "(100%)" in rows["filmability"]
    assert "gemini-2.5-flash (gecko, version " in rows["gecko"] and "the video probes (video_probes" in rows["probes"]


def test_an_unchanged_pull_request_without_the_key_passes_with_gecko_not_run(gated):
    repo, _ = gated
    job, report, comment, output = repo.pull_request("docs-only", lambda r: (r / "NOTES.md").write_text("docs\n"))
    assert not job.failed, output[-6000:]
    assert report["verdict"] == "passed" and report["exit_code"] == 0
    assert comment.splitlines()[1].startswith("## reeljudge gate: ✅ passed")
    assert "`gecko`: not run: no key" in comment and "gecko: not run: no key" in output
    assert sorted(s["name"] for s in report["suites"]) == ["ab", "filmability", "probes"]


def _plant_regression(repo: Path) -> None:
    """The generator's clip comes out black: the probes starter's clip (same test, same vars) is replaced."""
    shutil.copy(CLIPS / "gen_black.mp4", repo / "clips" / "example.mp4")


def test_a_planted_regression_without_the_key_fails_and_its_comment_is_posted(gated):
    repo, _ = gated
    job, report, comment, output = repo.pull_request("planted", _plant_regression)
    assert job.failed and report["verdict"] == "regression" and report["exit_code"] == 1, output[-4000:]
    assert "regression (exit 1: the job fails)" in output
    assert comment.splitlines()[1].startswith("## reeljudge gate: ❌ regression") and "`gecko`: not run: no key" in comment
    newly = {s["name"]: [t["test"] for f in s.get("flips", []) for t in f["tests"] if t["kind"] == "newly failing"]
             for s in report["suites"]}
    assert newly == {"filmability": [], "probes": ["example clip [echo]"], "ab": []}, newly
    state = json.loads(repo.state.read_text())
    sha = _git(repo.repo, "rev-parse", "planted")
    state["pulls"]["7"]["head_sha"] = sha
    repo.state.write_text(json.dumps(state))
    workspace = repo.tmp / "comment-planted"
    workspace.mkdir()
    context = {"github.event_name": "workflow_run", "github.event.workflow_run.event": "pull_request",
               "github.event.workflow_run.id": "planted", "github.event.workflow_run.head_sha": sha, "github.token": ""}
    commenter = Runner(workspace, context, repo.gh / "runs" / "planted", repo.state, actions={ACTION: repo.action}, env=repo.env)
    job_file = yaml.safe_load((repo.repo / ".github" / "workflows" / "reeljudge-comment.yml").read_text())
    posted = commenter.run_job(job_file["jobs"]["comment"])
    assert not posted.failed, [s.output for s in posted.steps]
    bots = [c for c in json.loads(repo.state.read_text())["comments"] if c["user"]["type"] == "Bot"]
    assert len(bots) == 1 and bots[0]["body"] == comment


#: the install modes the action offers besides the default (its own checkout, editable; the project's promptfoo)
MODES = {
    "requirement": lambda r: {"reeljudge-spec": "reeljudge==0.1.0", "promptfoo-version": "0.121.20"},
    "wheel": lambda r: {"reeljudge-spec": str(r.wheel),
                        "promptfoo-command": str(r.template / "node_modules" / ".bin" / "promptfoo")},
    "git": lambda r: {"reeljudge-spec": f"git+file://{r.action}",
                      "promptfoo-command": str(r.template / "node_modules" / ".bin" / "promptfoo")},
}


@pytest.fixture(scope="module")
def entries_repo(tmp_path_factory, sources, user_python):  # noqa: F811
    """A --python-entries project (type: python; no package.json), gating the probes starter."""
    tmp = tmp_path_factory.mktemp("entries")
    return Repo(tmp,
                user_repo(tmp / "reels", user_python, sources[2], "--python-entries", "--judges", "probes", npm=False), sources)


@pytest.mark.parametrize("mode", sorted(MODES))
def test_every_install_mode_installs_and_evaluates(entries_repo, mode):
    with LockedRegistry(ROOT) as registry:  # promptfoo 0.121.20 and its tree, as this repository's lock installed them
        job, workspace, output = entries_repo.run(f"mode-{mode}", "push", inputs=MODES[mode](entries_repo),
                                                  registry=registry.url if mode == "requirement" else "")
    assert not job.failed, output[-6000:]
    assert "(reeljudge 0.1.0)" in output and "installing the project's npm packages" not in output
    if mode == "requirement":
        assert ("installing promptfoo@0.121.20" in output
                and "reeljudge-action/promptfoo-npm/node_modules/.bin/promptfoo" in output)
    rows = json.loads((workspace / "reeljudge-results" / "probes.json").read_text())["results"]["results"]
    assert len(rows) == 1 and rows[0]["success"], rows[0].get("error") or rows[0]["gradingResult"]
    assert rows[0]["gradingResult"]["componentResults"][0]["assertion"]["type"] == "python"


# The gate's first day and its bad days: a repository with no baseline adopts the gate through a pull
# request; then a broken config and a suite whose every test errors, each red with a comment that says why; the
# install cache (actions/cache, played with a store) measured on the runs after the first.

THROWS = ("module.exports = class Down { id() { return 'generator'; } "
          "async callApi() { throw new Error('the upstream generator is down'); } };\n")


def _adoption_repo(folder: Path, template: Path) -> Path:
    """A user's repository before reeljudge's gate: package.json naming the committed tarball, a README; on main."""
    folder.mkdir(parents=True)
    for name in ("package.json", "package-lock.json", *[p.name for p in template.glob("reeljudge-*.tgz")]):
        shutil.copy(template / name, folder / name)
    (folder / "README.md").write_text("our video pipeline\n")
    return commit_main(folder, "before the gate")


def _install_seconds(runner: Runner) -> float:
    """The install's wall time in a job: the cache key, the cache restore and the install step."""
    return sum(t for name, t in runner.timings
               if name in ("Install cache key", "Restore the install cache", "Install reeljudge and promptfoo"))


def _comment_job(repo: Repo, run_id: str) -> list[dict]:
    """The workflow_run comment job for the gate run ``run_id``; the bot comments after it."""
    sha = _git(repo.repo, "rev-parse", run_id)
    state = json.loads(repo.state.read_text())
    state["pulls"]["7"]["head_sha"] = sha
    repo.state.write_text(json.dumps(state))
    workspace = repo.tmp / f"comment-{run_id}"
    workspace.mkdir()
    context = {"github.event_name": "workflow_run", "github.event.workflow_run.event": "pull_request",
               "github.event.workflow_run.id": run_id, "github.event.workflow_run.head_sha": sha, "github.token": ""}
    commenter = Runner(workspace, context, repo.gh / "runs" / run_id, repo.state, actions={ACTION: repo.action}, env=repo.env)
    job_file = yaml.safe_load((repo.repo / ".github" / "workflows" / "reeljudge-comment.yml").read_text())
    posted = commenter.run_job(job_file["jobs"]["comment"])
    assert not posted.failed, [s.output for s in posted.steps]
    return [c for c in json.loads(repo.state.read_text())["comments"] if c["user"]["type"] == "Bot"]


@pytest.fixture(scope="module")
def first_day(tmp_path_factory, sources, user_python):  # noqa: F811
    """A repository adopting the gate: the pull request that adds what init wrote (no baseline anywhere), then, merged,
    the first push to main. Runs with actions/cache played: {name: (job, workspace, output, install seconds)}."""
    tmp = tmp_path_factory.mktemp("first-day")
    repo = Repo(tmp, _adoption_repo(tmp / "reels", sources[2]), sources, cache=tmp / "actions-cache")
    _git(repo.repo, "checkout", "-q", "-b", "add-gate")
    proc = subprocess.run([str(user_python.parent / "reeljudge"), "init", str(repo.repo)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    _git(repo.repo, "add", "-A")
    _git(repo.repo, "commit", "-qm", "add reeljudge's gate (reeljudge init)")
    _git(repo.repo, "checkout", "-q", "main")
    runs = {}
    job, workspace, output = repo.run("add-gate", "pull_request", "add-gate")
    runs["add-gate"] = (job, workspace, output, _install_seconds(repo.last_runner))
    _git(repo.repo, "merge", "-q", "--ff-only", "add-gate")
    job, workspace, output = repo.run("main-1", "push")
    runs["main-1"] = (job, workspace, output, _install_seconds(repo.last_runner))
    assert not job.failed, output[-6000:]
    return repo, runs


def test_the_pull_request_that_adds_the_gate_is_green_without_a_baseline(first_day):
    repo, runs = first_day
    job, workspace, output, _ = runs["add-gate"]
    assert not job.failed, output[-6000:]
    report = json.loads((workspace / "reeljudge-gate" / "report.json").read_text())
    comment = (workspace / "reeljudge-gate" / "comment.md").read_text()
    assert report["verdict"] == "passed" and report["exit_code"] == 0
    assert [(s["name"], s["verdict"], s["baseline"]) for s in report["suites"]] == [
        ("ab", "passed", None), ("filmability", "passed", None), ("probes", "passed", None)]
    assert comment.splitlines()[1] == ("## reeljudge gate: ✅ passed — ab, filmability, probes: no baseline "
                                       "yet: judged by its own thresholds; the first push to main records it")
    assert "Baseline: none (no successful push run on main" in comment
    assert "passed (exit 0)" in output
    [posted] = _comment_job(repo, "add-gate")
    assert posted["body"] == comment
    main = repo.gh / "runs" / "main-1" / "reeljudge-results"  # the first push to main records the baseline
    assert sorted(p.name for p in main.glob("*.json")) == ["ab.json", "filmability.json", "probes.json"]


def _red(repo: Repo, name: str, change) -> tuple:
    """A pull request off main that fails before a verdict: (job, comment text, step summary, output)."""
    job, report, comment, output = repo.pull_request(name, change)
    summary = repo.last_runner.summary.read_text() if repo.last_runner.summary.exists() else ""
    assert job.failed and not report, output[-4000:]
    return job, comment, summary, output


def test_a_broken_config_is_red_and_the_comment_names_the_step_the_suite_and_the_line(first_day):
    repo, _ = first_day
    broken = lambda r: (r / "promptfooconfig.probes.yaml").write_text(  # noqa: E731
        (r / "promptfooconfig.probes.yaml").read_text().replace("providers:\n", "providers:\n  - [echo\n", 1))
    job, comment, summary, output = _red(repo, "broken-config", broken)
    said = next(s.output for s in job.steps if s.name == "the gate's outputs")
    assert "verdict=[failed: Evaluate the configs] exit-code=[1]" in said  # set by the failure explanation
    first = comment.splitlines()[1]
    assert first.startswith('## reeljudge gate: ❌ the step "Evaluate the configs" failed — probes: promptfooconfig.probes.yaml '
                            "does not parse: YAML"), comment
    assert re.search(r"at or just before line \d+, column \d+", first)  # where the parser noticed: a lost } is there or before
    assert "promptfoo exited 1 and wrote no complete results file" in first
    assert comment in summary  # the job summary says the same
    assert "--- Explain the failure: success" in output and "--- Keep the gate report and comment text: success" in output
    [posted] = _comment_job(repo, "broken-config")
    assert posted["body"] == comment


def test_a_suite_whose_every_test_errored_is_red_with_the_first_error_in_the_comment(first_day):
    repo, _ = first_day

    def down(r: Path) -> None:
        (r / "generator.js").write_text(THROWS)
        config = r / "promptfooconfig.filmability.yaml"
        config.write_text(config.read_text().replace("  - echo ", "  - file://generator.js ", 1))

    job, comment, summary, output = _red(repo, "all-errored", down)
    first = comment.splitlines()[1]
    assert first.startswith('## reeljudge gate: ❌ the step "Evaluate the configs" failed — filmability: every test (1) errored, '
                            "nothing was judged"), comment
    assert first.endswith("the first: Error: the upstream generator is down") and comment in summary  # no stack, no machine path
    [posted] = _comment_job(repo, "all-errored")
    assert posted["body"] == comment


def test_a_second_run_restores_the_install_and_does_not_reinstall(first_day):
    """The cache is checked by what it does (the measured times go to docs/gates.md, not into an assertion: the
    machine is shared)."""
    repo, runs = first_day
    job, workspace, output = repo.run("main-2", "push")
    assert not job.failed, output[-6000:]
    warm = _install_seconds(repo.last_runner)
    assert "restored reeljudge-install-v2-" in output and "(exact key) from refs_heads_main" in output
    assert "the cached virtualenv matches" in output and "installing reeljudge from" not in output
    assert "the cached node_modules matches" in output and "installing the project's npm packages" not in output
    steps = {name: round(t) for name, t in repo.last_runner.timings
             if name in ("Restore the install cache", "Install reeljudge and promptfoo")}
    cold = runs["main-1"][2]
    assert "cache miss: reeljudge-install-v2-" in cold and "installing reeljudge from --editable" in cold
    job, _workspace, output = repo.run("main-3", "push", inputs={"cache": "false"})  # before: no cache, as the action was
    assert not job.failed and "installing reeljudge from --editable" in output and "Restore the install cache: skipped" in output
    before = _install_seconds(repo.last_runner)
    print(f"\ninstall wall time: the adding pull request (cold) {runs['add-gate'][3]:.0f} s, "
          f"the first push to main (cold: a pull request's cache is its own) {runs['main-1'][3]:.0f} s; "
          f"a second run without the cache {before:.0f} s, "
          f"with it {warm:.0f} s ({steps})")

def test_a_python_patch_update_between_two_runs_is_green_rebuilt_and_cached_again(first_day):
    """setup-python's 3.11 moves to a new patch (a new folder on PATH, the old one gone). The key names the
    interpreter, so the run misses cleanly (restoring the old install, whose venv/bin/python dangles, would be red,
    and red again every run), installs afresh, saves; the run after restores that by its exact key."""
    repo, _runs = first_day
    old = repo.tools["actions/setup-python"]
    new = old.parent / "python-3.11.10" / "bin"
    new.parent.mkdir()
    old.rename(new)
    repo.tools["actions/setup-python"] = new
    try:
        job, _workspace, output = repo.run("main-patch", "push")
        assert not job.failed, output[-6000:]
        assert "cache miss: reeljudge-install-v2-" in output and "installing reeljudge from --editable" in output
        [saved] = [s.output for s in job.steps if s.name == "post: Restore the install cache"]
        assert saved.startswith("saved reeljudge-install-v2-"), saved
        recorded = repo.last_runner.summary.read_text()
        assert "## reeljudge gate: the baseline this run recorded — ab, filmability, probes" in recorded
        job, _workspace, output = repo.run("main-patch-2", "push")
        assert not job.failed, output[-6000:]
        assert "(exact key) from refs_heads_main" in output and "the cached virtualenv matches" in output
        assert "installing reeljudge from" not in output
    finally:
        new.rename(old)
        repo.tools["actions/setup-python"] = old


#: a term generator for eight narrations of different domains; the pull request's off-by-one bug
#: gives every narration the next one's terms (concrete, filmable, about something else)
GENERATOR = '''"""A term generator (a lookup table standing in for a model): narration in, B-roll search terms out."""
import json

SHOTS = [
    ("Marathon runners hit the wall around mile twenty, when their legs run out of fuel.",
     ["exhausted runner slowing down", "marathon runners on a city road", "runner grabbing an energy gel"]),
    ("Sear the steak in a hot cast-iron pan until a brown crust forms.",
     ["steak sizzling in cast-iron pan", "browned crust close-up", "chef pressing steak with tongs"]),
    ("Vaccines train the immune system to recognise a virus before you ever meet it.",
     ["nurse giving a vaccine injection", "syringe and vial", "child with bandage on arm"]),
    ("The Roman empire built roads that connected its provinces across Europe.",
     ["ancient stone road", "Roman soldiers marching reenactment", "old map of the Roman empire"]),
    ("The conductor lifts the baton and the orchestra begins the symphony.",
     ["conductor raising a baton", "violin section playing", "concert hall stage"]),
    ("Residents board up their windows as the hurricane approaches the coast.",
     ["man nailing plywood over a window", "palm trees bending in wind", "storm clouds over the coast"]),
    ("The jury returned its verdict after three days of deliberation.",
     ["jury box in a courtroom", "judge with a gavel", "lawyers outside the courthouse"]),
    ("Farmers race to bring in the wheat harvest before the autumn rain.",
     ["combine harvester in a wheat field", "grain pouring into a trailer", "golden wheat close-up"]),
]
OFFSET = 0


def call_api(prompt, options, context):
    narrations = [n for n, _ in SHOTS]
    i = narrations.index(prompt.strip())
    return {"output": json.dumps(SHOTS[(i + OFFSET) % len(SHOTS)][1])}
'''


def _generator_suite(repo: Path) -> list[str]:
    """Main's filmability suite judges the generator's terms for each narration (init's assertion, its keyless judge)."""
    (repo / "terms_generator.py").write_text(GENERATOR)
    path = repo / "promptfooconfig.filmability.yaml"
    suite = yaml.safe_load(path.read_text())
    namespace: dict = {}
    exec(compile(GENERATOR, "terms_generator.py", "exec"), namespace)
    narrations = [n for n, _ in namespace["SHOTS"]]
    suite.update(prompts=["{{narration}}"], providers=["file://terms_generator.py"],
                 tests=[{"description": f"narration {i + 1}", "vars": {"narration": n}} for i, n in enumerate(narrations)])
    path.write_text(yaml.safe_dump(suite, sort_keys=False))
    return [f"narration {i + 1}" for i in range(len(narrations))]


def test_a_generator_returning_another_narrations_terms_turns_the_keyless_gate_red_with_the_tests_listed(
        tmp_path_factory, sources, user_python):  # noqa: F811
    """The offline judge reads another narration's concrete terms as unrelated, so the tests fail on their
    own (not only a metric that moved) and the keyless gate lists them."""
    tmp = tmp_path_factory.mktemp("off-topic")
    repo = Repo(tmp, user_repo(tmp / "reels", user_python, sources[2], "--judges", "filmability"), sources)
    tests = _generator_suite(repo.repo)
    _git(repo.repo, "add", "-A")
    _git(repo.repo, "commit", "-qm", "our term generator")
    job, workspace, output = repo.run("main-gen", "push")
    assert not job.failed, output[-6000:]
    rows = json.loads((workspace / "reeljudge-results" / "filmability.json").read_text())["results"]["results"]
    assert len(rows) == len(tests) and all(r["success"] for r in rows), [r["gradingResult"]["reason"] for r in rows
                                                                         if not r["success"]]

    def off_by_one(r: Path) -> None:
        (r / "terms_generator.py").write_text(GENERATOR.replace("OFFSET = 0", "OFFSET = 1"))

    job, report, comment, output = repo.pull_request("off-by-one", off_by_one)
    assert job.failed and report["verdict"] == "regression" and report["exit_code"] == 1, output[-4000:]
    listed = [t["test"] for s in report["suites"] for f in s.get("flips", []) for t in f["tests"] if t["kind"] == "newly failing"]
    newly = [name.split(" [")[0] for name in listed]  # "narration 1 [python:terms_generator.py:default]": test and provider
    assert len(newly) >= len(tests) - 1 and set(newly) <= set(tests), listed  # the tests, not only a metric, say what broke
    assert all(name in comment for name in newly)
    # the same suite alone (its own evaluation in the pull request's job, no baseline): those tests fail on their own
    alone = json.loads((repo.tmp / "off-by-one" / "reeljudge-results" / "filmability.json").read_text())["results"]["results"]
    failing = {r["testCase"]["description"] for r in alone if not r["success"]}
    assert set(newly) <= failing and len(failing) >= len(tests) - 1
    reasons = " ".join(r["gradingResult"]["reason"] for r in alone if not r["success"])
    assert "relevance 0/3 is under min_relevance 1" in reasons
