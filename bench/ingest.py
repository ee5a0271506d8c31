"""Write-path benchmark: remember state and event cards through the service layer.

    .venv/bin/python bench/ingest.py [--cards 20000] [--users 50] [--batch 100]
        [--sample 1000] [--mode both|single|batch] [--statement-times] [--json] [--keep]
    .venv/bin/python bench/ingest.py --cleanup RUN_ID|all

Creates throwaway users (usernames ``bench_<run id>_<mode><n>``) with their
personal scopes, builds one deterministic, realistic stream of drafts per user
(single-value updates that supersede or reinforce, a few back-dated ones,
multi-value inserts and repeats, day-precision events with re-reported
duplicates, about a fifth of them about named people rather than "me"), and
remembers them two ways on two disjoint halves of the users:

* ``single``: one ``card_remember`` call per card, each its own transaction;
* ``batch``:  ``card_remember_many`` over batches of ``--batch`` cards (one
  transaction per batch).

User *i* of each half gets the same stream, so both modes must end with the
same outcomes (checked and reported). While the modes run, a sample of about
``--sample`` cards per mode is wrapped in ``CaptureQueriesContext`` to count
SQL statements: per card by outcome and path for single calls, per batch for
batches. ``--statement-times`` also times every statement and COMMIT by kind.
No embeddings are computed. DEBUG is turned off for the run (as in production)
unless ``--django-debug`` is given.

Everything the run created is deleted at the end unless ``--keep`` is given
(``--cleanup RUN_ID`` removes a kept or crashed run later).
"""

from __future__ import annotations

import argparse
import collections
import datetime as dt
import json
import os
import platform
import random
import secrets
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")

# The write path is measured without embeddings (they are computed after commit, elsewhere).
os.environ.setdefault("EMBED_ON_WRITE", "0")
import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection, reset_queries, transaction  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from sqlcleanup import raw_cascade  # noqa: E402  (bench/ is on sys.path when run as a script)
from sqlcount import OUTCOMES, QuerySample, short_sql, statement_class, StatementTimer, split_batch_queries  # noqa: E402

from cards.drafts import CardDraft  # noqa: E402
from cards.labels import registry  # noqa: E402
from cards.models import Card  # noqa: E402
from cards.services import card_remember, card_remember_many  # noqa: E402
from scopes.models import Scope, User  # noqa: E402

TARGET_CARDS_PER_SECOND = 400
TARGET_QUERIES_PER_CARD = 6
USERNAME_PREFIX = "bench_"

# --- the workload --------------------------------------------------------------------

STREETS = ["Oak", "Maple", "Harbour", "Station", "Mill", "Church", "Garden", "Bridge", "Castle", "River"]
CITIES = ["Berlin", "Taipei", "Lisbon", "Kyoto", "Toronto", "Oslo", "Nairobi", "Lima", "Porto", "Seoul",
          "Austin", "Lyon", "Krakow", "Dublin", "Hanoi"]
EMPLOYERS = ["Acme Corp", "Globex", "Initech", "Umbrella Health", "Stark Industries", "Wayne Enterprises",
             "Hooli", "Vandelay Imports", "Soylent", "Tyrell", "Cyberdyne", "Wonka Foods"]
JOB_TITLES = ["software engineer", "senior engineer", "product manager", "designer", "data analyst",
              "team lead", "nurse", "teacher", "accountant", "architect", "researcher", "consultant"]
BROWSERS = ["Firefox", "Chrome", "Safari", "Edge", "Brave", "Vivaldi"]
DIETS = ["vegetarian", "vegan", "pescatarian", "omnivore", "keto", "flexitarian"]
CARS = ["Toyota Corolla", "VW Golf", "Tesla Model 3", "Honda Civic", "Skoda Octavia", "Renault Zoe",
        "Ford Focus", "Kia Niro"]
SCHOOLS = ["TU Berlin", "NTU", "University of Lisbon", "Kyoto University", "U of T", "Open University",
           "evening school", "Coursera"]
MULTI = {
    "skill": ["python", "sql", "cooking", "knitting", "public speaking", "woodworking", "photography",
              "negotiation", "rust", "first aid", "sailing", "baking bread", "excel", "welding", "calligraphy",
              "piano tuning", "bookkeeping", "pottery", "ux research", "go", "origami", "car repair",
              "gardening", "swimming", "chess openings", "video editing", "translation", "django"],
    "interest": ["astronomy", "jazz", "history", "birdwatching", "f1", "architecture", "philosophy",
                 "climate", "board games", "anime", "poetry", "urbanism", "genealogy", "cycling",
                 "economics", "mythology", "robotics", "fashion", "ceramics", "true crime"],
    "language": ["English", "German", "Mandarin", "Portuguese", "Japanese", "Spanish", "French", "Korean",
                 "Swahili", "Polish", "Italian", "Dutch"],
    "hobby": ["running", "climbing", "chess", "gardening", "painting", "fishing", "yoga", "drumming",
              "surfing", "hiking", "model trains", "embroidery", "skating", "geocaching", "karaoke",
              "bouldering", "bird photography", "home brewing"],
    "likes": ["dark chocolate", "spicy ramen", "rainy days", "old films", "lavender", "mango", "espresso",
              "sunflowers", "sci-fi novels", "thai curry", "podcasts", "vinyl records", "matcha", "tulips",
              "crime dramas", "sourdough", "cats", "road trips", "board games", "jazz bars", "sushi",
              "pistachio ice cream"],
    "pet": ["a cat called Miso", "a dog called Rex", "two goldfish", "a parrot called Kiwi",
            "a rabbit called Bun", "a gecko", "a dog called Luna", "three hens"],
}
PEOPLE = ["Anna", "Ben", "Mum", "Dad", "Chloe", "Uncle Tom", "Grandma Rose", "Priya"]
PLACES = ["Lisbon", "the lake house", "Kyoto", "grandma's", "the coast", "Vienna", "the mountains",
          "Barcelona", "the farm", "Copenhagen"]
RESTAURANTS = ["Sushi Ko", "Luigi's", "the noodle bar", "Cafe Mondo", "the taqueria", "Dim Sum Palace",
               "the vegan place", "Bistro 21"]
THINGS = ["a bike", "a laptop", "running shoes", "a sofa", "a tent", "a coffee grinder", "a phone",
          "a winter coat", "a drill", "concert tickets"]
ZONES = ["UTC", "Europe/Berlin", "Asia/Taipei", "America/New_York", "Europe/Lisbon"]

SINGLE_ME = ["address", "city", "employer", "job_title", "phone", "email", "browser", "diet", "car", "school"]
SINGLE_OTHER = ["city", "employer", "job_title", "phone", "diet"]
MULTI_ME = list(MULTI)
MULTI_OTHER = ["likes", "hobby", "language", "pet"]
EVENTS_ME = ["meeting", "meal", "trip", "purchase", "visit", "outing", "party", "appointment", "wedding"]
EVENTS_OTHER = ["meal", "visit", "trip", "party"]

P_SINGLE, P_MULTI = 0.35, 0.30           # the rest are events
P_NAMED_SUBJECT = 0.20                   # cards about someone other than "me"
P_SAME_VALUE = 0.30                      # single-value update that repeats the current value
P_BACKDATED = 0.04                       # single-value fact that arrives late (effective_at in the past)
P_EVENT_DUPLICATE = 0.12                 # an event re-reported (same label, subject, value and day)


def single_value(label: str, rng: random.Random, who: str, n: int) -> str:
    if label == "address":
        return f"{rng.randint(1, 240)} {rng.choice(STREETS)} Street"
    if label == "city":
        return rng.choice(CITIES)
    if label == "employer":
        return rng.choice(EMPLOYERS)
    if label == "job_title":
        return rng.choice(JOB_TITLES)
    if label == "phone":
        return f"+1 555 {rng.randint(1000000, 9999999)}"
    if label == "email":
        return f"{who.lower().replace(' ', '.')}.{n}@example.org"
    if label == "browser":
        return rng.choice(BROWSERS)
    if label == "diet":
        return rng.choice(DIETS)
    if label == "car":
        return rng.choice(CARS)
    return rng.choice(SCHOOLS)


def event_value(label: str, rng: random.Random) -> str:
    if label == "meeting":
        return f"{rng.choice(['1:1', 'planning', 'review', 'sync', 'interview'])} with {rng.choice(PEOPLE)}"
    if label == "meal":
        return f"{rng.choice(['lunch', 'dinner', 'brunch'])} at {rng.choice(RESTAURANTS)} with {rng.choice(PEOPLE)}"
    if label in ("trip", "visit"):
        return f"{label} to {rng.choice(PLACES)}"
    if label == "purchase":
        return f"bought {rng.choice(THINGS)}"
    if label == "outing":
        return f"{rng.choice(['concert', 'film', 'football match', 'theatre'])} with {rng.choice(PEOPLE)}"
    if label == "party":
        return f"{rng.choice(['birthday', 'farewell', 'housewarming'])} party for {rng.choice(PEOPLE)}"
    if label == "appointment":
        return f"{rng.choice(['dentist', 'doctor', 'haircut', 'car service'])} appointment"
    return f"wedding of {rng.choice(PEOPLE)}"


def user_stream(seed: int, n: int, start: dt.datetime) -> list[CardDraft]:
    """One user's drafts, in the order they are told. Deterministic for a seed."""
    rng = random.Random(seed)
    now = start
    current: dict[tuple[str, str], tuple[str, dt.datetime]] = {}   # (subject, label) -> (value, effective)
    events: list[CardDraft] = []
    drafts: list[CardDraft] = []
    for i in range(n):
        now += dt.timedelta(minutes=rng.randint(20, 600))
        subject = rng.choice(PEOPLE) if rng.random() < P_NAMED_SUBJECT else "me"
        who = "I" if subject == "me" else subject
        roll = rng.random()
        if roll < P_SINGLE:
            label = rng.choice(SINGLE_ME if subject == "me" else SINGLE_OTHER)
            held = current.get((subject, label))
            if held is not None and rng.random() < P_SAME_VALUE:
                value = held[0]
            else:
                value = single_value(label, rng, who if subject != "me" else f"user{seed}", i)
            effective = None
            if held is not None and rng.random() < P_BACKDATED:
                effective = held[1] - dt.timedelta(days=rng.randint(5, 400))
            else:
                current[(subject, label)] = (value, now)
            drafts.append(CardDraft(kind="state", label=label, subject=subject, value=value,
                                    text=f"{who}: {label.replace('_', ' ')} is {value}",
                                    reference_time=now, effective_at=effective,
                                    source_session=f"s{i // 40}", source_message=f"m{i}"))
        elif roll < P_SINGLE + P_MULTI:
            label = rng.choice(MULTI_ME if subject == "me" else MULTI_OTHER)
            value = rng.choice(MULTI[label])
            drafts.append(CardDraft(kind="state", label=label, subject=subject, value=value,
                                    text=f"{who}: {label} {value}", reference_time=now,
                                    source_session=f"s{i // 40}", source_message=f"m{i}"))
        else:
            if events and rng.random() < P_EVENT_DUPLICATE:
                old = rng.choice(events)
                drafts.append(CardDraft(kind="event", label=old.label, subject=old.subject, value=old.value,
                                        text=f"(again) {old.text}", occurred_at=old.occurred_at,
                                        precision="day", reference_time=now,
                                        source_session=f"s{i // 40}", source_message=f"m{i}"))
                continue
            label = rng.choice(EVENTS_ME if subject == "me" else EVENTS_OTHER)
            value = event_value(label, rng)
            day = (now - dt.timedelta(days=rng.randint(0, 45))).replace(hour=0, minute=0, second=0,
                                                                        microsecond=0, tzinfo=None)
            draft = CardDraft(kind="event", label=label, subject=subject, value=value,
                              text=f"{who}: {value} on {day:%Y-%m-%d}", occurred_at=day, precision="day",
                              reference_time=now, source_session=f"s{i // 40}", source_message=f"m{i}")
            events.append(draft)
            drafts.append(draft)
    return drafts


def path_of(draft: CardDraft) -> str:
    if draft.kind == "event":
        kind = "event"
    elif draft.label in MULTI:
        kind = "multi"
    else:
        kind = "single-backdated" if draft.effective_at is not None else "single"
    return kind + ("" if draft.subject == "me" else "/named")


# --- measuring --------------------------------------------------------------------------

def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def run_single(users: list[User], streams: list[list[CardDraft]], batch: int, sample_every: int) -> dict:
    outcomes = collections.Counter()
    sample = QuerySample()
    latencies: list[float] = []
    index = 0
    rounds = max(len(s) for s in streams)
    started = time.perf_counter()
    for offset in range(0, rounds, batch):
        for user, stream in zip(users, streams):
            scope = user.personal_scope
            for draft in stream[offset:offset + batch]:
                t0 = time.perf_counter()
                if sample_every and index % sample_every == 0:
                    reset_queries()  # the log is a 9,000-entry deque; a full one shifts the capture's slice
                    with CaptureQueriesContext(connection) as captured:
                        result = card_remember(scope=scope, actor=user, draft=draft)
                    sql = [q["sql"] for q in captured.captured_queries]
                    sample.add(len(sql), result.outcome, path_of(draft), [short_sql(s) for s in sql])
                else:
                    result = card_remember(scope=scope, actor=user, draft=draft)
                latencies.append(time.perf_counter() - t0)
                outcomes[result.outcome] += 1
                index += 1
    elapsed = time.perf_counter() - started
    ms = [x * 1000 for x in latencies]
    return {
        "cards": index, "seconds": round(elapsed, 3), "cards_per_second": round(index / elapsed, 1),
        "latency_ms": {"p50": round(percentile(ms, 50), 3), "p95": round(percentile(ms, 95), 3),
                       "p99": round(percentile(ms, 99), 3), "max": round(max(ms), 3)},
        "outcomes": {o: outcomes.get(o, 0) for o in OUTCOMES},
        "queries_per_card": sample.summary(),
    }


def run_batch(users: list[User], streams: list[list[CardDraft]], batch: int, sample_every_batch: int) -> dict:
    outcomes = collections.Counter()
    sample = QuerySample()
    batch_ms: list[float] = []
    cards = batches = 0
    sampled: list[tuple[int, int]] = []          # (statements, cards) per sampled batch
    kinds: collections.Counter = collections.Counter()
    rounds = max(len(s) for s in streams)
    started = time.perf_counter()
    for offset in range(0, rounds, batch):
        for user, stream in zip(users, streams):
            drafts = stream[offset:offset + batch]
            if not drafts:
                continue
            scope = user.personal_scope
            t0 = time.perf_counter()
            if sample_every_batch and batches % sample_every_batch == 0:
                reset_queries()
                with CaptureQueriesContext(connection) as captured:
                    results = card_remember_many(scope=scope, actor=user, drafts=drafts)
                queries = captured.captured_queries
                sampled.append((len(queries), len(drafts)))
                kinds.update(statement_class(q["sql"]) for q in queries)
                # Card-by-card batches run each card in its own savepoint, so the
                # statements can be attributed to cards; set-based ones cannot.
                per_card = split_batch_queries(queries)
                if len(per_card) == len(drafts):
                    for draft, result, sql in zip(drafts, results, per_card):
                        sample.add(len(sql), result.outcome, path_of(draft), [short_sql(s) for s in sql])
            else:
                results = card_remember_many(scope=scope, actor=user, drafts=drafts)
            batch_ms.append((time.perf_counter() - t0) * 1000)
            for result in results:
                outcomes[result.outcome] += 1
            cards += len(drafts)
            batches += 1
    elapsed = time.perf_counter() - started
    summary = sample.summary()
    if sampled:
        summary["batches"] = {
            "sampled": len(sampled), "cards": sum(n for _, n in sampled),
            "statements_mean": round(statistics.fmean(q for q, _ in sampled), 1),
            "statements_max": max(q for q, _ in sampled),
            "per_card_mean": round(sum(q for q, _ in sampled) / sum(n for _, n in sampled), 2),
            "per_card_max_batch": round(max(q / n for q, n in sampled), 2),
            "statement_kinds_per_batch": {k: round(v / len(sampled), 1) for k, v in kinds.most_common()},
        }
    return {
        "cards": cards, "batches": batches, "batch_size": batch, "seconds": round(elapsed, 3),
        "cards_per_second": round(cards / elapsed, 1),
        "batch_latency_ms": {"p50": round(percentile(batch_ms, 50), 2), "p95": round(percentile(batch_ms, 95), 2),
                             "max": round(max(batch_ms), 2)},
        "outcomes": {o: outcomes.get(o, 0) for o in OUTCOMES},
        "queries_per_card": summary,
    }


# --- setting up and cleaning up ---------------------------------------------------------

def run_floor(run_id: str, transactions: int) -> dict:
    """The same process's floor: one INSERT + COMMIT per transaction on a plain
    table (WAL flush included). On a shared, noisy machine the ratio
    cards/s ÷ floor tx/s moves far less than either number."""
    table_name = f"bench_floor_{run_id}"
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE TABLE {table_name} (id bigserial PRIMARY KEY, v text)")
    try:
        started = time.perf_counter()
        for i in range(transactions):
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(f"INSERT INTO {table_name} (v) VALUES (%s)", [str(i)])
        elapsed = time.perf_counter() - started
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"DROP TABLE IF EXISTS {table_name}")
    return {"transactions": transactions, "per_second": round(transactions / elapsed, 1)}


def users_create(prefix: str, count: int, seed: int) -> list[User]:
    rng = random.Random(seed)
    users = []
    for i in range(count):
        # create_user also creates the personal scope and the "me" entity (cached on the user).
        users.append(User.objects.create_user(username=f"{prefix}{i:03d}", display_name=f"Bench {i}",
                                              time_zone=rng.choice(ZONES)))
    return users




def cleanup(prefix: str) -> dict:
    """Delete what a run created: its cards first (their subject and object are
    PROTECT foreign keys to entities; event rows may only be deleted while
    memory_site.forgetting is on, because of the write-once trigger), then its
    users with everything that cascades from them (personal scopes, entities,
    memberships, grants)."""
    user_ids = list(User.objects.filter(username__startswith=prefix).values_list("pk", flat=True))
    scope_ids = list(Scope.objects.filter(owner_id__in=user_ids).values_list("pk", flat=True))
    started = time.perf_counter()
    tables = set(connection.introspection.table_names())
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL memory_site.forgetting = 'on'")
        cards = raw_cascade(cursor, Card, '"scope_id" = ANY(%s)', [scope_ids], tables)
        users = raw_cascade(cursor, User, f'"{User._meta.pk.column}" = ANY(%s)', [user_ids], tables)
    return {"users": users, "scopes": len(scope_ids), "cards": cards,
            "seconds": round(time.perf_counter() - started, 2)}


# --- reporting --------------------------------------------------------------------------

def table(report: dict) -> str:
    lines = []
    cfg = report["config"]
    lines.append(f"memory-site ingest bench  run {report['run_id']}  {report['started_at']}")
    lines.append(f"{cfg['cards']} cards over {cfg['users']} users, batch {cfg['batch']}, "
                 f"seed {cfg['seed']}, DEBUG={cfg['django_debug']}, PostgreSQL {report['postgres']}, "
                 f"{report['cpus']} CPUs")
    lines.append("")
    lines.append(f"{'mode':<34}{'cards':>7}{'secs':>9}{'cards/s':>10}   target ≥{TARGET_CARDS_PER_SECOND}")
    for key, name in (("single", "card_remember (1 txn per card)"), ("batch", "card_remember_many (batches)")):
        if key in report:
            r = report[key]
            ok = "ok" if r["cards_per_second"] >= TARGET_CARDS_PER_SECOND else "MISS"
            lines.append(f"{name:<34}{r['cards']:>7}{r['seconds']:>9.1f}{r['cards_per_second']:>10.1f}   {ok}"
                         f"   ({r.get('ratio_to_floor', '?')} × floor)")
    if "floor_before" in report:
        lines.append(f"floor: bare INSERT+COMMIT transactions/s, before {report['floor_before']['per_second']}"
                     f" / after {report.get('floor_after', {}).get('per_second', '?')}")
    if "single" in report:
        lat = report["single"]["latency_ms"]
        lines.append(f"  single-call latency ms: p50 {lat['p50']}  p95 {lat['p95']}  p99 {lat['p99']}  "
                     f"max {lat['max']}")
    if "batch" in report:
        lat = report["batch"]["batch_latency_ms"]
        lines.append(f"  per-batch latency ms: p50 {lat['p50']}  p95 {lat['p95']}  max {lat['max']}")
    lines.append("")
    lines.append(f"outcomes  {'':<12}" + "".join(f"{o:>12}" for o in OUTCOMES))
    for key in ("single", "batch"):
        if key in report:
            lines.append(f"          {key:<12}" + "".join(f"{report[key]['outcomes'][o]:>12}" for o in OUTCOMES))
    if "outcomes_match" in report:
        lines.append(f"  same outcomes in both modes: {'yes' if report['outcomes_match'] else 'NO'}")
    lines.append("")
    lines.append(f"SQL statements per card (sampled; target ≤{TARGET_QUERIES_PER_CARD}; "
                 "BEGIN/COMMIT and SAVEPOINT/RELEASE counted)")
    for key in ("single", "batch"):
        if key not in report:
            continue
        q = report[key]["queries_per_card"]
        b = q.get("batches")
        if b:
            lines.append(f"  {key}: {b['sampled']} batches ({b['cards']} cards): {b['statements_mean']} statements "
                         f"per batch (max {b['statements_max']}) = {b['per_card_mean']} per card "
                         f"(worst batch {b['per_card_max_batch']} per card)")
            lines.append("    per batch: " + ", ".join(f"{k} ×{v}" for k, v in b["statement_kinds_per_batch"].items()))
        if not q["all"]:
            if b:
                lines.append("    (set-based batch: statements are shared by its cards, so there is no per-outcome split)")
            continue
        lines.append(f"  {key}: {q['all']['cards']} cards, mean {q['all']['mean']}, max {q['all']['max']}")
        lines.append(f"    {'outcome':<14}{'cards':>7}{'mean':>7}{'max':>6}")
        for outcome, s in q["by_outcome"].items():
            lines.append(f"    {outcome:<14}{s['cards']:>7}{s['mean']:>7}{s['max']:>6}")
        lines.append(f"    {'path outcome':<36}{'cards':>7}{'mean':>7}{'max':>6}")
        for path, s in q["by_path"].items():
            lines.append(f"    {path:<36}{s['cards']:>7}{s['mean']:>7}{s['max']:>6}")
        worst = q["worst_card"]
        lines.append(f"    costliest card ({worst['path']}, {worst['queries']} statements):")
        lines.extend(f"      {sql}" for sql in worst["sql"])
    for key in ("single", "batch"):
        st = report.get(key, {}).get("statement_times")
        if not st:
            continue
        lines.append("")
        lines.append(f"where the time goes ({key}): {st['db_share']:.0%} of wall time waiting on statements "
                     f"and COMMIT; {st['outside_db_ms_per_card']} ms/card outside them (Python, ORM, Django)")
        lines.append(f"    {'statement':<36}{'per card':>9}{'mean µs':>9}{'ms/card':>9}{'share':>7}")
        for name, row in st["statements"].items():
            lines.append(f"    {name:<36}{row['per_card']:>9}{row['mean_us']:>9}{row['ms_per_card']:>9}"
                         f"{row['share']:>7.0%}")
    lines.append("")
    lines.append(f"load average before/after: {report.get('load_average_before')} / "
                 f"{report.get('load_average_after')}")
    if "cleanup" in report:
        c = report["cleanup"]
        lines.append(f"cleaned up: {c['users']} users, {c['scopes']} scopes, {c['cards']} cards "
                     f"in {c['seconds']} s")
    elif report.get("kept"):
        lines.append(f"kept; remove later with: .venv/bin/python bench/ingest.py --cleanup {report['run_id']}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, default=20_000, help="cards in total, split over the two modes")
    parser.add_argument("--users", type=int, default=50, help="throwaway users (half per mode)")
    parser.add_argument("--batch", type=int, default=100, help="cards per card_remember_many call")
    parser.add_argument("--sample", type=int, default=1_000, help="cards per mode whose SQL is counted")
    parser.add_argument("--mode", choices=["both", "single", "batch"], default="both")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print the report as JSON instead of a table")
    parser.add_argument("--keep", action="store_true", help="keep the created users, scopes and cards")
    parser.add_argument("--django-debug", action="store_true",
                        help="time with settings.DEBUG as configured (dev default True logs every query); "
                             "by default the bench turns DEBUG off, as in production")
    parser.add_argument("--statement-times", action="store_true",
                        help="also time every statement and COMMIT by kind (adds a few µs per statement)")
    parser.add_argument("--cleanup", metavar="RUN_ID",
                        help="only delete what a kept (or crashed) run created; 'all' removes every bench_ user")
    args = parser.parse_args()

    if args.cleanup:
        prefix = USERNAME_PREFIX if args.cleanup == "all" else f"{USERNAME_PREFIX}{args.cleanup}_"
        print(json.dumps(cleanup(prefix)))
        return
    if not args.django_debug:
        settings.DEBUG = False  # CaptureQueriesContext still forces query logging for the sample

    run_id = f"{dt.datetime.now():%Y%m%d%H%M%S}{secrets.token_hex(2)}"
    prefix = f"{USERNAME_PREFIX}{run_id}_"
    modes = ["single", "batch"] if args.mode == "both" else [args.mode]
    per_mode_users = args.users // len(modes) if args.mode == "both" else args.users
    per_mode_cards = args.cards // len(modes)
    per_user = max(1, per_mode_cards // per_mode_users)
    start = dt.datetime(2025, 1, 6, 8, 0, tzinfo=dt.timezone.utc)
    streams = [user_stream(args.seed * 100_003 + i, per_user, start) for i in range(per_mode_users)]
    # Every mode gets the same streams, so outcomes must match.

    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        pg_version = cursor.fetchone()[0]
    registry()  # the label cache is per process; load it before timing

    report: dict = {
        "run_id": run_id, "started_at": dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "host": platform.node(), "cpus": os.cpu_count(), "python": platform.python_version(),
        "postgres": pg_version,
        "config": {"cards": per_user * per_mode_users * len(modes), "users": per_mode_users * len(modes),
                   "cards_per_user": per_user, "batch": args.batch, "sample": args.sample, "seed": args.seed,
                   "django_debug": settings.DEBUG, "modes": modes,
                   "mix": {"single_value": P_SINGLE, "multi_value": P_MULTI, "event": 1 - P_SINGLE - P_MULTI,
                           "named_subject": P_NAMED_SUBJECT, "same_value": P_SAME_VALUE,
                           "backdated": P_BACKDATED, "event_duplicate": P_EVENT_DUPLICATE}},
    }
    report["load_average_before"] = [round(x, 2) for x in os.getloadavg()]
    report["floor_before"] = run_floor(run_id, 1_000)
    try:
        for mode in modes:
            users = users_create(f"{prefix}{mode[0]}", per_mode_users, args.seed)
            cards = per_user * per_mode_users
            timer = StatementTimer() if args.statement_times else None
            if timer:
                original_commit = timer.wrap_commit()
                wrapper = connection.execute_wrapper(timer)
                wrapper.__enter__()
            try:
                if mode == "single":
                    every = max(1, cards // args.sample) if args.sample else 0
                    report["single"] = run_single(users, streams, args.batch, every)
                else:
                    batches = -(-per_user // args.batch) * per_mode_users
                    every = max(1, batches // -(-args.sample // args.batch)) if args.sample else 0
                    report["batch"] = run_batch(users, streams, args.batch, every)
            finally:
                if timer:
                    wrapper.__exit__(None, None, None)
                    connection._commit = original_commit
            if timer:
                report[mode]["statement_times"] = timer.summary(report[mode]["cards"], report[mode]["seconds"])
        report["floor_after"] = run_floor(run_id, 1_000)
        floor = (report["floor_before"]["per_second"] + report["floor_after"]["per_second"]) / 2
        for mode in modes:
            report[mode]["ratio_to_floor"] = round(report[mode]["cards_per_second"] / floor, 3)
        if len(modes) == 2:
            report["outcomes_match"] = report["single"]["outcomes"] == report["batch"]["outcomes"]
    finally:
        report["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
        if args.keep:
            report["kept"] = True
        else:
            report["cleanup"] = cleanup(prefix)
    print(json.dumps(report, indent=2) if args.json else table(report))


if __name__ == "__main__":
    main()
