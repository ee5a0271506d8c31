"""The review pages: candidates approved (as is, edited, with consent) or
rejected with a reason; duplicates, contradictions and guesses decided."""

import pytest
from django.utils import timezone

from cards.drafts import CardDraft
from cards.models import Card, DuplicateStatus, Entity, Label, PossibleDuplicate
from cards.services import card_remember
from review.models import Candidate, CandidateStatus, Decision

pytestmark = pytest.mark.django_db


def proposed(scope, author, **fields):
    defaults = {"kind": "state", "label": "city", "subject": "me", "value": "Kyoto", "quote": "we moved to Kyoto",
                "message_at": timezone.now(), "extractor": "patterns", "rule": "moved_to", "session": "s1",
                "message": "m1", "long_term": "said in two sessions"}
    return Candidate.objects.create(scope=scope, author=author, **{**defaults, **fields})


def test_queue_shows_quote_and_context_and_only_reviewable_scopes(household, pages, alice):
    proposed(household["family"], alice)
    page = pages(alice).get(f"/scopes/{household['family'].pk}/review/").content.decode()
    for shown in ("we moved to Kyoto", "session s1", "patterns", "moved_to", "said in two sessions"):
        assert shown in page
    assert household["family"].name in pages(alice).get("/review/").content.decode()
    assert household["family"].name not in pages(household["bob"]).get("/review/").content.decode()


def test_approve_as_is_and_edited(household, pages, alice):
    family, client = household["family"], pages(alice)
    first, second = proposed(family, alice), proposed(family, alice, label="skill", value="Rsut")
    assert client.post(f"/review/candidates/{first.pk}/approve/",
                       {"subject": "me", "label": "city", "value": "Kyoto"}).status_code == 302
    assert client.post(f"/review/candidates/{second.pk}/approve/",
                       {"subject": "me", "label": "skill", "value": "Rust"}).status_code == 302
    first.refresh_from_db(), second.refresh_from_db()
    assert first.status == second.status == CandidateStatus.APPROVED
    assert second.card.value == "Rust"
    assert Decision.objects.get(item_id=second.pk).action == "edit_approve"


def test_needs_consent_refused_at_the_consent_box_then_approved_with_it(household, pages, alice):
    label = Label.objects.filter(sensitive=True, kind="state").first()
    item = proposed(household["family"], alice, label=label.key, value="x", status=CandidateStatus.NEEDS_CONSENT)
    data = {"subject": "me", "label": label.key, "value": "x"}
    page = pages(alice).post(f"/review/candidates/{item.pk}/approve/", data)
    assert page.status_code == 400 and f'id="c{item.pk}_consent_error"'.encode() in page.content
    assert pages(alice).post(f"/review/candidates/{item.pk}/approve/", {**data, "consent": "on"}).status_code == 302
    item.refresh_from_db()
    assert item.status == CandidateStatus.APPROVED


def test_reject_needs_a_reason_shown_at_its_field(household, pages, alice):
    item = proposed(household["family"], alice)
    page = pages(alice).post(f"/review/candidates/{item.pk}/reject/", {"reason": ""})
    assert page.status_code == 400 and f'id="r{item.pk}_reason_error"'.encode() in page.content
    assert pages(alice).post(f"/review/candidates/{item.pk}/reject/", {"reason": "a joke"}).status_code == 302
    item.refresh_from_db()
    assert (item.status, item.reason) == (CandidateStatus.REJECTED, "a joke")


def test_duplicates_merge_or_keep_apart(household, pages, alice):
    family = household["family"]
    pair = PossibleDuplicate.objects.create(entity=Entity.objects.create(scope=family, name="Mia"),
                                            similar_to=Entity.objects.create(scope=family, name="Mía"), score=.9)
    assert b"Mia" in pages(alice).get(f"/scopes/{family.pk}/review/").content
    assert pages(alice).post(f"/review/duplicates/{pair.pk}/merge/").status_code == 302
    pair.refresh_from_db()
    assert pair.status == DuplicateStatus.MERGED
    assert pages(alice).post(f"/review/duplicates/{pair.pk}/bogus/").status_code == 404


def test_contradiction_pick_writes_the_value_into_the_other_scope(household, pages, alice):
    family = household["family"]
    card_remember(scope=alice.personal_scope, actor=alice, draft=CardDraft(
        kind="state", label="address", subject="me", value="Osaka"))
    page = pages(alice).get(f"/scopes/{family.pk}/review/").content.decode()
    assert "Osaka" in page and "Pick as current" in page
    answer = pages(alice).post(f"/scopes/{family.pk}/review/pick/", {"card": household["card"].pk})
    assert answer.status_code == 302
    assert Card.objects.get(scope=alice.personal_scope, label__key="address", superseded_at=None).value == "Kyoto"
    refused = pages(alice).post(f"/scopes/{family.pk}/review/pick/", {"card": household["old"].pk}, follow=True)
    assert b"not a side of a current contradiction" in refused.content


def test_guess_confirmed_or_rejected_from_the_card_page(household, pages, alice):
    family, client = household["family"], pages(alice)
    guess = card_remember(scope=family, actor=alice, draft=CardDraft(
        kind="state", label="likes", subject="me", value="hiking", tag="hypothesis", confidence=0.6)).card
    page = client.get(f"/cards/{guess.pk}/").content
    assert b"Confirm" in page and b"Reject the guess" in page
    # Confirming states it: the page goes to the stated card, into which the guess was closed.
    answered = client.post(f"/cards/{guess.pk}/confirm/", {"quote": "yes I love it", "back": "card"}).url
    guess.refresh_from_db()
    stated = guess.superseded_by
    assert answered == f"/cards/{stated.pk}/"
    assert stated.tag != "hypothesis" and stated.source_quote == "yes I love it" and stated.value == "hiking"
    other = card_remember(scope=family, actor=alice, draft=CardDraft(
        kind="state", label="likes", subject="me", value="opera", tag="hypothesis", confidence=0.4)).card
    assert client.post(f"/cards/{other.pk}/reject/", {"back": "review"}).url == f"/scopes/{family.pk}/review/"
    assert not Card.objects.filter(pk=other.pk, superseded_at=None, tag="hypothesis").exists()


def test_the_review_index_counts_what_waits_in_each_scope(alice, pages):
    from django.utils import timezone

    from review.models import Candidate
    from tests.factories import family_scope

    family = family_scope(owner=alice, name="The Lins")
    for n in range(3):
        Candidate.objects.create(scope=family, author=alice, kind="state", label="skill", subject="me",
                                 value=f"skill {n}", quote="q", message_at=timezone.now(), extractor="patterns")
    index = pages(alice).get("/review/").content.decode()
    assert "The Lins</a> <span class=\"kind\">family</span> — <strong>3 waiting</strong>" in index
