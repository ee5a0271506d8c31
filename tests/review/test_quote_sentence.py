"""A candidate keeps the whole sentence it was read from as its quote (issue 21), whichever
extractor read it: never a clause cut out of it, never more of the conversation, and never
wider than what may be kept (a never-stored clause of the same sentence keeps the quote narrow)."""

import json

import pytest

from review.extract.sentences import quote_whole, sentence_spans
from review.models import Candidate, IngestJob

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("text", "quote", "whole"), [
    ("Long week. We moved to Kyoto last Friday, which was chaos. More later!",
     "We moved to Kyoto last Friday", "We moved to Kyoto last Friday, which was chaos."),
    # Abbreviations and decimals are not sentence ends.
    ("Remember that my dentist is Dr. Okafor on St. Mary's Rd. She charges 1.5 times more.",
     "my dentist is Dr. Okafor", "Remember that my dentist is Dr. Okafor on St. Mary's Rd."),
    # A Chinese sentence ends at 。！？
    ("好累喔。我們上週五搬到台中了，房子很小！下次再聊", "我們上週五搬到台中了", "我們上週五搬到台中了，房子很小！"),
    # A quote across two sentences keeps both, whole.
    ("I work at Acme. As a welder. Since May.", "Acme. As a welder", "I work at Acme. As a welder."),
])
def test_the_quote_widens_to_its_whole_sentence_and_no_further(text, quote, whole):
    assert quote_whole(text, quote) == whole


def test_a_never_stored_clause_in_the_sentence_keeps_the_quote_to_its_own_words():
    text = "I moved to Lisbon, and I'm so tired today."
    assert quote_whole(text, "I moved to Lisbon") == "I moved to Lisbon"


@pytest.mark.parametrize("text", ["I moved to Kyoto because my HIV clinic is there.",
                                  "I moved to Kyoto, where my mosque is, since I am Muslim."])
def test_the_rest_of_a_sentence_that_names_a_sensitive_attribute_stays_out_of_the_quote(text):
    assert quote_whole(text, "I moved to Kyoto") == "I moved to Kyoto"


def test_a_run_on_without_full_stops_keeps_the_quote_to_its_own_words():
    text = "we moved to Kyoto last Friday " + "and then we unpacked and then we cooked " * 30
    assert quote_whole(text, "we moved to Kyoto last Friday") == "we moved to Kyoto last Friday"


def test_a_quote_that_is_not_in_the_message_is_left_as_it_is():
    assert quote_whole("I live in Oslo.", "I live in Bergen") == "I live in Bergen"
    assert quote_whole("I live in Oslo.", "") == ""


def test_sentences_are_exact_places_in_the_text():
    text = "Hi!  I live in Oslo. 我住台北。"
    assert [text[s:e] for s, e in sentence_spans(text)] == ["Hi!", "I live in Oslo.", "我住台北。"]


def test_ingest_keeps_each_candidates_whole_sentence_and_nothing_else(alice, bearer, ingest):
    message = "Long week. We moved to Kyoto last Friday, which was chaos. My sister Ana works at Fjord Labs."
    job = ingest(bearer(alice, write=True), alice.personal_scope, message)
    quotes = {c.label: c.quote for c in Candidate.objects.filter(job_id=job["job"])}
    assert quotes["city"] == quotes["move"] == "We moved to Kyoto last Friday, which was chaos."
    assert "Long week" not in quotes["city"] and "Fjord" not in quotes["city"]
    assert IngestJob.objects.get(pk=job["job"]).messages == []  # the message itself is not kept


def test_a_models_clause_is_kept_as_its_whole_sentence_too(alice, bearer, ingest, chat, settings):
    settings.EXTRACTOR = "llm"
    item = {"message_id": "m0", "quote": "we finally moved to Kyoto", "kind": "state", "label": "city",
            "subject": "me", "value": "Kyoto", "object": None, "tag": "fact", "occurred_at_hint": None,
            "confidence": 0.9, "text": ""}
    chat((200, json.dumps({"items": [item], "dropped": []})))
    ingest(bearer(alice, write=True), alice.personal_scope, "So, we finally moved to Kyoto on Friday. Boxes everywhere.")
    assert Candidate.objects.get(label="city").quote == "So, we finally moved to Kyoto on Friday."
