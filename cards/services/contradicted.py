"""A fact that contradicts a hypothesis discards it at once (DESIGN §4 rule 7).

A single-value fact supersedes a hypothesis of the same label by the write
path's own Supersede rule. Across labels, a fact contradicts a hypothesis of
the opposite label with the same value: "dislikes: coriander" (said) ends the
guess "likes: coriander". Only these pairs are opposites; nothing is inferred."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection
from django.utils import timezone

from ..models import CardKind, CardRevision, Tag

OPPOSITES = {"likes": "dislikes", "dislikes": "likes"}


def hypotheses_contradicted(outcomes: Iterable) -> int:
    """Close the hypotheses the new facts in these write outcomes contradict; one statement."""
    facts = [o.card for o in outcomes if o.outcome in ("inserted", "superseded") and o.card.tag != Tag.HYPOTHESIS
             and o.card.kind == CardKind.STATE and o.card.label.key in OPPOSITES]
    if not facts:
        return 0
    now = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(
            f"""UPDATE cards_card h SET superseded_at = %s
                  FROM unnest(%s::bigint[], %s::bigint[], %s::text[], %s::bigint[], %s::bigint[]) AS f(scope, subject,
                       value_norm, opposite, fact)
                 WHERE h.scope_id = f.scope AND h.subject_id = f.subject AND h.value_norm = f.value_norm
                   AND h.label_id = f.opposite AND h.tag = '{Tag.HYPOTHESIS}' AND h.superseded_at IS NULL
             RETURNING h.id, f.fact""",
            [now, [c.scope_id for c in facts], [c.subject_id for c in facts], [c.value_norm for c in facts],
             [_label_id(OPPOSITES[c.label.key]) for c in facts], [c.pk for c in facts]])
        closed = cursor.fetchall()
    CardRevision.objects.bulk_create(
        [CardRevision(card_id=pk, at=now, field="hypothesis", before="hypothesis", after="discarded",
                      reason=f"contradicted by fact #{fact}") for pk, fact in closed])
    return len(closed)


def _label_id(key: str) -> int:
    from ..labels import label_resolve

    return label_resolve(key).pk
