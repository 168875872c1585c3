"""Batch mode at scale, against the fake server (tests/support/fake_gemini.py, Batch API included):

- filmability: N planned requests (1,000 and 10,000) → plan, submit (a JSONL file through the Files
  API), wait + collect; wall time and peak memory of each phase at both sizes (streaming: the peak
  should not grow with N), cost at batch vs online prices;
- Gecko: 1,000 clip × prompt rows (10 clips × 100 prompts), run by ``run_rounds`` (the driver of
  ``reeljudge batch run``) with a planning "eval" that judges every row through the Python face:
  rounds taken (generate → filter → VQA), wall time, peak memory, cost.

Each phase runs in its own process, so its peak RSS (VmHWM) is its own; the fake runs here.
Usage: ``.venv/bin/python -m benchmarks.batch [--sizes 1000,10000] [--gecko-rows 1000]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from typing import TYPE_CHECKING
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

if TYPE_CHECKING:
    from support.fake_gemini import FakeGemini

TERMS = ["server room", "engineer typing", "sunset over a data center"]
FILM_REPLY = {"breakdown": {"relevance": 3, "filmability": 3, "variety": 1}, "unfilmableTerms": [], "points": 7,
              "score": 1.0, "reason": "scripted", "criterionReasons": {"relevance": "x", "filmability": "x", "variety": "x"}}
CLIPS, PROMPTS_PER_CLIP = 10, 100


def peak_mb() -> float:
    """This process's peak resident memory (VmHWM) in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def narration(i: int) -> str:
    return f"Request {i}: Redis keeps every session in memory, so the page loads fast"


def gecko_rows(work: Path, prompts_per_clip: int = PROMPTS_PER_CLIP) -> list[tuple[str, str]]:
    """(clip, prompt) rows: every prompt on every clip (distinct content hashes)."""
    base = (ROOT / "datasets" / "clips" / "gen_clean.mp4").read_bytes()
    clips = []
    for i in range(CLIPS):
        path = work / f"clip{i}.mp4"
        if not path.exists():
            path.write_bytes(base + bytes([i]))
        clips.append(str(path))
    colours = ["purple", "green", "yellow", "orange", "white", "black", "brown", "silver", "golden", "crimson"]
    animals = ["heron", "otter", "falcon", "badger", "rabbit", "turtle", "beaver", "donkey", "parrot", "walrus"]
    prompts = [f"A {colours[k % 10]} {animals[k // 10 % 10]} resting beside a quiet harbour" for k in range(prompts_per_clip)]
    return [(clip, prompt) for prompt in prompts for clip in clips]


# ---- phases (each in its own process) -----------------------------------------------------------


def phase(name: str, args: argparse.Namespace) -> dict:
    from reeljudge.batch.collect import collect, wait
    from reeljudge.batch.store import BatchStore
    from reeljudge.batch.submit import SubmitOptions, submit
    from reeljudge.gemini.client import JudgeClient
    from reeljudge.gemini.settings import load_settings

    started = time.perf_counter()
    out: dict = {}
    if name == "plan-film":
        import reeljudge

        queued = sum(not reeljudge.judge_terms(narration(i), TERMS, judge="gemini", cache="plan").judged for i in range(args.n))
        out["queued"] = queued
    elif name == "plan-gecko":
        import reeljudge

        rows = gecko_rows(Path(args.work), args.prompts)
        out["not_judged"] = sum(not reeljudge.score_gecko(p, c).judged for c, p in rows)
    elif name == "submit":
        client = JudgeClient(load_settings())
        done = submit(client, SubmitOptions(progress=False), log=lambda _m: None)
        out["requests"] = sum(s["count"] for s in done)
        out["sources"] = sorted({s["source"] for s in done})
    elif name == "collect":
        client = JudgeClient(load_settings())
        collected = failed = 0
        cost = online = 0.0
        for submission in BatchStore(client.settings.cache_dir).submissions():
            if submission.get("collected"):
                continue
            outcome = collect(client, submission,
                              wait(client, submission, interval_s=0.05, deadline_s=3600, progress=False), progress=False)
            collected, failed = collected + outcome.collected, failed + len(outcome.failed)
            cost, online = cost + (outcome.usage.cost_usd or 0), online + (outcome.online_cost_usd or 0)
        out.update(collected=collected, failed=failed, cost_usd=cost, online_cost_usd=online)
    elif name == "gecko-rounds":
        from reeljudge.batch.rounds import run_rounds

        command = [sys.executable, "-m", "benchmarks.batch", "--phase", "plan-gecko", "--work", args.work,
                   "--prompts", str(args.prompts)]
        result = run_rounds(JudgeClient(load_settings()), command, interval_s=0.05, options=SubmitOptions(progress=False),
                            log=lambda _m: None)
        out.update(rounds=result.rounds, evals=result.evals, stopped=result.stopped, collected=result.collected,
                   cost_usd=result.cost_usd, online_cost_usd=result.online_cost_usd)
    out.update(wall_s=time.perf_counter() - started, peak_mb=peak_mb())
    return out


def run_phase(name: str, env: dict[str, str], *extra: str) -> dict:
    """Run one phase in a child process; its JSON report."""
    proc = subprocess.run([sys.executable, "-m", "benchmarks.batch", "--phase", name, *extra], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=7200)
    if proc.returncode != 0:
        raise RuntimeError(f"phase {name} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ---- the benchmark --------------------------------------------------------------------------------


def film(fake: FakeGemini, work: Path, n: int) -> dict:
    from support.fake_gemini import json_reply

    fake.reset()
    fake.on("Grade these search terms", json_reply(FILM_REPLY, prompt_tokens=1800, output_tokens=150))
    env = {**os.environ, "GEMINI_API_KEY": "fake-key", "GOOGLE_GEMINI_BASE_URL": fake.url,
           "REELJUDGE_CACHE_DIR": str(work / f"film-{n}"), "REELJUDGE_BACKOFF_INITIAL_S": "0.01"}
    plan = run_phase("plan-film", env, "--n", str(n))
    sent = run_phase("submit", env)
    got = run_phase("collect", env)
    assert plan["queued"] == n and sent["requests"] == n and got["collected"] == n, (plan, sent, got)
    return {"plan": plan, "submit": sent, "collect": got}


def gecko(fake: FakeGemini, work: Path, prompts_per_clip: int) -> dict:
    from support.gecko_scripts import script_prompt

    fake.reset()
    for prompt in dict.fromkeys(p for _, p in gecko_rows(work, prompts_per_clip)):
        script_prompt(fake, prompt, matched=True)
    env = {**os.environ, "GEMINI_API_KEY": "fake-key", "GOOGLE_GEMINI_BASE_URL": fake.url,
           "REELJUDGE_CACHE_DIR": str(work / "gecko-cache"), "REELJUDGE_BACKOFF_INITIAL_S": "0.01"}
    result = run_phase("gecko-rounds", env, "--work", str(work), "--prompts", str(prompts_per_clip))
    result["online_calls"] = len(fake.calls())
    result["jobs"] = [len(j.requests) for j in fake.batches.jobs.values()]
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000", help="planned filmability requests per run (comma-separated)")
    parser.add_argument("--prompts", type=int, default=PROMPTS_PER_CLIP,
                        help=f"Gecko prompts per clip ({CLIPS} clips; default {PROMPTS_PER_CLIP})")
    parser.add_argument("--phase", help=argparse.SUPPRESS)
    parser.add_argument("--n", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--work", help=argparse.SUPPRESS)
    args = parser.parse_args(argv if argv is not None else sys.argv[1:])
    if args.phase:
        print(json.dumps(phase(args.phase, args)))
        return 0
    from support.fake_gemini import FakeGemini

    sizes = [int(s) for s in args.sizes.split(",")]
    lines = ["Batch mode against the fake Gemini server (Batch API, Files API), one process per phase", ""]
    with tempfile.TemporaryDirectory(prefix="batch-bench-") as tmp, FakeGemini() as fake:
        work = Path(tmp)
        for n in sizes:
            r = film(fake, work, n)
            p, s, c = r["plan"], r["submit"], r["collect"]
            lines.append(f"filmability, {n} requests ({'/'.join(s['sources'])}): plan {p['wall_s']:.1f} s "
                         f"({p['wall_s'] / n * 1000:.2f} ms/request), submit {s['wall_s']:.1f} s, wait+collect "
                         f"{c['wall_s']:.1f} s; peak RSS plan {p['peak_mb']:.0f} MB, submit {s['peak_mb']:.0f} MB, collect "
                         f"{c['peak_mb']:.0f} MB; 1 round; cost ${c['cost_usd']:.2f} batch vs ${c['online_cost_usd']:.2f} online")
        g = gecko(fake, work, args.prompts)
        rows = CLIPS * args.prompts
        lines += ["", f"Gecko, {rows} clip x prompt rows ({CLIPS} clips x {args.prompts} prompts): {g['rounds']} rounds "
                      f"({g['evals']} planning runs; jobs of {g['jobs']} requests), {g['wall_s']:.1f} s in all, "
                      f"peak RSS of the rounds driver {g['peak_mb']:.0f} MB; {g['collected']} replies, "
                      f"{g['online_calls']} online calls; cost ${g['cost_usd']:.2f} batch vs ${g['online_cost_usd']:.2f} online; "
                      f"stopped: {g['stopped']}"]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
