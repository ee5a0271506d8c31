"""The exact route's scoring over snapshots in memory (snapshots.py): what exact.EXACT_SQL computes in SQL,
in numpy, column by column, each card's relevance and decay as score.py defines them. The SQL statement
stays the definition of what is chosen: tests/cards/test_recall_memory.py holds the two to the same answers
on generated worlds, and every read this cannot serve (a past instant, a time range, a subject, a question
for an attribute nothing may record, Citus) goes to SQL.

One statement a read when nothing changed: the log's versions, the entities the query names and the
caller's asked questions, together. When a scope changed, its rebuild reads the log again; the entities and
questions stay those of the first statement (read a moment before; neither is a card of the snapshots)."""

from __future__ import annotations

import datetime as dt
from functools import lru_cache

import numpy as np
import orjson
from threadpoolctl import threadpool_limits

from . import score, unembedded
from .aging import AGING_DAYS, AGING_LIMIT
from .lexical import shares
from .query import NAMED_SQL
from .snapshots import AGES, HAS_VECTOR, LOGGED_SQL, OPEN, OTHER_SPACE, SENSITIVE, SINGLE, TRIGGERS_KEY_SQL, \
    VERSIONS_SQL, Snapshot, snapshots, versions_read


@lru_cache(maxsize=1)
def _first_sql() -> str:
    # Whether this transaction wrote anything (then its reads hold uncommitted rows: snapshots.snapshots,
    # `shared`); the database's oid (a database dropped and made again under its name is another); whether the
    # log is kept (its triggers there and enabled), and by which trigger rows (part of the snapshots' key).
    return f"""WITH {NAMED_SQL}
SELECT pg_current_xact_id_if_assigned() IS NULL, (SELECT oid FROM pg_database WHERE datname = current_database()),
  {LOGGED_SQL}, {TRIGGERS_KEY_SQL},
  (SELECT COALESCE(array_agg(id), '{{}}') FROM named),
  (SELECT json_agg(json_build_array(x.scope_id, x.total, x.newest)) FROM ({VERSIONS_SQL}) AS x)::text,
  (SELECT json_agg(json_build_array(a.card_id, (extract(epoch FROM a.card_verified_at) * 1000000)::bigint,
                                    a.asked_at))
   FROM cards_cardasked a WHERE a.scope_id = ANY(%(read_scopes)s) AND a.user_id IS NOT DISTINCT FROM %(asker)s)::text"""


@lru_cache(maxsize=1)
def _one_blas_thread() -> None:
    """OpenBLAS, numpy's, runs a product on every core and its idle threads then spin: in a web process
    beside the other workers and PostgreSQL that made recall slower under load than reading SQL
    (bench/README "Recall from memory": 4 clients p50 52.3 ms with its threads, 25.8 ms with one). Once a
    process, for the process: the products here are a few MB, one core's work."""
    threadpool_limits(limits=1, user_api="blas")


class Columns:
    """The read's snapshots side by side: one array per column, cards of every scope."""

    def __init__(self, found: list[Snapshot], query: np.ndarray):
        _one_blas_thread()
        def joined(name: str) -> np.ndarray:
            return np.concatenate([getattr(s, name) for s in found]) if found else np.zeros(0)
        self.ids = joined("ids").astype(np.int64)
        self.flags = joined("flags").astype(np.int64)
        self.scope_ids = np.concatenate([np.full(len(s.ids), s.scope_id, dtype=np.int64) for s in found]) \
            if found else np.zeros(0, dtype=np.int64)
        for name in ("label_ids", "subject_ids", "object_ids", "value_keys", "effective_us", "superseded_us",
                     "verified_us", "anchor_us", "decay_lambda"):
            setattr(self, name, joined(name))
        # Cosine against the unit-length vectors; NaN where a card has none (SQL's NULL).
        similarity = np.concatenate([s.vectors @ query.astype(np.float32) for s in found]).astype(np.float64) \
            if found else np.zeros(0)
        self.similarity = np.where(self.flags & HAS_VECTOR, similarity, np.nan)
        self.offsets = np.cumsum([0, *(len(s.ids) for s in found)])
        self.found = found

    def holding(self, word: str) -> np.ndarray:
        """Positions of the cards holding `word`."""
        parts = [s.words[word] + offset for s, offset in zip(self.found, self.offsets) if word in s.words]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def _query(vector_text: str) -> np.ndarray:
    query = unembedded.vector_of(vector_text)
    norm = np.linalg.norm(query)
    return query / norm if norm > 0 else query


def _asked(asked: dict, card_id: int, verified_us: int) -> dt.datetime | None:
    """When the caller said they asked this card's question as it stands (questions.asked_join)."""
    found = asked.get(int(card_id))
    return dt.datetime.fromisoformat(found[1]) if found is not None and found[0] == verified_us else None


def _asked_at(columns: Columns, rows: np.ndarray, asked: dict) -> tuple[np.ndarray, np.ndarray]:
    """For each of `rows`, when the caller said they asked its question as the card stands (or None), and
    whether they did."""
    found = np.full(len(rows), None, dtype=object)
    if asked:
        for i in np.flatnonzero(np.isin(columns.ids[rows], np.fromiter(asked, dtype=np.int64))):
            found[i] = _asked(asked, columns.ids[rows[i]], columns.verified_us[rows[i]])
    return found, np.fromiter((at is not None for at in found), dtype=bool, count=len(found))


def _aging(columns: Columns, valid: np.ndarray, days: np.ndarray, asked: dict) -> tuple[list, int]:
    """Aging facts (aging.aging_condition, unconfirmed for AGING_DAYS): those that may be asked first,
    then the most similar (none last), the oldest, by id; and how many may be asked."""
    rows = np.flatnonzero(valid & ((columns.flags & AGES) > 0) & (days >= AGING_DAYS))
    if not len(rows):
        return [], 0
    asked_at, was_asked = _asked_at(columns, rows, asked)
    askable = ((columns.flags[rows] & SENSITIVE) == 0) & ~was_asked
    similarity = np.nan_to_num(columns.similarity[rows], nan=-np.inf)
    order = np.lexsort((columns.ids[rows], -days[rows], -similarity, ~askable))[:AGING_LIMIT]
    return [(int(columns.ids[rows[i]]), float(days[rows[i]]), asked_at[i], bool(askable[i])) for i in order], \
        int(np.count_nonzero(askable))


def _sides(columns: Columns, valid: np.ndarray, asked: dict) -> list[tuple]:
    """Single-value states about one subject and label holding more than one value (contradictions.py):
    ids newest first, the question on the newest recorded side."""
    rows = np.flatnonzero(valid & ((columns.flags & SINGLE) > 0))
    if not len(rows):
        return []
    rows = rows[np.lexsort((-columns.ids[rows], -columns.effective_us[rows], columns.label_ids[rows],
                            columns.subject_ids[rows]))]
    subject, label = columns.subject_ids[rows], columns.label_ids[rows]
    starts = np.concatenate([[0], np.flatnonzero((subject[1:] != subject[:-1]) | (label[1:] != label[:-1])) + 1])
    values = columns.value_keys[rows]
    differ = np.minimum.reduceat(values, starts) != np.maximum.reduceat(values, starts)
    ends = np.append(starts[1:], len(rows))
    found = []
    for start, end in zip(starts[differ], ends[differ]):
        group = rows[start:end]
        question = group[np.argmax(columns.ids[group])]
        asked_at = _asked(asked, columns.ids[question], columns.verified_us[question])
        found.append((int(subject[start]), int(label[start]), [int(i) for i in columns.ids[group]],
                      int(columns.ids[question]), asked_at,
                      not (columns.flags[question] & SENSITIVE) and asked_at is None))
    return found


def _covered(columns: Columns, params: dict) -> np.ndarray:
    """The cards the read covers (reads.in_read_sql, in numpy): those of the scopes read whole, and of a
    scope met through shares those about the member with a label they share."""
    covered = np.isin(columns.scope_ids, params["scopes"])
    for scope_id, subject_id, label_id in zip(params["shared_scopes"], params["shared_subjects"],
                                              params["shared_labels"]):
        covered |= (columns.scope_ids == scope_id) & (columns.subject_ids == subject_id) & \
            (columns.label_ids == label_id)
    return covered


def from_memory(cursor, params: dict) -> dict | None:
    """What the exact route answers for `params` (routes.recall's), scored from snapshots: top (id,
    similarity, lexical, decay, days, named) best first, aged (id, days, asked_at, askable), how many of
    those may be asked, sides (subject, label, ids, question card, asked_at, askable) and the ids of the
    freshest candidates without a vector. None when the snapshots cannot be had (recall then reads SQL)."""
    cursor.execute(_first_sql(), {**params, "every": [*params["read_scopes"], 0, -1]})
    shared, database, logged, triggers, named_ids, versions, asked_rows = cursor.fetchone()
    if not logged:
        return None
    versions = versions_read(orjson.loads(versions) if versions else [])
    # Each scope once: a scope named twice would bring its cards twice (SQL's ANY takes it once). A scope
    # met through shares is kept whole like any other; which of its cards the read covers is `covered`.
    found = snapshots(cursor, params["read_scopes"], at=params["at"], versions=versions,
                      database=(database, triggers), shared=shared, params=params)
    if found is None:
        return None
    asked = {card: (verified, at) for card, verified, at in (orjson.loads(asked_rows) if asked_rows else [])}
    columns = Columns(found, _query(params["q"]))
    at_us = score.microseconds(params["at"])
    covered = _covered(columns, params)
    valid = (columns.effective_us <= at_us) & (columns.superseded_us > at_us) & covered
    n = min(int(np.count_nonzero(((columns.flags & OPEN) > 0) & covered)), params["limit"])
    days = score.days(at_us, columns.anchor_us)
    decay = score.decay(columns.decay_lambda, days)
    lexical = shares(columns.holding, valid, list(params["terms"]), n)
    named = np.isin(columns.subject_ids, named_ids) | np.isin(columns.object_ids, named_ids)
    # Candidates without a vector, freshest first (unembedded.unembedded_sql): the request embeds the first
    # few unless a reembed runs (unembedded.computed_sql); they and cards of another space are scored by
    # their words (score.by_words_sql).
    no_vector = (columns.flags & (HAS_VECTOR | OTHER_SPACE)) == 0
    waiting = np.flatnonzero(valid & no_vector)
    waiting = waiting[np.lexsort((-columns.ids[waiting], -columns.verified_us[waiting]))]
    waiting = waiting[:unembedded.UNEMBEDDED_LIMIT + 1]
    by_words = ((columns.flags & OTHER_SPACE) > 0) | no_vector
    if params["embed_in_request"]:
        by_words[waiting[:unembedded.UNEMBEDDED_LIMIT]] = False
    relevance = np.where(by_words, score.by_words_relevance(lexical, named),
                         score.relevance(columns.similarity, lexical, named))
    eligible = np.flatnonzero(valid & (((columns.flags & HAS_VECTOR) > 0) | by_words) & (relevance >= params["floor"]))
    chosen = eligible[np.lexsort((-columns.ids[eligible], -relevance[eligible]))[:params["k"]]]
    chosen = chosen[np.lexsort((-columns.ids[chosen], -score.final(relevance[chosen], decay[chosen])))]
    similarity = np.where(by_words, params["unrelated"], columns.similarity)
    top = [(int(columns.ids[i]), float(similarity[i]), float(lexical[i]), float(decay[i]), float(days[i]),
            bool(named[i]), bool(by_words[i])) for i in chosen]
    aged, aging_askable = _aging(columns, valid, days, asked)
    return {"top": top, "aged": aged, "aging_askable": aging_askable, "sides": _sides(columns, valid, asked),
            "unembedded": [int(columns.ids[i]) for i in waiting]}
