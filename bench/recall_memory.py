"""What recall's in-memory snapshots cost (cards/recall/snapshots.py), on a kept recall bench database: building
them cold (a process's first read of a scope), a warm read, a read right after a write to one of the read's
scopes (that scope rebuilt), and the bytes kept per card. Every read is the service call with the query
embedded beforehand, timed against the same read from SQL (route "exact") in the same process.

    .venv/bin/python bench/recall.py --cards 1000000 --keep --database memory_site_bench_1m   # once
    .venv/bin/python bench/snapshots.py --database memory_site_bench_1m
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--database", default="memory_site_bench_1m")
    p.add_argument("--rounds", type=int, default=20, choices=range(4, 1001), metavar="4..1000")
    p.add_argument("--broad-scopes", type=int, default=80)
    return p.parse_args()


def main() -> int:
    args = parse_args()
    import os
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")
    import django
    django.setup()
    from django.db import connections
    connections["default"].settings_dict["NAME"] = args.database
    from cards.recall import routes, snapshots
    from cards.recall.query import query_vector
    from cards.drafts import CardDraft
    from cards.services import card_remember
    from recall_seed import Queries, world_load
    from recall_report import stats

    world = world_load()
    queries = Queries(seed=11)
    out = {"database": args.database}
    from django.db import connection
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT oid, {snapshots.TRIGGERS_KEY_SQL} FROM pg_database"
                       " WHERE datname = current_database()")
        database, triggers = cursor.fetchone()

    def kept(scope_id: int) -> int:
        """Cards the process keeps for the scope; 0 when it keeps none (never built, or pushed out)."""
        found = snapshots.MEMORY.get(((database, triggers), scope_id))
        return len(found.ids) if found is not None else 0

    def timed(scope_ids, route=None) -> tuple[float, object]:
        q = queries.next()
        query_vector(q)              # the embedding is not what is measured here
        t0 = time.perf_counter()
        found = routes.recall(scope_ids=scope_ids, query=q, route=route)
        ms = (time.perf_counter() - t0) * 1000
        if route is None and not found.memory:
            raise SystemExit(f"a read expected from memory was read from SQL ({len(scope_ids)} scopes)")
        return ms, found

    for name, scope_ids in (("household", world.caller_scope_ids), ("broad", world.scope_ids[:args.broad_scopes])):
        cold, warm, sql = [], [], []
        for _ in range(max(3, args.rounds // 4)):
            snapshots.MEMORY.clear()
            ms, found = timed(scope_ids)
            assert found.memory
            cold.append(ms)
        for _ in range(args.rounds):
            warm.append(timed(scope_ids)[0])
            sql.append(timed(scope_ids, "exact")[0])
        cards = sum(kept(s) for s in scope_ids)
        if any(snapshots.MEMORY.get(((database, triggers), s)) is None for s in scope_ids):
            raise SystemExit("the read's snapshots were not all kept")
        # Snapshot.nbytes: the arrays' own bytes and an allowance per word, not the process's resident memory.
        out[name] = {"scopes": len(scope_ids), "cards_kept": cards, "bytes_kept": snapshots.MEMORY.nbytes,
                     "bytes_per_card_estimated": round(snapshots.MEMORY.nbytes / max(cards, 1)),
                     "cold_ms": stats(cold), "warm_ms": stats(warm), "sql_exact_ms": stats(sql),
                     "sql_over_warm_p50": round(stats(sql)["p50"] / stats(warm)["p50"], 1)}
    # A write, then the next read: the written scope (the caller's personal one) is rebuilt, the others kept.
    personal = world.caller_scope_ids[0]
    from scopes.models import Scope
    scope = Scope.objects.get(pk=personal)
    after, between = [], []
    for i in range(args.rounds):
        t0 = time.perf_counter()
        card_remember(scope=scope, actor=world.caller, draft=CardDraft(kind="state", label="likes", subject="me",
                                                                       value=f"bench memory {time.time()} {i}"))
        between.append((time.perf_counter() - t0) * 1000)
        after.append(timed(world.caller_scope_ids)[0])
    out["read_after_a_write"] = {"personal_scope_cards": kept(personal), "read_ms": stats(after),
                                 "write_ms": stats(between)}
    print(json.dumps(out, indent=1))
    print(f"household: cold p50 {out['household']['cold_ms']['p50']} ms, warm p50 {out['household']['warm_ms']['p50']}"
          f" ms, SQL {out['household']['sql_exact_ms']['p50']} ms; broad: cold p50 {out['broad']['cold_ms']['p50']},"
          f" warm {out['broad']['warm_ms']['p50']}, SQL {out['broad']['sql_exact_ms']['p50']}; after a write "
          f"{out['read_after_a_write']['read_ms']['p50']} ms; {out['household']['bytes_per_card_estimated']} bytes a"
          " card (estimated)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
