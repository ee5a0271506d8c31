"""Sharing by the person's choice (DESIGN §3): the ladder keeps the shares
(scopes/sharing.py) and knows no labels, so the registry's check is made here, once,
for the API and the pages alike: a key or a synonym names its label, anything else is
`unknown_label` with close labels. Any registered label may be shared, whatever its
kind: a birthday, an employer, an allergy or a wedding are the person's to show."""

from __future__ import annotations

from django.db import transaction

from scopes.models import Scope
from scopes.principals import Principal
from scopes.sharing import sharing_of, sharing_person_check, sharing_set

from ..labels import label_resolve


def sharing_keys(names: list[str]) -> list[str]:
    """The registry keys `names` (keys or synonyms) name, sorted, each once."""
    return sorted({label_resolve(name).key for name in names})


@transaction.atomic
def sharing_choose(*, principal: Principal, scope: Scope, labels: list[str]) -> list[str]:
    """The person shares exactly `labels` with `scope`; the keys kept, sorted."""
    sharing_person_check(principal)  # before the registry is asked anything
    return sharing_set(principal=principal, scope=scope, labels=sharing_keys(labels))


@transaction.atomic
def sharing_label_set(*, principal: Principal, scope: Scope, label: str, shared: bool) -> list[str]:
    """One label shared with `scope` (or, `shared=False`, no longer), the others as they were."""
    key = label_resolve(label).key
    current = next((set(row["labels"]) for row in sharing_of(principal=principal) if row["scope"] == scope.pk), set())
    wanted = current | {key} if shared else current - {key}
    return sharing_set(principal=principal, scope=scope, labels=sorted(wanted))
