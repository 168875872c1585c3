"""The Gecko per-tag report as one self-contained HTML page: inline CSS and SVG, no script, no link out.

Two charts drawn here as SVG: the scores (a row per tag, a dot per series at its mean with its 95 %
interval as a whisker; tags that moved against the baseline marked), and the changes against the
baseline (a dot and whisker per tag and later series around a zero line, red down, green up, grey
held). Below them the numbers as tables and the answer-letter check. Every mark is a ``<g
class="mark">`` with ``data-tag`` and ``data-series`` and a ``<title>`` tooltip with its numbers.
"""

from __future__ import annotations

from html import escape
from typing import Callable

from reeljudge.gecko.report import GeckoReport, TagMove
from reeljudge.gecko.report_markdown import bias_text, change_text, interval_text, notes

#: Okabe–Ito: distinguishable by most colour-blind readers
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
_WIDTH, _LEFT, _RIGHT, _TOP = 840, 150, 75, 34
_DOWN, _UP, _HELD = "#C62828", "#2E7D32", "#9E9E9E"
_CSS = """
body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:#1f2328;margin:2rem auto;max-width:880px;padding:0 1rem}
h1{font-size:1.6rem;margin-bottom:.2rem} h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid
#d0d7de;padding-bottom:.3rem}
.files{color:#57606a} .legend span{display:inline-block;margin-right:1.2rem} .legend
i{display:inline-block;width:12px;height:12px;
border-radius:50%;margin-right:.35rem;vertical-align:-1px} table{border-collapse:collapse;font-size:13px;margin:.5rem 0}
td,th{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left} th{background:#f6f8fa}
.num{font-variant-numeric:tabular-nums}
.flag{color:#C62828;font-weight:600} .headline{font-size:1.05rem;background:#f6f8fa;padding:.6rem .8rem;border-radius:6px}
.ok{color:#2E7D32} .muted{color:#57606a} svg text{font:12px system-ui,sans-serif;fill:#1f2328}
svg .axis text{fill:#57606a} svg .grid{stroke:#eaeef2} svg .zero{stroke:#57606a;stroke-dasharray:4 3} svg .band{fill:#f6f8fa}
"""


def render_html(report: GeckoReport) -> str:
    """The whole report as a standalone HTML document."""
    providers = list(dict.fromkeys(s.provider for s in report.series))
    colours = {s.label: PALETTE[providers.index(s.provider) % len(PALETTE)] for s in report.series}
    several = len(report.files) > 1
    legend = "".join(f'<span><i style="background:{PALETTE[k % len(PALETTE)]}"></i>{escape(p or "(no provider)")}</span>'
                     for k, p in enumerate(providers))
    if several:
        legend += "<span>○ baseline (first file) · ● later file</span>"
    files = ", ".join(escape(f) + (" (baseline)" if k == 0 and several else "") for k, f in enumerate(report.files))
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Gecko per-tag report</title>",
        f"<style>{_CSS}</style></head><body><h1>Gecko per-tag report</h1><p class='files'>{files}</p>",
        _headline(report),
        "<h2>Scores per tag</h2><p class='muted'>Mean over matched-prompt tests; the whisker is the 95 % bootstrap "
        f"interval over tests.{' ▼▲: moved against the baseline.' if several else ''}</p>",
        f"<p class='legend'>{legend}</p>", score_chart(report, colours),
    ]
    if several:
        parts += ["<h2>Change against the baseline</h2><p class='muted'>Mean paired difference (later file − baseline) "
                  "with its 95 % interval; red: dropped, green: rose, grey: held (the interval contains 0).</p>",
                  change_chart(report.moves) if report.moves else "<p>No paired tests between the files.</p>"]
    parts += ["<h2>Numbers</h2>", _score_table(report), "<h2>Answer-letter bias</h2><ul>"]
    for s in report.series:
        css = "flag" if s.bias is not None and s.bias.flagged else "muted" if s.bias is None else "ok"
        parts.append(f"<li><b>{escape(s.label)}</b>: <span class='{css}'>{escape(bias_text(s.bias))}</span></li>")
    parts.append("</ul>")
    left_out = notes(report.series)
    if left_out:
        parts.append("<p class='muted'>" + "<br>".join(escape(n.removeprefix("- ")) for n in left_out) + "</p>")
    parts.append("</body></html>\n")
    return "".join(parts)


def _headline(report: GeckoReport) -> str:
    """One sentence at the top: what moved, and any letter bias."""
    bits = []
    if len(report.files) > 1:
        moved = [f"{m.candidate.split(' · ')[0]} {m.tag} {'▼' if m.change.estimate < 0 else '▲'} {change_text(m).split(' ')[0]}"
                 for m in sorted(report.moved, key=lambda m: m.change.estimate)]
        bits.append(f"<b>Moved:</b> {escape('; '.join(moved))}." if moved else "<b>No tag moved.</b>")
    flagged = [s.label for s in report.series if s.bias is not None and s.bias.flagged]
    if flagged:
        bits.append(f"<span class='flag'>Answer-letter bias: {escape(', '.join(flagged))}.</span>")
    return f"<p class='headline'>{' '.join(bits)}</p>" if bits else ""


def score_chart(report: GeckoReport, colours: dict[str, str]) -> str:
    """Tags × series: a dot at each mean, a whisker over its interval, on a 0–1 axis; one model's runs side by side."""
    providers = list(dict.fromkeys(s.provider for s in report.series))
    series = sorted((s for s in report.series if s.scores),
                    key=lambda s: (providers.index(s.provider), report.files.index(s.file)))
    moved = {(m.candidate, m.tag): m for m in report.moved}
    row = max(30, 16 * len(series) + 14)
    height = _TOP + row * len(report.tags) + 10
    x = _scale(0.0, 1.0)
    out = [_svg_open("scores", height), _axis(x, [0, 0.25, 0.5, 0.75, 1.0], height, "{:.2f}")]
    for r, tag in enumerate(report.tags):
        y0 = _TOP + r * row
        if r % 2 == 0:
            out.append(f'<rect class="band" x="0" y="{y0}" width="{_WIDTH}" height="{row}"/>')
        out.append(f'<text x="{_LEFT - 10}" y="{y0 + row / 2 + 4:.1f}" text-anchor="end">{escape(tag)}</text>')
        for k, s in enumerate(series):
            score = s.scores.get(tag)
            if score is None or score.interval.estimate != score.interval.estimate:
                continue
            i, y = score.interval, y0 + 10 + k * 16 + (row - 16 * len(series) - 4) / 2
            move = moved.get((s.label, tag))
            tip = f"{s.label} · {tag}: {interval_text(i)} over {score.tests} tests, {score.questions} questions"
            mark = _arrow(move, x(i.high), y) if move else ""
            if move:
                tip += f"; moved {change_text(move)} against the baseline"
            hollow = len(report.files) > 1 and s.file == report.files[0]
            out.append(_mark(tag, s.label, x(i.low), x(i.high), x(i.estimate), y, colours[s.label], tip, mark, hollow))
    out.append("</svg>")
    return "".join(out)


def change_chart(moves: list[TagMove]) -> str:
    """Per (later series, tag): the paired change with its interval, around a zero line."""
    reach = max([0.1] + [abs(v) for m in moves for v in (m.change.low, m.change.high) if v == v])
    reach = min(1.0, round(reach * 1.15 + 0.05, 1))
    x = _scale(-reach, reach)
    row = 24
    height = _TOP + row * len(moves) + 10
    ticks = [-reach, -reach / 2, 0.0, reach / 2, reach]
    out = [_svg_open("changes", height), _axis(x, ticks, height, "{:+.2f}"),
           f'<line class="zero" x1="{x(0):.1f}" x2="{x(0):.1f}" y1="{_TOP - 6}" y2="{height - 6}"/>']
    several = len({m.candidate for m in moves}) > 1
    for r, m in enumerate(moves):
        y = _TOP + r * row + row / 2
        label = f"{m.tag} · {m.candidate.split(' · ')[0]}" if several else m.tag
        colour = _HELD if not m.moved else _DOWN if m.change.estimate < 0 else _UP
        tip = (f"{m.candidate} vs {m.base} · {m.tag}: {m.base_mean:.2f} → {m.candidate_mean:.2f}, change {change_text(m)}, "
               f"{m.paired} paired tests")
        out.append(f'<text x="{_LEFT - 10}" y="{y + 4:.1f}" text-anchor="end">{escape(label)}</text>')
        i = m.change
        out.append(_mark(m.tag, m.candidate, x(i.low), x(i.high), x(i.estimate), y, colour, tip, ""))
    out.append("</svg>")
    return "".join(out)


def _mark(tag: str, series: str, low: float, high: float, at: float, y: float, colour: str, tip: str, extra: str,
          hollow: bool = False) -> str:
    """One dot with its whisker and caps, grouped and labelled for a reader and a test; ``hollow``: a baseline's."""
    fill, ring = ("#fff", colour) if hollow else (colour, "#fff")
    return (f'<g class="mark" data-tag="{escape(tag)}" data-series="{escape(series)}"><title>{escape(tip)}</title>'
            f'<line class="interval" x1="{low:.1f}" x2="{high:.1f}" y1="{y:.1f}" y2="{y:.1f}" '
            f'stroke="{colour}" stroke-width="2.5"/>'
            f'<line class="cap" x1="{low:.1f}" x2="{low:.1f}" y1="{y - 4:.1f}" y2="{y + 4:.1f}" '
            f'stroke="{colour}" stroke-width="1.5"/>'
            f'<line class="cap" x1="{high:.1f}" x2="{high:.1f}" y1="{y - 4:.1f}" y2="{y + 4:.1f}" '
            f'stroke="{colour}" stroke-width="1.5"/>'
            f'<circle class="estimate" cx="{at:.1f}" cy="{y:.1f}" r="5" fill="{fill}" stroke="{ring}" '
            f'stroke-width="2"/>{extra}</g>')


def _arrow(move: TagMove, at: float, y: float) -> str:
    down = move.change.estimate < 0
    return (f'<text class="moved" x="{at + 7:.1f}" y="{y + 4:.1f}" style="fill:{_DOWN if down else _UP};font-weight:700">'
            f'{"▼" if down else "▲"} {change_text(move).split(" ")[0]}</text>')


def _axis(x: Callable[[float], float], ticks: list[float], height: int, fmt: str) -> str:
    parts = ['<g class="axis">']
    for t in ticks:
        parts.append(f'<line class="grid" x1="{x(t):.1f}" x2="{x(t):.1f}" y1="{_TOP - 6}" y2="{height - 6}"/>'
                     f'<text x="{x(t):.1f}" y="{_TOP - 12}" text-anchor="middle">{escape(_tick(fmt, t))}</text>')
    return "".join(parts) + "</g>"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _tick(fmt: str, value: float) -> str:
    return "0" if abs(value) < 1e-12 else fmt.format(value).replace("-", "−")


def _svg_open(name: str, height: int) -> str:
    return (f'<svg class="chart" id="{name}" xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{height}" '
            f'viewBox="0 0 {_WIDTH} {height}" role="img" aria-label="{name} chart">')


def _scale(low: float, high: float) -> Callable[[float], float]:
    """Data value → x pixel over the plotting width."""
    span = _WIDTH - _LEFT - _RIGHT
    return lambda v: _LEFT + (min(max(v, low), high) - low) / (high - low) * span


def _score_table(report: GeckoReport) -> str:
    series = [s for s in report.series if s.scores]
    head = "".join(f"<th>{escape(s.label)}</th>" for s in series)
    rows = []
    for tag in report.tags:
        cells = []
        for s in series:
            sc = s.scores.get(tag)
            cells.append(f"<td class='num'>{escape(interval_text(sc.interval))}<br><span "
                         f"class='muted'>{_count(sc.tests, 'test')} · {_count(sc.questions, 'question')}</span></td>" if sc
                         else "<td>—</td>")
        rows.append(f"<tr><th>{escape(tag)}</th>{''.join(cells)}</tr>")
    return f"<table><tr><th>tag</th>{head}</tr>{''.join(rows)}</table>"
