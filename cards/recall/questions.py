"""What aging facts and contradictions are made of, and whether their question may be put to the caller:
never for a sensitive label, and not again once the caller said it was asked (about the card as it
stands). Shared by the SQL routes; recall from memory reads the same flags from its snapshots."""

from __future__ import annotations

from ..labels import NEVER_ASKED_LABELS_SQL
from ..models import Cardinality, CardKind, Tag


def single_sql(alias: str = "") -> str:
    """What aging facts and contradictions are made of: single-value states,
    never hypotheses (a guess is not a side and is not re-checked)."""
    return (f"{alias}kind = '{CardKind.STATE}' AND {alias}cardinality = '{Cardinality.SINGLE}'"
            f" AND {alias}tag <> '{Tag.HYPOTHESIS}'")


def sensitive_sql(label_id: str) -> str:
    """Of a label never put to a person as a question (see NEVER_ASKED_LABELS_SQL)."""
    return f"{label_id} IN ({NEVER_ASKED_LABELS_SQL})"


def asked_join(card: str, scope: str, verified_at: str) -> str:
    """A join of when the caller (%(asker)s) said they had put this card's question
    to its person (`asked.asked_at`), as the card stood then: a confirmation since
    (a new verified_at) makes it a new question. NULL when not asked. A question
    counts as asked only on that word (POST /cards/{id}/asked/), never for having
    been shown. A join by the card's scope, not a subquery per row: on a cluster
    it is read on the card's own shard (a correlated subquery over a CTE is refused).
    IS NOT DISTINCT FROM: with no asker, `= NULL` would fold the whole condition to
    false, and Citus refuses a join left without its scope. The read's scopes again:
    joined with a CTE's rows, Citus reads the questions first, and then only from
    the shards of those scopes (every card here is in one of them)."""
    return (f" LEFT JOIN cards_cardasked asked ON asked.card_id = {card} AND asked.scope_id = {scope}"
            " AND asked.scope_id = ANY(%(read_scopes)s)"
            f" AND asked.user_id IS NOT DISTINCT FROM %(asker)s AND asked.card_verified_at = {verified_at}")
