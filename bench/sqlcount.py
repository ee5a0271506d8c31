"""SQL statement counting and timing for bench/ingest.py."""

from __future__ import annotations

import collections
import statistics
import time
from dataclasses import dataclass, field

from django.db import connection

OUTCOMES = ("inserted", "superseded", "reinforced", "duplicate")


@dataclass
class QuerySample:
    by_outcome: dict[str, list[int]] = field(default_factory=lambda: collections.defaultdict(list))
    by_path: dict[str, list[int]] = field(default_factory=lambda: collections.defaultdict(list))
    worst: tuple[int, str, list[str]] | None = None

    def add(self, n: int, outcome: str, path: str, sql: list[str]) -> None:
        self.by_outcome[outcome].append(n)
        self.by_path[f"{path} {outcome}"].append(n)
        if self.worst is None or n > self.worst[0]:
            self.worst = (n, f"{path} {outcome}", sql)

    def summary(self) -> dict:
        def stats(values: list[int]) -> dict:
            return {"cards": len(values), "mean": round(statistics.fmean(values), 2), "max": max(values)}
        every = [n for values in self.by_outcome.values() for n in values]
        return {
            "all": stats(every) if every else None,
            "by_outcome": {o: stats(self.by_outcome[o]) for o in OUTCOMES if self.by_outcome.get(o)},
            "by_path": {p: stats(v) for p, v in sorted(self.by_path.items())},
            "worst_card": {"queries": self.worst[0], "path": self.worst[1], "sql": self.worst[2]}
            if self.worst else None,
        }


def short_sql(sql: str) -> str:
    return " ".join(sql.split())[:160]


def statement_class(sql: str) -> str:
    """A short name for what a statement does on the write path."""
    s = " ".join(sql.split())
    upper = s.upper()
    if upper.startswith(("SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK TO")):
        return "savepoint / release"
    if "PG_ADVISORY_XACT_LOCK" in upper[:80]:
        return "advisory lock" + (" (whole batch)" if "UNNEST(" in upper else "")
    if upper.lstrip("(").startswith("SELECT") and "NEXTVAL(" in upper[:80]:
        return "SELECT nextval (draw ids)"
    if upper.lstrip("(").startswith("SELECT"):
        table = s.split(" FROM ", 1)[1].split()[0].strip('"').split("(")[0] if " FROM " in s else "?"
        if table == "cards_card" and " UNION " in s:
            return ("SELECT cards: batch read of timelines" if "UNNEST(" in upper
                    else "SELECT card: neighbours (UNION)")
        if table == "cards_card":
            if "COALESCE" in upper:
                return "SELECT card: event duplicate check"
            if "ORDER BY" in s and '"effective_at" ASC' in s and "LIMIT" not in s:
                return "SELECT card: whole timeline"
            return "SELECT card: current / same value"
        return f"SELECT {table}"
    verb = s.split()[0].upper()
    if verb == "INSERT":
        rows = s.count("), (") + 1 if " VALUES " in upper else 1
        return "INSERT " + s.split()[2].strip('"') + (" (multi-row)" if rows > 1 else "")
    if verb == "UPDATE":
        closes = " (close, nextval)" if "NEXTVAL(" in upper else ""
        bulk = " (many rows, unnest)" if "UNNEST(" in upper else ""
        return "UPDATE " + s.split()[1].strip('"') + closes + bulk
    return verb


class StatementTimer:
    """Wall time per statement class (client side: round trip + server work), and
    per COMMIT, while active. Install with connection.execute_wrapper(timer)."""

    def __init__(self) -> None:
        self.time: dict[str, float] = collections.defaultdict(float)
        self.count: collections.Counter = collections.Counter()

    def __call__(self, execute, sql, params, many, context):
        t0 = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            name = statement_class(sql)
            self.time[name] += time.perf_counter() - t0
            self.count[name] += 1

    def wrap_commit(self):
        original = connection._commit

        def timed_commit():
            t0 = time.perf_counter()
            try:
                return original()
            finally:
                self.time["COMMIT"] += time.perf_counter() - t0
                self.count["COMMIT"] += 1
        connection._commit = timed_commit
        return original

    def summary(self, cards: int, wall: float) -> dict:
        rows = {name: {"count": self.count[name], "per_card": round(self.count[name] / cards, 2),
                       "mean_us": round(self.time[name] / self.count[name] * 1e6),
                       "ms_per_card": round(self.time[name] / cards * 1000, 3),
                       "share": round(self.time[name] / wall, 3)}
                for name in sorted(self.time, key=self.time.get, reverse=True)}
        in_db = sum(self.time.values())
        return {"statements": rows, "db_share": round(in_db / wall, 3),
                "outside_db_ms_per_card": round((wall - in_db) / cards * 1000, 3)}


def split_batch_queries(queries: list[dict]) -> list[list[str]]:
    """Cut a card_remember_many capture into one list per card: each card_remember
    runs in its own savepoint, so a top-level SAVEPOINT opens a card and its
    RELEASE closes it (nested savepoints, e.g. creating an entity, stay inside)."""
    cards: list[list[str]] = []
    depth = 0
    for query in queries:
        sql = query["sql"]
        if sql.startswith("SAVEPOINT"):
            if depth == 0:
                cards.append([])
            depth += 1
        if depth > 0:
            cards[-1].append(sql)
        if sql.startswith("RELEASE SAVEPOINT") or sql.startswith("ROLLBACK TO SAVEPOINT"):
            if sql.startswith("RELEASE"):
                depth -= 1
    return cards
