"""What a read and a write cost, for bench/recall.py: the write rate through the services, and the CPU a
household or broad read spends in this process and in the database server (bench/README.md)."""

from __future__ import annotations

import datetime as dt
import random
import time


def write_phase(world, n: int, batch: int, seed: int) -> dict:
    """`n` cards written one call each through card_remember (one transaction each, as the API's single
    write), then `n` more in calls of `batch` through card_remember_batch (the API's list write), all in the
    caller's five scopes: a mix of single-value states (new values supersede, repeats reinforce), multi-value
    states and events (api_workload.ScopeStream). Written after the reads: they add 2n cards to the table.
    Each new card is embedded as the site does on write (in this process when Celery runs eagerly), alike on
    both servers: "SQL ms per card" is the database's part."""
    from django.db import connection
    from django.utils import timezone
    from api_workload import ScopeStream
    from http_load import percentile
    from cards.services import card_remember, card_remember_batch
    from scopes.models import Scope
    rng = random.Random(seed)
    by_pk = Scope.objects.in_bulk(world.caller_scope_ids)
    scopes = [by_pk[pk] for pk in world.caller_scope_ids]     # the same order, so both runs write the same cards
    streams = {s.pk: ScopeStream(rng) for s in scopes}
    sql_ms = [0.0]

    def sql_timer(execute, sql_text, params, many, context):
        t0 = time.perf_counter()
        try:
            return execute(sql_text, params, many, context)
        finally:
            sql_ms[0] += (time.perf_counter() - t0) * 1000

    def drafts(count: int):
        for i in range(count):
            scope = scopes[i % len(scopes)]
            yield scope, streams[scope.pk].draft(rng, timezone.now(), world.caller.username)

    out = {}
    with connection.execute_wrapper(sql_timer):
        for name, calls in (("single", [[item] for item in drafts(n)]),
                            ("batch", _chunks(list(drafts(n)), batch))):
            sql_ms[0], each, outcomes = 0.0, [], {}
            started = time.perf_counter()
            for items in calls:
                t0 = time.perf_counter()
                if name == "single":
                    results = [card_remember(scope=items[0][0], actor=world.caller, draft=items[0][1])]
                else:
                    results = card_remember_batch(actor=world.caller, items=items)
                each.append((time.perf_counter() - t0) * 1000)
                for r in results:
                    outcomes[r.outcome] = outcomes.get(r.outcome, 0) + 1
            seconds = time.perf_counter() - started
            out[name] = {"cards": n, "calls": len(calls), "cards_per_s": round(n / seconds, 1),
                         "call_ms_p50": round(percentile(each, 50), 2), "call_ms_p95": round(percentile(each, 95), 2),
                         "sql_ms_per_card": round(sql_ms[0] / n, 2), "outcomes": outcomes}
    out["batch_size"] = batch
    return out


def _chunks(items: list, size: int) -> list[list]:
    return [items[i:i + size] for i in range(0, len(items), size)]


def cost_phase(world, queries, n: int, broad_scopes: list[int], n_broad: int, k: int) -> dict:
    """CPU milliseconds per read, by process: `n` household reads and `n_broad` broad reads (auto route),
    the query embedded first and counted apart. Wall time too."""
    from cards.recall import routes
    from cards.recall.query import query_vector, query_vectors_clear
    from cpu_meter import CpuMeter
    meter = CpuMeter()
    out: dict = {"nodes_measured": [name for name, pid in meter.nodes.items() if pid]}
    for name, scope_ids, count in (("household", world.caller_scope_ids, n), ("broad", broad_scopes, n_broad)):
        if count < 1:
            continue
        texts = [queries.next() for _ in range(count)]
        query_vectors_clear()
        before = meter.read()
        for q in texts:
            query_vector(q)
        embedding = meter.since(before)["bench process"]
        before, wall = meter.read(), time.perf_counter()
        for q in texts:
            routes.recall(scope_ids=scope_ids, query=q, k=k)
        wall = time.perf_counter() - wall
        spent = meter.since(before)
        out[name] = {"reads": count, "wall_ms_per_read": round(wall * 1000 / count, 2),
                     "embedding_cpu_ms_per_read": round(embedding / count, 2),
                     "cpu_ms_per_read": {k_: (None if v is None else round(v / count, 2)) for k_, v in spent.items()}}
    out["measured_at"] = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    return out
