"""Celery entry points of the ladder: thin, each calls a service."""

from __future__ import annotations

from celery import shared_task

from .connections import connections_tidy


@shared_task(acks_late=True)
def connections_tidy_nightly() -> dict:
    """Expired OAuth tokens and unused registrations go (beat: nightly)."""
    return connections_tidy()
