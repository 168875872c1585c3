"""Generated question sets kept as data: one record per (prompt, media kind, generator settings, filter),
in the judge cache folder, exported to YAML for review and committing, and read back from YAML.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Mapping, Sequence

from reeljudge.cache import JudgeCache
from reeljudge.errors import BadInputError
from reeljudge.gecko.questions import Question, QuestionSet, declared_questions

if TYPE_CHECKING:  # pragma: no cover - typing only
    from reeljudge.gemini.client import JudgeClient

RECORD_KIND = "gecko.question_set"
EXPORT_HEADER = (
    "# Gecko question sets exported by `reeljudge gecko export-questions`: review, edit, commit.\n"
    "# Use a file like this with the gecko assertion's `questions_file:` option (an entry is used as is\n"
    "# for tests whose prompt matches), or paste an entry's `qas:` into a test's vars.\n"
)


def _qa(question: Question) -> dict[str, Any]:
    return {"question": question.question, "choices": list(question.choices), "answer": question.answer, "tag": question.tag}


def save_questions(client: "JudgeClient", question_set: QuestionSet, media_kind: str, validity_filter: bool) -> None:
    """Record a generated question set (kept and dropped questions) for export, once per identity."""
    assert client.cache is not None
    generator = client.settings.generation_fingerprint()
    identity = {"prompt": question_set.prompt, "media_kind": media_kind, "generator": generator, "filter": validity_filter}
    if client.cache.get_record(RECORD_KIND, identity) is not None:
        return
    client.cache.put_record(RECORD_KIND, identity, {
        "prompt": question_set.prompt,
        "media_kind": media_kind,
        "generator": dict(generator),
        "validity_filter": validity_filter,
        "keywords": question_set.keywords,
        "qas": [_qa(q) for q in question_set.kept],
        "dropped": [{"question": d.question.question, "check": d.check, "why": d.reason} for d in question_set.dropped],
    })


def stored_question_sets(cache: JudgeCache) -> Iterator[dict[str, Any]]:
    """Every question set record in a cache folder, oldest first."""
    yield from sorted(cache.entries(RECORD_KIND), key=lambda e: (e.get("created", 0), e.get("prompt", "")))


def export_yaml(records: Sequence[Mapping[str, Any]]) -> str:
    """The YAML text of question set records: prompt, media kind, generator, keywords, qas, dropped."""
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


def questions_from_file(path: str | Path, prompt: str, media_kind: str) -> QuestionSet | None:
    """The question set a YAML question sets file holds for ``prompt`` (and media kind), or None; BadInputError if unreadable."""
    import yaml

    p = Path(path)
    try:
        entries = yaml.safe_load(p.read_text(encoding="utf-8"))
    except OSError as error:
        raise BadInputError(f"questions_file {p}: cannot read ({error.strerror or error})") from None
    except yaml.YAMLError as error:
        raise BadInputError(f"questions_file {p}: not valid YAML ({error})") from None
    if not isinstance(entries, list):
        raise BadInputError(f"questions_file {p}: must be a list of entries with prompt and qas")
    for entry in entries:
        if not isinstance(entry, Mapping) or str(entry.get("prompt", "")).strip() != prompt.strip():
            continue
        if entry.get("media_kind", media_kind) != media_kind:
            continue
        questions = declared_questions(entry.get("qas"), test=f"{p.name}: {prompt[:40]}", var="qas")
        return QuestionSet(prompt=prompt, source="file", kept=questions, keywords=str(entry.get("keywords") or ""))
    return None
