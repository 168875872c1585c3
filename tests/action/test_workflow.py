"""The shipped GitHub Actions workflows and the reusable action pass a maintained linter (zizmor, from PyPI) and keep their
promises."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from reeljudge.gates.markdown import MARKER
from support.workflow_runner import ROOT, load_workflow

WORKFLOWS = ROOT / ".github" / "workflows"
ACTION = ROOT / "action.yml"
ZIZMOR = Path(ROOT / ".venv" / "bin" / "zizmor")
SHA_PIN = re.compile(r"^[\w.-]+/[\w.-]+@[0-9a-f]{40}$")


def _zizmor(*paths: Path) -> subprocess.CompletedProcess:
    assert ZIZMOR.exists(), "zizmor is installed by set-up (test extra); run npm test"
    return subprocess.run([str(ZIZMOR), "--offline", "--pedantic", "--strict-collection", "--no-progress", "--color",
                           "never", *map(str, paths)],
                          capture_output=True, text=True, timeout=120)


def _action() -> dict:
    import yaml

    return yaml.safe_load(ACTION.read_text())


def test_the_workflows_and_the_action_have_no_findings_at_pedantic_level():
    proc = _zizmor(WORKFLOWS, ACTION)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "No findings to report" in proc.stdout + proc.stderr


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (("runs-on: ubuntu-24.04", "runs-onn: ubuntu-24.04"), "'runs-onn' was unexpected"),
        (("actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1", "actions/checkout@v7"), "unpinned-uses"),
        (("permissions: {}", "permissions: write-all"), "excessive-permissions"),
        (("  pull_request:", "  pull_request_target:"), "dangerous-triggers"),
        (("run: bash scripts/gate.sh suites", "run: echo ${{ github.event.pull_request.title }}"), "template-injection"),
    ],
)
def test_the_linter_catches_a_broken_copy(tmp_path, change, expected):
    broken = tmp_path / ".github" / "workflows"
    broken.mkdir(parents=True)
    text = (WORKFLOWS / "reeljudge-gate.yml").read_text()
    assert change[0] in text
    (broken / "reeljudge-gate.yml").write_text(text.replace(change[0], change[1]))
    proc = _zizmor(broken / "reeljudge-gate.yml")
    assert proc.returncode != 0 and expected in proc.stdout + proc.stderr


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (('run: bash "$GITHUB_ACTION_PATH/action/gate.sh" compare',
          "run: echo ${{ github.event.pull_request.title }}"), "template-injection"),
        (("actions/github-script@ed597411d8f924073f98dfc5c65a23a2325f34cd # v8.0.0",
          "actions/github-script@main"), "unpinned-uses"),
    ],
)
def test_the_linter_catches_a_broken_copy_of_the_action(tmp_path, change, expected):
    text = ACTION.read_text()
    assert change[0] in text
    (tmp_path / "action.yml").write_text(text.replace(change[0], change[1]))
    proc = _zizmor(tmp_path / "action.yml")
    assert proc.returncode != 0 and expected in proc.stdout + proc.stderr


def _steps(workflow: dict, job: str) -> list[dict]:
    return workflow["jobs"][job]["steps"]


def test_every_action_is_pinned_by_sha_with_its_version_noted():
    uses = [(path, line) for path in [*WORKFLOWS.glob("*.yml"), ACTION] for line in path.read_text().splitlines()
            if "uses:" in line and "uses: ./ " not in line]
    assert {path for path, _ in uses} >= {ACTION, WORKFLOWS / "reeljudge-gate.yml"}, uses  # the lines to check were found
    for path, line in uses:
        ref, _, comment = line.split("uses:", 1)[1].strip().partition(" # ")
        assert SHA_PIN.match(ref) and re.match(r"v\d+\.\d+\.\d+$", comment), f"{path.name}: {line.strip()}"


def test_the_gate_workflow_uses_the_projects_own_setup_cache_and_scripts():
    gate = load_workflow("reeljudge-gate.yml")
    assert set(gate["on"]) == {"pull_request", "push"}  # never pull_request_target
    assert gate["permissions"] == {} and gate["jobs"]["gate"]["permissions"] == {"contents": "read", "actions": "read"}
    steps = {s["name"]: s for s in _steps(gate, "gate")}
    assert steps["Set up (the project's own set-up)"]["run"] == "bash scripts/setup.sh"
    assert steps["Restore the judge cache"]["with"]["path"] == ".reeljudge/cache"
    assert steps["Run the suites"]["run"] == "bash scripts/gate.sh suites"
    assert steps["Run the suites"]["env"] == {"GEMINI_API_KEY": "${{ secrets.GEMINI_API_KEY }}"}
    secret_steps = [s["name"] for s in _steps(gate, "gate") if "secrets." in str(s)]
    assert secret_steps == ["Run the suites"]  # the key reaches nothing else
    action = steps["Gate (the reusable action of this repository, action.yml)"]
    assert (action["uses"] == "./" and action["with"]["reeljudge-spec"] == "preinstalled"
            and action["with"]["results-dir"] == "results")
    inputs = _action()["inputs"]
    assert set(action["with"]) <= set(inputs) and inputs["artifact-name"]["default"] == "reeljudge-results"
    text = (ROOT / "action" / "gate.sh").read_text()
    # baseline = this workflow's artifact
    assert 'artifact="${INPUT_ARTIFACT_NAME:-reeljudge-results}"' in text and '--name "$artifact"' in text
    assert "GITHUB_WORKFLOW_REF" in text


def test_the_comment_workflow_uses_the_action_in_comment_mode_and_finds_its_comment_by_the_marker():
    gate, comment = load_workflow("reeljudge-gate.yml"), load_workflow("reeljudge-gate-comment.yml")
    assert comment["on"]["workflow_run"]["workflows"] == [gate["name"]]
    job = comment["jobs"]["comment"]
    assert job["permissions"] == {"actions": "read", "pull-requests": "write"}
    checkout = next(s for s in job["steps"] if "actions/checkout" in str(s.get("uses")))
    assert "ref" not in checkout.get("with", {}) and checkout["with"]["persist-credentials"] is False  # the default branch only
    assert next(s for s in job["steps"] if s.get("uses") == "./")["with"] == {"mode": "comment"}
    steps = _action()["runs"]["steps"]
    script = next(s for s in steps if "github-script" in s.get("uses", ""))["with"]["script"]
    assert f"const marker = '{MARKER}';" in script
    upload = next(s for s in steps if s["name"] == "Keep the gate report and comment text")
    download = next(s for s in steps if "download-artifact" in s.get("uses", ""))
    assert upload["with"]["name"] == download["with"]["name"] == "reeljudge-gate-report"
    assert download["if"] == "inputs.mode == 'comment'" and upload["if"].startswith("always() && inputs.mode == 'gate'")


def test_node_runs_the_comment_script_syntax():
    script = next(s for s in _action()["runs"]["steps"] if "github-script" in s.get("uses", ""))["with"]["script"]
    node = shutil.which("node")
    wrapped = f"(async function (github, context, core, require) {{\n{script}\n}});"
    proc = subprocess.run([node, "--check", "-"], input=wrapped, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
