"""A time expression inside a question is found and resolved as writes resolve
one, in the asker's day (cards/time/find.py); words that only look like time
("May I…", "now") restrict nothing."""

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from cards.time.find import time_in_query

TAIPEI, LISBON = ZoneInfo("Asia/Taipei"), ZoneInfo("Europe/Lisbon")
# Monday 30 November 2026, 06:30 in Taipei: still Sunday 29th in Lisbon.
AT = dt.datetime(2026, 11, 29, 22, 30, tzinfo=dt.timezone.utc)


@pytest.mark.parametrize("question, tz, expression, first, after, rest", [
    ("What did we do last weekend?", TAIPEI, "last weekend", "2026-11-28", "2026-11-30", "What did we do ?"),
    ("Who did I meet yesterday?", TAIPEI, "yesterday", "2026-11-29", "2026-11-30", "Who did I meet ?"),
    ("Who did I meet yesterday?", LISBON, "yesterday", "2026-11-28", "2026-11-29", "Who did I meet ?"),
    ("What happened two days ago?", TAIPEI, "two days ago", "2026-11-28", "2026-11-29", "What happened ?"),
    ("What did I do in March 2026?", TAIPEI, "in March 2026", "2026-03-01", "2026-04-01", "What did I do ?"),
    ("上個月我們去了哪裡？", TAIPEI, "上個月", "2026-10-01", "2026-11-01", "我們去了哪裡？"),
    ("我昨天跟誰吃飯？", TAIPEI, "昨天", "2026-11-29", "2026-11-30", "我跟誰吃飯？"),
    ("上週末做了什麼", TAIPEI, "上週末", "2026-11-28", "2026-11-30", "做了什麼"),
])
def test_the_time_words_of_a_question_are_found_in_the_askers_day(question, tz, expression, first, after, rest):
    found = time_in_query(question, reference=AT, tz=tz)
    assert found is not None and found.expression == expression and found.rest == rest
    assert (found.interval.start, found.interval.end) == (
        dt.datetime.fromisoformat(first).replace(tzinfo=tz), dt.datetime.fromisoformat(after).replace(tzinfo=tz))


@pytest.mark.parametrize("question", ["May I ask where Dana lives?", "Where do I live now?", "我住在哪裡？",
                                      "What is the one thing I said?", "Which day suits Kai?"])
def test_words_that_only_look_like_time_restrict_nothing(question):
    assert time_in_query(question, reference=AT, tz=TAIPEI) is None


@pytest.mark.parametrize("question", [
    "What does Kai usually do on Saturday?", "What does Dana do every Thursday?", "What do we do on Sundays?",
    "Arjun 每周四晚上去干嘛？", "爷爷周末一般去干嘛？", "嘉欣星期日通常做咩？", "我老婆周六早上去干嘛？",
    "星期一 stand-up 幾點開始？",
])
def test_a_question_about_what_recurs_restricts_nothing(question):
    # Its day is part of what it asks ("on Thursdays"), not one range of days.
    assert time_in_query(question, reference=AT, tz=TAIPEI) is None


@pytest.mark.parametrize("question, ahead", [
    ("周六我们去哪了？", False),  # a bare day that happened (了): the last one
    ("上週末做了什麼", False), ("What did we do last weekend?", False),
    ("What are we doing next weekend?", True), ("明年的 offsite 去哪？", True), ("下周的 release 是谁负责？", True),
])
def test_a_range_after_the_question_is_ahead(question, ahead):
    # recall keeps states and notes beside the range's events for a range ahead: plans are said both ways.
    found = time_in_query(question, reference=AT, tz=TAIPEI)
    assert found is not None and found.ahead is ahead
