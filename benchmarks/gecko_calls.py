"""Gecko cost, measured: judge calls and uploads for N videos × 2 prompts against the fake server.

Runs the gecko assertion the way promptfoo would (one call per test) in one process, twice (the
second time is a re-run over the same cache), and prints the counts beside the notebook's pattern
(a fresh question set and a validation call for every row, on every run: 2 calls per row).

Two layouts:
- shared: 2 prompts each judged on N clips (e.g. N models' renders of the same prompts);
- paired: the notebook's demo shape, each clip with its own matched and counter prompt.

Usage: ``.venv/bin/python -m benchmarks.gecko_calls [--videos N]``
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


def make_clips(folder: Path, n: int) -> list[str]:
    """N distinct small clips (the fixture clip with a different trailing byte: distinct content hashes)."""
    base = (ROOT / "datasets" / "clips" / "gen_clean.mp4").read_bytes()
    paths = []
    for i in range(n):
        path = folder / f"clip{i}.mp4"
        path.write_bytes(base + bytes([i]))
        paths.append(str(path))
    return paths


def run_layout(name: str, rows: list[tuple[str, str, bool]], cache_dir: str) -> dict[str, int]:
    """Judge every (clip, prompt, matched) row twice against a fresh fake; counts per run."""
    from support.fake_gemini import FakeGemini
    from reeljudge.assertions.gecko import get_assert
    from reeljudge.gecko.question_gen import USER_MARKER as GEN
    from support.gecko_scripts import script_prompt
    from reeljudge.gecko.validity import USER_MARKER as FILTER

    counts: dict[str, int] = {}
    with FakeGemini() as fake:
        for prompt in dict.fromkeys(p for _, p, _ in rows):
            matched = next(m for _, p, m in rows if p == prompt)
            script_prompt(fake, prompt, matched=matched)
        os.environ.update(
            GEMINI_API_KEY="fake-key", GOOGLE_GEMINI_BASE_URL=fake.url, REELJUDGE_CACHE_DIR=cache_dir,
            REELJUDGE_BACKOFF_INITIAL_S="0.01"
        )
        for run in (1, 2):
            start = len(fake.requests)
            failures = 0
            for clip, prompt, _ in rows:
                result = get_assert(clip, {"vars": {"prompt": prompt, "video": clip}, "config": {"inline_max_bytes": 0}})
                failures += "did not judge" in result["reason"]
            new = fake.requests[start:]
            calls = [r for r in new if r.path.endswith(":generateContent")]
            counts[f"run{run}_generate"] = sum(GEN in r.text for r in calls)
            counts[f"run{run}_filter"] = sum(FILTER in r.text for r in calls)
            counts[f"run{run}_vqa"] = len(calls) - counts[f"run{run}_generate"] - counts[f"run{run}_filter"]
            counts[f"run{run}_uploads"] = sum(r.path.startswith("/upload/files:finalize/") for r in new)
            counts[f"run{run}_file_lookups"] = sum(r.method == "GET" and "/files/" in r.path for r in new)
            counts[f"run{run}_failures"] = failures
    return counts


def report(name: str, rows: int, prompts: int, clips: int, c: dict[str, int]) -> list[str]:
    """Printable lines for one layout."""
    ours1 = c["run1_generate"] + c["run1_filter"] + c["run1_vqa"]
    ours2 = c["run2_generate"] + c["run2_filter"] + c["run2_vqa"]
    return [
        f"{name}: {rows} rows = {clips} clips, {prompts} unique prompts",
        f"  reeljudge run 1: generate {c['run1_generate']}, filter {c['run1_filter']}, vqa {c['run1_vqa']} = "
        f"{ours1} judge calls; uploads {c['run1_uploads']} (file lookups {c['run1_file_lookups']}); failed tests "
        f"{c['run1_failures']}",
        f"  reeljudge re-run: {ours2} judge calls, {c['run2_uploads']} uploads, {c['run2_file_lookups']} file lookups",
        f"  notebook pattern: {2 * rows} calls per run (2 per row: question set + validation), every run; {4 * rows} over both "
        f"runs vs ours {ours1 + ours2}",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="count Gecko judge calls and uploads against the fake server")
    parser.add_argument("--videos", type=int, default=5, help="N clips (default 5)")
    args = parser.parse_args(argv or [])
    n = args.videos
    with tempfile.TemporaryDirectory(prefix="gecko-bench-") as work:
        clips = make_clips(Path(work), n)
        shared_prompts = ["A red kite flying over a green meadow", "A grey heron standing in a shallow river"]
        shared = [(clip, prompt, i == 0) for clip in clips for i, prompt in enumerate(shared_prompts)]
        paired = [row for k, clip in enumerate(clips)
                  for row in ((clip, f"Scene {k}: a lighthouse beside stormy cliffs", True),
                              (clip, f"Scene {k}: a tractor ploughing a dusty field", False))]
        lines = [f"Gecko judge calls and uploads, {n} videos x 2 prompts, fake Gemini server (tests/support/fake_gemini.py)", ""]
        c = run_layout("shared", shared, f"{work}/cache-shared")
        lines += report("shared prompts", len(shared), 2, n, c)
        expected_shared = (c["run1_generate"], c["run1_filter"], c["run1_vqa"], c["run1_uploads"]) == (2, 2, 2 * n, n)
        c2 = run_layout("paired", paired, f"{work}/cache-paired")
        lines += [""] + report("paired prompts (notebook demo shape)", len(paired), 2 * n, n, c2)
        expected_paired = (c2["run1_generate"], c2["run1_filter"], c2["run1_vqa"], c2["run1_uploads"]) == (2 * n, 2 * n, 2 * n, n)
        zero = all(v == 0 for k, v in {**c, **{f"p{k}": v for k, v in c2.items()}}.items() if "run2" in k)
        lines += ["", f"expected counts: shared {'yes' if expected_shared else 'NO'}, paired "
                      f"{'yes' if expected_paired else 'NO'}, re-runs free {'yes' if zero else 'NO'}"]
    print("\n".join(lines))
    return 0 if expected_shared and expected_paired and zero else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
