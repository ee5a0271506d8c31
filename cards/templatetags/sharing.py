"""The settings page's "Sharing" section (templates/scopes/settings.html): the page is the
ladder's (scopes.pages), which never imports the card store, so the store gives the
section its choices here."""

from __future__ import annotations

from django import template

from scopes.principals import principal_of_page

from ..selectors.sharing import sharing_choices

register = template.Library()


@register.simple_tag(takes_context=True)
def sharing_of_person(context) -> list:
    """Each family and team of the signed-in person, with the labels they could share there."""
    return sharing_choices(principal=principal_of_page(context["request"]))
