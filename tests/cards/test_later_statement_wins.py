"""DESIGN §4 rule 2, both sides: a value stated with no start of its own ("I live in Lisbon") holds when
it was said; a later statement whose own start is earlier ("I moved to Kyoto last month") supersedes it —
the person is telling us what changed. Only a value whose start was itself stated ("I moved to Lisbon on
June 1") keeps the later-learned, earlier-dated value in the past."""

import pytest

from cards.drafts import CardDraft
from cards.models import Card
from cards.selectors.cards import card_as_of, card_history
from cards.services import card_remember, card_remember_many

pytestmark = pytest.mark.django_db


def address(value, said, **extra):
    return CardDraft(kind="state", label="address", subject="me", value=value, reference_time=said, **extra)


def current(scope):
    return [c.value for c in Card.objects.filter(scope=scope, label__key="address", superseded_at__isnull=True)]


def held_at(scope, alice, at):
    label = Card.objects.filter(scope=scope, label__key="address").first().label
    return [c.value for c in card_as_of(scope=scope, subject=alice.entity, label=label, at=at)]


@pytest.fixture
def months(t0):
    return {m: t0.replace(month=m) for m in range(1, 9)}


def test_a_later_statement_with_an_earlier_start_wins_over_a_value_only_said(alice, scope, months):
    lisbon = card_remember(scope=scope, actor=alice, draft=address("Lisbon", months[6])).card
    result = card_remember(scope=scope, actor=alice,
                           draft=address("Kyoto", months[6].replace(day=20), effective_at=months[5]))
    assert result.outcome == "superseded" and result.superseded == [lisbon.pk]
    assert current(scope) == ["Kyoto"]
    assert held_at(scope, alice, months[6].replace(day=10)) == ["Kyoto"]
    lisbon.refresh_from_db()
    # Lisbon stays in the history, held by no instant: a later word overruled it.
    assert (lisbon.superseded_at, lisbon.superseded_by_id) == (lisbon.effective_at, result.card.pk)
    assert [c.value for c in card_history(card=result.card)] == ["Kyoto", "Lisbon"]


def test_a_value_whose_start_was_stated_keeps_the_later_learned_value_in_the_past(alice, scope, months):
    lisbon = card_remember(scope=scope, actor=alice, draft=address("Lisbon", months[6], effective_at=months[6])).card
    result = card_remember(scope=scope, actor=alice,
                           draft=address("Kyoto", months[6].replace(day=20), effective_at=months[5]))
    assert result.outcome == "inserted" and result.superseded == []
    assert (result.card.superseded_at, result.card.superseded_by_id) == (months[6], lisbon.pk)
    assert current(scope) == ["Lisbon"]


def test_a_message_said_before_the_value_it_would_overrule_leaves_it_standing(alice, scope, months):
    """A message from May, processed late, says Kyoto since March: Lisbon, said in June, was said after it."""
    card_remember(scope=scope, actor=alice, draft=address("Lisbon", months[6]))
    result = card_remember(scope=scope, actor=alice, draft=address("Kyoto", months[5], effective_at=months[3]))
    assert result.outcome == "inserted" and current(scope) == ["Lisbon"]


def test_every_value_only_said_since_the_start_is_overruled(alice, scope, months):
    porto = card_remember(scope=scope, actor=alice, draft=address("Porto", months[1], effective_at=months[1])).card
    lisbon = card_remember(scope=scope, actor=alice, draft=address("Lisbon", months[5])).card
    oslo = card_remember(scope=scope, actor=alice, draft=address("Oslo", months[6])).card
    result = card_remember(scope=scope, actor=alice, draft=address("Kyoto", months[7], effective_at=months[4]))
    assert result.superseded == [porto.pk, lisbon.pk, oslo.pk]
    assert current(scope) == ["Kyoto"]
    assert held_at(scope, alice, months[2]) == ["Porto"]
    assert held_at(scope, alice, months[6]) == ["Kyoto"]


def test_a_value_only_said_stated_again_after_the_statement_resumes_there(alice, scope, months):
    """Lisbon said in June and again in August; a message of July says Kyoto since May: Kyoto holds from
    May, Lisbon again from its August statement, said after the July one."""
    lisbon = card_remember(scope=scope, actor=alice, draft=address("Lisbon", months[6])).card
    assert card_remember(scope=scope, actor=alice, draft=address("Lisbon", months[8])).outcome == "reinforced"
    result = card_remember(scope=scope, actor=alice, draft=address("Kyoto", months[7], effective_at=months[5]))
    assert result.superseded == [lisbon.pk]
    assert (result.card.effective_at, result.card.superseded_at) == (months[5], months[8])
    assert held_at(scope, alice, months[6]) == ["Kyoto"] and current(scope) == ["Lisbon"]


def test_the_same_value_said_again_from_its_start_holds_again_over_a_value_only_said(alice, scope, months):
    kyoto = card_remember(scope=scope, actor=alice, draft=address("Kyoto", months[5], effective_at=months[5])).card
    lisbon = card_remember(scope=scope, actor=alice, draft=address("Lisbon", months[6])).card
    result = card_remember(scope=scope, actor=alice, draft=address("Kyoto", months[7], effective_at=months[5]))
    assert (result.outcome, result.card.pk, result.superseded) == ("superseded", kyoto.pk, [lisbon.pk])
    assert current(scope) == ["Kyoto"] and held_at(scope, alice, months[6]) == ["Kyoto"]


def test_still_true_without_a_start_is_only_said_too(alice, scope, months):
    """Porto since January (stated), "still Porto" said in June; in July "Kyoto since May": the June
    statement gave no start, so it does not bring Porto back."""
    card_remember(scope=scope, actor=alice, draft=address("Porto", months[1], effective_at=months[1]))
    assert card_remember(scope=scope, actor=alice, draft=address("Porto", months[6])).outcome == "reinforced"
    card_remember(scope=scope, actor=alice, draft=address("Kyoto", months[7], effective_at=months[5]))
    assert current(scope) == ["Kyoto"] and held_at(scope, alice, months[4]) == ["Porto"]


def test_the_bulk_path_decides_the_same(alice, scope, months):
    """In one batch: Lisbon said in June, then Kyoto since May said in July."""
    results = card_remember_many(scope=scope, actor=alice, drafts=[
        address("Lisbon", months[6]), address("Kyoto", months[7], effective_at=months[5])])
    assert [r.outcome for r in results] == ["inserted", "superseded"]
    assert current(scope) == ["Kyoto"]


def post(api, body, status=(200, 201)):
    response = api.post("/api/v1/cards/", {"scope": "personal", "kind": "state", "subject": "me", **body},
                        format="json")
    assert response.status_code in status, response.content
    return response.json()


def test_rest_oslo_then_bergen_last_month_says_bergen_is_current_and_oslo_closed(alice, bearer):
    api = bearer(alice, write=True)
    oslo = post(api, {"label": "address", "value": "Oslo", "reference_time": "2026-06-01T10:00:00+02:00"})
    assert (oslo["current"], oslo["now"]["value"], oslo["closed"], oslo["note"]) == (True, "Oslo", [], None)
    assert oslo["subject_resolved"]["id"] == alice.entity.pk and oslo["new_entity"] is False
    bergen = post(api, {"label": "home address", "value": "Bergen", "when": "last month",
                        "reference_time": "2026-06-20T10:00:00+02:00"})
    assert bergen["outcome"] == "superseded" and bergen["current"] is True
    assert bergen["now"] == {"id": bergen["card"]["id"], "value": "Bergen"}
    assert [c["value"] for c in bergen["closed"]] == ["Oslo"] and bergen["label_from"] == "home address"
    assert post(api, {"label": "address", "value": "Bergen"})["outcome"] == "reinforced"


def test_rest_a_write_placed_in_the_past_says_so_and_what_to_do(alice, bearer):
    api = bearer(alice, write=True)
    post(api, {"label": "address", "value": "Lisbon", "effective_at": "2026-06-01T00:00:00+01:00",
               "reference_time": "2026-06-01T10:00:00+01:00"})
    kyoto = post(api, {"label": "address", "value": "Kyoto", "when": "last month",
                       "reference_time": "2026-06-20T10:00:00+01:00"})
    assert kyoto["current"] is False and kyoto["now"]["value"] == "Lisbon"
    assert "recorded as past" in kyoto["note"] and "May 1, 2026" in kyoto["note"] and "without `when`" in kyoto["note"]
    assert "T" not in kyoto["note"].replace("True", "")       # days as people say them, never an instant
    planned = post(api, {"label": "address", "value": "Nara", "effective_at": "2099-01-01"})
    assert planned["current"] is False and "planned" in planned["note"] and planned["now"]["value"] == "Lisbon"


def test_the_life_timeline_leaves_out_a_value_a_later_statement_overruled(alice, scope, months):
    """The person page draws moves that held; Lisbon, overruled at its start, held at no instant."""
    from django.utils import timezone

    from cards.selectors.person import person_read
    from scopes.principals import Principal

    card_remember(scope=scope, actor=alice, draft=address("Lisbon", months[6]))
    card_remember(scope=scope, actor=alice, draft=address("Kyoto", months[6].replace(day=20), effective_at=months[5]))
    life = person_read(principal=Principal(alice), entity=alice.entity, now=timezone.now()).life
    assert [item.card["value"] for item in life] == ["Kyoto"]


def test_an_export_imported_keeps_which_values_were_only_said(alice, scope, months, as_user, tmp_path):
    """Lisbon only said, exported and imported by carol: her later "Kyoto since May" still overrules it."""
    import json

    from tests.cards.test_export import _import, export
    from tests.factories import UserFactory

    card_remember(scope=scope, actor=alice, draft=address("Lisbon", months[6]))
    document = export(as_user(alice), scope.pk).json()
    lisbon = next(c for c in document["cards"] if c["value"] == "Lisbon")
    assert lisbon["said_at"] == lisbon["stated_at"] and len(lisbon["said_at"]) == 1
    path = tmp_path / "export.json"
    path.write_text(json.dumps(document))
    carol = UserFactory(username="carol", time_zone="UTC")
    _import(path, carol, carol.personal_scope.pk)
    card_remember(scope=carol.personal_scope, actor=carol,
                  draft=address("Kyoto", months[6].replace(day=20), effective_at=months[5]))
    assert current(carol.personal_scope) == ["Kyoto"]
