"""The A/B report as one self-contained HTML page: tables and inline SVG interval charts (no JS)."""

from __future__ import annotations

import json
from html import escape
from typing import Any, Callable, Sequence

from reeljudge.ab.analysis.analysis import ContradictionRow, Disagreement
from reeljudge.ab.analysis.model_raters import Comparison, UnanimousDisagreement
from reeljudge.ab.analysis.report import Agreement, CohenPair, ModelRow, Note, Rankings, Report, TagAgreement
from reeljudge.ab.store.evidence import RaterEvidence
from reeljudge.ab.store.exports import visible
from reeljudge.ab.study.assignment import GoldAccuracy
from reeljudge.stats.bootstrap import IntervalJSON

Row = tuple[str, float | None, float | None, float | None]


def render(report: Report, clip_href: Callable[[str], str]) -> str:
    """The report page; ``clip_href(sha256)`` gives the link to a stored clip."""
    ag = report["agreement"]
    parts = [
        _head(report),
        "<h2>Winner agreement per task family</h2>",
        "<p>Raw agreement is the share of rater pairs on a sample who chose the same winner; κ and α correct for chance. "
        "Intervals: bootstrap over samples, 95 %.</p>",
        _agreement_table(ag),
        _chart([(f, _e(v["percent"]["interval"]), *_lh(v["percent"]["interval"])) for f, v in ag["by_family"].items()], 0,
               1, "% agreement", pct=True),
        "<h2>Cohen's κ per rater pair</h2>", _cohen_table(ag["cohen_kappa"]),
        "<h2>Ratings: Krippendorff's α (ordinal) per dimension</h2>",
        _chart([(v["label"], _e(v["alpha_ordinal"]), *_lh(v["alpha_ordinal"]))
                for v in ag["dimensions"].values()], -0.2, 1, "α ordinal"),
        "<h2>Reason tags: agreement</h2>", _tag_table(ag["tags"]),
        "<h2>Rankings</h2>", *[_ranking(f, r) for f, r in report["rankings"].items()],
        "<h2>Top disagreements</h2>", _disagreements(report["disagreements"], clip_href),
        "<h2>Ratings that contradict the winner</h2>", _contradictions(report["contradictions"]),
        "<h2>Gold pairs (attention checks)</h2>", _gold(report["gold"]),
        "<h2>Evidence of watching (server side)</h2>", _evidence(report.get("watch_evidence") or {}),
        "<h2>Notes from raters</h2>", _notes(report.get("notes") or []),
        "<h2>Model raters against the people</h2>",
        "<p>Each model rater against the strict majority of the human raters on the samples it judged (raw agreement with a "
        "bootstrap interval, Cohen's κ, raw without ties), the share of agreeing model–human pairs, and as the ceiling the "
        "share of agreeing human–human pairs and Fleiss' κ of the people on the same samples (first two records per sample).</p>",
        _models(report["models"], clip_href),
        "<h2>Data</h2><details><summary>report "
        f"JSON</summary><pre>{escape(json.dumps(report, indent=1)[:200000])}</pre></details>",
        "</body></html>",
    ]
    return visible("\n".join(parts))  # no raw control or bidirectional character reaches the page, wherever it came from


def _e(interval: IntervalJSON) -> float | None:
    return interval.get("estimate")


def _lh(interval: IntervalJSON) -> tuple[float | None, float | None]:
    return interval.get("low"), interval.get("high")


def _f(x: Any, digits: int = 2, pct: bool = False) -> str:
    if x is None:
        return "–"
    return f"{100 * x:.0f} %" if pct else f"{x:.{digits}f}"


def _ci(interval: IntervalJSON, pct: bool = False) -> str:
    if interval.get("estimate") is None:
        return _undefined(interval)
    return f"{_f(interval['estimate'], pct=pct)} [{_f(interval.get('low'), pct=pct)}, {_f(interval.get('high'), pct=pct)}]"


def _undefined(interval: IntervalJSON) -> str:
    """'undefined' with the reason an agreement statistic has no value."""
    if (interval.get("n_units") or 0) < 2:
        reason = "fewer than 2 samples"
    else:
        reason = "every answer was the same, so agreement cannot be told from chance"
    return f"<span class='undefined'>undefined ({reason})</span>"


def _head(report: Report) -> str:
    c = report["counts"]
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>reeljudge A/B report</title>
<style>body{{font:14px/1.4 system-ui,sans-serif;max-width:1100px;margin:auto;padding:0 1rem
3rem}}table{{border-collapse:collapse;margin:.5rem 0}}
td,th{{border:1px solid #ccc;padding:.2rem .5rem;text-align:left;vertical-align:top}}svg text{{font:12px
system-ui,sans-serif}}.sev2{{color:#a3122a}}.undefined{{color:#6b4a00}}</style>
</head><body><h1>reeljudge A/B report</h1>
<p>Protocol {escape(report['protocol'])} · {c['pair_samples']} pair samples, {c['gold_samples']} gold · {c['judgements']}
judgements by
{c['human_raters']} human and {c['model_raters']} model raters · generated {escape(report['generated_at'])}.
Agreement uses the first {report['design']['first_n']} human records per sample ({report['design']['records_used']}
records).</p>"""


def _agreement_table(ag: Agreement) -> str:
    rows = "".join(
        f"<tr><td>{escape(name)}</td><td>{v['samples']}</td><td>{_ci(v['percent']['interval'], pct=True)}</td>"
        f"<td>{_ci(v['fleiss_kappa'])}</td><td>{_ci(v['krippendorff_alpha_nominal'])}</td></tr>"
        for name, v in [("all families", ag["overall"]), *ag["by_family"].items()]
    )
    return ("<table id='agreement'><tr><th>family</th><th>samples</th><th>% agreement</th><th>Fleiss' "
              f"κ</th><th>Krippendorff's α (nominal)</th></tr>{rows}</table>")


def _cohen_table(pairs: list[CohenPair]) -> str:
    if not pairs:
        return "<p>No two raters share enough samples.</p>"
    rows = "".join(
        f"<tr><td>{escape(' – '.join(p['raters']))}</td><td>{p['shared']}</td>"
        + (f"<td>{_ci(p['kappa'])}</td></tr>" if not p['undefined']
           else f"<td><span class=undefined>undefined ({escape(p['undefined'])})</span></td></tr>")
        for p in pairs
    )
    return f"<table><tr><th>raters</th><th>shared samples</th><th>Cohen's κ</th></tr>{rows}</table>"


def _tag_table(tags: list[TagAgreement]) -> str:
    if not tags:
        return "<p>No tags yet.</p>"
    rows = "".join(
        f"<tr><td>{escape(t['label'])}</td><td>{t['used']}</td><td>{t['both']}</td><td>{t['one_only']}</td>"
        f"<td>{_f(t['agreement'], pct=True)}</td></tr>"
        for t in tags
    )
    return ("<table><tr><th>tag</th><th>times used</th><th>rater pairs: both</th><th>one only</th><th>specific "
            "agreement</th></tr>"
            f"{rows}</table>")


def _chart(rows: Sequence[Row], lo: float, hi: float, title: str, pct: bool = False) -> str:
    """Horizontal dot-and-whisker chart of estimates with intervals; labels wrap, values sit in their own column."""
    if not rows:
        return "<p>No data.</p>"
    width, left, value_col, step = 760, 290, 64, 34
    height = step * len(rows) + 30
    right = width - value_col - 10
    x = lambda v: left + (max(lo, min(hi, v)) - lo) / (hi - lo) * (right - left)  # noqa: E731
    axis = x(0 if lo < 0 else lo)
    items = [f"<text x='{left}' y='12'>{escape(title)}</text>",
             f"<line x1='{axis}' y1='16' x2='{axis}' y2='{height}' stroke='#999'/>"]
    for k, (label, est, low, high) in enumerate(rows):
        y = 34 + step * k
        items.append(_label(label, y))
        if est is None:
            items.append(f"<text x='{left}' y='{y + 4}'>undefined</text>")
            continue
        if low is not None and high is not None:
            items.append(f"<line x1='{x(low):.1f}' y1='{y}' x2='{x(high):.1f}' y2='{y}' stroke='#555' stroke-width='2'/>")
        items.append(f"<rect x='{min(axis, x(est)):.1f}' y='{y - 7}' width='{abs(x(est) - axis):.1f}' height='14' "
                     "fill='#7aa6d6' opacity='.5'/>")
        items.append(f"<circle cx='{x(est):.1f}' cy='{y}' r='4' fill='#1f4e8c'/><text x='{width - 4}' y='{y + 4}' "
                     f"text-anchor='end'>{_f(est, pct=pct)}</text>")
    return f"<svg width='{width}' height='{height}' role='img' aria-label='{escape(title)}'>{''.join(items)}</svg>"


def _label(label: str, y: int, per_line: int = 44) -> str:
    """A chart label in full, on up to two lines (a longer one is shortened with … and kept whole in its tooltip)."""
    words, lines = label.split(), [""]
    for word in words:
        if len(lines[-1]) + len(word) + 1 > per_line and lines[-1]:
            lines.append("")
        lines[-1] = f"{lines[-1]} {word}".strip()
    if len(lines) > 2:
        lines = [lines[0], (" ".join(lines[1:]))[: per_line - 1] + "…"]
    spans = "".join(f"<tspan x='4' dy='{0 if i == 0 else 13}'>{escape(line)}</tspan>" for i, line in enumerate(lines))
    top = y + 4 - (6 if len(lines) > 1 else 0)
    return f"<text x='4' y='{top}'><title>{escape(label)}</title>{spans}</text>"


def _ranking(family: str, r: Rankings) -> str:
    wr = _chart([(w["system"], w["rate"], w["low"], w["high"]) for w in r["win_rates"]], 0, 1,
                "win rate (tie = ½), Wilson 95 %", pct=True)
    bts = r["bradley_terry"]
    span = max([abs(v) for b in bts for v in (b.get("low"), b.get("high")) if v is not None] + [1.0])
    bt = _chart([(b["system"], b["estimate"], b["low"], b["high"]) for b in bts], -span, span,
                "Bradley–Terry log-strength, bootstrap 95 %")
    rows = "".join(
        f"<tr><td>{escape(w['system'])}</td><td>{w['wins']}</td><td>{w['ties']}</td><td>{w['losses']}</td>"
        f"<td>{_f(w['rate'], pct=True)} [{_f(w['low'], pct=True)}, {_f(w['high'], pct=True)}]</td></tr>"
        for w in r["win_rates"]
    )
    table = f"<table><tr><th>system</th><th>wins</th><th>ties</th><th>losses</th><th>win rate [Wilson]</th></tr>{rows}</table>"
    return f"<h3>{escape(family)} ({r['comparisons']} comparisons)</h3>{table}{wr}{bt}"


def _disagreements(rows: list[Disagreement], clip_href: Callable[[str], str]) -> str:
    if not rows:
        return "<p>No disagreements.</p>"
    items = []
    for r in rows:
        verdicts = "; ".join(f"{escape(v['rater'])}: {escape(v['winner'])} ({escape(v['primary_tag'])})" for v in r["verdicts"])
        clips = " · ".join(f"<a href='{escape(clip_href(sha))}'>{escape(system)}</a>" for system, sha in r["clips"].items())
        items.append(f"<li class='sev{r['severity']}'><b>{escape(r['kind'])}</b> — {escape(r['family'])}: "
                     f"“{escape(r['prompt'][:140])}” <code>{r['sample_id']}</code><br>{verdicts}<br>clips: {clips}</li>")
    return f"<ol id='disagreements'>{''.join(items)}</ol>"


def _contradictions(rows: list[ContradictionRow]) -> str:
    if not rows:
        return "<p>None: every record's ratings agree with its winner.</p>"
    body = "".join(
        f"<tr><td>{escape(c['kind'])}</td><td>{escape(c['rater'])}</td><td><code>{c['sample_id']}</code></td><td>{escape(c['winner'])}</td>"
        f"<td>{escape(c['ratings_favour'])}</td><td>{escape(c['deciding_group'])} (by {c['margin']})</td></tr>"
        for c in rows
    )
    return ("<table id='contradictions'><tr><th>kind</th><th>rater</th><th>sample</th><th>winner</th><th>ratings "
            f"favour</th><th>decided by</th></tr>{body}</table>")


def _gold(gold: dict[str, GoldAccuracy]) -> str:
    if not gold:
        return "<p>No gold pairs answered.</p>"
    rows = "".join(f"<tr><td>{escape(r)}</td><td>{g['correct']}/{g['answered']}</td><td>{_f(g['accuracy'], pct=True)}</td></tr>"
                   for r, g in sorted(gold.items()))
    return f"<table id='gold'><tr><th>rater</th><th>correct</th><th>accuracy</th></tr>{rows}</table>"


def _models(models: list[ModelRow], clip_href: Callable[[str], str]) -> str:
    if not models:
        return "<p>No model raters in this store. Add one with <code>reeljudge ab judge</code>.</p>"
    return "".join(_model(m, clip_href) for m in models)


def _model(m: ModelRow, clip_href: Callable[[str], str]) -> str:
    """One model rater: agreement rows beside the human–human ceiling, position consistency, unanimous disagreements."""
    pos = m.get("position") or {}
    consistency = (f"{pos['consistent']} of {pos['both_orders']} pairs judged in both orders gave the same verdict "
                   f"({_f(pos['rate'], pct=True)}); "
                   "a flip is stored as a tie flagged inconsistent." if pos.get("both_orders")
                   else "No pair was judged in both orders.")
    gold = m.get("gold")
    gold_text = f" Gold pairs: {gold['correct']}/{gold['answered']} correct." if gold else ""
    rows = [_model_row("winner, all families", m["winner"]["all"])]
    rows += [_model_row(f"winner, {f}", v) for f, v in m["winner"]["by_family"].items()]
    rows += [_model_row(f"{v['label']} (which clip rated higher)", v) for v in m["dimensions"].values()]
    rows += [_model_row(f"tag: {t['label']} (used {t['used_by_model']}×; specific agreement model–human "
                        f"{_f(t['specific_model_human'], pct=True)}, human–human {_f(t['specific_human_human'], pct=True)})", t)
             for t in m["tags"]]
    table = ("<table class='models'><tr><th>what</th><th>samples with a human majority</th><th>model vs "
             "majority</th><th>Cohen's κ</th><th>without ties</th><th>model–human pairs</th><th>human–human pairs "
             "(ceiling)</th><th>human Fleiss' κ</th></tr>"
             f"{''.join(rows)}</table>")
    return (f"<h3>{escape(m['rater'])}</h3><p>{m['samples']} pair samples judged. Position consistency: "
            f"{consistency}{gold_text}</p>{table}<h4>Where the model disagrees with unanimous people</h4>"
            f"{_unanimous(m.get('unanimous_disagreements') or [], clip_href)}")


def _model_row(name: str, v: Comparison) -> str:
    vs = v["vs_majority"]
    nt = vs.get("without_ties")
    return (f"<tr><td>{escape(name)}</td><td>{vs['units']}</td><td>{_ci(vs['rate'], pct=True)}</td><td>{_f(vs['kappa'])}</td>"
            f"<td>{_f(nt['rate'], pct=True) if nt else '–'}</td><td>{_ci(v['judge_human_pairs']['interval'], pct=True)}</td>"
            f"<td>{_ci(v['human_human_pairs']['interval'], pct=True)}</td><td>{_ci(v['human_fleiss_kappa'])}</td></tr>")


def _unanimous(rows: list[UnanimousDisagreement], clip_href: Callable[[str], str]) -> str:
    if not rows:
        return "<p>None.</p>"
    items = []
    for r in rows:
        clips = " · ".join(f"<a href='{escape(clip_href(sha))}'>{escape(system)}</a>" for system, sha in r["clips"].items())
        flag = " (inconsistent across orders)" if r["inconsistent"] else ""
        items.append(f"<li class='sev{r['severity']}'>{escape(r['family'])}: “{escape(r['prompt'][:140])}” "
                     f"<code>{r['sample_id']}</code><br>{r['n_humans']} people: {escape(r['humans'])} "
                     f"({escape(', '.join(r['human_tags']))}); model: {escape(r['model'])}{flag} "
                     f"({escape(', '.join(r['model_tags']))})<br>clips: {clips}</li>")
    return f"<ol class='unanimous'>{''.join(items)}</ol>"


def _evidence(by_rater: dict[str, RaterEvidence]) -> str:
    """Per rater: records, records accepted with thin server evidence, records from before the server kept any."""
    if not by_rater:
        return "<p>No human records.</p>"
    rows = "".join(
        f"<tr><td>{escape(rater)}</td><td>{e['records']}</td><td>{len(e['thin'])}</td><td>{e['without_evidence']}</td>"
        f"<td>{'; '.join(escape(t['record_id'][:8] + ': ' + ', '.join(t['reasons'])) for t in e['thin'][:5]) or '–'}</td></tr>"
        for rater, e in sorted(by_rater.items())
    )
    return ("<p>The server logs the bytes of each clip it sent for a task and the time from handing the task out to the submit; "
            "it refuses a submit without both clips sent in full or faster than the fastest offered speed "
            "allows. Accepted records that were open for less than real-time viewing at 1× are <em>thin</em>. It cannot prove "
            "that anyone looked at the screen.</p><table id='watch-evidence'><tr><th>rater</th><th>records</th><th>thin "
            "evidence</th><th>no server evidence (older records)</th>"
            f"<th>thin records (first 5)</th></tr>{rows}</table>")


def _notes(notes: list[Note]) -> str:
    """Every note a rater left, with the record it belongs to."""
    if not notes:
        return "<p>No notes.</p>"
    rows = "".join(
        f"<tr><td>{escape(n['rater'])}</td><td><code>{escape(n['sample_id'])}</code></td><td>{escape(n['family'])}</td>"
        f"<td>{escape(n['winner'])}</td><td>{escape(n['primary_tag'])}</td><td>{escape(n['note'])}</td></tr>"
        for n in notes
    )
    return ("<table id='notes'><tr><th>rater</th><th>sample</th><th>family</th><th>winner</th><th>primary "
            f"reason</th><th>note</th></tr>{rows}</table>")
