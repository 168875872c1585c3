"""The gate workflow's own steps, run locally on fixture results (tests/support/workflow_runner.py).

A pull request first pushes a planted regression on one metric: the gate fails, and the one PR
comment shows the regressed metric with its interval. A later push has noise only: the gate
passes, and the same comment is updated. The "Run the suites" step is the only one replaced: it
writes fixture results instead of running promptfoo; every other step runs as in the workflow.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from reeljudge.gates.markdown import MARKER
from support.results_fixtures import RunSpec, write_results
from support.workflow_runner import Runner, load_workflow, make_workspace, new_github_state, push

pytestmark = pytest.mark.slow  # runs the workflow harness

PR = 7
GATE = "Gate (the reusable action of this repository, action.yml)"
VIDEO = ("probe_flicker", "probe_frozen")


def _gate_context(sha: str, run_id: str) -> dict[str, str]:
    return {
        "github.event_name": "pull_request",
        "github.run_id": run_id,
        "github.token": "token-read-only",  # gh finds no push run yet: the baseline is the committed baselines/ folder
        "github.base_ref": "main",
        "secrets.GEMINI_API_KEY": "",  # a fork pull request: no key
        "github.event.pull_request.number": str(PR),
        "github.event.pull_request.head.sha": sha,
        "github.event.repository.default_branch": "main",
    }


def _gh_without_push_runs(folder: Path) -> dict[str, str]:
    """The environment of a ``gh`` whose look-up succeeds and finds no successful push run (only an empty answer lets
    the committed folder be the baseline; a failed look-up is "could not compare")."""
    folder.mkdir(parents=True, exist_ok=True)
    gh = folder / "gh"
    gh.write_text('#!/usr/bin/env bash\n[ "$1 $2" = "run list" ] && exit 0\necho "gh stand-in: $*" >&2; exit 1\n')
    gh.chmod(0o755)
    return {"PATH": f"{folder}{os.pathsep}{os.environ['PATH']}", "GITHUB_REPOSITORY": "acme/reeljudge",
            "GITHUB_WORKFLOW_REF": "acme/reeljudge/.github/workflows/reeljudge-gate.yml@refs/pull/7/merge"}


def _comment_context(sha: str, run_id: str) -> dict[str, str]:
    return {
        "github.event_name": "workflow_run",
        "github.event.workflow_run.event": "pull_request",
        "github.event.workflow_run.id": run_id,
        "github.event.workflow_run.head_sha": sha,
        "github.token": "",
    }


def _suites(effects: dict[str, float], seed: int):
    def write(workspace: Path) -> None:
        write_results(workspace / "results" / "filmability.json", RunSpec(seed=seed, effects=effects))
        write_results(workspace / "results" / "video.json", RunSpec(seed=seed, metrics=VIDEO, providers=("clips",)))
        (workspace / "results" / ".gate-notes").write_text("Judge cache mode: offline suites only (fixture results).\n")

    return write


def _push_and_gate(tmp_path: Path, name: str, sha: str, effects: dict[str, float], seed: int, state: Path):
    workspace = make_workspace(tmp_path / name)
    write_results(workspace / "baselines" / "filmability.json", RunSpec(seed=1))
    write_results(workspace / "baselines" / "video.json", RunSpec(seed=1, metrics=VIDEO, providers=("clips",)))
    artifacts = tmp_path / f"{name}-artifacts"
    runner = Runner(workspace, _gate_context(sha, name), artifacts, state, env=_gh_without_push_runs(tmp_path / "gh"))
    gate = runner.run_job(load_workflow("reeljudge-gate.yml")["jobs"]["gate"], replace={"Run the suites": _suites(effects, seed)})
    commenter = Runner(make_workspace(tmp_path / f"{name}-comment"), _comment_context(sha, name), artifacts, state)
    comment = commenter.run_job(load_workflow("reeljudge-gate-comment.yml")["jobs"]["comment"])
    return workspace, artifacts, runner, gate, comment


def _bot_comments(state: Path) -> list[dict]:
    return [c for c in json.loads(state.read_text())["comments"] if c["user"]["type"] == "Bot"]


def test_regression_fails_the_gate_then_noise_passes_and_the_one_comment_is_updated(tmp_path):
    state = tmp_path / "github.json"
    new_github_state(state, PR, "a" * 40)

    workspace, artifacts, runner, gate, comment = _push_and_gate(
        tmp_path, "push1", "a" * 40, {"film_relevance": -0.08}, seed=2, state=state)
    setup = gate.step("Set up (the project's own set-up)")
    assert setup.outcome == "success", setup.output
    action = gate.step(GATE)
    assert action.outcome == "failure", action.output  # exit 1: the gate fails the pull request
    assert "--- Fetch the baseline: success" in action.output and "--- Compare with the baseline: success" in action.output
    assert "--- Keep the gate report and comment text: success" in action.output  # kept before the verdict fails the job
    assert "--- The verdict: failure" in action.output and "regression (exit 1: the job fails)" in action.output
    assert sorted(p.name for p in (artifacts / "reeljudge-results").iterdir()) == ["filmability.json", "video.json"]
    assert not comment.failed, [s.output for s in comment.steps]

    report = json.loads((workspace / "reeljudge-gate" / "report.json").read_text())
    film = next(s for s in report["suites"] if s["name"] == "filmability")
    regressed = [m for m in film["metrics"] if m["verdict"] == "regression"]
    assert {m["metric"] for m in regressed} >= {"film_relevance"}
    assert not [m for m in next(s for s in report["suites"] if s["name"] == "video")["metrics"] if m["verdict"] != "ok"]
    relevance = next(m for m in regressed if m["metric"] == "film_relevance")["difference"]

    [posted] = _bot_comments(state)
    body = posted["body"]
    assert (body.startswith(MARKER)
            and body.splitlines()[1].startswith("## reeljudge gate: ❌ regression — filmability: `film_relevance`"))
    interval = f"[{relevance['low']:+.3f}, {relevance['high']:+.3f}]".replace("-", "−")
    row = next(line for line in body.splitlines() if "`film_relevance`" in line)
    assert interval in row and "❌ regression" in row  # the comment shows the interval
    assert "Baseline: the committed baselines/ folder." in body and f"Candidate: {'a' * 40}." in body
    assert "Judge cache mode: offline suites only" in body  # the suites step's note, carried by the action
    assert body in runner.summary.read_text()  # the job summary has the same text

    push(state, PR, "b" * 40)  # a later push with noise only
    _, _, _, gate2, comment2 = _push_and_gate(tmp_path, "push2", "b" * 40, {}, seed=3, state=state)
    assert not gate2.failed, [(s.name, s.output[-2000:]) for s in gate2.steps if s.outcome == "failure"]
    assert not comment2.failed
    [updated] = _bot_comments(state)  # still one comment, updated in place
    assert updated["id"] == posted["id"] and updated["updated"] == 1
    assert (updated["body"].splitlines()[1].startswith("## reeljudge gate: ✅ passed")
            and f"Candidate: {'b' * 40}." in updated["body"])
    human = json.loads(state.read_text())["comments"][0]
    assert human["user"]["type"] == "User" and "updated" not in human  # a quoted marker in a human comment is left alone


def test_a_stale_run_does_not_overwrite_the_comment_of_a_newer_push(tmp_path):
    state = tmp_path / "github.json"
    new_github_state(state, PR, "c" * 40)  # the pull request already moved on to c...
    _, _, _, gate, comment = _push_and_gate(tmp_path, "old", "a" * 40, {"film_relevance": -0.08}, seed=2, state=state)
    assert gate.failed and not comment.failed
    assert "is now at" in comment.step("Post or update the one comment").output
    assert _bot_comments(state) == []
