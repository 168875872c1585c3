"""The Gecko verdict: an outcome judged against the threshold and coverage asked for, and its reasons.

``GeckoVerdict`` (``reeljudge.score_gecko``'s result, and what the promptfoo adapter turns into a result;
made in one place, ``reeljudge.gecko.api.judge``) passes when the score reaches the threshold with
enough coverage; ``reason()`` says why in one line, and ``question_line`` / ``dropped_line`` say how
each question, scored or dropped, went. Named scores: ``gecko`` (overall), ``gecko_coverage`` and
``gecko_<tag>`` per tag; each question, kept or dropped, a part of the breakdown and an entry of
``metadata()["questions"]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping

from reeljudge.gecko.options import GeckoOptions
from reeljudge.gecko.results_extra import dependency_metadata, letter_metadata, skip_reason
from reeljudge.identity import GEMINI_ENGINE, judge_identity
from reeljudge.options import verdict_options
from reeljudge.judging import GECKO

if TYPE_CHECKING:  # pragma: no cover - typing only: the verdict is read without loading the pipeline
    from reeljudge.gecko.pipeline import GeckoOutcome
    from reeljudge.gecko.questions import Dropped
    from reeljudge.gecko.scoring import QuestionOutcome
    from reeljudge.gemini.settings import JudgeSettings

METRIC = "gecko"


@dataclass(frozen=True)
class GeckoVerdict:
    """How well a clip or image shows its prompt: score, coverage, per-tag scores and every question.

    ``found``: how the media was found (carrier, file, hash), recorded under ``metadata()["media"]``.
    """

    outcome: GeckoOutcome
    options: GeckoOptions
    found: Mapping[str, Any] = field(default_factory=dict)
    settings: JudgeSettings | None = None  # the Gemini settings it was asked with (what of them changes verdicts: recorded)

    judged = True

    @property
    def threshold(self) -> float:
        """The score a pass needs."""
        return self.options.threshold

    @property
    def min_coverage(self) -> float:
        """The share of kept questions that must get a readable verdict."""
        return self.options.min_coverage

    @property
    def questions_file(self) -> str | None:
        """Where the questions came from, when from a file."""
        return self.options.questions_file

    @property
    def score(self) -> float:
        """Mean over kept questions (unanswered count 0)."""
        return self.outcome.score.score

    @property
    def coverage(self) -> float:
        """Share of kept questions that got a readable verdict."""
        return self.outcome.score.coverage

    @property
    def per_tag(self) -> dict[str, float]:
        """Mean score per tag (entity, action, color, …)."""
        return self.outcome.score.per_tag

    @property
    def questions(self) -> list[QuestionOutcome]:
        """Every kept question with its verdict."""
        return self.outcome.score.outcomes

    @property
    def covered(self) -> bool:
        """Whether enough questions got a readable verdict (``min_coverage``)."""
        return self.coverage >= self.min_coverage

    @property
    def passed(self) -> bool:
        """Score at or above the threshold, with enough coverage."""
        return self.covered and self.score >= self.threshold

    def reason(self) -> str:
        """One line: score against threshold, correct and answered questions, tags, where the questions came
        from, questions zeroed by a failed parent or left unanswered, scoring notes."""
        s, question_set = self.outcome.score, self.outcome.question_set
        relation = ">=" if s.score >= self.threshold else "<"
        parts = [
            f"gecko {s.score:.2f} {relation} threshold {self.threshold:g}: "
            f"{s.correct}/{s.kept} correct, coverage {s.answered}/{s.kept} ({s.scoring} scoring) on {self.outcome.media.ref.name}"
        ]
        if not self.covered:
            parts.append(f"coverage {s.coverage:.2f} is below min_coverage {self.min_coverage:g}: the judge left too many "
                         "questions unanswered")
        if s.per_tag:
            parts.append("tags: " + ", ".join(f"{t} {v:.2f}" for t, v in s.per_tag.items()))
        origin = {"generated": "questions generated", "declared": "questions declared by the test",
                  "file": f"questions from {self.questions_file}"}[question_set.source]
        if question_set.dropped:
            origin += f", {len(question_set.dropped)} question(s) dropped (see metadata.questions_dropped)"
        parts.append(origin)
        skipped = [f"q{o.number} ({skip_reason(o)})" for o in s.outcomes if o.skipped_by is not None]
        if skipped:
            parts.append(f"{len(skipped)} question(s) scored 0 because a question they depend on failed: "
                         + ", ".join(skipped[:8]))
        unanswered = [f"q{o.number} ({o.note or 'no verdict'})" for o in s.outcomes if o.verdict is None]
        if unanswered:
            parts.append("unanswered: " + ", ".join(unanswered[:8]))
        parts.extend(s.notes)
        return ". ".join(parts)

    def _questions(self) -> list[tuple[str, str, dict[str, Any]]]:
        """Every question, kept then dropped: its name, its line of the breakdown, its record."""
        dropped = self.outcome.question_set.dropped
        return [_kept_question(o) for o in self.questions] + [_dropped_question(n, d) for n, d in enumerate(dropped, 1)]

    def part_reasons(self) -> dict[str, str]:
        """Each question's line, by its name (``q3 [color]``, ``dropped 1 [entity]``)."""
        return {name: line for name, line, _ in self._questions()}

    def part_status(self) -> dict[str, bool]:
        """The scored questions (not skipped): whether each was answered correctly."""
        return {name: bool(d["correct"]) for name, _, d in self._questions() if d["status"] == "kept" and not d.get("skipped")}

    def named_scores(self) -> dict[str, float]:
        """``gecko``, ``gecko_coverage`` and ``gecko_<tag>``."""
        s = self.outcome.score
        return {METRIC: s.score, f"{METRIC}_coverage": s.coverage, **{f"{METRIC}_{tag}": v for tag, v in s.per_tag.items()}}

    def tokens_used(self) -> dict[str, int] | None:
        """The judge model's tokens over every stage."""
        return self.outcome.usage.tokens_used()

    @property
    def cache_hit(self) -> bool:
        """Every stage's answer came from the judge cache."""
        return all(st.get("cache_hit") for st in self.outcome.stages.values())

    def identity(self) -> dict[str, Any]:
        """Who judged: the VQA model, the hash of the rubric files for this media kind, the scoring options."""
        from reeljudge.gemini.prompts import rubric_version

        outcome = self.outcome
        kind = "image" if outcome.kind == "image" else "video"
        files = (f"gecko_{kind}_generate.md", f"gecko_{kind}_answer.md", "gecko_filter.md", "gecko_questions.schema.json")
        stage = outcome.stages.get("vqa") or next(iter(outcome.stages.values()), {})
        return judge_identity(GECKO.name, GEMINI_ENGINE, model=stage.get("model"), version=rubric_version(*files),
                              options=verdict_options(self.options, self.settings), replayed=self.cache_hit)

    def metadata(self) -> dict[str, Any]:
        """The prompt, the media, the scores, where the questions came from, every question and stage."""
        outcome, s, question_set = self.outcome, self.outcome.score, self.outcome.question_set
        metadata = {
            "judge": GECKO.name, "prompt": outcome.prompt,
            "media": {"ref": outcome.media.ref.ref, "name": outcome.media.ref.name, **self.found,
                      "sha256": outcome.media.sha256, "kind": outcome.kind},
            "expect": self.options.expect, "judged": self.covered, "score": s.score, "coverage": s.coverage,
            "per_tag": s.per_tag, "scoring": s.scoring, "scoring_notes": s.notes, "questions_source": question_set.source,
            "keywords": question_set.keywords, "annotation_problems": question_set.annotation_problems,
            "questions_kept": len(question_set.kept), "questions_dropped": [d.as_dict() for d in question_set.dropped],
            "questions": [details for _, _, details in self._questions()], "stages": outcome.stages, "cache_hit": self.cache_hit,
        }
        metadata.update(dependency_metadata(s) if self.options.dependencies else {})
        metadata.update(letter_metadata(outcome))
        return metadata


def _kept_question(o: QuestionOutcome) -> tuple[str, str, dict[str, Any]]:
    """A scored question: its name, its line of the breakdown, its record."""
    q = o.question
    name = f"q{o.number} [{q.tag}]"
    skipped = skip_reason(o)
    extra: dict[str, Any] = {"skipped": skipped} if skipped else {}
    if o.parents:
        extra["parents"] = o.parents
    return name, question_line(o), {
        "name": name, "correct": o.correct and not skipped, "score": o.score, "question": q.question, "choices": q.choices,
        "ground_truth": q.answer, "verdict": o.verdict, "raw_verdict": o.raw, "matched_by": o.matched_by,
        "tag": q.tag, "tag_source": q.tag_source, "status": "kept", **extra}


def _dropped_question(number: int, d: Dropped) -> tuple[str, str, dict[str, Any]]:
    """A question the filter dropped (not scored): its name, its line of the breakdown, its record."""
    q = d.question
    name = f"dropped {number} [{q.tag}]"
    return name, dropped_line(d), {
        "name": name, "question": q.question, "choices": q.choices, "ground_truth": q.answer, "tag": q.tag,
        "status": "dropped", "dropped_by": d.check, "why": d.reason}


def question_line(o: QuestionOutcome) -> str:
    """How a scored question went: the question and its choices, the truth, the judge's verdict (and why it
    scored 0 when a question it depends on failed)."""
    q = o.question
    if o.verdict is None:
        verdict = f"unanswered ({o.raw!r})" if o.raw else "unanswered (no verdict)"
    else:
        verdict = f"{o.verdict} {'correct' if o.correct else 'wrong'}"
    detail = f" p={o.probability:.2f}" if o.probability is not None else ""
    note = f"; {o.note}" if o.note else ""
    skipped = skip_reason(o)
    return (f"{skipped} (verdict recorded, not used) — " if skipped else "") + (
        f"{q.question} {' | '.join(q.choices)} — truth {q.answer}, verdict {verdict}{detail}{note}")


def dropped_line(d: Dropped) -> str:
    """Why a question the filter dropped was not scored."""
    q = d.question
    return f"not scored, dropped by {d.check}: {d.reason} — {q.question} {' | '.join(q.choices)} (truth {q.answer})"
