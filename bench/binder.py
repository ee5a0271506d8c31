"""The binder's cost in-process: how long one name takes to bind.

    .venv/bin/python bench/binder.py [--binds 1000] [--rounds 3] [--entities 500]

In one transaction that is rolled back at the end (nothing stays behind), a
throwaway user gets `--entities` named entities in their personal scope; then,
`--binds` times per round:

* known: `entity_bind` of an existing name (a read's filter, an answer's subject);
* unknown: `entity_bind` of a name nobody has, with "did you mean" suggestions;
* new: `entity_for_write` of a new name, which creates the entity (a write).

Prints the median microseconds per call over the rounds, and the SQL
statements per call. Run it on two commits to compare them (bench/README.md).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")
os.environ.setdefault("EMBED_ON_WRITE", "0")
import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from cards.models import Entity  # noqa: E402
from cards.selectors.entities import entity_bind  # noqa: E402
from cards.services.entities import entity_for_write  # noqa: E402
from scopes.models import User  # noqa: E402


def timed(call, names: list[str]) -> float:
    """Microseconds per call of `call(name)` over `names`."""
    started = time.perf_counter()
    for name in names:
        call(name)
    return (time.perf_counter() - started) / len(names) * 1e6


def statements(call, name: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        call(name)
    return len(captured.captured_queries)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binds", type=int, default=1_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--entities", type=int, default=500)
    options = parser.parse_args()
    settings.DEBUG = False
    run = secrets.token_hex(3)
    report: dict = {"binds": options.binds, "rounds": options.rounds, "entities": options.entities,
                    "load_before": os.getloadavg()[0]}
    with transaction.atomic():
        user = User.objects.create_user(username=f"bench_binder_{run}", password=None)
        scope = user.personal_scope
        for i in range(options.entities):
            Entity.objects.create(scope=scope, name=f"Place {i:04d}", kind="place")
        kinds = {
            "known": (lambda name: entity_bind(name=name, scope_ids=[scope.pk], speaker=user),
                      lambda r, i: f"Place {i % options.entities:04d}"),
            "unknown": (lambda name: entity_bind(name=name, scope_ids=[scope.pk], speaker=user),
                        lambda r, i: f"Nowhere {r}-{i:05d}"),
            "new": (lambda name: entity_for_write(scope=scope, actor=user, ref=name),
                    lambda r, i: f"New place {r}-{i:05d}"),
        }
        for kind, (call, name_of) in kinds.items():
            call(name_of(-1, 0))  # compiled and prepared once, as in a running process
            report[f"{kind}_statements"] = statements(call, name_of(-2, 1))
            report[f"{kind}_us"] = round(statistics.median(
                timed(call, [name_of(r, i) for i in range(options.binds)]) for r in range(options.rounds)), 1)
        transaction.set_rollback(True)
    report["load_after"] = os.getloadavg()[0]
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
