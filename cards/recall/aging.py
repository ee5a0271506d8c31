"""Aging facts (DESIGN §6): a single-value fact unconfirmed for AGING_DAYS goes back to the person as a
question. What ages, when it is due, and the index route's read of them; the exact route reads them in its
one statement (exact.py), recall from memory from its snapshots (memory.py). The home page's health
counts, the person page and upkeep call the public functions here."""

from __future__ import annotations

from django.db import connection
from django.utils import timezone

from ..reads import in_read_sql, read_params
from ..valid_time import valid_sql
from .answer import Aging
from .questions import asked_join, sensitive_sql, single_sql
from .score import DAYS_SQL, SIMILARITY_SQL

AGING_DAYS = 180
AGING_LIMIT = 5


def aging_condition(alias: str = "") -> str:
    """What goes stale and is re-checked with the person once AGING_DAYS pass
    unconfirmed: a single-value state of a label whose value can change (a
    birthday does not). The dashboard's health counts read it too."""
    return f"{single_sql(alias)} AND {alias}label_id IN (SELECT id FROM cards_label WHERE ages)"


def aging_now() -> str:
    """An aging fact due for its re-check: unconfirmed for AGING_DAYS as of %(at)s
    (over cards_card `c`). The home page counts these and lists them (aging_card_ids)."""
    return f"{aging_condition('c.')} AND {DAYS_SQL} >= {AGING_DAYS}"


def aging_card_ids(scope_ids: list[int], *, among: list[int] | None = None) -> list[int]:
    """The facts to re-check now in these scopes: what the home page's health counts count;
    with `among`, only which of those cards are (a page that shows a few asks only of them)."""
    params = {**read_params(scope_ids), "at": timezone.now(), "among": list(among or ())}
    sql = f"SELECT c.id FROM cards_card c WHERE {in_read_sql('c', params)} AND {valid_sql('c')} AND {aging_now()}"
    if among is not None:
        sql += " AND c.id = ANY(%(among)s)"
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [row[0] for row in cursor.fetchall()]


def aged(cursor, valid: str, params: dict) -> tuple[list[Aging], int]:
    """Facts unconfirmed for AGING_DAYS or more (see aging_condition), those that
    may be asked first, then those nearest the query; and how many may be asked."""
    cursor.execute(
        "SELECT id, days, asked_at, askable, count(*) FILTER (WHERE askable) OVER () FROM ("
        f" SELECT c.id, {DAYS_SQL} AS days, asked.asked_at,"
        f" NOT {sensitive_sql('c.label_id')} AND asked.asked_at IS NULL AS askable,"
        # Similarity as an expression, not the bare operator: with the index route's
        # iterative-scan settings the planner would otherwise walk the HNSW index
        # for this very selective filter until max_scan_tuples (260 ms at 1M cards).
        f" {SIMILARITY_SQL} AS similarity FROM cards_card c {asked_join('c.id', 'c.scope_id', 'c.verified_at')}"
        f" WHERE {valid} AND {aging_condition('c.')} AND {DAYS_SQL} >= {AGING_DAYS}) AS aged"
        " ORDER BY askable DESC, similarity DESC NULLS LAST, days DESC, id LIMIT " + str(AGING_LIMIT), params)
    rows = cursor.fetchall()
    return [Aging(card_id=row[0], days=row[1], asked_at=row[2], askable=row[3]) for row in rows], \
        (rows[0][4] if rows else 0)
