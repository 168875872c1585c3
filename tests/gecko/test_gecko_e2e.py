"""End to end: the Gecko suite through promptfoo against the fake server; pair check; cache-hit path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.gecko_scripts import local_suite_env, script_local_suite, script_prompt
from support.paths import ROOT



@pytest.mark.e2e
def test_gecko_suite_through_promptfoo_has_per_tag_scores_components_and_ordered_pairs(fake, tmp_path):
    pairs = script_local_suite(fake)
    out = tmp_path / "results.json"
    env = local_suite_env(fake.url, tmp_path)
    run = subprocess.run(
        ["bash", "scripts/promptfoo.sh", "eval", "-c", "promptfooconfig.gecko.yaml", "-o", str(out),
         "--no-progress-bar", "--no-cache"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    rows = json.loads(out.read_text())["results"]["results"]
    assert len(rows) == 2 * len(pairs) and all(r["success"] for r in rows)
    for row in rows:
        named = row["namedScores"]
        assert "gecko" in named and "gecko_coverage" in named and any(k not in ("gecko", "gecko_coverage") for k in named)
        ours = next(c for c in row["gradingResult"]["componentResults"] if (c.get("metadata") or {}).get("judge") == "gecko")
        questions = ours["metadata"]["questions"]
        assert {q["status"] for q in questions} == {"kept", "dropped"}
        assert all({"question", "choices", "ground_truth", "tag"} <= set(q) for q in questions)
        assert row["response"]["video"]["storageRef"]["key"].startswith("video/")  # plays in the viewer
    scores = {(r["vars"]["video"], r["vars"]["expect"]): r["score"] for r in rows}
    for pair in pairs:
        assert scores[(pair["clip"], "match")] > scores[(pair["clip"], "mismatch")]
    assert len(fake.calls()) == 3 * 2 * len(pairs)
    assert "gecko pair check ok: 3" in (tmp_path / "pairs.txt").read_text()
    check = subprocess.run([str(Path(sys.executable).parent / "reeljudge"), "gecko", "check-pairs", str(out)], cwd=ROOT,
                           capture_output=True, text=True)
    assert check.returncode == 0 and "3 matched/counter pair(s) checked" in check.stdout


def test_cache_hit_rerun_makes_no_call_and_never_imports_google_genai(gemini_env, tmp_path):
    clip = str(ROOT / "datasets" / "clips" / "gen_clean.mp4")
    prompt = "A disc gliding over a colourful texture"
    script_prompt(gemini_env, prompt, matched=True)
    from reeljudge.assertions.gecko import get_assert

    first = get_assert(clip, {"vars": {"prompt": prompt, "video": clip}, "config": {}})
    assert first["pass"] is True
    calls = len(gemini_env.requests)
    code = (
        "import sys, json; from reeljudge.assertions.gecko import get_assert; "
        f"r = get_assert({clip!r}, {{'vars': {{'prompt': {prompt!r}, 'video': {clip!r}}}, 'config': {{}}}}); "
        "print(json.dumps([r['pass'], r['metadata']['cache_hit'], 'google.genai' in sys.modules, 'jsonschema' in sys.modules]))"
    )
    env = {**os.environ, "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9"}  # nothing listens: a call would fail
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [True, True, False, False], out.stderr
    assert len(gemini_env.requests) == calls
