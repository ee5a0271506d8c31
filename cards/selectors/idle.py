"""Which projects nobody has written to or read from since a moment — for the
upkeep job, which proposes archiving them (DESIGN §10); it never archives.
Reads are stamped on the scope (scopes/idle.py); writes are the cards'."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db.models import Max
from django.db.models.functions import Greatest

from scopes.models import Scope, ScopeKind

from ..models import Card


@dataclass(frozen=True)
class IdleScope:
    scope_id: int
    name: str
    last_read_at: dt.datetime
    last_written_at: dt.datetime | None  # None: no card was ever written there


def scopes_idle(*, since: dt.datetime, scope_ids: list[int] | None = None) -> list[IdleScope]:
    """Active project scopes (of `scope_ids`, or all) neither read nor written
    since `since`, oldest activity first. A write is a card recorded or
    verified there (forgotten cards leave no trace, as they should). On no
    person's behalf: the caller (the upkeep job) decides whom to ask."""
    quiet = Scope.objects.filter(kind=ScopeKind.PROJECT, archived_at__isnull=True, last_read_at__lt=since)
    if scope_ids is not None:
        quiet = quiet.filter(pk__in=scope_ids)
    quiet = list(quiet.order_by("id").values("id", "name", "last_read_at"))
    written = dict(Card.objects.in_scopes([s["id"] for s in quiet]).order_by().values("scope_id")
                   .annotate(at=Max(Greatest("recorded_at", "verified_at"))).values_list("scope_id", "at"))
    idle = [IdleScope(s["id"], s["name"], s["last_read_at"], written.get(s["id"])) for s in quiet
            if written.get(s["id"]) is None or written[s["id"]] < since]
    return sorted(idle, key=lambda s: (max(s.last_read_at, s.last_written_at or s.last_read_at), s.scope_id))
