"""The eval and viewer commands ``reeljudge init`` prints (the README's and docs/install.md's) connect to nothing but
the judge API the user configured, on the promptfoo under test (REELJUDGE_PROMPTFOO: pinned or latest).

A user's project from the built wheel and npm tarball (``user_project.py``), ``reeljudge init`` run in it, and its
printed lines run by bash as written: the ``export`` line, then an eval or the viewer. Nothing else sets promptfoo's
switches (the test's own ``PROMPTFOO_DISABLE_*`` and ``NODE_OPTIONS`` are removed). Every proxy variable names a
recording proxy on 127.0.0.1 (``GoogleProxy``, which tunnels to no host here), so each connection promptfoo's Node
tries to a host outside the machine is counted there; loopback is exempt, so the Gecko judge reaches the fake Gemini
server it is configured with. The viewer's page is opened in headless Chromium, whose every request to another
origin than the viewer's is recorded and aborted. Today's main sent, on both releases, a "telemetry disabled" event
to r.promptfoo.app from each command, asked api.promptfoo.dev for the newest release, and its page loaded PostHog
from a.promptfoo.app; its viewer command (``npx promptfoo view``) could not be stopped by the PID it started.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Iterator

import pytest

from support.ab_study import CHROMIUM, CHROMIUM_ARGS, free_port
from support.fake_gemini import FakeGemini
from support.gecko_scripts import script_prompt
from support.google_proxy import GOOGLE_HOST, GoogleProxy, make_tls
from support.user_project import artifacts, promptfoo_project, user_env, user_python  # noqa: F401

pytestmark = pytest.mark.e2e

STARTER_PROMPT = "A red ball rolls past a textured wall"  # the starters' example prompt
#: the evals run: one judged offline, one by the (fake) Gemini judge API
EVALS = ("filmability", "gecko")
#: the viewer's pages a reader opens (the evals' list, the latest eval, prompts, datasets, history)
PAGES = ("/", "/eval", "/evals", "/prompts", "/datasets", "/history")
PROXY_VARS = ("http_proxy", "https_proxy", "all_proxy")


def init_lines(project: Path, python: Path) -> dict[str, Any]:
    """``reeljudge init`` in the project; its printed commands: the export line, the eval line per judge, the viewer's."""
    said = subprocess.run([str(python.parent / "reeljudge"), "init", str(project)], capture_output=True, text=True,
                          check=True).stdout
    lines = [line.strip() for line in said.split("next:", 1)[1].splitlines() if line.strip()]
    evals = {judge: next(line for line in lines if f" -c promptfooconfig.{judge}.yaml" in line) for judge in EVALS}
    return {"export": next(line for line in lines if line.startswith("export ")), "evals": evals,
            "view": next(line for line in lines if " view" in line.split("#")[0])}


def documented_env(project: Path, python: Path, node: Path | None, proxy: GoogleProxy, **extra: str) -> dict[str, str]:
    """A user's shell: no promptfoo switch, no preload, every proxy variable on the recording proxy, loopback direct."""
    env = {k: v for k, v in user_env(project, python, node=node).items()
           if not k.startswith("PROMPTFOO_DISABLE_") and k not in ("PROMPTFOO_PYTHON", "NODE_OPTIONS")
           and k.lower() not in (*PROXY_VARS, "no_proxy") and not k.lower().startswith("npm_config_")}
    for name in PROXY_VARS:
        env[name] = env[name.upper()] = proxy.url
    env["no_proxy"] = env["NO_PROXY"] = "127.0.0.1,localhost,::1"
    return {**env, **extra}


@pytest.fixture(scope="module")
def project(promptfoo_project, user_python, tmp_path_factory) -> dict[str, Any]:  # noqa: F811
    """The user's project after ``reeljudge init``, with the recording proxy it runs behind."""
    folder, node = promptfoo_project
    if not (folder / ".venv").exists():  # the README's install step makes .venv in the project: here the wheel's venv
        (folder / ".venv").symlink_to(user_python.parent.parent, target_is_directory=True)
    tls = make_tls(tmp_path_factory.mktemp("recording-proxy"), GOOGLE_HOST)
    return {"folder": folder, "node": node, "python": user_python, "lines": init_lines(folder, user_python), "tls": tls}


@pytest.fixture(scope="module")
def evals(project) -> dict[str, Any]:
    """Each documented eval run once behind the recording proxy; (exit code and output by judge, proxy, fake)."""
    runs = {}
    with FakeGemini() as fake, GoogleProxy(project["tls"], upstream=fake.url) as proxy:
        script_prompt(fake, STARTER_PROMPT, matched=True)
        for judge, line in project["lines"]["evals"].items():
            key = {"GEMINI_API_KEY": "test-key-not-real", "GOOGLE_GEMINI_BASE_URL": fake.url} if judge == "gecko" else {}
            env = documented_env(project["folder"], project["python"], project["node"], proxy,
                                 REELJUDGE_CACHE_DIR=str(project["folder"] / f".cache-{judge}"), **key)
            proc = subprocess.run(["bash", "-c", f"set -e\n{project['lines']['export']}\n{line}"], cwd=project["folder"],
                                  env=env, capture_output=True, text=True, timeout=900)
            runs[judge] = (proc.returncode, proc.stdout + proc.stderr)
    return {"runs": runs, "proxy": proxy, "fake": fake}


def test_the_documented_evals_pass_and_reach_only_the_judge_api(evals):
    for judge, (code, output) in evals["runs"].items():
        assert code == 0, f"{judge}: exit {code}\n{output[-3000:]}"
    assert evals["fake"].requests, "the Gecko judge did not reach the Gemini API it was configured with"
    assert evals["proxy"].connects == [], f"promptfoo connected outside the machine: {evals['proxy'].connects}"


def answers(url: str) -> bool:
    """Whether an HTTP server answers at ``url``."""
    try:
        with urllib.request.urlopen(url, timeout=5):
            return True
    except urllib.error.HTTPError:
        return True
    except OSError:
        return False


def gone(pid: int) -> bool:
    """Whether no process has this PID (or only a zombie, which holds no port)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (FileNotFoundError, ProcessLookupError):
        return True


def wait_until(check: Any, deadline_s: float) -> bool:
    """Poll ``check`` every 0.25 s until it holds or the (generous) deadline passes; whether it held."""
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.25)
    return check()


@pytest.fixture(scope="module")
def viewer(project, evals, tmp_path_factory) -> Iterator[dict[str, Any]]:
    """The documented viewer command, started as a user starts it in the background (``&``, its PID from ``$!``),
    on a free port (API_PORT, promptfoo's default port variable), behind the recording proxy."""
    port, pid_file = free_port(), tmp_path_factory.mktemp("viewer") / "pid"
    with GoogleProxy(project["tls"], upstream="http://127.0.0.1:9") as proxy:
        # BROWSER: what --yes opens (xdg-open runs it); a no-op here, the test opens the page itself
        env = documented_env(project["folder"], project["python"], project["node"], proxy, API_PORT=str(port), BROWSER="true")
        command = project["lines"]["view"].split(" # ", 1)[0].strip()  # without its comment, which would hide the "&"
        script = f"{project['lines']['export']}\n{command} &\necho $! > {pid_file}\nwait\n"
        shell = subprocess.Popen(["bash", "-c", script], cwd=project["folder"], env=env, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        base = f"http://127.0.0.1:{port}"
        try:
            assert wait_until(lambda: answers(f"{base}/health"), 180), "the documented viewer command never answered"
            yield {"base": base, "pid": int(pid_file.read_text()), "proxy": proxy}
        finally:
            try:
                os.killpg(shell.pid, signal.SIGKILL)  # whatever is left of the shell's group (npm's server on main)
            except ProcessLookupError:
                pass
            shell.wait(30)


@pytest.mark.browser
def test_the_documented_viewer_and_its_page_reach_nothing_outside(viewer):
    from playwright.sync_api import sync_playwright

    base, outside = viewer["base"], []

    def route(request: Any) -> None:
        if request.request.url.startswith(base + "/"):
            request.continue_()
        else:  # recorded, never sent
            outside.append(request.request.url)
            request.abort()

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page()
            page.route("**/*", route)
            shown = {}
            for path in PAGES:
                page.goto(base + path, wait_until="networkidle", timeout=90000)
                shown[path] = page.inner_text("body")
        finally:
            browser.close()
    # the page still works under the preload's policy: the latest eval (Gecko, run last) is shown with its results
    assert "reeljudge: Gecko QA scoring" in shown["/eval"] and "Asserts" in shown["/eval"], shown["/eval"][:2000]
    assert outside == [], f"the viewer's page asked hosts other than the viewer: {sorted(set(outside))}"
    assert viewer["proxy"].connects == [], f"the viewer connected outside the machine: {viewer['proxy'].connects}"


def test_the_documented_viewer_stops_when_its_pid_is_killed(viewer):
    pid, base = viewer["pid"], viewer["base"]
    os.kill(pid, signal.SIGTERM)
    assert wait_until(lambda: gone(pid) and not answers(f"{base}/health"), 60), (
        f"kill {pid} (the PID the documented viewer command started) left a server answering on {base}")
