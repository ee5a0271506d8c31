"""The home page's weekly health: cards written, facts gone 180 days unconfirmed,
review items opened — counted per week in a fixed number of queries and drawn
as an SVG with a table beside it."""

import datetime as dt
import zoneinfo

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from cards.drafts import CardDraft
from memory_site.health_chart import WEEKS, weekly_health
from cards.models import Card
from cards.recall.aging import AGING_DAYS
from cards.services import card_remember
from review.models import Candidate
from scopes.principals import Principal
from scopes.services import membership_set
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db


def remember(scope, actor, value, label="hobby", **dates):
    card = card_remember(scope=scope, actor=actor, draft=CardDraft(kind="state", label=label, subject="me",
                                                                   value=value)).card
    Card.objects.filter(pk=card.pk).update(**dates)
    return card


def proposed(scope, author, created_at, status="pending"):
    candidate = Candidate.objects.create(scope=scope, author=author, kind="state", label="city", subject="me",
                                         value="Kyoto", quote="q", message_at=created_at, extractor="patterns",
                                         status=status)
    Candidate.objects.filter(pk=candidate.pk).update(created_at=created_at)


def test_weekly_numbers_on_a_small_fixture_in_three_grouped_queries(alice):
    bob = UserFactory(username="bob")
    now = timezone.now()
    mine, theirs = alice.personal_scope, family_scope(owner=bob, name="Theirs")
    membership_set(scope=theirs, user=alice, role="viewer")  # she sees it but does not review it
    remember(mine, alice, "chess", recorded_at=now - dt.timedelta(days=8))
    remember(mine, alice, "go")
    old = now - dt.timedelta(days=AGING_DAYS + 10)
    remember(mine, alice, "Acme", label="employer", recorded_at=old, effective_at=old, verified_at=old)
    proposed(mine, alice, now - dt.timedelta(weeks=3))
    proposed(mine, alice, now - dt.timedelta(weeks=3), status="rejected")
    proposed(theirs, bob, now - dt.timedelta(weeks=3))
    with CaptureQueriesContext(connection) as queries:
        weeks = weekly_health(principal=Principal(user=alice), scope_ids=[mine.pk, theirs.pk], now=now)
    assert len(queries) <= 4  # the reviewable scopes, then one grouped query per series
    zone = zoneinfo.ZoneInfo(alice.time_zone or "UTC")

    def week(at):
        day = at.astimezone(zone).date()
        return day - dt.timedelta(days=day.weekday())

    assert len(weeks) == WEEKS and weeks[-1]["start"] == week(now)
    by_start = {w["start"]: w for w in weeks}
    expected = {(week(now), "cards"): 1, (week(now - dt.timedelta(days=8)), "cards"): 1,
                (week(now - dt.timedelta(days=10)), "aging"): 1, (week(now - dt.timedelta(weeks=3)), "reviews"): 1}
    for start, row in by_start.items():
        for key in ("cards", "aging", "reviews"):
            assert row[key] == expected.get((start, key), 0), (start, key, row)


def test_home_draws_the_chart_with_a_table_fallback(alice, pages):
    remember(alice.personal_scope, alice, "chess")
    page = pages(alice).get("/").content.decode()
    assert "Memory health, last 12 weeks" in page and 'class="chart-bar series-0"' in page
    assert "<desc id=\"trend-desc\">" in page and "<details>" in page and "Cards written" in page
