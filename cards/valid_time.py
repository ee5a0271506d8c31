"""What "current" means (DESIGN §4 rule 7): valid now. A card is valid at t
when it started by t and had not stopped by t; a value whose `effective_at`
lies in the future is *planned* until then, and the value it replaces is still
current until that day. `superseded_at IS NULL` only says a card is the open
end of its timeline, never that it holds today.

Every read that says "current", "now" or "as of" takes its condition from here."""

from __future__ import annotations

import datetime as dt

from django.db.models import F, Q
from django.utils import timezone


def valid_sql(alias: str = "c", at: str = "%(at)s") -> str:
    """SQL: the card aliased `alias` holds at the instant bound to the parameter `at`."""
    return (f"{alias}.effective_at <= {at} AND ({alias}.superseded_at IS NULL OR {alias}.superseded_at > {at})")


def held_sql(alias: str = "c") -> str:
    """SQL: the card aliased `alias` holds at some instant — not one a later statement overruled at its
    start (closed where it began, kept in the history): the cards a timeline is placed among."""
    return f"({alias}.superseded_at IS NULL OR {alias}.superseded_at > {alias}.effective_at)"


def held_q(prefix: str = "") -> Q:
    """The ORM form of held_sql."""
    return Q(**{f"{prefix}superseded_at__isnull": True}) | Q(**{f"{prefix}superseded_at__gt": F(f"{prefix}effective_at")})


def valid_q(at: dt.datetime, prefix: str = "") -> Q:
    """The ORM form of valid_sql (`prefix` for a related card, e.g. "card__")."""
    return Q(**{f"{prefix}effective_at__lte": at}) & (
        Q(**{f"{prefix}superseded_at__isnull": True}) | Q(**{f"{prefix}superseded_at__gt": at}))


def planned_sql(alias: str = "c", at: str = "%(now)s") -> str:
    """SQL of `planned`: the card aliased `alias` is not yet true at `at` (false
    for an undated event, which happened before it was recorded)."""
    return (f"COALESCE((CASE WHEN {alias}.kind = 'event' THEN {alias}.occurred_at"
            f" ELSE {alias}.effective_at END) > {at}, false)")


def is_valid_at(card, at: dt.datetime) -> bool:
    return card.effective_at <= at and (card.superseded_at is None or card.superseded_at > at)


def planned(kind: str, effective_at: dt.datetime, occurred_at: dt.datetime | None, now: dt.datetime) -> bool:
    """Not yet true: a state from a future date, or an event that has not happened."""
    starts = occurred_at if kind == "event" else effective_at
    return starts is not None and starts > now


def is_planned(card, now: dt.datetime | None = None) -> bool:
    return planned(card.kind, card.effective_at, card.occurred_at, now or timezone.now())
