"""The tag rules (DESIGN §4 rule 7), in the order DESIGN states them. The write
paths (card_remember and the batch) ask this module where a statement goes,
and hand it what they wrote so the rules that follow a write run once, in one
place, for both.

1. A hypothesis never closes, replaces or reinforces a fact or preference: it
   stands beside the record (`is_guess`; write_decision.py's `_guess`),
   as a guess, and answers list it apart from the recorded value.
2. A person stating a hypothesis's value promotes it: the statement is the
   record, with its own tag, source and quote, and the guess is closed into it
   with a revision that says so (`tags_settle`).
3. "Current" means valid now; a value from a future date is planned until
   then (cards/valid_time.py).
4. Opposite labels for one value (likes/dislikes, prefers/avoids: the
   registry's `Label.opposite`) exclude each other like the values of a
   single-value timeline (`on_timeline`, `timeline_filter`).
5. What a person says about themselves wins: in a shared scope, another
   person's statement about a member that disagrees with the member's own
   card stands beside it, outside the timeline, as a contradiction for the
   member to settle (`disputes_own`); the member's next statement on that
   timeline settles it (`tags_settle`). For any other subject the later
   statement supersedes, the earlier stays as history.
6. A fact that contradicts a hypothesis discards it (`tags_settle`); its
   decay and the sessions it may go unvalidated: review/services/hypotheses.py.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection
from django.utils import timezone

from ..models import Card, CardKind, CardRevision, Cardinality, Tag
from ..valid_time import held_sql


# --- 1. guesses stand beside ----------------------------------------------------------

def is_guess(write) -> bool:
    return write.draft.tag == Tag.HYPOTHESIS


# --- 4. the timeline a statement belongs to -------------------------------------------

def on_timeline(write) -> bool:
    """Placed on a timeline of mutually exclusive values: a single-value state,
    or a state whose label has an opposite (for that value)."""
    return write.draft.kind == CardKind.STATE and (
        write.label.cardinality == Cardinality.SINGLE or write.label.opposite_id is not None)


def timeline_filter(write) -> tuple[str, list]:
    """SQL over `c` selecting the cards of the write's timeline (never guesses
    or disputes, which stand beside it), and its parameters."""
    base = ("c.scope_id = %s AND c.subject_id = %s AND c.kind = 'state'"
            f" AND c.tag <> '{Tag.HYPOTHESIS}' AND c.disputes_id IS NULL AND {held_sql('c')}")
    if write.label.cardinality == Cardinality.SINGLE:
        return base + " AND c.label_id = %s", [write.scope.pk, write.subject.pk, write.label.pk]
    return (base + " AND c.label_id IN (%s, %s) AND c.value_norm = %s",
            [write.scope.pk, write.subject.pk, write.label.pk, write.label.opposite_id, write.value_norm])


def standing_beside_sql(alias: str) -> str:
    """SQL over `alias`: a current guess or dispute, standing beside a timeline. The
    predicate of the index card_standing_beside, so every read of them can use it."""
    return f"{alias}.superseded_at IS NULL AND ({alias}.tag = '{Tag.HYPOTHESIS}' OR {alias}.disputes_id IS NOT NULL)"


def beside_filter(write) -> tuple[str, list]:
    """SQL over `c` selecting the current guesses and disputes beside the write's
    timeline: what `tags_settle` might close after it (none: no statement to run)."""
    return ("c.scope_id = %s AND c.subject_id = %s AND c.label_id IN (%s, %s) AND " + standing_beside_sql("c"),
            [write.scope.pk, write.subject.pk, write.label.pk, write.label.opposite_id or 0])


def stands_beside(card: Card) -> bool:
    return card.tag == Tag.HYPOTHESIS or card.disputes_id is not None


def same_statement(write, card: Card) -> bool:
    """Whether `card` on the write's timeline says what the write says."""
    if write.label.cardinality == Cardinality.SINGLE:
        return card.value_norm == write.value_norm
    return card.label_id == write.label.pk


def lock_label(label) -> int:
    """Opposite labels share one timeline lock."""
    return min(label.pk, label.opposite_id) if label.opposite_id else label.pk


# --- 5. what a person says about themselves wins --------------------------------------

def about_someone_else(write) -> bool:
    """A statement about a member (their own person entity) by anyone else."""
    member = write.subject.user_id
    return member is not None and member != write.actor.pk


def disputes_own(write, covering: Card | None) -> bool:
    """The write disagrees with the member's own statement it would replace."""
    return (covering is not None and about_someone_else(write)
            and covering.source_actor_id == write.subject.user_id and not same_statement(write, covering))


# --- 2, 5, 6: what follows a write ------------------------------------------------------

def tags_settle(outcomes: Iterable) -> dict[str, int]:
    """After facts are written: the guesses they state are promoted into them,
    the guesses they contradict are discarded, and a member's own statement
    settles what others said about them on that timeline. One statement each."""
    facts = [o.card for o in outcomes if o.settle and o.outcome in ("inserted", "superseded", "reinforced")
             and not stands_beside(o.card) and o.card.kind != CardKind.EVENT]
    if not facts:
        return {"promoted": 0, "discarded": 0, "settled": 0}
    now = timezone.now()
    # The facts' scopes as constants, beside each join by scope: on a cluster the statement reaches only
    # their shards (the guesses and disputes it closes are in their facts' scopes).
    scopes = sorted({c.scope_id for c in facts})
    with connection.cursor() as cursor:
        cursor.execute(
            f"""WITH f AS MATERIALIZED (
                    SELECT c.id AS fact, c.scope_id AS scope, c.subject_id AS subject, c.label_id AS label,
                           COALESCE(l.opposite_id, 0) AS opposite, c.value_norm, c.tag,
                           -- a single value that holds (now or from a planned date) rules out other guesses
                           (c.cardinality = '{Cardinality.SINGLE}'
                            AND (c.superseded_at IS NULL OR c.superseded_at > %(now)s)) AS holds,
                           c.cardinality = '{Cardinality.SINGLE}' AS single,
                           (e.user_id IS NOT NULL AND e.user_id = c.source_actor_id) AS own
                      FROM cards_card c JOIN cards_label l ON l.id = c.label_id
                      JOIN cards_entity e ON e.id = c.subject_id
                     WHERE c.id = ANY(%(facts)s) AND c.scope_id = ANY(%(scopes)s)),
                -- Per fact, through the index of what stands beside a timeline (card_standing_beside: its
                -- predicate is stated below, so the plan does not depend on statistics).
                hit AS MATERIALIZED (
                    SELECT DISTINCT ON (h.id) h.id, f.fact, f.tag,
                           CASE WHEN h.tag <> '{Tag.HYPOTHESIS}' THEN 'settled'
                                WHEN h.label_id = f.label AND h.value_norm = f.value_norm THEN 'promoted'
                                ELSE 'discarded' END AS how
                      FROM f CROSS JOIN LATERAL (
                           SELECT h.id, h.tag, h.label_id, h.value_norm FROM cards_card h
                            WHERE h.scope_id = f.scope AND h.scope_id = ANY(%(scopes)s) AND h.subject_id = f.subject
                              AND h.label_id IN (f.label, f.opposite) AND h.id <> f.fact AND {standing_beside_sql("h")}
                              AND ((h.tag = '{Tag.HYPOTHESIS}' AND h.label_id = f.label AND h.value_norm = f.value_norm)
                                OR (h.tag = '{Tag.HYPOTHESIS}' AND h.label_id = f.label AND f.holds)
                                OR (h.tag = '{Tag.HYPOTHESIS}' AND h.label_id = f.opposite
                                    AND h.value_norm = f.value_norm)
                                OR (f.own AND h.disputes_id IS NOT NULL AND (
                                        (f.single AND h.label_id = f.label)
                                     OR h.value_norm = f.value_norm)))) h
                     ORDER BY h.id, f.fact DESC)
                UPDATE cards_card h SET superseded_at = %(now)s, superseded_by_id = hit.fact
                  FROM hit WHERE h.id = hit.id AND h.scope_id = ANY(%(scopes)s)
                   AND h.id = ANY(ARRAY(SELECT id FROM hit))
             RETURNING h.id, h.scope_id, hit.fact, hit.how, hit.tag""",
            {"facts": [c.pk for c in facts], "scopes": scopes, "now": now})
        closed = cursor.fetchall()
    CardRevision.objects.bulk_create([_revision(pk, fact, how, tag, now, scope_id=scope_id)
                                      for pk, scope_id, fact, how, tag in closed])
    counts = {"promoted": 0, "discarded": 0, "settled": 0}
    for row in closed:
        counts[row[3]] += 1
    return counts


def _revision(pk: int, fact: int, how: str, tag: str, now, *, scope_id: int) -> CardRevision:
    if how == "promoted":
        return CardRevision(card_id=pk, scope_id=scope_id, at=now, field="hypothesis", before="hypothesis",
                            after=f"promoted to {tag}", reason=f"stated as {tag} in card #{fact}")
    if how == "discarded":
        return CardRevision(card_id=pk, scope_id=scope_id, at=now, field="hypothesis", before="hypothesis",
                            after="discarded", reason=f"contradicted by fact #{fact}")
    return CardRevision(card_id=pk, scope_id=scope_id, at=now, field="dispute", before="disputed", after="settled",
                        reason=f"settled by the person's own statement, card #{fact}")
