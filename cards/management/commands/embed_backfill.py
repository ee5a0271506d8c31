"""Embed every card that has no vector yet: after writes with EMBED_ON_WRITE
off, an embedder outage, or an import. The beat task cards_embed_sweep does
the same every few minutes, a bounded batch at a time; both call
cards_embed_missing.

    manage.py embed_backfill [--batch 64] [--limit N]
"""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from cards.services.embedding import EMBED_BATCH, cards_embed_missing, cards_missing_count


class Command(BaseCommand):
    help = "Embed cards whose embedding is NULL, newest first, in batches, with a progress bar."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--batch", type=int, default=EMBED_BATCH, help="cards per embedding call and UPDATE")
        parser.add_argument("--limit", type=int, default=None, help="stop after this many cards")

    def handle(self, *args, batch: int, limit: int | None, **options) -> None:
        if batch < 1 or (limit is not None and limit < 0):
            raise CommandError("--batch must be at least 1 and --limit not negative.")
        total = cards_missing_count()
        total = total if limit is None else min(limit, total)
        with tqdm(total=total, unit="card", file=sys.stderr, disable=options["verbosity"] == 0) as bar:
            done = cards_embed_missing(limit=total, batch_size=batch, progress=bar.update)
        self.stdout.write(f"Embedded {done['embedded']} of {total} cards without a vector.")
