"""The dashboard's entities page: the entities in the scopes a person may view
(common sense aside), their aliases and merges, the open merge proposals and
how fast each label fades; and adding an alias. Thin: the API's selectors
restrict, the services write."""

from __future__ import annotations

from django.contrib import messages
from django.db import transaction
from django.db.models import Prefetch
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from core.errors import DomainError
from scopes.models import Scope, ScopeKind
from scopes.pages.entry import page

from ..models import Alias, DuplicateStatus, Entity, Label, PossibleDuplicate
from ..recall.score import half_life_days
from ..selectors.entity_reads import entity_get
from ..services import alias_add
from .decay_picture import decay_points
from .forms import AliasForm


ENTITY_LIMIT = 300


@page
def entities_page(request, *, principal):
    """Entities in the scopes the person may view (common sense aside), their
    aliases and merges, the open merge proposals, and how fast each label fades."""
    aliases = Prefetch("aliases", queryset=Alias.objects.visible_to(principal, "view"))
    entities = list(Entity.objects.visible_to(principal, "view").exclude(scope__kind=ScopeKind.GLOBAL)
                    .select_related("scope", "merged_into").prefetch_related(aliases)
                    .order_by("scope__name", "name")[:ENTITY_LIMIT])
    writable = set(Scope.objects.visible_to(principal, "write").values_list("id", flat=True))
    # Each side by a query of its own on ids, never joined: the other side may live in another scope (on a
    # cluster, another shard).
    seen = Entity.objects.visible_to(principal, "view")
    proposals = (PossibleDuplicate.objects.visible_to(principal, "view").exclude(scope__kind=ScopeKind.GLOBAL)
                 .filter(status=DuplicateStatus.OPEN, similar_to__in=seen.values("id"))
                 .select_related("scope").prefetch_related(Prefetch("entity", queryset=seen),
                                                           Prefetch("similar_to", queryset=seen))
                 .order_by("-score")[:100])
    labels = [{"label": label, "points": decay_points(label.decay_lambda),
               "half_life": half_life_days(label.decay_lambda)} for label in Label.objects.order_by("key")]
    return render(request, "cards/entities.html", {
        "entities": [{"e": e, "may_write": e.scope_id in writable} for e in entities],
        "proposals": proposals, "labels": labels, "limit": ENTITY_LIMIT})


@page(methods=("POST",))
def alias_add_page(request, entity_id: int, *, principal):
    form = AliasForm(request.POST)
    with transaction.atomic():
        entity = entity_get(principal=principal, entity_id=entity_id, action="write")
        if not form.is_valid():
            messages.error(request, _("An alias needs a name."))
            return redirect("entities")
        try:
            with transaction.atomic():
                alias_add(entity=entity, name=form.cleaned_data["name"])
        except DomainError as error:
            messages.error(request, _("%(name)s: %(refusal)s") % {"name": entity.name, "refusal": error.detail})
        else:
            messages.success(request, _("%(name)s is also called %(alias)s.") % {"name": entity.name,
                                                                                 "alias": form.cleaned_data["name"]})
    return redirect("entities")
