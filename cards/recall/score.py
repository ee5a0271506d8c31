"""Recall's score, defined once (DESIGN §6): relevance, decay and Δt's anchor, each in every form a route
computes it in — the SQL fragment (the exact and index routes, the unembedded candidates, the snapshots'
build, the home page's chart), the numpy form (recall scored from memory) and the Python value of one card
(`Scored.relevance`, the decay picture). tests/cards/test_recall_score.py holds every route to the Python
form on generated cards.

    relevance   = ALPHA × similarity + (1 − ALPHA) × lexical + NAMED_BOOST if the card is about a named entity
    decay       = e^(−λ·Δt), Δt in days (never negative: a planned event does not decay)
    final score = relevance × decay

Nothing else of recall is imported here: every other module of it calls this one."""

from __future__ import annotations

import datetime as dt
import math

import numpy as np

from ..models import CardKind

# Relevance = ALPHA × similarity + (1 − ALPHA) × lexical; the k most relevant are returned, in the order of
# the final score. Measured on the evaluation set (bench/README "retrieval_quality.py"): ALPHA 0.4 ranks best.
ALPHA = 0.4
# Added to the relevance of a card about an entity the query names exactly (by its name, an alias, or a
# member's name): "what does Kai play?" is about Kai. Measured at 0, 0.05, 0.1 and 0.2: recall@10 0.900,
# 0.901, 0.900, 0.904.
NAMED_BOOST = 0.2

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
US_PER_DAY = 86_400 * 1_000_000


# --- relevance -------------------------------------------------------------------------------------------

def relevance(similarity, lexical, named):
    """Of one card (floats; `named` true, false or None, SQL's NULL) or of many (numpy arrays)."""
    return ALPHA * similarity + (1 - ALPHA) * lexical + _boost(named)


def _boost(named):
    if isinstance(named, np.ndarray):
        return np.where(named, NAMED_BOOST, 0.0)
    return NAMED_BOOST if named else 0.0


# Similarity in SQL: the cosine of the card's stored vector and the query's (%(q)s); NULL without a vector.
SIMILARITY_SQL = "(1 - (c.embedding <=> %(q)s::vector))::float8"


def relevance_sql(similarity: str, lexical: str, named: str) -> str:
    """relevance() over SQL expressions (float8), the weights as params() gives them."""
    return f"(%(alpha)s * {similarity} + (1 - %(alpha)s) * {lexical} + CASE WHEN {named} THEN %(boost)s ELSE 0 END)"


def params() -> dict:
    """The weights relevance_sql reads, as relevance() uses them now (the quality bench tries others)."""
    return {"alpha": ALPHA, "boost": NAMED_BOOST}


# --- decay -----------------------------------------------------------------------------------------------

def decay(decay_lambda, days):
    """e^(−λ·Δt) of one card (floats) or of many (numpy arrays); `days` as days() gives them."""
    if isinstance(days, np.ndarray) or isinstance(decay_lambda, np.ndarray):
        return np.exp(-decay_lambda * days)
    return math.exp(-decay_lambda * days)


def decay_sql(decay_lambda: str, days: str) -> str:
    """decay() over SQL expressions (`days` as DAYS_SQL gives them)."""
    return f"exp(-{decay_lambda} * {days})"


def final(relevance_, decay_):
    """The final score, which orders the k most relevant (relevance chooses them)."""
    return relevance_ * decay_


def final_sql(relevance_: str, decay_: str) -> str:
    return f"{relevance_} * {decay_}"


# --- Δt and its anchor -----------------------------------------------------------------------------------

def microseconds(at: dt.datetime) -> int:
    """An instant as whole microseconds since the epoch: exact, as PostgreSQL keeps it."""
    delta = at - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def days(at_us, anchor_us):
    """Δt in days from the anchor to the asked instant, both in microseconds (ints, or numpy arrays);
    0 when the anchor is later (a planned event, a confirmation dated ahead)."""
    if isinstance(anchor_us, np.ndarray) or isinstance(at_us, np.ndarray):
        return np.maximum(0.0, (at_us - anchor_us) / US_PER_DAY)
    return max(0.0, (at_us - anchor_us) / US_PER_DAY)


def anchor(*, kind: str, occurred_at: dt.datetime | None, recorded_at: dt.datetime, effective_at: dt.datetime,
           verified_at: dt.datetime | None, stated_at: list[dt.datetime], at: dt.datetime) -> dt.datetime:
    """Where Δt counts from, as known at `at` (ANCHOR_SQL for one card): an event since it happened, or was
    recorded if undated; a state or knowledge since it was last made true — its start, its latest
    statement — or verified, whichever is latest, of those known by then."""
    if kind == CardKind.EVENT:
        return occurred_at or recorded_at
    known = [effective_at, *(t for t in (verified_at, *stated_at) if t is not None and t <= at)]
    return max(known)


# The latest statement is read without a subquery when there are none or one (most cards): the subquery ran
# for every state (1,289 of a household's 3,358 candidates at 1M cards).
_LATEST_STATED = """CASE cardinality(c.stated_at) WHEN 0 THEN NULL
    WHEN 1 THEN CASE WHEN c.stated_at[1] <= %(at)s THEN c.stated_at[1] END
    ELSE (SELECT max(t) FROM unnest(c.stated_at) AS t WHERE t <= %(at)s) END"""
# anchor() over cards_card `c`, as known at %(at)s (GREATEST leaves out the NULLs).
ANCHOR_SQL = f"""CASE WHEN c.kind = '{CardKind.EVENT}' THEN COALESCE(c.occurred_at, c.recorded_at)
    ELSE GREATEST(c.effective_at, CASE WHEN c.verified_at <= %(at)s THEN c.verified_at END, {_LATEST_STATED}) END"""
# days() from ANCHOR_SQL to %(at)s. date_part, not EXTRACT: float8 arithmetic instead of numeric (1 ms per
# 3,000 candidates).
DAYS_SQL = f"GREATEST(0, date_part('epoch', %(at)s - ({ANCHOR_SQL})) / 86400.0)"


def days_since(anchor_at: dt.datetime, at: dt.datetime) -> float:
    """days() between two instants."""
    return days(microseconds(at), microseconds(anchor_at))


def half_life_days(decay_lambda: float) -> float | None:
    """The Δt at which decay() is ½; none for a label that does not decay."""
    return math.log(2) / decay_lambda if decay_lambda > 0 else None
