"""The scope page's line about the weekly upkeep ("Last tidied 2 days ago: 3 proposals"):
the page is the store's (cards.pages.cards), which never imports the queue, so the queue
gives its line to the template here."""

from __future__ import annotations

from django import template

from scopes.principals import principal_of_page

from ..selectors import upkeep_last_run

register = template.Library()


@register.simple_tag(takes_context=True)
def upkeep_last(context, scope):
    """The latest upkeep run over `scope` the viewer sees (counts only), or None."""
    return upkeep_last_run(principal=principal_of_page(context["request"]), scope=scope)
