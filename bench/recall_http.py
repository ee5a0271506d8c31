"""The recall bench's request phases (bench/recall.py): the endpoint in process through Django's test
client, and over HTTP through gunicorn, with the same fresh queries."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from http_load import SERVER_ENV
from recall_report import stats

ROOT = Path(__file__).resolve().parent.parent


def request_phase(world, queries, n: int, k: int) -> dict:
    """The endpoint in this process (django.test.Client: middleware, token auth, DRF, JSON), no
    socket or gunicorn; the service call inside it timed by wrapping the view's `recall`."""
    from django.db import connection
    from django.test import Client
    import cards.selectors.recall as view
    inner: list[float] = []
    sql_ms, sql_n, in_recall = [0.0], [0], [False]
    by_kind: dict[str, float] = {}

    def sql_timer(execute, sql_text, params, many, context):
        t0 = time.perf_counter()
        try:
            return execute(sql_text, params, many, context)
        finally:
            if not in_recall[0]:        # statements outside the recall service: auth, scope ids, cards, "me"
                ms = (time.perf_counter() - t0) * 1000
                sql_ms[0] += ms
                sql_n[0] += 1
                words = sql_text.split()
                kind = " ".join(words[:2]) if words and words[0] != "SELECT" else \
                    "SELECT " + (sql_text.split(" FROM ", 1)[1].split()[0] if " FROM " in sql_text else "?")
                by_kind[kind] = by_kind.get(kind, 0.0) + ms
    original = view.recall

    def timed(**kwargs):
        t0 = time.perf_counter()
        in_recall[0] = True
        try:
            return original(**kwargs)
        finally:
            in_recall[0] = False
            inner.append((time.perf_counter() - t0) * 1000)
    client = Client(HTTP_HOST="127.0.0.1", HTTP_AUTHORIZATION=f"Bearer {world.token_raw}")
    total: list[float] = []
    view.recall = timed
    try:
        for i in range(n + 5):
            if i == 5:
                sql_ms[0], sql_n[0] = 0.0, 0
                by_kind.clear()
            body = json.dumps({"scope": world.request_scope_id, "query": queries.next(), "k": k})
            t0 = time.perf_counter()
            with connection.execute_wrapper(sql_timer):
                response = client.post("/api/v1/recall/", body, content_type="application/json")
            if response.status_code != 200:
                raise RuntimeError(f"in-process recall answered {response.status_code}: {response.content[:200]!r}")
            if i >= 5:   # the first few warm up
                total.append((time.perf_counter() - t0) * 1000)
            else:
                inner.pop()
    finally:
        view.recall = original
    return {"requests": n, "request_ms": stats(total), "recall_inside_ms": stats(inner),
            "rest_ms": stats([a - b for a, b in zip(total, inner)]),
            "rest_sql_ms_mean": round(sql_ms[0] / max(n, 1), 2),
            "rest_statements_per_request": round(sql_n[0] / max(n, 1), 1),
            "rest_sql_ms_mean_by_kind": {k: round(v / max(n, 1), 2)
                                         for k, v in sorted(by_kind.items(), key=lambda x: -x[1])}}


# Passes over the pool before the timed run: a worker is whichever accepts the connection, so after 8 passes a
# query has missed one of 2 workers with a chance of 2 × 2⁻⁸ (under 1 %).
REPEAT_WARM_PASSES = 8


def repeated_load(world, queries, port: int, args, check) -> dict:
    """One client asking `args.repeat_queries` queries in turn, each asked of every worker before the timed
    run: recall with the query's vector from the process's cache (cards/recall/query.py), all else as cold."""
    from http_load import run_load
    pool = [queries.next() for _ in range(args.repeat_queries)]

    def repeated(t, i):
        body = {"scope": world.request_scope_id, "query": pool[i % len(pool)], "k": args.k}
        return "POST", "/api/v1/recall/", json.dumps(body).encode(), 1

    run_load("warm repeated", port, world.token_raw, 1, 600.0, len(pool) * REPEAT_WARM_PASSES, repeated, check)
    return {"pool": len(pool), **run_load("recall repeated", port, world.token_raw, 1, args.http_seconds, 100_000,
                                          repeated, check)}


def http_phase(world, queries, db_url: str, log_dir: str, servers: list, args, log) -> dict:
    from http_load import expect, load_average, log_tail, run_load, server_start, server_stop
    from cards.recall.routes import recall
    routes_seen: dict[str, int] = {}

    def check(status, data, sample):
        if status != 200:
            return f"HTTP {status}: {data[:200]!r}"
        body = json.loads(data)
        routes_seen[body["route"]] = routes_seen.get(body["route"], 0) + 1
        # A time word in the query ("… this month") restricts to events then, and may rightly find
        # none: an empty answer is an answer when recall says it has no evidence.
        if not body["results"] and not body["no_evidence"]:
            return "no results"
        return None

    def recall_request(t, i):
        body = {"scope": world.request_scope_id, "query": queries.next(), "k": args.k}
        return "POST", "/api/v1/recall/", json.dumps(body).encode(), 1

    def healthz(t, i):
        return "GET", "/healthz", None, 1

    out = {"load_average_before": load_average(), "server_env": args.server_env}
    extra = dict(item.split("=", 1) for item in args.server_env)
    # The server loads the code as it is now; others may have added a migration since this run began.
    subprocess.run([sys.executable, str(ROOT / "manage.py"), "migrate", "--noinput", "-v", "0"], cwd=ROOT, check=True,
                   env={**os.environ, **SERVER_ENV, "DATABASE_URL": db_url})
    server = server_start("gunicorn", args.workers, log_dir, {**extra, "DATABASE_URL": db_url})
    servers.append(server)
    try:
        out["server"] = server.version
        # Warm-up: each worker loads the model on its first query (seconds); go on until answers are quick.
        for _ in range(6):
            w = run_load("warm", server.port, world.token_raw, max(2, args.workers), 8.0, 200, recall_request, check)
            if w["errors"]:
                raise RuntimeError(f"recall answered errors: {w.get('error_examples')} {log_tail(server.log_path)}")
            if w["requests"] >= 20 and w["latency_ms"]["p95"] < 500:
                break
        routes_seen.clear()
        out["healthz"] = run_load("healthz", server.port, world.token_raw, 1, 3.0, 100_000, healthz, expect((200,)))
        out["recall"] = []
        for clients in args.clients:
            r = run_load("recall", server.port, world.token_raw, clients, args.http_seconds, 100_000,
                         recall_request, check)
            out["recall"].append(r)
            log(f"    HTTP {clients} client(s): {r['requests']} requests, p50 {r['latency_ms']['p50']} ms, "
                f"p95 {r['latency_ms']['p95']} ms, errors {r['errors']}")
        if args.repeat_queries:
            out["recall_repeated"] = repeated_load(world, queries, server.port, args, check)
            r = out["recall_repeated"]
            log(f"    HTTP 1 client, {args.repeat_queries} queries asked again: {r['requests']} requests, "
                f"p50 {r['latency_ms']['p50']} ms, p95 {r['latency_ms']['p95']} ms, errors {r['errors']}")
        out["routes_seen"] = dict(routes_seen)
        # Same answer as the service? A few fresh queries, both ways.
        from http_load import Client
        client, same = Client(server.port, world.token_raw), 0
        for _ in range(5):
            q = queries.next()
            status, data = client.call("POST", "/api/v1/recall/",
                                       json.dumps({"scope": world.request_scope_id, "query": q, "k": args.k}).encode())
            http_ids = [r["card"]["id"] for r in json.loads(data)["results"]] if status == 200 else None
            service_ids = [r.card_id for r in recall(scope_ids=world.caller_scope_ids, query=q, k=args.k).results]
            same += http_ids == service_ids
        client.close()
        out["http_equals_service"] = f"{same}/5"
    finally:
        server_stop(server)
        servers.remove(server)
    out["load_average_after"] = load_average()
    return out
