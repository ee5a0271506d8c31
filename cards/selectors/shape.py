"""Cards as agents see them, built from `.values()` rows.

The read and write endpoints answer with cards on every call; building model
instances with four related objects and running them through DRF fields cost
more than the queries (PERFORMANCE: `.values()` + orjson doubled requests/s).
`CardOut` documents this same shape for the schema; a test holds the two equal.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from django.db.models import BooleanField, QuerySet
from django.utils import timezone
from django.utils.translation import gettext

from core.compiled import Compiled

from ..confidence import level_of
from ..errors import CardGone
from ..models import Card
from ..reads import read_params
from ..valid_time import planned
from .cards import with_perspective

COLUMNS = (
    "id", "scope_id", "kind", "tag", "subject__name", "subject_id", "label__key", "cardinality", "value",
    "object__name", "object_id", "text", "perspective_text", "effective_at", "superseded_at", "superseded_by_id",
    "recorded_at", "verified_at", "occurred_at", "occurred_end", "precision", "time_source", "anchor_zone",
    "source_actor__username", "source_token__name", "source_session", "source_message", "source_quote", "confidence",
    "impact",
    "disputes_id",
)


def iso(value: dt.datetime | None) -> str | None:
    """The way DRF writes a datetime (UTC as `Z`), so both paths read the same."""
    if value is None:
        return None
    text = value.astimezone(dt.timezone.utc).isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def card_out(row: dict, now: dt.datetime | None = None) -> dict:
    now = now or timezone.now()
    return {
        "id": row["id"],
        "scope": row["scope_id"],
        "kind": row["kind"],
        "tag": row["tag"],
        "subject": row["subject__name"],
        "subject_id": row["subject_id"],
        "label": row["label__key"],
        "cardinality": row["cardinality"],
        "value": row["value"],
        "object": row["object__name"] if row["object_id"] else None,
        "object_id": row["object_id"],
        "text": row["perspective_text"] or row["text"],
        "base_text": row["text"],
        "effective_at": iso(row["effective_at"]),
        "superseded_at": iso(row["superseded_at"]),
        "superseded_by": row["superseded_by_id"],
        "recorded_at": iso(row["recorded_at"]),
        "verified_at": iso(row["verified_at"]),
        "occurred_at": iso(row["occurred_at"]),
        "occurred_end": iso(row["occurred_end"]),
        "precision": row["precision"],
        "time_source": row["time_source"],
        "zone": row["anchor_zone"] or None,
        "source": {"actor": row["source_actor__username"], "agent": row["source_token__name"],
                   "session": row["source_session"],
                   "message": row["source_message"], "quote": row["source_quote"]},
        "confidence": row["confidence"],
        "confidence_level": None if row["confidence"] is None else level_of(row["confidence"]),
        "impact": row["impact"],
        # Not yet true: a value from a future date, an event still to come (cards/valid_time.py).
        "planned": planned(row["kind"], row["effective_at"], row["occurred_at"], now),
        "disputes": row["disputes_id"],
    }


def card_rows(cards: QuerySet[Card], *, user) -> QuerySet:
    """`cards` as `.values()` rows carrying the caller's phrasing; shape each with `card_out`."""
    return with_perspective(cards, user=user).values(*COLUMNS)


def _cards_by_id_query(*, ids, user_id, scopes, scoped: bool):
    from django.db.models.expressions import RawSQL

    from scopes.models import User

    # One array parameter, not one per id: the compiled query fits any number of ids.
    cards = Card.objects.filter(pk__in=RawSQL("SELECT unnest(%s::bigint[])", [ids]))
    if scoped:
        # The read's scopes as `= ANY(array)`: on a cluster only their shards are asked (an IN over a
        # subquery would ask every shard).
        cards = cards.filter(RawSQL('"cards_card"."scope_id" = ANY(%s::int[])', [scopes],
                                    output_field=BooleanField()))
    return card_rows(cards, user=User(pk=user_id))


_CARDS_BY_ID = Compiled(_cards_by_id_query, "ids", "user_id", "scopes")


def cards_shown(card_ids: Iterable[int], *, user, scope_ids: list[int] | None = None) -> dict[int, dict]:
    """The cards with these ids that still stand, shaped, by id: one forgotten
    since its id was read is simply absent (the caller says so). `scope_ids`: the
    read's scopes, when the ids come from one (then only those are looked in)."""
    ids = sorted(set(card_ids))
    if not ids:
        return {}
    now = timezone.now()
    values = {"ids": ids, "user_id": user.pk}
    if scope_ids is not None:
        # The ids were chosen by the read (cards.reads): every scope they may be in, shares' included.
        values["scopes"] = read_params(scope_ids)["read_scopes"]
    rows = _CARDS_BY_ID.rows(values, scoped=scope_ids is not None)
    return {row["id"]: card_out(row, now) for row in rows}


def card_shown(card_id: int, *, user) -> dict:
    """One card, shaped; CardGone (a 404) if a forget removed it since it was read."""
    card = cards_shown([card_id], user=user).get(card_id)
    if card is None:
        raise CardGone(gettext("That card was forgotten meanwhile."))
    return card


def cards_out(card_ids: Iterable[int], *, user, scope_ids: list[int] | None = None) -> list[dict]:
    """The cards with these ids, shaped, in the order given (ids may repeat). `scope_ids`: the read's
    scopes, when every id comes from one (see cards_shown)."""
    ids = list(card_ids)
    by_id = cards_shown(ids, user=user, scope_ids=scope_ids)
    return [by_id[pk] for pk in ids]
