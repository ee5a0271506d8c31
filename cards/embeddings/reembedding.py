"""Whether `manage.py reembed` is moving the database to another space right now, as every process sees it.

The reembed holds a session advisory lock of PostgreSQL for as long as it runs: the database itself is
the one place every web and worker process reads, a second reembed is refused by the same lock, and a
reembed that dies (killed, its machine gone) lets go of it with its connection, so no stale "running"
is left behind for anyone to clear. A process reads pg_locks for it at most every CHECK_SECONDS.

While it runs, recall embeds no card inside a request (cards/recall/unembedded.py): the reembed is using
the CPU for exactly that work, and a card without a vector is scored by its words meanwhile."""

from __future__ import annotations

import time

from django.db import connection

# The two keys of the lock (pg_advisory_lock(int, int)): "RE", and nothing else takes that first key.
REEMBED_LOCK = (0x5245, 0)
CHECK_SECONDS = 5.0

_HELD_SQL = ("SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted"
             " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
             " AND classid = %s AND objid = %s AND objsubid = 2)")

# (when it was read, whether a reembed ran): one tuple, replaced whole, so threads need no lock.
_seen: tuple[float, bool] | None = None


def reembed_hold() -> bool:
    """Take the lock for this connection's session; False when another reembed holds it."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", list(REEMBED_LOCK))
        return bool(cursor.fetchone()[0])


def reembed_release() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_unlock(%s, %s)", list(REEMBED_LOCK))


def reembed_running() -> bool:
    """A reembed holds the lock, as read at most CHECK_SECONDS ago by this process."""
    global _seen
    now = time.monotonic()
    seen = _seen
    if seen is not None and now - seen[0] < CHECK_SECONDS:
        return seen[1]
    with connection.cursor() as cursor:
        cursor.execute(_HELD_SQL, list(REEMBED_LOCK))
        running = bool(cursor.fetchone()[0])
    _seen = (now, running)
    return running


def reembed_forget() -> None:
    """Read the lock again at the next check (the reembed itself, on starting and ending; tests)."""
    global _seen
    _seen = None
