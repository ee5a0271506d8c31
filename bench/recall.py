"""Recall benchmark: latency of `cards.recall.routes.recall` (in process and through
gunicorn) and the HNSW route's quality against the exact route, at 100k and 1M cards.

    .venv/bin/python bench/recall.py [--cards 100000,1000000] [--json] [--keep]
    .venv/bin/python bench/recall.py --cards 20000 --queries 100 --http-seconds 5    # smoke run
    EMBEDDING_BACKEND=e5 .venv/bin/python bench/recall.py --cards 1000000 --seed-only --database NAME_E5
    EMBEDDING_BACKEND=e5 .venv/bin/python bench/recall.py --reuse --repeat-queries 100 --database NAME_E5

Everything happens in a database of its own (``--database``, default
``memory_site_bench_recall``) on the server Django is configured for: created,
migrated with ``manage.py migrate``'s machinery, and dropped at the end (also
after a crash or Ctrl-C) unless ``--keep``. The dev database is not touched.

1. Embedding: the card texts (``--base-texts`` distinct ones) are embedded with
   the model EMBEDDING_BACKEND names, in one call (batches of 64): texts/s. Then
   single queries, one call each: latency. Every card vector the bench writes
   records that model's space; ``--reuse`` refuses a database holding a vector
   of another space, so a query of one model never meets a card of the other.
2. World, through the services: a caller and ``--owners`` users; ``--scopes``
   scopes with cards: the caller's personal scope, a ladder enterprise >
   department > team > project the caller is a member of, and shared scopes
   of the owners. A read in the ladder's project sees those 5 scopes.
3. Per size in ``--cards``: every card replaced (recall_seed.seed_cards: HNSW
   index dropped, one binary COPY, index rebuilt as the migration defines it,
   VACUUM ANALYZE). With ``--texts distinct`` (the default) a card is one base
   text mentioned with a second one: its text and words hold both, and its
   vector is the first's leaning 20-60 % towards the second's, plus Gaussian
   noise (σ ``--noise``), re-normalised. ``--texts near-copies`` is the earlier
   worst case: a base text's vector plus noise only. ``--scope-sizes skewed``
   (default) draws scope sizes log-normally with a long tail of busy teams;
   ``uniform`` makes every scope alike. The caller's five scopes keep the mean
   size either way. ``--cluster`` rewrites the table in scope order first
   (manage.py cards_cluster) and times it.
4. Service, in process: for each of ``--queries`` distinct queries the routes
   exact, index and auto (None) in rotating order; before each call the query
   cache is cleared, so every latency includes embedding the query. SQL time per
   statement is taken with a connection execute wrapper. recall@10 = |top 10 of
   index ∩ top 10 of exact| / |top 10 of exact|, both in the order the service
   returns (score = similarity × decay); exact is the ground truth.
5. HTTP: gunicorn (``--workers`` sync workers), ``POST /api/v1/recall/`` with a
   bearer token, a never-repeated query per request, for each concurrency in
   ``--clients``; ``GET /healthz`` on the same server as the floor. With
   ``--repeat-queries N``, one client also asks N queries in turn, each asked of
   every worker beforehand: what the per-process cache of query vectors saves.
``--seed-only`` stops after seeding (and keeps the database): the measurement is
a later ``--reuse`` run.
Load averages are recorded before and after each phase.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")

seeding = None    # bench/recall_seed.py, imported once Django is set up


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cards", default="100000,1000000", help="comma-separated sizes")
    p.add_argument("--scopes", type=int, default=1000)
    p.add_argument("--owners", type=int, default=50)
    p.add_argument("--base-texts", type=int, default=4000, help="distinct card texts embedded with the model")
    p.add_argument("--noise", type=float, default=0.01, help="σ of the Gaussian noise per dimension")
    p.add_argument("--texts", choices=["distinct", "near-copies"], default="distinct",
                   help="distinct: each card a base text mentioned with a second one (its own words and vector); "
                        "near-copies: the earlier worst case, each base text copied with noise only")
    p.add_argument("--scope-sizes", choices=["skewed", "uniform"], default="skewed",
                   help="skewed: log-normal households and a long tail of busy teams; uniform: every scope alike "
                        "(the earlier worst case). The caller's five scopes keep the mean size either way")
    p.add_argument("--queries", type=int, default=300, help="queries per route in the service phase")
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--single-queries", type=int, default=200, help="single-query embeddings timed")
    p.add_argument("--clients", default="1,2")
    p.add_argument("--http-seconds", type=float, default=20.0)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--server-env", action="append", default=[], metavar="KEY=VALUE",
                   help="extra environment for the server, e.g. EMBEDDING_THREADS=1 (repeatable)")
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--broad-scopes", type=int, default=80,
                   help="scopes of the broad read (at 1M cards ~53k candidates: the index route)")
    p.add_argument("--cluster", action="store_true",
                   help="rewrite the cards in scope order before measuring (manage.py cards_cluster), and time it")
    p.add_argument("--writes", type=int, default=200,
                   help="cards written one call each, and as many again in batches, to time the write rate")
    p.add_argument("--database", default="memory_site_bench_recall")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--keep", action="store_true", help="keep the bench database")
    p.add_argument("--reuse", action="store_true",
                   help="measure a database kept by an earlier --keep run as it is: no world, no seeding, no "
                        "embedding phase; the database is kept")
    p.add_argument("--seed-only", action="store_true",
                   help="create, seed and keep the database, measure nothing (measure it later with --reuse)")
    p.add_argument("--repeat-queries", type=int, default=0, metavar="N",
                   help="HTTP: also one client asking N queries in turn, each already asked of every worker "
                        "(the query vector cache answers)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--out", help="also write the JSON report to this file")
    args = p.parse_args(argv)
    args.cards = [int(x) for x in args.cards.split(",")]
    args.clients = [int(x) for x in args.clients.split(",")]
    if args.scopes < 6:
        p.error("--scopes must be at least 6")
    if args.seed_only and args.reuse:
        p.error("--seed-only seeds a new database; --reuse measures a kept one")
    args.keep = args.keep or args.seed_only
    return args


ARGS = parse_args()

from http_load import SERVER_ENV, database_url  # noqa: E402  (bench/ is on sys.path when run as a script)
import recall_cost  # noqa: E402
import recall_report  # noqa: E402
from recall_http import http_phase, request_phase  # noqa: E402
from recall_report import stats  # noqa: E402

# This process runs like the server: DEBUG off, no throttling, and plain http on 127.0.0.1 (as behind a
# TLS-terminating proxy) without the HTTPS redirect that DEBUG off turns on. The server inherits this.
for _key, _value in {**SERVER_ENV, "DJANGO_SSL_REDIRECT": "false"}.items():
    os.environ.setdefault(_key, _value)

from django.conf import settings  # noqa: E402

if not os.environ.get("DATABASE_URL"):
    # The embedded server takes its shared buffers at a start (memory_site/embedded_db.py): restarted
    # here so the run measures the server as configured, whatever started it before.
    from memory_site.embedded_db import embedded_restart  # noqa: E402
    embedded_restart(Path(settings.DATA_DIR))
ADMIN_DB = dict(settings.DATABASES["default"])     # reading settings starts the embedded server if needed
settings.DATABASES["default"]["NAME"] = ARGS.database

import django  # noqa: E402
import psycopg  # noqa: E402


# --- the bench database (plain psycopg: usable before Django is set up) -----------------------

def _admin(db: dict) -> psycopg.Connection:
    return psycopg.connect(dbname="postgres", user=db.get("USER") or None, password=db.get("PASSWORD") or None,
                           host=db.get("HOST") or None, port=db.get("PORT") or None, autocommit=True)


def database_create(db: dict, name: str) -> None:
    with _admin(db) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def database_drop(db: dict, name: str) -> None:
    with _admin(db) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def log(*parts) -> None:
    if not ARGS.json:
        print(*parts, file=sys.stderr, flush=True)


# --- phases ------------------------------------------------------------------------------

def embedding_phase(bases, queries) -> tuple[dict, "np.ndarray"]:
    import numpy as np
    from cards.embeddings import embed_query, embed_texts
    from http_load import load_average
    before = load_average()
    t0 = time.perf_counter()
    embed_texts(["warm up the model"])
    load_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    vectors = np.asarray(embed_texts([b.embed_text for b in bases]), dtype=np.float32)
    batch_s = time.perf_counter() - t0
    single, query = [], []
    embed_query("warm up the query model")
    for _ in range(ARGS.single_queries):
        q = queries.next()
        t0 = time.perf_counter()
        embed_texts([q])
        single.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        embed_query(q)                      # what recall runs: ONNX Runtime unless EMBEDDING_QUERY_MODEL=torch
        query.append((time.perf_counter() - t0) * 1000)
    from cards.embeddings import current_space
    return {"space": current_space(), "model_load_s": round(load_s, 1), "texts": len(bases), "batch_size": 64,
            "batch_seconds": round(batch_s, 1), "texts_per_s": round(len(bases) / batch_s, 1),
            "single_query_ms": stats(single), "query_embedder_ms": stats(query), "torch_threads": _torch_threads(),
            "load_average_before": before, "load_average_after": load_average()}, vectors


def _torch_threads():
    try:
        import torch
        return torch.get_num_threads()
    except ImportError:
        return None


# First match wins: the exact route's one statement also holds the aging and contradiction parts.
SQL_KINDS = (("WITH n AS MATERIALIZED", "exact_statement"), ("SET LOCAL", "set_local"),
             ("ORDER BY s.similarity", "index_scored"), ("NULLS LAST", "index_aging"),
             ("GROUP BY c.subject_id", "index_contradictions"))


def service_phase(world, queries) -> dict:
    from django.db import connection
    from cards.recall.query import query_vector, query_vectors_clear
    from cards.recall.routes import recall
    from http_load import load_average
    routes = ["exact", "index", None]
    names = {"exact": "exact", "index": "index", None: "auto"}
    total = {r: [] for r in names.values()}
    embed = {r: [] for r in names.values()}
    sql = {r: {} for r in names.values()}
    auto_routes: dict[str, int] = {}
    recalls, auto_recalls, short_index = [], [], 0
    current: dict = {}

    def timer(execute, sql_text, params, many, context):
        t0 = time.perf_counter()
        try:
            return execute(sql_text, params, many, context)
        finally:
            kind = next((k for mark, k in SQL_KINDS if mark in sql_text), "other")
            current[kind] = current.get(kind, 0.0) + (time.perf_counter() - t0) * 1000

    def one(q: str, route) -> tuple:
        query_vectors_clear()
        current.clear()
        t0 = time.perf_counter()
        query_vector(q)           # the embedding recall() would compute first; it then hits the cache
        t1 = time.perf_counter()
        found = recall(scope_ids=world.caller_scope_ids, query=q, k=ARGS.k, route=route)
        t2 = time.perf_counter()
        return found, (t2 - t0) * 1000, (t1 - t0) * 1000, dict(current)

    before = load_average()
    for i in range(ARGS.warmup):
        for route in routes:
            one(queries.next(), route)
    with connection.execute_wrapper(timer):
        for i in range(ARGS.queries):
            q = queries.next()
            got = {}
            for route in routes[i % 3:] + routes[:i % 3]:       # rotate the order: no route always goes first
                found, ms, embed_ms, parts = one(q, route)
                name = names[route]
                got[name] = found
                total[name].append(ms)
                embed[name].append(embed_ms)
                for kind, v in parts.items():
                    sql[name].setdefault(kind, []).append(v)
            chose = "memory" if got["auto"].memory else got["auto"].route
            auto_routes[chose] = auto_routes.get(chose, 0) + 1
            exact = [r.card_id for r in got["exact"].results]
            index = [r.card_id for r in got["index"].results]
            short_index += len(index) < len(exact)
            if exact:
                recalls.append(len(set(exact) & set(index)) / len(exact))
                auto_recalls.append(len(set(exact) & {r.card_id for r in got["auto"].results}) / len(exact))
    out = {"queries": ARGS.queries, "load_average_before": before, "load_average_after": load_average(),
           "auto_chose": auto_routes, "routes": {}}
    for name in total:
        rest = [t - e for t, e in zip(total[name], embed[name])]
        out["routes"][name] = {"total_ms": stats(total[name]), "embed_ms": stats(embed[name]),
                               "after_embed_ms": stats(rest),
                               "sql_ms_mean": {k: round(statistics.fmean(v), 2) for k, v in sql[name].items()},
                               "sql_ms_p95": {k: round(stats(v)["p95"], 2) for k, v in sql[name].items()}}
    out["recall_at_k"] = {"k": ARGS.k, "ordering": "score (similarity × decay), as the service returns",
                          "mean": round(statistics.fmean(recalls), 4) if recalls else None,
                          "min": round(min(recalls), 2) if recalls else None,
                          "perfect_share": round(sum(r == 1 for r in recalls) / len(recalls), 3) if recalls else None,
                          "index_returned_fewer": short_index, "queries": len(recalls),
                          "auto_mean": round(statistics.fmean(auto_recalls), 4) if auto_recalls else None}
    return out


HNSW_SQL = """SELECT c.id FROM cards_card c WHERE c.scope_id = ANY(%(scopes)s) AND c.superseded_at IS NULL
    AND c.embedding_space = %(space)s ORDER BY c.embedding <=> %(q)s::vector LIMIT %(fetch)s"""


def quality_phase(world, queries, n: int) -> dict:
    """Where index-route misses come from, on fresh queries: the HNSW fetch (k × OVERFETCH by
    similarity, the service's settings) against the exact top by similarity, and how much of the
    exact top k by score lies inside the exact top k × OVERFETCH by similarity at all."""
    from django.db import connection, transaction
    from cards.embeddings import current_space
    from cards.recall import index, routes
    from cards.recall.query import query_vector
    fetch = ARGS.k * index.OVERFETCH
    sim_recall, covered, route_recall = [], [], []
    plan = similarity_fetch_plan(world.caller_scope_ids, queries.next())
    for _ in range(n):
        q = queries.next()
        params = {"scopes": world.caller_scope_ids, "q": query_vector(q), "fetch": fetch, "space": current_space()}
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SET LOCAL enable_indexscan = off")   # the HNSW index is an index scan: off = exact
            cursor.execute(HNSW_SQL, params)
            exact = [row[0] for row in cursor.fetchall()]
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(f"SET LOCAL hnsw.iterative_scan = relaxed_order; SET LOCAL hnsw.ef_search = "
                           f"{index.EF_SEARCH}; SET LOCAL hnsw.max_scan_tuples = {index.MAX_SCAN_TUPLES}")
            cursor.execute(HNSW_SQL, params)
            hnsw = [row[0] for row in cursor.fetchall()]
        best = [r.card_id for r in routes.recall(scope_ids=world.caller_scope_ids, query=q, k=ARGS.k,
                                                    route="exact").results]
        if exact:
            sim_recall.append(len(set(exact) & set(hnsw)) / len(exact))
        via_index = [r.card_id for r in routes.recall(scope_ids=world.caller_scope_ids, query=q, k=ARGS.k,
                                                         route="index").results]
        if best:
            covered.append(len(set(best) & set(exact)) / len(best))
            route_recall.append(len(set(best) & set(via_index)) / len(best))
    return {"queries": n, "fetch": fetch, "similarity_fetch_plan": plan,
            "hnsw_fetch_recall_vs_exact_similarity": round(statistics.fmean(sim_recall), 4) if sim_recall else None,
            "exact_score_topk_inside_exact_similarity_fetch": round(statistics.fmean(covered), 4) if covered else None,
            "index_route_recall_same_queries": round(statistics.fmean(route_recall), 4) if route_recall else None}


def similarity_fetch_plan(scope_ids, query: str) -> str:
    """Which plan PostgreSQL picks for the index route's similarity fetch: the HNSW index, or (for a
    selective filter it estimates cheaper) the scope B-tree and a sort, which is exact."""
    from django.db import connection, transaction
    from cards.embeddings import current_space
    from cards.recall import index
    from cards.recall.query import query_vector
    params = {"scopes": scope_ids, "q": query_vector(query), "fetch": ARGS.k * index.OVERFETCH,
              "space": current_space()}
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"SET LOCAL hnsw.iterative_scan = relaxed_order; SET LOCAL hnsw.ef_search = "
                       f"{index.EF_SEARCH}; SET LOCAL hnsw.max_scan_tuples = {index.MAX_SCAN_TUPLES}")
        cursor.execute("EXPLAIN " + HNSW_SQL, params)
        text = "\n".join(row[0] for row in cursor.fetchall())
    return "hnsw" if "card_embedding_hnsw" in text else "scope b-tree + sort (exact)"


def broad_phase(world, queries, n: int) -> dict:
    """A broad read: the caller's 5 scopes and the next ARGS.broad_scopes - 5 (at 1M cards ~670 current cards
    a scope), where SQL's routing takes the index and the default answers from memory when it fits. Service
    only; latency of the SQL routes and of the default (also with its query embedded), and recall@k of the
    index and of the default against the exact scan."""
    from cards.recall import routes
    from cards.recall.query import query_vector, query_vectors_clear
    scope_ids = world.scope_ids[:ARGS.broad_scopes]
    from cards.models import Card
    candidates = Card.objects.filter(scope_id__in=scope_ids, superseded_at__isnull=True).count()
    plan = similarity_fetch_plan(scope_ids, queries.next())
    times = {"exact": [], "index": [], "auto": [], "auto, embedding included": []}
    recalls, auto_recalls, auto_routes = [], [], {}
    for _ in range(n):
        q = queries.next()
        found = {}
        for route in ("exact", "index", None):
            query_vectors_clear()
            query_vector(q)                      # the embedding is timed elsewhere
            t0 = time.perf_counter()
            found[route] = routes.recall(scope_ids=scope_ids, query=q, k=ARGS.k, route=route)
            times[route or "auto"].append((time.perf_counter() - t0) * 1000)
        # What a caller waits for: the query embedded too.
        query_vectors_clear()
        t0 = time.perf_counter()
        routes.recall(scope_ids=scope_ids, query=q, k=ARGS.k)
        times["auto, embedding included"].append((time.perf_counter() - t0) * 1000)
        chose = "memory" if found[None].memory else found[None].route
        auto_routes[chose] = auto_routes.get(chose, 0) + 1
        best = [r.card_id for r in found["exact"].results]
        if best:
            recalls.append(len(set(best) & {r.card_id for r in found["index"].results}) / len(best))
            auto_recalls.append(len(set(best) & {r.card_id for r in found[None].results}) / len(best))
    return {"scopes": len(scope_ids), "candidates": candidates, "queries": n, "similarity_fetch_plan": plan,
            "auto_chose": auto_routes, "ms_without_embedding": {k: stats(v) for k, v in times.items()},
            "recall_at_k": round(statistics.fmean(recalls), 4) if recalls else None,
            "auto_recall_at_k": round(statistics.fmean(auto_recalls), 4) if auto_recalls else None,
            "perfect_share": round(sum(r == 1 for r in recalls) / max(len(recalls), 1), 3)}


# --- report ----------------------------------------------------------------------------------

def main() -> int:
    from http_load import load_average, server_stop
    report = {"started_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
              "command": " ".join([".venv/bin/python", "bench/recall.py", *sys.argv[1:]]),
              "cpus": os.cpu_count(), "python": platform.python_version(), "database": ARGS.database,
              "config": {k: v for k, v in vars(ARGS).items()}, "load_average_start": load_average(), "sizes": []}
    servers: list = []
    status = 0

    def on_term(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")
    signal.signal(signal.SIGTERM, on_term)
    try:
        if not ARGS.reuse:
            database_create(ADMIN_DB, ARGS.database)
        django.setup()
        global seeding
        import recall_seed as seeding
        from django.core.management import call_command
        from django.db import connection
        from cards.models import Card
        from scopes.tokens import token_create
        import numpy as np
        log(f"migrating {ARGS.database} …")
        call_command("migrate", verbosity=0, interactive=False)
        with connection.cursor() as cursor:
            cursor.execute("SHOW server_version")
            report["postgres"] = cursor.fetchone()[0]
        rng = np.random.default_rng(ARGS.seed)
        queries = seeding.Queries(ARGS.seed)
        if ARGS.reuse:
            report["spaces"] = seeding.spaces_held(refuse_other=True)
            world = seeding.world_load()
            sizes = [Card.objects.count()]
        else:
            world = seeding.world_create(ARGS.scopes, ARGS.owners)
            sizes = ARGS.cards
        report["world"] = {"scopes": len(world.scope_ids), "owners": ARGS.owners,
                           "caller_scopes": len(world.caller_scope_ids), "seconds": world.seconds}
        _, world.token_raw = token_create(user=world.caller, name="recall bench", all_scopes=True)
        if not ARGS.reuse:
            bases = seeding.base_texts(rng, ARGS.base_texts, world.labels)
            log(f"embedding {len(bases)} card texts …")
            report["embedding"], base_vectors = embedding_phase(bases, queries)
        db_url = database_url(ADMIN_DB, ARGS.database)
        log_dir = tempfile.mkdtemp(prefix="bench-recall-")
        for n in sizes:
            size = {"cards": n}
            report["sizes"].append(size)
            if not ARGS.reuse:
                log(f"seeding {n:,} cards …")
                size["load_average_before_seed"] = load_average()
                size["seed"] = seeding.seed_cards(world, bases, base_vectors, n, ARGS.noise, ARGS.seed,
                                                  texts=ARGS.texts, sizes=ARGS.scope_sizes)
                size["load_average_after_seed"] = load_average()
                log(f"  {size['seed']}")
            if ARGS.cluster:
                from cards.management.commands.cards_cluster import ClusterRefused, cards_cluster
                log("  clustering by scope …")
                try:
                    size["cluster"] = cards_cluster()
                except ClusterRefused as refused:       # on Citus
                    size["cluster"] = str(refused)
                log(f"  {size['cluster']}")
            if ARGS.seed_only:
                report["spaces"] = seeding.spaces_held(refuse_other=True)
                continue
            log("  service …")
            size["service"] = service_phase(world, queries)
            size["quality"] = quality_phase(world, queries, min(ARGS.queries, 100))
            log("  broad read …")
            size["broad"] = broad_phase(world, queries, min(ARGS.queries, 100))
            size["in_process_request"] = request_phase(world, queries, min(ARGS.queries, 200), ARGS.k)
            log("  CPU by node …")
            size["cost"] = recall_cost.cost_phase(world, queries, min(ARGS.queries, 200),
                                                  world.scope_ids[:ARGS.broad_scopes], min(ARGS.queries, 50), ARGS.k)
            log("  HTTP …")
            size["http"] = http_phase(world, queries, db_url, log_dir, servers, ARGS, log)
            if ARGS.writes and not ARGS.reuse:
                log("  writes …")
                size["writes"] = recall_cost.write_phase(world, ARGS.writes, 25, ARGS.seed)
        report["verdicts"] = recall_report.verdicts(report)
    except BaseException as error:  # noqa: BLE001 - report, clean up, then fail
        report["error"] = f"{type(error).__name__}: {error}"
        status = 1
        import traceback
        traceback.print_exc()
    finally:
        for server in list(servers):
            server_stop(server)
        report["load_average_end"] = load_average()
        if ARGS.keep or ARGS.reuse:
            report["database_fate"] = f"kept: {ARGS.database}"
        else:
            try:
                from django.db import connections
                from memory_site.distribution import sessions_renew
                for conn in connections.all():
                    sessions_renew(conn)
            except Exception:  # noqa: BLE001 - the drop below forces them off anyway
                pass
            database_drop(ADMIN_DB, ARGS.database)
            report["database_fate"] = f"dropped: {ARGS.database}"
        if ARGS.out:
            Path(ARGS.out).write_text(json.dumps(report, indent=2, default=str))
        print(json.dumps(report, indent=2, default=str) if ARGS.json else recall_report.table(report))
    return status


if __name__ == "__main__":
    sys.exit(main())
