"""A scope's cards kept in a worker's memory, as columns, for recall to score without reading them again
(issue 25: scoring 3,000 candidates in SQL costs 10–20 ms on this machine, a tenth of that in numpy).

What is kept is what the exact route reads of a candidate, as of when it was read (its build): the cards of
the scope that may still hold now or later (not yet superseded at the build), with their vectors, Δt's
anchor, λ, the flags aging and contradictions test, and their words. Validity at the asked time is tested at
each read, so a planned value comes in on its day without a rebuild; an anchor that a future confirmation
would move makes the snapshot expire at that instant.

A snapshot is used only while its scope's log says nothing changed (migration 0029: the database adds a row
for every statement that writes a scope's cards, and one for scope 0 when labels change); each read checks
that log first, in one statement with the entities the query names, and rebuilds what changed. The cards of
every snapshot a read uses are of one state of the database: checked in one statement, or rebuilt in one
that checked the others again. The version is the sum of a scope's weights, which every commit raises and a
fold keeps, with its newest id, which a fold moves and which a rolled-back write never gives again. A
transaction that has written reads its own uncommitted rows: its snapshots are built for it alone.

Off on Citus (the log is not kept there), while the log's triggers are missing or disabled, and when
RECALL_MEMORY_MB is 0; bounded by it per process, the least recently read scopes going first, and a read
estimated above it goes to SQL without building."""

from __future__ import annotations

import datetime as dt
import threading
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import orjson
from django.conf import settings
from django.db import connection

from core.citus import citus_present

from ..embeddings.spaces import IN_SPACE_SQL
from ..models import EMBEDDING_DIMENSIONS, CardKind
from .aging import aging_condition
from .questions import single_sql
from .score import ANCHOR_SQL, microseconds

NEVER = np.iinfo(np.int64).max
# Bits of `flags`: the card has a vector of the snapshot's space; it is a single-value state that is not a
# guess (what aging facts and contradictions are made of, questions.single_sql); of a label that ages
# (aging.aging_condition); of a sensitive label (never asked); the open end of its timeline (superseded_at IS
# NULL: what routing counts); it has a vector of another space (kept as zeros: never compared).
HAS_VECTOR, SINGLE, AGES, SENSITIVE, OPEN, OTHER_SPACE = 1, 2, 4, 8, 16, 32


@dataclass
class Snapshot:
    """One scope's cards at a build, in id order, with the vectors of one space."""
    scope_id: int
    version: tuple          # (sum of the log's weights, its newest row) for this scope, at the build
    labels: tuple           # the same for scope 0 (labels)
    built_us: int
    expires_us: int         # a stored confirmation or statement falls due here: Δt's anchor moves
    ids: np.ndarray
    vectors: np.ndarray     # float32, n × dimensions, each of unit length (zeros when the card has none)
    flags: np.ndarray
    label_ids: np.ndarray
    subject_ids: np.ndarray
    object_ids: np.ndarray  # -1: none
    value_keys: np.ndarray  # a hash of value_norm and object: which value a single-value card holds
    effective_us: np.ndarray
    superseded_us: np.ndarray   # NEVER: open
    verified_us: np.ndarray
    anchor_us: np.ndarray   # Δt counts from here (score.ANCHOR_SQL, as of the build)
    decay_lambda: np.ndarray
    words: dict             # a word → the positions of the cards holding it

    @property
    def nbytes(self) -> int:
        arrays = (self.ids, self.vectors, self.flags, self.label_ids, self.subject_ids, self.object_ids,
                  self.value_keys, self.effective_us, self.superseded_us, self.verified_us, self.anchor_us,
                  self.decay_lambda)
        # A word costs its key, its array and its dict slot (about 200 bytes), and 8 bytes a card holding it.
        return sum(a.nbytes for a in arrays) + sum(200 + p.nbytes for p in self.words.values())


VERSIONS_SQL = """SELECT scope_id, sum(weight)::bigint AS total, max(id) AS newest FROM cards_scopechange
    WHERE scope_id = ANY(%(every)s) GROUP BY scope_id"""


@lru_cache(maxsize=1)
def build_sql() -> str:
    """One row per scope of %(build)s: its cards as columns (binary, in id order), the log's versions of the
    scope and of scope 0, and of every scope of the read (%(every)s), read in the same statement, so in the
    same state of the database as the cards."""
    def agg(expression: str) -> str:
        return f"string_agg({expression}, '' ORDER BY r.id) FILTER (WHERE r.id IS NOT NULL)"
    return f"""
WITH v AS MATERIALIZED ({VERSIONS_SQL}),
rows AS MATERIALIZED (
    SELECT c.scope_id, c.id, CASE WHEN {IN_SPACE_SQL} THEN c.embedding END AS embedding,
           c.label_id, c.subject_id, c.object_id, c.lexemes,
           hashtextextended(c.value_norm || '|' || COALESCE(c.object_id::text, ''), 0) AS value_key,
           c.effective_at, c.superseded_at, c.verified_at, l.decay_lambda,
           (CASE WHEN {IN_SPACE_SQL} THEN {HAS_VECTOR} ELSE 0 END
            | CASE WHEN NOT {IN_SPACE_SQL} THEN {OTHER_SPACE} ELSE 0 END
            | CASE WHEN {single_sql('c.')} THEN {SINGLE} ELSE 0 END
            | CASE WHEN {aging_condition('c.')} THEN {AGES} ELSE 0 END
            | CASE WHEN l.sensitive THEN {SENSITIVE} ELSE 0 END
            | CASE WHEN c.superseded_at IS NULL THEN {OPEN} ELSE 0 END) AS flags,
           {ANCHOR_SQL} AS anchor,
           LEAST(CASE WHEN c.kind <> '{CardKind.EVENT}' AND c.verified_at > %(at)s THEN c.verified_at END,
                 CASE WHEN c.kind <> '{CardKind.EVENT}' THEN
                     (SELECT min(t) FROM unnest(c.stated_at) AS t WHERE t > %(at)s) END) AS due
    FROM cards_card c JOIN cards_label l ON l.id = c.label_id
    WHERE c.scope_id = ANY(%(build)s) AND (c.superseded_at IS NULL OR c.superseded_at > %(at)s))
SELECT s.id,
    (SELECT json_build_array(v.total, v.newest) FROM v WHERE v.scope_id = s.id)::text,
    (SELECT json_build_array(v.total, v.newest) FROM v WHERE v.scope_id = 0)::text,
    {agg("int8send(r.id)")},
    {agg(f"COALESCE(vector_send(r.embedding), decode(repeat('00', {4 + 4 * EMBEDDING_DIMENSIONS}), 'hex'))")},
    {agg("int4send(r.flags)")}, {agg("int8send(r.label_id)")}, {agg("int8send(r.subject_id)")},
    {agg("int8send(COALESCE(r.object_id, -1))")}, {agg("int8send(r.value_key)")},
    {agg(_us("r.effective_at"))}, {agg(_us("r.superseded_at"))}, {agg(_us("r.verified_at"))},
    {agg(_us("r.anchor"))}, {agg("float8send(r.decay_lambda)")},
    (json_agg(r.lexemes ORDER BY r.id) FILTER (WHERE r.id IS NOT NULL))::text,
    min(r.due),
    (SELECT json_agg(json_build_array(v.scope_id, v.total, v.newest)) FROM v)::text
FROM unnest(%(build)s::bigint[]) AS s(id) LEFT JOIN rows r ON r.scope_id = s.id
GROUP BY s.id"""


def _us(column: str) -> str:
    # Whole microseconds since the epoch, as stored (extract gives numeric: no float rounding); NULL (open) as
    # the largest int8.
    return f"int8send(COALESCE((extract(epoch FROM {column}) * 1000000)::bigint, {NEVER}))"


def _column(blob: bytes | None, dtype: str) -> np.ndarray:
    return np.frombuffer(blob or b"", dtype=dtype).astype(dtype.lstrip(">"))


def _snapshot(row, built_us: int) -> Snapshot:
    (scope_id, version, labels, ids, vectors, flags, label_ids, subject_ids, object_ids, value_keys, effective,
     superseded, verified, anchor, decay_lambda, lexemes, due, _) = row
    ids = _column(ids, ">i8")
    width = 4 + 4 * EMBEDDING_DIMENSIONS
    raw = np.frombuffer(vectors or b"", dtype=np.uint8).reshape(-1, width)[:, 4:]
    matrix = np.ascontiguousarray(raw).view(">f4").astype(np.float32).reshape(len(ids), EMBEDDING_DIMENSIONS)
    norms = np.linalg.norm(matrix.astype(np.float64), axis=1)
    matrix = (matrix / np.where(norms > 0, norms, 1.0)[:, None]).astype(np.float32)
    words: dict[str, list[int]] = {}
    for position, held in enumerate(orjson.loads(lexemes) if lexemes else []):
        for word in dict.fromkeys(held or ()):      # a word once a card, as SQL's `= ANY` counts it
            words.setdefault(word, []).append(position)
    return Snapshot(
        scope_id=scope_id, version=_pair(version), labels=_pair(labels),
        built_us=built_us, expires_us=microseconds(due) if due else NEVER, ids=ids, vectors=matrix,
        flags=_column(flags, ">i4"), label_ids=_column(label_ids, ">i8"), subject_ids=_column(subject_ids, ">i8"),
        object_ids=_column(object_ids, ">i8"), value_keys=_column(value_keys, ">i8"),
        effective_us=_column(effective, ">i8"), superseded_us=_column(superseded, ">i8"),
        verified_us=_column(verified, ">i8"), anchor_us=_column(anchor, ">i8"),
        decay_lambda=_column(decay_lambda, ">f8"),
        words={word: np.array(positions, dtype=np.int64) for word, positions in words.items()})


def _pair(version: str | None) -> tuple:
    return tuple(orjson.loads(version)) if version else (0, None)


class Memory:
    """The snapshots of one process, least recently read first, bounded in bytes."""

    def __init__(self):
        self._kept: OrderedDict[tuple, Snapshot] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        # The log's version of scope -1 (cards deleted anywhere) when this memory was last checked against it.
        self._deleted: dict = {}

    def forget_deleted(self, database: tuple, deleted: tuple) -> None:
        """Drop every snapshot when cards were deleted (forgotten) since the last read of `database` saw the
        log: a forgotten card's words and vector leave this process's memory at its next read, whichever
        scopes it reads (DESIGN §4.9), not only when its own scope is read again."""
        with self._lock:
            if self._deleted.get(database) != deleted:
                self._kept.clear()
                self._bytes = 0
                self._deleted[database] = deleted

    def get(self, key: tuple) -> Snapshot | None:
        with self._lock:
            found = self._kept.get(key)
            if found is not None:
                self._kept.move_to_end(key)
            return found

    def put(self, key: tuple, snapshot: Snapshot, limit: int) -> None:
        if snapshot.nbytes > limit:     # kept, it would only push every other snapshot out first
            return
        with self._lock:
            old = self._kept.pop(key, None)
            self._bytes -= old.nbytes if old else 0
            self._kept[key] = snapshot
            self._bytes += snapshot.nbytes
            while self._bytes > limit and self._kept:
                _, gone = self._kept.popitem(last=False)
                self._bytes -= gone.nbytes

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()
            self._bytes = 0
            self._deleted.clear()

    @property
    def nbytes(self) -> int:
        return self._bytes


MEMORY = Memory()
_citus: dict[str, bool] = {}
# The triggers that keep the log (migration 0029): a read uses snapshots only while all of them are there and
# enabled (manage.py distribute drops them; an operator may disable them).
LOG_TRIGGERS = (("cards_card", "cards_scope_changed_insert"), ("cards_card", "cards_scope_changed_update"),
                ("cards_card", "cards_scope_changed_delete"), ("cards_card", "cards_scope_changed_truncate"),
                ("cards_label", "cards_scope_changed_label"))
_TRIGGERS_HERE = (f"FROM pg_trigger WHERE tgrelid IN ('cards_card'::regclass, 'cards_label'::regclass)"
                  f" AND tgname = ANY(ARRAY{[name for _, name in LOG_TRIGGERS]}) AND tgenabled IN ('O', 'A')")
# Whether the log is kept now, and which trigger rows keep it: disabling one and enabling it again (writes in
# between went unlogged) gives its row a new xmin, so no snapshot of before is trusted again.
LOGGED_SQL = f"(SELECT count(*) {_TRIGGERS_HERE}) = {len(LOG_TRIGGERS)}"
TRIGGERS_KEY_SQL = f"(SELECT string_agg(oid::text || ':' || xmin::text, ',' ORDER BY oid) {_TRIGGERS_HERE})"
# What a snapshot keeps of a card, about (a vector of 384 float32, the columns, its words): what a build is
# estimated at before it runs, so a read too large for RECALL_MEMORY_MB is sent to SQL without building.
BYTES_PER_CARD = 1_800


def limit_bytes() -> int:
    return int(getattr(settings, "RECALL_MEMORY_MB", 0)) * 1024 * 1024


def enabled(cursor) -> bool:
    """Snapshots may be kept here: a size was given, and this is not Citus (whose shards keep no log)."""
    if limit_bytes() <= 0:
        return False
    db = connection.settings_dict
    key = f"{db.get('HOST')}:{db.get('PORT')}/{db.get('NAME')}"
    if key not in _citus:
        _citus[key] = citus_present(cursor)
    return not _citus[key]


def _version(versions: dict, scope_id: int) -> tuple:
    return versions.get(scope_id, (0, None))


# Reads found too large to keep: (database, space, the read's scopes, their versions, the limit).
_TOO_LARGE: OrderedDict[tuple, bool] = OrderedDict()


def _too_large(key: tuple) -> None:
    _TOO_LARGE[key] = True
    while len(_TOO_LARGE) > 256:
        _TOO_LARGE.popitem(last=False)


def _fits(cursor, stale: list[int], kept: int, key: tuple, at: dt.datetime, limit: int) -> bool:
    """Whether the read's snapshots would fit: those kept (`kept` bytes) and those to build, estimated from
    how many cards a build would read (counted up to what the limit allows)."""
    if key in _TOO_LARGE:
        return False
    cap = max((limit - kept) // BYTES_PER_CARD + 1, 1)
    cursor.execute("SELECT count(*) FROM (SELECT 1 FROM cards_card WHERE scope_id = ANY(%(build)s)"
                   " AND (superseded_at IS NULL OR superseded_at > %(at)s) LIMIT %(cap)s) AS t",
                   {"build": stale, "cap": cap, "at": at})
    if cursor.fetchone()[0] < cap:
        return True
    _too_large(key)
    return False


def snapshots(cursor, scope_ids: list[int], *, at: dt.datetime, versions: dict, database: tuple, shared: bool,
              params: dict) -> list[Snapshot] | None:
    """The snapshots of `scope_ids` at `versions` (the log as the caller's statement read it: {scope: (sum,
    newest)}), those that changed rebuilt in one statement that reads the log again for every scope of the
    read, against which the kept ones are checked once more: all of them are then of one state of the
    database. None (the caller reads SQL) when they do not fit in memory, or a scope changed again meanwhile.
    Kept by space (params["space"]): a process whose model changes never compares with the other's vectors.

    `shared`: the caller's transaction has written nothing, so what it sees is committed and the process's
    snapshots may be used and kept. Otherwise its own uncommitted writes are in what it reads: snapshots are
    built for this read alone, never kept (a rollback would leave them matching a log that moved on)."""
    at_us, limit, space = microseconds(at), limit_bytes(), params["space"]
    if shared:      # a committed view: cards deleted since the last read drop every snapshot kept
        MEMORY.forget_deleted(database, _version(versions, -1))
    store = MEMORY if shared else Memory()
    found: dict[int, Snapshot] = {}
    for attempt in range(2):
        labels = _version(versions, 0)
        stale = []
        for scope_id in scope_ids:
            kept = found.get(scope_id) or store.get((database, space, scope_id))
            if (kept is not None and kept.version == _version(versions, scope_id) and kept.labels == labels
                    and kept.built_us <= at_us < kept.expires_us):
                found[scope_id] = kept
            else:
                found.pop(scope_id, None)
                stale.append(scope_id)
        if not stale:
            return [found[scope_id] for scope_id in scope_ids]
        read = (database, space, tuple(scope_ids), tuple(_version(versions, s) for s in (*scope_ids, 0)), limit)
        if attempt or not _fits(cursor, stale, sum(s.nbytes for s in found.values()), read, at, limit):
            return None
        # Built as of the read's instant: Δt's anchor as known then, the cards that may hold then or later.
        cursor.execute(build_sql(), {**params, "build": stale, "every": [*scope_ids, 0, -1], "at": at})
        rows = cursor.fetchall()
        for row in rows:
            snapshot = _snapshot(row, at_us)
            store.put((database, space, snapshot.scope_id), snapshot, limit)
            found[snapshot.scope_id] = snapshot
        if sum(s.nbytes for s in found.values()) > limit:      # the estimate was short: do not try again
            _too_large(read)
            return None
        versions = versions_read(orjson.loads(rows[0][-1]) if rows and rows[0][-1] else [])
    return None


def versions_read(rows) -> dict:
    """{scope: (sum, newest)} from the rows of VERSIONS_SQL."""
    return {scope_id: (total, newest) for scope_id, total, newest in rows}


# A scope whose log holds more rows than this is folded into one row (the sum kept: a snapshot of it is
# rebuilt once, as its newest id changes). Reading a scope's rows costs about a microsecond each.
FOLD_ABOVE = 50

_FOLD = """WITH busy AS (SELECT scope_id FROM cards_scopechange GROUP BY scope_id HAVING count(*) > %(above)s),
gone AS (DELETE FROM cards_scopechange c USING busy WHERE c.scope_id = busy.scope_id RETURNING c.scope_id, c.weight),
folded AS (INSERT INTO cards_scopechange (scope_id, weight) SELECT scope_id, sum(weight) FROM gone GROUP BY scope_id)
SELECT count(*) FROM gone"""


def scope_log_fold(above: int = FOLD_ABOVE) -> int:
    """Each scope's rows of the log, when more than `above`, folded into one with their sum; how many went.
    Rows of writes still in flight are not seen, so not folded: their weight arrives when they commit."""
    with connection.cursor() as cursor:
        cursor.execute(_FOLD, {"above": above})
        return cursor.fetchone()[0]
