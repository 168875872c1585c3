"""Samples from where users have them: promptfoo results files and YAML/CSV manifests.

Every clip is checked (exists, decodes, plays in a browser), blinded (its names stripped, or
re-encoded to one profile: ``ClipStore.intake``), hashed and copied into the clip store. An import
is all or nothing: every problem is collected, named by file, row and field, and nothing is stored
unless all rows are good.
"""

from __future__ import annotations

import itertools
import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from reeljudge.ab.store.protocol import Protocol
from reeljudge.ab.store.samples import RESERVED_SYSTEMS, Clip, ClipStore, Sample, make_sample
from reeljudge.errors import BadInputError, ReelJudgeError
from reeljudge.promptfoo.results_file import ResultRow, read_results_file
from reeljudge.rows import csv_rows, yaml_document

MANIFEST_FIELDS = {"prompt", "clip_a", "clip_b", "family", "system_a", "system_b", "source", "id"}
REQUIRED_FIELDS = ("prompt", "clip_a", "clip_b")


class ImportRefused(BadInputError):
    """An import with problems: every problem is listed; nothing was stored."""

    kind = "import_refused"

    def __init__(self, problems: list[str]) -> None:
        super().__init__("import refused, nothing stored:\n  " + "\n  ".join(problems))
        self.problems = problems


@dataclass
class ImportResult:
    """Samples and clips ready to store (nothing stored yet)."""

    samples: list[Sample] = field(default_factory=list)
    clips: dict[str, Clip] = field(default_factory=dict)
    sources: dict[str, tuple[Clip, Path]] = field(default_factory=dict)  # sha256 -> (clip, the file it is copied from)


@dataclass(frozen=True)
class PairSpec:
    """One pair as read from a source, before its clips are checked."""

    where: str  # "manifest.csv row 3" / "results.json test 2"
    family: str
    prompt: str
    first: tuple[str, str]  # (system, clip path)
    second: tuple[str, str]
    source: str | None = None
    base_dir: Path = Path(".")
    expected_sha: Mapping[str, str] = field(default_factory=dict)  # clip path -> sha256 the source claims
    promptfoo_dir: Path | None = None  # promptfoo's config folder (blob and media stores); None: the environment's


@dataclass
class _Intake:
    """One import's blinding: where blinded copies are written, how, and the clips already taken in (by source file)."""

    clip_store: ClipStore
    work: Path
    blinding: str
    done: dict[tuple[Path, str | None], tuple[Clip, Clip, Path]] = field(default_factory=dict)

    def take(self, source: Path, suffix: str | None) -> tuple[Clip, Clip, Path]:
        """(source facts, blinded clip, its file), each source file blinded once per import."""
        key = (source.resolve(), suffix)
        if key not in self.done:
            self.done[key] = self.clip_store.intake(source, self.work, suffix=suffix, blinding=self.blinding)
        return self.done[key]


def build_samples(specs: Iterable[PairSpec], protocol: Protocol, clip_store: ClipStore, blinding: str = "strip") -> ImportResult:
    """Check and blind every pair's clips (``blinding``: one of ``samples.BLINDING``); ImportRefused listing all
    problems (nothing copied), else samples and clips, the blinded clips copied into the store in the order of
    their content hashes (``ClipStore.put_all``)."""
    result, problems, seen = ImportResult(), [], set()
    with tempfile.TemporaryDirectory(prefix="reeljudge-import-") as work:
        intake = _Intake(clip_store, Path(work), blinding)
        for spec in specs:
            try:
                sample = _one_sample(spec, protocol, intake, result.sources)
            except ReelJudgeError as error:
                problems.append(f"{spec.where}: {error.message}")
                continue
            if sample.sample_id not in seen:
                seen.add(sample.sample_id)
                result.samples.append(sample)
        if problems:
            raise ImportRefused(problems)
        clip_store.put_all(result.sources)
    result.sources = {sha: (clip, clip_store.path(clip)) for sha, (clip, _) in result.sources.items()}
    result.clips = {sha: clip for sha, (clip, _) in result.sources.items()}
    return result


def _one_sample(spec: PairSpec, protocol: Protocol, intake: _Intake, sources: dict[str, tuple[Clip, Path]]) -> Sample:
    """A checked sample from one pair spec (its clips added to ``sources``, not yet copied)."""
    family = protocol.family(spec.family)
    if not spec.prompt.strip():
        raise BadInputError("prompt is empty")
    for system in (spec.first[0], spec.second[0]):
        if not system or system in RESERVED_SYSTEMS:
            raise BadInputError(f"system name {system!r} is reserved or empty")
    if spec.first[0] == spec.second[0]:
        raise BadInputError(f"both clips belong to the same system {spec.first[0]!r}")
    if family.needs_source and not spec.source:
        raise BadInputError(f"a {family.id} task needs the source clip (field 'source')")
    stored = {}
    for label, ref in (("clip_a", spec.first[1]), ("clip_b", spec.second[1]), ("source", spec.source)):
        if ref:
            stored[label], path = _intake(label, ref, spec, intake)
            sources[stored[label].sha256] = (stored[label], path)
    if stored["clip_a"].sha256 == stored["clip_b"].sha256:
        raise BadInputError(f"clip_a and clip_b are the same clip ({spec.first[1]} = {spec.second[1]}, sha256 "
                            f"{stored['clip_a'].sha256[:12]}…)")
    source = stored["source"].sha256 if "source" in stored else None
    return make_sample(
        family.id, spec.prompt.strip(), (spec.first[0], stored["clip_a"].sha256), (spec.second[0], stored["clip_b"].sha256),
        source_clip=source, origin=spec.where,
    )


def _intake(label: str, ref: str, spec: PairSpec, intake: _Intake) -> tuple[Clip, Path]:
    """Open a clip reference (any carrier; paths from the source's folder), check and blind it; the blinded clip and its file."""
    from reeljudge.media.carriers import Where, open_reference
    from reeljudge.media.stores import suffix_of_mime

    try:
        media = open_reference(ref, ("video",), Where(base_dir=spec.base_dir, promptfoo_dir=spec.promptfoo_dir)).media.ref
        if media.path is None:
            raise BadInputError(f"{ref}: remote clips are not supported; download it first")
        original, clip, path = intake.take(media.path, media.path.suffix or suffix_of_mime(media.mime_type))
    except ReelJudgeError as error:
        raise BadInputError(f"{label}: {error.message}") from None
    claimed = spec.expected_sha.get(ref)
    if claimed and claimed != original.sha256:
        raise BadInputError(f"{label}: {ref} changed since the eval "
                            f"(sha256 {original.sha256[:12]}…, results say {claimed[:12]}…)")
    return clip, path


def read_manifest(path: Path, default_family: str = "text-to-video") -> list[PairSpec]:
    """Pair specs from a YAML (list, or mapping with ``samples:``) or CSV manifest; BadInputError naming the file."""
    rows = _manifest_rows(path)
    specs, problems = [], []
    for index, row in enumerate(rows, start=1):
        where = f"{path.name} row {index}"
        unknown = sorted(set(row) - MANIFEST_FIELDS)
        missing = [f for f in REQUIRED_FIELDS if not str(row.get(f) or "").strip()]
        if unknown or missing:
            problems.append(f"{where}: " + "; ".join(
                ([f"unknown field(s) {', '.join(unknown)} (known: {', '.join(sorted(MANIFEST_FIELDS))})"] if unknown else [])
                + ([f"missing {', '.join(missing)}"] if missing else [])
            ))
            continue
        specs.append(PairSpec(
            where, str(row.get("family") or default_family).strip(), str(row["prompt"]),
            (str(row.get("system_a") or "system_a").strip(), str(row["clip_a"]).strip()),
            (str(row.get("system_b") or "system_b").strip(), str(row["clip_b"]).strip()),
            str(row["source"]).strip() if row.get("source") else None, path.parent,
        ))
    if problems:
        raise ImportRefused(problems)
    return specs


def _manifest_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of a manifest file as dicts."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BadInputError(f"{path}: manifest not found") from None
    if path.suffix.lower() == ".csv":
        return [row for _, row in csv_rows(text, strip=False)[1]]
    data = yaml_document(text, path.name)
    if isinstance(data, Mapping):
        data = data.get("samples")
    if not isinstance(data, list) or not all(isinstance(r, Mapping) for r in data):
        raise BadInputError(f"{path.name}: expected a list of samples (or a mapping with 'samples:')")
    return [dict(r) for r in data]


def read_promptfoo(path: Path, *, family: str = "text-to-video", systems: tuple[str, str] | None = None,
                   promptfoo_dir: Path | None = None) -> list[PairSpec]:
    """Pair specs from a promptfoo results JSON: every two providers' clips for the same test.

    A provider's clip is what its response carries, found by the media resolver: our providers'
    ``metadata.clip_path``, promptfoo's ``video`` object (a blob of its Veo provider, a media-store
    key of Sora/Azure, a URL), a markdown media link, a one-line output. Blobs and media-store keys
    are read from ``promptfoo_dir`` (default: $PROMPTFOO_CONFIG_DIR, else ~/.promptfoo). The system is
    the provider's label (else id). ``systems`` keeps only that pair; a test's ``vars.family``
    overrides ``family``.
    """
    cells = read_results_file(path)
    groups: dict[Any, list[ResultRow]] = {}
    for cell in cells:
        groups.setdefault(cell.test_index if cell.test_index is not None
                          else json.dumps(dict(cell.vars), sort_keys=True), []).append(cell)
    specs, problems = [], []
    for key, group in groups.items():
        label = group[0].description or ""
        where = f"{path.name} test {key}" + (f" ({label})" if label else "")
        clips, errors = _clips_of(group, systems)
        problems += [f"{where}: {e}" for e in errors]
        vars_ = group[0].vars
        prompt = str(vars_.get("prompt") or group[0].prompt_raw)
        fam = str(vars_.get("family") or family)
        source = vars_.get("source")
        shas = {c[1]: c[2] for c in clips if c[2]}
        for first, second in itertools.combinations(clips, 2):
            # clip paths in results are relative to the project promptfoo ran in (the working directory)
            specs.append(PairSpec(where, fam, prompt, first[:2], second[:2], source, Path.cwd(), shas, promptfoo_dir))
    if problems:
        raise ImportRefused(problems)
    if not specs:
        raise BadInputError(f"{path.name}: no test has clips from two providers"
                            + (f" {systems[0]} and {systems[1]}" if systems else ""))
    return specs


def _clips_of(group: list[ResultRow], systems: tuple[str, str] | None) -> tuple[list[tuple[str, str, str | None]], list[str]]:
    """(system, clip reference, claimed sha256) per provider cell of one test, and problems."""
    from reeljudge.errors import MediaError
    from reeljudge.promptfoo.clips import response_reference

    clips, errors = [], []
    for cell in group:
        system = cell.provider
        if systems and system not in systems:
            continue
        response = cell.response
        try:
            found = response_reference(response, response.get("output"), ("video",))
        except MediaError as error:
            errors.append(f"provider {system!r}: {error.message}")
            continue
        if found is None:
            failure = cell.error or response.get("error")
            errors.append(f"provider {system!r} has no clip" + (f" ({str(failure)[:200]})" if failure else
                          " (its response carries no video object, clip path, media link or one-line output)"))
            continue
        meta = cell.response_metadata
        clips.append((system, found.ref, (meta.get("clip") or {}).get("sha256") if meta.get("clip_path") else None))
    return clips, errors
