"""Signing in (with the lockout), out, changing a password, and joining through an invite link."""

import pytest
from django.test import Client

from scopes.invites import invite_create
from scopes.models import Invite, Membership, User
from tests.factories import UserFactory, family_scope
from scopes.relations import relation_to

pytestmark = pytest.mark.django_db
PASSWORD = "correct horse battery staple"


@pytest.fixture(autouse=True)
def _known_passwords(alice):
    alice.set_password(PASSWORD)
    alice.save()


def person(username: str) -> User:
    user = UserFactory(username=username)
    user.set_password(PASSWORD)
    user.save()
    return user


def test_sign_in_and_out(alice):
    client = Client()
    assert client.get("/accounts/login/").status_code == 200
    answer = client.post("/accounts/login/", {"username": "alice", "password": PASSWORD})
    assert answer.status_code == 302 and answer.url == "/"
    assert client.get("/").status_code == 200
    client.post("/accounts/logout/")
    assert client.get("/").status_code == 302


def test_the_sixth_wrong_password_locks_out_even_the_right_one(alice):
    client = Client()
    answers = [client.post("/accounts/login/", {"username": "alice", "password": "wrong"}).status_code
               for _ in range(5)]
    assert answers == [200, 200, 200, 200, 429]  # the form again with its error; the fifth locks
    locked = client.post("/accounts/login/", {"username": "alice", "password": PASSWORD})
    assert locked.status_code == 429 and b"paused for 15 minutes" in locked.content
    assert "_auth_user_id" not in client.session
    # Another person on the same address is not locked out.
    person("bob")
    assert Client().post("/accounts/login/", {"username": "bob", "password": PASSWORD}).status_code == 302


def test_password_change(alice):
    client = Client()
    client.force_login(alice)
    answer = client.post("/accounts/password/", {"old_password": PASSWORD, "new_password1": "a fresh long phrase 9",
                                                 "new_password2": "a fresh long phrase 9"})
    assert answer.status_code == 302
    alice.refresh_from_db()
    assert alice.check_password("a fresh long phrase 9")


def test_an_admin_creates_an_invite_and_sees_the_link_once(alice):
    family = family_scope(owner=alice)
    client = Client()
    client.force_login(alice)
    page = client.post(f"/scopes/{family.pk}/invites/", {"role": "member", "relation": "son"})
    assert page.status_code == 200
    link = page.content.split(b'id="invite-link" type="text" readonly value="')[1].split(b'"')[0].decode()
    token = link.rstrip("/").rsplit("/", 1)[1]
    invite = Invite.objects.get(scope=family)
    assert token not in invite.token_hash and len(invite.token_hash) == 64


def test_a_new_person_signs_up_through_an_invite_and_becomes_a_member(alice):
    family = family_scope(owner=alice)
    _, token = invite_create(scope=family, role="member", created_by=alice, relation="son")
    client = Client()
    assert client.get(f"/invite/{token}/").status_code == 200
    answer = client.post(f"/invite/{token}/", {"username": "kai", "display_name": "Kai",
                                               "password1": "a long enough phrase 7", "password2": "a long enough phrase 7"})
    # Asked once what to share with the family (tests/web/test_sharing_pages.py): someone new has
    # nothing of their own yet, so on to the family's page.
    assert answer.status_code == 302 and answer.url == f"/scopes/{family.pk}/joined/"
    assert client.get(answer.url).url == f"/scopes/{family.pk}/"
    kai = User.objects.get(username="kai")
    assert kai.personal_scope is not None
    membership = Membership.objects.get(scope=family, user=kai)
    assert membership.role == "member"
    # The invite's relation is what the invitee is to the person who invited them.
    assert relation_to(scope_id=family.pk, member_id=kai.pk, of_id=alice.pk) == "son"
    assert client.get(f"/scopes/{family.pk}/").status_code == 200
    # The link is spent.
    assert Client().get(f"/invite/{token}/").status_code == 404


def test_a_signed_in_person_joins_and_a_bad_sign_up_creates_nobody(alice):
    family = family_scope(owner=alice)
    _, token = invite_create(scope=family, role="viewer", created_by=alice)
    anonymous = Client()
    refused = anonymous.post(f"/invite/{token}/", {"username": "x", "password1": "123", "password2": "123"})
    assert refused.status_code == 400 and not User.objects.filter(username="x").exists()
    bob = UserFactory(username="bob")
    client = Client()
    client.force_login(bob)
    assert client.post(f"/invite/{token}/").status_code == 302
    assert Membership.objects.get(scope=family, user=bob).role == "viewer"


def test_an_expired_or_unknown_invite_is_404(alice):
    from django.utils import timezone

    family = family_scope(owner=alice)
    invite, token = invite_create(scope=family, role="member", created_by=alice)
    Invite.objects.filter(pk=invite.pk).update(expires_at=timezone.now())
    assert Client().get(f"/invite/{token}/").status_code == 404
    assert Client().get("/invite/nonsense/").status_code == 404


def test_an_invite_never_makes_an_owner(alice):
    family = family_scope(owner=alice)
    client = Client()
    client.force_login(alice)
    client.post(f"/scopes/{family.pk}/invites/", {"role": "owner"})
    assert not Invite.objects.exists()
