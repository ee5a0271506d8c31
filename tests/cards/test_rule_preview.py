"""A rule's preview (cards/answers/rule_preview.py) is what derive.py derives once the
rule is approved: the same conclusions, resting on the same cards, for every
subject; only what the reader's scopes hold; capped with a count; and what is
recorded already, or disagrees with the record, said so."""

from __future__ import annotations

import pytest

from cards.answers.answer import answer
from cards.answers.derive import FactBase, approved_rules, name_term
from cards.drafts import CardDraft
from cards.labels import label_resolve
from cards.models import Card, Rule, RuleStatus
from cards.answers.rule_preview import rule_preview, said
from cards.selectors.entities import entity_bind
from cards.services import card_remember
from cards.services.rules import RuleInvalid, rule_approve, rule_propose
from scopes.services import global_scope_get, membership_set
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db

INSURED = ([["?p", "has", "?t"], ["?t", "is_a", "vehicle"]], ["?p", "needs", "insurance"])
THEIR_CAR = ([["?p", "has", "?t"], ["?t", "is_a", "car"]], ["?p", "car", "?t"])


def state(scope, actor, subject, label, value="", obj=None):
    return card_remember(scope=scope, actor=actor, draft=CardDraft(kind="state", subject=subject, label=label,
                                                                   value=value, object=obj)).card


@pytest.fixture
def lins(alice):
    """alice has a Subaru (a car, and a car is a vehicle); bob a Vespa (a scooter, a vehicle); carol a bike."""
    family = family_scope(owner=alice, name="The Lins")
    bob, carol = UserFactory(username="bob"), UserFactory(username="carol")
    for person in (bob, carol):
        membership_set(scope=family, user=person, role="member")
    cards = {
        "alice has": state(family, alice, "me", "has", "Subaru"),
        "subaru car": state(family, alice, "Subaru", "is_a", obj="car"),
        "car vehicle": state(family, alice, "car", "is_a", obj="vehicle"),
        "bob has": state(family, bob, "me", "has", "Vespa"),
        "vespa scooter": state(family, bob, "Vespa", "is_a", obj="scooter"),
        "scooter vehicle": state(family, bob, "scooter", "is_a", obj="vehicle"),
        "carol has": state(family, carol, "me", "has", "bike"),
    }
    return {"family": family, "alice": alice, "bob": bob, "carol": carol, "cards": cards,
            "scope_ids": [family.pk, global_scope_get().pk]}


def derived_after_approval(rule: Rule, people, scope_ids) -> set[tuple]:
    """What derive.py answers, once `rule` is approved, about each person: (subject term, object term, cards)."""
    found = set()
    for person in people:
        binding = entity_bind(name="me", scope_ids=scope_ids, speaker=person)
        result = answer(binding=binding, label=label_resolve(rule.conclusion[1]), scope_ids=scope_ids)
        for proof in [*result.derived, *result.contradictions]:
            if proof.rule is not None and proof.rule.pk == rule.pk:
                found.add((proof.subject, proof.object, tuple(proof.card_ids())))
    return found


def seen(preview) -> set[tuple]:
    return {(d.term, d.object, tuple(d.cards)) for d in preview.derived}


@pytest.mark.parametrize("shape", [INSURED, THEIR_CAR], ids=["through a kind of a kind", "a value from a premise"])
def test_the_preview_is_what_derive_py_derives_once_the_rule_is_approved(lins, shape):
    rule = rule_propose(name="under test", premises=shape[0], conclusion=shape[1], author=lins["bob"])
    people = [lins["alice"], lins["bob"], lins["carol"]]
    before = derived_after_approval(rule, people, lins["scope_ids"])
    preview = rule_preview(rule=rule, scope_ids=lins["scope_ids"], user=lins["alice"])
    assert before == set() and preview.total == len(preview.derived) > 0
    rule_approve(rule=rule, reviewer=UserFactory(username="rita"))
    assert seen(preview) == derived_after_approval(rule, people, lins["scope_ids"])


def test_a_chain_through_a_kind_of_a_kind_reads_in_words_and_rests_on_every_card(lins):
    rule = Rule(name="insured", premises=INSURED[0], conclusion=INSURED[1])  # not saved: the form's preview
    preview = rule_preview(rule=rule, scope_ids=lins["scope_ids"], user=lins["alice"])
    by_subject = {d.subject: d for d in preview.derived}
    assert sorted(by_subject) == ["Alice", "Bob"]  # carol's bike is no vehicle
    alice = by_subject["Alice"]
    assert (alice.value, alice.sentence) == ("insurance", "Alice needs insurance")
    assert alice.because == ["Alice has Subaru", "Subaru is a vehicle (worked out by “is_a is transitive”)"]
    cards = lins["cards"]
    assert alice.cards == [cards["alice has"].pk, cards["subaru car"].pk, cards["car vehicle"].pk]
    assert alice.chain["rule"]["name"] == "insured" and alice.chain["premises"][0]["id"] == cards["alice has"].pk
    assert (preview.already, preview.more, alice.disagrees) == (0, 0, [])


def test_nothing_is_written_and_a_draft_stays_a_draft(lins):
    rule = rule_propose(name="insured", premises=INSURED[0], conclusion=INSURED[1], author=lins["bob"])
    count = Card.objects.count()
    rule_preview(rule=rule, scope_ids=lins["scope_ids"], user=lins["bob"])
    rule.refresh_from_db()
    assert Card.objects.count() == count and rule.status == RuleStatus.DRAFT
    assert rule not in approved_rules()


def test_only_the_scopes_given_are_read(lins, alice):
    """The Subaru is a car in alice's own scope: a read of the family alone does not see it."""
    Card.objects.filter(pk=lins["cards"]["subaru car"].pk).delete()
    state(alice.personal_scope, alice, "Subaru", "is_a", obj="car")
    rule = Rule(name="their car", premises=THEIR_CAR[0], conclusion=THEIR_CAR[1])
    assert rule_preview(rule=rule, scope_ids=lins["scope_ids"], user=lins["bob"]).total == 0
    hers = rule_preview(rule=rule, scope_ids=[*lins["scope_ids"], alice.personal_scope.pk], user=alice)
    assert [(d.subject, d.value) for d in hers.derived] == [("Alice", "Subaru")]


def test_what_is_recorded_already_is_counted_and_a_disagreement_with_the_record_is_said(lins, alice):
    rule = Rule(name="their car", premises=THEIR_CAR[0], conclusion=THEIR_CAR[1])
    state(lins["family"], alice, "me", "car", "Subaru")
    preview = rule_preview(rule=rule, scope_ids=lins["scope_ids"], user=alice)
    assert (preview.total, preview.already) == (0, 1)
    state(lins["family"], alice, "me", "car", "Honda")  # supersedes: a single value
    preview = rule_preview(rule=rule, scope_ids=lins["scope_ids"], user=alice)
    assert [(d.value, d.disagrees) for d in preview.derived] == [("Subaru", ["Honda"])]


def test_the_list_is_capped_with_a_count(lins):
    rule = Rule(name="insured", premises=INSURED[0], conclusion=INSURED[1])
    preview = rule_preview(rule=rule, scope_ids=lins["scope_ids"], user=lins["alice"], limit=1)
    assert (len(preview.derived), preview.total, preview.more) == (1, 2, 1)


def test_a_named_subject_and_a_rule_that_starts_from_a_name(lins):
    """["Subaru", "is_a", ?k] ⇒ [?k, "has", "a Subaru"]: asked of what the facts name, not only whom they are about."""
    rule = Rule(name="kinds with a Subaru", premises=[["Subaru", "is_a", "?k"]], conclusion=["?k", "has", "a Subaru"])
    preview = rule_preview(rule=rule, scope_ids=lins["scope_ids"], user=lins["alice"])
    assert {(d.term, d.value) for d in preview.derived} == {("n:car", "a Subaru"), ("n:vehicle", "a Subaru")}
    named = Rule(name="named", premises=[["Subaru", "is_a", "?k"]], conclusion=["Subaru", "needs", "?k"])
    preview = rule_preview(rule=named, scope_ids=lins["scope_ids"], user=lins["alice"])
    assert {(d.subject, d.value) for d in preview.derived} == {("Subaru", "car"), ("Subaru", "vehicle")}


def test_an_approved_rule_previewed_is_not_counted_twice(lins):
    rule = Rule.objects.get(name="is_a is transitive")
    preview = rule_preview(rule=rule, scope_ids=lins["scope_ids"], user=lins["alice"])
    assert {(d.subject, d.value) for d in preview.derived} == {("Subaru", "vehicle"), ("Vespa", "vehicle")}


def test_a_rule_that_cannot_run_is_refused(lins):
    with pytest.raises(RuleInvalid):
        rule_preview(rule=Rule(name="bad", premises=[["?g", "diet", "?d"]], conclusion=["?x", "diet", "?d"]),
                     scope_ids=lins["scope_ids"], user=lins["alice"])


def test_preloaded_facts_answer_as_the_lazy_reads_do(lins):
    labels = ["has", "is_a", "needs"]
    whole, lazy = FactBase(lins["scope_ids"]), FactBase(lins["scope_ids"])
    whole.preload(labels)
    terms = {*whole.subjects(), *whole.objects(), name_term("Subaru"), name_term("nobody")}
    assert len(terms) > 8
    for label in labels:
        for term in terms:
            assert whole.facts(label, term) == lazy.facts(label, term), (label, term)


def test_a_triple_in_words():
    assert said("Dana", "car", "Subaru") == "Dana's car is Subaru"
    assert said("Subaru", "is_a", "car") == "Subaru is a car"
    assert said("Kai", "friend", "Sam") == "Sam is a friend of Kai"
    assert said("Dana", "topic", "gardens") == "Dana has topic gardens"


def test_the_reads_do_not_grow_with_the_number_of_subjects(lins, alice):
    """Each label is read once for every subject (FactBase.preload), not once per subject."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    rule = Rule(name="insured", premises=INSURED[0], conclusion=INSURED[1])

    def reads() -> int:
        with CaptureQueriesContext(connection) as queries:
            rule_preview(rule=rule, scope_ids=lins["scope_ids"], user=alice)
        return len(queries)

    few = reads()
    for n in range(12):
        state(lins["family"], alice, f"Van {n}", "is_a", obj="vehicle")
        state(lins["family"], alice, f"Driver {n}", "has", f"Van {n}")
    assert rule_preview(rule=rule, scope_ids=lins["scope_ids"], user=alice).total == 14
    assert reads() == few
