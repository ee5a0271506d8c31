"""Memory health per week for the dashboard home: cards written, facts that went
past AGING_DAYS unconfirmed, review items opened — over the last WEEKS weeks,
three grouped queries whatever the number of weeks or scopes, drawn as a
server-side SVG (no script, so the Content Security Policy holds)."""

from __future__ import annotations

import datetime as dt

from django.db import connection
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from cards.recall.aging import AGING_DAYS, aging_condition
from cards.recall.score import ANCHOR_SQL
from cards.valid_time import valid_sql
from review.services.candidates import OPEN
from scopes.principals import Principal, scope_ids_for
from scopes.zones import person_zone

WEEKS = 12
SERIES = (("cards", _("cards written")), ("aging", _("facts gone 180 days unconfirmed")),
          ("reviews", _("review items opened")))
WIDTH, HEIGHT, LEFT, BOTTOM, TOP = 640, 220, 36, 28, 10

# A fact crosses the line AGING_DAYS after it was last made true or confirmed (the
# anchor recall decays from), so a fact confirmed again since is no longer counted.
_AGING_WEEKS = f"""
    SELECT date_trunc('week', (({ANCHOR_SQL}) + interval '{AGING_DAYS} days') AT TIME ZONE %(tz)s) AS week, count(*)
      FROM cards_card c
     WHERE c.scope_id = ANY(%(scopes)s) AND {valid_sql('c')} AND {aging_condition('c.')}
       AND ({ANCHOR_SQL}) + interval '{AGING_DAYS} days' BETWEEN %(start)s AND %(at)s
     GROUP BY 1"""
_CARD_WEEKS = """
    SELECT date_trunc('week', c.recorded_at AT TIME ZONE %(tz)s) AS week, count(*) FROM cards_card c
     WHERE c.scope_id = ANY(%(scopes)s) AND c.recorded_at >= %(start)s GROUP BY 1"""
_REVIEW_WEEKS = """
    SELECT date_trunc('week', r.created_at AT TIME ZONE %(tz)s) AS week, count(*) FROM review_candidate r
     WHERE r.scope_id = ANY(%(reviewable)s) AND r.status = ANY(%(open)s) AND r.created_at >= %(start)s GROUP BY 1"""


def weekly_health(*, principal: Principal, scope_ids: list[int], now: dt.datetime | None = None) -> list[dict]:
    """One row per week (oldest first, Monday in the person's zone): start, cards, aging, reviews.
    Review items count only in scopes the person reviews, as on the scope ladder."""
    zone = person_zone(principal.user)
    now = now or timezone.now()
    today = now.astimezone(zone).date()
    first = today - dt.timedelta(days=today.weekday() + 7 * (WEEKS - 1))
    weeks = [first + dt.timedelta(weeks=i) for i in range(WEEKS)]
    rows = {week: {"start": week, "cards": 0, "aging": 0, "reviews": 0} for week in weeks}
    reviewable = list(scope_ids_for(principal, "review").filter(id__in=scope_ids).values_list("id", flat=True))
    params = {"scopes": scope_ids, "reviewable": reviewable, "open": list(OPEN), "tz": str(zone), "at": now,
              "start": dt.datetime.combine(first, dt.time(), tzinfo=zone)}
    with connection.cursor() as cursor:
        for key, sql in (("cards", _CARD_WEEKS), ("aging", _AGING_WEEKS), ("reviews", _REVIEW_WEEKS)):
            cursor.execute(sql, params)
            for week, count in cursor.fetchall():
                if week.date() in rows:
                    rows[week.date()][key] = count
    return [rows[week] for week in weeks]


def chart_of(weeks: list[dict]) -> dict:
    """Grouped bars (one per series a week), a y axis up to the largest count, week labels."""
    top = max([1, *(w[key] for w in weeks for key, _ in SERIES)])
    plot_h = HEIGHT - TOP - BOTTOM
    slot = (WIDTH - LEFT) / len(weeks)
    bar = slot / (len(SERIES) + 1)
    columns = []
    for i, week in enumerate(weeks):
        x = LEFT + i * slot + bar / 2
        bars = []
        for j, (key, name) in enumerate(SERIES):
            h = week[key] / top * plot_h
            bars.append({"x": f"{x + j * bar:.1f}", "y": f"{TOP + plot_h - h:.1f}", "w": f"{bar:.1f}",
                         "h": f"{h:.1f}", "series": j, "value": week[key], "name": name})
        columns.append({"week": week, "bars": bars, "label_x": f"{x + bar * len(SERIES) / 2:.1f}",
                        "show_label": i % 2 == 0 or i == len(weeks) - 1})
    return {"width": WIDTH, "height": HEIGHT, "left": LEFT, "right": WIDTH, "axis_y": TOP + plot_h, "top": TOP,
            "max": top, "columns": columns, "series": [name for _, name in SERIES], "label_y": HEIGHT - 8}
