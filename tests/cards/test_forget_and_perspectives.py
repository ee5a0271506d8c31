"""Hard rule 9 (forget completely) and per-member perspectives."""

import datetime as dt

import pytest
from django.db import connection

from cards.drafts import CardDraft
from cards.embeddings.spaces import MINILM
from cards.errors import InvalidCard
from cards.models import AuditEvent, Card, CardPerspective, CardRevision
from cards.services import card_describe, card_forget, card_remember
from tests.factories import UserFactory, family_scope
from scopes.services import membership_set

pytestmark = pytest.mark.django_db


def test_forget_removes_card_revisions_perspectives_and_embedding(alice, t0):
    bob = UserFactory(username="bob")
    home = family_scope(owner=alice)
    membership_set(scope=home, user=bob, role="member")
    card = card_remember(scope=home, actor=alice, draft=CardDraft(
        kind="event", label="party", subject="me", value="Surprise party for Bob", text="Planning it",
        reference_time=t0, perspectives={"bob": "nothing to see here"})).card
    Card.objects.filter(pk=card.pk).update(embedding=[0.1] * 384, embedding_space=MINILM)
    card_describe(card=card, actor=alice, text="Planning the surprise party")
    card_id = card.pk
    assert CardRevision.objects.filter(card_id=card_id).exists()
    assert CardPerspective.objects.filter(card_id=card_id).exists()
    card_forget(card=card, actor=alice)
    assert not Card.objects.filter(pk=card_id).exists()
    assert not CardRevision.objects.filter(card_id=card_id).exists()
    assert not CardPerspective.objects.filter(card_id=card_id).exists()
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM cards_card WHERE embedding IS NOT NULL")
        assert cursor.fetchone()[0] == 0
    audit = AuditEvent.objects.get(action="card.forgotten")
    assert (audit.actor, audit.object_id, audit.scope_id) == (alice, card_id, home.pk)
    assert "Surprise" not in str(audit.detail) and "party" not in str(audit.detail)


def test_forgetting_the_current_value_does_not_revive_the_old_one(alice, scope, t0):
    old = card_remember(scope=scope, actor=alice, draft=CardDraft(
        kind="state", label="address", subject="me", value="Taipei", reference_time=t0)).card
    new = card_remember(scope=scope, actor=alice, draft=CardDraft(
        kind="state", label="address", subject="me", value="Kyoto", reference_time=t0 + dt.timedelta(days=1))).card
    card_forget(card=new, actor=alice)
    old.refresh_from_db()
    assert old.superseded_at is not None and old.superseded_by_id is None


def test_member_perspective_is_stored_per_user(alice, t0):
    bob, kid = UserFactory(username="bob"), UserFactory(username="kid")
    home = family_scope(owner=alice)
    membership_set(scope=home, user=bob, role="member")
    membership_set(scope=home, user=kid, role="member")
    card = card_remember(scope=home, actor=alice, draft=CardDraft(
        kind="event", label="party", subject="me", value="Mom's birthday", text="Mom's birthday Sunday",
        reference_time=t0, perspectives={"bob": "wife's birthday — prepare a gift",
                                         "kid": "mom's birthday — prepare a cake"})).card
    phrasing = dict(card.perspectives.values_list("user__username", "text"))
    assert phrasing == {"bob": "wife's birthday — prepare a gift", "kid": "mom's birthday — prepare a cake"}


def test_perspective_for_a_non_member_is_refused_and_nothing_is_written(alice, t0):
    UserFactory(username="mallory")
    home = family_scope(owner=alice)
    with pytest.raises(InvalidCard):
        card_remember(scope=home, actor=alice, draft=CardDraft(
            kind="state", label="pet", subject="me", value="a cat", reference_time=t0,
            perspectives={"mallory": "their cat"}))
    assert Card.objects.filter(scope=home).count() == 0
