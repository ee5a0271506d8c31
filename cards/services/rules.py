"""Derivation rules: people (or a model, as a draft) propose them; a reviewer
approves or retires them. Only approved rules derive (cards/answers/derive.py)."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop

from scopes.models import User

from core.errors import DomainError

from ..errors import InvalidCard
from ..labels import registry
from ..models import Rule, RuleStatus

MAX_PREMISES = 5


class RuleInvalid(InvalidCard):
    code = "invalid_rule"


class RuleNotDraft(DomainError):
    code = "rule_not_draft"
    status = 409


def _is_var(term: str) -> bool:
    return term.startswith("?") and len(term) > 1


def rule_check(premises, conclusion) -> list[str]:
    """What is wrong with a rule's shape, as sentences; empty when it can run.

    Backward chaining looks facts up by subject, so every premise's subject must
    be a constant or already bound (by the conclusion's subject or an earlier
    premise), and the conclusion's object must come from the premises."""
    problems: list[str] = []
    patterns = [conclusion, *premises] if isinstance(premises, list) else [conclusion]
    if not isinstance(premises, list) or not 1 <= len(premises) <= MAX_PREMISES:
        problems.append(gettext("premises must be a list of 1 to %(most)s patterns") % {"most": MAX_PREMISES})
    for pattern in patterns:
        if not (isinstance(pattern, list) and len(pattern) == 3 and all(isinstance(t, str) and t.strip()
                                                                          and "\x00" not in t for t in pattern)):
            problems.append(gettext("%(pattern)s is not a [subject, label, object] pattern of non-empty text")
                            % {"pattern": repr(pattern)})
    if problems:
        return problems
    labels = {label.key: label for label in registry().values()}
    for _, label, _ in patterns:
        if label not in labels:
            problems.append(gettext("%(label)s is not a registered label key") % {"label": repr(label)})
    if conclusion[1] in labels and labels[conclusion[1]].sensitive:
        # DESIGN §4.8: a sensitive attribute is known only with the person's explicit consent, never inferred.
        problems.append(gettext("%(label)s is a sensitive attribute: a rule may not conclude it")
                        % {"label": repr(conclusion[1])})
    bound = {conclusion[0]} if _is_var(conclusion[0]) else set()
    for subject, _, obj in premises:
        if _is_var(subject) and subject not in bound:
            problems.append(gettext("premise subject %(subject)s is not bound by the conclusion or an earlier premise")
                            % {"subject": subject})
        bound |= {t for t in (subject, obj) if _is_var(t)}
    if _is_var(conclusion[2]) and conclusion[2] not in bound:
        problems.append(gettext("the conclusion's %(object)s does not appear in any premise")
                        % {"object": conclusion[2]})
    return problems


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
