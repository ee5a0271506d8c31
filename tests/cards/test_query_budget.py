"""The write path stays within 6 SQL statements per remembered card (issue
target; transaction control not counted), whatever the outcome. Counts, not
timings: timings live in bench/."""

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from cards.drafts import CardDraft
from cards.services import card_remember
from cards.labels import registry

pytestmark = pytest.mark.django_db
BUDGET = 6


def remember(alice, scope, **fields):
    fields.setdefault("subject", "me")
    with CaptureQueriesContext(connection) as captured:
        result = card_remember(scope=scope, actor=alice, draft=CardDraft(**fields))
    # Transaction control (BEGIN/COMMIT, or SAVEPOINT/RELEASE inside a test's
    # transaction) is one pair per call whatever happens; the budget is for the work.
    work = [q for q in captured.captured_queries if not q["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))]
    return result, len(work)


@pytest.fixture
def warm(alice, scope):
    registry()  # the label registry is loaded once per process, not per card
    alice.entity  # and the actor's own entity once per actor
    return alice


def test_every_outcome_fits_the_query_budget(warm, scope, t0):
    alice = warm
    day = dt.timedelta(days=1)
    cases = [
        ("inserted", dict(kind="state", label="address", value="Taipei", reference_time=t0)),
        ("superseded", dict(kind="state", label="address", value="Kyoto", reference_time=t0 + day)),
        ("reinforced", dict(kind="state", label="address", value="Kyoto", reference_time=t0 + 2 * day)),
        ("superseded", dict(kind="state", label="address", value="Osaka", reference_time=t0 + 3 * day,
                            effective_at=t0 + day / 2)),
        ("inserted", dict(kind="state", label="skill", value="Go", reference_time=t0)),
        ("reinforced", dict(kind="state", label="skill", value="go", reference_time=t0 + day)),
        ("inserted", dict(kind="event", label="trip", value="Lisbon", reference_time=t0, occurred_at=t0,
                          precision="day")),
        ("duplicate", dict(kind="event", label="trip", value="Lisbon", reference_time=t0, occurred_at=t0,
                           precision="day")),
        ("inserted", dict(kind="knowledge", label="howto", value="Descale the kettle", reference_time=t0)),
    ]
    for expected, fields in cases:
        result, queries = remember(alice, scope, **fields)
        assert result.outcome == expected, fields
        assert queries <= BUDGET, (expected, fields["label"], queries)


def test_a_first_mention_of_a_named_subject_fits_the_budget(warm, scope, t0):
    """Binding a name is one statement and creating the entity one more."""
    alice = warm
    cases = [
        ("inserted", dict(kind="state", label="employer", subject="Robin", value="Acme", reference_time=t0)),
        ("superseded", dict(kind="state", label="employer", subject="robin", value="Initech",
                            reference_time=t0 + dt.timedelta(days=1))),
        ("inserted", dict(kind="event", label="meal", subject="Kim", value="Lunch", reference_time=t0)),
    ]
    for expected, fields in cases:
        result, queries = remember(alice, scope, **fields)
        assert result.outcome == expected, fields
        assert queries <= BUDGET, (expected, fields["label"], queries)
