"""Edge cases of DESIGN §4 rule 2 (a later statement wins over a value only said): batches, instants,
pairs, guesses and multi values in the answer, count, export and import."""

import datetime as dt

import pytest

from cards.drafts import CardDraft
from cards.models import Card
from cards.services import card_remember, card_remember_many
from tests.cards.test_later_statement_wins import post

pytestmark = pytest.mark.django_db
FAR = dt.datetime(9999, 1, 1, tzinfo=dt.timezone.utc)


def address(value, said, **extra):
    return CardDraft(kind="state", label="address", subject="me", value=value, reference_time=said, **extra)


@pytest.fixture
def months(t0):
    return {m: t0.replace(month=m) for m in range(1, 9)}


def current(scope):
    return [c.value for c in Card.objects.filter(scope=scope, label__key="address", superseded_at__isnull=True)]


def test_bulk_same_value_said_again_over_a_card_of_the_same_batch(alice, scope, months):
    """Kyoto since March said in June; Lisbon said in April (no start); Lisbon since April said in July.
    One at a time this ends in Lisbon current; in one batch the third write meets a Lisbon card decided
    earlier in the batch (pk None) and _ended takes it for a new card."""
    drafts = [address("Kyoto", months[6], effective_at=months[3]),
              address("Lisbon", months[4]),
              address("Lisbon", months[7], effective_at=months[4])]
    results = card_remember_many(scope=scope, actor=alice, drafts=drafts)
    assert [r.outcome for r in results][-1] == "superseded"
    assert current(scope) == ["Lisbon"]


def test_one_by_one_same_drafts(alice, scope, months):
    drafts = [address("Kyoto", months[6], effective_at=months[3]),
              address("Lisbon", months[4]),
              address("Lisbon", months[7], effective_at=months[4])]
    for draft in drafts:
        card_remember(scope=scope, actor=alice, draft=draft)
    assert current(scope) == ["Lisbon"]


def overlaps(scope):
    cards = sorted(Card.objects.filter(scope=scope, label__key="address"), key=lambda c: c.effective_at)
    held = [c for c in cards if c.superseded_at is None or c.superseded_at > c.effective_at]
    found = []
    bad = [(c.value, c.effective_at.date(), c.superseded_at.date()) for c in cards
           if c.superseded_at and c.superseded_at < c.effective_at]
    assert bad == [], bad
    for a in held:
        for b in held:
            if a.pk < b.pk and a.effective_at < (b.superseded_at or FAR) and b.effective_at < (a.superseded_at or FAR):
                found.append((a.value, a.effective_at, a.superseded_at, b.value, b.effective_at, b.superseded_at))
    return found


def test_when_said_outside_the_card_it_lands_in_does_not_split_it_later(alice, scope, months):
    """Lisbon since June (stated); "Kyoto since March", said in July: Kyoto ends at June, but its card keeps
    the July statement in stated_at. A value only said in April then splits Kyoto at July — a Kyoto card
    from July that ends in June, and Porto running over Lisbon."""
    card_remember(scope=scope, actor=alice, draft=address("Lisbon", months[6], effective_at=months[6]))
    kyoto = card_remember(scope=scope, actor=alice, draft=address("Kyoto", months[7], effective_at=months[3])).card
    kyoto.refresh_from_db()
    assert kyoto.superseded_at == months[6]
    card_remember(scope=scope, actor=alice, draft=address("Porto", months[4]))
    assert overlaps(scope) == []
    assert current(scope) == ["Lisbon"]


def test_rest_now_of_an_opposite_pair_is_the_value_current_on_its_timeline(alice, bearer):
    """likes sushi since June 1 (stated); dislikes cilantro (now); dislikes sushi since May, said June 20: it
    ends at June 1, where likes sushi began. What holds now for sushi is "likes sushi", not cilantro."""
    api = bearer(alice, write=True)
    likes = post(api, {"label": "likes", "value": "sushi", "tag": "preference",
                       "effective_at": "2026-06-01T00:00:00+08:00", "reference_time": "2026-06-01T10:00:00+08:00"})
    post(api, {"label": "dislikes", "value": "cilantro", "tag": "preference"})
    dislikes = post(api, {"label": "dislikes", "value": "sushi", "tag": "preference",
                          "effective_at": "2026-05-01T00:00:00+08:00",
                          "reference_time": "2026-06-20T10:00:00+08:00"})
    assert dislikes["current"] is False
    assert dislikes["now"] == {"id": likes["card"]["id"], "value": "sushi"}, dislikes["now"]


def test_rest_bulk_answer_reads_no_entity_or_label_per_card(alice, bearer):
    """Said again in bulk, every card is one read from the database: the answer must not ask for its
    subject and label one card at a time."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    api = bearer(alice, write=True)
    cards = [{"scope": "personal", "kind": "state", "subject": f"friend {i}", "label": "address", "value": "Oslo"}
             for i in range(20)]
    assert api.post("/api/v1/cards/bulk/", {"cards": cards}, format="json").status_code == 201
    with CaptureQueriesContext(connection) as few:
        api.post("/api/v1/cards/bulk/", {"cards": cards[:2]}, format="json")
    with CaptureQueriesContext(connection) as many:
        response = api.post("/api/v1/cards/bulk/", {"cards": cards}, format="json")
    assert {r["outcome"] for r in response.json()["results"]} == {"reinforced"}
    by_id = [q["sql"] for q in many.captured_queries
             if 'WHERE "cards_entity"."id" =' in q["sql"] or 'WHERE "cards_label"."id" =' in q["sql"]]
    assert len(by_id) < 5, (len(few), len(many), len(by_id), by_id[-2:])


def test_count_leaves_out_a_value_overruled_by_a_later_statement(alice, scope, bearer, months):
    """Lisbon said in June; Kyoto since May said June 20: Lisbon held at no instant, so this year had one
    address, not two."""
    card_remember(scope=scope, actor=alice, draft=address("Lisbon", months[6]))
    kyoto = card_remember(scope=scope, actor=alice,
                          draft=address("Kyoto", months[6].replace(day=20), effective_at=months[5])).card
    response = bearer(alice).post("/api/v1/count/", {"scope": scope.pk, "label": "address",
                                                     "from": months[1].isoformat(), "to": months[8].isoformat()},
                                  format="json")
    assert response.status_code == 200, response.json()
    assert (response.json()["count"], response.json()["cards"]) == (1, [kyoto.pk]), response.json()


def test_an_export_imported_keeps_the_overruled_values_out_of_the_timeline(alice, scope, months):
    """Porto since January; Lisbon said in May; Oslo said in June; Kyoto since April said in July: Lisbon and
    Oslo are overruled. Imported elsewhere, no instant holds Lisbon or Oslo either."""
    from cards.selectors.cards import card_as_of
    from cards.selectors.export import export_document
    from cards.transfer.importer import memory_import
    from scopes.principals import Principal
    from tests.factories import family_scope

    card_remember(scope=scope, actor=alice, draft=address("Porto", months[1], effective_at=months[1]))
    card_remember(scope=scope, actor=alice, draft=address("Lisbon", months[5]))
    card_remember(scope=scope, actor=alice, draft=address("Oslo", months[6]))
    card_remember(scope=scope, actor=alice, draft=address("Kyoto", months[7], effective_at=months[4]))
    family = family_scope(owner=alice)
    memory_import(actor=alice, scope=family, document=export_document(principal=Principal(alice), scope_id=scope.pk))
    label = Card.objects.filter(scope=family, label__key="address").first().label
    held = {m: [c.value for c in card_as_of(scope=family, subject=alice.entity, label=label, at=months[m])]
            for m in (2, 5, 6, 8)}
    assert held == {2: ["Porto"], 5: ["Kyoto"], 6: ["Kyoto"], 8: ["Kyoto"]}


def test_a_value_said_again_from_its_start_is_not_among_what_the_write_closed(alice, scope, months):
    """Kyoto since March; Lisbon said in May; Porto since June (stated); Kyoto since March said again in July:
    Kyoto runs over Lisbon to June. The write closed Lisbon; Kyoto, the card written, was extended."""
    kyoto = card_remember(scope=scope, actor=alice, draft=address("Kyoto", months[3], effective_at=months[3])).card
    lisbon = card_remember(scope=scope, actor=alice, draft=address("Lisbon", months[5])).card
    card_remember(scope=scope, actor=alice, draft=address("Porto", months[6], effective_at=months[6]))
    result = card_remember(scope=scope, actor=alice, draft=address("Kyoto", months[7], effective_at=months[3]))
    assert (result.card.pk, result.card.superseded_at) == (kyoto.pk, months[6])
    assert result.superseded == [lisbon.pk]


def test_rest_a_guess_beside_the_record_is_not_what_is_current(alice, bearer):
    api = bearer(alice, write=True)
    lisbon = post(api, {"label": "address", "value": "Lisbon"})
    guess = post(api, {"label": "address", "value": "Kyoto", "tag": "hypothesis", "confidence": 0.6})
    assert guess["outcome"] == "inserted"
    assert guess["now"] == {"id": lisbon["card"]["id"], "value": "Lisbon"}, guess["now"]
    assert guess["current"] is False


def test_a_start_stated_later_for_an_instant_only_said_stands(alice, scope, months):
    """Lisbon said on June 8; later the person says they moved to Lisbon on June 8 (a start stated, the same
    instant): Lisbon's start was stated, so "Kyoto since May", said in July, stays in the past."""
    card_remember(scope=scope, actor=alice, draft=address("Lisbon", months[6]))
    card_remember(scope=scope, actor=alice, draft=address("Lisbon", months[6].replace(day=9), effective_at=months[6]))
    card_remember(scope=scope, actor=alice, draft=address("Kyoto", months[7], effective_at=months[5]))
    assert current(scope) == ["Lisbon"]


def test_a_reference_time_ahead_of_the_clock_plans_no_return(alice, scope, months):
    """An agent's clock a few hours ahead: "Kyoto since May", said (it claims) three hours from now. Then
    "Lisbon", said now: Lisbon is the address, and nothing brings Kyoto back in three hours."""
    from django.utils import timezone

    ahead = timezone.now() + dt.timedelta(hours=3)
    card_remember(scope=scope, actor=alice, draft=address("Kyoto", ahead, effective_at=months[5]))
    card_remember(scope=scope, actor=alice, draft=address("Lisbon", timezone.now()))
    assert current(scope) == ["Lisbon"]
    assert not Card.objects.filter(scope=scope, value="Kyoto", effective_at__gt=timezone.now()).exists()


def test_rest_bulk_says_new_entity_for_a_write_it_hands_to_card_remember(alice, bearer):
    """A guess in a batch goes card by card (batch._careful_locks): the batch made its subject all the same."""
    api = bearer(alice, write=True)
    cards = [{"scope": "personal", "kind": "state", "subject": "Dana Quill", "label": "address", "value": "Oslo",
              "tag": "hypothesis", "confidence": 0.6}]
    response = api.post("/api/v1/cards/bulk/", {"cards": cards}, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["results"][0]["new_entity"] is True
