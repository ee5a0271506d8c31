"""The review queue over HTTP: candidates (approve, edit then approve, reject
with reason), rules, possible duplicates, contradictions, hypotheses — every
decision recorded with who, when and why; reviewers only."""

import datetime as dt

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from cards.drafts import CardDraft
from cards.models import Card, DuplicateStatus, Entity, Rule, RuleStatus
from cards.services import card_remember
from review.models import Candidate, CandidateStatus, Decision
from scopes.services import global_scope_get, membership_set
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db


@pytest.fixture
def family(alice):
    scope = family_scope(owner=alice)
    return scope


@pytest.fixture
def rita(family):
    user = UserFactory(username="rita")
    membership_set(scope=family, user=user, role="reviewer")
    return user


def candidate(scope, author, **fields):
    defaults = {"kind": "state", "label": "city", "subject": "me", "value": "Kyoto", "quote": "we moved to Kyoto",
                "message_at": timezone.now(), "extractor": "patterns", "rule": "moved_to", "session": "s1",
                "message": "m1"}
    return Candidate.objects.create(scope=scope, author=author, **{**defaults, **fields})


def test_reviewer_approves_edits_and_rejects_with_every_decision_recorded(alice, family, rita, as_user):
    first = candidate(family, alice)
    edited = candidate(family, alice, value="Kyto", quote="we live in Kyto now")
    wrong = candidate(family, alice, label="likes", value="rain", quote="I like rain, I guess")
    client = as_user(rita)
    queue = client.get("/api/v1/review/", {"scope": family.pk}).json()
    assert [c["id"] for c in queue["candidates"]] == [first.pk, edited.pk, wrong.pk]
    approved = client.post(f"/api/v1/review/{first.pk}/approve/", {"reason": "she said so"}, format="json").json()
    card = Card.objects.get(pk=approved["card"])
    assert (card.value, card.source_quote, card.source_actor, card.scope) == ("Kyoto", "we moved to Kyoto", alice,
                                                                              family)
    fixed = client.post(f"/api/v1/review/{edited.pk}/approve/", {"edits": {"value": "Kyoto"}}, format="json")
    assert fixed.status_code == 200 and Card.objects.get(pk=fixed.json()["card"]).value == "Kyoto"
    assert client.post(f"/api/v1/review/{wrong.pk}/reject/", {}, format="json").status_code == 400  # a reason
    rejected = client.post(f"/api/v1/review/{wrong.pk}/reject/", {"reason": "a guess, not a preference"},
                           format="json").json()
    assert rejected["status"] == "rejected" and rejected["decided_by"] == "rita"
    again = client.post(f"/api/v1/review/{first.pk}/approve/", {}, format="json")
    assert again.status_code == 409 and again.json()["code"] == "already_decided"
    decisions = list(Decision.objects.order_by("id").values_list("item_id", "action", "reviewer__username", "reason"))
    assert decisions == [(first.pk, "approve", "rita", "she said so"), (edited.pk, "edit_approve", "rita", ""),
                         (wrong.pk, "reject", "rita", "a guess, not a preference")]
    assert client.get("/api/v1/review/", {"scope": family.pk}).json()["candidates"] == []


def test_sensitive_candidates_need_consent(alice, family, rita, as_user):
    waiting = candidate(family, alice, label="allergy", value="peanuts", status=CandidateStatus.NEEDS_CONSENT,
                        quote="I'm allergic to peanuts")
    client = as_user(rita)
    refused = client.post(f"/api/v1/review/{waiting.pk}/approve/", {}, format="json")
    assert refused.status_code == 400 and "consent" in refused.json()["fields"]
    assert not Card.objects.filter(label__key="allergy").exists()
    assert client.post(f"/api/v1/review/{waiting.pk}/approve/", {"consent": True}, format="json").status_code == 200
    assert Card.objects.filter(label__key="allergy", value="peanuts").exists()


def session(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def test_only_reviewers_review(alice, family, bearer):
    waiting = candidate(family, alice)
    member, stranger = UserFactory(username="mo"), UserFactory(username="mallory")
    membership_set(scope=family, user=member, role="member")
    for client, code in ((session(member), 403), (session(stranger), 404),
                         (bearer(alice, scopes=[family], write=True), 403)):  # tokens never review
        assert client.get("/api/v1/review/", {"scope": family.pk}).status_code == code
        assert client.post(f"/api/v1/review/{waiting.pk}/approve/", {}, format="json").status_code == code
    assert Candidate.objects.get(pk=waiting.pk).status == CandidateStatus.PENDING


def test_duplicates_merge_through_an_alias_or_stay_apart(alice, family, rita, as_user):
    def remember(subject, label, value):
        return card_remember(scope=family, actor=alice,
                             draft=CardDraft(kind="state", subject=subject, label=label, value=value)).card
    remember("Anna", "city", "Oslo")
    ana_card = remember("Ana", "job_title", "nurse")
    remember("Paris", "country", "France")
    remember("Paris Hilton", "job_title", "heiress")
    client = as_user(rita)
    queue = client.get("/api/v1/review/", {"scope": family.pk}).json()["duplicates"]
    pairs = {(d["entity"]["name"], d["similar_to"]["name"]): d["id"] for d in queue}
    assert ("Ana", "Anna") in pairs
    merged = client.post(f"/api/v1/review/duplicates/{pairs[('Ana', 'Anna')]}/merge/", {"reason": "same person"},
                         format="json")
    assert merged.json()["status"] == DuplicateStatus.MERGED
    # "Ana" now binds to Anna: her cards answer together, the card itself unchanged.
    answer = client.post("/api/v1/answer/", {"scope": family.pk, "subject": "Ana", "label": "job_title"},
                         format="json").json()
    assert answer["values"] == ["nurse"] and {e["name"] for e in answer["subject"]["entities"]} == {"Anna", "Ana"}
    assert Card.objects.get(pk=ana_card.pk).subject.name == "Ana"
    later = remember("ana", "city", "Bergen")  # a new card about "Ana" is about Anna now
    assert later.subject.name == "Anna"
    kept = client.post(f"/api/v1/review/duplicates/{pairs[('Paris Hilton', 'Paris')]}/keep/", {},
                       format="json").json()
    assert kept["status"] == DuplicateStatus.KEPT_APART
    assert Entity.objects.get(scope=family, name="Paris Hilton").merged_into is None
    assert Decision.objects.filter(item="duplicate", action="merge", reviewer=rita, reason="same person").exists()


def test_contradiction_pick_supersedes_the_other_side(alice, family, rita, as_user):
    membership_set(scope=family, user=rita, role="admin")  # may write where she resolves
    card_remember(scope=alice.personal_scope, actor=alice, draft=CardDraft(kind="state", subject="me", label="city",
                                                                           value="Taipei"))
    family_card = card_remember(scope=family, actor=alice,
                                draft=CardDraft(kind="state", subject="me", label="city", value="Kyoto")).card
    # Rita sees only the family side: no contradiction for her. Alice reviews her own.
    assert as_user(rita).get("/api/v1/review/", {"scope": family.pk}).json()["contradictions"] == []
    client = as_user(alice)
    found = client.get("/api/v1/review/", {"scope": family.pk}).json()["contradictions"]
    assert len(found) == 1 and {c["value"] for c in found[0]["cards"]} == {"Taipei", "Kyoto"}
    picked = client.post("/api/v1/review/contradictions/pick/", {"scope": family.pk, "card": family_card.pk,
                                                                 "reason": "we moved"}, format="json")
    assert picked.status_code == 200, picked.json()
    mine = Card.objects.get(scope=alice.personal_scope, label__key="city", superseded_at__isnull=True)
    assert mine.value == "Kyoto" and Card.objects.filter(value="Taipei", superseded_at__isnull=False).exists()
    assert client.get("/api/v1/review/", {"scope": family.pk}).json()["contradictions"] == []


def test_rules_are_decided_by_reviewers_of_the_global_scope(alice, as_user):
    rule = Rule.objects.create(name="club diet", premises=[["?x", "member_of", "?g"], ["?g", "diet", "?d"]],
                               conclusion=["?x", "diet", "?d"], author=alice)
    curator = UserFactory(username="curator")
    common = global_scope_get()
    membership_set(scope=common, user=curator, role="reviewer")
    assert as_user(alice).post(f"/api/v1/review/rules/{rule.pk}/approve/", {}, format="json").status_code == 403
    client = as_user(curator)
    assert [r["id"] for r in client.get("/api/v1/review/", {"scope": common.pk}).json()["rules"]] == [rule.pk]
    assert client.post(f"/api/v1/review/rules/{rule.pk}/approve/", {}, format="json").json()["status"] == "approved"
    assert Rule.objects.get(pk=rule.pk).reviewer == curator
    assert client.post(f"/api/v1/review/rules/{rule.pk}/retire/", {"reason": "too broad"},
                       format="json").json()["status"] == RuleStatus.RETIRED


def test_hypotheses_are_listed_for_review(alice, family, rita, as_user):
    card_remember(scope=family, actor=alice, draft=CardDraft(kind="state", subject="me", label="likes",
                                                             value="hiking", tag="hypothesis", confidence=0.6))
    hypotheses = as_user(rita).get("/api/v1/review/", {"scope": family.pk}).json()["hypotheses"]
    assert [h["value"] for h in hypotheses] == ["hiking"]


def test_a_contradiction_about_a_member_is_theirs_to_settle(alice, family, rita, as_user):
    membership_set(scope=family, user=rita, role="admin")
    own = card_remember(scope=family, actor=alice,
                        draft=CardDraft(kind="state", subject="me", label="employer", value="Harbor")).card
    other = card_remember(scope=family, actor=rita,
                          draft=CardDraft(kind="state", subject=alice.entity, label="employer", value="Atlas")).card
    assert other.disputes_id == own.pk
    found = as_user(rita).get("/api/v1/review/", {"scope": family.pk}).json()["contradictions"]
    assert {c["value"] for c in found[0]["cards"]} == {"Harbor", "Atlas"}
    refused = as_user(rita).post("/api/v1/review/contradictions/pick/",
                                 {"scope": family.pk, "card": other.pk}, format="json")
    assert refused.status_code == 403 and refused.json()["code"] == "member_settles"
    picked = as_user(alice).post("/api/v1/review/contradictions/pick/", {"scope": family.pk, "card": other.pk},
                                 format="json")
    assert picked.status_code == 200, picked.json()
    assert as_user(alice).get("/api/v1/review/", {"scope": family.pk}).json()["contradictions"] == []
    assert Card.objects.get(scope=family, label__key="employer", superseded_at__isnull=True).value == "Atlas"


def test_a_candidate_edited_from_one_kind_to_the_other_is_placed_in_time_as_what_it_now_is(alice, family, rita,
                                                                                           as_user):
    from cards.models import CardKind

    said = dt.datetime(2026, 5, 8, 16, 44, tzinfo=dt.timezone(dt.timedelta(hours=8)))
    event = candidate(family, alice, kind="event", label="trip", value="Kyoto", quote="we went to Kyoto yesterday",
                      when="yesterday", occurred_at=said - dt.timedelta(days=1), precision="day",
                      time_source="resolved", message_at=said, anchor_zone="Asia/Taipei")
    state = candidate(family, alice, label="city", value="Kyoto", quote="we moved to Kyoto yesterday",
                      when="yesterday", message_at=said, anchor_zone="Asia/Taipei")
    client = as_user(rita)
    as_state = client.post(f"/api/v1/review/{event.pk}/approve/",
                           {"edits": {"kind": "state", "label": "city"}}, format="json")
    assert as_state.status_code == 200, as_state.json()
    card = Card.objects.get(pk=as_state.json()["card"])
    assert card.kind == CardKind.STATE and card.occurred_at is None
    as_event = client.post(f"/api/v1/review/{state.pk}/approve/",
                           {"edits": {"kind": "event", "label": "move"}}, format="json")
    assert as_event.status_code == 200, as_event.json()
    moved = Card.objects.get(pk=as_event.json()["card"])
    assert moved.occurred_at.astimezone(dt.timezone(dt.timedelta(hours=8))).date() == dt.date(2026, 5, 7)
