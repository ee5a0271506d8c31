"""Celery entry points: take ids, call a service (STYLE.md convention 6)."""

from __future__ import annotations

import logging

from celery import shared_task
from celery.utils.time import get_exponential_backoff_interval
from django.db import InterfaceError, OperationalError

from scopes.models import Scope

from .extract.base import ExtractionFailed
from .services.forget import candidates_retain
from .services.hypotheses import hypotheses_decay
from .services.ingest import ingest_fail, ingest_job_scope, ingest_process, ingest_sweep
from .services.signals import signals_expire
from .services.upkeep import upkeep_run, upkeep_scopes_run

log = logging.getLogger(__name__)
MAX_RETRIES = 5
# The longest countdown (10 min) stays far below the broker's visibility timeout
# (settings: 6 h), so a retried task is never also redelivered as unacknowledged.
MAX_COUNTDOWN = 600


def _retryable(error: Exception) -> bool:
    return isinstance(error, (OperationalError, InterfaceError)) or getattr(error, "retryable", False)


# acks_late: a worker killed mid-task leaves the message to be delivered again;
# ingest_process is idempotent (a finished job is left alone, and everything a
# run writes commits at once), so the job completes exactly once. The job is a
# row of its scope, found and locked by (id, scope_id): the message carries both.
# `scope_id` may be missing from a message queued before it did (a task waiting
# in the broker, or redelivered, across a deploy): its scope is then read once
# from the job's id, so those tasks still run instead of failing.
@shared_task(bind=True, acks_late=True, max_retries=MAX_RETRIES)
def ingest_extract(self, job_id: int, scope_id: int | None = None) -> str:
    try:
        if scope_id is None:
            scope_id = ingest_job_scope(job_id)
        return ingest_process(job_id=job_id, scope_id=scope_id).status
    except Exception as error:  # noqa: BLE001 - every failure ends visible on the job, or is retried
        if _retryable(error) and not self.request.is_eager and self.request.retries < MAX_RETRIES:
            countdown = get_exponential_backoff_interval(factor=5, retries=self.request.retries,
                                                         maximum=MAX_COUNTDOWN, full_jitter=True)
            raise self.retry(exc=error, countdown=countdown)
        if not isinstance(error, ExtractionFailed):
            log.exception("ingest job %s failed", job_id)
        if scope_id is None:  # the job itself could not be read: nothing to mark failed
            raise
        return ingest_fail(job_id=job_id, scope_id=scope_id, error=error).status


@shared_task(acks_late=True)
def hypotheses_nightly() -> dict:
    """Demote and discard hypotheses that were not reinforced (beat: nightly)."""
    return hypotheses_decay()


@shared_task(acks_late=True)
def ingest_sweep_stale() -> dict:
    """Re-deliver ingest jobs whose task was lost; fail (and wipe) the too old (beat: every 15 minutes)."""
    return ingest_sweep()


@shared_task(acks_late=True)
def candidates_retention() -> dict:
    """Rejected and stale candidates lose their words after the retention period (beat: nightly)."""
    return candidates_retain()


@shared_task(acks_late=True)
def signals_expiry() -> dict:
    """Signals not said again within their days are deleted (beat: nightly; ingest also clears its scope's)."""
    return signals_expire()


@shared_task(acks_late=True)
def upkeep_weekly() -> int:
    """Propose the week's tidying in every scope, into the review queues (beat: weekly). Idempotent:
    what still waits is not proposed again."""
    return upkeep_scopes_run()


@shared_task(acks_late=True)
def upkeep_scope(scope_id: int) -> dict:
    """One scope's upkeep run; answers its counts."""
    summary = upkeep_run(Scope.objects.get(pk=scope_id))
    return {"promotions": summary.count("promote"), "demotions": summary.count("demote"),
            "merges": summary.count("merge"), "already_waiting": summary.already_waiting}
