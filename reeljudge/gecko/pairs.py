"""The suite-level check: on every clip, each matched prompt must outscore each counter-prompt.

promptfoo has no cross-test assertion, so this reads a results file (``promptfoo eval -o
results.json``) after the run: ``reeljudge gecko check-pairs results.json`` exits 1 when a pair is
out of order or a paired test did not judge. Tests are paired by the media they judged (content
hash) and told apart by the assertion's ``expect`` (``match`` / ``mismatch``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

from reeljudge.promptfoo.results_file import ResultRow, read_results_file


@dataclass(frozen=True)
class JudgedRow:
    """One graded test as the pair check sees it."""

    test: str
    media: str
    media_name: str
    prompt: str
    expect: str
    score: float | None
    error: str | None = None


@dataclass
class PairReport:
    """Per clip: the rows, the out-of-order pairs and other problems; ``ok`` when there are none."""

    by_media: dict[str, list[JudgedRow]] = field(default_factory=dict)
    violations: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    checked_pairs: int = 0

    @property
    def ok(self) -> bool:
        return not self.violations and not self.problems and self.checked_pairs > 0

    def lines(self) -> list[str]:
        """A readable report."""
        out = []
        for rows in self.by_media.values():
            name = rows[0].media_name
            parts = [f"{r.expect} {r.score:.2f}" if r.score is not None else f"{r.expect} (not judged)" for r in rows]
            out.append(f"{name}: " + ", ".join(parts))
        out += [f"OUT OF ORDER: {v}" for v in self.violations]
        out += [f"PROBLEM: {p}" for p in self.problems]
        verdict = "ok" if self.ok else "FAILED"
        out.append(f"gecko pair check {verdict}: {self.checked_pairs} matched/counter pair(s) checked")
        return out


def gecko_results(node: Any) -> Iterator[Mapping[str, Any]]:
    """Every Gecko assertion result nested in a promptfoo grading result (or any part of a result row)."""
    if isinstance(node, Mapping):
        meta = node.get("metadata")
        if isinstance(meta, Mapping) and meta.get("judge") == "gecko":
            yield node
            return
        for value in node.values():
            yield from gecko_results(value)
    elif isinstance(node, list):
        for value in node:
            yield from gecko_results(value)


def rows_from_results(results: Iterable[ResultRow]) -> list[JudgedRow]:
    """The gecko rows of promptfoo results (``results.results`` of a results file or afterAll's ``results``)."""
    rows = []
    for result in results:
        label = str(result.description or result.vars.get("prompt", "?"))[:80]
        for graded in gecko_results(result.grading.raw if result.grading else {}):
            meta = graded["metadata"]
            if "media" in meta:
                rows.append(
                    JudgedRow(label, meta["media"]["sha256"], meta["media"]["name"], meta["prompt"],
                              meta["expect"], float(meta["score"]))
                )
            else:
                vars_ = result.vars
                media = str(vars_.get("video") or vars_.get("clip") or "?")
                expect = str(vars_.get("expect") or "match")
                rows.append(JudgedRow(label, media, media.rsplit("/", 1)[-1], str(vars_.get("prompt", "")), expect, None,
                                      str(graded.get("reason", ""))[:300]))
    return rows


def check_pairs(rows: list[JudgedRow]) -> PairReport:
    """Group rows by media and check every matched score is above every counter-prompt score on that media."""
    report = PairReport()
    for row in rows:
        report.by_media.setdefault(row.media, []).append(row)
    for rows_here in report.by_media.values():
        matched = [r for r in rows_here if r.expect == "match"]
        counter = [r for r in rows_here if r.expect == "mismatch"]
        name = rows_here[0].media_name
        if not matched or not counter:
            continue
        for m in matched:
            for c in counter:
                if m.score is None or c.score is None:
                    bad = m if m.score is None else c
                    report.problems.append(f"{name}: test {bad.test!r} did not judge, its pair cannot be checked ({bad.error})")
                    continue
                report.checked_pairs += 1
                if not m.score > c.score:
                    report.violations.append(
                        f"{name}: matched {m.prompt[:60]!r} scored {m.score:.2f}, not above counter-prompt "
                        f"{c.prompt[:60]!r} at {c.score:.2f}"
                    )
    if report.checked_pairs == 0 and not report.problems:
        report.problems.append("no clip has both a matched test and a counter-prompt test (assertion expect: match / mismatch)")
    return report


def check_results_file(path: str | Path) -> PairReport:
    """The pair check of a promptfoo results JSON file."""
    return check_pairs(rows_from_results(read_results_file(path)))


def suite_tests(pairs: list[Mapping[str, Any]], media_var: str = "video") -> list[dict[str, Any]]:
    """promptfoo tests for a pairs dataset (clip, matched, counter): two tests per clip."""
    tests = []
    for pair in pairs:
        clip = str(pair["clip"])
        name = clip.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        for expect, key in (("match", "matched"), ("mismatch", "counter")):
            tests.append(
                {
                    "description": f"{name} {key}",
                    "vars": {"prompt": str(pair[key]), media_var: clip, "expect": expect},
                    "metadata": {"gecko_pair": name},
                }
            )
    return tests
