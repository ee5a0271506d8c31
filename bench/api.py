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
   * ``POST /api/v1/cards/`` — one remember: new values that supersede, repeats
     that reinforce, multi-value states, events;
   * ``POST /api/v1/cards/bulk/`` — ``--bulk-size`` cards per call (own clock:
     ``--bulk-seconds``), each client thread on its own scopes.
   The load average is recorded before and after each measurement.
4. Stops the server (always: try/finally) and deletes every row the run made
   (cards first — PROTECT foreign keys to entities, events only while
   ``memory_site.forgetting`` is on — then scopes, then users with what cascades
   from them: personal scopes, entities, memberships, grants, tokens) unless
   ``--keep``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import http.client
import importlib.util
import json
import os
import platform
import random
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.db import OperationalError, connection, transaction  # noqa: E402
from sqlcleanup import raw_cascade  # noqa: E402  (bench/ is on sys.path when run as a script)

from cards.drafts import CardDraft  # noqa: E402
from cards.labels import registry  # noqa: E402
from cards.models import Card, Entity  # noqa: E402
from cards.services import card_remember_batch  # noqa: E402
from scopes.models import AgentToken, Scope, ScopeKind, User  # noqa: E402
from scopes.services import membership_set, scope_create  # noqa: E402
from scopes.tokens import token_create  # noqa: E402

USERNAME_PREFIX = "benchapi_"
HOST = "127.0.0.1"
OUTCOMES = ("inserted", "superseded", "reinforced", "duplicate")
TARGETS = {"list_p95_ms": 20.0, "remember_p95_ms": 30.0, "bulk_cards_per_s": 3000.0}
SERVER_ENV = {"DJANGO_DEBUG": "false", "DJANGO_SECRET_KEY": "bench", "DJANGO_ALLOWED_HOSTS": HOST,
              "API_RATE_LIMIT": "1000000/min"}

# --- the workload --------------------------------------------------------------------

CITIES = ["Berlin", "Taipei", "Lisbon", "Kyoto", "Toronto", "Oslo", "Nairobi", "Lima", "Porto", "Seoul",
          "Austin", "Lyon", "Krakow", "Dublin", "Hanoi"]
SINGLE_VALUES = {
    "city": CITIES,
    "employer": ["Acme Corp", "Globex", "Initech", "Umbrella Health", "Stark Industries", "Hooli",
                 "Vandelay Imports", "Tyrell", "Cyberdyne", "Wonka Foods"],
    "job_title": ["software engineer", "senior engineer", "product manager", "designer", "data analyst",
                  "team lead", "nurse", "teacher", "accountant", "architect", "researcher", "consultant"],
    "browser": ["Firefox", "Chrome", "Safari", "Edge", "Brave", "Vivaldi"],
    "diet": ["vegetarian", "vegan", "pescatarian", "omnivore", "keto", "flexitarian"],
    "car": ["Toyota Corolla", "VW Golf", "Tesla Model 3", "Honda Civic", "Skoda Octavia", "Kia Niro"],
    "school": ["TU Berlin", "NTU", "University of Lisbon", "Kyoto University", "Open University"],
    "time_zone": ["UTC", "Europe/Berlin", "Asia/Taipei", "America/New_York", "Europe/Lisbon"],
}
SINGLE_ME = ["address", "city", "employer", "job_title", "phone", "email", "browser", "diet", "car", "school",
             "time_zone"]
SINGLE_OTHER = ["city", "employer", "job_title", "phone", "diet"]
MULTI = {
    "skill": ["python", "sql", "cooking", "public speaking", "woodworking", "photography", "negotiation", "rust",
              "first aid", "sailing", "excel", "welding", "bookkeeping", "ux research", "go", "django",
              "video editing", "translation", "gardening", "swimming"],
    "interest": ["astronomy", "jazz", "history", "birdwatching", "architecture", "philosophy", "climate",
                 "board games", "poetry", "urbanism", "cycling", "economics", "robotics", "ceramics"],
    "language": ["English", "German", "Mandarin", "Portuguese", "Japanese", "Spanish", "French", "Korean"],
    "hobby": ["running", "climbing", "chess", "painting", "fishing", "yoga", "drumming", "surfing", "hiking",
              "embroidery", "bouldering", "home brewing"],
    "likes": ["dark chocolate", "spicy ramen", "rainy days", "old films", "espresso", "sci-fi novels",
              "thai curry", "podcasts", "vinyl records", "matcha", "sourdough", "cats", "road trips", "sushi"],
    "pet": ["a cat called Miso", "a dog called Rex", "two goldfish", "a parrot called Kiwi", "a gecko"],
    "topic": ["roadmap", "hiring", "budget", "onboarding", "release plan", "security review", "vacation plan",
              "renovation", "school run", "pricing", "migration", "on-call"],
}
MULTI_ME = list(MULTI)
MULTI_OTHER = ["likes", "hobby", "language", "pet", "skill"]
EVENTS = {
    "meeting": lambda r, p: f"{r.choice(['1:1', 'planning', 'review', 'sync', 'retro'])} with {r.choice(p)}",
    "meal": lambda r, p: f"{r.choice(['lunch', 'dinner', 'brunch'])} with {r.choice(p)}",
    "trip": lambda r, p: f"trip to {r.choice(CITIES)}",
    "visit": lambda r, p: f"visit to {r.choice(CITIES)}",
    "purchase": lambda r, p: f"bought {r.choice(['a bike', 'a laptop', 'a sofa', 'a tent', 'a phone', 'a drill'])}",
    "decision": lambda r, p: f"decided on {r.choice(MULTI['topic'])}",
    "milestone": lambda r, p: f"{r.choice(['shipped', 'started', 'finished'])} {r.choice(MULTI['topic'])}",
    "appointment": lambda r, p: f"{r.choice(['dentist', 'doctor', 'haircut', 'car service'])} appointment",
    "party": lambda r, p: f"{r.choice(['birthday', 'farewell', 'housewarming'])} party for {r.choice(p)}",
}
EVENTS_OTHER = ["meal", "visit", "trip", "party", "meeting"]
NAMES = ["Anna", "Ben", "Chloe", "Priya", "Uncle Tom", "Grandma Rose", "Dev", "Marta", "Kenji", "Lena", "Omar",
         "Sofia", "Mum", "Dad"]
SCOPE_KINDS = [ScopeKind.PROJECT, ScopeKind.TEAM, ScopeKind.FAMILY]

P_SINGLE, P_MULTI = 0.35, 0.30        # the rest are events
P_NAMED = 0.33                        # cards about a named person rather than the writer ("me")
P_SAME_VALUE = 0.30                   # single-value statement repeating the current value: reinforces
P_BACKDATED = 0.02                    # single-value fact arriving late (effective_at in the past)
P_EVENT_DUPLICATE = 0.10              # an event re-reported: duplicate
CALLER_SHARE = 6 / 11                 # owner's weight on the scope it shares with the caller (equal scope sizes)


def single_value(label: str, rng: random.Random, who: str) -> str:
    if label == "address":
        return f"{rng.randint(1, 240)} {rng.choice(['Oak', 'Mill', 'Harbour', 'Station', 'Bridge'])} Street"
    if label == "phone":
        return f"+1 555 {rng.randint(1000000, 9999999)}"
    if label == "email":
        return f"{who.lower().replace(' ', '.')}.{rng.randint(1, 999)}@example.org"
    return rng.choice(SINGLE_VALUES[label])


class ScopeStream:
    """What gets said in one shared scope over time, by whoever writes there.
    The memory of current values is per (writer, subject, label), so repeats reinforce."""

    def __init__(self, rng: random.Random) -> None:
        self.names = rng.sample(NAMES, 6)
        self.current: dict[tuple[str, str, str], tuple[str, dt.datetime]] = {}
        self.events: list[CardDraft] = []
        self.n = 0

    def draft(self, rng: random.Random, now: dt.datetime, writer: str) -> CardDraft:
        self.n += 1
        named = rng.random() < P_NAMED
        subject = rng.choice(self.names) if named else "me"
        who = subject if named else writer
        source = {"source_session": f"s{self.n // 40}", "source_message": f"m{self.n}"}
        roll = rng.random()
        if roll < P_SINGLE:
            label = rng.choice(SINGLE_OTHER if named else SINGLE_ME)
            key = (writer if not named else "", subject, label)
            held = self.current.get(key)
            value = held[0] if held is not None and rng.random() < P_SAME_VALUE else single_value(label, rng, who)
            effective = None
            if held is not None and rng.random() < P_BACKDATED:
                effective = held[1] - dt.timedelta(days=rng.randint(5, 300))
            else:
                self.current[key] = (value, now)
            return CardDraft(kind="state", label=label, subject=subject, value=value,
                             text=f"{who}: {label.replace('_', ' ')} is {value}", reference_time=now,
                             effective_at=effective, **source)
        if roll < P_SINGLE + P_MULTI:
            label = rng.choice(MULTI_OTHER if named else MULTI_ME)
            value = rng.choice(MULTI[label])
            return CardDraft(kind="state", label=label, subject=subject, value=value, text=f"{who}: {label} {value}",
                             reference_time=now, **source)
        if self.events and rng.random() < P_EVENT_DUPLICATE:
            old = rng.choice(self.events)
            return CardDraft(kind="event", label=old.label, subject=old.subject, value=old.value,
                             text=f"(again) {old.text}", occurred_at=old.occurred_at, precision="day",
                             reference_time=now, **source)
        label = rng.choice(EVENTS_OTHER if named else list(EVENTS))
        value = EVENTS[label](rng, self.names)
        day = (now - dt.timedelta(days=rng.randint(0, 45))).replace(hour=0, minute=0, second=0, microsecond=0,
                                                                    tzinfo=None)
        draft = CardDraft(kind="event", label=label, subject=subject, value=value,
                          text=f"{who}: {value} on {day:%Y-%m-%d}", occurred_at=day, precision="day",
                          reference_time=now, **source)
        self.events.append(draft)
        if len(self.events) > 300:
            del self.events[:100]
        return draft


@dataclass
class Writer:
    user: User
    scopes: list[Scope]
    weights: list[float]


@dataclass
class World:
    run_id: str
    prefix: str
    caller: User
    owners: list[User]
    scopes: list[Scope]
    member_scopes: list[Scope]
    names: dict[int, list[str]] = field(default_factory=dict)   # scope id -> names used there
    token_raw: str = ""


def world_create(prefix: str, run_id: str, n_scopes: int, n_member: int, n_owners: int, seed: int) -> World:
    rng = random.Random(seed)
    caller = User.objects.create_user(username=f"{prefix}caller", display_name="Bench Caller", time_zone="UTC")
    owners = [User.objects.create_user(username=f"{prefix}o{i:03d}", display_name=f"Bench Owner {i}",
                                       time_zone=rng.choice(["UTC", "Europe/Berlin", "Asia/Taipei"]))
              for i in range(n_owners)]
    scopes = []
    for i in range(n_scopes):
        scopes.append(scope_create(name=f"{prefix}scope{i:03d}", kind=SCOPE_KINDS[i % len(SCOPE_KINDS)],
                                   creator=owners[i % n_owners]))
    member_scopes = scopes[:n_member]
    for scope in member_scopes:
        membership_set(scope=scope, user=caller, role="member")
    return World(run_id=run_id, prefix=prefix, caller=caller, owners=owners, scopes=scopes,
                 member_scopes=member_scopes)


def seed_cards(world: World, target_rows: int, chunk: int, seed: int) -> dict:
    """Write until the shared scopes hold `target_rows` cards; chunks round-robin over the writers,
    drafts on one monotonic clock, so nothing is back-dated unless meant to be."""
    rng = random.Random(seed)
    streams = {scope.pk: ScopeStream(random.Random(seed * 7919 + scope.pk)) for scope in world.scopes}
    for scope in world.scopes:
        world.names[scope.pk] = streams[scope.pk].names
    member_ids = {s.pk for s in world.member_scopes}
    writers = []
    for owner in world.owners:
        owned = [s for i, s in enumerate(world.scopes) if world.owners[i % len(world.owners)] is owner]
        writers.append(Writer(owner, owned, [CALLER_SHARE if s.pk in member_ids else 1.0 for s in owned]))
    if world.member_scopes:
        writers.append(Writer(world.caller, list(world.member_scopes), [1.0] * len(world.member_scopes)))
    writers = [w for w in writers if w.scopes]
    now = dt.datetime.now(dt.timezone.utc)
    clock = first = now - dt.timedelta(days=540)
    end = now - dt.timedelta(days=2)    # everything seeded lies in the past: the API's writes come after it
    rows = drafts = chunks = 0
    outcomes = dict.fromkeys(OUTCOMES, 0)
    chunk_seconds: list[float] = []
    started = time.perf_counter()
    max_chunks = 10 * (target_rows // max(1, chunk) + 1) + 100     # a bound, never reached in practice
    w = 0
    while rows < target_rows and chunks < max_chunks:
        writer = writers[w % len(writers)]
        w += 1
        n = min(chunk, target_rows - rows)
        # Spread the remaining drafts over the remaining time, at the drafts-per-row ratio seen so far.
        per_row = drafts / rows if rows else 1.6
        step = max(0.0, (end - clock).total_seconds()) / max(1.0, (target_rows - rows) * per_row * 1.05)
        items = []
        for _ in range(n):
            clock = min(end, clock + dt.timedelta(seconds=step * rng.uniform(0.5, 1.5)))
            scope = rng.choices(writer.scopes, writer.weights)[0]
            items.append((scope, streams[scope.pk].draft(rng, clock, writer.user.username)))
        t0 = time.perf_counter()
        results = card_remember_batch(actor=writer.user, items=items)
        chunk_seconds.append(time.perf_counter() - t0)
        for result in results:
            outcomes[result.outcome] += 1
        rows += outcomes_rows(results)
        drafts += n
        chunks += 1
    elapsed = time.perf_counter() - started
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*), count(*) FILTER (WHERE superseded_at IS NULL) FROM cards_card"
                       " WHERE scope_id = ANY(%s)", [[s.pk for s in world.scopes]])
        total, current = cursor.fetchone()
        cursor.execute("SELECT scope_id, count(*) FROM cards_card WHERE scope_id = ANY(%s) GROUP BY scope_id",
                       [[s.pk for s in world.member_scopes]])
        per_member_scope = sorted(n for _, n in cursor.fetchall())
    analyzed = analyze_cards()   # as autovacuum would soon: plans then see the new rows
    return {"analyzed": analyzed, "rows": total, "current_rows": current, "drafts": drafts, "chunks": chunks, "chunk_size": chunk,
            "seconds": round(elapsed, 1), "drafts_per_second": round(drafts / elapsed, 1),
            "rows_per_second": round(rows / elapsed, 1),
            "chunk_seconds_p50": round(statistics.median(chunk_seconds), 2),
            "message_times": [first.isoformat(timespec="seconds"), clock.isoformat(timespec="seconds")],
            "outcomes": outcomes,
            "caller_scope_rows_min_max": [per_member_scope[0], per_member_scope[-1]] if per_member_scope else None}


def analyze_cards() -> bool:
    """ANALYZE cards_card, but give up after a few seconds if a CREATE INDEX CONCURRENTLY, VACUUM
    or another ANALYZE holds the table (they exclude each other): the bench must not hang on them."""
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SET LOCAL lock_timeout = '10s'")
            cursor.execute("SET LOCAL statement_timeout = '300s'")
            cursor.execute("ANALYZE cards_card")
        return True
    except OperationalError as error:
        print(f"ANALYZE cards_card skipped: {error}".strip(), file=sys.stderr)
        return False


def outcomes_rows(results) -> int:
    return sum(1 for r in results if r.outcome in ("inserted", "superseded"))


def seed_vectors(world: World) -> dict:
    """A random vector on every row of the caller's scopes that has none, in one statement, so the
    list endpoint reads rows as wide as real ones (it selects the vector). Only those scopes: with
    an HNSW index on the column every vector is an index insert, and no measured endpoint reads
    the other scopes' vectors. Running the model instead would take longer than the whole bench;
    the values do not matter to these endpoints."""
    dims = Card._meta.get_field("embedding").dimensions
    started = time.perf_counter()
    with transaction.atomic(), connection.cursor() as cursor:
        # The subquery mentions c.id, so it is evaluated per row: a different vector each.
        cursor.execute(
            "UPDATE cards_card c SET embedding = (SELECT array_agg(random()::real - 0.5::real)"
            " FROM generate_series(1, %s) WHERE c.id IS NOT NULL)::vector"
            " WHERE c.scope_id = ANY(%s) AND c.embedding IS NULL",
            [dims, [s.pk for s in world.member_scopes]])
        rows = cursor.rowcount
    analyze_cards()
    return {"rows": rows, "dimensions": dims, "seconds": round(time.perf_counter() - started, 1)}


def embedding_mode(server_env: dict) -> dict:
    """Whether the server computes card vectors on write, and where (as the app decides it)."""
    info: dict = {"celery_eager": bool(getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False))}
    try:
        from cards.services.embedding import embed_on_write
    except ImportError:
        info["embed_on_write"] = None   # this version of the app has no write-time embedding
        return info
    override = server_env.get("EMBED_ON_WRITE")
    if override is None:
        info["embed_on_write"] = embed_on_write()   # same environment as the server's: the app decides
    else:
        info["embed_on_write"] = override.strip().lower() in {"1", "true", "yes", "on"}
    info["backend"] = os.environ.get("EMBEDDING_BACKEND") or getattr(settings, "EMBEDDING_BACKEND", None) or "local"
    info["inline_in_request"] = bool(info["embed_on_write"] and info["celery_eager"])
    return info


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


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = (len(ordered) - 1) * q / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


class Client:
    """One keep-alive connection; reconnects when the server closes it (sync workers do)."""

    def __init__(self, port: int, token: str, timeout: float = 300.0) -> None:
        self.port, self.timeout = port, timeout
        self.headers = {"Authorization": f"Bearer {token}", "Accept": "application/json",
                        "Content-Type": "application/json"}
        self.conn = http.client.HTTPConnection(HOST, port, timeout=timeout)

    def call(self, method: str, path: str, body: bytes | None = None) -> tuple[int, bytes]:
        for attempt in (1, 2):
            try:
                self.conn.request(method, path, body=body, headers=self.headers)
                response = self.conn.getresponse()
                return response.status, response.read()
            except (ConnectionError, http.client.RemoteDisconnected, http.client.CannotSendRequest,
                    http.client.ResponseNotReady, BrokenPipeError):
                # A kept-alive connection the server had already closed: retry once on a new one.
                self.conn.close()
                self.conn = http.client.HTTPConnection(HOST, self.port, timeout=self.timeout)
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        self.conn.close()


@dataclass
class Sample:
    latencies_ms: list[float] = field(default_factory=list)
    errors: int = 0
    error_examples: list[str] = field(default_factory=list)
    outcomes: dict[str, int] = field(default_factory=lambda: dict.fromkeys(OUTCOMES, 0))
    items: int = 0          # cards per call summed (bulk), else requests


def run_load(name: str, port: int, token: str, clients: int, seconds: float, max_requests: int,
             make_request, check) -> dict:
    """`clients` threads call `make_request(thread_index, i) -> (method, path, body, items)` until
    `seconds` have passed or `max_requests` were sent in total; `check(status, body, sample)`
    validates each answer (and counts outcomes)."""
    samples = [Sample() for _ in range(clients)]
    budget = threading.Semaphore(max_requests)
    barrier = threading.Barrier(clients + 1)
    stop_at = [0.0]

    def worker(t: int) -> None:
        client = Client(port, token)
        sample = samples[t]
        try:
            barrier.wait(timeout=60)
            i = 0
            while time.perf_counter() < stop_at[0] and budget.acquire(blocking=False):
                method, path, body, items = make_request(t, i)
                i += 1
                t0 = time.perf_counter()
                try:
                    status, data = client.call(method, path, body)
                except (OSError, http.client.HTTPException) as error:
                    sample.errors += 1
                    if len(sample.error_examples) < 3:
                        sample.error_examples.append(repr(error))
                    if sample.errors > 20:
                        break
                    continue
                sample.latencies_ms.append((time.perf_counter() - t0) * 1000)
                try:
                    problem = check(status, data, sample)
                except (ValueError, KeyError, TypeError) as error:
                    problem = f"unexpected answer ({error!r}): {data[:200]!r}"
                if problem:
                    sample.errors += 1
                    if len(sample.error_examples) < 3:
                        sample.error_examples.append(problem)
                    if sample.errors > 20:
                        break
                else:
                    sample.items += items
        finally:
            client.close()

    threads = [threading.Thread(target=worker, args=(t,), daemon=True, name=f"{name}-{t}") for t in range(clients)]
    for thread in threads:
        thread.start()
    load_before = load_average()
    stop_at[0] = time.perf_counter() + seconds
    started = time.perf_counter()
    barrier.wait(timeout=60)
    for thread in threads:
        thread.join(timeout=seconds + 330)   # a request in flight may take its own timeout to end
    elapsed = time.perf_counter() - started
    load_after = load_average()
    latencies = [x for s in samples for x in s.latencies_ms]
    outcomes = {o: sum(s.outcomes[o] for s in samples) for o in OUTCOMES}
    ok_items = sum(s.items for s in samples)
    result = {
        "clients": clients, "requests": len(latencies), "seconds": round(elapsed, 2),
        "requests_per_second": round(len(latencies) / elapsed, 1),
        "latency_ms": {"p50": round(percentile(latencies, 50), 2), "p95": round(percentile(latencies, 95), 2),
                       "p99": round(percentile(latencies, 99), 2),
                       "max": round(max(latencies), 2) if latencies else None,
                       "mean": round(statistics.fmean(latencies), 2) if latencies else None},
        "errors": sum(s.errors for s in samples),
        "load_average_before": load_before, "load_average_after": load_after,
    }
    examples = [e for s in samples for e in s.error_examples][:3]
    if examples:
        result["error_examples"] = examples
    if any(outcomes.values()):
        result["outcomes"] = outcomes
    result["items_ok"] = ok_items
    return result


def expect(statuses: tuple[int, ...], *, parse: str | None = None, expect_items: int | None = None):
    def check(status: int, data: bytes, sample: Sample) -> str | None:
        if status not in statuses:
            return f"HTTP {status}: {data[:200]!r}"
        if parse == "one":
            sample.outcomes[json.loads(data)["outcome"]] += 1
        elif parse == "bulk":
            results = json.loads(data)["results"]
            if expect_items is not None and len(results) != expect_items:
                return f"bulk answered {len(results)} results for {expect_items} cards"
            for r in results:
                sample.outcomes[r["outcome"]] += 1
        elif parse == "page" and not json.loads(data)["results"]:
            return "empty first page"
        return None
    return check


# --- the server ------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


@dataclass
class Server:
    process: subprocess.Popen
    port: int
    kind: str
    command: list[str]
    log_path: str
    version: str


def server_start(kind: str, workers: int, log_dir: str, extra_env: dict | None = None) -> Server:
    if kind == "gunicorn" and importlib.util.find_spec("gunicorn") is None:
        print("gunicorn is not installed; falling back to manage.py runserver --noreload", file=sys.stderr)
        kind = "runserver"
    env = {**os.environ, **SERVER_ENV, **(extra_env or {}), "DJANGO_SETTINGS_MODULE": "memory_site.settings"}
    last_error = ""
    for attempt in range(3):   # the free port may be taken between probing and binding
        port = free_port()
        if kind == "gunicorn":
            import gunicorn
            version = f"gunicorn {gunicorn.__version__}, {workers} sync workers"
            command = [sys.executable, "-m", "gunicorn", "memory_site.wsgi:application", "--bind", f"{HOST}:{port}",
                       "--workers", str(workers), "--chdir", str(ROOT), "--timeout", "300",
                       "--log-level", "warning"]
        else:
            version = f"django runserver --noreload (threaded), Django {django.get_version()}"
            command = [sys.executable, str(ROOT / "manage.py"), "runserver", "--noreload", f"{HOST}:{port}"]
        log_path = os.path.join(log_dir, f"server-{attempt}.log")
        log = open(log_path, "wb")
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
        log.close()
        server = Server(process, port, kind, command, log_path, version)
        try:
            server_wait_ready(server, timeout=120)
            return server
        except RuntimeError as error:
            last_error = str(error)
            server_stop(server)
    raise RuntimeError(f"the server did not start: {last_error}")


def server_wait_ready(server: Server, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"exited with {server.process.returncode}: {log_tail(server.log_path)}")
        try:
            conn = http.client.HTTPConnection(HOST, server.port, timeout=5)
            conn.request("GET", "/healthz")
            if conn.getresponse().status == 200:
                conn.close()
                return
            conn.close()
        except OSError:
            pass
        time.sleep(0.25)
    raise RuntimeError(f"not ready after {timeout:.0f} s: {log_tail(server.log_path)}")


def server_stop(server: Server) -> None:
    """SIGTERM to the master (graceful), then SIGKILL to the process group we created if needed."""
    process = server.process
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
    try:
        # The group was made by start_new_session for this server only; leftover workers die with it.
        os.killpg(process.pid, signal.SIGKILL if process.poll() is None else signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def log_tail(path: str, n: int = 1500) -> str:
    try:
        return Path(path).read_text(errors="replace")[-n:]
    except OSError:
        return ""


# --- the measurements ------------------------------------------------------------------

def measure(world: World, server: Server, args) -> dict:
    port, token = server.port, world.token_raw
    member_ids = [s.pk for s in world.member_scopes]
    results: dict[str, list[dict]] = {"healthz": [], "list": [], "remember": [], "bulk": []}
    levels = args.clients

    def healthz(t, i):
        return "GET", "/healthz", None, 1

    def listing(t, i):
        return "GET", f"/api/v1/cards/?scope={member_ids[(t + i) % len(member_ids)]}&current=true", None, 1

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
        ("remember", remember, expect((200, 201), parse="one"), args.seconds, 50_000),
        ("bulk", bulk_of(args.bulk_size), expect((201,), parse="bulk", expect_items=args.bulk_size),
         args.bulk_seconds, 500),
    ]
    for name, make, check, seconds, cap in plan:
        # Warm-up (not counted): every worker has loaded the code and opened its database connection.
        if name == "bulk":
            run_load("bulk-warm", port, token, max(levels), 1.0, max(levels), bulk_of(20), expect((201,)))
        else:
            # Writes get longer: a worker's first embedding (when the app embeds on write) loads the model.
            run_load(f"{name}-warm", port, token, max(levels), 5.0 if name == "remember" else 1.5, 400, make, check)
        for clients in levels:
            r = run_load(name, port, token, clients, seconds, cap, make, check)
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
            ("remember", "remember p95 < 30 ms", "p95", TARGETS["remember_p95_ms"], "lower")):
        out[name] = {str(r["clients"]): (r["latency_ms"][field_name] < limit) for r in m.get(key, [])}
    out["bulk ≥ 3,000 cards/s"] = {str(r["clients"]): r["cards_per_second"] >= TARGETS["bulk_cards_per_s"]
                                   for r in m.get("bulk", [])}
    return out


def ratios(report: dict) -> dict:
    m = report.get("measurements", {})
    base = {r["clients"]: r for r in m.get("healthz", []) if r.get("when") != "end"}
    out = {}
    for key in ("list", "remember"):
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
                ("POST /api/v1/cards/ (one remember)", "remember"),
                (f"POST /api/v1/cards/bulk/ ×{cfg['bulk_size']}", "bulk")]
        for label, key in rows:
            for r in m.get(key, []):
                lat = r["latency_ms"]
                name = label + (" (end)" if r.get("when") == "end" else "")
                extra = f"   {r['cards_per_second']:,.0f} cards/s" if key == "bulk" else ""
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
        for key in ("list", "remember", "bulk"):
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
