"""Technical probe: decodable, duration, fps, resolution, codec, truncation, audio, frame rate."""

from __future__ import annotations

from reeljudge.probes.thresholds import TechnicalOptions
from reeljudge.probes.report import ProbeResult
from reeljudge.probes.signals import Signals


def probe_technical(signals: Signals, options: TechnicalOptions) -> ProbeResult:
    """Check the container's declared facts against the options and against what decoded."""
    info = signals.info
    problems: list[str] = []
    facts = (
        f"{info.codec} {info.width}×{info.height} @ {info.fps:.3g} fps, {info.declared_duration:.2f} s, "
        f"{info.declared_frames} frames declared, audio {'yes' if info.has_audio else 'no'}"
    )
    if info.declared_duration < options.min_duration_s:
        problems.append(f"duration {info.declared_duration:.2f} s < minimum {options.min_duration_s:g} s")
    if options.max_duration_s is not None and info.declared_duration > options.max_duration_s:
        problems.append(f"duration {info.declared_duration:.2f} s > maximum {options.max_duration_s:g} s")
    if info.fps < options.min_fps:
        problems.append(f"{info.fps:.3g} fps < minimum {options.min_fps:g}")
    if min(info.width, info.height) < options.min_short_side:
        problems.append(f"short side {min(info.width, info.height)} px < minimum {options.min_short_side}")
    if options.codecs and info.codec not in options.codecs:
        problems.append(f"codec {info.codec} not in {', '.join(options.codecs)}")
    if options.require_audio and not info.has_audio:
        problems.append("no audio stream")
    truncation = _truncation(signals, options)
    if truncation:
        problems.append(truncation)
    vfr = info.frame_interval_min > 0 and info.frame_interval_max > info.frame_interval_min * 1.5
    if vfr:
        note = ("variable frame rate (frame intervals "
                f"{info.frame_interval_min * 1000:.0f}–{info.frame_interval_max * 1000:.0f} ms)")
        if not options.allow_vfr:
            problems.append(note)
        else:
            facts += f"; {note}"
    if info.capped:
        facts += f"; {info.capped}"
    details = info.as_metadata() | {"variable_frame_rate": vfr}
    if problems:
        return ProbeResult("technical", False, 0.0, f"{'; '.join(problems)} ({facts})", details=details)
    return ProbeResult("technical", True, 1.0, f"decodable: {facts}", details=details)


def _truncation(signals: Signals, options: TechnicalOptions) -> str:
    """A description of how the clip ends short of what its container declares ("" if it does not)."""
    info = signals.info
    frame_time = 1.0 / info.fps if info.fps else 0.04
    slack = max(2 * frame_time, info.declared_duration * options.truncation_tolerance)
    if info.decode_error and not info.capped:
        return f"truncated or corrupt: {info.decode_error} at {info.last_frame_time:.2f} s of {info.declared_duration:.2f} s"
    if info.capped:
        end = info.tail_end_time
        if end is None:
            return f"truncated: nothing decodes in the last seconds before the declared end {info.declared_duration:.2f} s"
        if end + frame_time < info.declared_duration - slack:
            return f"truncated: last frame at {end:.2f} s but {info.declared_duration:.2f} s declared"
        return ""
    if info.declared_frames and info.decoded_frames < info.declared_frames * (1 - options.truncation_tolerance) - 1:
        return (
            f"truncated: decoded {info.decoded_frames} of {info.declared_frames} declared frames "
            f"(stops at {info.last_frame_time:.2f} s of {info.declared_duration:.2f} s)"
        )
    if info.declared_duration and info.last_frame_time + frame_time < info.declared_duration - slack:
        return f"truncated: last frame at {info.last_frame_time:.2f} s but {info.declared_duration:.2f} s declared"
    return ""
