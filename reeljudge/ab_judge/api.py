"""``reeljudge.judge_pair``: the A/B judge as one Python call, with a typed result.

The same pieces serve the promptfoo assertion and the batch command: ``make_pair`` resolves and
hashes the clips, ``judge`` runs the judge the options choose (Gemini by the protocol, or the
offline probes).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from reeljudge.ab_judge.options import ABJudgeOptions, load
from reeljudge.ab_judge.pair import MediaParts, Pair, judge_pair_media
from reeljudge.ab_judge.verdict import PairVerdict
from reeljudge.errors import JudgeError, MediaError
from reeljudge.gemini.client import JudgeClient
from reeljudge.gemini.settings import JudgeSettings
from reeljudge.judging import AB_JUDGE
from reeljudge.media.carriers import Where
from reeljudge.media.refs import ContentRef
from reeljudge.media.resolver import Candidate, Located, open_candidate

if TYPE_CHECKING:  # the offline judge and NotJudged are loaded when used, not on a cache hit
    from reeljudge.ab_judge.probes_judge import ProbesPairVerdict
    from reeljudge.not_judged import NotJudged

OFFLINE_HINT = ("; or choose judge: probes (offline: temporal and technical dimensions from the video probes, "
                "adherence not judged)")


def clip_where(options: ABJudgeOptions, settings: JudgeSettings) -> Where:
    """Where the judge's clips are looked up: the options' base folder, and the settings' judge cache (which
    remembers a large clip's hash)."""
    return Where(base_dir=Path(options.base_dir) if options.base_dir else None, memo=settings.judge_cache())


def locate_clip(ref: str | Candidate, role: str, where: Where) -> Located:
    """A clip reference (any carrier) opened and hashed; MediaError naming ``role``, the carrier and the problem."""
    candidate = ref if isinstance(ref, Candidate) else Candidate(ref, role)
    return open_candidate(candidate, ("video",), where)


def resolve_clip(ref: str | Candidate, role: str, where: Where) -> ContentRef:
    """A clip reference (any carrier) opened and hashed; MediaError naming ``role`` when it is unusable."""
    return locate_clip(ref, role, where).media


def make_pair(prompt: str, systems: tuple[str, str], refs: tuple[str | Candidate, str | Candidate], options: ABJudgeOptions,
              where: Where, *, family: str | None = None, source: str | None = None,
              roles: tuple[str, str] | None = None) -> Pair:
    """The pair to judge, with its clips opened and hashed (MediaError naming the clip that is unusable)."""
    roles = roles or (f"{systems[0]} clip", f"{systems[1]} clip")
    clips = (resolve_clip(refs[0], roles[0], where), resolve_clip(refs[1], roles[1], where))
    return pair_of(prompt, systems, clips, options, where, family=family, source=source, roles=roles)


def pair_of(prompt: str, systems: tuple[str, str], clips: tuple[ContentRef, ContentRef], options: ABJudgeOptions,
            where: Where, *, family: str | None = None, source: str | None = None,
            roles: tuple[str, str] = ("clip A", "clip B")) -> Pair:
    """The pair of two opened clips (MediaError when the source clip is unusable, or when they are the same
    clip and the judge is Gemini: the offline probes judge identical clips a tie, having probed them once)."""
    if clips[0].sha256 == clips[1].sha256 and options.judge != "probes":
        raise MediaError(f"{roles[0]} and {roles[1]} are the same clip ({clips[0].ref.name}): there is nothing to compare "
                         "(judge: probes judges two identical clips a tie)")
    src = resolve_clip(source, "source clip", where) if source else None
    return Pair(prompt, family or options.family, systems, clips, src)


def judge(pair: Pair, options: ABJudgeOptions, settings: JudgeSettings, *, client: JudgeClient | None = None,
          media: MediaParts | None = None) -> PairVerdict | ProbesPairVerdict:
    """The verdict of the judge ``options.judge`` names; JudgeError/MediaError when it did not judge."""
    if options.judge == "probes":
        from reeljudge.ab_judge.probes_judge import judge_with_probes

        return judge_with_probes(pair.prompt, pair.systems, pair.clips, pair.family, options.protocol, options.pass_on)
    if client is None:
        from reeljudge.batch.planner import judge_client

        client = judge_client(settings)
    try:
        return judge_pair_media(pair, options, client, media)
    except JudgeError as error:
        if error.kind == "no_credentials":
            raise JudgeError(error.message + OFFLINE_HINT, kind=error.kind) from None
        raise


def judge_pair(prompt: str, clip_a: str, clip_b: str, *, source: str | None = None,
               **options: Any) -> PairVerdict | ProbesPairVerdict | NotJudged:
    """Compare ``clip_a`` (the candidate) with ``clip_b`` (the reference) for ``prompt`` by the A/B protocol.

    ``options`` are the assertion's options and Gemini settings (``orders=1``, ``family="edit"``,
    ``judge="probes"``, ``model=…``); ``source`` is the source clip of an edit task. The systems
    are named ``clip_a`` and ``clip_b``. Returns the verdict (``winner``, ``ratings``, ``tags``,
    ``consistent``, ``passed`` when clip_a wins or ties), or ``NotJudged`` saying why the judge did
    not judge; bad options raise BadInputError.

    Example::

        v = reeljudge.judge_pair("A red kite over a meadow", "new.mp4", "baseline.mp4")
        v.winner, v.consistent, v.ratings["clip_a"]["prompt_adherence"]
    """
    opts, settings = load(options, owner="judge_pair")
    try:
        pair = make_pair(prompt, ("clip_a", "clip_b"), (clip_a, clip_b), opts, clip_where(opts, settings), source=source)
        return judge(pair, opts, settings)
    except (JudgeError, MediaError) as error:
        from reeljudge.not_judged import NotJudged

        return NotJudged.from_error(AB_JUDGE.name, error)
