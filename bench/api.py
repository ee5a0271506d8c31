"""HTTP API benchmark: the agent endpoints through a real server, over a seeded database.

    .venv/bin/python bench/api.py [--cards 100000] [--scopes 50] [--seconds 10] [--json] [--keep]
    .venv/bin/python bench/api.py --cleanup RUN_ID|all

1. Seeds: throwaway users (usernames ``benchapi_<run id>_…``): one calling
   user and ``--owners`` others. The others create ``--scopes`` shared scopes
   (project / team / family, names ``benchapi_<run id>_scope…``); the caller
   is a plain member of ``--member-scopes`` of them and cannot see the rest.
   ``--cards`` card rows are written with ``card_remember_batch`` in chunks of
   ``--chunk`` drafts, each chunk from one writer over its scopes, on one
   monotonic clock: single-value states that supersede (history) or repeat
   (reinforce), a few back-dated ones, multi-value states, day-precision
   events with re-reported duplicates; a third about named people. Seeding
   stops when the scopes hold ``--cards`` rows (reinforcements and duplicates
   add no row, so more drafts than rows are sent). The seeding time is reported.
   Seeding does not run the embedder (it would dominate the run); with
   ``--vectors random`` (default) the rows of the caller's scopes then get a
   random vector in one UPDATE, so listed rows are as wide as real ones.
2. Starts gunicorn (``--workers 2``, sync workers) on 127.0.0.1 with a free
   port, DEBUG off and a rate limit high enough not to refuse anything; falls
   back to ``manage.py runserver --noreload`` when gunicorn is not installed.
   The server embeds written cards as the app is configured (without a Celery
   broker that is inline, in the request); ``--embed-on-write off`` sets
   ``EMBED_ON_WRITE=false`` for it, to see the API's own cost.
3. Measures, for each client concurrency in ``--clients`` (threads in this
   process, ``http.client`` keep-alive connections, bounded by ``--seconds``
   and a request count), after a short warm-up:
   * ``GET /healthz`` — the baseline: the same server and client doing almost
     nothing, measured first and again at the end;
   * ``GET /api/v1/cards/?scope=<caller's scope>&current=true`` — first page;
   * ``POST /api/v1/ask/`` — a question in plain words (ASK_QUESTIONS: answers, counts,
     when, time words, recall; English and Chinese) in one of the caller's scopes;
   * ``POST /api/v1/recall/`` — the same questions as recall queries;
   * ``POST /mcp/`` — the same recall as an MCP ``tools/call`` of a 2026-07-28
     client (the round trip an agent's MCP client makes: JSON-RPC in, the SDK's
     stateless transport, the tool, the REST view in process, JSON-RPC out);
   * ``POST /api/v1/cards/`` — one remember: new values that supersede, repeats
     that reinforce, multi-value states, events;
   * ``POST /api/v1/cards/bulk/`` — ``--bulk-size`` cards per call (own clock:
     ``--bulk-seconds``), each client thread on its own scopes.
   The load average is recorded before and after each measurement, and what a
   request cost in CPU (ms) by process tree: the web server (master and
   workers), the database server when it runs here, and this client. A shared
   machine moves the wall clock much more than the CPU, so an A/B of two
   checkouts compares the CPU.
4. Stops the server (always: try/finally) and deletes every row the run made
   (cards first — PROTECT foreign keys to entities, events only while
   ``memory_site.forgetting`` is on — then scopes, then users with what cascades
   from them: personal scopes, entities, memberships, grants, tokens) unless
   ``--keep``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import random
import secrets
import signal
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from sqlcleanup import raw_cascade  # noqa: E402  (bench/ is on sys.path when run as a script)

from cards.labels import registry  # noqa: E402
from cards.models import Card, Entity  # noqa: E402
from scopes.models import AgentToken, Scope, ScopeKind, User  # noqa: E402
from scopes.tokens import token_create  # noqa: E402

USERNAME_PREFIX = "benchapi_"
TARGETS = {"list_p95_ms": 20.0, "remember_p95_ms": 30.0, "bulk_cards_per_s": 3000.0, "ask_p95_ms": 25.0,
           "mcp_recall_p95_ms": 30.0}

# Questions as people put them to `ask` (issue 18), over what the workload writes: answers,
# counts, when, time words and plain recall, in English and Chinese; {name} is one of the
# scope's named people. A recall-form question embeds its words (the model's cost included).
ASK_QUESTIONS = [
    "Where do I live?", "Which company do I work for?", "What's {name}'s phone number?",
    "Where does {name} live?", "How many trips did I take this year?", "How many meals did {name} have last month?",
    "When did I last go on a trip?", "What did I do last weekend?", "What is {name}'s job title?",
    "我住在哪裡？", "{name}的電話是多少？", "今年我去了幾次旅行？", "What does {name} like?", "Does {name} speak Spanish?",
]

from api_workload import (  # noqa: E402  (bench/ is on sys.path when run as a script)
    SINGLE_ME, SINGLE_OTHER, MULTI, MULTI_ME, MULTI_OTHER, EVENTS, EVENTS_OTHER, single_value, World, world_create, seed_cards, seed_vectors, embedding_mode)


# --- the HTTP side ---------------------------------------------------------------------

class ApiPayloads:
    """Remember requests as an agent of the caller sends them: mostly new values
    (supersedes), some repeats (reinforce), multi-value states, events."""

    def __init__(self, rng: random.Random, names: dict[int, list[str]]) -> None:
        self.rng = rng
        self.names = names
        self.last: dict[tuple[int, str, str], str] = {}
        self.n = 0

    def card(self, scope_id: int, reference: dt.datetime | None = None) -> dict:
        rng = self.rng
        self.n += 1
        named = rng.random() < 0.3
        if named and rng.random() < 0.02:
            subject = f"Guest {rng.randint(1, 10_000)}"          # a first mention: creates an entity
        else:
            subject = rng.choice(self.names[scope_id]) if named else "me"
        who = subject if named else "Bench Caller"
        body: dict = {"scope": scope_id, "subject": subject,
                      "source": {"session": f"api-{self.n // 20}", "message": f"m{self.n}"}}
        if reference is not None:
            body["reference_time"] = reference.isoformat()
        roll = rng.random()
        if roll < 0.45:
            label = rng.choice(SINGLE_OTHER if named else SINGLE_ME)
            key = (scope_id, subject, label)
            if key in self.last and rng.random() < 0.2:
                value = self.last[key]
            else:
                value = single_value(label, rng, who)
            self.last[key] = value
            body.update(kind="state", label=label, value=value, text=f"{who}: {label.replace('_', ' ')} is {value}")
        elif roll < 0.75:
            label = rng.choice(MULTI_OTHER if named else MULTI_ME)
            value = rng.choice(MULTI[label])
            body.update(kind="state", label=label, value=value, text=f"{who}: {label} {value}")
        else:
            label = rng.choice(EVENTS_OTHER if named else list(EVENTS))
            value = EVENTS[label](rng, self.names[scope_id])
            day = (dt.date.today() - dt.timedelta(days=rng.randint(0, 20))).isoformat()
            body.update(kind="event", label=label, value=value, text=f"{who}: {value} on {day}", when=day)
        return body


from http_load import (  # noqa: E402  (bench/ is on sys.path when run as a script)
    SERVER_ENV, Server, expect, load_average, log_tail, run_load, server_start, server_stop)
from cpu_meter import CpuMeter  # noqa: E402


def cpu_per_request(spent: dict[str, float | None], requests: int) -> dict[str, float | None]:
    """CPU ms a request, by process tree: the web server (its master and workers), the database server
    (postmaster, backends, background work) and this client process."""
    return {name: None if ms is None or not requests else round(ms / requests, 3) for name, ms in spent.items()}


# --- the measurements ------------------------------------------------------------------

def measure(world: World, server: Server, args) -> dict:
    port, token = server.port, world.token_raw
    member_ids = [s.pk for s in world.member_scopes]
    results: dict[str, list[dict]] = {"healthz": [], "list": [], "ask": [], "recall": [], "mcp_recall": [],
                                      "remember": [], "bulk": []}
    levels = args.clients
    # CPU time by process tree: a shared machine's load moves the wall clock far more than it moves
    # what a request costs in CPU, so an A/B of two checkouts compares these.
    meter = CpuMeter()
    meter.nodes["web server"] = server.process.pid

    def healthz(t, i):
        return "GET", "/healthz", None, 1

    def listing(t, i):
        return "GET", f"/api/v1/cards/?scope={member_ids[(t + i) % len(member_ids)]}&current=true", None, 1

    def asking(t, i):
        scope_id = member_ids[(t + i) % len(member_ids)]
        names = world.names.get(scope_id) or ["me"]
        question = ASK_QUESTIONS[i % len(ASK_QUESTIONS)].format(name=names[(t + i) % len(names)])
        return "POST", "/api/v1/ask/", json.dumps({"scope": scope_id, "question": question}).encode(), 1

    def recall_query(t, i) -> dict:
        scope_id = member_ids[(t + i) % len(member_ids)]
        names = world.names.get(scope_id) or ["me"]
        return {"scope": scope_id, "query": ASK_QUESTIONS[i % len(ASK_QUESTIONS)].format(name=names[(t + i) % len(names)])}

    def recalling(t, i):
        return "POST", "/api/v1/recall/", json.dumps(recall_query(t, i)).encode(), 1

    def mcp_recalling(t, i):
        version = "2026-07-28"
        message = {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {
            "name": "recall", "arguments": recall_query(t, i),
            "_meta": {"io.modelcontextprotocol/protocolVersion": version,
                      "io.modelcontextprotocol/clientCapabilities": {}}}}
        headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": version,
                   "Mcp-Method": "tools/call", "Mcp-Name": "recall"}
        return "POST", "/mcp/", json.dumps(message).encode(), 1, headers

    remember_payloads = [ApiPayloads(random.Random(args.seed * 31 + t), world.names) for t in range(max(levels))]

    def remember(t, i):
        body = remember_payloads[t].card(member_ids[(t * 3 + i) % len(member_ids)])
        return "POST", "/api/v1/cards/", json.dumps(body).encode(), 1

    bulk_payloads = [ApiPayloads(random.Random(args.seed * 37 + t), world.names) for t in range(max(levels))]

    def bulk_of(size: int):
        def bulk(t, i):
            # Each thread on its own scopes, so concurrent batches do not queue on each other's timeline locks.
            own = member_ids[t % len(member_ids)::max(levels)] or member_ids
            scope_id = own[i % len(own)]
            # Message times 1 µs apart, ending now: later than anything this scope holds, so no card
            # takes the back-dated (careful, card-by-card) path unless the mix means it to.
            base = dt.datetime.now(dt.timezone.utc) - dt.timedelta(microseconds=size)
            cards = [bulk_payloads[t].card(scope_id, base + dt.timedelta(microseconds=k)) for k in range(size)]
            return "POST", "/api/v1/cards/bulk/", json.dumps({"cards": cards}).encode(), size
        return bulk

    plan = [
        ("healthz", healthz, expect((200,)), args.seconds, 200_000),
        ("list", listing, expect((200,), parse="page"), args.seconds, 200_000),
        ("ask", asking, expect((200,)), args.seconds, 200_000),
        ("recall", recalling, expect((200,)), args.seconds, 200_000),
        ("mcp_recall", mcp_recalling, expect((200,), parse="mcp"), args.seconds, 200_000),
        ("remember", remember, expect((200, 201), parse="one"), args.seconds, 50_000),
        ("bulk", bulk_of(args.bulk_size), expect((201,), parse="bulk", expect_items=args.bulk_size),
         args.bulk_seconds, 500),
    ]
    wanted = {"healthz", *args.endpoints.split(",")}
    for name, make, check, seconds, cap in [step for step in plan if step[0] in wanted]:
        # Warm-up (not counted): every worker has loaded the code and opened its database connection.
        if name == "bulk":
            run_load("bulk-warm", port, token, max(levels), 1.0, max(levels), bulk_of(20), expect((201,)))
        else:
            # Writes get longer: a worker's first embedding (when the app embeds on write) loads the model.
            # Writes and questions get longer: a worker's first embedding loads the model.
            run_load(f"{name}-warm", port, token, max(levels),
                     5.0 if name in ("remember", "ask", "recall", "mcp_recall") else 1.5, 400,
                     make, check)
        for clients in levels:
            before = meter.read()
            r = run_load(name, port, token, clients, seconds, cap, make, check)
            r["cpu_ms_per_request"] = cpu_per_request(meter.since(before), r["requests"])
            if name == "bulk":
                r["cards_per_second"] = round(r["items_ok"] / r["seconds"], 1)
                r["cards_per_call"] = args.bulk_size
            results[name].append(r)
            if not args.json:
                print(f"  {name:<9} {clients} client(s): {r['requests']} requests, "
                      f"{r['requests_per_second']}/s, p50 {r['latency_ms']['p50']} ms, "
                      f"p95 {r['latency_ms']['p95']} ms, errors {r['errors']}, "
                      f"load {r['load_average_before'][0]} → {r['load_average_after'][0]}", file=sys.stderr)
    # The baseline again at the end: how much the machine drifted during the run.
    r = run_load("healthz", port, token, levels[0], args.seconds, 200_000, healthz, expect((200,)))
    r["when"] = "end"
    results["healthz"].append(r)
    return results


# --- cleaning up ------------------------------------------------------------------------



def cleanup(prefix: str) -> dict:
    """Everything a run made: the cards in its scopes (first: PROTECT FKs to entities; events only
    while memory_site.forgetting is on), its shared scopes (entities, aliases, memberships, grants
    go with them), then its users (personal scopes, own entities, tokens, grants)."""
    started = time.perf_counter()
    user_ids = list(User.objects.filter(username__startswith=prefix).values_list("pk", flat=True))
    shared_ids = list(Scope.objects.filter(name__startswith=prefix).exclude(kind=ScopeKind.PERSONAL)
                      .values_list("pk", flat=True))
    personal_ids = list(Scope.objects.filter(owner_id__in=user_ids).values_list("pk", flat=True))
    scope_ids = shared_ids + personal_ids
    counts = {"users": len(user_ids), "scopes": len(scope_ids),
              "entities": Entity.objects.filter(scope_id__in=scope_ids).count(),
              "tokens": AgentToken.objects.filter(user_id__in=user_ids).count()}
    tables = set(connection.introspection.table_names())
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL memory_site.forgetting = 'on'")
        counts["cards"] = raw_cascade(cursor, Card, '"scope_id" = ANY(%s)', [scope_ids], tables)
        raw_cascade(cursor, Scope, '"id" = ANY(%s)', [shared_ids], tables)
        raw_cascade(cursor, User, f'"{User._meta.pk.column}" = ANY(%s)', [user_ids], tables)
    counts["seconds"] = round(time.perf_counter() - started, 1)
    return counts


# --- reporting ---------------------------------------------------------------------------

def verdicts(report: dict) -> dict:
    m = report.get("measurements", {})
    out = {}
    for key, name, field_name, limit, better in (
            ("list", "list p95 < 20 ms", "p95", TARGETS["list_p95_ms"], "lower"),
            ("remember", "remember p95 < 30 ms", "p95", TARGETS["remember_p95_ms"], "lower"),
            ("ask", "ask p95 < 25 ms", "p95", TARGETS["ask_p95_ms"], "lower"),
            ("mcp_recall", "MCP recall p95 < 30 ms", "p95", TARGETS["mcp_recall_p95_ms"], "lower")):
        out[name] = {str(r["clients"]): (r["latency_ms"][field_name] < limit) for r in m.get(key, [])}
    out["bulk ≥ 3,000 cards/s"] = {str(r["clients"]): r["cards_per_second"] >= TARGETS["bulk_cards_per_s"]
                                   for r in m.get("bulk", [])}
    return out


def ratios(report: dict) -> dict:
    m = report.get("measurements", {})
    base = {r["clients"]: r for r in m.get("healthz", []) if r.get("when") != "end"}
    out = {}
    for key in ("list", "ask", "recall", "mcp_recall", "remember"):
        for r in m.get(key, []):
            b = base.get(r["clients"])
            if b and b["latency_ms"]["p50"] and r["requests_per_second"]:
                out[f"{key}@{r['clients']}"] = {
                    "p50_vs_healthz": round(r["latency_ms"]["p50"] / b["latency_ms"]["p50"], 1),
                    "rps_vs_healthz": round(r["requests_per_second"] / b["requests_per_second"], 3)}
    return out


def table(report: dict) -> str:
    cfg, seed = report["config"], report.get("seed", {})
    lines = [f"memory-site API bench  run {report['run_id']}  {report['started_at']}",
             f"server: {report.get('server', '?')}; DEBUG off; PostgreSQL {report['postgres']}; "
             f"{report['cpus']} CPUs; Python {report['python']}"]
    if seed:
        lines.append(f"seed: {seed['rows']:,} cards ({seed['current_rows']:,} current) in {cfg['scopes']} scopes from "
                     f"{seed['drafts']:,} drafts in {seed['chunks']} chunks of ≤{seed['chunk_size']:,}: "
                     f"{seed['seconds']} s = {seed['rows_per_second']:,.0f} cards/s "
                     f"({seed['drafts_per_second']:,.0f} drafts/s); caller is a member of "
                     f"{cfg['member_scopes']} scopes holding {seed['caller_scope_rows_min_max']} cards each; "
                     f"message times {seed['message_times'][0]} … {seed['message_times'][1]}")
        lines.append("      outcomes " + ", ".join(f"{k} {v:,}" for k, v in seed["outcomes"].items()))
        if seed.get("vectors"):
            v = seed["vectors"]
            lines.append(f"      + random {v['dimensions']}-dim vectors on the {v['rows']:,} rows of the caller's scopes "
                         f"in {v['seconds']} s (not counted above)")
    emb = report.get("embedding", {})
    if emb.get("embed_on_write") is not None:
        where = ("inline, in the request (Celery eager: no CELERY_BROKER_URL)" if emb.get("inline_in_request")
                 else "queued to Celery" if emb.get("embed_on_write") else "off")
        lines.append(f"embedding on write: {where}; backend {emb.get('backend')}")
    m = report.get("measurements")
    if m:
        lines.append("")
        lines.append(f"{'endpoint':<38}{'cl':>3}{'reqs':>7}{'req/s':>9}{'p50':>9}{'p95':>9}{'p99':>9}{'max':>9}"
                     f"{'err':>5}   load 1-min")

        def ms(value) -> str:
            return f"{value:>9,.0f}" if value is not None and value >= 1000 else f"{value:>9}"
        rows = [("GET /healthz", "healthz"), ("GET /api/v1/cards/?scope&current=true", "list"),
                ("POST /api/v1/ask/ (plain words)", "ask"),
                ("POST /api/v1/recall/", "recall"),
                ("POST /mcp/ tools/call recall", "mcp_recall"),
                ("POST /api/v1/cards/ (one remember)", "remember"),
                (f"POST /api/v1/cards/bulk/ ×{cfg['bulk_size']}", "bulk")]
        for label, key in rows:
            for r in m.get(key, []):
                lat = r["latency_ms"]
                name = label + (" (end)" if r.get("when") == "end" else "")
                extra = f"   {r['cards_per_second']:,.0f} cards/s" if key == "bulk" else ""
                cpu = r.get("cpu_ms_per_request") or {}
                if cpu.get("web server") is not None:
                    extra += (f"   CPU ms/req: web {cpu['web server']}, db {cpu.get('server')}, "
                              f"client {cpu.get('bench process')}")
                lines.append(f"{name:<38}{r['clients']:>3}{r['requests']:>7}{r['requests_per_second']:>9}"
                             f"{ms(lat['p50'])}{ms(lat['p95'])}{ms(lat['p99'])}{ms(lat['max'])}{r['errors']:>5}"
                             f"   {r['load_average_before'][0]} → {r['load_average_after'][0]}{extra}")
        lines.append("(latencies in ms, measured in the client: connect + request + full response body)")
        for key in ("remember", "bulk"):
            for r in m.get(key, []):
                if r.get("outcomes"):
                    lines.append(f"  {key} @{r['clients']} outcomes: "
                                 + ", ".join(f"{k} {v}" for k, v in r["outcomes"].items()))
        lines.append("")
        lines.append("vs /healthz at the same concurrency: " + "; ".join(
            f"{k} p50 ×{v['p50_vs_healthz']}, req/s ×{v['rps_vs_healthz']}" for k, v in report["ratios"].items()))
        lines.append("targets: " + "; ".join(
            f"{name}: " + ", ".join(f"{c} cl {'ok' if ok else 'MISS'}" for c, ok in by.items())
            for name, by in report["targets"].items()))
        for key in ("list", "ask", "recall", "mcp_recall", "remember", "bulk"):
            for r in m.get(key, []):
                if r.get("error_examples"):
                    lines.append(f"  {key} @{r['clients']} errors: {r['error_examples']}")
    lines.append("")
    lines.append(f"load average at start / end: {report.get('load_average_start')} / {report.get('load_average_end')}")
    if "cleanup" in report:
        c = report["cleanup"]
        lines.append(f"cleaned up: {c['users']} users, {c['scopes']} scopes, {c['cards']:,} cards, {c['entities']} "
                     f"entities, {c['tokens']} tokens in {c['seconds']} s")
    elif report.get("kept"):
        lines.append(f"kept; remove later with: .venv/bin/python bench/api.py --cleanup {report['run_id']}")
    if report.get("error"):
        lines.append(f"FAILED: {report['error']}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, default=100_000, help="card rows to seed over the shared scopes")
    parser.add_argument("--scopes", type=int, default=50, help="shared scopes (project/team/family)")
    parser.add_argument("--member-scopes", type=int, default=10, help="of them, scopes the caller is a member of")
    parser.add_argument("--owners", type=int, default=10, help="other throwaway users owning the scopes")
    parser.add_argument("--chunk", type=int, default=2_000, help="drafts per card_remember_batch call when seeding")
    parser.add_argument("--seconds", type=float, default=10.0, help="per measurement (and per concurrency)")
    parser.add_argument("--bulk-seconds", type=float, default=30.0, help="per bulk measurement")
    parser.add_argument("--bulk-size", type=int, default=1_000, help="cards per bulk call (the API allows 1,000)")
    parser.add_argument("--endpoints", default="list,ask,recall,mcp_recall,remember,bulk",
                        help="which to measure, comma-separated (healthz always): list, ask, recall, mcp_recall, "
                             "remember, bulk")
    parser.add_argument("--clients", default="1,4",
                        help="comma-separated client thread counts, each measured in turn (default 1,4)")
    parser.add_argument("--server", choices=["gunicorn", "runserver"], default="gunicorn")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--vectors", choices=["random", "none"], default="random",
                        help="rows in the caller's scopes get a random vector (default: listed rows are as wide "
                             "as real ones) or none")
    parser.add_argument("--embed-on-write", choices=["app", "off"], default="app",
                        help="server: compute vectors on write as the app is configured (default), or "
                             "EMBED_ON_WRITE=false to measure the API without the embedder")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print the report as JSON instead of a table")
    parser.add_argument("--keep", action="store_true", help="keep the users, scopes, cards and token")
    parser.add_argument("--cleanup", metavar="RUN_ID",
                        help="only delete what a kept (or crashed) run made; 'all' removes every benchapi_ run")
    args = parser.parse_args()
    args.clients = sorted({int(c) for c in args.clients.split(",") if c.strip()})
    if not args.clients or min(args.clients) < 1 or max(args.clients) > 32:
        parser.error("--clients takes 1 to 32 threads")
    if not 1 <= args.member_scopes <= args.scopes or args.owners < 1:
        parser.error("need 1 ≤ --member-scopes ≤ --scopes and --owners ≥ 1")
    if not 1 <= args.bulk_size <= 1_000:
        parser.error("--bulk-size is 1 … 1,000 (the API's limit)")

    if args.cleanup:
        prefix = USERNAME_PREFIX if args.cleanup == "all" else f"{USERNAME_PREFIX}{args.cleanup}_"
        print(json.dumps(cleanup(prefix)))
        return 0
    # SIGTERM (and SIGHUP) unwind through the finally blocks: the server is stopped, the rows removed.
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda signum, frame: sys.exit(128 + signum))
    settings.DEBUG = False

    extra_env = {"EMBED_ON_WRITE": "false"} if args.embed_on_write == "off" else {}
    embedding = embedding_mode(extra_env)   # before this process turns it off for itself
    # Seeding is setup, not measured: the bench process stores cards without running the embedder
    # (--vectors puts placeholder vectors on them instead).
    settings.EMBED_ON_WRITE = "false"
    run_id = f"{dt.datetime.now():%Y%m%d%H%M%S}{secrets.token_hex(2)}"
    prefix = f"{USERNAME_PREFIX}{run_id}_"
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        pg_version = cursor.fetchone()[0]
    registry()
    report: dict = {
        "run_id": run_id, "started_at": dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "host": platform.node(), "cpus": os.cpu_count(), "python": platform.python_version(),
        "django": django.get_version(), "postgres": pg_version,
        "command": " ".join([".venv/bin/python", "bench/api.py", *sys.argv[1:]]),
        "config": {"cards": args.cards, "scopes": args.scopes, "member_scopes": args.member_scopes,
                   "owners": args.owners, "chunk": args.chunk, "seconds": args.seconds,
                   "bulk_seconds": args.bulk_seconds, "bulk_size": args.bulk_size, "clients": args.clients,
                   "server": args.server, "workers": args.workers, "seed": args.seed, "vectors": args.vectors,
                   "embed_on_write": args.embed_on_write, "server_env": {**SERVER_ENV, **extra_env}},
        "embedding": embedding,
        "load_average_start": load_average(),
    }
    server = None
    log_dir = tempfile.mkdtemp(prefix="bench-api-")
    status = 0
    try:
        world = world_create(prefix, run_id, args.scopes, args.member_scopes, args.owners, args.seed)
        if not args.json:
            print(f"seeding {args.cards:,} cards into {args.scopes} scopes …", file=sys.stderr)
        report["seed"] = seed_cards(world, args.cards, args.chunk, args.seed)
        if args.vectors == "random":
            report["seed"]["vectors"] = seed_vectors(world)
        report["load_average_after_seed"] = load_average()
        _, world.token_raw = token_create(user=world.caller, name="api bench", can_write=True, all_scopes=True)
        if not args.json:
            print(f"seeded in {report['seed']['seconds']} s; starting {args.server} …", file=sys.stderr)
        server = server_start(args.server, args.workers, log_dir, extra_env)
        report["server"] = server.version
        report["server_command"] = " ".join(server.command)
        report["measurements"] = measure(world, server, args)
        report["targets"] = verdicts(report)
        report["ratios"] = ratios(report)
    except BaseException as error:  # noqa: BLE001 - report, clean up, then fail
        report["error"] = f"{type(error).__name__}: {error}"
        status = 1
        if not isinstance(error, Exception):
            raise
    finally:
        if server is not None:
            server_stop(server)
            report["server_log_tail"] = log_tail(server.log_path, 600)
        report["load_average_end"] = load_average()
        if args.keep:
            report["kept"] = True
        else:
            connection.close()   # a fresh connection, whatever state the failure left
            report["cleanup"] = cleanup(prefix)
        print(json.dumps(report, indent=2) if args.json else table(report))
    return status


if __name__ == "__main__":
    sys.exit(main())
