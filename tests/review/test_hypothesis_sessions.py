"""Point 12: a hypothesis is discarded after 5 sessions without validation, and
the sessions come from every write path that carries `source.session` (REST
single and bulk, ingest), counted once each, for the person the guess is about,
in the scope where it lives."""

import pytest
from django.db import connection

from cards.models import Card, CardRevision
from review.models import IngestJob
from review.services.hypotheses import SESSIONS_SINCE, hypotheses_decay
from review.tasks import hypotheses_nightly
from scopes.services import membership_set
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db

SKILLS = ["Go", "Rust", "Zig", "Elm", "Lua", "Nim", "Ada"]


def guess(agent, scope, **fields):
    made = agent.post("/api/v1/cards/", {"scope": scope.pk, "kind": "state", "subject": "me", "label": "likes",
                                         "value": "jazz", "tag": "hypothesis", "confidence": 0.9, **fields},
                      format="json")
    assert made.status_code in (200, 201), made.json()
    return Card.objects.get(pk=made.json()["card"]["id"])


def said(session, value, scope, subject="me"):
    return {"scope": scope.pk, "kind": "state", "subject": subject, "label": "skill", "value": value,
            "source": {"session": session, "message": "m1", "quote": f"I know {value}"}}


def single(agent, card):
    response = agent.post("/api/v1/cards/", card, format="json")
    assert response.status_code == 201, response.json()


def bulk(agent, *cards):
    response = agent.post("/api/v1/cards/bulk/", {"cards": list(cards)}, format="json")
    assert response.status_code == 201, response.json()


def alive(card) -> bool:
    card.refresh_from_db()
    return card.superseded_at is None and card.tag == "hypothesis"


def test_five_sessions_through_rest_single_and_bulk_discard_it(alice, bearer):
    agent, scope = bearer(alice, write=True), alice.personal_scope
    jazz = guess(agent, scope, source={"session": "s-0"})
    single(agent, said("s-1", "Go", scope))
    bulk(agent, said("s-2", "Rust", scope), said("s-3", "Zig", scope))
    single(agent, said("s-4", "Elm", scope))
    assert hypotheses_nightly.delay().get() == {"demoted": 0, "discarded": 0} and alive(jazz)  # four
    bulk(agent, said("s-5", "Lua", scope))
    assert hypotheses_nightly.delay().get() == {"demoted": 0, "discarded": 1} and not alive(jazz)
    assert "5 sessions" in CardRevision.objects.get(card=jazz, field="hypothesis").reason


def test_the_same_session_many_times_is_one_session(alice, bearer):
    agent, scope = bearer(alice, write=True), alice.personal_scope
    jazz = guess(agent, scope)
    single(agent, said("s-1", "Go", scope))
    bulk(agent, *(said("s-1", value, scope) for value in SKILLS[1:5]))
    assert hypotheses_decay()["discarded"] == 0 and alive(jazz)


def test_the_session_the_guess_was_made_in_does_not_count(alice, bearer):
    agent, scope = bearer(alice, write=True), alice.personal_scope
    jazz = guess(agent, scope, source={"session": "s-1"})
    for index, value in enumerate(SKILLS[:5]):
        single(agent, said("s-1" if index == 0 else f"s-{index + 1}", value, scope))
    assert hypotheses_decay()["discarded"] == 0 and alive(jazz)  # s-2 … s-5: four sessions after it


def test_ingest_and_card_sessions_count_once_each_across_both(alice, bearer):
    agent, scope = bearer(alice, write=True), alice.personal_scope
    jazz = guess(agent, scope)
    bulk(agent, said("s-1", "Go", scope), said("s-2", "Rust", scope), said("s-3", "Zig", scope))
    for session in ("s-1", "s-2"):  # the same sessions, ingested too
        IngestJob.objects.create(scope=scope, session=session, created_by=alice, extractor="patterns", status="done")
    assert hypotheses_decay()["discarded"] == 0 and alive(jazz)
    IngestJob.objects.create(scope=scope, session="s-4", created_by=alice, extractor="patterns", status="done")
    single(agent, said("s-5", "Elm", scope))
    assert hypotheses_decay()["discarded"] == 1 and not alive(jazz)


def test_confirming_it_ends_the_count(alice, bearer):
    agent, scope = bearer(alice, write=True), alice.personal_scope
    jazz = guess(agent, scope)
    bulk(agent, *(said(f"s-{index}", value, scope) for index, value in enumerate(SKILLS[:4], start=1)))
    confirmed = agent.post(f"/api/v1/cards/{jazz.pk}/confirm/", {"quote": "yes, jazz"}, format="json")
    assert confirmed.status_code == 200, confirmed.json()
    bulk(agent, *(said(f"s-{index}", value, scope) for index, value in enumerate(SKILLS[4:], start=5)))
    assert hypotheses_decay()["discarded"] == 0
    stated = Card.objects.get(pk=confirmed.json()["id"])
    assert stated.superseded_at is None and stated.tag == "preference"  # the person's word, kept
    assert not CardRevision.objects.filter(after="discarded").exists()


def test_saying_the_guess_again_restarts_the_count(alice, bearer):
    agent, scope = bearer(alice, write=True), alice.personal_scope
    jazz = guess(agent, scope)
    bulk(agent, *(said(f"s-{index}", value, scope) for index, value in enumerate(SKILLS[:4], start=1)))
    guess(agent, scope)  # reinforced: the sessions before it no longer count
    bulk(agent, said("s-5", SKILLS[4], scope), said("s-6", SKILLS[5], scope))
    assert hypotheses_decay()["discarded"] == 0 and alive(jazz)


def test_only_sessions_of_the_person_it_is_about_in_its_scope_count(alice, bearer):
    family = family_scope(owner=alice)
    bob = UserFactory(username="bob")
    membership_set(scope=family, user=bob, role="member")
    mine, his = bearer(alice, write=True), bearer(bob, write=True)
    about_alice = guess(his, family, subject="alice")  # bob's agent guesses about alice
    bulk(his, *(said(f"b-{index}", value, family) for index, value in enumerate(SKILLS[:5])))  # bob's sessions
    bulk(mine, *(said(f"a-{index}", value, alice.personal_scope) for index, value in enumerate(SKILLS[:5])))
    assert hypotheses_decay()["discarded"] == 0 and alive(about_alice)  # neither hers here nor in this scope
    bulk(mine, *(said(f"a-{index}", value, family) for index, value in enumerate(SKILLS[:5])))
    assert hypotheses_decay()["discarded"] == 1 and not alive(about_alice)


def test_the_count_reads_the_session_index(alice, bearer):
    agent, scope = bearer(alice, write=True), alice.personal_scope
    jazz = guess(agent, scope)
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")  # a table this small is scanned otherwise
        cursor.execute("EXPLAIN " + SESSIONS_SINCE, [[jazz.pk]])
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "card_sessions" in plan, plan
