"""Rules are proposed as drafts, checked so they can run, approved by someone
other than their author (recorded), and retired — through services and admin."""

import pytest
from django.urls import reverse

from cards.drafts import CardDraft
from cards.models import Rule, RuleStatus
from cards.services import card_remember
from cards.rule_shape import rule_check
from cards.services.rules import RuleInvalid, RuleNotDraft, rule_approve, rule_propose, rule_retire
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

GOOD = ([["?x", "member_of", "?g"], ["?g", "diet", "?d"]], ["?x", "diet", "?d"])


@pytest.mark.parametrize("premises, conclusion, problem", [
    ([], ["?x", "diet", "?d"], "1 to 5 patterns"),
    ([["?x", "member_of"]], ["?x", "diet", "?d"], "not a [subject, label, object]"),
    ([["?x", "member_of", "?g"]], ["?x", "diet", "?d"], "?d does not appear"),
    ([["?g", "diet", "?d"]], ["?x", "diet", "?d"], "?g is not bound"),
    ([["?x", "colour of soul", "?g"]], ["?x", "diet", "?g"], "not a registered label"),
    ([["?x", "member_of", 7]], ["?x", "diet", "?d"], "not a [subject, label, object]"),
    ("everything", ["?x", "diet", "?d"], "1 to 5 patterns"),
    ([["?x", "member_of", "?g"], ["?g", "religion", "?r"]], ["?x", "religion", "?r"], "sensitive attribute"),
])
def test_a_rule_that_cannot_run_is_refused(premises, conclusion, problem):
    assert any(problem in p for p in rule_check(premises, conclusion))
    with pytest.raises(RuleInvalid):
        rule_propose(name="bad", premises=premises, conclusion=conclusion, author=None)
    assert not Rule.objects.filter(name="bad").exists()


def test_only_approved_rules_derive_and_approval_records_who_and_when(alice):
    reviewer = UserFactory(username="rita")
    scope = alice.personal_scope
    for draft in (CardDraft(kind="state", subject="me", label="member_of", object="Green club"),
                  CardDraft(kind="state", subject="Green club", label="diet", value="vegan")):
        card_remember(scope=scope, actor=alice, draft=draft)
    rule = rule_propose(name="club diet", premises=GOOD[0], conclusion=GOOD[1], author=alice)
    from cards.answers.answer import answer
    from cards.selectors.entities import entity_bind
    from cards.labels import label_resolve

    def tier():
        binding = entity_bind(name="me", scope_ids=[scope.pk], speaker=alice)
        return answer(binding=binding, label=label_resolve("diet"), scope_ids=[scope.pk]).tier

    assert rule.status == RuleStatus.DRAFT and tier() == "no_evidence"
    with pytest.raises(RuleNotDraft):
        rule_approve(rule=rule, reviewer=alice)  # never by its own author
    rule = rule_approve(rule=rule, reviewer=reviewer)
    assert (rule.status, rule.reviewer, rule.approved_at is not None) == (RuleStatus.APPROVED, reviewer, True)
    assert tier() == "derived"
    rule_retire(rule=rule, reviewer=reviewer)
    assert tier() == "no_evidence"
    with pytest.raises(RuleNotDraft):
        rule_approve(rule=rule, reviewer=reviewer)


def test_admin_writes_drafts_and_approves_with_an_action(client):
    author = UserFactory(username="ada", is_staff=True, is_superuser=True)
    reviewer = UserFactory(username="rita", is_staff=True, is_superuser=True)
    client.force_login(author)
    response = client.post(reverse("admin:cards_rule_add"), {
        "name": "club diet", "description": "", "premises": '[["?x", "member_of", "?g"], ["?g", "diet", "?d"]]',
        "conclusion": '["?x", "diet", "?d"]'})
    assert response.status_code == 302, response.content[:2000]
    rule = Rule.objects.get(name="club diet")
    assert (rule.status, rule.author) == (RuleStatus.DRAFT, author)
    bad = client.post(reverse("admin:cards_rule_add"), {"name": "bad", "premises": '[["?g", "diet", "?d"]]',
                                                        "conclusion": '["?x", "diet", "?d"]'})
    assert bad.status_code == 200 and b"is not bound" in bad.content
    client.force_login(reviewer)
    client.post(reverse("admin:cards_rule_changelist"), {"action": "approve", "_selected_action": [rule.pk]})
    rule.refresh_from_db()
    assert (rule.status, rule.reviewer) == (RuleStatus.APPROVED, reviewer) and rule.approved_at is not None
    assert client.get(reverse("admin:cards_possibleduplicate_changelist")).status_code == 200
