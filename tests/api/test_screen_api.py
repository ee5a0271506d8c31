"""Issue 15, "Consent is decided by label only", each finding reproduced: sensitive
words in a note's text or a hobby's value, a sensitive ingest, a tired note
posted by an agent — and the refusals the API promises (`excluded` with `rule`,
`needs_consent` with `category`), on every kind of write an agent or a person makes."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import Client

from cards.drafts import CardDraft
from cards.models import Card, CardPerspective
from cards.services import card_remember
from review.models import Candidate, CandidateStatus, IngestJob
from review.services.ingest import ingest_process
from scopes.services import membership_set
from tests.factories import UserFactory, family_scope

AT = dt.datetime(2026, 5, 8, 16, 44, 10, tzinfo=dt.timezone(dt.timedelta(hours=8)))


@pytest.fixture
def agent(alice, bearer):
    return bearer(alice, write=True)


def remember(agent, scope, **fields):
    return agent.post("/api/v1/cards/", {"scope": scope.pk, "subject": "me", **fields}, format="json")


def test_a_note_saying_i_have_hiv_needs_consent_naming_health(agent, scope):
    refused = remember(agent, scope, kind="knowledge", label="note", text="I have HIV and take PrEP daily")
    assert refused.status_code == 400
    assert refused.json() | {"detail": ""} == {"code": "needs_consent", "detail": "", "rule": "sensitive_attribute",
                                               "category": "health", "field": "text"}
    assert not Card.objects.exists()
    stored = remember(agent, scope, kind="knowledge", label="note", text="I have HIV and take PrEP daily", consent=True)
    assert stored.status_code == 201


def test_a_hobby_of_devout_catholic_needs_consent_naming_religion(agent, scope):
    refused = remember(agent, scope, kind="state", label="hobby", value="devout catholic")
    assert refused.status_code == 400 and refused.json()["code"] == "needs_consent"
    assert (refused.json()["category"], refused.json()["field"]) == ("religion", "value")
    assert remember(agent, scope, kind="state", label="hobby", value="devout catholic", consent=True).status_code == 201


def test_a_sensitive_label_still_needs_consent_and_names_its_category(agent, scope):
    refused = remember(agent, scope, kind="state", label="political_view", value="centrist")
    assert refused.status_code == 400
    assert (refused.json()["code"], refused.json()["category"], refused.json()["label"]) == (
        "needs_consent", "politics", "political_view")


def test_an_agent_cannot_post_im_so_tired_today_as_a_note_even_with_consent(agent, scope):
    for consent in (False, True):
        refused = remember(agent, scope, kind="knowledge", label="note", value="I'm so tired today", consent=consent)
        assert refused.status_code == 400
        assert (refused.json()["code"], refused.json()["rule"]) == ("excluded", "transient_feeling")
    assert not Card.objects.exists()


def test_a_pasted_transcript_is_refused_as_a_raw_conversation_log(agent, scope):
    refused = remember(agent, scope, kind="knowledge", label="note", value="notes from chat",
                       source={"quote": "User: where do I live?\nAssistant: In Kyoto.\nUser: thanks"})
    assert refused.status_code == 400
    assert refused.json() | {"detail": ""} == {"code": "excluded", "detail": "", "rule": "raw_conversation_log",
                                               "field": "source.quote"}


def test_bulk_is_all_or_nothing_and_names_the_refused_card(agent, scope):
    cards = [{"scope": scope.pk, "kind": "state", "subject": "me", "label": "city", "value": "Kyoto"},
             {"scope": scope.pk, "kind": "state", "subject": "me", "label": "hobby", "value": "chess"},
             {"scope": scope.pk, "kind": "knowledge", "subject": "me", "label": "note", "value": "我是同性恋"}]
    refused = agent.post("/api/v1/cards/bulk/", {"cards": cards}, format="json")
    assert refused.status_code == 400
    body = refused.json()
    assert (body["code"], body["category"], body["index"]) == ("needs_consent", "sexuality", 2)
    assert body["detail"].startswith("Card 2:") and not Card.objects.exists()


def test_ingesting_remember_that_i_am_a_muslim_waits_for_consent(agent, scope, as_user, alice):
    response = agent.post("/api/v1/ingest/", {"scope": scope.pk, "session": "s-9", "messages": [
        {"role": "user", "text": "Remember that I am a muslim. I'm so tired today, but my email is dana@example.com",
         "at": AT.isoformat()}]}, format="json")
    assert response.status_code == 202
    job = ingest_process(job_id=IngestJob.objects.get().pk, scope_id=scope.pk)
    by_status = {c.status: c for c in Candidate.objects.filter(job=job)}
    assert set(by_status) == {CandidateStatus.NEEDS_CONSENT, CandidateStatus.PENDING}
    assert "muslim" in by_status[CandidateStatus.NEEDS_CONSENT].quote
    assert by_status[CandidateStatus.PENDING].value == "dana@example.com"  # the clause that passes is kept
    assert [d["rule"] for d in job.result["dropped"]] == ["transient_feeling"]
    assert job.result["needs_consent"] == 1
    reviewer = as_user(alice)
    waiting = by_status[CandidateStatus.NEEDS_CONSENT]
    refused = reviewer.post(f"/api/v1/review/{waiting.pk}/approve/", {}, format="json")
    assert refused.status_code == 400 and refused.json()["code"] == "needs_consent"
    assert reviewer.post(f"/api/v1/review/{waiting.pk}/approve/", {"consent": True}, format="json").status_code == 200


def test_a_reviewers_edit_that_adds_sensitive_words_needs_consent(as_user, alice, scope):
    candidate = Candidate.objects.create(scope=scope, author=alice, kind="knowledge", label="note", subject="me",
                                         value="book club on Fridays", quote="book club on Fridays",
                                         message_at=AT, extractor="patterns", session="s", message="m")
    client = as_user(alice)
    edits = {"value": "bible study on Fridays at church", "text": "goes to church every Friday"}
    refused = client.post(f"/api/v1/review/{candidate.pk}/approve/", {"edits": edits}, format="json")
    assert refused.status_code == 400 and refused.json()["category"] == "religion"
    approved = client.post(f"/api/v1/review/{candidate.pk}/approve/", {"edits": edits, "consent": True}, format="json")
    assert approved.status_code == 200 and approved.json()["status"] == "approved"


def test_confirming_a_guess_is_a_statement_that_passes_the_screen(agent, alice, scope):
    guess = card_remember(scope=scope, actor=alice, draft=CardDraft(
        kind="state", label="religion", subject="me", value="Buddhist", tag="hypothesis", confidence=0.6,
        consent=True)).card
    refused = agent.post(f"/api/v1/cards/{guess.pk}/confirm/", {}, format="json")
    assert refused.status_code == 400 and refused.json()["code"] == "needs_consent"
    tired = agent.post(f"/api/v1/cards/{guess.pk}/confirm/", {"quote": "yes, ugh, what a nightmare week"},
                       format="json")
    assert (tired.json()["code"], tired.json()["rule"]) == ("excluded", "one_off_frustration")
    confirmed = agent.post(f"/api/v1/cards/{guess.pk}/confirm/", {"consent": True}, format="json")
    assert confirmed.status_code == 200 and confirmed.json()["tag"] == "fact"


def test_corrections_and_perspectives_pass_the_screen(agent, alice):
    family = family_scope(owner=alice)
    membership_set(scope=family, user=UserFactory(username="bo"), role="member")
    card = card_remember(scope=family, actor=alice, draft=CardDraft(
        kind="event", label="appointment", subject="me", text="Clinic visit on Tuesday")).card
    patch = agent.patch(f"/api/v1/cards/{card.pk}/", {"text": "Chemotherapy session on Tuesday"}, format="json")
    assert (patch.status_code, patch.json()["category"]) == (400, "health")
    phrasing = agent.patch(f"/api/v1/cards/{card.pk}/", {"perspectives": {"bo": "Mum's chemo, drive her there"}},
                           format="json")
    assert (phrasing.status_code, phrasing.json()["field"]) == (400, "perspectives.bo")
    assert not CardPerspective.objects.exists() and Card.objects.get(pk=card.pk).text == "Clinic visit on Tuesday"
    assert agent.patch(f"/api/v1/cards/{card.pk}/", {"text": "Chemotherapy session on Tuesday", "consent": True},
                       format="json").status_code == 200


def test_dashboard_forms_show_the_refusal_with_its_code(alice, scope):
    client = Client()
    client.force_login(alice)
    page = client.post(f"/scopes/{scope.pk}/cards/new/", {"kind": "knowledge", "subject": "me", "label": "note",
                                                          "tag": "fact", "value": "Ugh, the printer is so annoying"})
    assert page.status_code == 400
    assert b'id="add_value_error"' in page.content and b"(excluded: one_off_frustration)" in page.content
    page = client.post(f"/scopes/{scope.pk}/cards/new/", {"kind": "knowledge", "subject": "me", "label": "note",
                                                          "tag": "fact", "value": "他是同性戀"})
    assert b'id="add_consent_error"' in page.content and b"(needs_consent: sexuality)" in page.content
    card = card_remember(scope=scope, actor=alice, draft=CardDraft(
        kind="knowledge", label="note", subject="me", value="spare key", text="Spare key under the mat")).card
    described = client.post(f"/cards/{card.pk}/describe/", {"text": "Spare key; I'm so tired today"}, follow=True)
    assert b"(excluded: transient_feeling)" in described.content
    assert Card.objects.get(pk=card.pk).text == "Spare key under the mat"


def test_the_schema_documents_both_refusals(api):
    schema = api.get("/api/v1/schema/", {"format": "json"}).content.decode()
    for word in ("excluded", "needs_consent", "transient_feeling", "raw_conversation_log", "immigration_status"):
        assert word in schema


def test_a_pending_candidate_edited_into_sensitive_words_asks_for_consent_on_the_review_page(alice, scope):
    candidate = Candidate.objects.create(scope=scope, author=alice, kind="knowledge", label="note", subject="me",
                                         value="book club", quote="book club on Fridays", message_at=AT,
                                         extractor="patterns", session="s", message="m")
    client = Client()
    client.force_login(alice)
    edited = {"subject": "me", "label": "note", "value": "sees a therapist on Fridays", "text": ""}
    page = client.post(f"/review/candidates/{candidate.pk}/approve/", edited)
    assert page.status_code == 400
    assert f'id="c{candidate.pk}_consent_error"'.encode() in page.content and b"(needs_consent: health)" in page.content
    assert client.post(f"/review/candidates/{candidate.pk}/approve/", {**edited, "consent": "on"}).status_code == 302
    assert Card.objects.get(label__key="note").value == "sees a therapist on Fridays"
