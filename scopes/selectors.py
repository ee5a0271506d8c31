"""Reads of scopes, always through the principal (STYLE 2–3): "does not exist"
and "you may not see it" are the same 404."""

from __future__ import annotations

from django.contrib.postgres.aggregates import StringAgg
from django.db import connection
from django.db.models import OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce, Concat, NullIf
from django.db.models.expressions import RawSQL
from django.http import Http404
from django.utils.translation import gettext as _

from core.compiled import Compiled

from .errors import AmbiguousScope, NoScopeOfKind
from .idle import scope_read_seen
from .models import (KIND_NAMES, LADDER_READ_SQL, MAX_LADDER_DEPTH, AgentToken, Invitation, InvitationStatus,
                     MemberRelation, Membership, Role, Scope, ScopeKind, User)
from .principals import Principal
from .visibility import row_get


def scope_ref_id(*, principal: Principal, ref: int | str) -> int:
    """The id of the scope a request names (core.api.common.ScopeRefField): an id as it is; "personal",
    "family" or "team", the caller's one scope of that kind they belong to and read (not archived) —
    404 `not_found` when there is none, 400 `ambiguous_scope` with the candidates when there are several."""
    if isinstance(ref, int):
        return ref
    kind = ScopeKind(ref)
    mine = Scope.objects.visible_to(principal, "view").filter(kind=kind, archived_at__isnull=True)
    # Their own: a guardian reads a child's personal scope, a member is in the family.
    mine = (mine.filter(owner_id=principal.user.pk) if kind == ScopeKind.PERSONAL
            else mine.filter(memberships__user_id=principal.user.pk))
    found = list(mine.order_by("id").values("id", "name")[:MAX_CANDIDATES + 1])
    if len(found) == 1:
        return found[0]["id"]
    if not found:
        raise NoScopeOfKind(_("You read no %(kind)s scope.") % {"kind": KIND_NAMES[kind]})
    raise AmbiguousScope(_("You are in several %(kind)s scopes: name one by its id.") % {"kind": KIND_NAMES[kind]},
                         candidates=[{"id": row["id"], "name": row["name"]} for row in found[:MAX_CANDIDATES]])


# More scopes of one kind than this are listed only in part when a word names none of them.
MAX_CANDIDATES = 20


def scope_get(*, principal: Principal, scope_id: int, action: str = "view") -> Scope:
    """The scope if `principal` may view it (else 404) and may `action` it (else 403), in one query:
    the one-row read of every scoped row (scopes.visibility.row_get), its permission subqueries inline."""
    return row_get(Scope.objects.all(), principal=principal, pk=scope_id, action=action, listed=False)


def scope_list(*, principal: Principal, archived: bool | None = None) -> QuerySet[Scope]:
    """Scopes `principal` may view, with the caller's role and relation in each;
    only the archived ones (`archived=True`) or only the active ones (False)."""
    mine = Membership.objects.visible_to(principal, "view").filter(scope=OuterRef("pk"), user_id=principal.user.pk)
    # "mother of Kai, wife of Sam": the caller's relations there, from their side, in the words said.
    relations = (MemberRelation.objects.visible_to(principal, "view").filter(scope=OuterRef("pk"),
                                                                           member_id=principal.user.pk)
                 .annotate(words=Concat(Coalesce(NullIf("said", Value("")), "relation"), Value(" of "),
                                        Coalesce(NullIf("of__display_name", Value("")), "of__username")))
                 .values("scope").annotate(all=StringAgg("words", ", ", order_by="id")).values("all"))
    scopes = Scope.objects.visible_to(principal, "view")
    if archived is not None:
        scopes = scopes.filter(archived_at__isnull=not archived)
    return (scopes.annotate(role=Subquery(mine.values("role")[:1]), relation=Subquery(relations[:1]))
            .order_by("id"))


# A person answers invitations one by one; past this many, the oldest wait unseen until they do.
INVITATIONS_SHOWN = 100


def invitations_waiting(*, principal: Principal, invitation_id: int | None = None) -> list[Invitation]:
    """The signed-in person's open invitations, newest first (or the one named).
    Read by invitee, not through the scope: until they accept they may not view
    it (that is the point); what they see is the scope's name and kind, who
    asked, and the role offered. Evaluated here, so the read stays this one."""
    rows = (Invitation.objects.filter(invitee_id=principal.user.pk, status=InvitationStatus.INVITED)
            .select_related("scope", "invited_by").order_by("-created_at", "-id"))
    if invitation_id is not None:
        rows = rows.filter(pk=invitation_id)
    return list(rows[:INVITATIONS_SHOWN])


def invitation_waiting(*, principal: Principal, invitation_id: int) -> Invitation:
    """One of the person's open invitations; anyone else's (or an answered one) is the same 404."""
    found = invitations_waiting(principal=principal, invitation_id=invitation_id)
    if not found:
        raise Http404
    return found[0]


def scope_leave_state(*, principal: Principal, scope: Scope) -> str:
    """What the scope page offers about leaving `scope` (already checked visible):
    "leave", "last_owner" (who must hand ownership over first: membership_remove
    holds that rule), or "" where there is nothing to leave (personal, global)."""
    if scope.kind in (ScopeKind.PERSONAL, ScopeKind.GLOBAL):
        return ""
    rows = list(Membership.objects.in_scopes([scope.pk]).filter(Q(user_id=principal.user.pk) | Q(role=Role.OWNER))
                .values_list("user_id", "role"))
    mine = next((role for user_id, role in rows if user_id == principal.user.pk), None)
    if mine is None:
        return ""
    if mine == Role.OWNER and sum(role == Role.OWNER for _, role in rows) == 1:
        return "last_owner"
    return "leave"


def _read_scope_ids_query(*, agent: bool, all_scopes: bool, can_write: bool, user_id: int, scope_id: int,
                          token_id: int | None = None):
    user = User(pk=user_id)
    token = AgentToken(pk=token_id, all_scopes=all_scopes, can_write=can_write) if agent else None
    # The ladder as a read climbs it: an archived scope is read only when it is the one named.
    ladder = RawSQL(LADDER_READ_SQL, [scope_id, MAX_LADDER_DEPTH])
    return (Scope.objects.visible_to(Principal(user=user, token=token), "view")
            .filter(Q(pk__in=ladder) | Q(owner_id=user_id, kind=ScopeKind.PERSONAL) | Q(kind=ScopeKind.GLOBAL))
            .values("id", "last_read_at"))


_READ_SCOPE_IDS = Compiled(_read_scope_ids_query, "user_id", "scope_id", "token_id")


def _read_scope_ids_values(principal: Principal, scope_id) -> tuple[dict, dict]:
    """The values and the query's shape (the cache key) of `principal`'s reads in `scope_id`."""
    token = principal.token
    values = {"user_id": principal.user.pk, "scope_id": scope_id}
    if token is not None and not token.all_scopes:
        values["token_id"] = token.pk
    shape = {"agent": token is not None, "all_scopes": bool(token and token.all_scopes),
             "can_write": bool(token and token.can_write)}
    return values, shape


def read_scope_ids(*, principal: Principal, scope_id: int) -> list[int]:
    """Scopes a read in scope `scope_id` sees (DESIGN §3): the scope, its
    ancestors, the caller's personal scope and `global` — each only if the
    caller may view it. Never siblings or children, nor an archived scope but
    the one named (scopes/archive.py). 404 when the caller may not view the
    scope itself. Writes nothing: it tells the request being answered which
    scope it read, which notes it for the upkeep job there (scopes/idle.py).

    One query, evaluated here: a handful of ids as a plain list plans far better
    than a nested permission subquery inside the card query. Compiled once per
    kind of principal (every read asks this first)."""
    values, shape = _read_scope_ids_values(principal, scope_id)
    rows = _READ_SCOPE_IDS.rows(values, **shape)
    named = next((row for row in rows if row["id"] == scope_id), None)
    if named is None:
        raise Http404
    scope_read_seen(scope_id=scope_id, last_read_at=named["last_read_at"])
    return [row["id"] for row in rows]


# Stands in for the scope a read starts from while its SQL is taken from the one query.
_START = -7_340_031


def read_scope_sets(*, principal: Principal, scope_ids: list[int]) -> dict[int, set[int]]:
    """`read_scope_ids` for many scopes in one query: {scope id: the scopes a read
    there sees}. The same query (the one rule), run once per scope by a lateral
    join, the starting scope a column instead of a parameter. A scope the
    principal may not view sees nothing and is absent."""
    if not scope_ids:
        return {}
    values, shape = _read_scope_ids_values(principal, _START)
    sql, params = _read_scope_ids_query(**values, **shape).query.sql_with_params()
    pieces = sql.split("%s")
    starts = [i for i, value in enumerate(params) if value == _START]
    if len(pieces) != len(params) + 1 or len(starts) != 1:
        raise RuntimeError("the read query must take its starting scope exactly once")
    at = starts[0]
    one = "%s".join(pieces[:at + 1]) + "start.id" + "%s".join(pieces[at + 1:])
    rest = [value for i, value in enumerate(params) if i != at]
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT start.id, seen.id FROM unnest(%s::bigint[]) AS start(id)"
                       f" CROSS JOIN LATERAL ({one}) AS seen", [list(scope_ids), *rest])
        sets: dict[int, set[int]] = {}
        for start, seen in cursor.fetchall():
            sets.setdefault(start, set()).add(seen)
    return {start: seen for start, seen in sets.items() if start in seen}
