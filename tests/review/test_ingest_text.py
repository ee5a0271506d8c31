"""Ingested conversations are free text: kept NFC and without bidi overrides, so
what is extracted from them binds as it reads (cards/text.py)."""

import pytest

from review.models import Candidate

pytestmark = pytest.mark.django_db


def test_an_ingested_message_loses_bidi_controls_and_is_nfc(alice, bearer, ingest):
    ingest(bearer(alice, write=True), alice.personal_scope, "I live in \u202eKyo\u202cto.",
           "I work at Cafe\u0301 Roma.")
    city = Candidate.objects.get(label="city")
    assert city.value == "Kyoto" and "\u202e" not in city.quote and "\u202c" not in city.quote
    employer = Candidate.objects.get(label="employer")
    assert employer.value == "Caf\u00e9 Roma"
