"""Derivation rules: people (or a model, as a draft) propose them; a reviewer
approves or retires them. Only approved rules derive (cards/answers/derive.py), and only
rules of a shape that can run (cards/rule_shape.py)."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop

from scopes.models import User

from core.errors import DomainError

from ..errors import InvalidCard
from ..labels import registry
from ..models import Rule, RuleStatus
from ..rule_shape import rule_check

class RuleInvalid(InvalidCard):
    code = "invalid_rule"


class RuleNotDraft(DomainError):
    code = "rule_not_draft"
    status = 409


def rule_cannot_run(problems: list[str]) -> str:
    return gettext("The rule cannot run: %(problems)s") % {"problems": "; ".join(problems)}


# A rule's status, as a refusal names it.
RULE_STATUS_WORDS = (gettext_noop("draft"), gettext_noop("approved"), gettext_noop("retired"))


@transaction.atomic
def rule_propose(*, name: str, premises, conclusion, author: User | None, description: str = "") -> Rule:
    problems = rule_check(premises, conclusion)
    if problems:
        raise RuleInvalid(rule_cannot_run(problems), fields={"rule": problems})
    return Rule.objects.create(name=name, description=description, premises=premises, conclusion=conclusion,
                               author=author, status=RuleStatus.DRAFT)


@transaction.atomic
def rule_approve(*, rule: Rule, reviewer: User) -> Rule:
    rule = Rule.objects.select_for_update().get(pk=rule.pk)
    if rule.status != RuleStatus.DRAFT:
        raise RuleNotDraft(gettext("Only a draft rule can be approved; %(name)s is %(status)s.")
                           % {"name": repr(rule.name), "status": gettext(rule.status)})
    problems = rule_check(rule.premises, rule.conclusion)
    if problems:
        raise RuleInvalid(rule_cannot_run(problems), fields={"rule": problems})
    if rule.author_id is not None and rule.author_id == reviewer.pk:
        raise RuleNotDraft(gettext("A rule is approved by someone other than its author."))
    rule.status, rule.reviewer, rule.approved_at = RuleStatus.APPROVED, reviewer, timezone.now()
    rule.save(update_fields=["status", "reviewer", "approved_at"])
    return rule


@transaction.atomic
def rule_retire(*, rule: Rule, reviewer: User) -> Rule:
    rule = Rule.objects.select_for_update().get(pk=rule.pk)
    rule.status, rule.reviewer = RuleStatus.RETIRED, reviewer
    rule.save(update_fields=["status", "reviewer"])
    return rule
