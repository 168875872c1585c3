"""The A/B judge's instructions and reply schema, kept in step with the protocol file.

``rubrics/ab_judge.<protocol>.md`` is our instruction text: hand-written prose around sections that
are *generated* from ``protocols/<protocol>.yaml`` (the instructions, the priority order, the
dimensions with their anchors, the reason tags, the reply rules), each between
``<!-- generated: NAME … -->`` and ``<!-- end generated: NAME -->``. ``rubrics/ab_judge.<protocol>.schema.json``
is the JSON Schema of the reply, generated whole; ``protocols/<protocol>.parsed.json`` is the protocol
file's parsed twin (``reeljudge.ab.store.protocol``: a cache hit reads it instead of loading a YAML parser).
A test regenerates all three and fails when a file differs, so the judge's text and the protocol
cannot drift; ``python -m reeljudge.ab_judge.rubric --write`` brings them back in step.

For one request the schema is narrowed to the task family (its dimensions required, its tags only).
"""

from __future__ import annotations

import copy
import json
import re
import sys
from functools import lru_cache
from typing import Any

from reeljudge.ab.store.protocol import PROTOCOL_DIR, Protocol, load_protocol, twin_path, twin_text
from reeljudge.errors import ReelJudgeError
from reeljudge.gemini.prompts import read_rubric, rubrics_dir

SECTIONS = ("instructions", "priority", "dimensions", "tags", "rules")
_BLOCK = re.compile(r"(<!-- generated: (\w+)[^>]*-->\n)(.*?)(<!-- end generated: \2 -->)", re.DOTALL)
_COMMENT = re.compile(r"^<!--.*?-->\n?", re.DOTALL | re.MULTILINE)
PRIORITY_WORDS = {"adherence": "prompt adherence", "stability": "temporal and identity stability",
                  "edit_precision": "edit precision", "realism": "realism (motion and physics)", "overall": "overall quality"}


def rubric_name(protocol_id: str) -> str:
    """The instruction file of the judge for one protocol version."""
    return f"ab_judge.{protocol_id}.md"


def schema_name(protocol_id: str) -> str:
    """The reply schema file of the judge for one protocol version."""
    return f"ab_judge.{protocol_id}.schema.json"


def _families(ids: tuple[str, ...]) -> str:
    return f" ({', '.join(ids)} tasks only)" if ids else ""


def sections(protocol: Protocol) -> dict[str, str]:
    """The text of every generated section, from the protocol alone."""
    dims = protocol.dimensions
    priority = []
    for rank, group in enumerate(protocol.priority, 1):
        members = ", ".join(f"`{d.id}`" for d in dims if d.priority == group)
        priority.append(f"{rank}. {PRIORITY_WORDS.get(group, group)}" + (f": {members}" if members else ""))
    dimension_lines = []
    for d in dims:
        dimension_lines.append(f"- `{d.id}`: {d.label}{_families(d.families)}")
        dimension_lines += [f"  - {score}: {text}" for score, text in sorted(d.anchors.items(), reverse=True)]
    tag_lines = []
    for tags in protocol.groups:
        scope = ("reasons for a tie; only with winner \"tie\"" if tags.get("scope") == "tie"
                 else "failures of the losing clip; only with a winner")
        families = tuple(tags.get("families") or ())
        tag_lines.append(f"{tags['label']} ({scope}" + (f"; {', '.join(families)} tasks only" if families else "") + "):")
        tag_lines += [f"- `{t['id']}`: {t['label']}" for t in tags["tags"]]
    r = protocol.rules
    winners = ", ".join(f'"{w}"' for w in r.winners)
    rules = [
        f"- `winner`: one of {winners}. Choose \"tie\" only when the two clips are truly indistinguishable.",
        f"- `primary_tag`: exactly {r.primary_tags} tag id, the main reason for your verdict.",
        f"- `secondary_tags`: 0 to {r.secondary_tags_max} further tag ids, each once, none equal to the primary tag.",
        "- Failure tags describe the losing clip: never use them with \"tie\". With a winner, never use a tie reason.",
        "- A tag group marked for some task families is used only on tasks of those families.",
        "- `ratings`: for clip \"A\" and clip \"B\", every dimension the task lists, each a whole number from 1 to 5; "
        "no dimension the task does not list." if r.ratings_required else
        "- `ratings`: for clip \"A\" and clip \"B\", dimensions the task lists, each a whole number from 1 to 5.",
        f"- `note`: at most {r.note_max_sentences} sentences and {r.note_max_chars} characters for a hard case, or null.",
    ]
    return {
        "instructions": "\n".join(f"- {line}" for line in protocol.instructions),
        "priority": "\n".join(priority),
        "dimensions": "\n".join(dimension_lines),
        "tags": "\n".join(tag_lines),
        "rules": "\n".join(rules),
    }


def render(text: str, protocol: Protocol) -> str:
    """``text`` with every generated section rewritten from ``protocol``; ReelJudgeError if one is missing."""
    wanted = sections(protocol)
    found = {m.group(2) for m in _BLOCK.finditer(text)}
    missing = [name for name in SECTIONS if name not in found]
    if missing:
        raise ReelJudgeError(f"A/B judge rubric lacks the generated section(s) {', '.join(missing)}", kind="config_error")
    return _BLOCK.sub(lambda m: f"{m.group(1)}{wanted.get(m.group(2), m.group(3).rstrip())}\n{m.group(4)}", text)


def reply_schema(protocol: Protocol) -> dict[str, Any]:
    """The JSON Schema of a reply under ``protocol``: the judgement record's fields in side terms."""
    tags = list(protocol.tags)
    dims = {d.id: {"type": "integer", "minimum": 1, "maximum": 5, "description": d.label} for d in protocol.dimensions}
    ratings = {"type": "object", "properties": dims, "additionalProperties": False}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://reeljudge.invalid/schemas/ab-judge-reply-{protocol.id}.json",
        "title": f"A/B judge reply (protocol {protocol.id})",
        "type": "object",
        "properties": {
            "ratings": {"type": "object", "properties": {"A": ratings, "B": copy.deepcopy(ratings)},
                        "required": ["A", "B"], "additionalProperties": False},
            "winner": {"type": "string", "enum": list(protocol.rules.winners)},
            "primary_tag": {"type": "string", "enum": tags},
            "secondary_tags": {"type": "array", "maxItems": protocol.rules.secondary_tags_max,
                               "items": {"type": "string", "enum": tags}},
            "note": {"type": ["string", "null"], "maxLength": protocol.rules.note_max_chars},
        },
        "required": ["ratings", "winner", "primary_tag", "secondary_tags", "note"],
        "additionalProperties": False,
    }


@lru_cache(maxsize=16)
def _files(protocol_id: str) -> tuple[str, str]:
    """(instruction text, schema text) of one protocol's judge; ReelJudgeError naming what is missing."""
    try:
        text, schema = read_rubric(rubric_name(protocol_id)), read_rubric(schema_name(protocol_id))
    except ReelJudgeError:
        raise ReelJudgeError(
            f"no A/B judge rubric for protocol {protocol_id} ({rubric_name(protocol_id)} and {schema_name(protocol_id)} "
            f"in {rubrics_dir().name}/); write them with: python -m reeljudge.ab_judge.rubric --protocol {protocol_id} --write",
            kind="config_error",
        ) from None
    return text, schema


def system_text(protocol_id: str) -> str:
    """The instruction text sent to the judge (the rubric file without its HTML comments)."""
    return _COMMENT.sub("", _files(protocol_id)[0]).strip() + "\n"


def family_schema(protocol: Protocol, family: str) -> dict[str, Any]:
    """The reply schema for one task: the family's dimensions required for both clips, its tags only."""
    protocol.family(family)
    schema = json.loads(_files(protocol.id)[1])
    dims = [d.id for d in protocol.dimensions_for(family)]
    tags = [t.id for t in protocol.tags.values() if t.applies_to(family)]
    for side in ("A", "B"):
        block = schema["properties"]["ratings"]["properties"][side]
        block["properties"] = {d: block["properties"][d] for d in dims}
        block["required"] = dims
    schema["properties"]["primary_tag"]["enum"] = tags
    schema["properties"]["secondary_tags"]["items"]["enum"] = tags
    return schema


def stale_files(protocol_id: str) -> list[str]:
    """The judge files of ``protocol_id`` that differ from what the protocol file generates."""
    protocol = load_protocol(protocol_id)
    text, schema = _files.__wrapped__(protocol_id)
    stale = []
    if render(text, protocol) != text:
        stale.append(rubric_name(protocol_id))
    if json.loads(schema) != reply_schema(protocol):
        stale.append(schema_name(protocol_id))
    twin = twin_path(PROTOCOL_DIR / f"{protocol_id}.yaml")
    if not twin.is_file() or twin.read_text(encoding="utf-8") != twin_text(protocol_id):
        stale.append(twin.name)
    return stale


def write(protocol_id: str, template_protocol: str = "ab-v1") -> list[str]:
    """Regenerate the judge files of ``protocol_id`` and the protocol's parsed twin (a new version starts from
    ``template_protocol``'s prose)."""
    protocol = load_protocol(protocol_id)
    folder = rubrics_dir()
    target = folder / rubric_name(protocol_id)
    source = target if target.exists() else folder / rubric_name(template_protocol)
    text = source.read_text(encoding="utf-8").replace(f"protocols/{template_protocol}.yaml", f"protocols/{protocol_id}.yaml")
    target.write_text(render(text, protocol), encoding="utf-8")
    (folder / schema_name(protocol_id)).write_text(json.dumps(reply_schema(protocol), indent=2, ensure_ascii=False)
                                                   + "\n", encoding="utf-8")
    twin, text = twin_path(PROTOCOL_DIR / f"{protocol_id}.yaml"), twin_text(protocol_id)
    if not twin.is_file() or twin.read_text(encoding="utf-8") != text:
        twin.write_text(text, encoding="utf-8")
    _files.cache_clear()
    return [target.name, schema_name(protocol_id), twin.name]


def main(argv: list[str] | None = None) -> int:
    """``python -m reeljudge.ab_judge.rubric [--protocol ID] [--write]``: check (exit 1 when stale) or rewrite."""
    import argparse  # here: the check command only

    parser = argparse.ArgumentParser(description="Check or regenerate the A/B judge's rubric and reply schema "
                                                 "from the protocol file.")
    parser.add_argument("--protocol", default="ab-v1")
    parser.add_argument("--write", action="store_true", help="rewrite the generated parts")
    args = parser.parse_args(argv)
    if args.write:
        print("written: " + ", ".join(write(args.protocol)))
        return 0
    stale = stale_files(args.protocol)
    print("stale: " + ", ".join(stale) if stale else f"in step with protocols/{args.protocol}.yaml")
    return 1 if stale else 0


if __name__ == "__main__":
    from reeljudge.exits import run

    sys.exit(run("python -m reeljudge.ab_judge.rubric", lambda _: main(), None))
