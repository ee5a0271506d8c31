"""Locking rows of tables a cluster distributes by scope: one locking statement per scope."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import QuerySet


def locked_scope_by_scope(rows: QuerySet, *, scope_ids: Iterable[int] | None = None, **lock) -> list:
    """`rows`, locked until commit (`lock`: select_for_update's options), and answered as a list.

    One statement per scope, each filtered by its scope_id: on a Citus cluster a locking read must reach one
    shard (docs/distributed.md). In one order, scope then id, so two sweeps over overlapping rows never
    deadlock. `scope_ids`, when the caller already knows them, saves reading them first."""
    if scope_ids is None:
        scope_ids = rows.order_by("scope_id").values_list("scope_id", flat=True).distinct()
    locked: list = []
    for scope_id in sorted(set(scope_ids)):
        locked += rows.filter(scope_id=scope_id).order_by("pk").select_for_update(**lock)
    return locked
