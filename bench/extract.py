"""Extraction bench: messages/s through the `patterns` extractor, and the time
from ingest to a reviewable candidate on a real worker and broker.

    .venv/bin/python bench/extract.py [--messages 20000] [--runs 3] [--jobs 200]
        [--threads 4] [--seed 11] [--broker redis://127.0.0.1:6379/13] [--json] [--keep]
    .venv/bin/python bench/extract.py --cleanup RUN_ID|all
    .venv/bin/python bench/extract.py --quality [--extractor patterns|llm] [--corpus main|held-out]
        [--limit N] [--examples 20] [--json]

``--quality`` runs only the issue-21 quality report (bench/extract_quality.py):
precision and recall against the labelled corpus in tests/review/corpus/, for the
configured extractor, and for the LLM extractor too when LLM_URL is set.

1. **extract**: a deterministic chat corpus (bench/extract_messages.py: English,
   traditional and simplified Chinese, user and assistant turns, sessions of
   about 20 messages) goes through ``PatternExtractor().extract`` one session at
   a time, with no database writes; best of ``--runs`` passes over
   ``--messages`` messages. Reports messages/s, proposals/s, policy drops, what
   each kind of message became, and the SQL the extractor issued anyway.
2. **ingest (in-process)**: the same sessions through ``ingest_create`` in a
   transaction whose commit runs ``ingest_extract`` eagerly (``ingest_process``:
   candidates written), one throwaway user; messages/s and ms per session.
3. **worker**: ``celery -A memory_site worker --pool=solo -Q <run queue>`` as a
   subprocess on the Redis broker; ``--jobs`` sessions submitted one at a time,
   then by ``--threads`` threads at once. For each, the time from the commit of
   ``ingest_create`` to the first Candidate row of its job being visible to a
   separate connection (polled every 2 ms), and the worker's own time per job
   (``finished_at − started_at``).

Users are ``bench_extract_<run id>_<phase>``; everything the run created is
deleted in plain SQL at the end unless ``--keep``.
"""

from __future__ import annotations

import argparse
import collections
import datetime as dt
import json
import os
import platform
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")
os.environ.setdefault("EMBED_ON_WRITE", "0")
import django  # noqa: E402

django.setup()

import psycopg  # noqa: E402
from django.conf import settings  # noqa: E402
from django.core.exceptions import ImproperlyConfigured  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from kombu import pools as kombu_pools  # noqa: E402

from extract_messages import sessions as corpus_sessions  # noqa: E402  (bench/ is on sys.path)
from sqlcleanup import raw_cascade  # noqa: E402

from cards.labels import registry  # noqa: E402
from cards.models import Card  # noqa: E402
from memory_site.celery import app  # noqa: E402
from review.extract import extractor_for  # noqa: E402
from review.extract.base import ExtractContext, Message  # noqa: E402
from review.extract.patterns import PatternExtractor  # noqa: E402
from review.models import Candidate, IngestJob  # noqa: E402
from review.services.ingest import ingest_create  # noqa: E402
from scopes.models import Scope, User  # noqa: E402

USERNAME_PREFIX = "bench_extract_"
POLL_SECONDS = 0.002
JOB_TIMEOUT = 120.0


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def spread(ms: list[float]) -> dict:
    if not ms:
        return {}
    return {"n": len(ms), "p50": round(percentile(ms, 50), 2), "p95": round(percentile(ms, 95), 2),
            "p99": round(percentile(ms, 99), 2), "max": round(max(ms), 2), "mean": round(sum(ms) / len(ms), 2)}


def build_corpus(seed: int, messages: int) -> list[tuple[str, str, list[tuple[dict, str]]]]:
    return list(corpus_sessions(seed, messages))


# --- 1. the extractor alone -------------------------------------------------------------

def run_extract(corpus, runs: int) -> dict:
    context = ExtractContext(known_labels=sorted({lb.key for lb in registry().values()}), known_entities=[],
                             time_zone="Europe/Berlin")
    batches = [[Message(id=m["id"], role=m["role"], text=m["text"], at=m["at"]) for m, _ in turns]
               for _, _, turns in corpus]
    category = {m["id"]: cat for _, _, turns in corpus for m, cat in turns}
    extractor = PatternExtractor()
    for batch in batches[:20]:  # warm: regex caches, the label registry
        extractor.extract(batch, context)
    statements: list[str] = []

    def count(execute, sql, params, many, ctx):
        statements.append(sql.split()[0].upper() + " " + ("cards_label/similarity" if "similarity" in sql else ""))
        return execute(sql, params, many, ctx)

    passes = []
    results = None
    for run in range(runs):
        with connection.execute_wrapper(count) if run == 0 else _nothing():
            started = time.perf_counter()
            out = [extractor.extract(batch, context) for batch in batches]
            passes.append(time.perf_counter() - started)
        results = results or out
    n = sum(len(b) for b in batches)
    best = min(passes)
    proposals = sum(len(r.proposals) for r in results)
    dropped = collections.Counter(d.rule for r in results for d in r.dropped)
    # What each kind of message became (first pass).
    by_cat: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for cat in category.values():
        by_cat[cat]["messages"] += 1
    hit: dict[str, set] = collections.defaultdict(set)
    for r in results:
        for p in r.proposals:
            by_cat[category[p.message_id]]["proposals"] += 1
            if p.explicit:
                by_cat[category[p.message_id]]["explicit"] += 1
            hit[category[p.message_id]].add(p.message_id)
        for d in r.dropped:
            by_cat[category[d.message_id]]["dropped_clauses"] += 1
    for cat, ids in hit.items():
        by_cat[cat]["with_proposal"] = len(ids)
    rules = collections.Counter(p.rule for r in results for p in r.proposals)
    return {
        "messages": n, "sessions": len(batches), "runs": runs,
        "seconds": [round(s, 4) for s in passes], "best_seconds": round(best, 4),
        "messages_per_second": round(n / best), "proposals": proposals,
        "proposals_per_second": round(proposals / best),
        "us_per_message": round(best / n * 1e6, 2),
        "dropped": sum(dropped.values()), "dropped_by_rule": dict(dropped.most_common()),
        "by_category": {cat: dict(c) for cat, c in sorted(by_cat.items())},
        "rules": dict(rules.most_common()),
        "sql_during_first_pass": dict(collections.Counter(statements)),
    }


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


# --- 2. ingest in-process (eager) -----------------------------------------------------

def as_ingest(turns) -> list[dict]:
    return [dict(m) for m, _ in turns]


def run_inprocess(corpus, user: User) -> dict:
    app.conf.task_always_eager = True
    scope = user.personal_scope
    per_session, create_ms, process_ms = [], [], []
    started = time.perf_counter()
    for session, _, turns in corpus:
        marks: dict = {}
        t0 = time.perf_counter()
        with transaction.atomic():
            transaction.on_commit(lambda: marks.setdefault("commit", time.perf_counter()))
            ingest_create(scope=scope, actor=user, session=session, messages=as_ingest(turns))
        t1 = time.perf_counter()  # the eager task ran in the commit hook
        per_session.append((t1 - t0) * 1000)
        create_ms.append((marks["commit"] - t0) * 1000)
        process_ms.append((t1 - marks["commit"]) * 1000)
    elapsed = time.perf_counter() - started
    n = sum(len(t) for _, _, t in corpus)
    jobs = IngestJob.objects.filter(scope=scope)
    tenth = max(1, len(per_session) // 10)
    return {
        "messages": n, "sessions": len(corpus), "seconds": round(elapsed, 2),
        "messages_per_second": round(n / elapsed, 1), "sessions_per_second": round(len(corpus) / elapsed, 1),
        "ms_per_session": spread(per_session), "ingest_create_ms": spread(create_ms),
        "ingest_process_ms": spread(process_ms),
        "process_ms_first_tenth_mean": round(sum(process_ms[:tenth]) / tenth, 2),
        "process_ms_last_tenth_mean": round(sum(process_ms[-tenth:]) / tenth, 2),
        "jobs_done": jobs.filter(status="done").count(), "jobs_failed": jobs.filter(status="failed").count(),
        "candidates": Candidate.objects.filter(scope=scope).count(),
    }


# --- 3. a real worker on the broker ---------------------------------------------------------

def _reset_pool() -> None:
    # Producers are pooled per broker URL: drop them so the next send uses the current one.
    if app._pool is not None:
        app._pool.force_close_all()
        app._pool = None
    app.amqp._producer_pool = None
    kombu_pools.reset()


def database_url() -> str:
    db = connection.settings_dict
    host = quote(db["HOST"] or "127.0.0.1", safe="")
    auth = quote(db["USER"] or "", safe="") + (f":{quote(db['PASSWORD'], safe='')}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{host}:{db['PORT'] or 5432}/{db['NAME']}"


def poll_connection() -> psycopg.Connection:
    db = connection.settings_dict
    return psycopg.connect(host=db["HOST"] or None, port=db["PORT"] or None, dbname=db["NAME"],
                           user=db["USER"] or None, password=db["PASSWORD"] or None, autocommit=True)


def worker_start(broker: str, queue: str, log: Path) -> subprocess.Popen:
    env = {**os.environ, "DATABASE_URL": database_url(), "CELERY_BROKER_URL": broker, "CELERY_QUEUE": queue,
           "EXTRACTOR": "patterns", "EMBED_ON_WRITE": "false", "DJANGO_DEBUG": "false",
           "DJANGO_SECRET_KEY": os.environ.get("DJANGO_SECRET_KEY") or secrets.token_urlsafe(40)}
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "memory_site", "worker", "--pool=solo", "-Q", queue,
         "--without-mingle", "--without-gossip", "--loglevel=INFO"],
        cwd=ROOT, env=env, stdout=log.open("ab"), stderr=subprocess.STDOUT, start_new_session=True)


def worker_stop(worker: subprocess.Popen) -> None:
    if worker.poll() is None:
        os.killpg(worker.pid, signal.SIGTERM)
        try:
            worker.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait(10)


def submit(user: User, session: str, turns, poll: psycopg.Connection) -> dict:
    """One job: ingest_create, commit, and poll until its first candidate is visible."""
    marks: dict = {}
    with transaction.atomic():
        transaction.on_commit(lambda: marks.setdefault("commit", time.perf_counter()))
        job = ingest_create(scope=user.personal_scope, actor=user, session=session, messages=as_ingest(turns))
    published = time.perf_counter()  # the commit hooks ran: ours, then the task's publish to Redis
    deadline = published + JOB_TIMEOUT
    sql = f'SELECT EXISTS (SELECT 1 FROM "{Candidate._meta.db_table}" WHERE job_id = %s)'
    while True:
        if poll.execute(sql, [job.pk]).fetchone()[0]:
            seen = time.perf_counter()
            break
        if time.perf_counter() > deadline:
            return {"job": job.pk, "timeout": True}
        time.sleep(POLL_SECONDS)
    return {"job": job.pk, "latency_ms": (seen - marks["commit"]) * 1000,
            "publish_ms": (published - marks["commit"]) * 1000}


def run_submissions(user: User, work: list, threads: int) -> dict:
    results: list[dict] = []
    lock = threading.Lock()
    pending = iter(work)

    def loop():
        poll = poll_connection()
        try:
            while True:
                with lock:
                    item = next(pending, None)
                if item is None:
                    return
                session, _, turns = item
                out = submit(user, session, turns, poll)
                with lock:
                    results.append(out)
        finally:
            poll.close()
            connection.close()

    started = time.perf_counter()
    if threads == 1:
        loop()
    else:
        pool = [threading.Thread(target=loop) for _ in range(threads)]
        for t in pool:
            t.start()
        for t in pool:
            t.join()
    elapsed = time.perf_counter() - started
    ok = [r for r in results if not r.get("timeout")]
    ids = [r["job"] for r in results]
    work_ms, wait_ms = [], []
    for started_at, finished_at, created_at in IngestJob.objects.filter(pk__in=ids).values_list(
            "started_at", "finished_at", "created_at"):
        if started_at and finished_at:
            work_ms.append((finished_at - started_at).total_seconds() * 1000)
            wait_ms.append((started_at - created_at).total_seconds() * 1000)
    statuses = collections.Counter(IngestJob.objects.filter(pk__in=ids).values_list("status", flat=True))
    return {
        "threads": threads, "jobs": len(results), "timeouts": len(results) - len(ok), "seconds": round(elapsed, 2),
        "jobs_per_second": round(len(results) / elapsed, 1),
        "messages_per_second": round(sum(len(t) for _, _, t in work) / elapsed, 1),
        "commit_to_candidate_ms": spread([r["latency_ms"] for r in ok]),
        "publish_ms": spread([r["publish_ms"] for r in ok]),
        "worker_job_ms": spread(work_ms), "created_to_started_ms": spread(wait_ms),
        "job_status": dict(statuses),
    }


def run_worker(corpus, user: User, args, run_id: str) -> dict:
    queue = f"bench-extract-{run_id}"
    saved = {key: app.conf.get(key) for key in ("broker_url", "task_always_eager", "task_default_queue")}
    log = Path(tempfile.gettempdir()) / f"bench-extract-{run_id}-worker.log"
    out: dict = {"pool": "solo", "concurrency": 1, "queue": queue, "broker": args.broker,
                 "poll_ms": POLL_SECONDS * 1000}
    worker = worker_start(args.broker, queue, log)
    try:
        app.conf.update(broker_url=args.broker, task_always_eager=False, task_default_queue=queue)
        _reset_pool()
        deadline = time.monotonic() + 90
        while " ready." not in log.read_text(errors="replace"):
            if worker.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the worker did not start:\n" + log.read_text(errors="replace")[-3000:])
            time.sleep(0.1)
        warm = run_submissions(user, corpus[:5], 1)  # connections, imports, registry in the worker
        out["warmup_jobs"] = warm["jobs"]
        rest = corpus[5:]
        one, many = rest[:args.jobs], rest[args.jobs:2 * args.jobs]
        out["load_before_sequential"] = load()
        out["sequential"] = run_submissions(user, one, 1)
        out["load_after_sequential"] = load()
        out["concurrent"] = run_submissions(user, many, args.threads)
        out["load_after_concurrent"] = load()
    finally:
        worker_stop(worker)
        app.conf.update(saved)
        _reset_pool()
        _forget_queue(args.broker, queue)
    out["worker_log"] = str(log)
    return out


def _forget_queue(broker: str, queue: str) -> None:
    try:
        import redis

        client = redis.Redis.from_url(broker)
        client.delete(queue, f"_kombu.binding.{queue}", f"_kombu.binding_permanent.{queue}")
        client.close()
    except Exception:  # noqa: BLE001 - a left-over empty key is harmless
        pass


# --- setting up and cleaning up ---------------------------------------------------------

def user_create(name: str) -> User:
    return User.objects.create_user(username=name, display_name="Extract bench", time_zone="Europe/Berlin")


def cleanup(prefix: str) -> dict:
    """Cards first (PROTECT to entities; events need forgetting on), then
    candidates and jobs, then the users with their personal scopes."""
    started = time.perf_counter()
    user_ids = list(User.objects.filter(username__startswith=prefix).values_list("pk", flat=True))
    scope_ids = list(Scope.objects.filter(owner_id__in=user_ids).values_list("pk", flat=True))
    tables = set(connection.introspection.table_names())
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL memory_site.forgetting = 'on'")
        cards = raw_cascade(cursor, Card, '"scope_id" = ANY(%s)', [scope_ids], tables)
        candidates = raw_cascade(cursor, Candidate, '"scope_id" = ANY(%s)', [scope_ids], tables)
        jobs = raw_cascade(cursor, IngestJob, '"scope_id" = ANY(%s)', [scope_ids], tables)
        users = raw_cascade(cursor, User, f'"{User._meta.pk.column}" = ANY(%s)', [user_ids], tables)
    return {"users": users, "scopes": len(scope_ids), "cards": cards, "candidates": candidates, "jobs": jobs,
            "seconds": round(time.perf_counter() - started, 2)}


# --- reporting --------------------------------------------------------------------------

def _lat(name: str, s: dict) -> str:
    if not s:
        return f"  {name:<30} —"
    return (f"  {name:<30} p50 {s['p50']:>8}  p95 {s['p95']:>8}  p99 {s['p99']:>8}  max {s['max']:>8}"
            f"  (n {s['n']})")


def table(report: dict) -> str:
    cfg = report["config"]
    lines = [f"memory-site extraction bench  run {report['run_id']}  {report['started_at']}  commit {report['commit']}",
             f"{report['cpus']} CPUs, Python {report['python']}, PostgreSQL {report['postgres']}, "
             f"seed {cfg['seed']}", ""]
    e = report.get("extract")
    if e:
        lines.append(f"1. PatternExtractor.extract alone (no DB writes): {e['messages']} messages in "
                     f"{e['sessions']} sessions, best of {e['runs']} ({', '.join(map(str, e['seconds']))} s)")
        lines.append(f"   {e['messages_per_second']} messages/s ({e['us_per_message']} µs each), "
                     f"{e['proposals']} proposals = {e['proposals_per_second']} proposals/s, "
                     f"{e['dropped']} clauses dropped by the policy {e['dropped_by_rule']}")
        lines.append(f"   {'category':<11}{'messages':>9}{'with prop.':>11}{'proposals':>10}{'explicit':>9}"
                     f"{'dropped':>9}")
        for cat, c in e["by_category"].items():
            lines.append(f"   {cat:<11}{c.get('messages', 0):>9}{c.get('with_proposal', 0):>11}"
                         f"{c.get('proposals', 0):>10}{c.get('explicit', 0):>9}{c.get('dropped_clauses', 0):>9}")
        lines.append(f"   SQL issued by the extractor in the first pass: {e['sql_during_first_pass'] or 'none'}")
        lines.append(f"   load {e['load_before']} → {e['load_after']}")
        lines.append("")
    i = report.get("inprocess")
    if i:
        lines.append(f"2. ingest_create + eager ingest_process (candidates written): {i['messages']} messages, "
                     f"{i['sessions']} sessions in {i['seconds']} s")
        lines.append(f"   {i['messages_per_second']} messages/s, {i['sessions_per_second']} sessions/s; "
                     f"{i['candidates']} candidates; jobs done {i['jobs_done']}, failed {i['jobs_failed']}")
        lines.append(_lat("ms per session", i["ms_per_session"]))
        lines.append(_lat("  of which ingest_create+commit", i["ingest_create_ms"]))
        lines.append(_lat("  of which ingest_process", i["ingest_process_ms"]))
        lines.append(f"   ingest_process mean ms, first tenth of sessions {i['process_ms_first_tenth_mean']}, "
                     f"last tenth {i['process_ms_last_tenth_mean']}")
        lines.append(f"   load {i['load_before']} → {i['load_after']}")
        lines.append("")
    w = report.get("worker")
    if w:
        lines.append(f"3. real worker: celery --pool={w['pool']} (concurrency {w['concurrency']}), broker {w['broker']}, "
                     f"queue {w['queue']}; poll every {w['poll_ms']} ms from a separate connection")
        for key, title in (("sequential", "one at a time"), ("concurrent", "threads submitting")):
            if key not in w:
                continue
            r = w[key]
            lines.append(f"   {title} ({r['threads']} thread{'s' if r['threads'] > 1 else ''}): {r['jobs']} jobs "
                         f"in {r['seconds']} s = {r['jobs_per_second']} jobs/s ({r['messages_per_second']} msg/s), "
                         f"timeouts {r['timeouts']}, status {r['job_status']}")
            lines.append(_lat("commit → candidate visible ms", r["commit_to_candidate_ms"]))
            lines.append(_lat("worker finished−started ms", r["worker_job_ms"]))
            lines.append(_lat("job created → started ms", r["created_to_started_ms"]))
            lines.append(_lat("publish (on_commit → sent) ms", r["publish_ms"]))
        lines.append(f"   load before/after sequential {w.get('load_before_sequential')} → "
                     f"{w.get('load_after_sequential')}, after concurrent {w.get('load_after_concurrent')}")
        lines.append("")
    if "cleanup" in report:
        c = report["cleanup"]
        lines.append(f"cleaned up: {c['users']} users, {c['scopes']} scopes, {c['jobs']} jobs, "
                     f"{c['candidates']} candidates, {c['cards']} cards in {c['seconds']} s")
    elif report.get("kept"):
        lines.append(f"kept; remove later with: .venv/bin/python bench/extract.py --cleanup {report['run_id']}")
    return "\n".join(lines)


def quality_main(args) -> None:
    """The issue-21 report: the configured extractor, then the LLM one too when LLM_URL is set."""
    import extract_quality  # noqa: PLC0415  (bench/ is on sys.path; loads the corpus only when asked)

    names = [args.extractor or extractor_for().name]
    if os.environ.get("LLM_URL") and "llm" not in names:
        names.append("llm")
    reports = []
    for name in names:
        try:
            extracted = extract_quality.run(name, corpus=args.corpus, limit=args.limit)
            where = "tests/review/corpus/heldout (held out)" if args.corpus == "held-out" else "tests/review/corpus"
            reports.append(extract_quality.report(*extracted, examples=args.examples) | {"corpus": where})
        except ImproperlyConfigured as refused:  # e.g. LLM_URL without LLM_MODEL
            reports.append({"extractor": name, "error": str(refused)})
    if args.json:
        print(json.dumps(reports, indent=2, ensure_ascii=False))
        return
    print("\n\n".join(f"{r['extractor']}: {r['error']}" if "error" in r else extract_quality.table(r)
                       for r in reports))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=20_000, help="messages in the extractor corpus")
    parser.add_argument("--runs", type=int, default=3, help="passes of the extractor; the best counts")
    parser.add_argument("--ingest-messages", type=int, default=None,
                        help="messages through ingest in-process (default: the same corpus; 0 skips)")
    parser.add_argument("--jobs", type=int, default=200, help="sessions per worker phase (0 skips the worker)")
    parser.add_argument("--threads", type=int, default=4, help="submitting threads in the concurrent phase")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--broker", default="redis://127.0.0.1:6379/13")
    parser.add_argument("--json", action="store_true", help="print the report as JSON instead of a table")
    parser.add_argument("--keep", action="store_true", help="keep the users, jobs and candidates")
    parser.add_argument("--cleanup", metavar="RUN_ID", help="only delete what a kept or crashed run left; 'all'")
    parser.add_argument("--quality", action="store_true",
                        help="only the quality report against tests/review/corpus (bench/extract_quality.py)")
    parser.add_argument("--extractor", default=None,
                        help="with --quality: patterns or llm (default: the configured one); LLM_URL adds llm")
    parser.add_argument("--examples", type=int, default=20, help="with --quality: wrong and missed shown")
    parser.add_argument("--corpus", choices=["main", "held-out"], default="main",
                        help="with --quality: the corpus, or the held-out one written apart from the rules")
    parser.add_argument("--limit", type=int, default=None,
                        help="with --quality: only the first N messages of each corpus file (a slow model)")
    args = parser.parse_args()

    if args.quality:
        quality_main(args)
        return
    if args.cleanup:
        prefix = USERNAME_PREFIX if args.cleanup == "all" else f"{USERNAME_PREFIX}{args.cleanup}_"
        print(json.dumps(cleanup(prefix)))
        return
    settings.DEBUG = False
    run_id = f"{dt.datetime.now():%Y%m%d%H%M%S}{secrets.token_hex(2)}"
    prefix = f"{USERNAME_PREFIX}{run_id}_"
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        pg_version = cursor.fetchone()[0]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    registry()
    ingest_n = args.messages if args.ingest_messages is None else args.ingest_messages
    report: dict = {
        "run_id": run_id, "started_at": dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "commit": commit, "cpus": os.cpu_count(), "python": platform.python_version(), "postgres": pg_version,
        "config": {"messages": args.messages, "runs": args.runs, "ingest_messages": ingest_n, "jobs": args.jobs,
                   "threads": args.threads, "seed": args.seed, "broker": args.broker},
    }
    try:
        corpus = build_corpus(args.seed, args.messages)
        before = load()
        report["extract"] = run_extract(corpus, args.runs)
        report["extract"].update(load_before=before, load_after=load())
        if ingest_n:
            ingest_corpus = corpus if ingest_n == args.messages else build_corpus(args.seed, ingest_n)
            before = load()
            report["inprocess"] = run_inprocess(ingest_corpus, user_create(f"{prefix}p"))
            report["inprocess"].update(load_before=before, load_after=load())
        if args.jobs:
            # Sessions of their own (another seed), so the worker's scope starts empty.
            worker_corpus = build_corpus(args.seed + 1, (2 * args.jobs + 5) * 24)
            report["worker"] = run_worker(worker_corpus, user_create(f"{prefix}w"), args, run_id)
    finally:
        if args.keep:
            report["kept"] = True
        else:
            report["cleanup"] = cleanup(prefix)
    print(json.dumps(report, indent=2, ensure_ascii=False) if args.json else table(report))


if __name__ == "__main__":
    main()
