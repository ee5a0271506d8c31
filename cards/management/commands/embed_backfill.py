"""Embed every card that has no vector yet: after writes with EMBED_ON_WRITE
off, an embedder outage, or an import.

    manage.py embed_backfill [--batch 64] [--limit N]
"""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from cards.models import Card
from cards.services.embedding import EMBED_BATCH, cards_embed_now


class Command(BaseCommand):
    help = "Embed cards whose embedding is NULL, in batches, with a progress bar."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--batch", type=int, default=EMBED_BATCH, help="cards per embedding call and UPDATE")
        parser.add_argument("--limit", type=int, default=None, help="stop after this many cards")

    def handle(self, *args, batch: int, limit: int | None, **options) -> None:
        if batch < 1 or (limit is not None and limit < 0):
            raise CommandError("--batch must be at least 1 and --limit not negative.")
        missing = Card.objects.filter(embedding__isnull=True)
        total = missing.count()
        total = total if limit is None else min(limit, total)
        written = last_id = 0
        # Walk by id rather than re-asking for "the first NULLs": a card whose
        # text changes mid-run keeps its NULL (its own task fills it) and must
        # not be fetched again forever.
        with tqdm(total=total, unit="card", file=sys.stderr, disable=options["verbosity"] == 0) as bar:
            while bar.n < total:
                ids = list(missing.filter(id__gt=last_id).order_by("id")
                           .values_list("id", flat=True)[:min(batch, total - bar.n)])
                if not ids:
                    break
                written += cards_embed_now(card_ids=ids, batch_size=batch)
                last_id = ids[-1]
                bar.update(len(ids))
        self.stdout.write(f"Embedded {written} of {total} cards without a vector.")
