"""Code does the counting (DESIGN §7): events dated inside a range, with the
undated ones reported apart (then the count is "at least"); duplicate reports
of one event counted once; for states, the distinct values that held — never
the number of updates. A range reaching into the future counts only what has
happened: an event still to come, or a value from a later date, is *planned*
(cards/valid_time.py) and reported apart, never among the count."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from django.db import connection
from django.utils import timezone

from ..models import CardKind, Label, Tag
from ..reads import in_read_sql, read_params
from ..valid_time import held_sql, planned_sql, valid_sql


@dataclass
class Count:
    counted: str  # events | values
    card_ids: list[int]
    undated_ids: list[int] = field(default_factory=list)
    # Events dated too coarsely to tell ("in 2026", asked about May): they may or may not count.
    straddling_ids: list[int] = field(default_factory=list)
    current_ids: list[int] = field(default_factory=list)
    # In the range but not yet true (an event still to come, a value from a later date): never counted.
    planned_ids: list[int] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.card_ids)

    @property
    def exact(self) -> bool:
        return not (self.undated_ids or self.straddling_ids)


def count_cards(*, scope_ids: list[int], label: Label, subject_ids: list[int] | None,
                start: dt.datetime | None, end: dt.datetime | None, tz: str) -> Count:
    params = {**read_params(scope_ids), "label": label.pk, "subjects": subject_ids, "start": start, "end": end, "tz": tz,
              "now": timezone.now()}
    where = f"{in_read_sql('c', params)} AND c.label_id = %(label)s"
    where += f" AND c.tag <> '{Tag.HYPOTHESIS}'"
    if subject_ids is not None:
        where += " AND c.subject_id = ANY(%(subjects)s)"
    with connection.cursor() as cursor:
        if label.kind == CardKind.EVENT:
            return _count_events(cursor, where, params)
        return _count_values(cursor, where, params)


_ENDS = "COALESCE(c.occurred_end, c.occurred_at + interval '1 microsecond')"


def _count_events(cursor, where: str, params: dict) -> Count:
    """An event counts when its whole interval lies inside [start, end); one that
    only overlaps the range (dated "in 2026", asked about May) is reported apart,
    like an undated one. One event reported twice (same subject, label, value,
    day in the asker's zone) counts once. One still to come is planned, not counted."""
    dated = where + " AND c.occurred_at IS NOT NULL"
    inside, overlaps = [], []
    if params["start"] is not None:
        inside.append("c.occurred_at >= %(start)s")
        overlaps.append(f"{_ENDS} > %(start)s")
    if params["end"] is not None:
        inside.append(f"{_ENDS} <= %(end)s")
        overlaps.append("c.occurred_at < %(end)s")
    distinct = f"""SELECT id, planned FROM (
                SELECT DISTINCT ON (c.subject_id, c.value_norm, (c.occurred_at AT TIME ZONE %(tz)s)::date)
                       c.id, c.occurred_at, {planned_sql("c")} AS planned
                  FROM cards_card c WHERE {{where}}
                 ORDER BY c.subject_id, c.value_norm, (c.occurred_at AT TIME ZONE %(tz)s)::date, c.id) AS e
             ORDER BY occurred_at, id"""
    cursor.execute(distinct.format(where=" AND ".join([dated, *inside])), params)
    rows = cursor.fetchall()
    counted = [pk for pk, planned in rows if not planned]
    planned = [pk for pk, planned in rows if planned]
    straddling = []
    if inside:
        cursor.execute(distinct.format(where=" AND ".join([dated, *overlaps, f"NOT ({' AND '.join(inside)})"])),
                       params)
        straddling = [row[0] for row in cursor.fetchall()]
    # Undated events could have happened in any range: reported apart, once per (subject, value).
    cursor.execute(
        f"""SELECT DISTINCT ON (c.subject_id, c.value_norm) c.id FROM cards_card c
             WHERE {where} AND c.kind = '{CardKind.EVENT}' AND c.occurred_at IS NULL
             ORDER BY c.subject_id, c.value_norm, c.id""", params)
    return Count("events", counted, undated_ids=sorted(row[0] for row in cursor.fetchall()),
                 straddling_ids=straddling, planned_ids=planned)


def _count_values(cursor, where: str, params: dict) -> Count:
    """Distinct values (per subject) whose validity overlaps [start, end): a
    value restated or updated to itself is one value, however often logged.
    A value that only starts later than now is planned; one that also held
    before is counted (its card that held is the one listed)."""
    # A value a later statement overruled held at no instant (valid_time.held_sql): it is not one of them.
    held = where + f" AND c.kind <> '{CardKind.EVENT}' AND {held_sql('c')}"
    if params["end"] is not None:
        held += " AND c.effective_at < %(end)s"
    if params["start"] is not None:
        held += " AND (c.superseded_at IS NULL OR c.superseded_at > %(start)s)"
    cursor.execute(
        f"""SELECT id, planned FROM (
                SELECT DISTINCT ON (c.subject_id, c.value_norm) c.id, c.effective_at, {planned_sql("c")} AS planned
                  FROM cards_card c WHERE {held}
                 ORDER BY c.subject_id, c.value_norm, {planned_sql("c")}, c.effective_at DESC, c.id DESC) AS v
             ORDER BY effective_at, id""", params)
    rows = cursor.fetchall()
    cursor.execute(f"SELECT c.id FROM cards_card c WHERE {held} AND {valid_sql('c', '%(now)s')} ORDER BY c.id", params)
    return Count("values", [pk for pk, planned in rows if not planned],
                 planned_ids=[pk for pk, planned in rows if planned], current_ids=[row[0] for row in cursor.fetchall()])
