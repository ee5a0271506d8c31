"""Shared by the benches: delete what a run created in plain SQL."""

from __future__ import annotations

from django.db import models
from django.db.models.deletion import get_candidate_relations_to_delete


def raw_cascade(cursor, model, where: str, params: list, tables: set[str]) -> int:
    """DELETE model rows matching `where`, after deleting (CASCADE) or nulling
    (SET_NULL) the rows that point at them, as Django's collector would, but in
    plain SQL over primary and foreign key columns only: it neither loads 100,000
    cards into memory nor breaks when a model has a field or table not yet
    migrated. PROTECT references are left alone, so they fail loudly."""
    opts = model._meta
    ids = f'SELECT "{opts.pk.column}" FROM "{opts.db_table}" WHERE {where}'
    for rel in get_candidate_relations_to_delete(opts):
        related = rel.related_model
        if related is model or related._meta.db_table not in tables:
            continue
        column = rel.field.column
        if rel.on_delete is models.CASCADE:
            raw_cascade(cursor, related, f'"{column}" IN ({ids})', params, tables)
        elif rel.on_delete is models.SET_NULL:
            cursor.execute(f'UPDATE "{related._meta.db_table}" SET "{column}" = NULL WHERE "{column}" IN ({ids})',
                           params)
    cursor.execute(f'DELETE FROM "{opts.db_table}" WHERE {where}', params)
    return cursor.rowcount
