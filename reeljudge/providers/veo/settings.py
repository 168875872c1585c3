"""The Veo provider's settings: what to generate, how long to wait, where clips go."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal, Mapping

from reeljudge.gemini.settings import JudgeSettings
from reeljudge.options import load_options, option

DEFAULT_MODEL = "veo-3.0-fast-generate-001"
DEFAULT_OUTPUT_DIR = ".reeljudge/videos"


@dataclass(frozen=True)
class VeoSettings:
    """What to generate (model and Veo parameters), how to wait for it and where to put it."""

    model: str = option(DEFAULT_MODEL, env="REELJUDGE_VEO_MODEL", doc="the Veo model")
    aspect_ratio: str | None = option(None, doc="16:9 or 9:16")
    duration_seconds: int | None = option(None, aliases=("duration",), minimum=1, doc="clip length in seconds")
    resolution: str | None = option(None, doc="720p or 1080p")
    negative_prompt: str | None = option(None, doc="what the clip must not show")
    seed: int | None = option(None, doc="a seed for repeatable generations")
    number_of_videos: int = option(1, minimum=1, maximum=1, doc="clips per prompt (one per test)")
    person_generation: str | None = option(None, doc="Veo's person-generation policy")
    generate_audio: bool | None = option(None, doc="ask for an audio track")
    enhance_prompt: bool | None = option(None, doc="let Veo rewrite the prompt")
    poll_interval_s: float = option(10.0, env="REELJUDGE_VEO_POLL_INTERVAL_S", aliases=("poll_interval",), minimum=0.001,
                                    doc="seconds between operation polls")
    deadline_s: float = option(600.0, env="REELJUDGE_VEO_DEADLINE_S", aliases=("deadline",), minimum=0.001,
                               doc="seconds to wait for a generation before giving up (a re-run resumes it)")
    output_dir: str = option(DEFAULT_OUTPUT_DIR, env="REELJUDGE_VEO_OUTPUT_DIR", aliases=("output_folder",),
                             doc="where generated clips are stored, content-addressed")
    delivery: Literal["store", "data"] = option("store", doc="how the clip reaches the viewer (see the clip provider)")

    def generation_fingerprint(self) -> dict[str, Any]:
        """The settings that shape the video, for the cache key (not waiting, storage or delivery)."""
        skip = {"poll_interval_s", "deadline_s", "output_dir", "delivery"}
        return {k: v for k, v in asdict(self).items() if k not in skip}

    def parameters(self) -> dict[str, Any]:
        """The Veo request ``parameters`` (wire names), only those that are set."""
        wire = {
            "sampleCount": self.number_of_videos,
            "aspectRatio": self.aspect_ratio,
            "durationSeconds": self.duration_seconds,
            "resolution": self.resolution,
            "negativePrompt": self.negative_prompt,
            "seed": self.seed,
            "personGeneration": self.person_generation,
            "generateAudio": self.generate_audio,
            "enhancePrompt": self.enhance_prompt,
        }
        return {k: v for k, v in wire.items() if v is not None}


def load(config: Mapping[str, Any] | None) -> tuple[VeoSettings, JudgeSettings]:
    """Veo settings and the transport (Gemini) settings from one config; BadInputError on a bad or unknown key.

    ``deadline_s`` is the generation's deadline (Veo's); the per-request transport deadline comes
    from ``REELJUDGE_DEADLINE_S``.
    """
    return load_options(config, VeoSettings, JudgeSettings, owner="veo provider")
