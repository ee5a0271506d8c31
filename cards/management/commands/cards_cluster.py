"""Rewrite the cards table in the order of its scopes (CLUSTER … USING card_timeline),
so a household's cards sit in few pages instead of one each across the whole table:
cards arrive interleaved from every tenant, and a read of one scope then touches as
many heap pages as it has cards (bench/README "recall.py", a million cards).

    manage.py cards_cluster

CLUSTER holds an exclusive lock on cards_card while it rewrites the table and rebuilds
its indexes (the HNSW graph too): reads and writes wait. Run it in a quiet hour; the
time it took at a million cards is in bench/README. New cards append at the end, so
the order decays with writes; run it again when a scope's read slows.
"""

from __future__ import annotations

import re
import time

from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from core.citus import is_distributed

ORDER_INDEX = "card_timeline"   # (scope, subject, label, effective_at): a scope's cards, each subject's together


class ClusterRefused(Exception):
    pass


def cards_cluster(*, maintenance_work_mem: str = "2GB") -> dict:
    """CLUSTER and VACUUM (ANALYZE) the cards table; returns the seconds each took. Refuses on a Citus
    coordinator whose cards are distributed: CLUSTER would rewrite only the coordinator's empty table, and
    each shard already holds its scopes' cards apart from the rest of the table."""
    started = time.perf_counter()
    with connection.cursor() as cursor:
        if is_distributed(cursor, "cards_card"):
            raise ClusterRefused("cards_card is distributed over a Citus cluster: its shards already keep "
                                 "each scope's cards apart, and CLUSTER would reach none of them.")
        # The HNSW graph is rebuilt as part of the rewrite: in memory it takes minutes, spilled far longer.
        cursor.execute(f"SET maintenance_work_mem = '{maintenance_work_mem}'")
        cursor.execute(f"CLUSTER cards_card USING {ORDER_INDEX}")
        clustered = time.perf_counter()
        # VACUUM, not ANALYZE alone: the rewrite leaves the visibility map empty, and until it is
        # set again every index-only scan reads the heap (recall's count of a household's
        # candidates: 0.5 against 4 ms at 1M cards).
        cursor.execute("VACUUM (ANALYZE) cards_card")
        cursor.execute("RESET maintenance_work_mem")
    return {"cluster_s": round(clustered - started, 1), "vacuum_s": round(time.perf_counter() - clustered, 1)}


class Command(BaseCommand):
    help = "Rewrite cards_card in scope order (CLUSTER USING card_timeline; an exclusive lock while it runs)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--maintenance-work-mem", default="2GB",
                            help="memory for rebuilding the indexes, the HNSW graph above all (default 2GB)")

    def handle(self, *args, maintenance_work_mem: str, **options) -> None:
        if not re.fullmatch(r"\d+(kB|MB|GB)", maintenance_work_mem):
            raise CommandError("--maintenance-work-mem is a size such as 512MB or 2GB.")
        try:
            took = cards_cluster(maintenance_work_mem=maintenance_work_mem)
        except ClusterRefused as refused:
            raise CommandError(str(refused)) from None
        self.stdout.write(f"Clustered cards_card by scope in {took['cluster_s']} s "
                          f"(VACUUM ANALYZE {took['vacuum_s']} s).")
