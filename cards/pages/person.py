"""The person page, "About Dana": everything the viewer may see about one person
across their scopes, grouped by kind, with one life timeline of moves, jobs and
events, and the facts that wait to be re-checked. Thin: cards.selectors.person
restricts and reads; cards/pages/timeline.py draws."""

from __future__ import annotations

from django.shortcuts import redirect, render
from django.utils import timezone

from scopes.pages.entry import page
from scopes.zones import person_zone

from ..selectors.person import own_entity, person_get, person_read, person_root
from .timeline import timeline_of


@page
def person_page(request, entity_id: int, *, principal):
    entity = person_get(principal=principal, entity_id=entity_id)
    root = person_root(principal=principal, entity=entity)
    if root is not None:  # a second name of someone: their page is the one they were merged into
        return redirect("person", entity_id=root.pk)
    now = timezone.now()
    read = person_read(principal=principal, entity=entity, now=now)
    timeline = (timeline_of(read.life, now=now, zone=person_zone(request.user))
                if read.life else None)
    return render(request, "cards/person.html", {
        "entity": entity, "read": read, "timeline": timeline,
        "yours": entity.user_id == request.user.pk,
        "empty": not (read.now or read.happened or read.known or read.guesses)})


@page
def person_me_page(request, *, principal):
    """"About you": the signed-in person's own page."""
    return redirect("person", entity_id=own_entity(principal=principal).pk)
