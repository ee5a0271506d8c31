"""Listing cards costs a constant number of SQL queries, however many cards the
page holds (STYLE: query budgets on list endpoints; no N+1). Counts, not
timings."""

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from cards.drafts import CardDraft
from cards.services import card_remember
from scopes.services import membership_set, scope_create
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
URL = "/api/v1/cards/"
# The session and its user (or the token with its user), the visible scope ids,
# then one query for the page: perspectives and related rows are joins and subqueries.
LIST_BUDGET = 4
# ?scope= adds the scope itself and its ancestors (one recursive query), and the
# read set's ids replace the visible scope ids: never the number of cards.
SCOPED_BUDGET = LIST_BUDGET + 2


class Household:
    """alice is a member of 10 scopes: her personal one, a ladder enterprise >
    department > team > project, and five family scopes, all made by bob."""

    def __init__(self, alice):
        self.alice, self.bob = alice, UserFactory(username="bob")
        enterprise = scope_create(name="Acme", kind="enterprise", creator=self.bob)
        department = scope_create(name="Research", kind="department", creator=self.bob, parent=enterprise)
        team = scope_create(name="Search", kind="team", creator=self.bob, parent=department)
        self.project = scope_create(name="Index", kind="project", creator=self.bob, parent=team)
        families = [scope_create(name=f"Family {n}", kind="family", creator=self.bob) for n in range(5)]
        shared = [enterprise, department, team, self.project, *families]
        for scope in shared:
            membership_set(scope=scope, user=alice, role="member")
        self.scopes = [alice.personal_scope, *shared]
        self.count = 0

    def add_cards(self, total: int) -> None:
        """Up to `total` cards, spread over the scopes, in every shape the list has to show:
        entities as subject and object, events, the caller's own phrasing, two source actors."""
        t0 = dt.datetime(2026, 5, 8, 16, 44, tzinfo=dt.timezone.utc)
        while self.count < total:
            n, self.count = self.count, self.count + 1
            scope = self.scopes[n % len(self.scopes)]
            actor = self.alice if scope.kind == "personal" else self.bob
            shapes = [
                dict(kind="state", label="advisor", subject="me", object=f"Mentor {n}"),
                dict(kind="state", label="skill", subject=f"Person {n % 7}", value=f"skill {n}",
                     perspectives={"alice": f"my view of skill {n}"}),
                dict(kind="event", label="trip", subject="me", value=f"trip {n}", text="went",
                     occurred_at=t0 - dt.timedelta(days=n), precision="day"),
                dict(kind="state", label="hobby", subject="me", value=f"hobby {n}", source_session="s-1",
                     source_quote="said so"),
            ]
            result = card_remember(scope=scope, actor=actor,
                                   draft=CardDraft(reference_time=t0, **shapes[n % len(shapes)]))
            assert result.outcome == "inserted"


@pytest.fixture
def household(alice):
    return Household(alice)


@pytest.fixture(params=["session", "token"])
def caller(request, household, as_user, bearer):
    if request.param == "session":
        return as_user(household.alice)
    return bearer(household.alice, all_scopes=True)


def measured(client, params: dict) -> tuple[int, list[dict]]:
    warm = client.get(URL, params)  # first use: last_used_at, the label registry, caches
    assert warm.status_code == 200, warm.content[:300]
    with CaptureQueriesContext(connection) as captured:
        response = client.get(URL, params)
    assert response.status_code == 200
    return len(captured.captured_queries), response.json()["results"]


def test_listing_200_cards_costs_what_listing_20_does(household, caller):
    household.add_cards(20)
    small, shown = measured(caller, {"limit": 200})
    assert len(shown) == 20
    household.add_cards(200)
    large, shown = measured(caller, {"limit": 200})
    assert len(shown) == 200 and len({card["scope"] for card in shown}) == 10
    assert any(card["object"] for card in shown) and any(card["text"].startswith("my view") for card in shown)
    assert large == small, (small, large)
    assert large <= LIST_BUDGET


def test_listing_a_scope_with_ancestors_costs_the_same_at_any_size(household, caller):
    params = {"scope": household.project.pk, "limit": 200}
    household.add_cards(20)
    small, shown = measured(caller, params)
    seen = {card["scope"] for card in shown}
    household.add_cards(200)
    large, shown = measured(caller, params)
    ladder = {household.project.pk, *household.project.ancestor_ids(), household.alice.personal_scope.pk}
    assert seen <= ladder and {card["scope"] for card in shown} == ladder
    assert len(shown) > 20
    assert large == small, (small, large)
    assert large <= SCOPED_BUDGET
