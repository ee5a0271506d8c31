"""Rejected candidates, and those nobody decided on, lose their words after
CANDIDATE_RETENTION_DAYS (default 30), by a nightly beat task; kind, label,
status, who and when stay, and an undecided one leaves the queue as expired."""

import datetime as dt

import pytest
from django.conf import settings as project_settings
from django.utils import timezone

from review.models import Candidate, CandidateStatus, Decision
from review.services.candidates import candidate_reject
from review.tasks import candidates_retention
from tests.factories import family_scope

pytestmark = pytest.mark.django_db


def proposed(scope, author, value, *, days_ago: int) -> Candidate:
    candidate = Candidate.objects.create(scope=scope, author=author, kind="state", label="likes", subject="me",
                                         value=value, text=f"likes {value}", quote=f"I like {value}",
                                         message_at=timezone.now(), extractor="patterns", key=f"me|likes|{value}")
    Candidate.objects.filter(pk=candidate.pk).update(created_at=timezone.now() - dt.timedelta(days=days_ago))
    return candidate


def rejected(candidate, reviewer, *, days_ago: int) -> Candidate:
    candidate_reject(candidate=candidate, reviewer=reviewer, reason=f"not {candidate.value}, never")
    Candidate.objects.filter(pk=candidate.pk).update(decided_at=timezone.now() - dt.timedelta(days=days_ago))
    return candidate


def words(candidate) -> tuple:
    candidate.refresh_from_db()
    return (candidate.subject, candidate.value, candidate.text, candidate.quote, candidate.key, candidate.reason)


def test_the_nightly_task_is_scheduled_and_the_period_defaults_to_30_days():
    schedule = project_settings.CELERY_BEAT_SCHEDULE["candidates-retention"]
    assert schedule["task"] == "review.tasks.candidates_retention"
    assert project_settings.CANDIDATE_RETENTION_DAYS == 30


def test_rejected_candidates_lose_their_words_after_the_retention_period(alice):
    family = family_scope(owner=alice)
    old = rejected(proposed(family, alice, "durian", days_ago=40), alice, days_ago=31)
    recent = rejected(proposed(family, alice, "natto", days_ago=40), alice, days_ago=29)
    assert candidates_retention.delay().get() == {"cleared": 1, "expired": 0, "reasons": 1}
    assert words(old) == ("", "", "", "", "", "")
    assert (old.status, old.kind, old.label, old.author, old.decided_by) == ("rejected", "state", "likes", alice,
                                                                           alice)
    assert words(recent)[1] == "natto"
    assert dict(Decision.objects.values_list("item_id", "reason")) == {old.pk: "", recent.pk: "not natto, never"}


def test_candidates_nobody_decided_on_expire_and_lose_their_words(alice):
    stale = proposed(alice.personal_scope, alice, "durian", days_ago=31)
    consent = proposed(alice.personal_scope, alice, "a diagnosis", days_ago=31)
    Candidate.objects.filter(pk=consent.pk).update(status=CandidateStatus.NEEDS_CONSENT)
    fresh = proposed(alice.personal_scope, alice, "natto", days_ago=3)
    approved = proposed(alice.personal_scope, alice, "tea", days_ago=90)
    Candidate.objects.filter(pk=approved.pk).update(status=CandidateStatus.APPROVED)
    assert candidates_retention.delay().get() == {"cleared": 2, "expired": 2, "reasons": 0}
    for gone in (stale, consent):
        assert words(gone) == ("", "", "", "", "", "") and gone.status == CandidateStatus.EXPIRED
    assert words(fresh)[1] == "natto" and fresh.status == CandidateStatus.PENDING
    assert words(approved)[1] == "tea"  # approved: its words are the card's, forgotten with it
    assert candidates_retention.delay().get() == {"cleared": 0, "expired": 0, "reasons": 0}


def test_the_retention_period_is_a_setting(alice, settings):
    settings.CANDIDATE_RETENTION_DAYS = 2
    stale = proposed(alice.personal_scope, alice, "durian", days_ago=3)
    candidates_retention.delay().get()
    assert words(stale)[1] == "" and stale.status == CandidateStatus.EXPIRED


def test_a_stale_proposals_phrasings_for_members_go_with_its_words(alice):
    family = family_scope(owner=alice)
    stale = proposed(family, alice, "durian", days_ago=31)
    Candidate.objects.filter(pk=stale.pk).update(perspectives={"alice": "my secret durian stash"})
    assert candidates_retention.delay().get() == {"cleared": 1, "expired": 1, "reasons": 0}
    stale.refresh_from_db()
    assert stale.perspectives == {} and words(stale)[1] == ""
