"""Quality control as the protocol says: who rates what next, sides, third raters and gold checks.

Every pair sample goes to at least ``min_raters`` raters and never twice to the same rater; a
winner disagreement puts the sample in the third-rater queue, which is served first; gold pairs
(known answer) are mixed in, one in every ``gold_every`` tasks for every rater at a place in each block
drawn from the store's seed (``GoldSlots``), with a prompt the rater has not been handed. Sides are
randomised per (sample, rater) from the store's seed, so the same rater always sees the same layout.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Iterable, TypedDict

from reeljudge.ab.store.records import TIE, as_judgements, now_iso
from reeljudge.ab.store.samples import Sample
from reeljudge.ab.store.store import HoldLost, Store, _Tx

SEED_KEY = "side_seed"
#: what a task id is (uuid4 hex, as ``next_task`` makes them): anything else is refused before the store is asked
ASSIGNMENT_ID = re.compile(r"[0-9a-f]{32}")


@dataclass(frozen=True)
class QCOptions:
    """Quality-control settings.

    Args:
        min_raters: raters every pair sample gets before it counts as done (protocol: at least 2).
        max_raters: raters a sample gets at most; a winner disagreement among the first
            ``min_raters`` sends it to the third-rater queue until it has this many.
        gold_every: serve a gold pair once in every n tasks, at a random place in each block of n (0: never).
        assignment_ttl_s: an unsubmitted task holds its slot this long, then others may take it.
    """

    min_raters: int = 2
    max_raters: int = 3
    gold_every: int = 5
    assignment_ttl_s: float = 1800.0


@dataclass(frozen=True)
class Assignment:
    """One task given to one rater: the sample, which system is on which side, when it was served (and withdrawn)."""

    assignment_id: str
    sample: Sample
    rater_id: str
    swap: bool
    served_at: str
    withdrawn_at: str | None = None

    @property
    def shown(self) -> dict[str, str]:
        """Side → system."""
        a, b = self.sample.systems
        return {"A": b, "B": a} if self.swap else {"A": a, "B": b}

    @property
    def clips(self) -> dict[str, str]:
        """Side → clip sha256."""
        return {side: self.sample.clip_of(system) for side, system in self.shown.items()}


def side_seed(store: Store) -> str:
    """The store's side seed, made once (random) and kept."""
    return store.meta(SEED_KEY) or store.set_meta_once(SEED_KEY, secrets.token_hex(16))


def side_swap(seed: str, sample_id: str, rater_id: str) -> bool:
    """Whether this rater sees this sample's system_b on side A (HMAC-SHA256 of the pair, low bit)."""
    digest = hmac.new(seed.encode(), f"{sample_id}\x1f{rater_id}".encode(), hashlib.sha256).digest()
    return bool(digest[0] & 1)


@dataclass(frozen=True)
class Handout:
    """What a rater's request for work gets: a task (None: nothing left) and, once, why their last task was withdrawn."""

    assignment: Assignment | None
    notice: str | None = None


def next_task(store: Store, rater_id: str, options: QCOptions = QCOptions()) -> Handout:
    """The rater's open task, else a new one by QC priority, else none. An open task whose hold expired and whose
    sample went to others (``hold_lost``) is withdrawn first: the rater gets the next task and, this once, a notice."""
    seed = side_seed(store)
    notice = None
    with store.transaction() as db:
        while (open_row := _open_assignment(db, rater_id)) is not None:
            kind = db.rows("SELECT kind FROM samples WHERE sample_id = ?", (open_row[1],))[0][0]
            if not hold_lost(db, kind, open_row[1], rater_id, open_row[4], options):
                return Handout(_assignment(store, open_row))
            db.execute("UPDATE assignments SET withdrawn_at = ? WHERE assignment_id = ?", (now_iso(), open_row[0]))
            notice = withdrawn_notice(options)
        sample_id = _pick(db, rater_id, options, seed)
        if sample_id is None:
            return Handout(None, notice)
        row = (uuid.uuid4().hex, sample_id, rater_id, int(side_swap(seed, sample_id, rater_id)), now_iso())
        db.execute("INSERT INTO assignments (assignment_id, sample_id, rater_id, swap, served_at) VALUES (?, ?, ?, ?, ?)", row)
    return Handout(_assignment(store, row), notice)


def next_assignment(store: Store, rater_id: str, options: QCOptions = QCOptions()) -> Assignment | None:
    """The rater's open task, else a new one by QC priority, else None (nothing left for them); see ``next_task``."""
    return next_task(store, rater_id, options).assignment


def withdraw(store: Store, assignment: Assignment) -> None:
    """Take a task from its rater (its hold was lost): it is no longer their open task."""
    with store.transaction() as db:
        db.execute("UPDATE assignments SET withdrawn_at = ? WHERE assignment_id = ? AND withdrawn_at IS NULL",
                   (now_iso(), assignment.assignment_id))


def withdrawn_notice(options: QCOptions) -> str:
    """What the page tells a rater whose task was withdrawn."""
    return (f"Your previous task was withdrawn: it was held for you for {_duration(options.assignment_ttl_s)}, "
            "then it went to other "
            "raters, who have rated it (or are rating it now). Nothing of it was stored. Here is your next task.")


def _duration(seconds: float) -> str:
    """A hold's length for a message: "30 minutes", "2 s"."""
    return f"{seconds / 60:g} minutes" if seconds >= 120 else f"{seconds:g} s"


_ASSIGNMENT_COLUMNS = "assignment_id, sample_id, rater_id, swap, served_at, withdrawn_at"


def assignment_by_id(store: Store, assignment_id: str) -> Assignment | None:
    """A task by its id (None if unknown, or not an id the server makes: nothing else reaches the store)."""
    if not ASSIGNMENT_ID.fullmatch(assignment_id):
        return None
    rows = store.query(f"SELECT {_ASSIGNMENT_COLUMNS} FROM assignments WHERE assignment_id = ?", (assignment_id,))
    return _assignment(store, rows[0]) if rows else None


def _assignment(store: Store, row: tuple[Any, ...]) -> Assignment:
    sample = store.sample(row[1])
    assert sample is not None
    return Assignment(row[0], sample, row[2], bool(row[3]), row[4], row[5] if len(row) > 5 else None)


def _open_assignment(db: _Tx, rater_id: str) -> tuple[Any, ...] | None:
    """The rater's served, unjudged and not withdrawn task, if any."""
    rows = db.rows(
        f"""SELECT {", ".join("a." + c for c in _ASSIGNMENT_COLUMNS.split(", "))} FROM assignments a
           WHERE a.rater_id = ? AND a.withdrawn_at IS NULL
             AND NOT EXISTS (SELECT 1 FROM judgements j WHERE j.sample_id = a.sample_id AND j.rater_id = a.rater_id)
           ORDER BY a.served_at LIMIT 1""",
        (rater_id,),
    )
    return rows[0] if rows else None


_CANDIDATE_SQL = """
WITH done AS (SELECT sample_id, COUNT(*) AS n, CASE WHEN MIN(winner) = MAX(winner) THEN 1 ELSE 2 END AS winners
              FROM human_judgements GROUP BY sample_id),
open AS (SELECT a.sample_id, COUNT(*) AS n FROM assignments a
         LEFT JOIN judgements j ON j.sample_id = a.sample_id AND j.rater_id = a.rater_id
         WHERE j.seq IS NULL AND a.served_at > ? AND a.withdrawn_at IS NULL GROUP BY a.sample_id)
SELECT s.sample_id, s.kind, COALESCE(done.n, 0), COALESCE(done.winners, 0), COALESCE(open.n, 0), s.prompt_key
FROM samples s LEFT JOIN done ON done.sample_id = s.sample_id LEFT JOIN open ON open.sample_id = s.sample_id
WHERE {mine} (s.kind = 'gold'
       OR COALESCE(done.n, 0) + COALESCE(open.n, 0) < ?
       OR (COALESCE(done.n, 0) >= ? AND COALESCE(done.winners, 0) > 1 AND COALESCE(done.n, 0) + COALESCE(open.n, 0) < ?))
ORDER BY s.seq
"""
#: the samples one rater may still get (never one they were handed), and the samples any rater may still get;
#: "winners" is 1 when the raters agree, 2 when they do not (MIN/MAX reads the covering index; COUNT(DISTINCT) did not)
_CANDIDATES = _CANDIDATE_SQL.format(mine="s.sample_id NOT IN (SELECT sample_id FROM assignments WHERE rater_id = ?) AND")
_ANY_CANDIDATES = _CANDIDATE_SQL.format(mine="")


def _cutoff(options: QCOptions) -> str:
    """The hand-out time (ISO, as stored) before which an unsubmitted task no longer holds its slot."""
    return _iso(datetime.now(timezone.utc) - timedelta(seconds=options.assignment_ttl_s))


def _iso(moment: datetime) -> str:
    """A time as the store writes it (ISO 8601, milliseconds, Z)."""
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def hold_lost(db: _Tx, kind: str, sample_id: str, rater_id: str, served_at: str, options: QCOptions) -> bool:
    """Whether a rater's task on a pair has lost its hold: it expired and the sample was handed to another rater
    after that, or the raters recorded on it or holding it now fill what it needs. A gold task never loses it."""
    if kind == "gold":
        return False
    cutoff = _cutoff(options)
    if served_at > cutoff:
        return False
    expired = _iso(datetime.fromisoformat(served_at.replace("Z", "+00:00")) + timedelta(seconds=options.assignment_ttl_s))
    if db.rows("SELECT COUNT(*) FROM assignments WHERE sample_id = ? AND rater_id != ? AND served_at > ?",
               (sample_id, rater_id, expired))[0][0]:
        return True  # re-issued: a late record would count instead of (or beside) the rater it went to
    judged, winners = db.rows("SELECT COUNT(*), COUNT(DISTINCT winner) FROM human_judgements WHERE sample_id = ?",
                              (sample_id,))[0]
    holding = db.rows(
        """SELECT COUNT(*) FROM assignments a WHERE a.sample_id = ? AND a.rater_id != ? AND a.served_at > ? AND a.withdrawn_at IS
        NULL
           AND NOT EXISTS (SELECT 1 FROM judgements j WHERE j.sample_id = a.sample_id AND j.rater_id = a.rater_id)""",
        (sample_id, rater_id, cutoff))[0][0]
    needed = options.max_raters if judged >= options.min_raters and winners > 1 else options.min_raters
    return judged + holding >= needed


def hold_guard(assignment: Assignment, options: QCOptions) -> Callable[[_Tx], None]:
    """A check for ``Store.append_judgement``: HoldLost when the task was withdrawn or its hold was lost
    (``hold_lost``), so a late record never counts."""

    def guard(db: _Tx) -> None:
        withdrawn = db.rows("SELECT withdrawn_at FROM assignments WHERE assignment_id = ?", (assignment.assignment_id,))
        if (withdrawn and withdrawn[0][0]) or hold_lost(db, assignment.sample.kind, assignment.sample.sample_id,
                                                        assignment.rater_id,
                                                        assignment.served_at, options):
            raise HoldLost(
                f"this task was held for you for {_duration(options.assignment_ttl_s)} after it was handed out; the "
                "hold expired and the "
                "pair went to other raters, who have rated it (or are rating it now), so nothing was stored. "
                "Your next task follows.")

    return guard


def _candidates(db: Any, rater_id: str, options: QCOptions) -> list[tuple[str, str, int, int, int, str]]:
    """(sample id, kind, judged, distinct winners, open tasks, prompt key) of samples the rater may still get."""
    params = (_cutoff(options), rater_id, options.min_raters, options.min_raters, options.max_raters)
    return _read(db, _CANDIDATES, params)


def _read(db: Any, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """Rows of a query, inside a write transaction (``_Tx``) or outside it (``Store``)."""
    return db.rows(sql, params) if isinstance(db, _Tx) else db.query(sql, params)


def _seen_prompts(db: Any, rater_id: str) -> tuple[set[str], set[str]]:
    """The prompt keys of every task the rater was handed, and of the gold ones among them."""
    rows = _read(db,
                 "SELECT s.prompt_key, s.kind FROM assignments a JOIN samples s ON s.sample_id = a.sample_id "
                 "WHERE a.rater_id = ?",
                 (rater_id,))
    return {key for key, _ in rows}, {key for key, kind in rows if kind == "gold"}


@dataclass(frozen=True)
class GoldSlots:
    """Where a rater's gold tasks fall: one in each block of ``every`` tasks, at a place drawn for each block from
    the store's seed (HMAC-SHA256 of rater and block), so that no position tells a gold task (every place in a block
    is gold one time in ``every``) and the same rater always gets the same places."""

    seed: str
    rater_id: str
    every: int

    def due(self, index: int) -> bool:
        """Whether the rater's task at ``index`` (0-based: tasks they finished before it) is a gold slot."""
        if self.every <= 0:
            return False
        block, place = divmod(index, self.every)
        digest = hmac.new(self.seed.encode(), f"gold\x1f{self.rater_id}\x1f{block}".encode(), hashlib.sha256).digest()
        return place == int.from_bytes(digest[:4], "big") % self.every


def _pick(db: _Tx, rater_id: str, options: QCOptions, seed: str) -> str | None:
    """The next sample for a rater: gold when due, the third-rater queue, then pairs needing raters.

    A gold pair is handed out only with a prompt the rater has not been handed yet, and a pair whose prompt the rater
    saw on a gold task comes after every other pair it may get, so that a repeated prompt does not say "gold".
    """
    rows = _candidates(db, rater_id, options)
    seen, seen_in_gold = _seen_prompts(db, rater_id)
    gold = [r[0] for r in rows if r[1] == "gold" and r[5] not in seen]
    third = sorted((r for r in rows if r[1] != "gold" and r[2] >= options.min_raters and r[3] > 1 and r[2]
                    + r[4] < options.max_raters),
                   key=lambda r: r[5] in seen_in_gold)
    needy = sorted((r for r in rows if r[1] != "gold" and r[2] + r[4] < options.min_raters),
                   key=lambda r: (r[5] in seen_in_gold, -(r[2] + r[4])))
    done = db.rows("SELECT COUNT(*) FROM judgements WHERE rater_id = ?", (rater_id,))[0][0]
    slots = GoldSlots(seed, rater_id, options.gold_every)
    if gold and slots.due(done) and (third or needy or _judged_pairs(db, rater_id)):
        return gold[0]
    if third:
        return third[0][0]
    if needy:
        return needy[0][0]
    return None  # gold only between pairs: a rater is never given gold alone, nor a run of it at the end


def _judged_pairs(db: Any, rater_id: str) -> int:
    """How many pair samples (not gold) the rater has judged."""
    sql = ("SELECT COUNT(*) FROM judgements j JOIN samples s ON s.sample_id = j.sample_id WHERE j.rater_id = ? "
           "AND s.kind != 'gold'")
    return int(_read(db, sql, (rater_id,))[0][0])


def _reachable(slots: GoldSlots, done: int, pairs: int, golds: int, judged_pair: bool) -> int:
    """How many more tasks a rater gets from ``pairs`` pair and ``golds`` gold candidates, from task ``done`` on, as
    ``_pick`` hands them out. Whole blocks of the gold schedule are counted at once (each takes ``every`` − 1 pairs and
    one gold wherever its gold slot is), so the count costs a few HMACs, not one per task."""
    count, index = 0, done
    while True:
        if not golds:
            return count + pairs
        if slots.every >= 2 and index % slots.every == 0:
            blocks = min(golds, pairs // (slots.every - 1))
            if blocks:
                count, index = count + blocks * slots.every, index + blocks * slots.every
                pairs, golds, judged_pair = pairs - blocks * (slots.every - 1), golds - blocks, True
        if golds and slots.due(index) and (pairs or judged_pair):
            golds -= 1
        elif pairs:
            pairs, judged_pair = pairs - 1, True
        else:
            return count
        count, index = count + 1, index + 1


def progress(store: Store, rater_id: str, options: QCOptions = QCOptions()) -> tuple[int, int]:
    """(tasks the rater finished, finished + open + still available to them); a read, no lock."""
    done = store.query("SELECT COUNT(*) FROM judgements WHERE rater_id = ?", (rater_id,))[0][0]
    has_open = bool(store.query(
        """SELECT 1 FROM assignments a WHERE a.rater_id = ? AND a.withdrawn_at IS NULL AND NOT EXISTS
           (SELECT 1 FROM judgements j WHERE j.sample_id = a.sample_id AND j.rater_id = a.rater_id) LIMIT 1""", (rater_id,)))
    rows = _candidates(store, rater_id, options)
    seen, _ = _seen_prompts(store, rater_id)
    golds = sum(1 for r in rows if r[1] == "gold" and r[5] not in seen)
    pairs = sum(1 for r in rows if r[1] != "gold")
    slots = GoldSlots(side_seed(store), rater_id, options.gold_every)
    later = _reachable(slots, done + int(has_open), pairs, golds, has_open or bool(_judged_pairs(store, rater_id)))
    return done, done + int(has_open) + later


def progress_all(store: Store, options: QCOptions = QCOptions()) -> dict[str, tuple[int, int]]:
    """``progress`` of every rater at once, from a few aggregate reads (the dashboard's): rater → (done, total)."""
    done = dict(store.query("SELECT rater_id, COUNT(*) FROM judgements GROUP BY rater_id"))
    judged_pairs = dict(store.query("""SELECT j.rater_id, COUNT(*) FROM judgements j JOIN samples s ON s.sample_id = j.sample_id
                                       WHERE s.kind != 'gold' GROUP BY j.rater_id"""))
    has_open = {r for (r,) in store.query("""SELECT DISTINCT a.rater_id FROM assignments a WHERE a.withdrawn_at IS NULL AND NOT
    EXISTS
                                             (SELECT 1 FROM judgements j WHERE j.sample_id = a.sample_id AND j.rater_id =
                                             a.rater_id)""")}
    rows = store.query(_ANY_CANDIDATES, (_cutoff(options), options.min_raters, options.min_raters, options.max_raters))
    pairs = {r[0] for r in rows if r[1] != "gold"}
    golds = [(r[0], r[5]) for r in rows if r[1] == "gold"]
    handed: dict[str, tuple[set[str], set[str]]] = {}
    for rater, sample_id, key in store.query("SELECT a.rater_id, a.sample_id, s.prompt_key FROM assignments a JOIN samples s ON "
                                             "s.sample_id = a.sample_id"):
        mine, seen = handed.setdefault(rater, (set(), set()))
        mine.add(sample_id)
        seen.add(key)
    seed, out = side_seed(store), {}
    for (rater,) in store.query("SELECT rater_id FROM raters"):
        mine, seen = handed.get(rater, (set(), set()))
        n_done, n_open = int(done.get(rater, 0)), int(rater in has_open)
        free_golds = sum(1 for sample_id, key in golds if sample_id not in mine and key not in seen)
        later = _reachable(GoldSlots(seed, rater, options.gold_every), n_done + n_open, len(pairs - mine), free_golds,
                           bool(n_open or judged_pairs.get(rater)))
        out[rater] = (n_done, n_done + n_open + later)
    return out


def third_rater_queue(store: Store, options: QCOptions = QCOptions()) -> list[dict[str, Any]]:
    """Pair samples whose raters disagree on the winner and that still lack a rater, with their verdicts (people's
    only), in import order: one read of the verdict columns, never of the records."""
    rows = store.query(
        """WITH queued AS (SELECT j.sample_id, COUNT(*) AS n FROM human_judgements j
                           GROUP BY j.sample_id HAVING COUNT(*) >= ? AND COUNT(*) < ? AND MIN(j.winner) != MAX(j.winner))
           SELECT q.sample_id, q.n, j.rater_id, j.winner FROM queued q JOIN samples s ON s.sample_id = q.sample_id
           JOIN human_judgements j ON j.sample_id = q.sample_id WHERE s.kind != 'gold' ORDER BY s.seq, j.seq""",
        (options.min_raters, options.max_raters))
    queue: dict[str, dict[str, Any]] = {}
    for sample_id, n, rater, winner in rows:
        queue.setdefault(sample_id, {"sample_id": sample_id, "judged": int(n), "verdicts": {}})["verdicts"][rater] = winner
    return list(queue.values())


class GoldAccuracy(TypedDict):
    """One rater's gold pairs: answered, answered as expected, the share, and the missed samples' ids."""

    answered: int
    correct: int
    missed: list[str]
    accuracy: float


def gold_accuracy(records: Iterable[Any], samples: Iterable[Sample]) -> dict[str, GoldAccuracy]:
    """Per rater: gold pairs answered, answered as expected, accuracy, and the misses' sample ids."""
    return gold_tally(((j.rater, j.sample_id, j.winner) for j in as_judgements(records)), samples)


def gold_tally(verdicts: Iterable[tuple[str, str, str]], samples: Iterable[Sample]) -> dict[str, GoldAccuracy]:
    """``gold_accuracy`` from (rater, sample id, winner) triples, e.g. as the store's columns hold them."""
    expected = {s.sample_id: s.expected for s in samples if s.kind == "gold"}
    out: dict[str, GoldAccuracy] = {}
    for rater, sample_id, winner in verdicts:
        if sample_id not in expected:
            continue
        entry = out.setdefault(rater, {"answered": 0, "correct": 0, "missed": [], "accuracy": 0.0})
        entry["answered"] += 1
        if winner == expected[sample_id]:
            entry["correct"] += 1
        else:
            entry["missed"].append(sample_id)
    for entry in out.values():
        entry["accuracy"] = entry["correct"] / entry["answered"]
    return out


__all__ = [
    "Assignment", "GoldAccuracy", "Handout", "QCOptions", "TIE", "assignment_by_id", "gold_accuracy", "gold_tally",
    "hold_guard", "hold_lost", "next_assignment", "next_task", "progress", "progress_all", "side_seed", "side_swap",
    "third_rater_queue", "withdraw", "withdrawn_notice",
]


