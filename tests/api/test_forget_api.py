"""POST /api/v1/forget/: a label's whole timeline for a subject, or everything
about a subject, in a scope — with a receipt of counts, never content — and who
may: the single card's rule (write in the card's scope), asked of every card."""

import pytest
from django.utils import timezone

from cards.drafts import CardDraft
from cards.models import Alias, AuditEvent, Card, Entity
from cards.services import alias_add, card_remember
from review.models import Candidate, CandidateStatus
from scopes.models import User
from scopes.services import membership_set
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db


def said(scope, actor, label, value, subject="me", **fields) -> Card:
    return card_remember(scope=scope, actor=actor, draft=CardDraft(
        kind="state", label=label, subject=subject, value=value, reference_time=timezone.now(), **fields)).card


def proposed(scope, author, subject, label, value, **fields) -> Candidate:
    return Candidate.objects.create(scope=scope, author=author, kind="state", label=label, subject=subject,
                                    value=value, quote=f"{subject} {label} {value}", message_at=timezone.now(),
                                    extractor="patterns", **fields)


@pytest.fixture
def family(alice):
    scope = family_scope(owner=alice)
    membership_set(scope=scope, user=UserFactory(username="bob"), role="member")
    membership_set(scope=scope, user=UserFactory(username="vic"), role="viewer")
    return scope


def test_forgetting_a_timeline_takes_every_past_value_and_nothing_else(alice, family, bearer):
    for city in ("Taipei", "Kyoto", "Lisbon"):
        said(family, alice, "address", city)
    guess = said(family, alice, "address", "Porto", tag="hypothesis", confidence=0.3)
    skill = said(family, alice, "skill", "Go")
    elsewhere = said(alice.personal_scope, alice, "address", "Lisbon")
    pending = proposed(family, alice, "me", "address", "Madrid")
    rejected = proposed(family, alice, "me", "address", "Oslo", status=CandidateStatus.REJECTED)
    other_label = proposed(family, alice, "me", "skill", "Rust")
    answer = bearer(alice, write=True).post("/api/v1/forget/", {"scope": family.pk, "subject": "me",
                                                                 "label": "home address"}, format="json")
    assert answer.status_code == 200, answer.json()
    assert answer.json() == {"receipt": {"cards": 4, "candidates": 2, "revisions": 0, "perspectives": 0}}
    assert not Card.objects.filter(scope=family, label__key="address").exists()
    assert not Card.objects.filter(pk=guess.pk).exists()
    assert set(Card.objects.values_list("pk", flat=True)) == {skill.pk, elsewhere.pk}
    assert set(Candidate.objects.values_list("pk", flat=True)) == {other_label.pk}
    assert not {pending.pk, rejected.pk} & set(Candidate.objects.values_list("pk", flat=True))
    assert AuditEvent.objects.filter(action="timeline.forgotten", scope=family).count() == 1
    assert AuditEvent.objects.filter(action="card.forgotten").count() == 4


def test_forgetting_a_subject_takes_its_cards_its_candidates_and_then_its_name(alice, family, as_user):
    lee = said(family, alice, "job_title", "Engineer", subject="Lee")
    said(family, alice, "address", "Kyoto", subject="Lee")
    alias_add(entity=lee.subject, name="Leo")
    mine = said(family, alice, "address", "Taipei")
    by_alias = proposed(family, alice, "Leo", "skill", "chess", status=CandidateStatus.REJECTED)
    never_a_card = proposed(family, alice, "lee", "likes", "tea")
    unrelated = proposed(family, alice, "me", "skill", "Go")
    answer = as_user(alice).post("/api/v1/forget/", {"scope": family.pk, "subject": "Lee"}, format="json")
    assert answer.status_code == 200, answer.json()
    assert answer.json()["receipt"] == {"cards": 2, "candidates": 2, "revisions": 0, "perspectives": 0,
                                        "entities": 1, "aliases": 1}
    assert set(Card.objects.values_list("pk", flat=True)) == {mine.pk}
    assert set(Candidate.objects.values_list("pk", flat=True)) == {unrelated.pk}
    assert not {by_alias.pk, never_a_card.pk} & set(Candidate.objects.values_list("pk", flat=True))
    assert not Entity.objects.filter(name="Lee").exists() and not Alias.objects.filter(name="Leo").exists()
    again = as_user(alice).post("/api/v1/forget/", {"scope": family.pk, "subject": "Lee"}, format="json")
    assert again.status_code == 200
    assert again.json()["receipt"] == {"cards": 0, "candidates": 0, "revisions": 0, "perspectives": 0}


def test_a_member_entity_stays_when_everything_about_them_is_forgotten(alice, family, as_user):
    said(family, alice, "address", "Taipei")
    answer = as_user(alice).post("/api/v1/forget/", {"scope": family.pk, "subject": "me"}, format="json")
    assert answer.json()["receipt"]["cards"] == 1 and "entities" not in answer.json()["receipt"]
    assert Entity.objects.filter(user=alice).exists()


def test_an_unknown_label_or_an_ambiguous_name_forgets_nothing(alice, family, as_user):
    ana = Entity.objects.create(scope=family, name="Ana")  # written before Ana the member joined
    said(family, alice, "job_title", "Engineer", subject=ana)
    membership_set(scope=family, user=UserFactory(username="ana", display_name="Ana"), role="member")
    unknown = as_user(alice).post("/api/v1/forget/", {"scope": family.pk, "subject": "me", "label": "adress"},
                                  format="json")
    assert unknown.status_code == 400 and unknown.json()["code"] == "unknown_label"
    ambiguous = as_user(alice).post("/api/v1/forget/", {"scope": family.pk, "subject": "Ana"}, format="json")
    assert ambiguous.json()["code"] == "ambiguous_entity" and len(ambiguous.json()["candidates"]) == 2
    assert Card.objects.filter(scope=family).count() == 1


@pytest.mark.parametrize("who, status", [
    ("owner_session", 200), ("owner_write_token", 200), ("member_write_token", 200),
    ("owner_read_token", 403), ("viewer_write_token", 403), ("token_for_another_scope", 404),
    ("stranger_session", 404)])
def test_a_token_forgets_only_what_its_person_may_forget_card_by_card(alice, family, as_user, bearer, who, status):
    """The same answer, and the same cards, as DELETE /cards/{id}/ gives that principal for each card."""
    cards = [said(family, alice, "address", city) for city in ("Taipei", "Kyoto")]
    bob, vic = (User.objects.get(username=name) for name in ("bob", "vic"))
    stranger = UserFactory(username="mallory")
    clients = {
        "owner_session": lambda: as_user(alice),
        "owner_write_token": lambda: bearer(alice, write=True, scopes=[family]),
        "member_write_token": lambda: bearer(bob, write=True, scopes=[family]),
        "owner_read_token": lambda: bearer(alice, scopes=[family]),
        "viewer_write_token": lambda: bearer(vic, write=True, scopes=[family]),
        "token_for_another_scope": lambda: bearer(alice, write=True, scopes=[alice.personal_scope]),
        "stranger_session": lambda: as_user(stranger),
    }
    client = clients[who]()
    single = client.delete(f"/api/v1/cards/{cards[0].pk}/")
    assert single.status_code == (204 if status == 200 else status)
    answer = client.post("/api/v1/forget/", {"scope": family.pk, "subject": "alice", "label": "address"},
                         format="json")
    assert answer.status_code == status, answer.json()
    assert Card.objects.filter(scope=family).exists() == (status != 200)
