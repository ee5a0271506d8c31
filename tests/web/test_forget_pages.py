"""The dashboard's forget buttons: a card, its whole timeline, everything about
its subject, and one's own account — each behind a confirmation step, each
answering with the receipt in words (counts, never content); and
`manage.py forget`, which acts as a person with the same rule."""

import io

import pytest
from django.core.management import CommandError, call_command

from cards.drafts import CardDraft
from cards.models import Card
from cards.services import card_remember
from scopes.models import User

pytestmark = pytest.mark.django_db

PASSWORD = "a long phrase only bob knows"


def test_forgetting_a_timeline_asks_first_then_says_what_went(household, pages, alice):
    card, client = household["card"], pages(alice)
    page = client.get(f"/cards/{card.pk}/")
    assert f"/cards/{card.pk}/forget/timeline/".encode() in page.content
    confirm = client.get(f"/cards/{card.pk}/forget/timeline/")
    assert confirm.status_code == 200 and b"Forget the whole address timeline" in confirm.content
    assert Card.objects.filter(scope=household["family"]).count() == 2  # asking changed nothing
    done = client.post(f"/cards/{card.pk}/forget/timeline/", follow=True)
    assert b"Forgotten: 2 cards." in done.content and b"Kyoto" not in done.content
    assert not Card.objects.filter(scope=household["family"]).exists()


def test_forgetting_everything_about_a_subject_from_its_card(household, pages, alice):
    family = household["family"]
    lee = card_remember(scope=family, actor=alice, draft=CardDraft(
        kind="state", label="job_title", subject="Lee", value="Engineer")).card
    client = pages(household["bob"])  # a member may forget what he may write
    assert b"Forget everything about Lee in The Lins?" in client.get(f"/cards/{lee.pk}/forget/subject/").content
    done = client.post(f"/cards/{lee.pk}/forget/subject/", follow=True)
    assert b"Forgotten: 1 card and 1 name." in done.content
    assert Card.objects.filter(scope=family).count() == 2  # alice's addresses stay
    assert client.get(f"/cards/{lee.pk}/forget/everything/").status_code == 404


def test_erasing_ones_account_asks_for_the_password_then_shows_the_receipt(household, pages):
    bob = household["bob"]
    bob.set_password(PASSWORD)
    bob.save(update_fields=["password"])
    client = pages(bob)
    assert b"/accounts/erase/" in client.get("/accounts/settings/").content
    assert b"Erase your account?" in client.get("/accounts/erase/").content
    wrong = client.post("/accounts/erase/", {"password": "tr0ub4dor"})
    assert wrong.status_code == 400 and b'id="id_password_error"' in wrong.content
    assert User.objects.filter(pk=bob.pk).exists()
    done = client.post("/accounts/erase/", {"password": PASSWORD})
    assert done.status_code == 200 and b"Your account was erased" in done.content
    assert b"1 membership" in done.content and b"1 account" in done.content
    assert not User.objects.filter(pk=bob.pk).exists()
    assert client.get("/").status_code == 302  # signed out


def test_manage_forget_acts_as_a_person_with_the_same_rule(household):
    family, out = household["family"], io.StringIO()
    with pytest.raises(CommandError, match="may not forget"):
        call_command("forget", "--user", "victor", "--scope", str(family.pk), "--subject", "alice",
                     "--label", "address", stdout=out)
    with pytest.raises(CommandError, match="can see"):
        call_command("forget", "--user", "mallory", "--scope", str(family.pk), "--subject", "alice", stdout=out)
    call_command("forget", "--user", "alice", "--scope", str(family.pk), "--subject", "me", "--label", "address",
                 stdout=out)
    assert out.getvalue() == "Forgotten: 2 cards.\n"
    assert not Card.objects.filter(scope=family).exists()
