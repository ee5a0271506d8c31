"""The workload of bench/api.py: throwaway users and scopes, ~100,000 cards
seeded through the batch service, and vectors for the caller's rows. Imported
after Django is set up."""

from __future__ import annotations

import datetime as dt
import os
import random
import statistics
import sys
import time
from dataclasses import dataclass, field

from django.conf import settings
from django.db import OperationalError, connection, transaction
from http_load import OUTCOMES

from cards.drafts import CardDraft
from cards.models import Card
from cards.services import card_remember_batch
from scopes.models import Scope, ScopeKind, User
from scopes.services import membership_set, scope_create


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
    # A vector names its space where the app records one (a version before it has no such column).
    spaced = any(f.name == "embedding_space" for f in Card._meta.concrete_fields)
    started = time.perf_counter()
    with transaction.atomic(), connection.cursor() as cursor:
        # The subquery mentions c.id, so it is evaluated per row: a different vector each.
        cursor.execute(
            "UPDATE cards_card c SET embedding = (SELECT array_agg(random()::real - 0.5::real)"
            " FROM generate_series(1, %s) WHERE c.id IS NOT NULL)::vector"
            + (", embedding_space = %s" if spaced else "") +
            " WHERE c.scope_id = ANY(%s) AND c.embedding IS NULL",
            [dims, *([_space()] if spaced else []), [s.pk for s in world.member_scopes]])
        rows = cursor.rowcount
    analyze_cards()
    return {"rows": rows, "dimensions": dims, "seconds": round(time.perf_counter() - started, 1)}


def _space() -> str:
    from cards.embeddings import current_space

    return current_space()


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
