"""DELETE /api/v1/account/ and `manage.py erase_account`: a person erases their
account — their personal scope, their own cards in shared scopes (those they
stated, those about them), perspectives, tokens, memberships, candidates, jobs,
the free text of their decisions; the account row last — with a receipt of
counts. A signed-in person's act with their password; never a token's."""

import io

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from cards.drafts import CardDraft
from cards.models import AuditEvent, Card, CardPerspective, Entity
from cards.services import card_remember
from review.models import Candidate, Decision, IngestJob
from review.services.candidates import candidate_reject
from scopes.models import AgentToken, Membership, Scope, User
from scopes.services import membership_set
from scopes.tokens import token_create
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db

PASSWORD = "a long phrase only bob knows"


def with_password(user):
    # Hashed with the tests' fast hasher (the factory's hash was made with another).
    user.set_password(PASSWORD)
    user.save(update_fields=["password"])
    return user


def said(scope, actor, label, value, subject="me", **fields) -> Card:
    return card_remember(scope=scope, actor=actor, draft=CardDraft(
        kind="state", label=label, subject=subject, value=value, reference_time=timezone.now(), **fields)).card


@pytest.fixture
def household(alice):
    """alice owns the family; bob is a member with a life of his own in it."""
    bob, alice = with_password(UserFactory(username="bob")), with_password(alice)
    family = family_scope(owner=alice)
    membership_set(scope=family, user=bob, role="member")
    own = said(bob.personal_scope, bob, "address", "Porto")
    stated = said(family, bob, "likes", "surfing")
    about_alice = said(family, bob, "skill", "chess", subject="alice")  # bob's words about someone else
    about_bob = said(family, alice, "job_title", "Surfer", subject="bob")  # someone's words about bob
    hers = said(family, alice, "address", "Lisbon", perspectives={"bob": "where we live"})
    Candidate.objects.create(scope=family, author=bob, kind="state", label="likes", subject="me", value="waves",
                             quote="I like waves", message_at=timezone.now(), extractor="patterns")
    theirs = Candidate.objects.create(scope=family, author=alice, kind="state", label="likes", subject="me",
                                      value="rain", quote="I like rain", message_at=timezone.now(),
                                      extractor="patterns")
    membership_set(scope=family, user=bob, role="admin")  # so he can review
    candidate_reject(candidate=theirs, reviewer=bob, reason="alice hates rain, she told me")
    IngestJob.objects.create(scope=family, session="s1", created_by=bob, extractor="patterns", status="done")
    token_create(user=bob, name="agent", can_write=True, all_scopes=True)
    return {"bob": bob, "family": family, "own": own, "stated": stated, "about_alice": about_alice,
            "about_bob": about_bob, "hers": hers, "rejected": theirs}


def test_erasing_an_account_leaves_nothing_of_theirs_and_everything_of_the_others(alice, household, as_user):
    bob, family = household["bob"], household["family"]
    personal = bob.personal_scope.pk
    answer = as_user(bob).delete("/api/v1/account/", {"password": PASSWORD}, format="json")
    assert answer.status_code == 200, answer.json()
    assert answer.json()["receipt"] == {
        "cards": 4, "candidates": 1, "revisions": 0, "perspectives": 1, "reasons": 2, "jobs": 1, "tokens": 1,
        "memberships": 1, "scopes": 1, "entities": 1, "account": 1}
    assert not User.objects.filter(username="bob").exists() and not Scope.objects.filter(pk=personal).exists()
    assert set(Card.objects.values_list("pk", flat=True)) == {household["hers"].pk}
    assert not CardPerspective.objects.exists() and not AgentToken.objects.exists()
    assert not IngestJob.objects.exists()
    assert list(Candidate.objects.values_list("pk", "reason")) == [(household["rejected"].pk, "")]
    assert list(Decision.objects.values_list("action", "reviewer", "reason")) == [("reject", None, "")]
    assert list(Membership.objects.filter(scope=family).values_list("user__username", flat=True)) == ["alice"]
    assert Entity.objects.filter(user=alice).exists() and not Entity.objects.filter(name="Bob").exists()
    erased = AuditEvent.objects.get(action="account.erased")
    assert erased.detail == answer.json()["receipt"] and erased.actor is None
    assert as_user(alice).get("/api/v1/me/").status_code == 200
    assert answer.wsgi_request.user.is_anonymous  # the session ended


def test_a_token_never_erases_an_account_whatever_its_access(household, bearer):
    bob = household["bob"]
    answer = bearer(bob, write=True, all_scopes=True).delete("/api/v1/account/", {"password": PASSWORD},
                                                             format="json")
    assert answer.status_code == 403 and answer.json()["code"] == "permission_denied"
    assert User.objects.filter(username="bob").exists() and Card.objects.filter(source_actor=bob).count() == 3


def test_a_wrong_password_or_no_session_erases_nothing(household, as_user, api):
    bob = household["bob"]
    assert api.delete("/api/v1/account/", {"password": PASSWORD}, format="json").status_code == 401
    wrong = as_user(bob).delete("/api/v1/account/", {"password": "tr0ub4dor"}, format="json")
    assert wrong.status_code == 400 and wrong.json()["fields"] == {"password": ["does not match"]}
    assert as_user(bob).delete("/api/v1/account/", {}, format="json").status_code == 400
    assert User.objects.filter(username="bob").exists() and AgentToken.objects.filter(user=bob).exists()


def test_the_last_owner_of_a_shared_scope_hands_it_over_first(alice, household, as_user):
    refused = as_user(alice).delete("/api/v1/account/", {"password": PASSWORD}, format="json")
    assert refused.status_code == 409 and refused.json()["code"] == "last_owner"
    assert User.objects.filter(username="alice").exists() and Card.objects.filter(source_actor=alice).count() == 2
    membership_set(scope=household["family"], user=household["bob"], role="owner")
    assert as_user(alice).delete("/api/v1/account/", {"password": PASSWORD}, format="json").status_code == 200
    assert Scope.objects.filter(pk=household["family"].pk).exists()


def test_a_scope_only_they_belong_to_goes_whole_and_a_shared_project_below_stays(alice, household):
    from scopes.services import scope_create

    bob = household["bob"]
    solo = scope_create(name="Bob's notes", kind="project", creator=bob, parent=bob.personal_scope)
    shared = scope_create(name="Surf trip", kind="project", creator=bob, parent=bob.personal_scope)
    membership_set(scope=shared, user=alice, role="owner")
    said(solo, bob, "likes", "longboards")
    left = said(shared, alice, "likes", "sunsets")
    out = io.StringIO()
    with pytest.raises(CommandError, match="--yes"):
        call_command("erase_account", "bob", stdout=out)
    call_command("erase_account", "bob", "--yes", stdout=out)
    assert out.getvalue().startswith("Erased bob: ") and "longboards" not in out.getvalue()
    assert not Scope.objects.filter(pk=solo.pk).exists()
    shared.refresh_from_db()
    assert shared.parent_id is None and Card.objects.filter(pk=left.pk).exists()
