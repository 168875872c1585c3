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

from reeljudge.judging import JUDGES

__version__ = "0.1.0"
#: the faces (held equal to the judge table's faces plus the others by tests/verdicts/test_judge_table.py)
__all__ = ["judge_terms", "run_probes", "score_gecko", "judge_pair", "probe_library_file", "judge_narrations_file", "NotJudged"]

#: face → the module defining it: each judge's (from ``reeljudge.judging``), then the faces of no one judge's table row
_FACES = {
    **{judge.face: judge.face_module for judge in JUDGES},
    "probe_library_file": "reeljudge.library.probe_library",
    "judge_narrations_file": "reeljudge.filmability.bulk",
    "NotJudged": "reeljudge.not_judged",
}


def __getattr__(name: str) -> Any:
    if name in _FACES:
        import importlib

        return getattr(importlib.import_module(_FACES[name]), name)
    raise AttributeError(f"module 'reeljudge' has no attribute {name!r}")
