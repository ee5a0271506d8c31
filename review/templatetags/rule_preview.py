"""A draft rule in a scope's review queue (templates/review/_rule.html): the rule
in words and what it would derive on what the viewer sees of that scope — given
to the template here, so the queue's own context stays as it is."""

from __future__ import annotations

from django import template

from cards.answers.rule_preview import rule_preview
from cards.rule_shape import rule_check
from scopes.principals import principal_of_page
from scopes.selectors import read_scope_ids

from ..pages.rule_forms import rule_reading

register = template.Library()


@register.simple_tag(takes_context=True)
def rule_shown(context, rule, scope) -> dict:
    """{"reading", "preview", "problems", "box" (the preview's element id)} for `rule` on `scope`'s queue page. A rule
    in a shape that cannot run (changed by hand) shows rule_check's words instead."""
    box = f"rule-{rule.pk}-preview"
    problems = rule_check(rule.premises, rule.conclusion)
    if problems:
        return {"reading": None, "preview": None, "problems": problems, "box": box}
    request = context["request"]
    principal = principal_of_page(request)
    scope_ids = read_scope_ids(principal=principal, scope_id=scope.pk)
    return {"reading": rule_reading(rule.premises, rule.conclusion), "problems": [], "box": box,
            "preview": rule_preview(rule=rule, scope_ids=scope_ids, user=request.user)}
