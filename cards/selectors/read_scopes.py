"""Which scopes a read covers (API.md "Reads without a scope"): the one place
that decides between a named scope and every scope read by default."""

from __future__ import annotations

from scopes.archive import scopes_read_by_default
from scopes.principals import Principal
from scopes.selectors import read_scope_ids, scope_ref_id


def scope_ids_read(*, principal: Principal, scope_id: int | str | None) -> list[int]:
    """Named (by id, or as "personal", "family", "team": `scope_ref_id`), what a read
    in that scope sees (`read_scope_ids`: 404 for a scope the principal may not view);
    unnamed, every scope the principal reads by default (`scopes_read_by_default`:
    an archived project only when named)."""
    if scope_id is not None:
        return read_scope_ids(principal=principal, scope_id=scope_ref_id(principal=principal, ref=scope_id))
    return list(scopes_read_by_default(principal).values_list("id", flat=True))
