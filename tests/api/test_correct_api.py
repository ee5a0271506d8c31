"""Corrections, not duplicates (DESIGN §4 rule 3): "Ana's wedding was Sunday, not
Saturday" corrects the one wedding — `POST /cards/{id}/correct/` — and never
records a second. The write-once trigger still refuses every other change."""

import datetime as dt
import json

import pytest
from django.db import IntegrityError, connection, transaction

from cards.models import Card, CardRevision, Entity
from scopes.services import membership_set, scope_create
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

SAID = "2026-05-08T16:44:10+08:00"  # a Friday, in Taipei (alice's zone)
TAIPEI = dt.timezone(dt.timedelta(hours=8))


def _wedding(agent, scope, **more):
    body = {"scope": scope, "kind": "event", "subject": "Ana", "label": "wedding", "value": "Ana's wedding",
            "text": "Ana got married", "when": "2026-05-02", "reference_time": SAID, **more}
    response = agent.post("/api/v1/cards/", body, format="json")
    assert response.status_code in (200, 201), response.json()
    return response.json()


def _correct(agent, card_id, **body):
    return agent.post(f"/api/v1/cards/{card_id}/correct/", body, format="json")


def _weddings(agent, scope) -> int:
    response = agent.post("/api/v1/count/", {"scope": scope, "label": "wedding"}, format="json")
    assert response.status_code == 200, response.json()
    return response.json()["count"]


def test_the_date_is_corrected_on_the_same_card_and_the_old_one_kept(alice, bearer):
    agent = bearer(alice, write=True)
    scope = alice.personal_scope.pk
    card = _wedding(agent, scope)["card"]
    assert card["occurred_at"] == "2026-05-01T16:00:00Z"  # Saturday May 2, from midnight in Taipei
    corrected = _correct(agent, card["id"], when="2026-05-03", reason="it was Sunday, not Saturday")
    assert corrected.status_code == 200, corrected.json()
    body = corrected.json()
    assert body["corrected"] == ["when"] and body["id"] == card["id"]
    assert (body["occurred_at"], body["occurred_end"], body["precision"]) == (
        "2026-05-02T16:00:00Z", "2026-05-03T16:00:00Z", "day")
    # The same shape as reading the card, plus what changed.
    assert {k: v for k, v in body.items() if k != "corrected"} == agent.get(f"/api/v1/cards/{card['id']}/").json()
    assert _weddings(agent, scope) == 1
    revision = CardRevision.objects.get(card_id=card["id"])
    assert revision.field == "when" and revision.reason == "it was Sunday, not Saturday"
    assert json.loads(revision.before)["occurred_at"] == "2026-05-01T16:00:00Z"
    assert json.loads(revision.after)["occurred_at"] == "2026-05-02T16:00:00Z"
    stored = Card.objects.get(pk=card["id"])
    assert stored.effective_at == dt.datetime(2026, 5, 3, tzinfo=TAIPEI)


def test_sunday_is_read_against_the_reference_in_the_speakers_zone(alice, bearer):
    agent = bearer(alice, write=True)
    scope = alice.personal_scope.pk
    card = _wedding(agent, scope, when="Saturday")["card"]
    said_saturday = card["occurred_at"]
    body = _correct(agent, card["id"], when="Sunday", reference_time=SAID).json()
    sunday = dt.datetime.fromisoformat(body["occurred_at"]).astimezone(TAIPEI)
    assert sunday.weekday() == 6 and (sunday.hour, sunday.minute) == (0, 0), body
    assert body["occurred_at"] != said_saturday and _weddings(agent, scope) == 1


def test_remembering_it_again_on_the_corrected_day_is_a_duplicate_of_it(alice, bearer):
    agent = bearer(alice, write=True)
    scope = alice.personal_scope.pk
    card = _wedding(agent, scope)["card"]
    assert _correct(agent, card["id"], when="2026-05-03").status_code == 200
    again = _wedding(agent, scope, when="2026-05-03")
    assert again["outcome"] == "duplicate" and again["card"]["id"] == card["id"]
    # The day it was said wrongly is free again: it holds no wedding now.
    assert _weddings(agent, scope) == 1


def test_a_correction_onto_another_record_of_the_same_event_is_refused(alice, bearer):
    agent = bearer(alice, write=True)
    scope = alice.personal_scope.pk
    saturday = _wedding(agent, scope)["card"]
    sunday = _wedding(agent, scope, when="2026-05-03")["card"]
    refused = _correct(agent, saturday["id"], when="2026-05-03")
    assert refused.status_code == 409 and refused.json()["code"] == "same_event_exists"
    assert refused.json()["card"] == sunday["id"]
    assert Card.objects.get(pk=saturday["id"]).occurred_at == dt.datetime(2026, 5, 2, tzinfo=TAIPEI)
    assert not CardRevision.objects.exists()


def test_the_text_is_corrected_through_the_description_correction(alice, bearer):
    agent = bearer(alice, write=True)
    card = _wedding(agent, alice.personal_scope.pk)["card"]
    body = _correct(agent, card["id"], text="Ana married Jo").json()
    assert body["corrected"] == ["text"] and body["text"] == "Ana married Jo"
    revision = CardRevision.objects.get(card_id=card["id"])
    assert (revision.field, revision.before, revision.after) == ("text", "Ana got married", "Ana married Jo")


def test_the_place_is_corrected_and_bound_as_remember_binds_it(alice, bearer):
    agent = bearer(alice, write=True)
    scope = alice.personal_scope.pk
    card = _wedding(agent, scope, object="Lisbon")["card"]
    body = _correct(agent, card["id"], object="Porto", when="2026-05-02").json()
    assert body["corrected"] == ["object"] and body["object"] == "Porto"  # the same day: no change of `when`
    porto = Entity.objects.get(scope_id=scope, name="Porto")
    stored = Card.objects.get(pk=card["id"])
    assert stored.object_id == porto.pk and stored.value_norm.endswith(f" @{porto.pk}")
    assert "porto" in stored.lexemes
    revision = CardRevision.objects.get(card_id=card["id"])
    assert (revision.field, revision.before, revision.after) == ("object", "Lisbon", "Porto")
    # Remembered again with its right place, it is the same wedding.
    again = _wedding(agent, scope, object="Porto")
    assert again["outcome"] == "duplicate" and again["card"]["id"] == card["id"]


def test_a_correction_that_changes_nothing_answers_the_card_unchanged(alice, bearer):
    agent = bearer(alice, write=True)
    card = _wedding(agent, alice.personal_scope.pk)["card"]
    body = _correct(agent, card["id"], when="2026-05-02", text="Ana got married").json()
    assert body["corrected"] == [] and body["occurred_at"] == card["occurred_at"]
    assert not CardRevision.objects.exists()


def test_a_state_is_refused_with_what_to_do_instead(alice, bearer):
    agent = bearer(alice, write=True)
    state = agent.post("/api/v1/cards/", {"scope": alice.personal_scope.pk, "kind": "state", "subject": "me",
                                          "label": "address", "value": "Taipei"}, format="json").json()["card"]
    refused = _correct(agent, state["id"], text="Lives in Kyoto")
    assert refused.status_code == 400 and refused.json()["code"] == "not_an_event"
    assert "remember the new value" in refused.json()["detail"]
    assert Card.objects.get(pk=state["id"]).text == ""


def test_bad_input_is_a_400_never_a_500(alice, bearer):
    agent = bearer(alice, write=True)
    card = _wedding(agent, alice.personal_scope.pk)["card"]
    assert _correct(agent, card["id"]).json()["code"] == "validation_error"
    assert _correct(agent, card["id"], when="the day the moon fell").json()["code"] == "unresolvable_time"
    assert _correct(agent, card["id"], object="Por\u200bto").json()["code"] == "invalid_text"
    assert _correct(agent, card["id"], object="  ").status_code == 400
    assert _correct(agent, card["id"], surprise=1).status_code == 400
    assert Card.objects.get(pk=card["id"]).occurred_at == dt.datetime(2026, 5, 2, tzinfo=TAIPEI)


def test_a_correction_is_screened(alice, bearer):
    agent = bearer(alice, write=True)
    card = _wedding(agent, alice.personal_scope.pk)["card"]
    sensitive = _correct(agent, card["id"], when="2026-05-03", text="Ana married Jo after her cancer treatment")
    assert sensitive.status_code == 400 and sensitive.json()["code"] == "needs_consent"
    place = _correct(agent, card["id"], object="the cancer clinic")
    assert place.status_code == 400 and place.json()["code"] == "needs_consent"
    stored = Card.objects.get(pk=card["id"])
    assert stored.occurred_at == dt.datetime(2026, 5, 2, tzinfo=TAIPEI) and stored.text == "Ana got married"
    assert not CardRevision.objects.exists()


def test_a_read_only_token_may_not_correct_and_another_household_cannot_see(alice, bearer):
    writer = bearer(alice, write=True)
    card = _wedding(writer, alice.personal_scope.pk)["card"]
    refused = _correct(bearer(alice), card["id"], when="2026-05-03")
    assert refused.status_code == 403
    mallory = UserFactory(username="mallory")
    hidden = _correct(bearer(mallory, write=True), card["id"], when="2026-05-03")
    assert hidden.status_code == 404
    assert Card.objects.get(pk=card["id"]).occurred_at == dt.datetime(2026, 5, 2, tzinfo=TAIPEI)


def test_a_member_who_may_write_corrects_a_family_event_as_patch_allows(alice, bearer):
    bob = UserFactory(username="bob")
    family = scope_create(name="Home", kind="family", creator=alice)
    membership_set(scope=family, user=bob, role="member")
    card = _wedding(bearer(alice, write=True), family.pk)["card"]
    body = _correct(bearer(bob, write=True), card["id"], when="2026-05-03").json()
    assert body["corrected"] == ["when"]
    assert CardRevision.objects.get(card_id=card["id"]).actor == bob


def test_forgetting_a_corrected_event_takes_its_revisions(alice, bearer):
    agent = bearer(alice, write=True)
    card = _wedding(agent, alice.personal_scope.pk, object="Lisbon")["card"]
    _correct(agent, card["id"], when="2026-05-03", object="Porto", text="Ana married Jo")
    assert CardRevision.objects.filter(card_id=card["id"]).count() == 3
    assert agent.delete(f"/api/v1/cards/{card['id']}/").status_code == 204
    assert not CardRevision.objects.filter(card_id=card["id"]).exists()


def test_the_trigger_still_refuses_a_plain_update_of_when(alice, bearer):
    agent = bearer(alice, write=True)
    card = _wedding(agent, alice.personal_scope.pk)["card"]
    for statement in ("UPDATE cards_card SET occurred_at = occurred_at + interval '1 day' WHERE id = %s",
                      "UPDATE cards_card SET object_id = (SELECT min(id) FROM cards_entity) WHERE id = %s"):
        with pytest.raises(IntegrityError, match="immutable_event"), transaction.atomic(), \
                connection.cursor() as cursor:
            cursor.execute(statement, [card["id"]])
    # The correcting setting names one card: another card, or what happened, is still refused under it.
    other = _wedding(agent, alice.personal_scope.pk, value="Kim's wedding")["card"]
    for statement in ("UPDATE cards_card SET occurred_at = occurred_at + interval '1 day' WHERE id = %s",
                      "UPDATE cards_card SET value = 'a funeral' WHERE id = %s"):
        with pytest.raises(IntegrityError, match="immutable_event"), transaction.atomic(), \
                connection.cursor() as cursor:
            cursor.execute(f"SET LOCAL memory_site.correcting = '{card['id']}'")
            cursor.execute(statement, [other["id"] if "occurred_at" in statement else card["id"]])
    assert Card.objects.get(pk=card["id"]).value == "Ana's wedding"
    assert Card.objects.get(pk=other["id"]).occurred_at == dt.datetime(2026, 5, 2, tzinfo=TAIPEI)


def test_a_place_that_looks_like_another_is_refused_as_remember_refuses_it(alice, bearer):
    agent = bearer(alice, write=True)
    scope = alice.personal_scope.pk
    _wedding(agent, scope, value="Kim's wedding", object="Porto")
    card = _wedding(agent, scope, object="Lisbon")["card"]
    refused = _correct(agent, card["id"], object="P\u043erto")  # a Cyrillic о
    assert refused.status_code == 400 and refused.json()["code"] == "confusable_name"
    assert "object" in refused.json()["fields"]
    assert Card.objects.get(pk=card["id"]).object.name == "Lisbon"
