"""Recall's score, defined once (DESIGN §6): relevance, decay and Δt's anchor, each in every form a route
computes it in — the SQL fragment (the exact and index routes, the unembedded candidates, the snapshots'
build, the home page's chart), the numpy form (recall scored from memory) and the Python value of one card
(`Scored.relevance`, the decay picture). tests/cards/test_recall_score.py holds every route to the Python
form on generated cards.

    relevance   = α × similarity + (1 − α) × lexical + the named boost if the card is about a named entity
    decay       = e^(−λ·Δt), Δt in days (never negative: a planned event does not decay)
    final score = relevance × decay

α, the boost and the floor are values of the embedding space (cards/embeddings/spaces.py): cosine has
another scale in each. A similarity is only ever taken between vectors of one space (SIMILARITY_SQL); a
card whose vector is of another space (not yet moved by `manage.py reembed`), or that has none and is not
embedded in the request, is scored by its words alone (by_words_sql, by_words_relevance).

Nothing else of recall is imported here: every other module of it calls this one."""

from __future__ import annotations

import datetime as dt
import math

import numpy as np

from ..embeddings.spaces import IN_SPACE_SQL, SpaceValues, current_space, space_values
from ..models import CardKind

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
US_PER_DAY = 86_400 * 1_000_000


# --- relevance -------------------------------------------------------------------------------------------

def relevance(similarity, lexical, named, values: SpaceValues | None = None):
    """Of one card (floats; `named` true, false or None, SQL's NULL) or of many (numpy arrays), with the
    weights of `values` (the current space's by default)."""
    values = values or space_values()
    return values.alpha * similarity + (1 - values.alpha) * lexical + _boost(named, values.named_boost)


def _boost(named, boost: float):
    if isinstance(named, np.ndarray):
        return np.where(named, boost, 0.0)
    return boost if named else 0.0


def by_words_relevance(lexical, named, values: SpaceValues | None = None):
    """The relevance of a card scored by its words alone: the space's `unrelated` similarity, its lexical
    share and boost. None (numpy: NaN) when neither its words nor a named entity relate it to the query:
    nothing else could."""
    values = values or space_values()
    found = relevance(values.unrelated, lexical, named, values)
    if isinstance(lexical, np.ndarray) or isinstance(named, np.ndarray):
        return np.where((lexical > 0) | np.asarray(named, dtype=bool), found, np.nan)
    return found if lexical > 0 or named else None


# Similarity in SQL: the cosine of the card's stored vector and the query's (%(q)s) when both are of the read's
# space (%(space)s); NULL without a vector, or with one of another model.
SIMILARITY_SQL = f"(CASE WHEN {IN_SPACE_SQL} THEN (1 - (c.embedding <=> %(q)s::vector))::float8 END)"


def by_words_sql(computed: str) -> str:
    """Over cards_card `c`: the card is scored by its words alone — its vector is of another space, or it has
    none and is not among `computed` (an int8[] expression: the few the request embeds, unembedded.py)."""
    return (f"(NOT {IN_SPACE_SQL}"
            f" OR (c.embedding IS NULL AND NOT c.id = ANY(COALESCE({computed}, ARRAY[]::bigint[]))))")


def relevance_sql(similarity: str, lexical: str, named: str) -> str:
    """relevance() over SQL expressions (float8), the weights as params() gives them."""
    return f"(%(alpha)s * {similarity} + (1 - %(alpha)s) * {lexical} + CASE WHEN {named} THEN %(boost)s ELSE 0 END)"


def scored_relevance_sql(similarity: str, by_words: str, lexical: str, named: str) -> str:
    """The relevance of a card SQL scores: by its similarity when it has one, else by_words_relevance()
    when `by_words`; NULL for the rest (the few the request embeds, scored after: unembedded.py)."""
    return (f"(CASE WHEN {similarity} IS NOT NULL THEN {relevance_sql(similarity, lexical, named)}"
            f" WHEN {by_words} AND ({lexical} > 0 OR {named}) THEN {relevance_sql('%(unrelated)s', lexical, named)}"
            " END)")


def params(space: str | None = None) -> dict:
    """What the SQL fragments here read of the space (the current one by default): its name, and the weights
    and the similarity of a card scored by its words as relevance() uses them (the quality bench tries others)."""
    space = space or current_space()
    values = space_values(space)
    return {"space": space, "alpha": values.alpha, "boost": values.named_boost, "unrelated": values.unrelated}


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
