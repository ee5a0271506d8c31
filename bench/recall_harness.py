"""What the recall-quality benches share (retrieval_quality.py on bench/retrieval_set/, gatemem.py on
GateMem): a database of their own, every card embedded in one pass in the current space, and a question
asked through the product's recall as POST /api/v1/recall/ asks it.

Import it before Django: it points Django at the project's settings and turns off the embedding on
write (the benches embed every card at once after loading, cards_embed_now)."""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")
os.environ["EMBED_ON_WRITE"] = "0"


def log(*parts) -> None:
    print(*parts, file=sys.stderr, flush=True)


@contextlib.contextmanager
def bench_database(name: str, *, keep: bool = False) -> Iterator[None]:
    """A fresh database `name`, migrated, with Django set up on it; dropped at the end unless `keep`."""
    import psycopg
    from django.conf import settings

    admin = dict(settings.DATABASES["default"])  # reading settings starts the embedded server if needed
    settings.DATABASES["default"]["NAME"] = name

    def connect() -> psycopg.Connection:
        return psycopg.connect(dbname="postgres", user=admin.get("USER") or None,
                               password=admin.get("PASSWORD") or None, host=admin.get("HOST") or None,
                               port=admin.get("PORT") or None, autocommit=True)

    with connect() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        import django

        django.setup()
        from django.core.management import call_command

        log(f"migrating {name} …")
        call_command("migrate", verbosity=0, interactive=False)
        yield
    finally:
        from django.db import connections

        connections.close_all()
        if not keep:
            with connect() as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def embed_every_card() -> dict:
    """Every card's vector in the current space, in one pass: how many and how long it took."""
    from cards.embeddings import current_space
    from cards.models import Card
    from cards.services.embedding import cards_embed_now

    ids = list(Card.objects.values_list("id", flat=True))
    started = time.perf_counter()
    written = cards_embed_now(card_ids=ids)
    seconds = time.perf_counter() - started
    return {"space": current_space(), "cards": written, "seconds": round(seconds, 1),
            "per_second": round(written / seconds, 1) if seconds else None}


def time_asked(query: str, *, asker, at: dt.datetime):
    """The time expression inside the question ("what did we do last weekend?") as recall_body finds it,
    against the read's as_of and in the asker's zone; None when there is none."""
    from cards.time.when import when_in_query

    return when_in_query(query, tz_name=None, user=asker, reference=at)


def ask(query: str, *, asker, scope_ids: list[int], at: dt.datetime, k: int = 10):
    """The product's recall as POST /api/v1/recall/ calls it (cards/selectors/recall.py recall_body): as of
    `at`, a time expression in the question becoming `when` and the rest of the question scored."""
    from cards.recall.routes import recall

    timed = time_asked(query, asker=asker, at=at)
    return recall(scope_ids=scope_ids, query=timed.rest if timed else query, k=k, asker_id=asker.pk, as_of=at,
                  when=timed.interval if timed else None, when_events_only=not timed.ahead if timed else True)
