"""Which cards a recall reads: those of the visible scopes that hold at the asked time, narrowed by a time
range and subjects. Every statement of recall (and the health pages' and upkeep's reads of aging and
contradictions) starts from this condition, which starts with the scope filter."""

from __future__ import annotations

import datetime as dt

from django.utils import timezone

from ..models import CardKind
from ..reads import in_read_sql
from ..valid_time import valid_sql
from ..time.when import Interval


def candidates_sql(params: dict, *, as_of: dt.datetime | None, when: Interval | None,
                   subject_ids: list[int] | None = None, routing: bool = False, when_events_only: bool = True) -> str:
    """Cards in the visible scopes that hold at the asked time (and overlap `when`, and are about `subject_ids`).
    `routing`: only to count candidates for the choice of route, where open cards are close enough.
    `when_events_only`: `when` keeps only the events in its range; otherwise states and knowledge stay too."""
    sql = in_read_sql("c", params)
    if subject_ids is not None:
        params["subjects"] = list(subject_ids)
        sql += " AND c.subject_id = ANY(%(subjects)s)"
    # Current means valid now (valid_time.py): a planned value is left out, and the
    # value it replaces is in until its day. `at` is now when no as_of was asked.
    params.setdefault("at", as_of or timezone.now())
    if routing and as_of is None:
        # The open cards differ from the valid ones by the few planned or closing
        # later, and are counted from the partial index alone (an index-only scan;
        # valid now reads every row: 1.4 against 44 ms over 80 scopes at 100k).
        sql += " AND c.superseded_at IS NULL"
    elif when is not None and when.end is not None and when.end > params["at"]:
        # A range reaching past the asked time asks what is planned in it too: an event
        # known then is in, though it has not happened yet. Known: recorded, or confirmed
        # as of a time before (a card imported with the time it was said).
        sql += (f" AND CASE WHEN c.kind = '{CardKind.EVENT}' THEN LEAST(c.recorded_at, c.verified_at) <= %(at)s"
                " AND (c.superseded_at IS NULL OR c.superseded_at > %(at)s)"
                f" ELSE {valid_sql('c')} END")
    else:
        sql += " AND " + valid_sql("c")
    if when is not None:
        params["when_start"] = when.start
        params["when_end"] = when.end or when.start + dt.timedelta(microseconds=1)
        in_range = ("c.occurred_at IS NOT NULL AND c.occurred_at < %(when_end)s"
                    " AND COALESCE(c.occurred_end, c.occurred_at + interval '1 microsecond') > %(when_start)s")
        sql += f" AND {in_range}" if when_events_only else f" AND (c.kind <> '{CardKind.EVENT}' OR ({in_range}))"
    return sql
