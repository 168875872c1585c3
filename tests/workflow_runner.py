"""Running a GitHub Actions workflow's own steps on this machine, for tests.

Each ``run:`` step runs as GitHub runs it (``bash --noprofile --norc -eo pipefail``) in a
workspace folder with the step's ``env:``; ``${{ }}`` expressions are looked up in a context the
test gives, and an expression or ``if:`` the runner does not know fails the test instead of being
guessed. ``uses:`` steps are played by local equivalents: checkout and the setup actions are
already done (the workspace is a copy of the project with its installed environments linked in),
the cache is a no-op, artifacts go to and come from a folder, and ``actions/github-script`` runs
its script under Node with the same arguments the action passes (``github``, ``context``,
``core``, ``require``), ``github`` being an in-memory stand-in for GitHub's REST API whose state
lives in a JSON file.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import yaml

ROOT = Path(__file__).resolve().parents[1]
_EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
_LINKED = (".venv", "node_modules", ".tools", "compat/promptfoo-latest/node_modules")

FAKE_GITHUB = r"""
const fs = require('fs');
const statePath = process.env.FAKE_GITHUB_STATE;
const state = JSON.parse(fs.readFileSync(statePath, 'utf8'));
const save = () => fs.writeFileSync(statePath, JSON.stringify(state, null, 2));
const github = {
  rest: {
    pulls: {
      get: async ({ pull_number }) => ({ data: { number: pull_number, head: { sha: state.pulls[String(pull_number)].head_sha } } }),
    },
    issues: {
      listComments: async ({ issue_number }) => ({ data: state.comments.filter((c) => c.issue_number === issue_number) }),
      createComment: async ({ issue_number, body }) => {
        const made = { id: state.next_id++, issue_number, body, user: { login: 'github-actions[bot]', type: 'Bot' } };
        state.comments.push(made); save(); return { data: made };
      },
      updateComment: async ({ comment_id, body }) => {
        const found = state.comments.find((c) => c.id === comment_id);
        if (!found) throw new Error(`no comment ${comment_id}`);
        found.body = body; found.updated = (found.updated || 0) + 1; save(); return { data: found };
      },
    },
  },
  paginate: async (method, params) => (await method(params)).data,
};
const context = { repo: { owner: 'acme', repo: 'reels' } };
const core = {
  info: (m) => console.log(m),
  setFailed: (m) => { console.log(`::error::${m}`); process.exitCode = 1; },
};
const script = fs.readFileSync(process.env.GITHUB_SCRIPT_FILE, 'utf8');
const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
new AsyncFunction('github', 'context', 'core', 'require', script)(github, context, core, require)
  .catch((e) => { console.log(`::error::${e.stack}`); process.exitCode = 1; });
"""


@dataclass
class StepResult:
    name: str
    outcome: str  # success | failure | skipped
    output: str = ""


@dataclass
class JobRun:
    steps: list[StepResult] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return any(s.outcome == "failure" for s in self.steps)

    def step(self, name: str) -> StepResult:
        return next(s for s in self.steps if s.name == name)


def load_workflow(name: str) -> dict[str, Any]:
    """A workflow file as data (PyYAML reads the ``on:`` key as True; keep it as 'on')."""
    data = yaml.safe_load((ROOT / ".github" / "workflows" / name).read_text())
    if True in data:
        data["on"] = data.pop(True)
    return data


def make_workspace(folder: Path) -> Path:
    """A copy of the project's files (tracked and new, not ignored) with its installs linked in."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True, check=True)
    for rel in files.stdout.splitlines():
        src = ROOT / rel
        if src.is_file():
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, folder / rel)
    for rel in _LINKED:
        if (ROOT / rel).exists():
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).symlink_to(ROOT / rel)
    return folder


class Runner:
    """Plays one job of a workflow in ``workspace``."""

    def __init__(self, workspace: Path, context: dict[str, str], artifacts: Path, github_state: Path) -> None:
        self.workspace, self.context, self.artifacts, self.github_state = workspace, context, artifacts, github_state
        self.summary = workspace.parent / f"{workspace.name}-step-summary.md"

    def run_job(self, job: dict[str, Any], replace: dict[str, Callable[[Path], None]] | None = None) -> JobRun:
        """Every step in order with GitHub's rules: after a failure only ``always()`` steps run."""
        run = JobRun()
        for step in job["steps"]:
            name = step.get("name") or step.get("uses") or "step"
            if not self._should_run(step.get("if"), run.failed):
                run.steps.append(StepResult(name, "skipped"))
                continue
            if replace and name in replace:
                replace[name](self.workspace)
                run.steps.append(StepResult(name, "success", "replaced by the test"))
                continue
            ok, output = self._run_step(step)
            if not ok and step.get("continue-on-error"):
                ok = True
            run.steps.append(StepResult(name, "success" if ok else "failure", output))
        return run

    def _should_run(self, condition: str | None, failed: bool) -> bool:
        if condition is None:
            return not failed
        known = {
            "github.event_name == 'pull_request'": self.context["github.event_name"] == "pull_request",
            "always() && github.event_name == 'pull_request'": self.context["github.event_name"] == "pull_request",
            "github.event.workflow_run.event == 'pull_request'": self.context.get("github.event.workflow_run.event") == "pull_request",
        }
        if condition not in known:
            raise AssertionError(f"the workflow runner does not know the condition {condition!r}")
        return known[condition] and (not failed or condition.startswith("always()"))

    def _expand(self, text: str) -> str:
        def value(match: re.Match) -> str:
            expr = match.group(1)
            if expr not in self.context:
                raise AssertionError(f"the workflow runner has no value for ${{{{ {expr} }}}}")
            return self.context[expr]

        return _EXPR.sub(value, str(text))

    def _run_step(self, step: dict[str, Any]) -> tuple[bool, str]:
        env = {**os.environ, "GITHUB_STEP_SUMMARY": str(self.summary), "CI": "true",
               **{k: self._expand(v) for k, v in (step.get("env") or {}).items()}}
        for key in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "GH_TOKEN"):
            if not env.get(key):
                env.pop(key, None)
        if "run" in step:
            if _EXPR.search(step["run"]):
                raise AssertionError(f"step {step.get('name')!r}: expressions in run: scripts invite injection; use env:")
            proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
                                  cwd=self.workspace, env=env, capture_output=True, text=True, timeout=900)
            return proc.returncode == 0, proc.stdout + proc.stderr
        return self._uses(step["uses"].split("@")[0], {k: self._expand(v) for k, v in (step.get("with") or {}).items()}, env)

    def _uses(self, action: str, inputs: dict[str, str], env: dict[str, str]) -> tuple[bool, str]:
        if action in ("actions/checkout", "actions/setup-python", "actions/setup-node", "actions/cache"):
            return True, f"{action}: done by the workspace"
        if action == "actions/upload-artifact":
            target = self.artifacts / inputs["name"]
            shutil.rmtree(target, ignore_errors=True)
            pattern = inputs["path"].rstrip("/")
            matched = sorted(self.workspace.glob(pattern))
            if not matched and inputs.get("if-no-files-found") == "error":
                return False, f"no files match {inputs['path']}"
            target.mkdir(parents=True)
            for path in matched:
                if path.is_dir():
                    shutil.copytree(path, target, dirs_exist_ok=True)
                else:
                    shutil.copy2(path, target / path.name)
            return True, f"uploaded {len(matched)} path(s) as {inputs['name']}"
        if action == "actions/download-artifact":
            source = self.artifacts / inputs["name"]
            if not source.exists():
                return False, f"no artifact {inputs['name']}"
            shutil.copytree(source, self.workspace / inputs["path"], dirs_exist_ok=True)
            return True, "downloaded"
        if action == "actions/github-script":
            script = self.workspace.parent / f"{self.workspace.name}-script.js"
            script.write_text(inputs["script"])
            runner = self.workspace.parent / "fake-github.js"
            runner.write_text(FAKE_GITHUB)
            proc = subprocess.run(["node", str(runner)], cwd=self.workspace, capture_output=True, text=True, timeout=60,
                                  env={**env, "GITHUB_SCRIPT_FILE": str(script), "FAKE_GITHUB_STATE": str(self.github_state)})
            return proc.returncode == 0, proc.stdout + proc.stderr
        raise AssertionError(f"the workflow runner cannot play {action}")


def new_github_state(path: Path, pr: int, head_sha: str) -> None:
    """A pull request with one human comment that quotes the gate's marker (it must stay untouched)."""
    path.write_text(json.dumps({
        "pulls": {str(pr): {"head_sha": head_sha}},
        "comments": [{"id": 1, "issue_number": pr, "user": {"login": "dev", "type": "User"},
                      "body": "<!-- reeljudge-gate --> quoting the bot: is this a regression?"}],
        "next_id": 100,
    }))


def push(path: Path, pr: int, head_sha: str) -> None:
    """A later push to the pull request: its head moves."""
    state = json.loads(path.read_text())
    state["pulls"][str(pr)]["head_sha"] = head_sha
    path.write_text(json.dumps(state))
