"""The A/B store: samples, clips, raters, assignments and append-only judgement records in SQL.

SQLite (WAL, ``synchronous=FULL``) is the embedded default: one file, safe for many threads and
processes, and a committed record survives the server being killed. A team server can keep the
same tables in PostgreSQL instead (a ``postgresql://`` location; needs ``psycopg``). Judgement rows
can only be inserted (triggers refuse UPDATE and DELETE). Every query is portable SQL with ``?``
parameters and ``ON CONFLICT DO NOTHING``; what differs between the engines (DDL, connecting,
taking the write lock, parameter style) lives in ``Dialect``.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import threading
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from reeljudge.ab.store.evidence import MAX_INTERVALS, merge_spans
from reeljudge.ab.store.records import now_iso, validate_record
from reeljudge.ab.store.samples import Clip, Sample
from reeljudge.errors import BadInputError, ReelJudgeError

#: 2: clip_coverage (one row per task and clip) replaces clip_serves (one row per range); 3: assignments.withdrawn_at
#: (a dead task taken from its rater), samples.prompt_key (a hash of the prompt, to keep gold prompts unseen) and
#: record_facts (what the dashboard counts of each record, so it never reads the records themselves)
SCHEMA_VERSION = "3"
#: what an invite token is (``secrets.token_urlsafe``'s alphabet, as ``workspace.new_invite_token`` makes them)
INVITE_TOKEN = re.compile(r"[A-Za-z0-9_-]{8,128}")
POSTGRES_SCHEMES = ("postgresql://", "postgres://")


class StoreError(ReelJudgeError):
    """The store refused an operation (conflict, unknown rater, …)."""

    kind = "store_error"


class AlreadyJudged(StoreError):
    """The rater already has a different judgement of this sample."""

    kind = "already_judged"


class HoldLost(StoreError):
    """The rater's hold on a task expired and the sample went to others who fill it: the record is not needed."""

    kind = "hold_lost"


class SubmissionIdTaken(StoreError):
    """The submission id already names a record of another rater or another sample."""

    kind = "submission_id_taken"


@dataclass(frozen=True)
class Dialect:
    """What differs between SQL engines: DDL, connecting, the write-lock statements, parameter style."""

    name: str
    ddl: tuple[str, ...]
    connect: Callable[[str], Any]
    begin: tuple[str, ...]
    placeholder: str = "?"

    def sql(self, query: str) -> str:
        """The query in this engine's parameter style (``?`` as written)."""
        if self.placeholder == "?":
            return query
        return query.replace("%", "%%").replace("?", self.placeholder)


def _connect_sqlite(location: str) -> sqlite3.Connection:
    """A SQLite connection in autocommit mode with WAL, full sync and a long busy timeout."""
    conn = sqlite3.connect(location, timeout=30, isolation_level=None, check_same_thread=True)
    for pragma in ("PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL", "PRAGMA busy_timeout=30000", "PRAGMA foreign_keys=ON"):
        conn.execute(pragma)
    return conn


def _connect_postgres(location: str) -> Any:
    """A PostgreSQL connection in autocommit mode (transactions are begun explicitly)."""
    try:
        import psycopg
    except ImportError:
        raise BadInputError(
            "the A/B store is a PostgreSQL database, and psycopg is not installed: pip install 'psycopg[binary]'"
        ) from None
    try:
        return psycopg.connect(location, autocommit=True)
    except psycopg.OperationalError as error:
        raise StoreError(f"cannot connect to the A/B store's PostgreSQL database: {str(error).strip()}") from None


_TABLES = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS clips (sha256 TEXT PRIMARY KEY, body TEXT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS samples ({seq}, sample_id TEXT NOT NULL UNIQUE,
        family TEXT NOT NULL, kind TEXT NOT NULL, body TEXT NOT NULL, created_at TEXT NOT NULL, prompt_key TEXT)""",
    """CREATE TABLE IF NOT EXISTS raters (rater_id TEXT PRIMARY KEY, kind TEXT NOT NULL, token_sha256 TEXT UNIQUE,
        created_at TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS assignments (assignment_id TEXT PRIMARY KEY, sample_id TEXT NOT NULL,
        rater_id TEXT NOT NULL, swap INTEGER NOT NULL, served_at TEXT NOT NULL, withdrawn_at TEXT, UNIQUE (sample_id,
        rater_id))""",
    """CREATE TABLE IF NOT EXISTS judgements ({seq}, record_id TEXT NOT NULL UNIQUE,
        submission_id TEXT NOT NULL UNIQUE, sample_id TEXT NOT NULL, rater_id TEXT NOT NULL, protocol TEXT NOT NULL,
        winner TEXT NOT NULL, body TEXT NOT NULL, created_at TEXT NOT NULL, UNIQUE (sample_id, rater_id))""",
    # the server's own evidence of watching: per task and clip, the byte intervals sent to the end (merged, JSON
    # [[first, last], …], bounded) and how many responses sent them: one row per (task, clip), however many requests
    """CREATE TABLE IF NOT EXISTS clip_coverage (assignment_id TEXT NOT NULL, side TEXT NOT NULL, spans TEXT NOT NULL,
        responses BIGINT NOT NULL, updated_at TEXT NOT NULL, PRIMARY KEY (assignment_id, side))""",
    # per record, what the dashboard counts (written with the record, in the same transaction): whether the server's
    # evidence of watching is thin, whether the record has that evidence at all, and its stored size
    """CREATE TABLE IF NOT EXISTS record_facts (record_id TEXT PRIMARY KEY, rater_id TEXT NOT NULL, thin INTEGER NOT NULL,
        evidence INTEGER NOT NULL, bytes BIGINT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS judgements_rater ON judgements (rater_id)",
    # covering indexes: quality control and the dashboard count verdicts per sample and records per rater from these,
    # never from the table's rows (which hold the records themselves)
    "CREATE INDEX IF NOT EXISTS judgements_verdicts ON judgements (sample_id, rater_id, winner)",
    "CREATE INDEX IF NOT EXISTS judgements_rater_samples ON judgements (rater_id, sample_id)",
    "CREATE INDEX IF NOT EXISTS assignments_rater ON assignments (rater_id)",
)
#: indexes on columns a migration may add: made after the migrations, on every open
_LATE_INDEXES = ("CREATE INDEX IF NOT EXISTS samples_prompts ON samples (sample_id, kind, prompt_key)",)
# the records of people: quality control (raters per sample, third-rater queue) counts these only,
# so a model rater's records in the same store never stand in for a person
_HUMAN_VIEW = """human_judgements AS SELECT j.* FROM judgements j
    LEFT JOIN raters r ON r.rater_id = j.rater_id WHERE COALESCE(r.kind, 'human') = 'human'"""

SQLITE = Dialect(
    "sqlite",
    ddl=(
        *(t.format(seq="seq INTEGER PRIMARY KEY AUTOINCREMENT") for t in _TABLES),
        f"CREATE VIEW IF NOT EXISTS {_HUMAN_VIEW}",
        """CREATE TRIGGER IF NOT EXISTS judgements_no_update BEFORE UPDATE ON judgements
            BEGIN SELECT RAISE(ABORT, 'judgements are append-only'); END""",
        """CREATE TRIGGER IF NOT EXISTS judgements_no_delete BEFORE DELETE ON judgements
            BEGIN SELECT RAISE(ABORT, 'judgements are append-only'); END""",
    ),
    connect=_connect_sqlite,
    begin=("BEGIN IMMEDIATE",),  # the write lock at once: concurrent writers queue rather than deadlock
)

POSTGRES = Dialect(
    "postgresql",
    ddl=(
        *(t.format(seq="seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY") for t in _TABLES),
        f"CREATE OR REPLACE VIEW {_HUMAN_VIEW}",
        """CREATE OR REPLACE FUNCTION reeljudge_append_only() RETURNS trigger LANGUAGE plpgsql AS
            $$ BEGIN RAISE EXCEPTION 'judgements are append-only'; END $$""",
        """CREATE OR REPLACE TRIGGER judgements_append_only BEFORE UPDATE OR DELETE ON judgements
            FOR EACH ROW EXECUTE FUNCTION reeljudge_append_only()""",
        "CREATE OR REPLACE TRIGGER judgements_no_truncate BEFORE TRUNCATE ON judgements EXECUTE FUNCTION reeljudge_append_only()",
    ),
    connect=_connect_postgres,
    # one writer at a time, across every process using the database, as SQLite's BEGIN IMMEDIATE gives
    begin=("BEGIN", "SELECT pg_advisory_xact_lock(7243051)"),
    placeholder="%s",
)


def dialect_for(location: str | Path) -> Dialect:
    """The engine a store location names: a ``postgresql://`` URL, else a SQLite file path."""
    text = str(location)
    if text.startswith(POSTGRES_SCHEMES):
        return POSTGRES
    if "://" in text:
        scheme = text.split("://", 1)[0]
        raise BadInputError(f"the A/B store location {scheme}://… is not a database reeljudge knows: give a postgresql:// URL "
                            "or a SQLite file path")
    return SQLITE


def token_hash(token: str) -> str:
    """The stored form of an invite token (sha256 hex); the token itself is never stored."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class Store:
    """One A/B store: a SQLite file, or a PostgreSQL database given by URL. Thread-safe: one connection per thread."""

    def __init__(self, location: str | Path) -> None:
        self.dialect = dialect_for(location)
        self.location = str(location)
        self.path = Path(location) if self.dialect is SQLITE else None  # the SQLite file
        self._local = threading.local()
        self._write_lock = threading.Lock()  # writers of this process queue here, fairly, not in the engine's lock waits
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.transaction() as db:
            for statement in self.dialect.ddl:
                db.execute(statement)
            db.execute("INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT DO NOTHING", (SCHEMA_VERSION,))
            version = db.rows("SELECT value FROM meta WHERE key = 'schema_version'")[0][0]
            if version == "1":
                _migrate_1_to_2(db)
            if version in ("1", "2"):
                _migrate_2_to_3(db)
            for statement in _LATE_INDEXES:
                db.execute(statement)

    def describe(self) -> str:
        """Where the store is, for messages: the SQLite file, or the PostgreSQL database without credentials."""
        if self.path is not None:
            return str(self.path)
        from urllib.parse import urlsplit

        parts = urlsplit(self.location)
        return f"postgresql://{parts.hostname or ''}{f':{parts.port}' if parts.port else ''}{parts.path}"

    def _connection(self) -> Any:
        """This thread's connection, opened on first use."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self.dialect.connect(self.location)
            self._local.conn = conn
        return conn

    def close(self) -> None:
        """Close this thread's connection."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    @contextmanager
    def transaction(self) -> Iterator["_Tx"]:
        """A write transaction (taken at once, so concurrent writers queue rather than deadlock)."""
        conn = self._connection()
        with self._write_lock:
            for statement in self.dialect.begin:
                conn.execute(statement)
            try:
                yield _Tx(conn, self.dialect)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Rows of a read query."""
        return self._connection().execute(self.dialect.sql(sql), params).fetchall()

    # meta -------------------------------------------------------------------------------------
    def meta(self, key: str) -> str | None:
        """A stored setting (e.g. the side seed), or None."""
        rows = self.query("SELECT value FROM meta WHERE key = ?", (key,))
        return rows[0][0] if rows else None

    def set_meta_once(self, key: str, value: str) -> str:
        """Store a setting unless it is set; returns the stored value."""
        with self.transaction() as db:
            db.execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT DO NOTHING", (key, value))
        return self.meta(key) or value

    # clips and samples --------------------------------------------------------------------------
    def add_samples(self, samples: list[Sample], clips: list[Clip]) -> tuple[int, int]:
        """Store clips and samples in one transaction; (samples added, samples already there)."""
        added = 0
        with self.transaction() as db:
            for clip in clips:
                db.execute("INSERT INTO clips (sha256, body) VALUES (?, ?) ON CONFLICT DO NOTHING",
                           (clip.sha256, json.dumps(clip.as_dict())))
            for s in samples:
                body = json.dumps({**asdict(s), "extra": dict(s.extra)}, ensure_ascii=False)
                added += db.execute(
                    "INSERT INTO samples (sample_id, family, kind, body, created_at, prompt_key) VALUES (?, ?, ?, ?, ?, ?) ON "
                    "CONFLICT DO NOTHING",
                    (s.sample_id, s.family, s.kind, body, now_iso(), prompt_key(s.prompt)),
                )
        return added, len(samples) - added

    def clip(self, sha256: str) -> Clip | None:
        """A stored clip's facts."""
        rows = self.query("SELECT body FROM clips WHERE sha256 = ?", (sha256,))
        return Clip(**json.loads(rows[0][0])) if rows else None

    def samples(self) -> list[Sample]:
        """Every sample in import order."""
        return [_sample(body) for (body,) in self.query("SELECT body FROM samples ORDER BY seq")]

    def sample(self, sample_id: str) -> Sample | None:
        """One sample."""
        rows = self.query("SELECT body FROM samples WHERE sample_id = ?", (sample_id,))
        return _sample(rows[0][0]) if rows else None

    # raters ------------------------------------------------------------------------------------
    def add_rater(self, rater_id: str, kind: str, token: str | None) -> None:
        """Add a rater (or give an existing one a new invite token, which revokes the old link)."""
        if token is not None and not INVITE_TOKEN.fullmatch(token):
            raise BadInputError("an invite token is 8 to 128 letters, digits, _ and - "
                                "(reeljudge.ab.study.workspace.new_invite_token)")
        digest = token_hash(token) if token else None
        with self.transaction() as db:
            updated = db.execute("UPDATE raters SET token_sha256 = ? WHERE rater_id = ?", (digest, rater_id))
            if not updated:
                db.execute("INSERT INTO raters (rater_id, kind, token_sha256, created_at) VALUES (?, ?, ?, ?)",
                           (rater_id, kind, digest, now_iso()))

    def rater_for_token(self, token: str) -> str | None:
        """The rater an invite token belongs to (None, without a query, for text that is not a token)."""
        if not INVITE_TOKEN.fullmatch(token):
            return None
        rows = self.query("SELECT rater_id FROM raters WHERE token_sha256 = ?", (token_hash(token),))
        return rows[0][0] if rows else None

    def raters(self) -> list[tuple[str, str]]:
        """(rater id, kind) of every rater."""
        return [(r, k) for r, k in self.query("SELECT rater_id, kind FROM raters ORDER BY created_at, rater_id")]

    # judgements ----------------------------------------------------------------------------------
    def append_judgement(self, record: Mapping[str, Any],
                         guard: Callable[["_Tx"], None] | None = None) -> tuple[dict[str, Any], bool]:
        """Store a validated record; (stored record, True if new). The same submission twice is one record.

        A model rater is registered as one on its first record (it never gets an invite link).
        ``guard``: run inside the write transaction before a new record is inserted; it raises to refuse it
        (the rating server's check that the rater's hold on the task still stands).
        """
        validate_record(record)
        rater, kind = record["rater"]["id"], record["rater"]["kind"]
        with self.transaction() as db:
            same = db.rows("SELECT body, rater_id, sample_id FROM judgements WHERE submission_id = ?", (record["submission_id"],))
            if same and (same[0][1], same[0][2]) == (rater, record["sample_id"]):
                return json.loads(same[0][0]), False
            if same:
                raise SubmissionIdTaken(
                    f"submission id {record['submission_id']} already names another record (another rater's, or another task's): "
                    "nothing was stored; reload the page to submit with a fresh id"
                )
            known = db.rows("SELECT kind FROM raters WHERE rater_id = ?", (rater,))
            if known and known[0][0] != kind:
                raise StoreError(f"rater {rater} is a {known[0][0]} rater; a {kind} rater's record needs another name")
            if not known and kind != "human":
                db.execute("INSERT INTO raters (rater_id, kind, token_sha256, created_at) VALUES (?, ?, NULL, ?)",
                           (rater, kind, now_iso()))
            other = db.rows("SELECT record_id FROM judgements WHERE sample_id = ? AND rater_id = ?",
                            (record["sample_id"], record["rater"]["id"]))
            if other:
                raise AlreadyJudged(f"rater {record['rater']['id']} already judged sample {record['sample_id']} "
                                    f"(record {other[0][0]})")
            if guard is not None:
                guard(db)
            body = json.dumps(record, ensure_ascii=False)
            db.execute(
                "INSERT INTO judgements (record_id, submission_id, sample_id, rater_id, protocol, winner, body, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (record["record_id"], record["submission_id"], record["sample_id"], record["rater"]["id"], record["protocol"],
                 record["winner"], body, record["created_at"]),
            )
            _add_facts(db, record, len(body.encode("utf-8")))
        return dict(record), True

    def judgements(self, *, rater_id: str | None = None, sample_id: str | None = None) -> list[dict[str, Any]]:
        """Stored records in the order they were written, optionally one rater's or one sample's."""
        sql, params = "SELECT body FROM judgements", []
        where = [(c, v) for c, v in (("rater_id", rater_id), ("sample_id", sample_id)) if v is not None]
        if where:
            sql += " WHERE " + " AND ".join(f"{c} = ?" for c, _ in where)
            params = [v for _, v in where]
        return [json.loads(b) for (b,) in self.query(sql + " ORDER BY seq", tuple(params))]


    def rater_page(self, rater_id: str, after: str | None, limit: int) -> tuple[list[dict[str, Any]], int]:
        """At most ``limit`` of one rater's records in the order written, after the record ``after`` (None: from the
        first), and how many records the rater has: one page parsed, never the rater's whole history."""
        sql, params = "SELECT body FROM judgements WHERE rater_id = ?", [rater_id]
        if after is not None:
            sql += " AND seq > COALESCE((SELECT seq FROM judgements WHERE record_id = ? AND rater_id = ?), -1)"
            params += [after, rater_id]
        rows = self.query(sql + f" ORDER BY seq LIMIT {int(limit)}", tuple(params))
        total = self.query("SELECT COUNT(*) FROM judgements WHERE rater_id = ?", (rater_id,))[0][0]
        return [json.loads(b) for (b,) in rows], int(total)

    # evidence of watching -----------------------------------------------------------------------
    def log_serve(self, assignment_id: str, side: str, spans: list[tuple[int, int]]) -> None:
        """Add byte spans of a clip response sent in full to the task's coverage of that clip (one row per task and clip)."""
        if spans:
            with self.transaction() as db:
                _add_coverage(db, assignment_id, side, spans, 1)

    def coverage(self, assignment_id: str) -> dict[str, tuple[list[tuple[int, int]], int]]:
        """Side → (merged byte intervals sent, responses) for a task: a bounded summary, a row per clip."""
        rows = self.query("SELECT side, spans, responses FROM clip_coverage WHERE assignment_id = ?", (assignment_id,))
        return {side: (_decode_spans(spans), int(n)) for side, spans, n in rows}


class _Tx:
    """A cursor inside ``Store.transaction``: execute (returns rows changed) and rows."""

    def __init__(self, conn: Any, dialect: Dialect) -> None:
        self.conn, self.dialect = conn, dialect

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> int:
        """Run one statement; the number of rows it changed."""
        return self.conn.execute(self.dialect.sql(sql), params).rowcount

    def rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Rows of a query inside the transaction."""
        return self.conn.execute(self.dialect.sql(sql), params).fetchall()


def _decode_spans(text: str) -> list[tuple[int, int]]:
    """A coverage row's stored byte intervals."""
    return [(int(a), int(b)) for a, b in json.loads(text)]


def _add_coverage(db: _Tx, assignment_id: str, side: str, spans: list[tuple[int, int]], responses: int) -> None:
    """Merge spans into the (task, clip) coverage row, inside a write transaction."""
    row = db.rows("SELECT spans, responses FROM clip_coverage WHERE assignment_id = ? AND side = ?", (assignment_id, side))
    known = _decode_spans(row[0][0]) if row else []
    merged = json.dumps(merge_spans([*known, *spans]), separators=(",", ":"))
    if row:
        db.execute("UPDATE clip_coverage SET spans = ?, responses = ?, updated_at = ? WHERE assignment_id = ? AND side = ?",
                   (merged, int(row[0][1]) + responses, now_iso(), assignment_id, side))
    else:
        db.execute("INSERT INTO clip_coverage (assignment_id, side, spans, responses, updated_at) VALUES (?, ?, ?, ?, ?)",
                   (assignment_id, side, merged, responses, now_iso()))


def _migrate_1_to_2(db: _Tx) -> None:
    """Fold a version-1 store's clip_serves (a row per range) into clip_coverage, drop it, and mark the store version 2."""
    tables = ("SELECT COUNT(*) FROM information_schema.tables WHERE table_name = 'clip_serves' AND "
              "table_schema = current_schema()" if db.dialect is POSTGRES
              else "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'clip_serves'")
    if db.rows(tables)[0][0]:
        groups: dict[tuple[str, str], list[tuple[int, int]]] = {}
        counts: dict[tuple[str, str], int] = {}
        for assignment_id, side, first, last in db.conn.execute("SELECT assignment_id, side, first_byte, "
                                                                "last_byte FROM clip_serves"):
            spans = groups.setdefault((assignment_id, side), [])
            spans.append((int(first), int(last)))
            counts[(assignment_id, side)] = counts.get((assignment_id, side), 0) + 1
            if len(spans) > 4 * MAX_INTERVALS:  # what is held per clip stays bounded while folding a flooded store
                groups[(assignment_id, side)] = merge_spans(spans)
        for (assignment_id, side), spans in groups.items():
            _add_coverage(db, assignment_id, side, spans, counts[(assignment_id, side)])
        db.execute("DROP TABLE clip_serves")
    db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (SCHEMA_VERSION,))


def prompt_key(prompt: str) -> str:
    """16 hex of the sha256 of a prompt's text: what tells two samples' prompts apart without reading them."""
    return hashlib.sha256(prompt.strip().encode("utf-8")).hexdigest()[:16]


def _add_facts(db: _Tx, record: Mapping[str, Any], size: int) -> None:
    """Note what the dashboard counts of a record (its evidence, whether thin, its size), inside the insert's transaction."""
    server = (record.get("watch") or {}).get("server")
    db.execute("INSERT INTO record_facts (record_id, rater_id, thin, evidence, bytes) VALUES (?, ?, ?, ?, ?) ON "
               "CONFLICT DO NOTHING",
               (record["record_id"], record["rater"]["id"], int(bool(server and server.get("thin"))),
                int(server is not None), size))


def _has_column(db: _Tx, table: str, column: str) -> bool:
    """Whether ``table`` has ``column`` (DDL added it, or an older store lacks it)."""
    if db.dialect is POSTGRES:
        sql = ("SELECT COUNT(*) FROM information_schema.columns WHERE table_name = ? AND column_name = ? AND "
               "table_schema = current_schema()")
        return bool(db.rows(sql, (table, column))[0][0])
    return any(row[1] == column for row in db.rows(f"PRAGMA table_info({table})"))


def _migrate_2_to_3(db: _Tx) -> None:
    """Give a version-2 store the withdrawn mark on tasks, the prompt key of every sample and the facts of every record;
    mark it version 3. Records are only read (they stay append-only)."""
    if not _has_column(db, "assignments", "withdrawn_at"):
        db.execute("ALTER TABLE assignments ADD COLUMN withdrawn_at TEXT")
    if not _has_column(db, "samples", "prompt_key"):
        db.execute("ALTER TABLE samples ADD COLUMN prompt_key TEXT")
    for sample_id, body in db.rows("SELECT sample_id, body FROM samples WHERE prompt_key IS NULL"):
        db.execute("UPDATE samples SET prompt_key = ? WHERE sample_id = ?", (prompt_key(json.loads(body)["prompt"]), sample_id))
    missing = "SELECT j.body FROM judgements j WHERE NOT EXISTS (SELECT 1 FROM record_facts f WHERE f.record_id = j.record_id)"
    for (body,) in db.rows(missing):
        _add_facts(db, json.loads(body), len(body.encode("utf-8")))
    db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (SCHEMA_VERSION,))


def _sample(body: str) -> Sample:
    """A Sample from its stored JSON."""
    return Sample(**json.loads(body))
