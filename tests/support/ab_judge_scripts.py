"""Fake-server scripts for the A/B judge (test support): replies chosen by which clip is on which side.

An A/B judge request carries the prompt as data and the clips as media parts (inline bytes or an
uploaded file's URI). ``shown_clips`` reads the clips' sha256 back from a request body, so a rule
can answer "the clip on side A is this one": ``on_order`` scripts one order, ``prefer`` makes a
consistent judge (the better clip wins on whichever side it is), ``side_bias`` a judge that always
picks one side (a flip when the sides are swapped). ``grade`` runs the assertion on a new clip against
a reference, as promptfoo calls it (the A/B judge tests and the batch tests share it).
"""

from __future__ import annotations

import base64
import hashlib
import json
from typing import TYPE_CHECKING, Any, Iterable

from reeljudge.ab_judge.request import USER_MARKER
from reeljudge.gemini.prompts import neutralise
from support.paths import CLIPS

if TYPE_CHECKING:
    from support.fake_gemini import MatchFunction

CLEAN = str(CLIPS / "gen_clean.mp4")
FLICKER = str(CLIPS / "gen_flicker.mp4")
PROMPT = "A red ball rolls past a textured wall while the camera pans"
DIMENSIONS = ("prompt_adherence", "temporal_consistency", "identity_consistency", "motion_physics")


def _media_parts(body: dict[str, Any]) -> Iterable[dict[str, Any]]:
    contents = body.get("contents") or []
    first = contents[0] if contents and isinstance(contents[0], dict) else {}
    for part in first.get("parts") or []:
        if isinstance(part, dict) and any(k in part for k in ("inlineData", "inline_data", "fileData", "file_data")):
            yield part


def shown_clips(fake: Any, body: dict[str, Any]) -> list[str]:
    """The sha256 of every media part of a request's first turn, in order (source, A, B)."""
    shas = []
    for part in _media_parts(body):
        inline = part.get("inlineData") or part.get("inline_data")
        if inline:
            text = str(inline["data"]).replace("-", "+").replace("_", "/")
            data = base64.b64decode(text + "=" * (-len(text) % 4))  # google-genai sends URL-safe base64, unpadded
        else:
            ref = part.get("fileData") or part["file_data"]  # _media_parts yields only parts with media
            uri = ref.get("fileUri") or ref.get("file_uri")
            stored = fake.files.get(uri.rsplit("/", 1)[-1])
            data = stored.data if stored else uri.encode()
        shas.append(hashlib.sha256(data).hexdigest())
    return shas


def verdict_reply(winner: str, primary: str, *, secondary: Iterable[str] = (), ratings: dict[str, dict[str, int]] | None = None,
                  note: str | None = None, dims: Iterable[str] = DIMENSIONS) -> dict[str, Any]:
    """A reply object in the judge's schema; default ratings favour the winner (5 vs 2; a tie 4 and 4)."""
    dims = tuple(dims)
    if ratings is None:
        good, bad = {d: 5 for d in dims}, {d: 2 for d in dims}
        ratings = ({"A": good, "B": bad} if winner == "A" else {"A": bad, "B": good} if winner == "B"
                   else {"A": {d: 4 for d in dims}, "B": {d: 4 for d in dims}})
    return {"ratings": ratings, "winner": winner, "primary_tag": primary, "secondary_tags": list(secondary), "note": note}


def is_pair_request(prompt: str | None = None) -> MatchFunction:
    """A matcher for A/B judge requests (about ``prompt`` when given)."""
    needle = neutralise(prompt) if prompt is not None else None
    return lambda body, text: USER_MARKER in text and (needle is None or needle in text)


def on_order(fake: Any, prompt: str | None, a_sha: str, *replies: dict[str, Any], times: int | None = None) -> Any:
    """Answer the order of ``prompt`` whose side A shows the clip ``a_sha`` with ``replies`` (in turn)."""
    pair = is_pair_request(prompt)
    return fake.on(lambda body, text: pair(body, text) and shown_clips(fake, body)[-2] == a_sha, *replies, times=times)


def reply(value: Any, *, prompt_tokens: int = 2600, output_tokens: int = 90) -> dict[str, Any]:
    """The fake server's reply carrying ``value`` as JSON text (a string is sent as it is)."""
    text = value if isinstance(value, str) else json.dumps(value)
    return {"kind": "text", "text": text, "finish": "STOP", "usage": (prompt_tokens, output_tokens), "logprobs": None}


def prefer(fake: Any, prompt: str | None, better: str, worse: str, tag: str = "flicker", **kwargs: Any) -> None:
    """A consistent judge: the clip ``better`` wins in both orders (``tag`` names the loser's failure)."""
    on_order(fake, prompt, better, reply(verdict_reply("A", tag, **kwargs)))
    on_order(fake, prompt, worse, reply(verdict_reply("B", tag, **kwargs)))


def side_bias(fake: Any, prompt: str | None, side: str = "A", tag: str = "flicker") -> None:
    """A judge that always picks ``side``: swapping the clips flips its verdict."""
    fake.on(is_pair_request(prompt), reply(verdict_reply(side, tag)))


def grade(new: str = CLEAN, reference: str = FLICKER, prompt: str = PROMPT, **config: Any) -> dict[str, Any]:
    """The A/B judge assertion's result for ``new`` against ``reference``, called as promptfoo calls it."""
    from reeljudge.assertions.ab_judge import get_assert

    context = {"vars": {"prompt": prompt, "reference": reference}, "config": config, "test": {"description": "t"}}
    return get_assert(new, {**context, "providerResponse": {"output": new, "metadata": {"clip_path": new}}})
