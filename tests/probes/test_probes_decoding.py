"""The decoder skips only what the analysis cannot see: deblocking, when frames shrink enough."""

from __future__ import annotations

from reeljudge.probes import ProbeOptions, probe_signals
from reeljudge.probes.signals import measure
from support.corpus import PROMPT, REPO

CLIP = REPO / "datasets" / "clips" / "gen_cut.mp4"  # 256×144 H.264 with deblocking, a cut at frame 36


def test_small_frames_are_decoded_in_full_and_say_nothing() -> None:
    signals = measure(CLIP, ProbeOptions())
    assert signals.info.decoder_skips == "" and "decoder_skips" not in signals.info.as_metadata()


def test_deblocking_is_skipped_at_the_scale_asked_and_named_in_the_clip_facts() -> None:
    full = measure(CLIP, ProbeOptions.of(analysis_short_side=36, skip_deblock_scale=0))
    skipped = measure(CLIP, ProbeOptions.of(analysis_short_side=36, skip_deblock_scale=4))  # 144 px → 36 px: 4×
    assert skipped.info.decoder_skips == "skip_loop_filter" and skipped.info.as_metadata()["decoder_skips"] == "skip_loop_filter"
    assert full.info.decoder_skips == "" and skipped.count == full.count
    assert skipped.luma != full.luma  # the decoder really left the loop filter out
    assert max(abs(a - b) for a, b in zip(skipped.luma, full.luma)) < 1.0  # and it moved brightness by under a level
    verdicts = {r.name: r.passed for r in probe_signals(skipped, ProbeOptions.of(analysis_short_side=36), PROMPT) if r.gating}
    assert verdicts["scene_cuts"] is False and verdicts["black_frames"] is True
