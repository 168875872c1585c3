"""The gecko assertion's options (YAML ``config:``), typed, with documented defaults."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Mapping

from reeljudge.errors import BadInputError
from reeljudge.gemini.files import DEFAULT_INLINE_MAX_BYTES

MEDIA_RESOLUTIONS = ("low", "medium", "high")


@dataclass(frozen=True)
class GeckoOptions:
    """Options of one gecko assertion; JudgeSettings keys (model, temperature, …) sit beside them."""

    prompt_var: str = "prompt"  # the var holding the generation prompt being checked
    media_var: str = "video"  # the var naming the clip/image; without it, the provider output is used
    qas_var: str = "qas"  # a test var with declared questions (used as is, no generation, no filter)
    kind: str = "auto"  # video | image | auto (by file extension)
    threshold: float = 0.7  # pass when score >= threshold (expect: match) or < threshold (expect: mismatch)
    min_coverage: float = 0.5  # fail when fewer than this share of kept questions got a readable verdict
    expect: str = "match"  # match | mismatch: a counter-prompt passes when its score stays under threshold
    expect_var: str = "expect"  # a test var that overrides ``expect`` per test (match | mismatch)
    validity_filter: bool = True  # drop questions the prompt text alone does not answer with the ground truth
    scoring: str = "hard"  # hard | probability (log-probabilities where the backend returns them)
    fps: float | None = None  # frames per second sampled from video (Gemini default 1)
    start_offset_s: float | None = None
    end_offset_s: float | None = None
    media_resolution: str | None = None  # low | medium | high
    inline_max_bytes: int = DEFAULT_INLINE_MAX_BYTES  # local files up to this size go inline, larger ones uploaded
    rubrics_file: str | None = None  # exported rubrics YAML; a matching prompt's qas are used as is
    base_dir: str | None = None  # where relative media paths start (default: working directory)

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> "GeckoOptions":
        """Options from an assertion config (unknown keys are left to JudgeSettings); BadInputError on a bad value."""
        values: dict[str, Any] = {}
        for f in fields(cls):
            if f.name not in config or config[f.name] is None:
                continue
            raw = config[f.name]
            default = f.default
            try:
                if isinstance(default, bool):
                    values[f.name] = raw if isinstance(raw, bool) else str(raw).strip().lower() in ("1", "true", "yes", "on")
                elif isinstance(default, int):
                    values[f.name] = int(raw)
                elif isinstance(default, float) or f.name in ("fps", "start_offset_s", "end_offset_s"):
                    values[f.name] = float(raw)
                else:
                    values[f.name] = str(raw).strip()
            except (TypeError, ValueError):
                raise BadInputError(f"gecko assertion config: {f.name}={raw!r} is not a valid value") from None
        options = cls(**values)
        options.check()
        return options

    def check(self) -> None:
        """BadInputError when a value is out of its range or not one of its choices."""
        choices = {"kind": ("auto", "video", "image"), "expect": ("match", "mismatch"), "scoring": ("hard", "probability")}
        for name, allowed in choices.items():
            if getattr(self, name) not in allowed:
                raise BadInputError(f"gecko assertion config: {name} must be one of {', '.join(allowed)}; got {getattr(self, name)!r}")
        if self.media_resolution is not None and self.media_resolution.lower() not in MEDIA_RESOLUTIONS:
            raise BadInputError(f"gecko assertion config: media_resolution must be one of {', '.join(MEDIA_RESOLUTIONS)}")
        if not 0 <= self.threshold <= 1 or not 0 <= self.min_coverage <= 1:
            raise BadInputError("gecko assertion config: threshold and min_coverage must be between 0 and 1")
        if self.fps is not None and not 0 < self.fps <= 24:
            raise BadInputError("gecko assertion config: fps must be in (0, 24]")
        if self.start_offset_s is not None and self.end_offset_s is not None and self.end_offset_s <= self.start_offset_s:
            raise BadInputError("gecko assertion config: end_offset_s must be after start_offset_s")
