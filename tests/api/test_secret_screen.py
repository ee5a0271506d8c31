"""Issue 48, "Secrets stay out" (DESIGN §4 rule 8): a password, PIN, door or alarm
code, card number or one-time code is refused on every write an agent or a person
makes — `excluded`, rule `secret`, with a message the agent can repeat and that
never repeats the secret — while the word alone ("I forgot my password") is kept.
The same inputs walk every write path in tests/test_screen_write_paths.py; here:
the refusal's shape, all-or-nothing bulk, each free-text field, a label that
names a secret, corrections, and ingest keeping the rest of the message."""

from __future__ import annotations

import datetime as dt

import pytest

from cards.drafts import CardDraft
from cards.errors import Excluded
from cards.labels import registry_clear
from cards.models import Card, CardPerspective, Label
from cards.services import card_remember
from cards.services.corrections import card_describe, knowledge_rename
from review.models import Candidate, IngestJob
from review.services.ingest import ingest_process
from scopes.services import membership_set
from tests.factories import UserFactory, family_scope

AT = dt.datetime(2026, 5, 8, 16, 44, 10, tzinfo=dt.timezone(dt.timedelta(hours=8)))
SAID = ("Never stored: a secret (a password, PIN, door or alarm code, card number or one-time code) — keep it in "
        "a password manager, not in memory")


@pytest.fixture
def agent(alice, bearer):
    return bearer(alice, write=True)


def note(scope, **fields) -> dict:
    return {"scope": scope.pk, "kind": "knowledge", "subject": "me", "label": "note", **fields}


def test_a_password_in_a_value_is_excluded_naming_the_rule_without_repeating_it(agent, scope):
    for consent in (False, True):  # consent lets sensitive content through, never a secret
        refused = agent.post("/api/v1/cards/", note(scope, value="The wifi password is hunter2", consent=consent),
                             format="json")
        assert refused.status_code == 400
        assert refused.json() == {"code": "excluded", "detail": f"{SAID} (in `value`).", "rule": "secret",
                                  "field": "value"}
        assert "hunter2" not in refused.content.decode()
    assert not Card.objects.exists()


@pytest.mark.parametrize(("fields", "field"), [
    ({"value": "router", "text": "門禁密碼1234#"}, "text"),
    ({"value": "router", "source": {"quote": "the alarm code is 9911"}}, "source.quote"),
    ({"value": "groceries", "text": "Paid with 4012 8888 8888 1881"}, "text"),
    ({"value": "验证码 552910"}, "value"),
])
def test_a_secret_in_any_free_text_field_is_excluded(agent, scope, fields, field):
    refused = agent.post("/api/v1/cards/", note(scope, **fields), format="json")
    assert refused.status_code == 400
    assert (refused.json()["code"], refused.json()["rule"], refused.json()["field"]) == ("excluded", "secret", field)
    assert not Card.objects.exists()


def test_a_secret_in_a_perspective_is_excluded(alice, agent):
    family = family_scope(owner=alice, name="Okafor family")
    membership_set(scope=family, user=UserFactory(username="kai"), role="member")
    refused = agent.post("/api/v1/cards/", note(family, value="Wifi at home", perspectives={"kai": "PIN 4821"}),
                         format="json")
    assert refused.status_code == 400
    assert (refused.json()["rule"], refused.json()["field"]) == ("secret", "perspectives.kai")
    assert not Card.objects.exists() and not CardPerspective.objects.exists()


def test_bulk_with_one_secret_stores_nothing_and_names_the_card(agent, scope):
    cards = [{"scope": scope.pk, "kind": "state", "subject": "me", "label": "city", "value": "Oslo"},
             note(scope, value="I forgot my password"),
             note(scope, value="Card number 4111 1111 1111 1111")]
    refused = agent.post("/api/v1/cards/bulk/", {"cards": cards}, format="json")
    assert refused.status_code == 400
    body = refused.json()
    assert (body["code"], body["rule"], body["field"], body["index"]) == ("excluded", "secret", "value", 2)
    assert "4111" not in refused.content.decode()
    assert not Card.objects.exists()
    stored = agent.post("/api/v1/cards/bulk/", {"cards": cards[:2]}, format="json")
    assert stored.status_code == 201, stored.json()
    assert Card.objects.count() == 2


@pytest.mark.parametrize("value", [
    "The bus number is 12", "PIN code of the post office", "I forgot my password", "My phone number is 0912 345 678",
    "Our door is red", "The alarm goes off at 7", "Room 1234", "My birthday is 1990-01-02", "Order number 4411-2233",
    "Follows the code of conduct", "Uses a password manager", "Pays with a credit card ending in 1111",
    "網路密碼貼在冰箱門上", "我忘记密码了", "验证码一直没收到",
])
def test_near_misses_are_stored(agent, scope, value):
    stored = agent.post("/api/v1/cards/", note(scope, value=value), format="json")
    assert stored.status_code == 201, stored.json()


@pytest.fixture
def wifi_password_label():
    label = Label.objects.create(key="wifi_password", kind="knowledge", cardinality="multi", decay_lambda=0.0,
                                 description="The wifi's password")
    registry_clear()
    yield label
    registry_clear()


def test_a_label_naming_a_secret_refuses_its_every_value(agent, scope, wifi_password_label):
    refused = agent.post("/api/v1/cards/", note(scope, label="wifi_password", value="sunflower"), format="json")
    assert refused.status_code == 400
    assert (refused.json()["code"], refused.json()["rule"], refused.json()["field"], refused.json()["label"]) == (
        "excluded", "secret", "label", "wifi_password")
    assert "sunflower" not in refused.content.decode()
    assert not Card.objects.exists()


def test_corrections_refuse_a_secret_and_keep_the_card_as_it_was(alice, scope, agent):
    card = card_remember(scope=scope, actor=alice, draft=CardDraft(
        kind="knowledge", label="note", subject="me", value="Wifi", text="The router is in the hall")).card
    refused = agent.patch(f"/api/v1/cards/{card.pk}/", {"text": "The wifi password is hunter2"}, format="json")
    assert refused.status_code == 400
    assert (refused.json()["code"], refused.json()["rule"], refused.json()["field"]) == ("excluded", "secret", "text")
    with pytest.raises(Excluded) as described:
        card_describe(card=card, actor=alice, text="The router is in the hall", reason="the PIN is 4821")
    assert described.value.extra == {"rule": "secret", "field": "reason"}
    with pytest.raises(Excluded) as renamed:
        knowledge_rename(card=card, actor=alice, value="wifi password: BlueFox-77")
    assert renamed.value.extra == {"rule": "secret", "field": "value"}
    card.refresh_from_db()
    assert (card.value, card.text) == ("Wifi", "The router is in the hall")
    assert not card.revisions.exists()


def ingest(agent, scope, text: str) -> IngestJob:
    response = agent.post("/api/v1/ingest/", {"scope": scope.pk, "session": "s-1", "messages": [
        {"role": "user", "text": text, "at": AT.isoformat()}]}, format="json")
    assert response.status_code == 202, response.json()
    return ingest_process(job_id=IngestJob.objects.latest("id").pk, scope_id=scope.pk)


@pytest.mark.parametrize(("said", "kept", "secret"), [
    ("The wifi password is hunter2, and I moved to Oslo", "Oslo", "hunter2"),
    ("My PIN is 4821, but my email is dana@example.com", "dana@example.com", "4821"),
])
def test_ingest_drops_the_secret_clause_and_keeps_the_rest(agent, scope, said, kept, secret):
    job = ingest(agent, scope, said)
    assert {"message": job.result["dropped"][0]["message"], "rule": "secret"} in job.result["dropped"]
    candidates = list(Candidate.objects.filter(job=job))
    words = [" ".join([c.value, c.text, c.quote, c.object or ""]) for c in candidates]
    assert any(kept in w for w in words), words
    assert not any(secret in w for w in words), words
    job.refresh_from_db()
    assert job.messages == [] and secret not in str(job.result)


def test_ingest_of_a_secret_alone_stores_nothing(agent, scope):
    job = ingest(agent, scope, "記住，門禁密碼是 4455#")
    assert not Candidate.objects.filter(job=job).exists()
    assert [d["rule"] for d in job.result["dropped"]] == ["secret"]
