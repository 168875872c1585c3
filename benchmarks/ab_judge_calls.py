"""A/B judge cost, measured: judge calls, uploads and tokens for N pairs against the fake server.

Two ways in, each run twice over one cache (the second run is a re-run):

- the assertion (the regression use): N tests, each a new clip against its own reference clip
  (2N unique clips), with ``orders: 2`` and with ``orders: 1``;
- the batch command over a study (``reeljudge ab judge``): one baseline clip against N candidate
  clips (N + 1 unique clips), 4 pairs judged at once.

Clips are forced through the Files API (``inline_max_bytes: 0``) so uploads are counted. Token
counts are the fake server's (2,600 prompt and 90 output tokens per reply); with Gemini they
depend on clip length and ``media_resolution``. The cost line uses the model's list price.

Usage: ``.venv/bin/python -m benchmarks.ab_judge_calls [--pairs N]``
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from typing import TYPE_CHECKING
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

if TYPE_CHECKING:
    from support.fake_gemini import FakeGemini
PROMPT = "Take {k}: a red ball rolls past a textured wall while the camera pans"


def make_clips(folder: Path, n: int) -> list[str]:
    """N distinct small clips: distinct pictures from the fixture generator, so they stay distinct when a study's
    import strips their names (a trailing byte made them distinct files before; an import drops it)."""
    from support.ab_study import make_clips as render

    return [str(path) for path in render(folder, n)]


def counts(fake: FakeGemini, start: int) -> dict[str, int]:
    """Calls, uploads and file lookups since request ``start``."""
    new = fake.requests[start:]
    return {"calls": sum(r.path.endswith(":generateContent") for r in new),
            "uploads": sum(r.path.startswith("/upload/files:finalize/") for r in new),
            "lookups": sum(r.method == "GET" and "/files/" in r.path for r in new)}


def assertion_runs(fake: FakeGemini, clips: list[str], orders: int, cache: str) -> list[dict[str, float]]:
    """Grade every (new, reference) pair twice; per run: calls, uploads, tokens, cost, failures."""
    from reeljudge.assertions.ab_judge import get_assert

    os.environ["REELJUDGE_CACHE_DIR"] = cache
    runs = []
    for _ in (1, 2):
        start, tokens, cost, failed = len(fake.requests), 0, 0.0, 0
        for k in range(len(clips) // 2):
            new, ref = clips[2 * k], clips[2 * k + 1]
            result = get_assert(new, {"vars": {"prompt": PROMPT.format(k=k), "reference": ref},
                                      "config": {"orders": orders, "inline_max_bytes": 0},
                                      "providerResponse": {"metadata": {"clip_path": new}}})
            failed += (result.get("metadata") or {}).get("judged") is False
            used = result.get("tokensUsed") or {}
            tokens += used.get("prompt", 0) + used.get("completion", 0)
            cost += (result.get("metadata") or {}).get("cost_usd_estimate") or 0.0
        runs.append({**counts(fake, start), "tokens": tokens, "cost": cost, "failed": failed})
    return runs


def batch_runs(fake: FakeGemini, clips: list[str], work: Path) -> list[dict[str, float]]:
    """One baseline against N candidates in a study, judged twice by ``reeljudge ab judge``."""
    import yaml

    from reeljudge.ab.store.imports import build_samples, read_manifest
    from reeljudge.ab.study.workspace import Workspace
    from reeljudge.ab_judge.batch import judge_study

    rows = [{"prompt": PROMPT.format(k=k), "clip_a": clips[0], "clip_b": c, "system_a": "baseline", "system_b": "candidate"}
            for k, c in enumerate(clips[1:])]
    manifest = work / "manifest.yaml"
    manifest.write_text(yaml.safe_dump(rows))
    ws = Workspace(work / "study")
    result = build_samples(read_manifest(manifest), ws.fix_protocol(), ws.clips)
    ws.store.add_samples(result.samples, list(result.clips.values()))
    os.environ["REELJUDGE_CACHE_DIR"] = str(work / "cache-batch")
    runs = []
    for rater in ("flash", "flash-again"):  # the second rater name makes the re-run judge every pair again (from the cache)
        start = len(fake.requests)
        report = judge_study(ws, {"inline_max_bytes": 0}, rater=rater, workers=4)
        u = report.usage
        runs.append({**counts(fake, start), "tokens": u.prompt_tokens + u.output_tokens, "cost": u.cost_usd or 0.0,
                     "failed": len(report.not_judged), "cached": u.cached_requests})
    return runs


def line(name: str, run: dict[str, float]) -> str:
    return (f"  {name}: {run['calls']} judge calls, {run['uploads']} uploads, {run['lookups']} file lookups, "
            f"{run['tokens']} tokens, ${run['cost']:.4f}, {run['failed']} not judged")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="count A/B judge calls, uploads and tokens against the fake server")
    parser.add_argument("--pairs", type=int, default=10, help="N pairs (default 10)")
    args = parser.parse_args(argv or [])
    n = args.pairs
    from support.fake_gemini import FakeGemini
    from support.ab_judge_scripts import side_bias

    with tempfile.TemporaryDirectory(prefix="abjudge-bench-") as work, FakeGemini() as fake:
        side_bias(fake, None, side="A")  # every pair gets an answer (a flip: position consistency 0 %, calls as for any judge)
        os.environ.update(GEMINI_API_KEY="fake-key", GOOGLE_GEMINI_BASE_URL=fake.url, REELJUDGE_BACKOFF_INITIAL_S="0.01")
        pairs = make_clips(Path(work) / "pairs", 2 * n)
        two = assertion_runs(fake, pairs, 2, f"{work}/cache-2")
        one = assertion_runs(fake, pairs, 1, f"{work}/cache-1")
        shared = make_clips(Path(work) / "shared", n + 1)
        batch = batch_runs(fake, shared, Path(work))
    lines = [f"A/B judge calls, uploads and tokens for {n} pairs, fake Gemini server (tests/support/fake_gemini.py)", "",
             f"assertion, {n} pairs of unique clips ({2 * n} clips), orders: 2", line("run 1", two[0]), line("re-run", two[1]),
             "assertion, same pairs, orders: 1 (fresh cache)", line("run 1", one[0]), line("re-run", one[1]),
             f"reeljudge ab judge, one baseline against {n} candidates ({n + 1} clips), orders: 2, 4 workers",
             line("run 1", batch[0]),
             line(f"re-run under a new rater name ({batch[1]['cached']} replies from the cache)", batch[1])]
    ok = ((two[0]["calls"], two[0]["uploads"], one[0]["calls"], one[0]["uploads"], batch[0]["calls"], batch[0]["uploads"])
          == (2 * n, 2 * n, n, 2 * n, 2 * n, n + 1)
          and all(r["calls"] == r["uploads"] == r["lookups"] == 0 for r in (two[1], one[1], batch[1]))
          and not any(r["failed"] for r in (*two, *one, *batch)))
    lines += ["", "expected counts (2 calls per pair, 1 with orders: 1; one upload per unique clip; re-runs free): "
                  f"{'yes' if ok else 'NO'}"]
    print("\n".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
