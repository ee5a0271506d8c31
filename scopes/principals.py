"""Who is asking: a signed-in person, or an agent token acting for one. Every
read and write is restricted through `scope_ids_for`."""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import EmptyResultSet
from django.db import connection
from django.db.models import Q, QuerySet

from core.errors import NotAllowed

from .models import AgentToken, Scope, ScopeKind, ScopeUserObjectPermission, User
from .wards import ward_ids

ACTION_PERMISSIONS = {
    "view": "view_scope",
    "write": "write_scope",
    "review": "review_scope",
    "manage": "manage_scope",
    # Where a proposal may be made: where the person could write it themselves
    # (approving it writes it as them).
    "propose": "write_scope",
    # Forgetting is a privacy right: whoever may write may forget, even where
    # an archive keeps everything else from changing.
    "forget": "write_scope",
}
# What an archived scope withholds (scopes/archive.py): it is read-only, so
# nothing is written, proposed or approved there until it is restored. Viewing,
# forgetting and managing (members, restore) stay.
ARCHIVE_WITHHOLDS = frozenset({"write", "propose", "review"})
# What an agent token can ever be used for, by its access; review and membership
# stay with people. A propose-only token never writes: every write endpoint
# refuses it, and remember sends its cards to the review queue instead.
TOKEN_ACTIONS = {"read": {"view"}, "read+write": {"view", "write", "forget"}, "propose": {"view", "propose"}}
TOKEN_ACCESS = tuple(TOKEN_ACTIONS)


@dataclass(frozen=True)
class Principal:
    user: User
    token: AgentToken | None = None

    @property
    def is_agent(self) -> bool:
        return self.token is not None

    @property
    def proposes(self) -> bool:
        """A propose-only token: its writes become candidates in its person's review queue."""
        return self.token is not None and self.token.proposes

    @property
    def write_action(self) -> str:
        """What asking to write means for this principal: a write, or for a propose-only token a proposal."""
        return "propose" if self.proposes else "write"

    def scope_ids(self, action: str) -> QuerySet:
        """`scope_ids_for` this principal: what the restriction primitive (scopes/restriction.py) asks."""
        return scope_ids_for(self, action)


def principal_of(request) -> Principal:
    token = request.auth if isinstance(getattr(request, "auth", None), AgentToken) else None
    return Principal(user=request.user, token=token)


def principal_of_page(request) -> Principal:
    """A signed-in person; pages never act for an agent token."""
    return Principal(user=request.user)


def scope_create_check(principal: Principal) -> None:
    """Who may create a scope: a person, or a read+write token over all of their
    scopes (it sees every scope they own anyway). A token limited to some scopes
    creates none: the new scope would be one it could not see before."""
    token = principal.token
    if token is not None and not token.can_write:
        raise NotAllowed("A read-only token cannot create scopes.")
    if token is not None and not token.all_scopes:
        raise NotAllowed("A token limited to some scopes cannot create scopes: it would reach beyond them.")


def scope_ids_for(principal: Principal, action: str, *, archive_holds: bool = True) -> QuerySet:
    """Ids of the scopes `principal` may `action`, as a subquery (never a list):
    the user's guardian grants — narrowed by the token's scopes and access when
    an agent asks, and for writing, proposing and reviewing by the archive —
    plus, for viewing, `global` and the personal scopes of the minors the user
    guards (scopes/wards.py), narrowed by a token's scopes alike. Losing a
    grant narrows every token at once, because nothing is copied into the token. `archive_holds=False`
    only to tell an archived scope's refusal apart (scopes/archive.py)."""
    if action not in ACTION_PERMISSIONS:
        raise ValueError(f"unknown action {action!r}")
    if principal.token is not None and action not in TOKEN_ACTIONS[principal.token.access]:
        return Scope.objects.none().values("id")
    granted = ScopeUserObjectPermission.objects.filter(
        user_id=principal.user.pk, permission__codename=ACTION_PERMISSIONS[action],
        permission__content_type__app_label="scopes")
    token = principal.token
    chosen = None
    if token is not None and not token.all_scopes:
        chosen = AgentToken.scopes.through.objects.filter(agenttoken_id=token.pk).values("scope_id")
        granted = granted.filter(content_object_id__in=chosen)
    condition = Q(id__in=granted.values("content_object_id"))
    if archive_holds and action in ARCHIVE_WITHHOLDS:
        condition &= Q(archived_at__isnull=True)
    if action == "view":
        # Admitted common sense is read-only for every principal, agents included.
        condition |= Q(kind=ScopeKind.GLOBAL)
        # A minor's personal scope is read (never written) by their guardians, decided now
        # from the memberships, so clearing the mark or leaving the family ends it at once.
        # Who guards is the person, whatever token asks: their own grants decide.
        managed = scope_ids_for(Principal(principal.user), "manage")
        wards = Scope.objects.filter(kind=ScopeKind.PERSONAL,
                                     owner_id__in=ward_ids(guardian_id=principal.user.pk, managed=managed))
        condition |= Q(id__in=(wards if chosen is None else wards.filter(id__in=chosen)).values("id"))
    return Scope.objects.filter(condition).values("id")


def scope_ids_listed(principal: Principal, *actions: str) -> list[list[int]]:
    """`scope_ids_for` of each action, as lists, in one statement: for a read of a distributed row whose scope
    is not known yet (a detail endpoint's row). The permission tables are replicated on a cluster, so this is
    one local read; the row's statement then names these scopes as constants, which Citus routes, where a
    permission subquery inside it would ask every shard (docs/distributed.md)."""
    none = "ARRAY[]::bigint[]"
    arrays, params = [], []
    for action in actions:
        try:
            sql, values = scope_ids_for(principal, action).query.sql_with_params()
        except EmptyResultSet:  # a token that may never do this: nothing to read
            arrays.append(none)
            continue
        arrays.append(f"ARRAY({sql})")
        params += values
    if all(array == none for array in arrays):
        return [[] for _ in actions]
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {', '.join(arrays)}", params)
        return [sorted(ids) for ids in cursor.fetchone()]
