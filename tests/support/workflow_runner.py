"""Running a GitHub Actions workflow's own steps on this machine, for tests.

Each ``run:`` step runs as GitHub runs it: its script written to a file in ``RUNNER_TEMP`` and run
by its ``shell:`` (``bash --noprofile --norc -eo pipefail {0}``, ``sh -e {0}``, ``python {0}``) in
its ``working-directory`` with the step's ``env:`` and GitHub's environment (``GITHUB_WORKSPACE``,
``RUNNER_TEMP``, ``GITHUB_ACTION_PATH``, a fresh ``GITHUB_OUTPUT`` file per step whose lines become
``steps.<id>.outputs.<name>``, ``GITHUB_ENV`` and ``GITHUB_PATH`` files whose lines reach the later
steps, ``GITHUB_STEP_SUMMARY``); ``${{ }}`` expressions (``inputs.*``, ``env.*``, ``steps.*``,
``github.*``, ``secrets.*`` from a context the test gives) are substituted, and an expression or
``if:`` the runner does not know fails the test instead of being guessed. A composite action (``uses: ./`` or a repository the
test names, e.g. this one as
``acme/reeljudge``) runs its own steps with its inputs. Other ``uses:`` steps are played by local equivalents: checkout and the
setup actions are
already done (the workspace is a copy of the project with its installed environments linked in;
``tools`` maps a setup action to the folder it puts first on ``PATH``),
``actions/cache`` is a no-op unless the runner is given a cache store, where it is played as the
service plays it (``_restore_cache``: scope, version, key, restore-keys, tar + zstd, a post-job
save on success), artifacts go to and come from a folder, and ``actions/github-script`` runs
its script under Node with the same arguments the action passes (``github``, ``context``,
``core``, ``require``), ``github`` being an in-memory stand-in for GitHub's REST API whose state
lives in a JSON file.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import yaml

from support.paths import ROOT

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
      get: async ({ pull_number }) => ({
        data: { number: pull_number, head: { sha: state.pulls[String(pull_number)].head_sha } } }),
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
  warning: (m) => console.log(`::warning::${m}`),
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
    seconds: float = 0.0  # wall time


@dataclass
class JobRun:
    steps: list[StepResult] = field(default_factory=list)
    outputs: dict[str, str] = field(default_factory=dict)  # a composite action's outputs

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
    """Plays one job of a workflow in ``workspace``.

    Args:
        workspace: the checked-out repository (the job's working directory).
        context: values of ``${{ }}`` expressions (``github.*``, ``secrets.*``).
        artifacts: the folder that holds artifacts, one subfolder per name (shared between jobs).
        github_state: the JSON file of the in-memory GitHub REST stand-in.
        actions: composite actions by ``owner/name`` (a repository folder holding ``action.yml``);
            ``./`` is the workspace itself.
        env: extra environment of every step (``GITHUB_REPOSITORY``, ``PATH`` with a stand-in ``gh``, …).
        cache: actions/cache's store (``_restore_cache``); None: actions/cache is a no-op.
        temp: ``RUNNER_TEMP`` (emptied when the job starts); default: a folder beside the workspace.
    """

    def __init__(self, workspace: Path, context: dict[str, str], artifacts: Path, github_state: Path,
                 actions: dict[str, Path] | None = None, env: dict[str, str] | None = None,
                 tools: dict[str, Path] | None = None, cache: Path | None = None, temp: Path | None = None) -> None:
        self.workspace, self.context, self.artifacts, self.github_state = workspace, context, artifacts, github_state
        self.summary = workspace.parent / f"{workspace.name}-step-summary.md"
        self.summary.unlink(missing_ok=True)  # a job starts with an empty summary
        self.actions = {"./": workspace, **(actions or {})}
        self.env = dict(env or {})
        self.tools = dict(tools or {})
        self.temp = temp or workspace.parent / f"{workspace.name}-runner-temp"  # GitHub's runners: one path, emptied per job
        self.files = self.temp / "_runner_file_commands"
        self._empty_temp()  # a new job: nothing left from an earlier one
        self.steps_outputs: dict[str, dict[str, str]] = {}  # steps.<id>.outputs of the steps list running now
        self._count = 0
        self.cache = cache  # the cache service's store, shared between jobs (None: actions/cache is a no-op)
        #: post-job steps (actions/cache's save), run after a job that succeeded: each named after its step, as GitHub's
        #: "Post <step name>" (one job can save two caches)
        self.post: list[tuple[str, Callable[[], str]]] = []
        self.timings: list[tuple[str, float]] = []  # every step run, at any depth (a composite's own steps too)

    def run_job(self, job: dict[str, Any], replace: dict[str, Callable[[Path], None]] | None = None) -> JobRun:
        """Every step in order with GitHub's rules: after a failure only ``always()`` and ``failure()`` steps run;
        then the post-job steps (actions/cache saves only after a job that succeeded: its ``post-if: success()``)."""
        run = self._run_steps(job["steps"], {}, None, replace)
        if not run.failed:
            for name, post in reversed(self.post):
                run.steps.append(StepResult(f"post: {name}", "success", post()))
        self._empty_temp()  # GitHub empties RUNNER_TEMP at a job's end too (a run's disk stays bounded)
        return run

    def _empty_temp(self) -> None:
        """``RUNNER_TEMP`` empty (what it held, the action's venv and promptfoo, is hundreds of MB a job), with the
        runner's own folder of file commands."""
        shutil.rmtree(self.temp, ignore_errors=True)
        self.temp.mkdir(parents=True)
        self.files.mkdir()

    def _run_steps(self, steps: list[dict], inputs: dict[str, str], action_path: Path | None,
                   replace: dict[str, Callable[[Path], None]] | None = None, outputs: dict[str, Any] | None = None) -> JobRun:
        run = JobRun()
        saved, self.steps_outputs = self.steps_outputs, {}  # each steps list (a job, a composite) has its own steps context
        try:
            for step in steps:
                name = step.get("name") or step.get("uses") or "step"
                if not self._should_run(step.get("if"), run.failed, inputs):
                    run.steps.append(StepResult(name, "skipped"))
                    continue
                if replace and name in replace:
                    replace[name](self.workspace)
                    run.steps.append(StepResult(name, "success", "replaced by the test"))
                    continue
                started = time.monotonic()
                ok, output, step_outputs = self._run_step(step, inputs, action_path)  # not ``outputs``: the composite's
                seconds = time.monotonic() - started
                self.timings.append((name, seconds))
                if "id" in step:
                    self.steps_outputs[step["id"]] = step_outputs
                if not ok and step.get("continue-on-error"):
                    ok = True
                run.steps.append(StepResult(name, "success" if ok else "failure", output, seconds))
            # a composite's outputs:
            run.outputs = {k: self._expand(v.get("value", ""), inputs) for k, v in (outputs or {}).items()}
            return run
        finally:
            self.steps_outputs = saved

    def _should_run(self, condition: str | None, failed: bool, inputs: dict[str, str]) -> bool:
        """``if:`` with the forms the workflows use: ``always()``, ``failure()`` (an earlier step of this steps
        list failed), ``a == 'x'``, ``a != 'x'``, joined by ``&&``."""
        if condition is None:
            return not failed
        terms = [t.strip() for t in str(condition).split("&&")]
        always = "always()" in terms
        if "failure()" in terms and not failed:
            return False
        for term in terms:
            if term in ("always()", "failure()"):
                continue
            match = re.fullmatch(r"([\w.-]+)\s*(==|!=)\s*'([^']*)'", term)
            if not match:
                raise AssertionError(f"the workflow runner does not know the condition {condition!r}")
            equal = self._lookup(match.group(1), inputs) == match.group(3)
            if equal != (match.group(2) == "=="):
                return False
        return always or "failure()" in terms or not failed

    def _lookup(self, expr: str, inputs: dict[str, str]) -> str:
        """One expression: ``inputs.x``, a context value, or ``a || b`` (the first that is not empty)."""
        if "||" in expr:
            return next((v for v in (self._lookup(part.strip(), inputs) for part in expr.split("||")) if v), "")
        if expr.startswith("inputs."):
            if expr[7:] not in inputs:
                raise AssertionError(f"the action has no input {expr[7:]!r}")
            return inputs[expr[7:]]
        if expr.startswith("env."):
            return self.env.get(expr[4:], "")
        step = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expr)
        if step:
            return self.steps_outputs.get(step.group(1), {}).get(step.group(2), "")
        if expr not in self.context:
            raise AssertionError(f"the workflow runner has no value for ${{{{ {expr} }}}}")
        return self.context[expr]

    def _expand(self, text: str, inputs: dict[str, str] | None = None) -> str:
        return _EXPR.sub(lambda m: self._lookup(m.group(1), inputs or {}), str(text))

    def _run_step(self, step: dict[str, Any], inputs: dict[str, str],
                  action_path: Path | None) -> tuple[bool, str, dict[str, str]]:
        """One step: (succeeded, its output, its outputs)."""
        self._count += 1
        files = {name: self.files / f"{name.lower()}_{self._count}" for name in ("GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH")}
        for path in files.values():
            path.touch()
        env = {**os.environ, "GITHUB_STEP_SUMMARY": str(self.summary), "CI": "true", "GITHUB_ACTIONS": "true",
               "RUNNER_TEMP": str(self.temp),
               "GITHUB_WORKSPACE": str(self.workspace), **{k: str(v) for k, v in files.items()}, **self.env,
               **({"GITHUB_ACTION_PATH": str(action_path)} if action_path else {}),
               **{k: self._expand(v, inputs) for k, v in (step.get("env") or {}).items()}}
        for key in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "GH_TOKEN"):
            if not env.get(key):
                env.pop(key, None)
        if "run" in step:
            ok, output = self._script(step, inputs, env)
            outputs: dict[str, str] = {}
        else:
            ok, output, outputs = self._uses_step(step, inputs, env)
        self._file_commands(files)
        if "run" in step:
            outputs = _key_values(files["GITHUB_OUTPUT"].read_text())
        return ok, output, outputs

    def _script(self, step: dict[str, Any], inputs: dict[str, str], env: dict[str, str]) -> tuple[bool, str]:
        """A ``run:`` step: its script in a file under RUNNER_TEMP, run by its shell in its working directory."""
        if _EXPR.search(step["run"]):
            raise AssertionError(f"step {step.get('name')!r}: expressions in run: scripts invite injection; use env:")
        shell = step.get("shell", "bash")
        if shell not in _SHELLS:
            raise AssertionError(f"the workflow runner does not know the shell {shell!r}")
        script = self.temp / f"step-{self._count}{'.py' if shell == 'python' else '.sh'}"
        script.write_text(step["run"])
        cwd = self.workspace / self._expand(step.get("working-directory", "."), inputs)
        proc = subprocess.run([part.replace("{0}", str(script)) for part in _SHELLS[shell]], cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=1800)
        return proc.returncode == 0, proc.stdout + proc.stderr

    def _uses_step(self, step: dict[str, Any], inputs: dict[str, str], env: dict[str, str]) -> tuple[bool, str, dict[str, str]]:
        """A ``uses:`` step: a composite action the test named, or a local play of a public action."""
        uses = step["uses"].split("@")[0]
        given = {k: self._expand(v, inputs) for k, v in (step.get("with") or {}).items()}
        if uses == "actions/cache" and self.cache is not None:
            return self._restore_cache(given, self.cache, step.get("name") or step["uses"])
        if uses in self.actions:  # the step's env: reaches the action's own steps, as on GitHub
            step_env = {k: self._expand(v, inputs) for k, v in (step.get("env") or {}).items()}
            saved, self.env = self.env, {**self.env, **step_env}
            try:
                return self._composite(self.actions[uses], given)
            finally:
                self.env = {**saved, **{k: v for k, v in self.env.items() if k not in step_env}}  # GITHUB_ENV lines stay
        ok, output = self._uses(uses, given, env)
        return ok, output, {}

    def _restore_cache(self, given: dict[str, str], store: Path, name: str) -> tuple[bool, str, dict[str, str]]:
        """actions/cache as its service plays it: an entry is (scope, version, key), the version a hash of the paths
        and the compression; a run reads its own ref's scope, then the default branch's; the exact key first, then
        the newest entry whose key starts with a restore key; a restored path replaces what is there (tar + zstd,
        absolute paths kept). The save is a post-job step: after a job that succeeded, when no entry had the exact
        key, the paths are archived under the run's scope (an existing key is never overwritten)."""
        paths = [p.strip() for p in given["path"].splitlines() if p.strip()]
        key = given["key"]
        restore = [k.strip() for k in given.get("restore-keys", "").splitlines() if k.strip()]
        version = hashlib.sha256(("\n".join(paths) + "|zstd").encode()).hexdigest()[:16]
        scope = self.context.get("github.ref", "")
        default = f"refs/heads/{self.context.get('github.event.repository.default_branch', 'main')}"
        folder = lambda s: store / re.sub(r"[^\w.-]", "_", s) / version  # noqa: E731
        found = next((folder(s) / f"{key}.tar.zst" for s in (scope, default) if (folder(s) / f"{key}.tar.zst").is_file()), None)
        exact = found is not None
        for s in (scope, default):
            if found is None:
                near = [p for p in folder(s).glob("*.tar.zst") if any(p.name.startswith(r) for r in restore)]
                found = max(near, key=lambda p: p.stat().st_mtime, default=None)
        said = f"cache miss: {key}"
        if found is not None:
            for path in paths:
                shutil.rmtree(path, ignore_errors=True)
            subprocess.run(["tar", "--use-compress-program", "zstd -d -T0", "-xPf", str(found)], check=True, capture_output=True)
            said = (f"restored {found.stem.removesuffix('.tar')} ({'exact key' if exact else 'a restore key'}) from "
                    f"{found.parent.parent.name}")

        def save() -> str:
            target = folder(scope) / f"{key}.tar.zst"
            if exact or target.exists():
                return f"not saved: {key} is already in the cache"
            existing = [p for p in paths if Path(p).exists()]
            target.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run(["tar", "--use-compress-program", "zstd -T0", "-cPf", str(target), *existing],
                           check=True, capture_output=True)
            return f"saved {key} ({target.stat().st_size // 1_000_000} MB) under {scope}"

        self.post.append((name, save))
        return True, said, {"cache-hit": "true" if exact else "false"}

    def _file_commands(self, files: dict[str, Path]) -> None:
        """GITHUB_ENV lines become the later steps' environment; GITHUB_PATH lines go first on their PATH."""
        self.env.update(_key_values(files["GITHUB_ENV"].read_text()))
        for folder in files["GITHUB_PATH"].read_text().splitlines()[::-1]:
            if folder.strip():
                self.env["PATH"] = f"{folder.strip()}:{self.env.get('PATH', os.environ['PATH'])}"

    def _composite(self, path: Path, given: dict[str, str]) -> tuple[bool, str, dict[str, str]]:
        """A composite action: its inputs from ``with:`` over its defaults, its steps with its own path."""
        action = yaml.safe_load((path / "action.yml").read_text())
        assert action["runs"]["using"] == "composite"
        unknown = set(given) - set(action["inputs"])
        if unknown:
            raise AssertionError(f"{path.name}/action.yml has no input(s) {sorted(unknown)}")
        inputs = {k: str(given[k]) if k in given else self._expand(str(v.get("default", "")), {}) for k,
                  v in action["inputs"].items()}
        run = self._run_steps(action["runs"]["steps"], inputs, path, outputs=action.get("outputs"))
        return not run.failed, "\n".join(f"--- {s.name}: {s.outcome} ({s.seconds:.1f} s)\n{s.output}"
                                         for s in run.steps), run.outputs

    def _uses(self, action: str, inputs: dict[str, str], env: dict[str, str]) -> tuple[bool, str]:
        if action in self.tools:  # a setup action: its tool first on PATH for the later steps
            self.env["PATH"] = f"{self.tools[action]}:{self.env.get('PATH', os.environ['PATH'])}"
            return True, f"{action}: {self.tools[action]} first on PATH"
        if action in ("actions/checkout", "actions/setup-python", "actions/setup-node", "actions/cache"):
            return True, f"{action}: done by the workspace"
        if action == "actions/upload-artifact":
            target = self.artifacts / inputs["name"]
            shutil.rmtree(target, ignore_errors=True)
            pattern = inputs["path"].rstrip("/")
            while pattern.startswith("./"):
                pattern = pattern[2:]
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


_SHELLS = {"bash": ["bash", "--noprofile", "--norc", "-eo", "pipefail", "{0}"], "sh": ["sh", "-e", "{0}"],
           "python": ["python3", "{0}"]}


def _key_values(text: str) -> dict[str, str]:
    """The ``name=value`` and ``name<<DELIMITER`` lines of a GITHUB_OUTPUT / GITHUB_ENV file."""
    values, lines = {}, iter(text.splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            body = []
            for more in lines:
                if more == delimiter:
                    break
                body.append(more)
            values[name] = "\n".join(body)
        elif "=" in line:
            name, value = line.split("=", 1)
            values[name] = value
    return values


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
