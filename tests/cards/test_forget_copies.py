"""Forgetting a card takes every copy of its words (DESIGN §4 rule 9): the
candidate it came from, the decisions' free text about it, the guess promoted
into it, what a knowledge merge copied into the survivor's history, the admin's
change log — and the audit log keeps that it happened, not what. Receipts are
counts, never content."""

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.contenttypes.models import ContentType
from django.utils import timezone

from cards.drafts import CardDraft
from cards.models import AuditEvent, Card, CardRevision
from cards.services import card_forget, card_remember, knowledge_merge
from cards.services.forget import Receipt
from review.models import Candidate, Decision
from review.services.candidates import candidate_approve
from review.services.hypotheses import hypothesis_confirm, hypothesis_reject
from tests.factories import family_scope

pytestmark = pytest.mark.django_db


def proposed(scope, author, value: str, **fields) -> Candidate:
    return Candidate.objects.create(scope=scope, author=author, kind="state", label="likes", subject="me",
                                    value=value, quote=f"I like {value}", message_at=timezone.now(),
                                    extractor="patterns", **fields)


def test_forgetting_an_approved_card_deletes_its_candidate_and_clears_the_decisions_words(alice, bearer):
    candidate = proposed(alice.personal_scope, alice, "oolong")
    card = candidate_approve(candidate=candidate, reviewer=alice, edits={"value": "oolong tea"},
                             reason="she said oolong")
    decision = Decision.objects.get(item="candidate", item_id=candidate.pk)
    assert bearer(alice, write=True).delete(f"/api/v1/cards/{card.pk}/").status_code == 204
    assert not Candidate.objects.filter(pk=candidate.pk).exists()
    decision.refresh_from_db()  # the decision stays: who decided what kind of thing, and when
    assert (decision.action, decision.reviewer, decision.reason) == ("edit_approve", alice, "")
    assert "oolong" not in str(decision.detail)


def test_forgetting_a_confirmed_guess_takes_the_guess_and_the_confirmation_quote(alice, scope):
    guess = card_remember(scope=scope, actor=alice, draft=CardDraft(
        kind="state", label="likes", subject="me", value="jazz", tag="hypothesis", confidence=0.6)).card
    stated = hypothesis_confirm(card=guess, user=alice, quote="yes, I love jazz")
    assert Card.objects.get(pk=guess.pk).superseded_by_id == stated.pk
    receipt = card_forget(card=stated, actor=alice)
    assert not Card.objects.filter(pk__in=[guess.pk, stated.pk]).exists()
    assert receipt["cards"] == 2
    assert not Decision.objects.filter(item="hypothesis").exclude(reason="").exists()
    assert Decision.objects.filter(item="hypothesis", item_id=guess.pk, action="confirm").exists()


def test_forgetting_a_rejected_guess_clears_the_reason_given(alice, scope):
    guess = card_remember(scope=scope, actor=alice, draft=CardDraft(
        kind="state", label="likes", subject="me", value="opera", tag="hypothesis", confidence=0.6)).card
    hypothesis_reject(card=guess, user=alice, reason="opera bores me")
    card_forget(card=Card.objects.get(pk=guess.pk), actor=alice)
    assert list(Decision.objects.values_list("action", "reason")) == [("reject", "")]


def test_forgetting_a_merged_card_takes_its_words_out_of_the_survivors_history(alice, scope):
    def note(value):
        return card_remember(scope=scope, actor=alice, draft=CardDraft(
            kind="knowledge", label="howto", subject="Router", value=value)).card
    survivor, merged, kept = note("Reset the router"), note("Unplug it for ten seconds"), note("Call the ISP")
    knowledge_merge(target=survivor, others=[merged, kept], actor=alice)
    receipt = card_forget(card=Card.objects.get(pk=merged.pk), actor=alice)
    history = list(CardRevision.objects.filter(card=survivor).values_list("field", "before", "after"))
    assert history == [("merged", f"#{kept.pk}", "Call the ISP")]
    assert receipt["revisions"] == 1 and Card.objects.filter(pk=survivor.pk).exists()


def test_forgetting_a_card_removes_the_admin_log_lines_that_name_it(alice, scope):
    card = card_remember(scope=scope, actor=alice, draft=CardDraft(
        kind="state", label="likes", subject="me", value="durian")).card
    LogEntry.objects.create(user=alice, content_type=ContentType.objects.get_for_model(Card),
                            object_id=str(card.pk), object_repr=str(card), action_flag=CHANGE)
    assert LogEntry.objects.filter(object_repr__contains="durian").exists()
    card_forget(card=card, actor=alice)
    assert not LogEntry.objects.filter(object_repr__contains="durian").exists()


def test_forgetting_in_a_shared_scope_keeps_the_other_members_words(alice, t0):
    family = family_scope(owner=alice)
    mine = card_remember(scope=family, actor=alice, draft=CardDraft(
        kind="state", label="likes", subject="me", value="tea", reference_time=t0)).card
    other = card_remember(scope=family, actor=alice, draft=CardDraft(
        kind="state", label="likes", subject="me", value="coffee", reference_time=t0)).card
    untouched = proposed(family, alice, "coffee", card=other, status="approved")
    card_forget(card=mine, actor=alice)
    assert Card.objects.filter(pk=other.pk).exists() and Candidate.objects.filter(pk=untouched.pk).exists()


def test_a_receipt_counts_kinds_and_says_them_in_words_never_the_content(alice, scope, bearer):
    card = card_remember(scope=scope, actor=alice, draft=CardDraft(
        kind="state", label="likes", subject="me", value="matcha", text="loves matcha")).card
    proposed(scope, alice, "matcha", card=card, status="approved")
    receipt = card_forget(card=card, actor=alice)
    assert receipt.as_dict() == {"cards": 1, "candidates": 1, "revisions": 0, "perspectives": 0}
    assert receipt.words() == "1 card and 1 review candidate"
    assert Receipt().words().startswith("nothing")
    audit = AuditEvent.objects.get(action="card.forgotten")
    assert audit.detail == {"kind": "state"}
