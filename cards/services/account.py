"""Erasing an account (DESIGN §4 rule 9): a person's own act, never an agent
token's (the API and the pages hold that), answered with a receipt of counts.

What goes: the scopes only they belong to (their personal scope, and any
other with no member but them) with everything in them; in the scopes they
share, their own cards — every card they stated (they are its source), and
every card about them (their person entity, as subject or object); their
perspectives, agent tokens, memberships, review candidates and ingest jobs;
the free text of their review decisions and corrections (the decisions stay,
by nobody, as the audit log keeps them); and the account row last. A shared
scope they are the last owner of is refused (`last_owner`) until someone else
is made owner: a household is never left without one. A project below their
personal scope that others share stays, standing on its own."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext

from core.errors import InvalidInput
from scopes.models import AgentToken, Membership, Scope, ScopeKind, User, ladder_reaching_ids
from scopes.services import membership_remove

from ..models import Alias, AuditEvent, Card, CardPerspective, CardRevision, Entity, PossibleDuplicate
from .forget import Receipt, admin_log_forget, cards_forget


def _scopes_alone_in(user: User) -> list[int]:
    """Their personal scope and every other scope (never global) with no member but them."""
    mine = Membership.objects.filter(user=user).exclude(scope__kind=ScopeKind.GLOBAL).values("scope_id")
    shared = Membership.objects.filter(scope_id__in=mine).exclude(user=user).values("scope_id")
    return sorted(set(Scope.objects.filter(Q(owner=user) | Q(pk__in=mine)).exclude(pk__in=shared)
                      .exclude(kind=ScopeKind.GLOBAL).values_list("pk", flat=True)))


@transaction.atomic
def account_erase(*, user: User) -> Receipt:
    """Erase `user` and everything of theirs (see the module's docstring)."""
    user = User.objects.select_for_update().get(pk=user.pk)
    alone = _scopes_alone_in(user)
    receipt = Receipt()
    leaving = Entity.objects.filter(Q(scope_id__in=alone) | Q(user=user)).values("pk")
    cards = Card.objects.filter(Q(scope_id__in=alone) | Q(source_actor=user) | Q(subject_id__in=leaving)
                                | Q(object_id__in=leaving))
    # Their cards span scopes found only by reading them: a read across scopes, once, for an account's end.
    theirs = dict(cards.values_list("pk", "scope_id"))
    # Where rows linked to their cards may lie, read while they still belong to their households: a personal
    # scope reaches the scopes its owner is a member of (a decision there about a personal card).
    reaching = ladder_reaching_ids(set(theirs.values()))
    # Before anything is forgotten, so a refusal (the last owner of a household) leaves everything as it was.
    for membership in Membership.objects.filter(user=user).exclude(scope_id__in=alone).select_related("scope"):
        membership_remove(scope=membership.scope, user=user)
        receipt["memberships"] += 1
    receipt.update(cards_forget(cards=theirs, actor=user, scope_ids=alone, user=user, reaching=reaching))
    receipt["perspectives"] += CardPerspective.objects.filter(user=user).delete()[0]
    receipt["reasons"] += CardRevision.objects.filter(actor=user).exclude(reason="").update(reason="")
    receipt["reasons"] += PossibleDuplicate.objects.filter(decided_by=user).exclude(reason="").update(reason="")
    receipt["tokens"] += AgentToken.objects.filter(user=user).delete()[1].get("scopes.AgentToken", 0)
    leaving_ids = list(leaving.values_list("pk", flat=True))
    # Names elsewhere merged into one of theirs stand alone again.
    Entity.objects.filter(merged_into_id__in=leaving_ids).update(merged_into=None)
    receipt["aliases"] += Alias.objects.filter(Q(entity_id__in=leaving_ids) | Q(scope_id__in=alone)).count()
    admin_log_forget(Entity, leaving_ids)
    receipt["entities"] += Entity.objects.filter(pk__in=leaving_ids).delete()[1].get("cards.Entity", 0)
    Scope.objects.filter(parent_id__in=alone).exclude(pk__in=alone).update(parent=None)
    Scope.objects.filter(pk__in=alone).update(parent=None)
    admin_log_forget(Scope, alone)
    receipt["scopes"] += Scope.objects.filter(pk__in=alone).delete()[1].get("scopes.Scope", 0)
    receipt["account"] = 1
    AuditEvent.objects.create(actor=None, action="account.erased", object_type="user", object_id=user.pk,
                              detail=receipt.as_dict())
    admin_log_forget(User, [user.pk])
    user.delete()
    return receipt


@transaction.atomic
def account_erase_confirmed(*, user: User, password: str) -> Receipt:
    """The person says it with their password: a session left open is not enough."""
    if not isinstance(password, str) or not password or not user.check_password(password):
        raise InvalidInput(gettext("The password does not match; nothing was erased."),
                           fields={"password": [gettext("does not match")]})
    return account_erase(user=user)
