"""Recall's SQL alone, two versions of the code side by side, on a database kept by
`recall.py --keep` (default ``memory_site_bench_recall``).

    # in each checkout to compare (a worktree of the older commit, and this one):
    .venv/bin/python bench/recall_statements.py capture /tmp/old.pickle [--broad]
    .venv/bin/python bench/recall_statements.py capture /tmp/new.pickle [--broad]
    # then, in either:
    .venv/bin/python bench/recall_statements.py compare /tmp/old.pickle /tmp/new.pickle [--rounds 8]

`capture` runs recall for ``--queries`` distinct bench queries (the household read, or the
broad one with ``--broad``) and keeps every statement it sent with its parameters. `compare`
replays both captures in one process and one connection, alternating which goes first each
round, and prints per request (the sum of its statements) the min and the median of each: on a
shared machine the noise then falls on both alike, which timing two runs apart does not give.
"""

from __future__ import annotations

import argparse
import os
import pickle
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")


def setup(database: str) -> None:
    from django.conf import settings
    settings.DATABASES["default"]["NAME"] = database
    import django
    django.setup()


def capture(path: str, *, broad: bool, queries: int, route: str | None) -> None:
    from django.db import connection

    import recall_seed as seeding
    from cards.recall import routes
    world = seeding.world_load()
    scope_ids = world.scope_ids[:80] if broad else world.caller_scope_ids
    texts = seeding.Queries(5)
    requests = []
    for _ in range(queries):
        sent = []

        def keep(execute, sql, params, many, context):
            sent.append((sql, params))
            return execute(sql, params, many, context)
        with connection.execute_wrapper(keep):
            routes.recall(scope_ids=scope_ids, query=texts.next(), route=route)
        requests.append(sent)
    Path(path).write_bytes(pickle.dumps(requests))
    print(f"{len(requests)} requests, {sum(map(len, requests))} statements → {path}")


def replay(cursor, request) -> float:
    started = time.perf_counter()
    for sql, params in request:
        cursor.execute(sql, params)
        if cursor.description is not None:
            cursor.fetchall()
    return (time.perf_counter() - started) * 1000


def compare(first: str, second: str, *, rounds: int) -> None:
    from django.db import connection
    captured = {name: pickle.loads(Path(name).read_bytes()) for name in (first, second)}
    times: dict[str, list[float]] = {name: [] for name in captured}
    with connection.cursor() as cursor:
        for round_ in range(rounds):
            for name in (first, second) if round_ % 2 == 0 else (second, first):
                times[name] += [replay(cursor, request) for request in captured[name]]
    for name, values in times.items():
        print(f"{name}: {len(values)} requests, ms per request min {min(values):.2f}"
              f" median {statistics.median(values):.2f}")
    ratio = statistics.median(times[second]) / statistics.median(times[first])
    print(f"median ratio second/first: {ratio:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", default="memory_site_bench_recall")
    commands = parser.add_subparsers(dest="command", required=True)
    take = commands.add_parser("capture")
    take.add_argument("path")
    take.add_argument("--broad", action="store_true", help="80 scopes instead of the caller's 5")
    take.add_argument("--queries", type=int, default=12)
    take.add_argument("--route", choices=["exact", "index"], help="force a route (default: recall's choice)")
    both = commands.add_parser("compare")
    both.add_argument("first")
    both.add_argument("second")
    both.add_argument("--rounds", type=int, default=8)
    args = parser.parse_args()
    setup(args.database)
    if args.command == "capture":
        capture(args.path, broad=args.broad, queries=args.queries, route=args.route)
    else:
        compare(args.first, args.second, rounds=args.rounds)


if __name__ == "__main__":
    main()
