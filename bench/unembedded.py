"""What recall pays for the cards that have no vector yet (cards/recall/unembedded.py):
nothing waiting, a few waiting (their vectors computed in the request, cold and
then cached), and more than a request scores; on the exact and the index route.

    .venv/bin/python bench/unembedded.py [--cards 2000] [--repeat 200] [--json] [--keep]

In a database of its own (``--database``, default ``memory_site_bench_unembedded``)
on the server Django is configured for: created, migrated, dropped at the end
unless ``--keep``. One person's personal scope holds ``--cards`` skill cards,
all embedded; then the vectors of the freshest N are set back to NULL. Each
timing is one ``cards.recall.routes.recall`` call in process (the query's own vector
cached, so what differs is the unembedded part), median and p95 of ``--repeat``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")
os.environ["EMBED_ON_WRITE"] = "false"

p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
p.add_argument("--cards", type=int, default=2000)
p.add_argument("--repeat", type=int, default=200)
p.add_argument("--waiting", default="0,1,5,16,200", help="how many cards without a vector, comma-separated")
p.add_argument("--database", default="memory_site_bench_unembedded")
p.add_argument("--json", action="store_true")
p.add_argument("--keep", action="store_true")
ARGS = p.parse_args()

from django.conf import settings  # noqa: E402

ADMIN_DB = dict(settings.DATABASES["default"])
settings.DATABASES["default"]["NAME"] = ARGS.database

import django  # noqa: E402
import psycopg  # noqa: E402


def _admin_execute(sql: str) -> None:
    db = ADMIN_DB
    with psycopg.connect(dbname="postgres", user=db.get("USER") or None, password=db.get("PASSWORD") or None,
                         host=db.get("HOST") or None, port=db.get("PORT") or None, autocommit=True) as conn:
        conn.execute(sql)


def database_create() -> None:
    database_drop()
    _admin_execute(f'CREATE DATABASE "{ARGS.database}"')


def database_drop() -> None:
    _admin_execute(f'DROP DATABASE IF EXISTS "{ARGS.database}" WITH (FORCE)')


def timings(call, repeat: int) -> dict:
    seen = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        seen.append((time.perf_counter() - start) * 1000)
    seen.sort()
    return {"median_ms": round(statistics.median(seen), 3), "p95_ms": round(seen[int(len(seen) * 0.95) - 1], 3)}


def main() -> int:
    database_create()
    report: dict = {"cards": ARGS.cards, "repeat": ARGS.repeat, "cpus": os.cpu_count(), "runs": []}
    try:
        django.setup()
        from django.core.management import call_command
        from django.db import connection

        from cards.recall import routes, unembedded
        from cards.recall.query import query_vector
        from cards.recall.candidates import candidates_sql
        from cards.drafts import CardDraft
        from cards.models import Card
        from cards.services import card_remember_many
        from cards.services.embedding import cards_embed_now
        from scopes.models import User

        call_command("migrate", verbosity=0, interactive=False)
        person = User.objects.create_user(username="bench_unembedded", password="x")
        scope = person.personal_scope
        words = ["chess", "pottery", "sailing", "tango", "baking", "welding", "Go", "Rust", "knitting", "judo"]
        drafts = [CardDraft(kind="state", label="skill", subject="me", value=f"{words[i % len(words)]} {i}")
                  for i in range(ARGS.cards)]
        for start in range(0, len(drafts), 500):
            card_remember_many(scope=scope, actor=person, drafts=drafts[start:start + 500])
        cards_embed_now(card_ids=Card.objects.values_list("pk", flat=True))
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE cards_card")
        ids = list(Card.objects.order_by("-verified_at", "-id").values_list("pk", flat=True))
        query = "which martial arts do I know?"
        query_vector(query)  # the query's vector is not what is measured
        for waiting in (int(n) for n in ARGS.waiting.split(",")):
            cards_embed_now(card_ids=ids)
            Card.objects.filter(pk__in=ids[:waiting]).update(embedding=None, embedding_space=None)
            for route, limit in (("exact", routes.EXACT_LIMIT), ("index", 1)):
                routes.EXACT_LIMIT = limit
                run = {"waiting": waiting, "route": route}
                unembedded.vectors_forget()
                start = time.perf_counter()
                found = routes.recall(scope_ids=[scope.pk], query=query, k=10)
                run["first_call_ms"] = round((time.perf_counter() - start) * 1000, 3)
                assert found.route == route and found.unembedded["scored"] == min(waiting, unembedded.UNEMBEDDED_LIMIT)
                run["warm"] = timings(lambda: routes.recall(scope_ids=[scope.pk], query=query, k=10),
                                      ARGS.repeat)
                run["cold"] = timings(lambda: (unembedded.vectors_forget(),
                                               routes.recall(scope_ids=[scope.pk], query=query, k=10)),
                                      max(ARGS.repeat // 10, 5)) if waiting else None
                routes.EXACT_LIMIT = 20_000
                # The looking alone: the unembedded statement the index route runs (the exact route folds it in).
                params = {"scopes": [scope.pk], "q": query_vector(query)}
                sql = unembedded.unembedded_sql(candidates_sql(params, as_of=None, when=None))

                def probe():
                    with connection.cursor() as cursor:
                        cursor.execute(sql, params)
                        cursor.fetchall()
                run["probe"] = timings(probe, ARGS.repeat)
                report["runs"].append(run)
                if not ARGS.json:
                    print(json.dumps(run), flush=True)
    finally:
        from django.db import connections

        for conn in connections.all():
            conn.close()
            if hasattr(conn, "close_pool"):
                conn.close_pool()
        if not ARGS.keep:
            database_drop()
    if ARGS.json:
        print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
