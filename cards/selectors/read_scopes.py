"""Which cards a read covers (API.md "Reads without a scope", DESIGN §3 "Sharing by
the person's choice"): the one place that decides between a named scope and every
scope read by default, and which of other members' shares the read meets."""

from __future__ import annotations

from django.core.exceptions import EmptyResultSet
from django.db import connection

from scopes.archive import scopes_read_by_default
from scopes.principals import Principal
from scopes.selectors import read_scope_ids, scope_ref_id

from ..reads import Read

# The shares a read meets: those made with a scope it sees ({among}), by someone else still a member there, of
# their own cards (their person entity, in their personal scope) with the shared label. Leaving the scope
# ends them at once (the membership join), as unsharing does (the row is gone).
_SHARES_SQL = """SELECT e.scope_id, e.id, l.id, s.scope_id
  FROM scopes_share s
  JOIN scopes_membership m ON m.scope_id = s.scope_id AND m.user_id = s.owner_id
  JOIN cards_entity e ON e.user_id = s.owner_id
  JOIN cards_label l ON l.key = s.label_key
 WHERE s.scope_id {among} AND s.owner_id <> %s"""


def scope_ids_read(*, principal: Principal, scope_id: int | str | None) -> Read:
    """Named (by id, or as "personal", "family", "team": `scope_ref_id`), what a read
    in that scope sees (`read_scope_ids`: 404 for a scope the principal may not view);
    unnamed, every scope the principal reads by default (`scopes_read_by_default`:
    an archived project only when named). With the shares other members made with
    those scopes (`Read.shared`)."""
    if scope_id is not None:
        scope_ids = read_scope_ids(principal=principal, scope_id=scope_ref_id(principal=principal, ref=scope_id))
        return read_of(scope_ids, principal=principal)
    try:
        sql, params = scopes_read_by_default(principal).values("id").query.sql_with_params()
    except EmptyResultSet:  # a token that may read nothing
        return Read()
    # One statement for the scopes and their shares: a read that names no scope costs what it did.
    with connection.cursor() as cursor:
        cursor.execute(f"WITH read AS MATERIALIZED ({sql}) SELECT id, NULL::bigint, NULL::bigint, NULL::bigint FROM read"
                       f" UNION ALL ({_SHARES_SQL.format(among='IN (SELECT id FROM read)')})",
                       [*params, principal.user.pk])
        rows = cursor.fetchall()
    return Read([row[0] for row in rows if row[1] is None], [row[:3] for row in rows if row[1] is not None])


def read_of(scope_ids: list[int], *, principal: Principal) -> Read:
    """`scope_ids` (already what the principal may read) as a Read, with the shares it meets."""
    return reads_of({0: scope_ids}, principal=principal)[0]


def reads_of(sets: dict[int, list[int]], *, principal: Principal) -> dict[int, Read]:
    """Many reads at once ({key: the scopes it sees}, as `read_scope_sets` gives them), each a Read with
    the shares made with a scope it sees: one statement for all."""
    every = sorted(set().union(*sets.values())) if sets else []
    with connection.cursor() as cursor:
        cursor.execute(_SHARES_SQL.format(among="= ANY(%s)"), [every, principal.user.pk])
        rows = cursor.fetchall()
    reads = {}
    for key, seen in sets.items():
        among = set(seen)
        reads[key] = Read(seen, [row[:3] for row in rows if row[3] in among])
    return reads
