"""The Markdown summary of a comparison, read at a glance: a pull-request comment and a job summary.

Its shape: a hidden marker (``MARKER``, so a workflow finds and updates its one comment); the
verdict and its deciding reason in the first line; one verdict line per suite and provider (how
many paired tests, the smallest detectable drop); one table of the metrics that moved or could not
be told; the flipped tests (the first few open, the rest folded); everything else folded; a link
to the full report. Every list is cut, so the text stays under 60 lines for any suite size.
``compare --gecko`` appends the folded Gecko per-tag section of the files that hold Gecko results
(``gecko_sections``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from reeljudge.errors import BadInputError
from reeljudge.gates import verdicts as V
from reeljudge.gates.alone import AloneReport
from reeljudge.gates.compare import MetricRow, SuiteReport
from reeljudge.gates.flips import NEWLY_FAILING, NEWLY_NOT_JUDGED, NEWLY_PASSING, Flip
from reeljudge.gates.run import Comparison, SuiteFailure

MARKER = "<!-- reeljudge-gate -->"
_REASON_CHARS = 160
_FLIP_REASON_CHARS = 240
_ICON = {V.PASSED: "✅ passed", V.REGRESSION: "❌ regression", V.CANNOT_COMPARE: "⚠️ could not compare",
         V.INCONCLUSIVE: "❔ inconclusive", V.FAILED: "❌ failed"}
_VERDICT = {"regression": "❌ regression", "improved": "✅ improved", "ok": "ok", "inconclusive": "❔ cannot tell",
            "regression (not gated)": "⚠️ worse (not gated)", "inconclusive (not gated)": "❔ cannot tell (not gated)"}
_LIMITS = {"verdict_lines": 8, "metrics": 12, "flips_open": 5, "flips_folded": 10, "listed": 5, "notes": 4, "folded": 16}


def render(comparison: Comparison, report_url: str | None = None) -> str:
    """The whole comparison as Markdown."""
    reports = [s for s in comparison.suites if isinstance(s, SuiteReport)]
    alone = [s for s in comparison.suites if isinstance(s, AloneReport)]
    failures = [s for s in comparison.suites if isinstance(s, SuiteFailure)]
    lines = [MARKER, f"## reeljudge gate: {_headline(comparison)} — {_clean(_first_reason(comparison), 300)}", ""]
    lines += _verdict_lines(reports, failures, alone)
    lines += _metrics_table(reports, partial=bool(failures))
    lines += _flips(reports)
    lines += _failing_alone(alone)
    lines += _folded(comparison, reports)
    if report_url:
        lines += [f"Full report (Markdown and JSON): {report_url}", ""]
    return "\n".join(lines).rstrip() + "\n"


def gecko_sections(base: str | Path, candidate: str | Path) -> str:
    """The folded Gecko per-tag section (moved tags, answer-letter check) of each compared pair of files
    that holds Gecko results: the two files, or the same-named files of two folders; '' when none does."""
    from reeljudge.gecko.report import build_report, read_series
    from reeljudge.gecko.report_markdown import gate_section

    base, candidate = Path(base), Path(candidate)
    if base.is_dir() and candidate.is_dir():
        pairs = [(p, candidate / p.name) for p in sorted(base.glob("*.json")) if (candidate / p.name).is_file()]
    else:
        pairs = [(base, candidate)]
    sections = []
    for b, c in pairs:
        try:
            if not (read_series(b) or read_series(c)):
                continue
        except BadInputError:  # an unreadable file: the comparison above already says what is wrong with it
            continue
        try:
            section = gate_section(build_report([b, c]))
        except BadInputError as error:
            section = f"Gecko per tag of {c.name}: not reported ({_clean(error.message)})\n"
        sections.append(section.replace("<summary>Gecko per tag:", f"<summary>Gecko per tag, {_clean(c.stem, 60)}:", 1))
    return "\n".join(sections)


def _headline(comparison: Comparison) -> str:
    verdict = comparison.verdict
    text = _ICON[verdict]
    if verdict == V.INCONCLUSIVE:
        text += " (blocking)" if comparison.exit_code else " (not blocking: on_inconclusive: warn)"
    return text


def _first_reason(comparison: Comparison) -> str:
    """The deciding reason: the worst suite's (naming any other suite with the same verdict); when every
    suite passed, all of them by name (no one suite decided)."""
    worst = [s for s in comparison.suites if s.verdict == comparison.verdict]
    if not worst:
        return "nothing was compared"
    if comparison.verdict == V.PASSED:
        compared = [s.name for s in worst if isinstance(s, SuiteReport)]
        alone = [s for s in worst if isinstance(s, AloneReport)]
        parts = ([f"{', '.join(compared)}: no gated metric dropped beyond its tolerance and no test newly fails"]
                 if compared else [])
        for note in dict.fromkeys(s.note for s in alone):  # the suites with no baseline together, each accepted change apart
            parts.append(f"{', '.join(s.name for s in alone if s.note == note)}: {note}")
        return "; ".join(parts)
    suite = worst[0]
    also = f" (also {', '.join(s.name for s in worst[1:])})" if len(worst) > 1 else ""
    if isinstance(suite, SuiteFailure):
        return f"{suite.name}: {suite.message}{also}"
    if isinstance(suite, AloneReport):
        return f"{suite.name}: {'; '.join(flip_reason(r) for r in suite.reasons()[:2])}{also}"
    return f"{suite.name}: {suite.reasons()[0]}{also}"


def _verdict_lines(reports: list[SuiteReport], failures: list[SuiteFailure], alone: Sequence[AloneReport] = ()) -> list[str]:
    """One line per suite and group: the verdict, the paired tests and the smallest detectable drop; a suite
    that did not pass first gets a line with its own deciding reasons; a suite without a baseline, its rule."""
    lines = [f"- **{f.name}**: {_ICON[V.CANNOT_COMPARE]}: {_clean(f.message, 400)}" for f in failures]
    for suite in alone:
        lines.append(f"- **{suite.name}**: {_ICON[suite.verdict]} · {suite.note} · {suite.rule_text()}")
    for report in reports:
        flips = {g.group: g for g in report.flips}
        if report.verdict != V.PASSED:
            lines.append(f"- **{report.name}**: {_ICON[report.verdict]} because " + _clean("; ".join(report.reasons()[:2]), 300))
        for group, n, drop in report.evidence():
            rule = flips[group].rule_text() if group in flips else ""
            lines.append(f"- **{report.name}** · {_clean(group, 60)}: {_ICON[_group_verdict(report, group)]} · "
                         f"{V.evidence_text(n, drop)}"
                         + (f" · {rule}" if rule else ""))
    shown = lines[: _LIMITS["verdict_lines"]]
    if len(lines) > len(shown):
        shown.append(f"- … {len(lines) - len(shown)} more suite/provider lines in the full report")
    return shown + [""]


def _group_verdict(report: SuiteReport, group: str) -> str:
    """A group's own verdict: its metrics and flip rule; the suite's rules on tests not judged and on
    judges (not per group) show on the suite's own line."""
    rows = [r for r in report.rows if r.group == group and r.gated]
    if any(r.verdict == V.REGRESSION for r in rows) or any(g.group == group for g in report.too_many_flips):
        return V.REGRESSION
    if any(r.verdict == V.INCONCLUSIVE for r in rows):
        return V.INCONCLUSIVE
    return V.PASSED


def _failing_alone(alone: list[AloneReport]) -> list[str]:
    """The failing and not-judged tests of the suites judged alone (the first few open, the rest folded)."""
    rows = [(s.name, label, "failing", why) for s in alone if s.verdict != V.PASSED for label, why in s.failing]
    rows += [(s.name, label, "not judged", why) for s in alone if s.verdict != V.PASSED for label, why in s.not_judged]
    if not rows:
        return []
    head = ["| suite | test | | reason |", "|---|---|---|---|"]
    line = lambda r: f"| {_clean(r[0], 40)} | {_clean(r[1], 80)} | {r[2]} | {_clean(flip_reason(r[3]), _FLIP_REASON_CHARS)} |"  # noqa: E731
    lines = [f"**Tests that fail** (no baseline yet, judged alone; {len(rows)}):", "", *head,
             *map(line, rows[: _LIMITS["flips_open"]])]
    rest = rows[_LIMITS["flips_open"]:]
    if rest:
        folded = rest[: _LIMITS["flips_folded"]]
        lines += ["", f"<details><summary>{len(rest)} more failing tests</summary>", "", *head, *map(line, folded)]
        if len(rest) > len(folded):
            lines.append(f"| … | {len(rest) - len(folded)} more in the full report | | |")
        lines += ["", "</details>"]
    return lines + [""]


def _metrics_table(reports: list[SuiteReport], partial: bool = False) -> list[str]:
    """The metrics that moved or could not be told (worst first); nothing when no metric was compared.
    ``partial``: other suites could not be compared, so a calm line speaks only of these."""
    if not any(r.rows for r in reports):
        return []
    moved = [(r.name, row) for r in reports for row in r.rows if row.verdict != "ok"]
    if not moved:
        which = "In the suites compared, no" if partial else "No"
        return [f"{which} metric moved beyond its tolerance, and every interval rules out a drop larger than it.", ""]
    moved.sort(key=lambda item: (item[1].verdict != V.REGRESSION, item[1].verdict != V.INCONCLUSIVE, item[1].difference.estimate))
    level = f"{moved[0][1].difference.confidence:.0%} CI"
    lines = [f"| suite · group | metric | n | base → candidate | Δ [{level}] | tolerance | detectable drop | verdict |",
             "|---|---|---:|---|---|---:|---:|---|"]
    lines += [_metric_line(suite, row) for suite, row in moved[: _LIMITS["metrics"]]]
    if len(moved) > _LIMITS["metrics"]:
        lines.append(f"| … | {len(moved) - _LIMITS['metrics']} more in the full report | | | | | | |")
    return lines + [""]


def _metric_line(suite: str, r: MetricRow) -> str:
    d = r.difference
    drop = "—" if d.n_units < 2 or r.detectable_drop != r.detectable_drop else f"{r.detectable_drop:.3f}"
    return (f"| {_clean(suite + ' · ' + r.group, 60)} | `{r.metric}` | {d.n_units} | {r.base_mean:.3f} → "
            f"{r.candidate_mean:.3f} | {_signed(d.estimate)} [{_signed(d.low)}, {_signed(d.high)}] | {r.tolerance:g} | {drop} | "
            f"{_VERDICT.get(r.verdict, r.verdict)} |")


def _flips(reports: list[SuiteReport]) -> list[str]:
    """Flipped tests: newly failing and newly not judged first; the first few open, the rest folded."""
    order = {NEWLY_FAILING: 0, NEWLY_NOT_JUDGED: 1, NEWLY_PASSING: 2}
    flips = sorted(((r.name, f) for r in reports for g in r.flips for f in g.flips), key=lambda item: order[item[1].kind])
    if not flips:
        return []
    counts = {kind: sum(1 for _, f in flips if f.kind == kind) for kind in order}
    summary = ", ".join(f"{n} {kind}" for kind, n in counts.items() if n)
    head = ["| suite · group | test | flip | base's reason | candidate's reason |", "|---|---|---|---|---|"]
    lines = [f"**Flipped tests** ({summary}):", "", *head]
    lines += [_flip_line(s, f) for s, f in flips[: _LIMITS["flips_open"]]]
    rest = flips[_LIMITS["flips_open"]:]
    if rest:
        folded = rest[: _LIMITS["flips_folded"]]
        lines += ["", f"<details><summary>{len(rest)} more flipped tests</summary>", "", *head]
        lines += [_flip_line(s, f) for s, f in folded]
        if len(rest) > len(folded):
            lines.append(f"| … | {len(rest) - len(folded)} more in the full report | | | |")
        lines += ["", "</details>"]
    return lines + [""]


def _flip_line(suite: str, f: Flip) -> str:
    return (f"| {_clean(suite + ' · ' + f.group, 50)} | {_clean(f.label, 80)} | {f.kind} | "
            f"{_clean(flip_reason(f.base_reason), _FLIP_REASON_CHARS)} | "
            f"{_clean(flip_reason(f.candidate_reason), _FLIP_REASON_CHARS)} |")


#: clauses a reason may carry that say the same of every test of a run (they explain nothing about a flip)
_BOILERPLATE = ("findability not checked", "no unfilmable terms", "findability off")


def flip_reason(reason: str) -> str:
    """A reason as a flip shows it: its verdict line (the first), the clauses that say the same of every
    test left out, then the first part line that failed (marked ✗ by the result builder), if any."""
    lines = [line.strip() for line in str(reason).splitlines() if line.strip()]
    if not lines:
        return ""
    clauses = [c for c in lines[0].split(". ") if not c.strip().lower().startswith(_BOILERPLATE)]
    text = ". ".join(clauses)
    failing = next((line for line in lines[1:] if line.startswith("✗")), "")
    return f"{text} · {failing}" if failing else text


def _folded(comparison: Comparison, reports: list[SuiteReport]) -> list[str]:
    """Everything else, folded: tests not judged, added and removed tests, the worst drops, notes."""
    body: list[str] = []
    for r in reports:
        b, c = r.base, r.candidate
        body.append(f"- **{r.name}**: base {b['tests']} results ({b['judged']} judged{_version(b)}), candidate {c['tests']} "
                    f"({c['judged']} judged{_version(c)}), {r.matched} matched; {len(r.rows)} metric rows")
        for title, items in (("not judged in the base", r.unjudged_base), ("not judged in either run", r.unjudged_both)):
            if items:
                body.append(f"  - {len(items)} {title}: " + "; ".join(_clean(f"{t}: {why}", 90) for t, why in items[:3]))
        for title, names in (("added", r.added), ("removed", r.removed)):
            if names:
                body.append(f"  - {len(names)} {title}: " + ", ".join(_clean(i, 60) for i in names[:_LIMITS["listed"]])
                            + (" …" if len(names) > _LIMITS["listed"] else ""))
        if r.worst:
            w = r.worst[0]
            body.append(f"  - worst drop: {_clean(w.label, 60)} `{w.metric}` {w.base:.3f} → {w.candidate:.3f}: "
                        f"{_clean(w.reason)}")
    notes = [*comparison.notes, *(n for r in reports for n in r.notes)]
    body += [f"- note: {_clean(n)}" for n in notes[: _LIMITS["notes"]]]
    if len(notes) > _LIMITS["notes"]:
        body.append(f"- … {len(notes) - _LIMITS['notes']} more notes in the full report")
    if not body:
        return []
    if len(body) > _LIMITS["folded"]:
        body = body[: _LIMITS["folded"]] + ["- … more in the full report"]
    return ["<details><summary>Everything else</summary>", "", *body, "", "</details>", ""]


def _version(info: dict) -> str:
    return f", promptfoo {info['promptfoo_version']}" if info.get("promptfoo_version") else ""


def _signed(value: float) -> str:
    return f"{value:+.3f}".replace("-", "−")


def _clean(text: str, limit: int = _REASON_CHARS) -> str:
    """One line, pipes escaped, cut to ``limit`` characters."""
    flat = " ".join(str(text).split()).replace("|", "\\|").replace("<", "&lt;")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
