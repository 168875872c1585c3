"""The offline A/B judge (``judge: probes``): compare two clips on what the video probes can see.

Each clip is probed once (``reeljudge.probes.probe_clip``, with the prompt). The protocol dimensions the
probes can decide are judged from their faults (gating probes that failed):

- ``temporal_consistency``: flicker, frozen frames, scene cuts (a reset in a one-shot clip), black frames;
- ``motion_physics``: dynamic degree (nothing moves), camera shake, motion smoothness;
- ``technical`` (overall quality): the technical facts, truncation among them.

Faults are weighed, not counted: each failed probe weighs the share of the clip it ruins (its
``ruined_share``: frames black, frozen, flickering or shaking; for cuts, the frames outside the
longest shot), or 1 (the whole clip) when it has none (nothing moves, a technical fault), times how
bad it is (``severity``: a flicker by its swing, a shake by how far the camera jumps; a black or
frozen frame, a cut, a technical fault are lost outright). Each probed group's rating is 1 − its
faults' weight (at least 0): the share of the clip left intact, so it falls as a fault grows. A clip
black or frozen for most of its length (``RUINED_SHARE``) loses to any clip that is not. Otherwise
the clips are compared group by group in the protocol's priority order (stability, realism,
overall): the first group where only one clip has faults, or where one clip's faults weigh more by
over ``LIKE_WEIGHT``, decides; faults of like weight go on to the next group; none deciding is a tie.
Two identical clips (the same bytes) are probed once and tie, as "both good" or "both flawed".
**Prompt adherence, identity consistency and edit precision are abstained**: the probes cannot see
them, so they are reported as not judged, never guessed, and the verdict says it covers the
probed dimensions only. The loser's faults give the reason tags (``tag_of``: the protocol's tag for
the fault found).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from reeljudge.ab.store.protocol import TIE, Protocol, load_protocol
from reeljudge.ab_judge.verdict import Outcome
from reeljudge.errors import MediaError
from reeljudge.identity import PROBES_ENGINE, judge_identity
from reeljudge.judging import AB_JUDGE
from reeljudge.media.refs import ContentRef

if TYPE_CHECKING:
    from reeljudge.probes.report import ProbeResult, ProbesVerdict
    from reeljudge.probes.signals import ClipInfo

#: probed group -> (the probes deciding it, the protocol priority group it stands for)
GROUPS: dict[str, tuple[tuple[str, ...], str]] = {
    "temporal_consistency": (("flicker", "frozen_frames", "scene_cuts", "black_frames"), "stability"),
    "motion_physics": (("dynamic_degree", "camera_shake", "motion_smoothness"), "realism"),
    "technical": (("technical",), "overall"),
}
#: a failed probe -> the protocol's reason tag for the losing clip (a frozen run the picture jumps ahead
#: from is a reset: see ``tag_of``)
FAULT_TAGS = {
    "flicker": "flicker", "camera_shake": "flicker", "scene_cuts": "scene_reset", "frozen_frames": "physics_break",
    "dynamic_degree": "physics_break", "motion_smoothness": "physics_break", "black_frames": "artifacts",
    "technical": "artifacts",
}
#: a flicker swinging ±this many luma levels (±25 % of mid grey), or more, is as bad as a flicker gets
FLICKER_FULL_LEVELS = 32.0
#: a shake jumping this many px/frame off the camera's path (at a 256-px short side), or more, is as bad as shake gets
SHAKE_FULL_PX = 16.0
#: the least severity of a fault that failed its probe: a fault found is never weightless
LEAST_SEVERITY = 0.25
#: probes whose fault over this share of the clip ruins it: such a clip loses to any clip that is not ruined
RUINING_PROBES = ("black_frames", "frozen_frames")
RUINED_SHARE = 0.5
#: two clips' faults in a group are of like weight (a tie in that group) when their weights differ by at most this
LIKE_WEIGHT = 0.1


@dataclass(frozen=True)
class ProbesPairVerdict(Outcome):
    """The probes' comparison of two clips on the probed dimensions; ``abstained`` lists what was not judged.

    ``passed``: the candidate is not worse on the probed dimensions (better, with ``pass_on: win``).
    """

    systems: tuple[str, str]
    winner: str  # a system or "tie", on the probed dimensions only
    decided_by: str | None  # the probed group that decided, None on a tie
    primary_tag: str
    secondary_tags: tuple[str, ...]
    faults: Mapping[str, Mapping[str, tuple[str, ...]]]  # system -> group -> failed probes
    passed_share: Mapping[str, Mapping[str, float]]  # system -> group -> share of its gating probes that passed
    reasons: Mapping[str, Mapping[str, str]]  # system -> failed probe -> its reason
    weights: Mapping[str, Mapping[str, float]]  # system -> group -> its faults' weight (share ruined × severity, summed)
    ruined: Mapping[str, float]  # system -> the largest share of it black or frozen (a failed probe's)
    fault_weights: Mapping[str, Mapping[str, float]]  # system -> failed probe -> its weight (share ruined × severity)
    abstained: tuple[str, ...]
    pass_on: str = "win_or_tie"
    identical: bool = False  # the two clips are the same bytes (probed once)
    protocol: str = "ab-v1"  # the A/B protocol's id

    @property
    def ratings(self) -> dict[str, dict[str, float]]:
        """System -> probed group -> its rating: 1 − its faults' weight, at least 0 (1: no fault)."""
        return {system: {group: round(max(0.0, 1.0 - weight), 4) for group, weight in groups.items()}
                for system, groups in self.weights.items()}

    judged = True

    def weighing(self) -> str:
        """Why the faults decided as they did: a ruined clip, heavier faults, or faults of like weight."""
        if self.winner == TIE:
            return "faults of like weight" if self.primary_tag == "tie_both_flawed" else ""
        loser = self.systems[1] if self.winner == self.systems[0] else self.systems[0]
        if self.ruined[loser] >= RUINED_SHARE > self.ruined[self.winner]:
            return f"the {loser} clip is black or frozen for {self.ruined[loser]:.0%} of its length"
        group = self.decided_by or ""
        return (f"{group} faults weigh {self.weights[loser][group]:.2f} for {loser}, {self.weights[self.winner][group]:.2f} "
                f"for {self.winner} (the share of the clip they ruin)")

    def reason(self) -> str:
        """The verdict in one line: the outcome on the probed dimensions and what decided it, the tags,
        the dimensions not judged, each clip's faults."""
        head = f"{self.outcome()} on the probed dimensions (judge: probes)"
        head += ": the two clips are the same file" if self.identical else ""
        head += f", decided by {self.decided_by}" if self.decided_by else ""
        weighing = self.weighing()
        head += f": {weighing}" if weighing else ""
        parts = [head, f"tags: {', '.join(self.tags)}", "not judged (abstained, the probes cannot see them): "
                 + ", ".join(self.abstained)]
        for system in self.systems:
            found = [f"{p}: {reason}" for p, reason in self.reasons[system].items()]
            parts.append(f"{system} faults: " + ("; ".join(found) if found else "none"))
        return ". ".join(parts)

    def clip_reasons(self) -> dict[str, str]:
        """Per system, its clip's failed probes by probed group (``no fault`` for a clean group)."""
        return {system: "; ".join(f"{g}: {', '.join(ps) or 'no fault'}" for g, ps in self.faults[system].items())
                for system in self.systems}

    def part_reasons(self) -> dict[str, str]:
        """Each clip's faults by probed group, as ``<system> clip``."""
        return {f"{system} clip": text for system, text in self.clip_reasons().items()}

    def named_scores(self) -> dict[str, float]:
        """``ab_win`` and ``ab_probes_<system>_<group>`` (the group's rating: 1 − its faults' weight)."""
        named: dict[str, float] = {"ab_win": self.score}
        for system in self.systems:
            named.update({f"ab_probes_{system}_{group}": rating for group, rating in self.ratings[system].items()})
        return named

    def tokens_used(self) -> None:
        """None: the probes are offline."""
        return None

    def identity(self) -> dict[str, Any]:
        """Who judged: the probes, by the protocol."""
        return judge_identity(AB_JUDGE.name, PROBES_ENGINE, version=self.protocol)

    def metadata(self) -> dict[str, Any]:
        """The outcome on the probed dimensions, what decided it, each clip's faults and their weights, what was abstained."""
        dimensions = {**{g: "judged by the probes" for g in GROUPS}, **{d: "not judged (abstained)" for d in self.abstained}}
        return {
            "judge": AB_JUDGE.name, "mode": "probes", "judged": True, "winner": self.winner, "decided_by": self.decided_by,
            "primary_tag": self.primary_tag, "secondary_tags": list(self.secondary_tags), "abstained": list(self.abstained),
            "dimensions": dimensions, "faults": {s: {g: list(ps) for g, ps in f.items()} for s, f in self.faults.items()},
            "pass_on": self.pass_on, "fault_weights": {s: dict(w) for s, w in self.fault_weights.items()},
            "ruined_share": dict(self.ruined), "ratings": self.ratings, "identical": self.identical,
        }


def probe_clip(media: ContentRef, prompt: str, role: str) -> Any:
    """The probes' verdict on one local clip; MediaError naming ``role`` when it cannot be probed."""
    from reeljudge.probes import probe_clip

    if media.ref.path is None:
        raise MediaError(f"{role} {media.ref.ref}: remote clips are not probed offline; download it first, or use judge: gemini")
    try:
        return probe_clip(Path(media.ref.path), prompt=prompt)
    except MediaError as error:
        raise MediaError(f"{role} {media.ref.name}: {error.message}") from None


def fault_weight(result: ProbeResult, info: ClipInfo | None = None) -> float:
    """How much a failed probe's fault weighs: the share of the clip it ruins (its ``ruined_share``, or 1,
    the whole clip, when it has none) times how bad it is (``severity``)."""
    share = (result.details or {}).get("ruined_share")
    return round((1.0 if share is None else float(share)) * severity(result, info), 4)


def severity(result: ProbeResult, info: ClipInfo | None = None) -> float:
    """How bad a failed probe's fault is, from ``LEAST_SEVERITY`` to 1: a flicker by its largest swing
    against ``FLICKER_FULL_LEVELS``, a shake by its largest jump off the camera's path against
    ``SHAKE_FULL_PX`` (scaled to the clip's short side, from ``info``); any other fault (black or frozen
    frames, a cut, a technical fault, no motion) 1: the frames it names are lost."""
    runs = (result.details or {}).get("runs") or []
    if result.name == "flicker" and runs:
        amount = max(float(r.get("swing_levels", 0.0)) for r in runs) / 2 / FLICKER_FULL_LEVELS
    elif result.name == "camera_shake" and runs:
        short = min(getattr(info, "width", 256) or 256, getattr(info, "height", 256) or 256)
        amount = max(float(r.get("jitter_px", 0.0)) for r in runs) / (SHAKE_FULL_PX * short / 256.0)
    else:
        return 1.0
    return min(1.0, max(LEAST_SEVERITY, amount))


def tag_of(result: ProbeResult) -> str | None:
    """The protocol's reason tag for a failed probe: ``FAULT_TAGS``, but a freeze the picture jumps ahead
    from is ``scene_reset`` (time went on while the picture stood still: teleporting)."""
    if (result.name == "frozen_frames"
        and any("jumps ahead" in str(r.get("why", "")) for r in (result.details or {}).get("runs") or [])):
        return "scene_reset"
    return FAULT_TAGS.get(result.name)


def compare_probes(systems: tuple[str, str], verdicts: tuple[ProbesVerdict, ProbesVerdict], family: str,
                   protocol: Protocol | None = None,
                   pass_on: str = "win_or_tie", identical: bool = False) -> ProbesPairVerdict:
    """The comparison of two probe verdicts (``verdicts`` in the order of ``systems``; the default protocol
    when none), faults weighed; ``identical`` when both are the verdict on one file."""
    protocol = protocol or load_protocol()
    faults: dict[str, dict[str, tuple[str, ...]]] = {}
    shares: dict[str, dict[str, float]] = {}
    weights: dict[str, dict[str, float]] = {}
    reasons: dict[str, dict[str, str]] = {}
    ruined: dict[str, float] = {}
    per_fault: dict[str, dict[str, float]] = {}
    tags: dict[str, dict[str, str | None]] = {}
    for system, verdict in zip(systems, verdicts):
        results = verdict.by_name()
        faults[system], shares[system], weights[system] = {}, {}, {}
        reasons[system] = {r.name: r.reason for r in verdict.failed}
        per_fault[system] = {r.name: fault_weight(r, verdict.info) for r in verdict.failed}
        tags[system] = {r.name: tag_of(r) for r in verdict.failed}
        ruined[system] = max((share_ruined(r) for r in verdict.failed if r.name in RUINING_PROBES), default=0.0)
        for group, (probes, _) in GROUPS.items():
            gating = [results[p] for p in probes if p in results and results[p].gating]
            faults[system][group] = tuple(r.name for r in gating if not r.passed)
            shares[system][group] = (sum(r.passed for r in gating) / len(gating)) if gating else 1.0
            weights[system][group] = round(sum((per_fault[system][r.name] for r in gating if not r.passed), 0.0), 4)
    order = sorted(GROUPS, key=lambda g: protocol.priority.index(GROUPS[g][1]))
    winner, decided_by = _weigh(systems, faults, weights, ruined, order)
    primary, secondary = _tags(winner, systems, faults, per_fault, tags, decided_by, protocol.rules.secondary_tags_max)
    probed = {"temporal_consistency", "motion_physics"}
    abstained = tuple(d.id for d in protocol.dimensions_for(family) if d.id not in probed)
    return ProbesPairVerdict(systems, winner, decided_by, primary, secondary, faults, shares, reasons, weights, ruined,
                             per_fault, abstained, pass_on, identical, protocol.id)


def share_ruined(result: ProbeResult) -> float:
    """The share of the clip a failed probe's fault ruins (its ``ruined_share``; 1, the whole clip, when it has none)."""
    share = (result.details or {}).get("ruined_share")
    return 1.0 if share is None else float(share)


def _weigh(systems: tuple[str, str], faults: Mapping[str, Mapping[str, tuple[str, ...]]],
           weights: Mapping[str, Mapping[str, float]], ruined: Mapping[str, float], order: list[str]) -> tuple[str, str | None]:
    """(winner or TIE, the deciding group): a ruined clip loses to one that is not; then group by group, a
    clip with faults loses to one without, and heavier faults to lighter ones beyond ``LIKE_WEIGHT``."""
    a, b = systems
    if (ruined[a] >= RUINED_SHARE) != (ruined[b] >= RUINED_SHARE):
        return (b if ruined[a] >= RUINED_SHARE else a), "temporal_consistency"
    for group in order:
        has = [bool(faults[s][group]) for s in systems]
        wa, wb = weights[a][group], weights[b][group]
        if has[0] != has[1]:
            return (b if has[0] else a), group
        if abs(wa - wb) > LIKE_WEIGHT:
            return (a if wa < wb else b), group
    return TIE, None


def _tags(winner: str, systems: tuple[str, str], faults: Mapping[str, Mapping[str, tuple[str, ...]]],
          per_fault: Mapping[str, Mapping[str, float]], tags: Mapping[str, Mapping[str, str | None]], decided_by: str | None,
          most: int) -> tuple[str, tuple[str, ...]]:
    """The loser's fault tags (the deciding group's first, its heaviest fault first), or a tie reason."""
    if winner == TIE:
        flawed = any(any(groups.values()) for groups in faults.values())
        return ("tie_both_flawed" if flawed else "tie_both_good"), ()
    loser = systems[1] if winner == systems[0] else systems[0]
    deciding = sorted(faults[loser][decided_by or ""], key=lambda p: -per_fault[loser].get(p, 1.0))
    ordered = deciding + [p for g, ps in faults[loser].items() if g != decided_by for p in ps]
    found = list(dict.fromkeys(tag for p in ordered if (tag := tags[loser].get(p))))
    return found[0], tuple(found[1:1 + most])


def judge_with_probes(prompt: str, systems: tuple[str, str], clips: tuple[ContentRef, ContentRef], family: str,
                      protocol_id: str = "ab-v1", pass_on: str = "win_or_tie") -> ProbesPairVerdict:
    """Probe both clips and compare them (MediaError when a clip cannot be probed)."""
    protocol = load_protocol(protocol_id)
    protocol.family(family)
    first = probe_clip(clips[0], prompt, f"{systems[0]} clip")
    identical = clips[0].sha256 == clips[1].sha256
    second = first if identical else probe_clip(clips[1], prompt, f"{systems[1]} clip")
    return compare_probes(systems, (first, second), family, protocol, pass_on, identical)
