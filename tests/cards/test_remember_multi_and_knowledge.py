"""Multi-value states accumulate; knowledge is merged and renamed with history."""

import datetime as dt

import pytest

from cards.drafts import CardDraft
from cards.errors import InvalidCard, NeedsConsent
from cards.models import Card
from cards.services import card_remember, card_retract, knowledge_merge, knowledge_rename

pytestmark = pytest.mark.django_db


def skill(value, at):
    return CardDraft(kind="state", label="skill", subject="me", value=value, reference_time=at)


def test_new_skill_is_inserted_beside_the_old(alice, scope, t0):
    card_remember(scope=scope, actor=alice, draft=skill("Python", t0))
    result = card_remember(scope=scope, actor=alice, draft=skill("Rust", t0 + dt.timedelta(days=1)))
    assert result.outcome == "inserted"
    current = Card.objects.filter(scope=scope, label__key="skill", superseded_at__isnull=True)
    assert sorted(c.value for c in current) == ["Python", "Rust"]


def test_current_skill_again_reinforces(alice, scope, t0):
    first = card_remember(scope=scope, actor=alice, draft=skill("Python", t0)).card
    result = card_remember(scope=scope, actor=alice, draft=skill("python", t0 + dt.timedelta(days=9)))
    assert result.outcome == "reinforced" and result.card.pk == first.pk
    assert Card.objects.get(pk=first.pk).verified_at == t0 + dt.timedelta(days=9)


def test_retracted_skill_is_closed_and_can_return(alice, scope, t0):
    first = card_remember(scope=scope, actor=alice, draft=skill("Tennis", t0)).card
    card_retract(card=first, actor=alice, at=t0 + dt.timedelta(days=5))
    again = card_remember(scope=scope, actor=alice, draft=skill("Tennis", t0 + dt.timedelta(days=50)))
    assert again.outcome == "inserted" and again.card.pk != first.pk
    assert Card.objects.get(pk=first.pk).superseded_at == t0 + dt.timedelta(days=5)


def test_single_value_cannot_be_retracted(alice, scope, t0):
    card = card_remember(scope=scope, actor=alice, draft=CardDraft(
        kind="state", label="city", subject="me", value="Kyoto", reference_time=t0)).card
    with pytest.raises(InvalidCard):
        card_retract(card=card, actor=alice)


def test_sensitive_label_needs_explicit_consent(alice, scope, t0):
    draft = CardDraft(kind="state", label="allergy", subject="me", value="peanuts", reference_time=t0)
    with pytest.raises(NeedsConsent) as refused:
        card_remember(scope=scope, actor=alice, draft=draft)
    assert refused.value.extra["rule"] == "sensitive_attribute"
    assert Card.objects.count() == 0
    draft.consent = True
    assert card_remember(scope=scope, actor=alice, draft=draft).outcome == "inserted"


def note(value, at, text=""):
    return CardDraft(kind="knowledge", label="howto", subject="Router", value=value, text=text, reference_time=at)


def test_same_knowledge_reinforces(alice, scope, t0):
    first = card_remember(scope=scope, actor=alice, draft=note("Reset the router", t0)).card
    assert card_remember(scope=scope, actor=alice, draft=note("reset the router", t0)).card.pk == first.pk


def test_knowledge_rename_keeps_a_revision(alice, scope, t0):
    card = card_remember(scope=scope, actor=alice, draft=note("Reset router", t0)).card
    knowledge_rename(card=card, actor=alice, value="Factory-reset the router")
    card.refresh_from_db()
    assert card.value == "Factory-reset the router"
    revision = card.revisions.get()
    assert (revision.field, revision.before, revision.after, revision.actor) == (
        "value", "Reset router", "Factory-reset the router", alice)


def test_knowledge_merge_closes_the_others_pointing_at_the_target(alice, scope, t0):
    target = card_remember(scope=scope, actor=alice, draft=note("Reset the router", t0, "Hold the button")).card
    other = card_remember(scope=scope, actor=alice, draft=note("Router reset steps", t0, "Unplug it")).card
    knowledge_merge(target=target, others=[other], actor=alice, text="Unplug it, then hold the button 10 s")
    other.refresh_from_db()
    target.refresh_from_db()
    assert other.superseded_by_id == target.pk and other.superseded_at is not None
    assert target.superseded_at is None
    assert target.text == "Unplug it, then hold the button 10 s"
    assert [r.field for r in target.revisions.all()] == ["merged", "text"]


def test_merge_refuses_non_knowledge_cards(alice, scope, t0):
    target = card_remember(scope=scope, actor=alice, draft=note("Reset the router", t0)).card
    state = card_remember(scope=scope, actor=alice, draft=skill("Python", t0)).card
    with pytest.raises(InvalidCard):
        knowledge_merge(target=target, others=[state], actor=alice)
    state.refresh_from_db()
    assert state.superseded_at is None
