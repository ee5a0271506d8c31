"""Hand-written statements for the per-card write path. The ORM spent more time
compiling each statement (~0.5 ms) than PostgreSQL spent running it; these are
built once per process. Embeddings are never read on the write path."""

from __future__ import annotations

from django.db import connection

from ..models import VECTOR_FIELDS, Card

_FIELDS = [f for f in Card._meta.concrete_fields if f.name not in VECTOR_FIELDS]
_COLUMNS = ", ".join(f"c.{connection.ops.quote_name(f.column)}" for f in _FIELDS)
_INSERTABLE = [f for f in Card._meta.concrete_fields if not f.primary_key]
_PK = Card._meta.pk


def cards_where(condition: str, params: list, *, order: str = "", limit: int | None = None) -> list[Card]:
    """Cards matching a SQL condition over `c` (cards_card)."""
    sql = f"SELECT {_COLUMNS} FROM cards_card c WHERE {condition}"
    if order:
        sql += f" ORDER BY {order}"
    if limit is not None:
        sql += f" LIMIT {int(limit)}"
    return list(Card.objects.raw(sql, params))


def cards_sql(sql_with_columns: str, params: list) -> list[Card]:
    """Cards from a statement that selects `{columns}` from cards_card aliased `c`."""
    return list(Card.objects.raw(sql_with_columns.replace("{columns}", _COLUMNS), params))


def card_insert(card: Card) -> Card:
    """INSERT one card (with its id if already drawn) and mark it saved."""
    fields = _INSERTABLE if card.pk is None else [_PK, *_INSERTABLE]
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    # A field deferred by a raw read (the embedding) is written empty, never fetched.
    values = [f.get_db_prep_save(card.__dict__.get(f.attname), connection) for f in fields]
    with connection.cursor() as cursor:
        cursor.execute(f"INSERT INTO cards_card ({columns}) VALUES ({', '.join(['%s'] * len(fields))}) RETURNING id",
                       values)
        card.pk = card.id = cursor.fetchone()[0]
    card._state.adding, card._state.db = False, connection.alias
    return card


def scopes_of(cards) -> list[int]:
    """The scopes of these rows, once each: `scope_id = ANY(…)` beside a join with a list of rows lets a
    cluster send an UPDATE to those scopes' shards only."""
    return sorted({card.scope_id for card in cards})


def timestamps_literal(values) -> str:
    """A timestamptz[] as PostgreSQL's text form, for arrays inside arrays (unnest flattens nested ones)."""
    return "{" + ",".join(f'"{t.isoformat()}"' for t in values) + "}"


def _texts_literal(values) -> str:
    """A text[] as PostgreSQL's text form (every element quoted, \\ and " escaped)."""
    return "{" + ",".join('"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"' for v in values) + "}"


def cards_insert_many(cards: list[Card]) -> None:
    """INSERT cards whose ids are already drawn, as one statement over one array
    per column: a few dozen parameters however many cards. Django's bulk_create
    sends a VALUES list of 28 placeholders per card, and building and binding
    that cost more than PostgreSQL spent running it."""
    columns, casts, params = [], [], []
    for index, field in enumerate(_FIELDS):
        values = [card.__dict__.get(field.attname) for card in cards]
        db_type = field.db_type(connection)
        columns.append(connection.ops.quote_name(field.column))
        if db_type.endswith("[]"):
            # Arrays inside an array: each as its text form, cast back per row.
            literal = timestamps_literal if db_type.startswith("timestamp") else _texts_literal
            params.append([literal(v) for v in values])
            casts.append((f"%s::text[]", f"u.c{index}::{db_type}"))
        else:
            params.append(values)
            casts.append((f"%s::{db_type}[]", f"u.c{index}"))
    names = ", ".join(f"c{index}" for index in range(len(_FIELDS)))
    with connection.cursor() as cursor:
        cursor.execute(f"INSERT INTO cards_card ({', '.join(columns)}) SELECT {', '.join(c[1] for c in casts)}"
                       f" FROM unnest({', '.join(c[0] for c in casts)}) AS u({names})", params)
    for card in cards:
        card._state.adding, card._state.db = False, connection.alias


def card_update(card: Card, *, condition: str = "", **changes) -> int:
    """Set these columns of `card`, found by (id, scope_id): on a cluster, the one shard that holds it.
    `condition`: SQL the row must meet as well. Answers the rows updated (0 or 1)."""
    fields = [Card._meta.get_field(name) for name in changes]
    assignments = ", ".join(f"{connection.ops.quote_name(f.column)} = %s" for f in fields)
    values = [f.get_db_prep_save(changes[f.name], connection) for f in fields]
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE cards_card SET {assignments} WHERE id = %s AND scope_id = %s"
                       + (f" AND ({condition})" if condition else ""), [*values, card.pk, card.scope_id])
        return cursor.rowcount
