"""Celery entry points: take ids, call a service (STYLE.md convention 6)."""

from __future__ import annotations

from celery import shared_task
from celery.utils.time import get_exponential_backoff_interval
from django.db import InterfaceError, OperationalError

from .embeddings import EmbeddingUnavailable
from .recall.snapshots import scope_log_fold
from .services.embedding import cards_embed_missing, cards_embed_now

# Passing trouble: the embedding server or the database coming back.
RETRYABLE = (EmbeddingUnavailable, OperationalError, InterfaceError)


# acks_late: a worker killed mid-batch leaves the message for another; rerunning is harmless.
# `scope_ids` (the n-th card's scope) say where each card lives, so a cluster reads and writes only
# their shards. A message queued before it carried them (waiting in the broker across a deploy) has
# none: its cards are then looked for by id, and still embedded.
@shared_task(bind=True, acks_late=True, max_retries=6)
def cards_embed(self, card_ids: list[int], scope_ids: list[int] | None = None) -> int:
    """Compute and store the vectors of these cards (missing ones are skipped)."""
    try:
        return cards_embed_now(card_ids=card_ids, scope_ids=scope_ids or ())
    except RETRYABLE as error:
        if self.request.is_eager:
            # Eager Celery would retry at once, in the request, with no backoff.
            # The card is committed; `embed_backfill` fills what is left NULL.
            raise
        # Up to 10 s, 20 s, 40 s … 10 min, fully jittered so a fleet of workers doesn't retry in step.
        countdown = get_exponential_backoff_interval(factor=10, retries=self.request.retries,
                                                     maximum=600, full_jitter=True)
        raise self.retry(exc=error, countdown=countdown)


# Beat, every few minutes (settings.CELERY_BEAT_SCHEDULE "cards-embed-sweep"): a
# card committed by a process that died before its cards_embed task was queued
# has no message anywhere; this finds it. A failure is left to the next run.
@shared_task(acks_late=True)
def cards_embed_sweep() -> dict:
    """Embed a bounded batch of committed cards that have no vector, newest first."""
    return cards_embed_missing()


# Beat, hourly (settings.CELERY_BEAT_SCHEDULE "cards-scope-log-fold"): the scope-change log recall's
# snapshots are checked against grows by a row a write; this keeps it a few rows a scope.
@shared_task(acks_late=True)
def cards_scope_log_fold() -> int:
    """Fold each busy scope's rows of the scope-change log into one; returns how many rows went."""
    return scope_log_fold()
