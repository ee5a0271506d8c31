"""The hypothesis lifecycle: demoted 14 / 30 / 60 days unreinforced, discarded
after 5 sessions unvalidated or when a fact contradicts it; probed one at a
time, never twice; confirmed into a fact or preference, or rejected."""

import datetime as dt

import pytest
from django.utils import timezone

from cards.drafts import CardDraft
from cards.models import Card, CardRevision
from cards.services import card_remember
from review.models import IngestJob, Probe
from review.services.hypotheses import hypotheses_decay, level_of
from review.tasks import hypotheses_nightly

pytestmark = pytest.mark.django_db


def guess(scope, actor, value, confidence=0.9, label="likes", at=None):
    return card_remember(scope=scope, actor=actor, draft=CardDraft(
        kind="state", subject="me", label=label, value=value, tag="hypothesis", confidence=confidence,
        reference_time=at or timezone.now())).card


def test_unreinforced_hypotheses_step_down_then_go(alice):
    start = timezone.now() - dt.timedelta(days=200)
    card = guess(alice.personal_scope, alice, "jazz", 0.9, at=start)
    steps = [(start + dt.timedelta(days=13), "high"), (start + dt.timedelta(days=14, hours=1), "medium"),
             (start + dt.timedelta(days=43), "medium"), (start + dt.timedelta(days=45), "low"),
             (start + dt.timedelta(days=104), "low")]
    for now, level in steps:
        # The demotion clock restarts at each step: revisions are stamped with the run's time.
        hypotheses_decay(now=now)
        card.refresh_from_db()
        assert level_of(card.confidence) == level and card.superseded_at is None, now - start
    assert hypotheses_decay(now=start + dt.timedelta(days=106)) == {"demoted": 0, "discarded": 1}
    card.refresh_from_db()
    assert card.superseded_at is not None
    gone = CardRevision.objects.get(card=card, field="hypothesis")
    assert gone.after == "discarded" and "60 days" in gone.reason  # the reason is kept
    assert [r.after for r in CardRevision.objects.filter(card=card, field="confidence").order_by("at")] == \
        ["medium", "low"]


def test_reinforcement_keeps_a_hypothesis_at_its_level(alice):
    card = guess(alice.personal_scope, alice, "jazz", 0.9, at=timezone.now() - dt.timedelta(days=20))
    guess(alice.personal_scope, alice, "jazz", 0.9)  # said again: reinforced
    assert hypotheses_nightly.delay().get() == {"demoted": 0, "discarded": 0}
    card.refresh_from_db()
    assert level_of(card.confidence) == "high"


def test_five_sessions_without_validation_discard_it(alice):
    card = guess(alice.personal_scope, alice, "jazz")
    for index in range(5):
        IngestJob.objects.create(scope=alice.personal_scope, session=f"s{index}", created_by=alice,
                                 extractor="patterns", status="done")
        if index < 4:
            assert hypotheses_decay()["discarded"] == 0
    assert hypotheses_decay()["discarded"] == 1
    assert "5 sessions" in CardRevision.objects.get(card=card, field="hypothesis").reason


def test_a_fact_contradicting_a_hypothesis_discards_it_at_once(alice):
    card = guess(alice.personal_scope, alice, "Taipei", label="city")
    card_remember(scope=alice.personal_scope, actor=alice,
                  draft=CardDraft(kind="state", subject="me", label="city", value="Kyoto"))
    card.refresh_from_db()
    assert card.superseded_at is not None and card.superseded_by.tag == "fact"


def test_probes_one_at_a_time_never_twice_and_confirm_or_reject(alice, bearer):
    scope = alice.personal_scope
    jazz = guess(scope, alice, "jazz", 0.9)
    tea = guess(scope, alice, "green tea", 0.5)
    agent = bearer(alice, write=True)
    first = agent.get("/api/v1/probes/next/", {"scope": scope.pk})
    assert first.status_code == 200 and first.json()["id"] == jazz.pk
    assert agent.get("/api/v1/probes/next/", {"scope": scope.pk}).status_code == 204  # one at a time
    confirmed = agent.post(f"/api/v1/cards/{jazz.pk}/confirm/", {"quote": "yes, I love jazz"}, format="json").json()
    assert confirmed["tag"] == "preference" and confirmed["source"]["quote"] == "yes, I love jazz"
    assert confirmed["confidence"] is None
    second = agent.get("/api/v1/probes/next/", {"scope": scope.pk})
    assert second.json()["id"] == tea.pk
    assert agent.post(f"/api/v1/cards/{tea.pk}/reject/", {"reason": "no, coffee"}, format="json").status_code == 204
    assert Card.objects.get(pk=tea.pk).superseded_at is not None
    assert agent.get("/api/v1/probes/next/", {"scope": scope.pk}).status_code == 204  # nothing left, none repeated
    assert sorted(Probe.objects.values_list("answer", flat=True)) == ["confirmed", "rejected"]
    again = agent.post(f"/api/v1/cards/{jazz.pk}/confirm/", {}, format="json")
    assert again.status_code == 409 and again.json()["code"] == "not_a_hypothesis"


def test_an_unanswered_probe_is_never_asked_again(alice, bearer):
    scope = alice.personal_scope
    jazz = guess(scope, alice, "jazz")
    agent = bearer(alice, write=True)
    assert agent.get("/api/v1/probes/next/", {"scope": scope.pk}).json()["id"] == jazz.pk
    Probe.objects.update(asked_at=timezone.now() - dt.timedelta(days=2))  # asked long ago, never answered
    assert agent.get("/api/v1/probes/next/", {"scope": scope.pk}).status_code == 204


def test_read_only_principals_cannot_confirm(alice, bearer):
    jazz = guess(alice.personal_scope, alice, "jazz")
    reader = bearer(alice, write=False)
    assert reader.post(f"/api/v1/cards/{jazz.pk}/confirm/", {}, format="json").status_code == 403
    assert Card.objects.get(pk=jazz.pk).tag == "hypothesis"


def test_a_fact_of_the_opposite_label_discards_a_hypothesis_at_once(alice):
    from cards.services import card_remember_many

    likes = guess(alice.personal_scope, alice, "coriander")
    other = guess(alice.personal_scope, alice, "cumin")
    card_remember(scope=alice.personal_scope, actor=alice,
                  draft=CardDraft(kind="state", subject="me", label="dislikes", value="Coriander"))
    likes.refresh_from_db()
    other.refresh_from_db()
    assert likes.superseded_at is not None and other.superseded_at is None
    assert "contradicted by fact" in CardRevision.objects.get(card=likes, field="hypothesis").reason
    card_remember_many(scope=alice.personal_scope, actor=alice,
                       drafts=[CardDraft(kind="state", subject="me", label="dislikes", value="cumin")])
    other.refresh_from_db()
    assert other.superseded_at is not None


def test_the_nightly_decay_reads_a_constant_number_of_queries(alice):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            hypotheses_decay()
        return len(captured.captured_queries)

    guess(alice.personal_scope, alice, "jazz")
    one = queries()
    for value in ("tea", "chess", "rain", "maps"):
        guess(alice.personal_scope, alice, value)
    assert queries() == one  # fresh guesses: nothing to change, and no query per card


def test_guesses_in_an_archived_project_are_left_as_they_are(alice):
    from scopes.archive import scope_archive
    from scopes.principals import Principal
    from scopes.services import scope_create

    garden = scope_create(name="Garden", kind="project", creator=alice, parent=alice.personal_scope)
    start = timezone.now() - dt.timedelta(days=200)
    card = guess(garden, alice, "roses", 0.9, at=start)
    scope_archive(principal=Principal(user=alice), scope=garden)
    assert hypotheses_decay(now=start + dt.timedelta(days=106)) == {"demoted": 0, "discarded": 0}
    card.refresh_from_db()
    assert level_of(card.confidence) == "high" and card.superseded_at is None
