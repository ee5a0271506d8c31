"""When a scope was last read, to the day, for the upkeep job that proposes
archiving a project nobody uses (cards/selectors/idle.py adds the writes).

Reads only read: `read_scope_ids` tells `scope_read_seen` which scope a read
named and the stamp it read anyway, and writes nothing. Where a request is
answered — the API's base view (scopes/api/entry.py, which the MCP tools run
too) and the pages' decorator (scopes/pages/entry.py) — `reads_noted` gathers
what the request read and notes each scope once, as `scope_read_note`: a write
only when the stamp is a day old, so reading costs no query on almost every
request (as a token's `last_used_at`). A read outside a request (a command, a
benchmark) is nobody using the scope, and is not noted."""

from __future__ import annotations

import contextlib
import contextvars
import datetime as dt

from django.utils import timezone

from .models import Scope

READ_RESOLUTION = dt.timedelta(days=1)

# {scope id: its stamp as first read} for the request being answered; None outside one.
_READ = contextvars.ContextVar[dict | None]("scopes_read", default=None)


def scope_read_seen(*, scope_id: int, last_read_at: dt.datetime | None) -> None:
    """Remembers, for the request being answered, that a read named `scope_id` (no query)."""
    read = _READ.get()
    if read is not None:
        read.setdefault(scope_id, last_read_at)


@contextlib.contextmanager
def reads_noted():
    """Answers a request, then notes each scope its reads named, once. Nested (a
    view answering inside another's request), the outer one notes."""
    if _READ.get() is not None:
        yield
        return
    read: dict = {}
    entered = _READ.set(read)
    try:
        yield
    finally:
        _READ.reset(entered)
        for scope_id, last_read_at in read.items():
            scope_read_note(scope_id=scope_id, last_read_at=last_read_at)


def scope_read_note(*, scope_id: int, last_read_at: dt.datetime | None) -> None:
    """Moves the scope's `last_read_at` to now when it is older than a day."""
    now = timezone.now()
    if last_read_at is not None and now - last_read_at < READ_RESOLUTION:
        return
    # The condition again in SQL: concurrent readers write it once.
    Scope.objects.filter(pk=scope_id, last_read_at__lt=now - READ_RESOLUTION).update(last_read_at=now)
