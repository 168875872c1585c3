"""The texture corpus (``reeljudge.synth.texture_corpus``) for tests: one split written and probed.

The ``real_*`` families are cut from the committed Big Buck Bunny excerpt (CC BY 3.0,
``datasets/clips/LICENSES.md``), so tests have every family offline.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from support.paths import CLIPS

EXCERPT = CLIPS / "bbb_excerpt.mp4"


def texture_clips(split: str) -> dict[str, Any]:
    """The clips of one split by name (``TextureClip``: spec, planted faults, prompt)."""
    from reeljudge.synth.texture_corpus import texture_corpus

    return {clip.name: clip for clip in texture_corpus(split, EXCERPT)}  # type: ignore[arg-type]


def probe_texture_split(folder: Path, split: str) -> dict[str, dict[str, dict]]:
    """Write ``split`` into ``folder`` and probe every clip: clip name → probe → its result as plain data."""
    from reeljudge.errors import MediaError
    from reeljudge.probes import probe_clip
    from reeljudge.synth.texture_corpus import write_texture_corpus

    out: dict[str, dict[str, dict]] = {}
    for clip, path in write_texture_corpus(folder, (split,), EXCERPT):  # type: ignore[arg-type]
        try:
            results = probe_clip(path, prompt=clip.prompt)
        except MediaError as error:
            out[clip.name] = {"technical": {"passed": False, "gating": True, "reason": str(error), "details": {}}}
            continue
        out[clip.name] = {r.name: {"passed": r.passed, "gating": r.gating, "reason": r.reason, "details": r.details}
                          for r in results}
    return out
