"""What a person may share with each family or team of theirs (DESIGN §3 "Sharing by the
person's choice"), as the pages offer it: the labels of their own current personal cards
about themselves, and those already shared (a label shared before its card was forgotten
stays listed, so it can be unshared). The shares themselves are the ladder's
(scopes/sharing.py); which cards a reader then sees is the reads' to say."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils import timezone

from scopes.models import Scope
from scopes.principals import Principal
from scopes.sharing import sharing_of, sharing_scopes

from ..models import Card
from ..valid_time import valid_q
from ..words.label_names import label_name


@dataclass(frozen=True)
class Choice:
    key: str
    name: str  # in the page's language
    shared: bool


@dataclass(frozen=True)
class ScopeSharing:
    scope: Scope
    choices: list[Choice]


def own_card_labels(*, principal: Principal) -> set[str]:
    """Keys of the labels of the person's current cards in their personal scope about themselves."""
    personal = principal.user.personal_scope
    return set(Card.objects.in_scopes([personal.pk]).filter(subject__user_id=principal.user.pk)
               .filter(valid_q(timezone.now())).values_list("label__key", flat=True).distinct())


def sharing_choices(*, principal: Principal, only: Scope | None = None) -> list[ScopeSharing]:
    """For each family and team the person belongs to now (or only `only`), by id: every label they
    could share there, by name, ticked where it is shared. Nothing is ticked that they did not choose."""
    shared = {row["scope"]: set(row["labels"]) for row in sharing_of(principal=principal)}
    own = own_card_labels(principal=principal)
    found = []
    for scope in sharing_scopes(principal=principal):
        if only is not None and scope.pk != only.pk:
            continue
        keys = own | shared.get(scope.pk, set())
        choices = sorted((Choice(key=key, name=label_name(key), shared=key in shared.get(scope.pk, set()))
                          for key in keys), key=lambda choice: (choice.name, choice.key))
        found.append(ScopeSharing(scope=scope, choices=choices))
    return found


def card_sharing(*, principal: Principal, card: Card) -> list[ScopeSharing]:
    """Where the card page offers to share `card`'s label: only a current card of the person's own,
    in their personal scope and about themselves; one choice per family or team (the card's label)."""
    user = principal.user
    if principal.is_agent or card.scope_id != user.personal_scope.pk or card.subject.user_id != user.pk:
        return []
    if not Card.objects.in_scopes([card.scope_id]).filter(pk=card.pk).filter(valid_q(timezone.now())).exists():
        return []
    key = card.label.key
    shared = {row["scope"]: key in row["labels"] for row in sharing_of(principal=principal)}
    name = label_name(key)
    return [ScopeSharing(scope=scope, choices=[Choice(key=key, name=name, shared=shared.get(scope.pk, False))])
            for scope in sharing_scopes(principal=principal)]
