"""POST /api/v1/count/: code does the counting — undated events apart, duplicate
reports once, states as distinct values held, never the number of updates, and
what is still to come apart from what happened."""

import datetime as dt
import zoneinfo

import pytest
from django.utils import timezone

from cards.drafts import CardDraft
from cards.services import card_remember
from tests.factories import family_scope

pytestmark = pytest.mark.django_db

TAIPEI = zoneinfo.ZoneInfo("Asia/Taipei")
# "this year" and "last year" are resolved against the real clock: the dates follow
# it. Counts hold what happened, so the tests count last year, all of it past.
Y = timezone.now().astimezone(TAIPEI).year - 1


def event(scope, actor, value, day: dt.date | None, subject="me"):
    draft = CardDraft(kind="event", label="wedding", subject=subject, value=value,
                      reference_time=timezone.now())
    if day is not None:
        start = dt.datetime(day.year, day.month, day.day, tzinfo=TAIPEI)
        draft.occurred_at, draft.occurred_end = start, start + dt.timedelta(days=1)
        draft.precision, draft.time_source = "day", "stated"
    return card_remember(scope=scope, actor=actor, draft=draft)


def count(agent, scope, label, **extra):
    response = agent.post("/api/v1/count/", {"scope": scope.pk, "label": label, **extra}, format="json")
    assert response.status_code == 200, response.json()
    return response.json()


def test_weddings_last_year_with_an_undated_one_and_a_duplicate_report(alice, bearer):
    family = family_scope(owner=alice)
    mine = alice.personal_scope
    ana = event(mine, alice, "Ana's wedding", dt.date(Y, 2, 14)).card
    bo = event(mine, alice, "Bo's wedding", dt.date(Y, 6, 1)).card
    cy = event(mine, alice, "Cy's wedding", dt.date(Y, 9, 12)).card
    event(family, alice, "Cy's wedding", dt.date(Y, 9, 12))  # the same wedding, reported in the family scope too
    assert event(mine, alice, "cy's wedding", dt.date(Y, 9, 12)).outcome == "duplicate"  # and again: refused
    event(mine, alice, "Di's wedding", dt.date(Y - 1, 5, 5))
    undated = event(mine, alice, "Ed's wedding", None).card
    body = count(bearer(alice), family, "wedding", when="last year")
    assert (body["count"], body["undated"], body["at_least"], body["exact"]) == (3, 1, 3, False)
    assert body["cards"] == [ana.pk, bo.pk, cy.pk] and body["undated_cards"] == [undated.pk]
    assert (body["planned"], body["planned_cards"]) == (0, [])
    assert body["start"].startswith(f"{Y - 1}-12-31T16:00:00")  # last year in the asker's zone (Taipei)
    everything = count(bearer(alice), family, "wedding")
    assert (everything["count"], everything["exact"]) == (4, False)
    year_before = count(bearer(alice), family, "wedding", **{"from": f"{Y - 1}-01-01T00:00:00+08:00",
                                                            "to": f"{Y}-01-01T00:00:00+08:00"})
    assert year_before["count"] == 1 and year_before["undated"] == 1


def test_a_count_with_no_undated_events_is_exact(alice, bearer):
    event(alice.personal_scope, alice, "Ana's wedding", dt.date(Y, 2, 14))
    body = count(bearer(alice), alice.personal_scope, "wedding", when="last year")
    assert (body["count"], body["undated"], body["exact"]) == (1, 0, True)


def test_a_state_counts_distinct_values_held_never_updates(alice, bearer):
    scope = alice.personal_scope
    for month, value in ((3, "70"), (4, "70"), (5, "70")):  # a weight logged three times
        card_remember(scope=scope, actor=alice, draft=CardDraft(
            kind="state", label="weight", subject="me", value=value, consent=True,
            reference_time=dt.datetime(Y, month, 10, tzinfo=TAIPEI)))
    agent = bearer(alice)
    spring = {"from": f"{Y}-03-01T00:00:00+08:00", "to": f"{Y}-06-01T00:00:00+08:00"}
    body = count(agent, scope, "weight", **spring)
    assert (body["count"], body["counted"], body["exact"]) == (1, "values", True)
    card_remember(scope=scope, actor=alice, draft=CardDraft(kind="state", label="weight", subject="me", value="72",
                                                            consent=True,
                                                            reference_time=dt.datetime(Y, 7, 1, tzinfo=TAIPEI)))
    assert count(agent, scope, "weight", **spring)["count"] == 1  # 72 came later
    year = count(agent, scope, "weight", when="last year")
    assert year["count"] == 2 and len(year["current"]) == 1


def test_count_by_subject_and_bad_input(alice, bearer):
    scope = alice.personal_scope
    event(scope, alice, "Ana's wedding", dt.date(Y, 2, 14))
    event(scope, alice, "her own wedding", dt.date(Y, 3, 1), subject="Ana")
    agent = bearer(alice)
    assert count(agent, scope, "wedding", subject="Ana")["count"] == 1
    assert count(agent, scope, "wedding", subject="me")["count"] == 1
    assert count(agent, scope, "wedding", subject="Nobody")["count"] == 0
    for body, code in (({"label": "wedding", "when": "this year", "from": "2026-01-01T00:00:00Z"}, "validation_error"),
                       ({"label": "wedding", "when": "blorgday"}, "unresolvable_time"),
                       ({"label": "wedding", "tz": "Mars/Base"}, "validation_error"),
                       ({"label": "wedding", "from": "2026-02-01T00:00:00Z", "to": "2026-01-01T00:00:00Z"},
                        "validation_error"),
                       ({"label": "nonsense"}, "unknown_label")):
        response = agent.post("/api/v1/count/", {"scope": scope.pk, **body}, format="json")
        assert (response.status_code, response.json()["code"]) == (400, code), body


def test_an_ambiguous_subject_is_refused_not_picked(alice, bearer):
    family = family_scope(owner=alice)
    event(alice.personal_scope, alice, "a wedding", dt.date(Y, 2, 14), subject="Alex")
    event(family, alice, "a wedding", dt.date(Y, 3, 14), subject="Alex")
    response = bearer(alice).post("/api/v1/count/", {"scope": family.pk, "label": "wedding", "subject": "Alex"},
                                  format="json")
    assert response.status_code == 400 and response.json()["code"] == "ambiguous_subject"
    assert len(response.json()["entities"]) == 2


def test_an_event_dated_only_by_year_is_not_counted_as_may_with_confidence(alice, bearer):
    scope = alice.personal_scope
    draft = CardDraft(kind="event", label="wedding", subject="me", value="Cy's wedding", reference_time=timezone.now())
    draft.occurred_at = dt.datetime(Y, 1, 1, tzinfo=TAIPEI)
    draft.occurred_end = dt.datetime(Y + 1, 1, 1, tzinfo=TAIPEI)
    draft.precision, draft.time_source = "year", "stated"
    card = card_remember(scope=scope, actor=alice, draft=draft).card
    may = count(bearer(alice), scope, "wedding", **{"from": f"{Y}-05-01T00:00:00+08:00", "to": f"{Y}-06-01T00:00:00+08:00"})
    assert (may["count"], may["exact"], may["straddling_cards"]) == (0, False, [card.pk])
    year = count(bearer(alice), scope, "wedding", when="last year")
    assert (year["count"], year["exact"]) == (1, True)


def test_a_range_reaching_into_the_future_counts_what_happened_and_says_how_many_are_planned(alice, bearer):
    """A wedding next week is not among the weddings of this month that happened:
    before, /count/ said 2 (and `at_least` 2) for one wedding and one to come."""
    scope = alice.personal_scope
    today = timezone.now().astimezone(TAIPEI).date()
    past = event(scope, alice, "Ana's wedding", today - dt.timedelta(days=10)).card
    coming = event(scope, alice, "Bo's wedding", today + dt.timedelta(days=7)).card
    undated = event(scope, alice, "Cy's wedding", None).card
    span = {"from": (timezone.now() - dt.timedelta(days=30)).isoformat(),
            "to": (timezone.now() + dt.timedelta(days=30)).isoformat()}
    body = count(bearer(alice), scope, "wedding", **span)
    assert (body["count"], body["at_least"], body["cards"]) == (1, 1, [past.pk])
    assert (body["planned"], body["planned_cards"]) == (1, [coming.pk])
    assert (body["undated"], body["undated_cards"], body["exact"]) == (1, [undated.pk], False)
    assert count(bearer(alice), scope, "wedding")["planned_cards"] == [coming.pk]  # no range at all


def test_a_value_from_a_later_date_is_planned_not_a_value_held(alice, bearer):
    scope = alice.personal_scope
    now = timezone.now()
    card_remember(scope=scope, actor=alice, draft=CardDraft(kind="state", label="city", subject="me", value="Kyoto",
                                                            effective_at=now - dt.timedelta(days=40)))
    osaka = card_remember(scope=scope, actor=alice, draft=CardDraft(
        kind="state", label="city", subject="me", value="Osaka", effective_at=now + dt.timedelta(days=20))).card
    span = {"from": (now - dt.timedelta(days=60)).isoformat(), "to": (now + dt.timedelta(days=60)).isoformat()}
    body = count(bearer(alice), scope, "city", **span)
    assert (body["count"], body["planned"], body["planned_cards"]) == (1, 1, [osaka.pk])
    # Kyoto again later: it held before, so it counts once, and is not also planned.
    card_remember(scope=scope, actor=alice, draft=CardDraft(kind="state", label="city", subject="me", value="Kyoto",
                                                            effective_at=now + dt.timedelta(days=40)))
    again = count(bearer(alice), scope, "city", **span)
    assert (again["count"], again["planned_cards"]) == (1, [osaka.pk])
