"""Point 7: when a language model's date hint cannot be used, the event is dated
at the message's timestamp and marked so (time_source "message"), never left
undated; a usable hint still wins, and a statement about the present takes the
message's timestamp as today (DESIGN §5). Through ingest, the review queue and
the card an approval makes, against the local stand-in for the model."""

import datetime as dt
import json
import zoneinfo

import pytest

from review.models import Candidate

pytestmark = pytest.mark.django_db

TAIPEI = zoneinfo.ZoneInfo("Asia/Taipei")
SAID_AT = "2026-05-08T16:44:10+08:00"
SAID = dt.datetime.fromisoformat(SAID_AT)
WEDDING = {"message_id": "m0", "quote": "We went to Mei's wedding", "kind": "event", "label": "wedding",
           "subject": "me", "value": "Mei's wedding", "object": None, "tag": "fact", "confidence": None,
           "text": "Went to Mei's wedding."}


@pytest.fixture
def model(settings, chat):
    settings.EXTRACTOR = "llm"
    return lambda *items: chat((200, json.dumps({"items": list(items), "dropped": []})))


@pytest.fixture
def extracted(alice, bearer, ingest, as_user):
    """The one candidate a conversation yields, and the card a reviewer's approval makes of it."""
    def run(text: str) -> tuple[Candidate, dict]:
        agent = bearer(alice, write=True)
        job = ingest(agent, alice.personal_scope, text, at=SAID_AT)
        assert job["status"] == "done", job
        (candidate,) = Candidate.objects.filter(job_id=job["job"])
        approved = as_user(alice).post(f"/api/v1/review/{candidate.pk}/approve/", {}, format="json")
        assert approved.status_code == 200, approved.json()
        return candidate, agent.get(f"/api/v1/cards/{approved.json()['card']}/").json()
    return run


def local_day(moment) -> dt.date:
    moment = dt.datetime.fromisoformat(moment.replace("Z", "+00:00")) if isinstance(moment, str) else moment
    return moment.astimezone(TAIPEI).date()


@pytest.mark.parametrize("hint", ["sometime", "2026-13-45", "garbage ¯\\_(ツ)_/¯", "0001-01-01T00:00:00+00:00",
                                  "now"])
def test_an_unusable_hint_dates_the_event_at_the_message_marked_so(model, extracted, hint):
    model(dict(WEDDING, occurred_at_hint=hint))
    candidate, card = extracted("We went to Mei's wedding.")
    assert (candidate.occurred_at, candidate.time_source) == (SAID, "message")
    assert local_day(card["occurred_at"]) == dt.date(2026, 5, 8) and card["time_source"] == "message"


def test_a_usable_hint_still_wins(model, extracted):
    model(dict(WEDDING, occurred_at_hint="2026-05-02T00:00:00+08:00"))
    candidate, card = extracted("We went to Mei's wedding.")
    assert candidate.time_source == card["time_source"] == "resolved"
    assert local_day(card["occurred_at"]) == dt.date(2026, 5, 2)


def test_a_statement_about_the_present_takes_the_message_time_as_today(model, extracted):
    airport = dict(WEDDING, quote="I'm at the airport", label="trip", value="at the airport",
                   text="At the airport.", occurred_at_hint=SAID_AT)  # the model gives the message's own time
    server = model(airport)
    candidate, card = extracted("I'm at the airport")
    assert (candidate.occurred_at, candidate.time_source) == (SAID, "message")
    assert local_day(card["occurred_at"]) == dt.date(2026, 5, 8) and card["time_source"] == "message"
    # The model is told to do so.
    assert 'said in the present ("I\'m at the airport") takes' in server.requests[0]["body"]["messages"][0]["content"]


def test_no_hint_at_all_stays_undated(model, extracted):
    model(dict(WEDDING, occurred_at_hint=None))
    candidate, card = extracted("We went to Mei's wedding.")
    assert candidate.occurred_at is None and (card["occurred_at"], card["time_source"]) == (None, "none")
