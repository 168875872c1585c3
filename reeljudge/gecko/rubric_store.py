"""Generated rubrics kept as data: one record per (prompt, media kind, generator settings, filter),
in the judge cache folder, exported to YAML for review and committing, and read back from YAML.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator, Mapping

from reeljudge.cache import JudgeCache, request_key
from reeljudge.errors import BadInputError
from reeljudge.gecko.questions import Question, Rubric, declared_questions

RECORD_KIND = "gecko.rubric"
EXPORT_HEADER = (
    "# Gecko rubrics exported by `reeljudge gecko export-rubrics`: review, edit, commit.\n"
    "# Use a file like this with the gecko assertion's `rubrics_file:` option (an entry is used as is\n"
    "# for tests whose prompt matches), or paste an entry's `qas:` into a test's vars.\n"
)


def record_key(prompt: str, media_kind: str, generator: Mapping[str, Any], validity_filter: bool) -> str:
    """The key of a rubric record."""
    return request_key({"kind": RECORD_KIND, "prompt": prompt, "media_kind": media_kind, "generator": dict(generator), "filter": validity_filter})


def _qa(question: Question) -> dict[str, Any]:
    return {"question": question.question, "choices": list(question.choices), "answer": question.answer, "tag": question.tag}


def save_rubric(cache: JudgeCache, rubric: Rubric, media_kind: str, generator: Mapping[str, Any], validity_filter: bool) -> None:
    """Record a generated rubric (kept and dropped questions) for export."""
    cache.put(
        record_key(rubric.prompt, media_kind, generator, validity_filter),
        RECORD_KIND,
        {
            "prompt": rubric.prompt,
            "media_kind": media_kind,
            "generator": dict(generator),
            "validity_filter": validity_filter,
            "keywords": rubric.keywords,
            "qas": [_qa(q) for q in rubric.kept],
            "dropped": [{"question": d.question.question, "check": d.check, "why": d.reason} for d in rubric.dropped],
        },
    )


def stored_rubrics(cache: JudgeCache) -> Iterator[dict[str, Any]]:
    """Every rubric record in a cache folder, oldest first."""
    records = []
    for path in cache.root.glob("*/*.json") if cache.root.is_dir() else []:
        try:
            entry = json.loads(path.read_bytes())
        except (OSError, ValueError):
            continue
        if isinstance(entry, dict) and entry.get("kind") == RECORD_KIND:
            records.append(entry)
    yield from sorted(records, key=lambda e: (e.get("created", 0), e.get("prompt", "")))


def export_yaml(records: list[Mapping[str, Any]]) -> str:
    """The YAML text of rubric records: prompt, media kind, generator, keywords, qas, dropped."""
    import yaml

    entries = [
        {
            "prompt": r["prompt"],
            "media_kind": r["media_kind"],
            "generator": r["generator"],
            "validity_filter": r["validity_filter"],
            "keywords": r["keywords"],
            "qas": r["qas"],
            **({"dropped": r["dropped"]} if r.get("dropped") else {}),
        }
        for r in records
    ]
    return EXPORT_HEADER + yaml.safe_dump(entries, sort_keys=False, allow_unicode=True, width=100)


def rubric_from_file(path: str | Path, prompt: str, media_kind: str) -> Rubric | None:
    """The rubric a YAML rubrics file holds for ``prompt`` (and media kind), or None; BadInputError if unreadable."""
    import yaml

    p = Path(path)
    try:
        entries = yaml.safe_load(p.read_text(encoding="utf-8"))
    except OSError as error:
        raise BadInputError(f"rubrics_file {p}: cannot read ({error.strerror or error})") from None
    except yaml.YAMLError as error:
        raise BadInputError(f"rubrics_file {p}: not valid YAML ({error})") from None
    if not isinstance(entries, list):
        raise BadInputError(f"rubrics_file {p}: must be a list of entries with prompt and qas")
    for entry in entries:
        if not isinstance(entry, Mapping) or str(entry.get("prompt", "")).strip() != prompt.strip():
            continue
        if entry.get("media_kind", media_kind) != media_kind:
            continue
        questions = declared_questions(entry.get("qas"), test=f"{p.name}: {prompt[:40]}", var="qas")
        return Rubric(prompt=prompt, source="file", kept=questions, keywords=str(entry.get("keywords") or ""))
    return None
