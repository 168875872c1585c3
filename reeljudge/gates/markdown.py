"""The Markdown summary of a comparison: a pull-request comment and a job summary.

It starts with a hidden marker (``MARKER``) so a workflow can find and update its one comment.
Lists are cut to a few entries so the text stays far below GitHub's 65,536-character limit.
"""

from __future__ import annotations

from reeljudge.gates.compare import MetricRow, SuiteReport
from reeljudge.gates.run import Comparison, SuiteFailure

MARKER = "<!-- reeljudge-gate -->"
_LIST_LIMIT = 15
_REASON_CHARS = 240
_HEADLINE = {0: "✅ passed", 1: "❌ regression", 2: "⚠️ could not compare"}
_VERDICT = {"regression": "❌ regression", "improved": "✅ improved", "ok": "ok", "regression (not gated)": "⚠️ worse (not gated)"}


def render(comparison: Comparison) -> str:
    """The whole comparison as Markdown."""
    lines = [MARKER, f"## reeljudge gate: {_HEADLINE[comparison.exit_code]}", ""]
    reports = [s for s in comparison.suites if isinstance(s, SuiteReport)]
    if reports:
        regressions = sum(len(r.regressions) for r in reports)
        unjudged = sum(len(r.unjudged_candidate) for r in reports)
        lines.append(
            f"Candidate against base: {regressions} regressed metric(s), {unjudged} test(s) no longer judged, "
            f"{len(reports)} suite(s) compared."
        )
        settings = reports[0].settings
        lines.append(
            f"A regression is a gated metric whose {settings.confidence:.0%} paired-bootstrap interval of "
            "(candidate − base) lies entirely below −tolerance."
        )
        lines.append("")
    lines += [f"- {note}" for note in comparison.notes]
    for suite in comparison.suites:
        lines += _failure(suite) if isinstance(suite, SuiteFailure) else _suite(suite)
    return "\n".join(lines).rstrip() + "\n"


def _failure(suite: SuiteFailure) -> list[str]:
    return [f"### {suite.name}: ⚠️ could not compare", "", _clean(suite.message, 2000), ""]


def _suite(report: SuiteReport) -> list[str]:
    b, c = report.base, report.candidate
    verdict = _HEADLINE[report.exit_code]
    lines = [
        f"### {report.name}: {verdict}",
        "",
        f"base: {b['tests']} results ({b['judged']} judged{_version(b)}) · candidate: {c['tests']} results "
        f"({c['judged']} judged{_version(c)}) · {report.matched} tests matched",
        "",
    ]
    attention = [r for r in report.rows if r.verdict != "ok"]
    if attention:
        lines += _table(attention)
    else:
        lines += ["No metric moved beyond its tolerance.", ""]
    lines += _unjudged(report)
    lines += _listing("Added tests", report.added)
    lines += _listing("Removed tests", report.removed)
    lines += _worst(report)
    lines += [f"<details><summary>All metrics ({len(report.rows)})</summary>", "", *_table(report.rows), "</details>", ""]
    lines += [f"- note: {_clean(n)}" for n in report.notes]
    return lines


def _table(rows: list[MetricRow]) -> list[str]:
    level = f"{rows[0].difference.confidence:.0%} CI" if rows else "CI"
    out = [f"| group | metric | n | base | candidate | Δ [{level}] | tolerance | verdict |", "|---|---|---:|---:|---:|---|---:|---|"]
    for r in rows:
        out.append(
            f"| {_cell(r.group)} | `{r.metric}` | {r.difference.n_units} | {r.base_mean:.3f} | {r.candidate_mean:.3f} | "
            f"{_signed(r.difference.estimate)} [{_signed(r.difference.low)}, {_signed(r.difference.high)}] | "
            f"{r.tolerance:g} | {_VERDICT.get(r.verdict, r.verdict)} |"
        )
    return out + [""]


def _unjudged(report: SuiteReport) -> list[str]:
    lines = []
    for title, items in (
        (f"Not judged in the candidate but judged in the base (never counted as passes; {report.settings.max_unjudged} allowed)",
         report.unjudged_candidate),
        ("Not judged in the base, judged in the candidate (left out of the differences)", report.unjudged_base),
        ("Not judged in either run", report.unjudged_both),
    ):
        if items:
            lines += [f"**{title}: {len(items)}**", ""]
            lines += [f"- {_cell(t)}: {_clean(r)}" for t, r in items[:_LIST_LIMIT]]
            lines += _more(len(items)) + [""]
    return lines


def _listing(title: str, items: list[str]) -> list[str]:
    if not items:
        return []
    shown = ", ".join(_cell(i) for i in items[:_LIST_LIMIT])
    more = f", … and {len(items) - _LIST_LIMIT} more" if len(items) > _LIST_LIMIT else ""
    return [f"**{title} ({len(items)}):** {shown}{more}", ""]


def _worst(report: SuiteReport) -> list[str]:
    if not report.worst:
        return []
    lines = [f"<details><summary>Worst per-test drops ({len(report.worst)})</summary>", "",
             "| test | metric | base → candidate | candidate's reason | base's reason |", "|---|---|---|---|---|"]
    for w in report.worst:
        lines.append(f"| {_cell(w.label)} | `{w.metric}` | {w.base:.3f} → {w.candidate:.3f} | {_clean(w.reason)} | {_clean(w.base_reason)} |")
    return lines + ["", "</details>", ""]


def _more(count: int) -> list[str]:
    return [f"- … and {count - _LIST_LIMIT} more (see the JSON report)"] if count > _LIST_LIMIT else []


def _version(info: dict) -> str:
    return f", promptfoo {info['promptfoo_version']}" if info.get("promptfoo_version") else ""


def _signed(value: float) -> str:
    return f"{value:+.3f}".replace("-", "−")


def _clean(text: str, limit: int = _REASON_CHARS) -> str:
    """One line, pipes escaped, cut to ``limit`` characters."""
    flat = " ".join(str(text).split()).replace("|", "\\|").replace("<", "&lt;")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _cell(text: str) -> str:
    return _clean(text, 120)
