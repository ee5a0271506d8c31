"""The nine rows of issue 21's table, through the pattern extractor: each message proposes exactly
what a careful person would (the corpus's issue_table.jsonl holds those candidates and the wrong
ones the old extractor made), every value stands alone, and each day is placed as ingest places
it — in the speaker's own offset, never a UTC day."""

import datetime as dt
import zoneinfo

import pytest

from cards.labels import label_lookup
from review.extract.base import ExtractContext, Message
from review.extract.patterns import PatternExtractor
from review.models import Candidate
from review.services.ingest import _place_in_time
from tests.review.corpus import corpus_load, value_key

pytestmark = pytest.mark.django_db

ROWS = [m for m in corpus_load() if m.file == "issue_table.jsonl"]


def run(row):
    message = Message(id=row.id, role="user", text=row.text, at=dt.datetime.fromisoformat(row.at))
    proposals = PatternExtractor().extract([message], ExtractContext([], [], row.zone)).proposals
    return message, proposals


def target(label_key, value, object_):
    label = label_lookup(label_key)
    return value_key((object_ or value) if label is not None and label.takes_object else value)


def placed(p, message, zone):
    """The moment ingest gives the candidate (review.services.ingest._place_in_time)."""
    candidate = Candidate(kind=p.kind)
    _place_in_time(candidate, p, message, zoneinfo.ZoneInfo(zone))
    return candidate.occurred_at if p.kind == "event" else candidate.effective_at


def test_the_nine_rows_are_in_the_corpus():
    assert len(ROWS) == 9


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_row_proposes_what_a_careful_person_would(row):
    message, proposals = run(row)
    got = sorted((label_lookup(p.label).key, value_key(p.subject), target(p.label, p.value, p.object))
                 for p in proposals)
    want = sorted((c.label, value_key(c.subject), value_key(c.object or c.value)) for c in row.expect)
    assert got == want
    for c in row.reject:
        assert not any(label_lookup(p.label).key == c.label and value_key(p.subject) == value_key(c.subject)
                       and target(p.label, p.value, p.object) == value_key(c.object or c.value) for p in proposals)
    for p in proposals:
        assert p.quote in row.text and p.message_id == row.id
        assert label_lookup(p.label).kind == p.kind


@pytest.mark.parametrize("row", [r for r in ROWS if any(c.when for c in r.expect)],
                         ids=lambda r: r.id)
def test_row_days_are_the_speakers_own(row):
    message, proposals = run(row)
    offset = message.at.tzinfo
    for c in row.expect:
        if not c.when:
            continue
        (p,) = [p for p in proposals if label_lookup(p.label).key == c.label
                and target(p.label, p.value, p.object) == value_key(c.object or c.value)]
        moment = placed(p, message, row.zone)
        assert moment.astimezone(offset).date() == dt.date.fromisoformat(c.when)
        # The start of the speaker's day, not midnight UTC.
        assert moment == dt.datetime.combine(dt.date.fromisoformat(c.when), dt.time(), offset)


def test_dentist_is_the_whole_name_and_explicit():
    (row,) = [r for r in ROWS if r.text.startswith("Remember that my dentist")]
    _, proposals = run(row)
    assert [(p.label, p.object, p.explicit) for p in proposals] == [("dentist", "Dr. Okafor", True)]


def test_toyota_gives_employer_and_job_title_apart():
    (row,) = [r for r in ROWS if "Toyota" in r.text]
    _, proposals = run(row)
    assert sorted((p.label, p.value) for p in proposals) == [("employer", "Toyota"), ("job_title", "mechanic")]


def test_kyoto_gives_the_move_and_the_city_on_the_first_of_may_in_plus_eight():
    (row,) = [r for r in ROWS if "Kyoto" in r.text]
    message, proposals = run(row)
    assert sorted((p.kind, p.label, p.value, p.when) for p in proposals) == [
        ("event", "move", "Kyoto", "last Friday"), ("state", "city", "Kyoto", "last Friday")]
    for p in proposals:
        moment = placed(p, message, row.zone)
        assert moment.isoformat() == "2026-05-01T00:00:00+08:00"
        assert moment.astimezone(dt.timezone.utc).date() == dt.date(2026, 4, 30)


def test_mia_is_a_child_and_her_lessons_an_event_of_hers():
    (row,) = [r for r in ROWS if "Mia" in r.text]
    _, proposals = run(row)
    assert sorted((p.kind, p.label, p.subject, p.value, p.object, p.when) for p in proposals) == [
        ("event", "milestone", "Mia", "started piano lessons", None, "yesterday"),
        ("state", "child", "me", "daughter", "Mia", None)]
