"""reeljudge: promptfoo judges for video pipelines, each also one typed Python call.

    import reeljudge
    reeljudge.judge_terms("Redis keeps data in memory", ["server room", "RAM chips"])  # filmability
    reeljudge.score_gecko("A red apple on a table", "apple.png")                       # Gecko QA
    reeljudge.run_probes("clip.mp4")                                                    # offline probes
    reeljudge.probe_library_file("clips/", "probes.jsonl")        # probes over a library, resumable
    reeljudge.judge_narrations_file("narrations.yaml", "film.jsonl")  # offline filmability in bulk
    reeljudge.judge_pair("A kite over a meadow", "new.mp4", "baseline.mp4")             # A/B protocol, both orders

A judge that did not judge returns ``NotJudged`` (``judged`` False, never ``passed``).

Importing this package is cheap on purpose: promptfoo starts a new Python process for every
assertion call, so each face and every heavy module (google-genai, numpy, PyAV, ONNX) is imported
only when it is used.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"
__all__ = ["judge_terms", "score_gecko", "run_probes", "probe_library_file", "judge_narrations_file", "judge_pair", "NotJudged"]

_FACES = {
    "judge_terms": "reeljudge.filmability.api",
    "score_gecko": "reeljudge.gecko.api",
    "run_probes": "reeljudge.probes.api",
    "probe_library_file": "reeljudge.library.probe_library",
    "judge_narrations_file": "reeljudge.filmability.bulk",
    "judge_pair": "reeljudge.ab_judge.api",
    "NotJudged": "reeljudge.not_judged",
}


def __getattr__(name: str) -> Any:
    if name in _FACES:
        import importlib

        return getattr(importlib.import_module(_FACES[name]), name)
    raise AttributeError(f"module 'reeljudge' has no attribute {name!r}")
