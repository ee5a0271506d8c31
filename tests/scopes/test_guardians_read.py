"""Guardians see a minor's memory (DESIGN §3, "Membership is by consent" and
"Sharing by the person's choice"): a minor's personal scope is readable — never
writable — by the owners of the family in which they are a minor, in reads
that name it and in reads that name no scope, over the API and the pages alike.
Nobody else in the family reads it, and it ends the moment the mark is cleared
or the guardian leaves (visibility is decided per request, nothing is copied)."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from cards.drafts import CardDraft
from cards.models import Card
from cards.services import card_remember
from cards.services.embedding import cards_embed_now
from scopes.guardians import member_minor_set
from scopes.models import Membership
from scopes.principals import Principal
from scopes.services import membership_remove, membership_set
from scopes.tokens import token_create
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db


@pytest.fixture
def family(alice):
    """alice owns the family; sam is an admin (no guardian); kai a member marked as a minor,
    with a card in his personal scope."""
    home = family_scope(owner=alice, name="The Lins")
    sam, kai = UserFactory(username="sam"), UserFactory(username="kai")
    membership_set(scope=home, user=sam, role="admin")
    membership_set(scope=home, user=kai, role="member")
    minor_mark(alice, home, kai, True)
    card = card_remember(scope=kai.personal_scope, actor=kai, draft=CardDraft(
        kind="state", label="skill", subject="me", value="Chess club")).card
    cards_embed_now(card_ids=[card.pk])
    return {"scope": home, "sam": sam, "kai": kai, "card": card}


def minor_mark(owner, home, child, minor: bool) -> None:
    membership = Membership.objects.in_scopes([home.pk]).get(user=child)
    member_minor_set(principal=Principal(owner), scope=home, membership=membership, minor=minor)


def session(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def pages(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def api_reads(client, scope_id: int, card: Card) -> dict[str, bool]:
    """Whether each read route shows `card` when reading in `scope_id` (or with no scope)."""
    def listed(**params) -> bool:
        response = client.get("/api/v1/cards/", params)
        return response.status_code == 200 and card.pk in {row["id"] for row in response.json()["results"]}

    recall = client.post("/api/v1/recall/", {"scope": scope_id, "query": "chess", "k": 20}, format="json")
    count = client.post("/api/v1/count/", {"scope": scope_id, "label": "skill"}, format="json")
    context = client.get("/api/v1/context/", {"scope": scope_id, "query": "chess"})
    ask = client.post("/api/v1/ask/", {"scope": scope_id, "question": "What is kai's skill?"}, format="json")
    answer = client.post("/api/v1/answer/", {"scope": scope_id, "subject": "kai", "label": "skill"}, format="json")
    return {
        "list in scope": listed(scope=scope_id),
        "list with no scope": listed(),
        "detail": client.get(f"/api/v1/cards/{card.pk}/").status_code == 200,
        "recall": recall.status_code == 200 and card.pk in {r["card"]["id"] for r in recall.json()["results"]},
        "count": count.status_code == 200 and card.pk in count.json()["cards"],
        "context": context.status_code == 200 and "Chess club" in context.content.decode(),
        "ask": ask.status_code == 200 and card.pk in ask.json()["cards"],
        "answer": answer.status_code == 200 and answer.json()["values"] == ["Chess club"],
    }


def test_a_guardian_reads_their_childs_memory_over_the_api_in_every_route(alice, family, bearer):
    kai_scope = family["kai"].personal_scope
    for client in (session(alice), bearer(alice, all_scopes=True)):
        seen = api_reads(client, kai_scope.pk, family["card"])
        assert all(seen.values()), seen
        assert client.get(f"/api/v1/scopes/{kai_scope.pk}/").status_code == 200


def test_a_family_member_who_is_no_guardian_reads_nothing_of_the_child(family, bearer):
    kai_scope, sam = family["kai"].personal_scope, family["sam"]
    for client in (session(sam), bearer(sam, all_scopes=True)):
        assert not any(api_reads(client, kai_scope.pk, family["card"]).values())
        assert client.get("/api/v1/cards/", {"scope": kai_scope.pk}).status_code == 404
    assert pages(sam).get(f"/scopes/{kai_scope.pk}/").status_code == 404


def test_a_guardian_never_writes_in_the_childs_scope(alice, family, bearer):
    kai_scope, card = family["kai"].personal_scope, family["card"]
    before = Card.objects.count()
    for client in (session(alice), bearer(alice, all_scopes=True, write=True)):
        written = client.post("/api/v1/cards/", {"scope": kai_scope.pk, "kind": "state", "subject": "me",
                                                 "label": "skill", "value": "Go"}, format="json")
        assert written.status_code == 403, written.content
        assert client.delete(f"/api/v1/cards/{card.pk}/").status_code in (403, 405)
    assert Card.objects.count() == before and Card.objects.get(pk=card.pk).superseded_at is None


def test_a_token_narrowed_to_other_scopes_does_not_reach_the_child(alice, family, bearer):
    client = bearer(alice, scopes=[family["scope"]])
    assert not any(api_reads(client, family["kai"].personal_scope.pk, family["card"]).values())


def test_a_guardian_reads_the_child_on_the_pages(alice, family):
    kai_scope = family["kai"].personal_scope
    page = pages(alice).get(f"/scopes/{kai_scope.pk}/").content.decode()
    name = family["kai"].shown_name
    assert "Chess club" in page and f"You read this as a guardian of {name}: only {name} writes here." in page
    # The child is told so on their own scope's page; nobody else's personal page says a word of it.
    told = "your guardians (the owners of your family) can read your personal memory"
    assert told in pages(family["kai"]).get(f"/scopes/{kai_scope.pk}/").content.decode()
    own = pages(alice).get(f"/scopes/{alice.personal_scope.pk}/").content.decode()
    assert told not in own and 'id="guardians-note"' not in own and 'id="guardians-read"' not in own
    asked = pages(alice).get("/ask/", {"form": "recall", "scope": kai_scope.pk, "query": "chess", "k": 10})
    assert asked.status_code == 200 and "Chess club" in asked.content.decode()


def test_clearing_the_minor_mark_ends_the_guardians_read_at_once(alice, family):
    kai_scope, client = family["kai"].personal_scope, session(alice)
    assert api_reads(client, kai_scope.pk, family["card"])["list in scope"]
    minor_mark(alice, family["scope"], family["kai"], False)
    assert not any(api_reads(client, kai_scope.pk, family["card"]).values())
    assert pages(alice).get(f"/scopes/{kai_scope.pk}/").status_code == 404


def test_a_guardian_who_leaves_the_family_reads_the_child_no_more(alice, family):
    kai_scope, bob = family["kai"].personal_scope, UserFactory(username="bob")
    membership_set(scope=family["scope"], user=bob, role="owner")  # a second guardian
    assert all(api_reads(session(bob), kai_scope.pk, family["card"]).values())
    membership_remove(scope=family["scope"], user=bob)
    assert not any(api_reads(session(bob), kai_scope.pk, family["card"]).values())
    assert all(api_reads(session(alice), kai_scope.pk, family["card"]).values())


def test_a_guardian_sees_what_the_childs_agent_proposed_and_decides_none_of_it(alice, family):
    kai, home = family["kai"], family["scope"]
    minor_mark(alice, home, kai, False)  # a minor makes no tokens: this one was made before the mark
    _, raw = token_create(user=kai, name="homework helper", proposes=True, scopes=[kai.personal_scope])
    minor_mark(alice, home, kai, True)
    agent = APIClient()
    agent.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    proposed = agent.post("/api/v1/cards/", {"scope": kai.personal_scope.pk, "kind": "state", "subject": "me",
                                             "label": "address", "value": "Kyoto"}, format="json")
    assert proposed.status_code == 202, proposed.content
    candidate = proposed.json()["candidate"]["id"]

    queue = session(alice).get("/api/v1/review/").json()
    assert [c["id"] for c in queue["wards_proposals"]] == [candidate]
    page = pages(alice).get("/review/").content.decode()
    assert "Kyoto" in page and "homework helper" in page
    assert session(alice).post(f"/api/v1/review/{candidate}/approve/", {}, format="json").status_code == 403
    assert session(family["sam"]).get("/api/v1/review/").json()["wards_proposals"] == []
    assert "homework helper" not in pages(family["sam"]).get("/review/").content.decode()
