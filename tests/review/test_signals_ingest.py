"""Signals through ingest (review/services/signals.py, review/services/ingest.py): a blocker's first
report keeps only a signal (kind, name, day; no quote, no candidate); its recurrence within 30 days
proposes a hypothesis with the days; an expired signal does not count and is deleted; a priority
shift proposes a goal naming what it replaced; a preference said again is proposed as repeated.
Nothing here writes a card."""

import datetime as dt

import pytest
from django.test import Client
from django.utils import timezone

from cards.drafts import CardDraft
from cards.services.account import account_erase
from cards.models import Card
from cards.services import card_remember
from review.models import Candidate, CandidateStatus, IngestJob, Signal
from review.services.candidates import candidate_approve
from review.services.signals import RULE_BLOCKER, RULE_PRIORITY, signals_expire
from review.tasks import signals_expiry
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


# Alice's offset, sent with each message: an offset in the reference is the speaker's day, so a time sent
# in UTC would fall on the day before hers from 16:00 UTC on.
TAIPEI = dt.timezone(dt.timedelta(hours=8))


def _days_ago(days: int) -> str:
    return (timezone.now() - dt.timedelta(days=days)).astimezone(TAIPEI).isoformat()


def _day_said(days: int) -> str:
    day = (timezone.now() - dt.timedelta(days=days)).astimezone(dt.timezone(dt.timedelta(hours=8))).date()
    return f"{day.day} {day:%b}"


@pytest.fixture
def agent(alice, bearer):
    return bearer(alice, write=True)


def _everything_stored() -> str:
    """Every text the queue and the signals hold, to prove what was never kept."""
    rows = [*Candidate.objects.values_list("value", "text", "quote"), *Signal.objects.values_list("subject", "key")]
    jobs = [str(job.result) + str(job.messages) for job in IngestJob.objects.all()]
    return " | ".join(" ".join(map(str, row)) for row in rows) + " | ".join(jobs)


def test_a_first_blocker_keeps_only_its_signal_no_quote_and_no_candidate(alice, agent, ingest):
    job = ingest(agent, alice.personal_scope, "Ugh, the build broke again, what a nightmare.", at=_days_ago(3))
    assert job["result"]["candidates"] == 0 and not Candidate.objects.exists()
    assert {"message": "m0", "rule": "one_off_frustration"} in job["result"]["dropped"]
    signal = Signal.objects.get()
    local = (timezone.now() - dt.timedelta(days=3)).astimezone(dt.timezone(dt.timedelta(hours=8))).date()
    assert (signal.kind, signal.subject, signal.key, signal.day, signal.author) == (
        "blocker", "build", "build", local, alice)
    assert "nightmare" not in _everything_stored() and "Ugh" not in _everything_stored()


def test_a_blocker_said_again_within_30_days_proposes_a_hypothesis_with_its_days(alice, agent, ingest):
    ingest(agent, alice.personal_scope, "The build broke again.", session="s1", at=_days_ago(12))
    ingest(agent, alice.personal_scope, "Ugh, the build is broken again!", session="s2", at=_days_ago(0))
    candidate = Candidate.objects.get()
    assert (candidate.rule, candidate.kind, candidate.label, candidate.tag, candidate.subject) == (
        RULE_BLOCKER, "knowledge", "note", "hypothesis", "me")
    assert candidate.status == CandidateStatus.PENDING and candidate.confidence == 0.6
    assert candidate.value == "Recurring blocker: build" and candidate.quote == ""
    assert _day_said(12) in candidate.text and _day_said(0) in candidate.text
    assert "Ugh" not in _everything_stored()
    assert not Card.objects.filter(scope=alice.personal_scope).exists()  # only a candidate, never a card


def test_a_recurring_blocker_across_scripts_is_one_blocker(alice, agent, ingest):
    ingest(agent, alice.personal_scope, "建置又壞了！", session="s1", at=_days_ago(5))
    ingest(agent, alice.personal_scope, "唉，建置又坏了", session="s2", at=_days_ago(1))
    candidate = Candidate.objects.get()
    assert candidate.rule == RULE_BLOCKER and candidate.tag == "hypothesis"
    assert candidate.value == "反覆出現的阻礙：建置" and "推測" in candidate.text and candidate.quote == ""


def test_a_signal_older_than_30_days_does_not_count(alice, agent, ingest):
    ingest(agent, alice.personal_scope, "CI is red again.", session="s1", at=_days_ago(31))
    ingest(agent, alice.personal_scope, "CI is red again.", session="s2", at=_days_ago(0))
    assert not Candidate.objects.exists()


def test_an_expired_signal_is_deleted_at_the_next_ingest(alice, agent, ingest):
    ingest(agent, alice.personal_scope, "CI is red again.", session="s1", at=_days_ago(33))
    assert Signal.objects.count() == 1
    ingest(agent, alice.personal_scope, "CI is red again.", session="s2", at=_days_ago(0))
    assert not Candidate.objects.exists()
    assert list(Signal.objects.values_list("day", flat=True)) == [
        (timezone.now()).astimezone(dt.timezone(dt.timedelta(hours=8))).date()]  # the old one is gone


def test_a_recurrence_names_only_the_days_of_its_own_run(alice, agent, ingest):
    ingest(agent, alice.personal_scope, "The build broke again.", session="s1", at=_days_ago(5))
    # A day that lapsed before this run began, still in the chain (the sweep keeps a chain said since).
    Signal.objects.create(scope=alice.personal_scope, author=alice, kind="blocker", subject="build", key="build",
                          day=(timezone.now() - dt.timedelta(days=40)).date())
    ingest(agent, alice.personal_scope, "The build broke again.", session="s2", at=_days_ago(0))
    text = Candidate.objects.get().text
    assert _day_said(5) in text and _day_said(0) in text and _day_said(40) not in text
    assert Signal.objects.count() == 3


def test_the_same_day_twice_is_not_a_recurrence(alice, agent, ingest):
    ingest(agent, alice.personal_scope, "The build broke again.", session="s1", at=_days_ago(0))
    ingest(agent, alice.personal_scope, "The build broke again.", session="s2", at=_days_ago(0))
    assert not Candidate.objects.exists() and Signal.objects.count() == 1


def test_an_open_recurrence_is_not_proposed_twice_and_approval_makes_a_hypothesis(alice, agent, ingest):
    for n, days in enumerate((20, 10, 0)):
        ingest(agent, alice.personal_scope, "The tests keep failing", session=f"s{n}", at=_days_ago(days))
    candidate = Candidate.objects.get()
    card = candidate_approve(candidate=candidate, reviewer=alice)
    assert (card.tag, card.label.key, card.source_quote) == ("hypothesis", "note", "")


def test_near_misses_leave_no_signal_and_no_candidate(alice, agent, ingest):
    for n in range(2):
        ingest(agent, alice.personal_scope, "the bus was late", "Did the build break again?",
               "If CI is red again, call me.", "It broke again.", session=f"s{n}", at=_days_ago(n))
    assert not Signal.objects.exists() and not Candidate.objects.exists()


def test_a_sensitive_blocker_name_is_not_kept(alice, agent, ingest):
    ingest(agent, alice.personal_scope, "My insulin pump broke again.", session="s1", at=_days_ago(2))
    ingest(agent, alice.personal_scope, "My insulin pump broke again.", session="s2", at=_days_ago(0))
    assert not Signal.objects.exists() and not Candidate.objects.exists()


def test_signals_expire_by_the_last_day_their_name_was_said(alice):
    bob = UserFactory(username="bob")
    today = timezone.now().date()
    scope = alice.personal_scope

    def said(key, days, author=alice):
        Signal.objects.create(scope=scope, author=author, kind="blocker", subject=key, key=key,
                              day=today - dt.timedelta(days=days))
    said("build", 45), said("build", 20)  # recurred: its whole chain lives on
    said("ci", 40), said("ci", 33)  # not said for 33 days: goes (a day's grace for the speakers' zones)
    said("deploy", 30)  # may still recur: stays
    said("ci", 5, author=bob)  # another person's report is their own chain
    assert signals_expire() == {"expired": 2}
    assert sorted(Signal.objects.values_list("key", "author__username")) == [
        ("build", "alice"), ("build", "alice"), ("ci", "bob"), ("deploy", "alice")]
    said("lint", 60)
    assert signals_expiry.delay().get() == {"expired": 1}  # the nightly beat task


def test_a_priority_shift_proposes_a_goal_that_names_the_replaced_plan(alice, agent, ingest):
    job = ingest(agent, alice.personal_scope, "We dropped the garden plan, we're doing the patio instead.")
    candidate = Candidate.objects.get(job_id=job["job"])
    assert (candidate.rule, candidate.kind, candidate.label, candidate.tag) == (RULE_PRIORITY, "knowledge", "note",
                                                                               "goal")
    assert candidate.value == "Priority now: the patio"
    assert candidate.text == "Priority now: the patio — replaces the garden plan, which was dropped"
    assert candidate.quote == "We dropped the garden plan, we're doing the patio instead."
    ingest(agent, alice.personal_scope, "不做花園了，改成做陽台。", session="s2")
    chinese = Candidate.objects.latest("id")
    assert chinese.tag == "goal" and chinese.value == "現在優先：陽台" and "取代了花園" in chinese.text
    assert not Card.objects.filter(scope=alice.personal_scope).exists()


def test_a_priority_shift_is_never_auto_accepted(alice, agent, ingest):
    alice.personal_scope.auto_accept_explicit = True
    alice.personal_scope.save()
    ingest(agent, alice.personal_scope, "The priority now is the patio.")
    assert Candidate.objects.get().status == CandidateStatus.PENDING
    assert not Card.objects.filter(scope=alice.personal_scope).exists()


def test_a_preference_said_in_another_session_is_proposed_as_repeated(alice, agent, ingest):
    ingest(agent, alice.personal_scope, "I like green tea.", session="s1")
    first = Candidate.objects.get()
    assert (first.tag, first.long_term) == ("preference", "explicit preference or boundary")
    ingest(agent, alice.personal_scope, "我喜歡綠茶。", "I like green tea.", session="s2")
    again = Candidate.objects.filter(value="green tea").latest("id")
    assert (again.tag, again.long_term) == ("preference", "repeated in 2+ sessions")
    assert not Card.objects.filter(scope=alice.personal_scope).exists()


def test_a_preference_already_on_a_card_is_proposed_as_repeated(alice, agent, ingest):
    card_remember(scope=alice.personal_scope, actor=alice,
                  draft=CardDraft(kind="state", label="likes", subject="me", value="Green tea", tag="preference"))
    cards_before = Card.objects.count()
    ingest(agent, alice.personal_scope, "I like green tea.", "I like black coffee.")
    assert Candidate.objects.get(value="green tea").long_term == "repeated: already a preference on a card"
    assert Candidate.objects.get(value="black coffee").long_term == "explicit preference or boundary"
    assert Card.objects.count() == cards_before


def test_a_persons_signals_go_with_their_account(alice, agent, ingest):
    ingest(agent, alice.personal_scope, "The build broke again.", at=_days_ago(1))
    assert Signal.objects.count() == 1
    receipt = account_erase(user=alice)
    assert not Signal.objects.exists() and receipt.as_dict()["signals"] == 1 and "1 signal" in receipt.words()


def test_the_queue_shows_a_recurring_blocker_without_a_sentence(alice, agent, ingest):
    ingest(agent, alice.personal_scope, "CI又掛了", session="s1", at=_days_ago(4))
    ingest(agent, alice.personal_scope, "CI又掛了", session="s2", at=_days_ago(0))
    candidate = Candidate.objects.get()
    client = Client()
    client.force_login(alice)
    page = client.get(f"/scopes/{alice.personal_scope.pk}/review/").content.decode()
    part = page.split(f'id="candidate-{candidate.pk}"', 1)[1].split("</article>", 1)[0]
    assert "反覆出現的阻礙：CI" in part and "<blockquote>" not in part
    assert "only the name of what kept breaking and the days it was said" in part


def test_a_forgotten_blocker_takes_its_signals_and_does_not_come_back_with_its_days(alice, agent, ingest):
    from cards.services import card_forget

    ingest(agent, alice.personal_scope, "The build broke again.", session="s1", at=_days_ago(20))
    ingest(agent, alice.personal_scope, "The build broke again.", session="s2", at=_days_ago(10))
    card = candidate_approve(candidate=Candidate.objects.get(rule=RULE_BLOCKER), reviewer=alice)
    card_forget(card=card, actor=alice)
    assert not Signal.objects.exists()
    ingest(agent, alice.personal_scope, "The build broke again.", session="s3", at=_days_ago(1))
    # Said once more after the forget: a first report again, nothing of the forgotten days.
    assert not Candidate.objects.filter(rule=RULE_BLOCKER).exists()
    assert Signal.objects.count() == 1


def test_forgetting_everything_about_oneself_in_a_scope_takes_ones_signals_there(alice, agent, ingest):
    from cards.services import subject_forget
    from scopes.principals import Principal

    ingest(agent, alice.personal_scope, "The build broke again.", session="s1", at=_days_ago(2))
    assert Signal.objects.count() == 1
    subject_forget(principal=Principal(user=alice), scope=alice.personal_scope, subject="me")
    assert not Signal.objects.exists()


def test_a_blocker_name_that_grows_when_casefolded_is_not_kept_and_the_job_still_succeeds(alice, agent, ingest):
    name = "a" + "ß" * 38  # 39 characters as said, 77 as its key
    job = ingest(agent, alice.personal_scope, f"The {name} broke again. I live in Kyoto.", at=_days_ago(1))
    assert job["status"] == "done" and job["result"]["candidates"] == 1
    assert not Signal.objects.exists()


def test_another_members_like_is_not_a_repeat_of_ones_own(alice, agent, ingest, bearer):
    from scopes.services import membership_set
    from tests.factories import family_scope

    family, bob = family_scope(owner=alice), UserFactory(username="bob")
    membership_set(scope=family, user=bob, role="member")
    ingest(bearer(bob, write=True), family, "I like green tea.", session="bob-1")
    ingest(agent, family, "I like green tea.", session="alice-1")
    mine = Candidate.objects.get(author=alice, value="green tea")
    assert mine.long_term == "explicit preference or boundary"
