"""Tokens that only propose (issue 16): an agent a household does not yet trust
gets a propose-only token. What it asks to remember waits in its person's
review queue as a candidate — never a card — and the answer is 202
{"outcome": "proposed", "candidate": {…}}; the person approves it through the
review queue, which writes it like any card. It reads like any token, and
changes nothing in the fact store by any other way."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from cards.drafts import CardDraft
from cards.models import Card, CardPerspective, Entity
from cards.services import card_remember
from review.models import Candidate, CandidateStatus
from review.selectors import own_proposals
from review.services.candidates import candidate_approve
from scopes.models import AgentToken
from scopes.principals import Principal
from scopes.services import membership_set, scope_create
from scopes.tokens import token_create
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def _agent(user, **grant) -> APIClient:
    _, raw = token_create(user=user, name="untrusted agent", **grant)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


@pytest.fixture
def proposer(alice):
    return _agent(alice, proposes=True, scopes=[alice.personal_scope])


def card(scope, **fields) -> dict:
    return {"scope": scope.pk, "kind": "state", "subject": "me", "label": "address", "value": "Kyoto", **fields}


def test_a_propose_tokens_remember_is_a_candidate_and_approving_it_makes_the_card(alice, proposer, as_user):
    before = Card.objects.count()
    answer = proposer.post("/api/v1/cards/", card(alice.personal_scope, source={"quote": "we moved to Kyoto"}),
                           format="json")
    assert answer.status_code == 202, answer.json()
    body = answer.json()
    assert body["outcome"] == "proposed" and "card" not in body
    candidate = body["candidate"]
    assert (candidate["status"], candidate["label"], candidate["value"], candidate["extractor"]) == (
        "pending", "address", "Kyoto", "agent")
    assert candidate["proposed_by"]["name"] == "untrusted agent" and candidate["quote"] == "we moved to Kyoto"
    assert Card.objects.count() == before  # nothing reached the fact store

    page = APIClient()
    page.force_login(alice)
    shown = page.get(f"/scopes/{alice.personal_scope.pk}/review/").content.decode()
    assert "the agent “untrusted agent”" in shown and "we moved to Kyoto" in shown  # the dashboard's queue
    person = as_user(alice)
    queue = person.get(f"/api/v1/review/?scope={alice.personal_scope.pk}").json()
    assert [c["id"] for c in queue["candidates"]] == [candidate["id"]]  # in its person's review queue
    approved = person.post(f"/api/v1/review/{candidate['id']}/approve/", {}, format="json")
    assert approved.status_code == 200, approved.json()
    stored = Card.objects.get(pk=approved.json()["card"])
    assert (stored.value, stored.label.key, stored.source_actor, stored.source_quote) == (
        "Kyoto", "address", alice, "we moved to Kyoto")
    assert stored.source_token.name == "untrusted agent"  # still its agent's card, once a person approved it


def test_a_propose_tokens_bulk_makes_one_candidate_per_card_all_or_nothing(alice, proposer):
    scope = alice.personal_scope
    answer = proposer.post("/api/v1/cards/bulk/", {"cards": [card(scope), card(scope, label="skill", value="Go")]},
                           format="json")
    assert answer.status_code == 202, answer.json()
    results = answer.json()["results"]
    assert [r["outcome"] for r in results] == ["proposed", "proposed"]
    assert [r["candidate"]["value"] for r in results] == ["Kyoto", "Go"]
    assert not Card.objects.filter(label__key__in=["address", "skill"]).exists()

    refused = proposer.post("/api/v1/cards/bulk/", {"cards": [card(scope, value="Osaka"),
                                                             card(scope, label="favourite_moon")]}, format="json")
    assert refused.status_code == 400 and refused.json()["code"] == "unknown_label"
    assert refused.json()["index"] == 1
    assert Candidate.objects.count() == 2  # the valid first card was not kept either


def test_a_propose_token_reads_like_any_token(alice, proposer):
    stored = card_remember(scope=alice.personal_scope, actor=alice, draft=CardDraft(
        kind="state", label="skill", subject="me", value="Rust")).card
    listed = proposer.get(f"/api/v1/cards/?scope={alice.personal_scope.pk}")
    assert listed.status_code == 200 and [c["id"] for c in listed.json()["results"]] == [stored.pk]
    assert proposer.get(f"/api/v1/cards/{stored.pk}/").status_code == 200
    answer = proposer.post("/api/v1/answer/", {"scope": alice.personal_scope.pk, "subject": "me", "label": "skill"},
                           format="json")
    assert answer.status_code == 200 and answer.json()["values"] == ["Rust"]


def test_a_propose_token_never_changes_the_fact_store_any_other_way(alice, proposer):
    scope = alice.personal_scope
    stored = card_remember(scope=scope, actor=alice, draft=CardDraft(
        kind="state", label="skill", subject="me", value="Rust")).card
    guess = card_remember(scope=scope, actor=alice, draft=CardDraft(
        kind="state", label="likes", subject="me", value="jazz", tag="hypothesis", confidence=0.6)).card

    def state():
        return (sorted(Card.objects.values_list("pk", "text", "verified_at", "tag", "superseded_at")),
                Entity.objects.count())

    before = state()
    for method, url, body in [
        ("patch", f"/api/v1/cards/{stored.pk}/", {"text": "Writes Rust daily"}),  # a correction
        ("post", f"/api/v1/cards/{stored.pk}/verify/", None),
        ("delete", f"/api/v1/cards/{stored.pk}/", None),  # forgetting
        ("post", f"/api/v1/cards/{guess.pk}/confirm/", {"quote": "yes"}),
        ("post", f"/api/v1/cards/{guess.pk}/reject/", {"reason": "no"}),
        ("post", "/api/v1/entities/", {"scope": scope.pk, "name": "Acme"}),
        ("post", "/api/v1/scopes/", {"name": "Side project", "kind": "project"}),
    ]:
        answer = getattr(proposer, method)(url, body, format="json")
        assert answer.status_code == 403, (url, answer.json())
        assert answer.json()["code"] == "permission_denied"
    assert state() == before


def test_a_propose_tokens_ingest_is_never_auto_accepted(alice, proposer, bearer, ingest):
    scope = alice.personal_scope
    scope.auto_accept_explicit = True
    scope.save()
    ingest(proposer, scope, "Remember that I work at Acme.")
    assert Candidate.objects.get(label="employer").status == CandidateStatus.PENDING
    assert not Card.objects.filter(label__key="employer").exists()
    ingest(bearer(alice, write=True), scope, "Remember that I work at Globex.", session="s2")  # the same, trusted
    assert Card.objects.filter(label__key="employer", value="Globex").exists()


def test_an_ingested_conversation_names_the_agent_that_sent_it(alice, proposer, bearer, ingest):
    """Its candidates, and the cards from them (auto-accepted or approved), say which agent's conversation they
    came from; only a propose-only agent's are its person's own to decide."""
    scope = alice.personal_scope
    scope.auto_accept_explicit = True
    scope.save()
    trusted = bearer(alice, write=True)
    ingest(trusted, scope, "Remember that I work at Globex.", "I love hiking.")
    accepted = Candidate.objects.get(label="employer")
    assert accepted.proposed_by.name == "agent" and accepted.status == CandidateStatus.AUTO_ACCEPTED
    assert trusted.get(f"/api/v1/cards/{accepted.card_id}/").json()["source"]["agent"] == "agent"
    waiting = Candidate.objects.get(label="likes")
    assert waiting.status == CandidateStatus.PENDING and waiting.proposed_by.name == "agent"
    approved = candidate_approve(candidate=waiting, reviewer=alice)
    assert approved.source_token.name == "agent"
    assert not own_proposals(principal=Principal(user=alice)).exists()  # a read+write agent's: the scope's queue

    ingest(proposer, scope, "Remember that I work at Acme.", session="s2")
    proposed = Candidate.objects.get(label="employer", session="s2")
    assert proposed.proposed_by.name == "untrusted agent" and proposed.status == CandidateStatus.PENDING
    assert list(own_proposals(principal=Principal(user=alice))) == [proposed]


def test_a_proposal_waits_where_its_person_may_write_never_beyond(alice):
    bob = UserFactory(username="bob")
    team = scope_create(name="Platform", kind="team", creator=alice)
    membership_set(scope=team, user=bob, role="viewer")
    agent = _agent(bob, proposes=True, all_scopes=True)
    answer = agent.post("/api/v1/cards/", card(team), format="json")
    assert answer.status_code == 403 and not Candidate.objects.exists()  # bob could not write it himself
    assert agent.post("/api/v1/cards/", card(alice.personal_scope), format="json").status_code == 404


def test_a_sensitive_proposal_needs_consent_and_its_phrasings_follow_the_approval(alice, as_user):
    bob = UserFactory(username="bob")
    family = scope_create(name="Home", kind="family", creator=alice)
    membership_set(scope=family, user=bob, role="member")
    agent = _agent(alice, proposes=True, scopes=[family])
    sensitive = agent.post("/api/v1/cards/", card(family, label="religion", value="Buddhist", consent=True),
                           format="json").json()["candidate"]
    assert sensitive["status"] == "needs_consent"  # the person consents on approval, not the agent
    party = agent.post("/api/v1/cards/", {"scope": family.pk, "kind": "event", "subject": "me", "label": "party",
                                          "value": "Mom's birthday", "perspectives": {"bob": "prepare a gift"}},
                       format="json").json()["candidate"]
    assert "perspectives" not in party  # another member's phrasing is theirs to see, on the card
    person = as_user(alice)
    made = person.post(f"/api/v1/review/{party['id']}/approve/", {}, format="json").json()["card"]
    assert CardPerspective.objects.get(card_id=made).text == "prepare a gift"
    refused = person.post(f"/api/v1/review/{sensitive['id']}/approve/", {}, format="json")
    assert refused.status_code == 400 and not Card.objects.filter(label__key="religion").exists()


def test_a_propose_token_is_made_by_the_api_and_the_command(alice, as_user):
    made = as_user(alice).post("/api/v1/tokens/", {"name": "new agent", "access": "propose",
                                                   "scopes": ["personal"]}, format="json")
    assert made.status_code == 201 and made.json()["access"] == "propose"
    token = AgentToken.objects.get(pk=made.json()["id"])
    assert token.proposes and not token.can_write
    out = io.StringIO()
    call_command("create_token", "--user", "alice", "--scope", "personal", "--propose", stdout=out)
    assert "Created propose token" in out.getvalue()
    with pytest.raises(Exception):
        call_command("create_token", "--user", "alice", "--scope", "personal", "--propose", "--write",
                     stdout=io.StringIO(), stderr=io.StringIO())


def test_the_dashboard_offers_propose_only_and_says_why(alice, client):
    client.force_login(alice)
    form = client.get("/tokens/").content.decode()
    assert 'value="propose"' in form and "memory poisoning" in form and "do not yet trust" in form
    made = client.post("/tokens/new/", {"name": "new assistant", "scopes": [alice.personal_scope.pk],
                                        "access": "propose", "days": "30"})
    token = AgentToken.objects.get(name="new assistant")
    assert (made.status_code, made["Location"]) == (302, f"/tokens/{token.pk}/connect/")
    assert "review queue" in client.get(made["Location"]).content.decode()
    assert token.proposes and not token.can_write
    assert "propose" in client.get("/tokens/").content.decode()


def test_a_members_own_agents_proposals_are_theirs_to_decide_in_their_own_part(alice, as_user):
    """Bob is a plain member of the family (he writes, he does not review): what his
    propose-only agent proposes there waits in his own part of the queue, his to
    approve or reject; not his agent's, nor another member's."""
    bob, carol = UserFactory(username="bob"), UserFactory(username="carol")
    home = scope_create(name="Home", kind="family", creator=alice)
    membership_set(scope=home, user=bob, role="member")
    membership_set(scope=home, user=carol, role="member")
    agent = _agent(bob, proposes=True, all_scopes=True)
    first = agent.post("/api/v1/cards/", card(home, value="Lisbon"), format="json").json()["candidate"]
    second = agent.post("/api/v1/cards/", card(home, value="Porto"), format="json").json()["candidate"]

    assert agent.get("/api/v1/review/").status_code == 403  # an agent never lists, nor decides
    assert agent.post(f"/api/v1/review/{first['id']}/approve/", {}, format="json").status_code == 403
    other = APIClient()
    other.force_login(carol)
    assert other.get("/api/v1/review/").json()["proposals"] == []
    assert other.post(f"/api/v1/review/{first['id']}/approve/", {}, format="json").status_code == 403

    person = as_user(bob)
    own = person.get("/api/v1/review/").json()
    assert [c["id"] for c in own["proposals"]] == [first["id"], second["id"]]
    assert person.get(f"/api/v1/review/?scope={home.pk}").status_code == 403  # still no reviewer of Home
    approved = person.post(f"/api/v1/review/{first['id']}/approve/", {}, format="json")
    assert approved.status_code == 200, approved.json()
    stored = Card.objects.get(pk=approved.json()["card"])
    assert (stored.scope, stored.value, stored.source_actor) == (home, "Lisbon", bob)

    page = APIClient()
    page.force_login(bob)
    shown = page.get("/review/").content.decode()
    assert "Your agents proposed (1)" in shown and "Porto" in shown and "Lisbon" not in shown
    rejected = page.post(f"/review/candidates/{second['id']}/reject/", {"reason": "we never lived there"})
    assert (rejected.status_code, rejected.url) == (302, "/review/")
    assert Candidate.objects.get(pk=second["id"]).status == CandidateStatus.REJECTED
    refused = page.post(f"/review/candidates/{first['id']}/reject/", {"reason": "too late"}, follow=True)
    assert "was already decided (approved)" in refused.content.decode()
    assert Candidate.objects.get(pk=first["id"]).status == CandidateStatus.APPROVED


def test_leaving_a_scope_takes_its_proposals_out_of_ones_hands(alice, as_user):
    bob = UserFactory(username="bob")
    home = scope_create(name="Home", kind="family", creator=alice)
    membership_set(scope=home, user=bob, role="member")
    proposed = _agent(bob, proposes=True, all_scopes=True).post(
        "/api/v1/cards/", card(home), format="json").json()["candidate"]
    membership_set(scope=home, user=bob, role="viewer")  # he may no longer write there
    person = as_user(bob)
    assert person.get("/api/v1/review/").json()["proposals"] == []
    assert person.post(f"/api/v1/review/{proposed['id']}/approve/", {}, format="json").status_code == 403
