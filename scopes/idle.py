"""When a scope was last read, to the day, for the upkeep job that proposes
archiving a project nobody uses (cards/selectors/idle.py adds the writes).

Every read names its scope through `read_scope_ids`, which hands the stamp it
read anyway to `scope_read_note`: a write only when the stamp is a day old, so
reading costs no query on almost every request (as a token's `last_used_at`)."""

from __future__ import annotations

import datetime as dt

from django.utils import timezone

from .models import Scope

READ_RESOLUTION = dt.timedelta(days=1)


def scope_read_note(*, scope_id: int, last_read_at: dt.datetime | None) -> None:
    """Moves the scope's `last_read_at` to now when it is older than a day."""
    now = timezone.now()
    if last_read_at is not None and now - last_read_at < READ_RESOLUTION:
        return
    # The condition again in SQL: concurrent readers write it once.
    Scope.objects.filter(pk=scope_id, last_read_at__lt=now - READ_RESOLUTION).update(last_read_at=now)
