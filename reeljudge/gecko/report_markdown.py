"""The Gecko per-tag report as Markdown: for a pull-request comment, a job summary or a terminal.

Three parts: the scores (tags × series, each cell ``mean [low, high]`` with tests and questions), the
tags that moved against the baseline (the first file) and the tags that held, and the answer-letter
check per series. ``gate_section`` is the short form the gate appends to its comment.
"""

from __future__ import annotations

from reeljudge.gecko.bias import LetterBias
from reeljudge.gecko.report import GeckoReport, Series, TagMove
from reeljudge.stats.bootstrap import Interval

_GATE_ROWS = 10


def render_markdown(report: GeckoReport) -> str:
    """The whole report as Markdown."""
    lines = ["## Gecko per-tag report", "", _files_line(report), ""]
    lines += ["### Scores per tag", "", "Mean over matched-prompt tests, 95 % bootstrap interval over tests; "
              "tests · questions in each cell.", ""]
    lines += _score_table(report)
    if len(report.files) > 1:
        lines += ["", "### Tags that moved against the baseline", ""]
        lines += _moves(report.moves)
    lines += ["", "### Answer-letter bias", ""]
    lines += [f"- **{_cell(s.label)}**: {bias_text(s.bias)}" for s in report.series]
    left_out = notes(report.series)
    if left_out:
        lines += ["", *left_out]
    return "\n".join(lines).rstrip() + "\n"


def gate_section(report: GeckoReport) -> str:
    """A short, folded section for the gate's comment: what moved, what held, the letter check."""
    moved = report.moved
    head = f"{len(moved)} tag(s) moved" if moved else "no tag moved"
    flagged = [s for s in report.series if s.bias is not None and s.bias.flagged]
    if flagged:
        head += f" · ⚠️ answer-letter bias in {', '.join(_cell(s.provider) for s in flagged)}"
    lines = [f"<details><summary>Gecko per tag: {head}</summary>", ""]
    lines += _moves(report.moves, limit=_GATE_ROWS)
    lines += ["", *(f"- letters, {_cell(s.label)}: {bias_text(s.bias)}" for s in report.series), "", "</details>", ""]
    return "\n".join(lines)


def bias_text(bias: LetterBias | None) -> str:
    """The letter check in words; ``not recorded`` when the results carry no answer letters."""
    if bias is None:
        return "not recorded (the results carry no metadata.answer_letters)"
    return ("⚠️ " if bias.flagged else "") + bias.text()


def interval_text(i: Interval, digits: int = 2) -> str:
    """``0.71 [0.62, 0.80]``; a single test (or a constant) shows its value alone."""
    if i.n_units < 2 or i.low == i.high:
        return f"{i.estimate:.{digits}f}"
    return f"{i.estimate:.{digits}f} [{i.low:.{digits}f}, {i.high:.{digits}f}]"


def change_text(move: TagMove) -> str:
    """``−0.31 [−0.45, −0.18]`` (signed, true minus sign)."""
    i = move.change
    return f"{_signed(i.estimate)} [{_signed(i.low)}, {_signed(i.high)}]"


def _files_line(report: GeckoReport) -> str:
    names = [f"`{f}`" + (" (baseline)" if k == 0 and len(report.files) > 1 else "") for k, f in enumerate(report.files)]
    return "Files: " + ", ".join(names)


def _score_table(report: GeckoReport) -> list[str]:
    series = [s for s in report.series if s.scores]
    if not series:
        return ["No test judged a matched prompt."]
    lines = ["| tag | " + " | ".join(_cell(s.label) for s in series) + " |", "|---|" + "---|" * len(series)]
    for tag in report.tags:
        cells = []
        for s in series:
            score = s.scores.get(tag)
            cells.append(f"{interval_text(score.interval)} · {score.tests} · {score.questions}q" if score else "—")
        lines.append(f"| {_cell(tag)} | " + " | ".join(cells) + " |")
    return lines


def _moves(moves: list[TagMove], limit: int | None = None) -> list[str]:
    """The moved tags as a table (the largest changes first), then the tags that held in one line."""
    if not moves:
        return ["Nothing to compare: no test of the baseline is paired with a later file's (same description and vars)."]
    moved = sorted((m for m in moves if m.moved), key=lambda m: -abs(m.change.estimate))
    lines = []
    if moved:
        lines += ["| series | tag | baseline | now | change [95 % interval] | paired tests |", "|---|---|---|---|---|---|"]
        for m in moved[:limit]:
            arrow = "🔻" if m.change.estimate < 0 else "🔺"
            lines.append(f"| {_cell(m.candidate)} | {arrow} {_cell(m.tag)} | {m.base_mean:.2f} | {m.candidate_mean:.2f} "
                         f"| {change_text(m)} | {m.paired} |")
        if limit is not None and len(moved) > limit:
            lines.append(f"| … {len(moved) - limit} more | | | | | |")
    else:
        lines.append("No tag moved (every interval of the change contains 0).")
    several = len({m.candidate for m in moves}) > 1
    held = [f"{m.candidate.split(' · ')[0] + ' ' if several else ''}{m.tag} {change_text(m)}" for m in moves if not m.moved]
    if held:
        lines += ["", "Held: " + "; ".join(_cell(h) for h in held[: limit or len(held)])
                  + (" …" if limit and len(held) > limit else "")]
    return lines


def notes(series: list[Series]) -> list[str]:
    """A line per series with results left out (did not judge, counter-prompts)."""
    out = []
    for s in series:
        if s.not_judged:
            out.append(f"- {_cell(s.label)}: {s.not_judged} result(s) did not judge and are left out")
        if s.counter_prompts:
            out.append(f"- {_cell(s.label)}: {s.counter_prompts} counter-prompt test(s) (expect: mismatch) are left out")
    return out


def _signed(value: float) -> str:
    return f"{value:+.2f}".replace("-", "−")


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|").replace("<", "&lt;")
