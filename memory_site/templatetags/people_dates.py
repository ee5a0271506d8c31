"""Dates on pages, through core.dates, in the viewer's own zone and the page's language.

    {% load people_dates %}
    {% day card.effective_at zone=card.zone %}       the day the card speaks of, in its speaker's zone
    {% day card.occurred_at precision=card.precision zone=card.zone %}
    {% instant card.verified_at %}                   when something happened here, in the viewer's zone
    {% ago card.verified_at %}                       "3 days ago"
"""

from __future__ import annotations

from django import template
from django.utils import timezone

from core.dates import ago_shown, date_shown
from scopes.zones import person_zone

register = template.Library()


def _viewer(context):
    request = context.get("request")
    return getattr(request, "user", None)


@register.simple_tag(takes_context=True)
def day(context, value, precision="day", zone=None) -> str:
    viewer = _viewer(context)
    return date_shown(value, zone=zone or person_zone(viewer), precision=precision)


@register.simple_tag(takes_context=True)
def instant(context, value) -> str:
    viewer = _viewer(context)
    return date_shown(value, zone=person_zone(viewer), precision="datetime")


@register.simple_tag(takes_context=True)
def ago(context, value) -> str:
    viewer = _viewer(context)
    return ago_shown(value, now=timezone.now())
