"""The language-model extractor against a real local HTTP server that speaks the
chat-completions protocol (the only thing mocked is the model itself)."""

import dataclasses
import datetime as dt
import json
import socket

import pytest
from django.core.exceptions import ImproperlyConfigured

from review.extract import extractor_for
from review.extract.base import Dropped, ExtractContext, ExtractionFailed, Message
from review.extract.llm import LLMExtractionFailed, LLMExtractor
from review.extract.patterns import PatternExtractor

AT = dt.datetime(2026, 5, 8, 16, 44, 10, tzinfo=dt.timezone(dt.timedelta(hours=8)))
CONTEXT = ExtractContext(known_labels=["city", "wedding", "allergy"], known_entities=["Mei", "Acme"],
                         time_zone="Asia/Taipei")
MESSAGES = [
    Message("s1:0", "assistant", "How was your weekend?", AT - dt.timedelta(minutes=2)),
    Message("s1:1", "user", "I'm tired today. We went to Mei's wedding last Saturday.", AT),
]
WEDDING = {"message_id": "s1:1", "quote": "We went to Mei's wedding last Saturday", "kind": "event",
           "label": "wedding", "subject": "me", "value": "Mei's wedding", "object": None, "tag": "fact",
           "occurred_at_hint": "2026-05-02T00:00:00+08:00", "confidence": None, "text": "Went to Mei's wedding."}


def answer(*items, dropped=()):
    return json.dumps({"items": list(items), "dropped": list(dropped)})


def test_valid_answer_becomes_proposals(chat):
    server = chat((200, answer(WEDDING, dropped=[{"message_id": "s1:1", "rule": "transient_feeling"}])))
    extraction = LLMExtractor().extract(MESSAGES, CONTEXT)
    (wedding,) = extraction.proposals
    assert (wedding.kind, wedding.label, wedding.value, wedding.rule, wedding.message_id) == (
        "event", "wedding", "Mei's wedding", "llm", "s1:1")
    assert wedding.occurred_at_hint == dt.datetime(2026, 5, 2, tzinfo=dt.timezone(dt.timedelta(hours=8)))
    assert wedding.when is None and wedding.explicit is False
    # The policy's own drop, then the model's report of the same feeling.
    assert extraction.dropped == [Dropped("s1:1", "transient_feeling")] * 2
    (request,) = server.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["Authorization"] == "Bearer sk-test"
    assert request["body"]["model"] == "tiny-model"
    assert request["body"]["response_format"] == {"type": "json_object"}


def test_system_prompt_carries_time_labels_entities_and_rules(chat):
    server = chat((200, answer(WEDDING)))
    LLMExtractor().extract(MESSAGES, CONTEXT)
    system, user = server.requests[0]["body"]["messages"]
    assert system["role"] == "system"
    assert "<current_time>2026-05-08T16:44:10+08:00</current_time>" in system["content"]
    assert "<known_labels>city, wedding, allergy</known_labels>" in system["content"]
    assert "<known_entities>Mei, Acme</known_entities>" in system["content"]
    for rule in ("transient feelings", "one-off frustrations", "speculative motives", "occurred_at_hint",
                 "explicitly"):
        assert rule in system["content"]
    shown = json.loads(user["content"])["messages"]
    # The refused feeling never reaches the model; the rest of the message does, as said.
    assert "tired" not in shown[1]["text"] and "We went to Mei's wedding last Saturday." in shown[1]["text"]
    assert shown[1]["at"] == "2026-05-08T16:44:10+08:00"


@pytest.mark.parametrize("at, clock, zone", [
    (AT, "2026-05-08T16:44:10+08:00", "Asia/Taipei"),  # the person's own offset: their zone
    # Another offset is the speaker's clock (DESIGN §5), as ingest resolves their "yesterday" in it.
    (AT.astimezone(dt.timezone(dt.timedelta(hours=-4))), "2026-05-08T04:44:10-04:00", "-04:00"),
    (AT.astimezone(dt.timezone.utc), "2026-05-08T08:44:10+00:00", "+00:00"),
])
def test_current_time_is_the_speakers_clock(chat, at, clock, zone):
    server = chat((200, answer()))
    LLMExtractor().extract([Message("m", "user", "I live in Taipei", at)], CONTEXT)
    system = server.requests[0]["body"]["messages"][0]["content"]
    assert f"<current_time>{clock}</current_time>" in system and f"<time_zone>{zone}</time_zone>" in system


def test_a_hint_without_an_offset_is_read_in_its_messages_day(chat):
    at = AT.astimezone(dt.timezone(dt.timedelta(hours=-4)))
    chat((200, answer(dict(WEDDING, occurred_at_hint="2026-05-02T00:00:00"))))
    (wedding,) = LLMExtractor().extract([dataclasses.replace(MESSAGES[1], at=at)], CONTEXT).proposals
    assert wedding.occurred_at_hint == dt.datetime(2026, 5, 2, 4, tzinfo=dt.timezone.utc)


def test_invalid_answer_is_retried_once_with_the_problems(chat):
    bad = dict(WEDDING, quote="we went to a wedding")  # not a substring of the message
    server = chat((200, answer(bad)), (200, answer(WEDDING)))
    (wedding,) = LLMExtractor().extract(MESSAGES, CONTEXT).proposals
    assert wedding.label == "wedding"
    assert len(server.requests) == 2
    retry = server.requests[1]["body"]["messages"]
    assert retry[2] == {"role": "assistant", "content": answer(bad)}
    assert "items[0].quote must be copied exactly" in retry[3]["content"]


@pytest.mark.parametrize("first", [
    "not json at all",
    json.dumps({"cards": []}),
    answer(dict(WEDDING, kind="memory")),
    answer(dict(WEDDING, tag="rumour")),
    answer(dict(WEDDING, message_id="s1:0")),  # the assistant's message is not the user's memory
    answer({k: v for k, v in WEDDING.items() if k != "label"}),
    answer(dict(WEDDING, occurred_at_hint=20260502)),
    answer(dict(WEDDING, confidence=3)),
    answer(dict(WEDDING, kind="state", value="", object=None)),
    answer(WEDDING, dropped=[{"message_id": "s1:1", "rule": "boring"}]),
])
def test_invalid_twice_fails_without_retry_after_two_requests(chat, first):
    server = chat((200, first), (200, first))
    with pytest.raises(LLMExtractionFailed) as failed:
        LLMExtractor().extract(MESSAGES, CONTEXT)
    assert isinstance(failed.value, ExtractionFailed)
    assert failed.value.retryable is False and failed.value.reasons
    assert len(server.requests) == 2


def test_a_body_that_is_not_a_chat_completion_counts_as_invalid(chat):
    server = chat((200, b"<html>hello</html>"), (200, answer(WEDDING)))
    assert len(LLMExtractor().extract(MESSAGES, CONTEXT).proposals) == 1
    assert len(server.requests) == 2


def test_unusable_hint_keeps_the_item_without_it(chat):
    chat((200, answer(dict(WEDDING, occurred_at_hint="last Saturday"), dict(WEDDING, occurred_at_hint=None),
                      dict(WEDDING, occurred_at_hint="  "))))
    proposals = LLMExtractor().extract(MESSAGES, CONTEXT).proposals
    assert [p.occurred_at_hint for p in proposals] == [None, None, None]
    # Only the hint that was given and unreadable falls back to the message time; blank is no time said.
    assert [p.hint_unusable for p in proposals] == [True, False, False]


def test_naive_hint_is_read_in_the_users_zone(chat):
    chat((200, answer(dict(WEDDING, occurred_at_hint="2026-05-02T10:00:00"))))
    (wedding,) = LLMExtractor().extract(MESSAGES, CONTEXT).proposals
    assert wedding.occurred_at_hint.utcoffset() == dt.timedelta(hours=8)


def test_model_proposal_from_refused_words_is_dropped_again(chat):
    messages = [Message("m", "user", "I live in Taipei and I am stressed", AT)]
    feeling = dict(WEDDING, message_id="m", quote="I am stressed", kind="state", label="mood", value="stressed")
    city = dict(WEDDING, message_id="m", quote="I live in Taipei", kind="state", label="city", value="Taipei",
                occurred_at_hint=None)
    chat((200, answer(feeling, city)))
    extraction = LLMExtractor().extract(messages, CONTEXT)
    assert [p.label for p in extraction.proposals] == ["city"]
    assert extraction.dropped == [Dropped("m", "transient_feeling")] * 2


def test_nothing_left_to_mine_sends_no_request(chat):
    server = chat()
    extraction = LLMExtractor().extract([Message("m", "user", "ugh, the bus was late again", AT)], CONTEXT)
    assert extraction.dropped == [Dropped("m", "one_off_frustration")] and server.requests == []


@pytest.mark.parametrize("status", [500, 503, 429])
def test_server_trouble_is_retryable(chat, status):
    server = chat((status, b'{"error": "busy"}'))
    with pytest.raises(LLMExtractionFailed) as failed:
        LLMExtractor().extract(MESSAGES, CONTEXT)
    assert failed.value.retryable is True and str(status) in str(failed.value)
    assert len(server.requests) == 1


def test_client_error_is_not_retryable(chat):
    chat((401, b'{"error": "bad key"}'))
    with pytest.raises(LLMExtractionFailed) as failed:
        LLMExtractor().extract(MESSAGES, CONTEXT)
    assert failed.value.retryable is False


def test_connection_refused_is_retryable(settings):
    with socket.socket() as sock:  # a port nobody listens on once this socket is closed
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    settings.LLM_URL, settings.LLM_MODEL = f"http://127.0.0.1:{port}", "tiny-model"
    with pytest.raises(LLMExtractionFailed) as failed:
        LLMExtractor().extract(MESSAGES, CONTEXT)
    assert failed.value.retryable is True


def test_extractor_for_chooses_by_setting(settings, chat):
    chat()
    settings.EXTRACTOR = "patterns"
    assert isinstance(extractor_for(), PatternExtractor)
    settings.EXTRACTOR = "llm"
    llm = extractor_for()
    assert isinstance(llm, LLMExtractor) and llm.name == "llm"
    assert isinstance(extractor_for("patterns"), PatternExtractor)


def test_extractor_for_refuses_unknown_names_and_missing_endpoint(settings):
    with pytest.raises(ImproperlyConfigured, match="'gpt' is not an extractor"):
        extractor_for("gpt")
    settings.LLM_URL = ""
    with pytest.raises(ImproperlyConfigured, match="LLM_URL"):
        extractor_for("llm")
