"""Judgement records: one rater's verdict on one sample, as JSON checked against one schema.

The schema (``protocols/judgement.schema.json``) is used by every writer (the rating server, model
raters) and reader (report, exports, calibration). The winner is named by *system*; ``shown``
says which system's clip the rater saw on which side. ``Judgement`` is the typed view readers use.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Mapping

from reeljudge.ab.store.protocol import PROTOCOL_DIR, TIE
from reeljudge.errors import BadInputError

SCHEMA_ID = "reeljudge.ab.judgement/1"
SCHEMA_FILE = PROTOCOL_DIR / "judgement.schema.json"
#: the most a stored record may take (UTF-8 JSON): the page's longest watch log (500 events of about 95 bytes), the
#: longest note and the evidence fit in 52 KB; a record over it is refused, so a store grows by bounded records
MAX_RECORD_BYTES = 64 * 1024
#: what a rater's name may be (a person's invite name or a model judge's); never "tie"
RATER_ID = re.compile(r"\A[A-Za-z0-9_.:@-]{1,64}\Z")  # \Z: "$" would let a final newline through


class RecordError(BadInputError):
    """A judgement record does not follow the schema or contradicts its own sample."""

    kind = "bad_record"


@dataclass(frozen=True)
class Judgement:
    """The fields of a record that statistics read, typed. ``record`` keeps the whole JSON."""

    record_id: str
    sample_id: str
    family: str
    rater: str
    rater_kind: str
    systems: tuple[str, str]  # the systems shown as (A, B)
    winner: str  # a system name or "tie"
    primary_tag: str
    secondary_tags: tuple[str, ...]
    ratings: Mapping[str, Mapping[str, int]]  # system -> dimension -> 1..5
    created_at: str
    inconsistent: bool
    record: Mapping[str, Any]

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> "Judgement":
        """The typed view of a stored record."""
        return cls(
            record["record_id"], record["sample_id"], record["family"], record["rater"]["id"], record["rater"]["kind"],
            (record["shown"]["A"]["system"], record["shown"]["B"]["system"]), record["winner"], record["primary_tag"],
            tuple(record["secondary_tags"]), record["ratings"], record["created_at"],
            bool(record.get("inconsistent", False)), record,
        )

    @property
    def tags(self) -> tuple[str, ...]:
        """Primary then secondary tags."""
        return (self.primary_tag, *self.secondary_tags)

    @property
    def loser(self) -> str | None:
        """The losing system, or None on a tie."""
        if self.winner == TIE:
            return None
        return self.systems[1] if self.winner == self.systems[0] else self.systems[0]


def as_judgements(records: Iterable[Judgement | Mapping[str, Any]]) -> list[Judgement]:
    """Typed views of records given as dicts or Judgements."""
    return [r if isinstance(r, Judgement) else Judgement.from_record(r) for r in records]


def now_iso() -> str:
    """The current UTC time as ISO 8601 with milliseconds."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def build_record(
    *,
    sample_id: str,
    family: str,
    protocol: str,
    shown: Mapping[str, str],
    clips: Mapping[str, str],
    form: Mapping[str, Any],
    rater_id: str,
    rater_kind: str = "human",
    model: str | None = None,
    submission_id: str | None = None,
    watch: Mapping[str, Any] | None = None,
    served_at: str | None = None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A record from a verdict in side terms (``form``: winner A/B/tie, tags, ratings per side, note).

    ``shown`` maps side → system and ``clips`` side → clip sha256. ``extra`` may set the model
    rater fields ``inconsistent`` and ``judge``. The result is validated before it is returned.
    """
    import uuid  # here: uuid imports platform, and a cache hit builds no record
    submitted = now_iso()
    winner_side = form["winner"]
    record: dict[str, Any] = {
        "schema": SCHEMA_ID,
        "record_id": uuid.uuid4().hex,
        "submission_id": submission_id or uuid.uuid4().hex,
        "protocol": protocol,
        "sample_id": sample_id,
        "family": family,
        "rater": {"id": rater_id, "kind": rater_kind, **({"model": model} if model else {})},
        "shown": {side: {"system": shown[side], "clip": clips[side]} for side in ("A", "B")},
        "winner": TIE if winner_side == TIE else shown[winner_side],
        "winner_side": winner_side,
        "primary_tag": form["primary_tag"],
        "secondary_tags": list(form.get("secondary_tags") or []),
        "ratings": {shown[side]: dict((form.get("ratings") or {}).get(side) or {}) for side in ("A", "B")},
        "note": (form.get("note") or None),
        "watch": dict(watch or {"full_plays": {"A": 0, "B": 0}, "log": []}),
        "timings": {"served_at": served_at, "submitted_at": submitted, "seconds": _seconds(served_at, submitted)},
        **dict(extra or {}),
        "created_at": submitted,
    }
    validate_record(record)
    return record


def _seconds(start: str | None, end: str) -> float | None:
    """Seconds between two ISO times (None when the start is unknown)."""
    if not start:
        return None
    parse = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00"))  # noqa: E731
    return round(max(0.0, (parse(end) - parse(start)).total_seconds()), 3)


@lru_cache(maxsize=1)
def _validator() -> Any:
    """The compiled JSON Schema validator (Draft 2020-12)."""
    import json

    import jsonschema

    schema = json.loads(Path(SCHEMA_FILE).read_text(encoding="utf-8"))
    strict = jsonschema.validators.extend(jsonschema.Draft202012Validator, {"pattern": _ecma_pattern})
    return strict(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def _ecma_pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Any:
    """JSON Schema's ``pattern`` as ECMA-262 reads it: a final ``$`` is the end of the string.

    Python's ``$`` also matches before a final newline, so ``"abcdefgh\\n"`` passed ``^[a-z]+$``.
    """
    import jsonschema

    if not isinstance(instance, str):
        return
    anchored = pattern[:-1] + r"\Z" if pattern.endswith("$") and not pattern.endswith(r"\$") else pattern
    if re.search(anchored, instance) is None:
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


def _schema_message(error: Any) -> str:
    """A schema error's message, without the offending value when it quotes a long one (a 500-event log is not a message)."""
    if len(str(error.message)) <= 240:
        return str(error.message)
    return f"breaks the schema's {error.validator} rule ({str(error.validator_value)[:80]})"


def validate_record(record: Mapping[str, Any]) -> None:
    """RecordError naming the first problem if ``record`` breaks the schema, contradicts itself or takes more than
    ``MAX_RECORD_BYTES``."""
    import json

    errors = sorted(_validator().iter_errors(record), key=lambda e: list(e.absolute_path))
    if errors:
        where = "/".join(str(p) for p in errors[0].absolute_path) or "(record)"
        raise RecordError(f"judgement record {record.get('record_id', '?')}: {where}: {_schema_message(errors[0])}")
    size = len(json.dumps(record, ensure_ascii=False).encode("utf-8"))
    if size > MAX_RECORD_BYTES:
        raise RecordError(f"judgement record {record['record_id']}: {size} bytes, more than a record may take "
                          f"({MAX_RECORD_BYTES})")
    systems = {record["shown"]["A"]["system"], record["shown"]["B"]["system"]}
    if len(systems) != 2:
        raise RecordError(f"judgement record {record['record_id']}: both sides show the same system")
    if record["winner"] != TIE and record["winner"] not in systems:
        raise RecordError(f"judgement record {record['record_id']}: winner {record['winner']!r} is not a shown system")
    if not set(record["ratings"]) <= systems:
        raise RecordError(f"judgement record {record['record_id']}: ratings name a system that was not shown")
