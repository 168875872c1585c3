"""A rater's verdict for one task: checked (text, watch log, form, server evidence, hold) and stored once.

The server has already matched the invite token and the task in the URL and parsed the body,
bounded; this is the rest, run in a worker thread. Each answer is a JSON body and an HTTP status:
422 with the violations (nothing stored), 404 for a task that is not the rater's, 409 for a second
verdict, a taken submission id or a hold that expired and was filled by others, else 200.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reeljudge.ab.study.assignment import Assignment, QCOptions, assignment_by_id, hold_guard, withdraw
from reeljudge.ab.transport.bodies import unstorable_field
from reeljudge.ab.store.evidence import gather
from reeljudge.ab.store.protocol import check_form
from reeljudge.ab.store.records import RecordError, build_record
from reeljudge.ab.store.store import AlreadyJudged, HoldLost, SubmissionIdTaken
from reeljudge.ab.page.watch import play_problems, read_watch
from reeljudge.ab.study.workspace import Workspace

Answer = tuple[dict[str, Any], int]  # JSON body, HTTP status


@dataclass(frozen=True)
class Submitter:
    """Checks and stores the verdicts of one workspace's raters."""

    ws: Workspace
    qc: QCOptions
    max_speed: float

    def submit(self, rater: str, assignment: Assignment | None, body: dict[str, Any]) -> Answer:
        """``body`` posted by ``rater`` for ``assignment`` (the URL's task, or None: the body names it)."""
        refused = _unusable(body, assignment)
        if refused is not None:
            return refused
        if assignment is None:
            assignment = assignment_by_id(self.ws.store, str(body.get("assignment_id") or ""))
        if assignment is None or assignment.rater_id != rater:
            return {"error": "no such task for this invite link"}, 404
        submission_id = str(body.get("submission_id") or "")
        for record in self.ws.store.judgements(rater_id=rater, sample_id=assignment.sample.sample_id):
            if record["submission_id"] == submission_id:
                return {"stored": False, "duplicate": True, "record_id": record["record_id"]}, 200
        rules, form = self.ws.protocol.rules, body.get("form")
        form = form if isinstance(form, dict) else {}
        clips = {side: self.ws.store.clip(sha) for side, sha in assignment.clips.items()}
        durations = {side: clip.duration if clip else 0.0 for side, clip in clips.items()}
        watch, problems = read_watch(body.get("watch"), durations)
        problems += [v.as_dict() for v in check_form(self.ws.protocol, assignment.sample.family, form)]
        problems += play_problems(watch, rules.min_full_plays)
        evidence = gather(self.ws.store.coverage(assignment.assignment_id), {s: c.bytes if c else 0 for s, c in clips.items()},
                          durations, assignment.served_at, rules.min_full_plays, self.max_speed, watch["log"])
        problems += evidence.violations(rules.min_full_plays)
        watch["server"] = evidence.as_dict()
        if problems:
            return {"stored": False, "violations": problems}, 422
        return self._store(rater, assignment, form, watch, submission_id)

    def _store(self, rater: str, assignment: Assignment, form: dict[str, Any],
               watch: dict[str, Any], submission_id: str) -> Answer:
        """The record appended, unless the hold was lost meanwhile (checked inside the write transaction)."""
        sample = assignment.sample
        try:
            record = build_record(
                sample_id=sample.sample_id, family=sample.family, protocol=self.ws.protocol.id, shown=assignment.shown,
                clips=assignment.clips, form=form, rater_id=rater, submission_id=submission_id or None, watch=watch,
                served_at=assignment.served_at,
            )
            stored, created = self.ws.store.append_judgement(record, guard=hold_guard(assignment, self.qc))
        except RecordError as error:
            return {"stored": False, "violations": [{"field": "record", "message": error.message}]}, 422
        except AlreadyJudged:
            return {"stored": False,
                    "error": "you already submitted another verdict for this task; it stands (records are never changed)"}, 409
        except HoldLost as error:
            withdraw(self.ws.store, assignment)  # the rater's next request for work gets the next task, without a second notice
            return {"stored": False, "withdrawn": True, "error": error.message}, 409
        except SubmissionIdTaken as error:
            return {"stored": False, "error": error.message}, 409
        return {"stored": created, "duplicate": not created, "record_id": stored["record_id"]}, 200


def _unusable(body: dict[str, Any], assignment: Assignment | None) -> Answer | None:
    """A 422 for a body holding text the store cannot keep, or naming another task than the URL; else None."""
    bad = unstorable_field(body)
    if bad is not None:
        message = f"{bad}: not storable text (a lone surrogate such as \\ud800, or a NUL character)"
        return {"stored": False, "violations": [{"field": bad, "message": message}]}, 422
    if assignment is not None and body.get("assignment_id", assignment.assignment_id) != assignment.assignment_id:
        return {"stored": False, "violations": [{"field": "assignment_id", "message": "differs from the task in the URL"}]}, 422
    return None
