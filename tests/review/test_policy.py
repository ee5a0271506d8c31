"""The ingest policy: what is never kept, named by the rule that refused it."""

import datetime as dt

import pytest

from review.extract.base import Dropped, ExtractContext, Message
from review.extract.patterns import PatternExtractor
from cards.screen.never_store import (
    ONE_OFF_FRUSTRATION, SPECULATIVE_MOTIVE, TRANSIENT_FEELING, clauses, policy_screen,
)

AT = dt.datetime(2026, 5, 8, 16, 44, 10, tzinfo=dt.timezone(dt.timedelta(hours=8)))
CONTEXT = ExtractContext(known_labels=[], known_entities=[], time_zone="Asia/Taipei")

REFUSED = [
    (TRANSIENT_FEELING, "I'm tired today"),
    (TRANSIENT_FEELING, "feeling a bit down this morning"),
    (TRANSIENT_FEELING, "I am so stressed out right now"),
    (TRANSIENT_FEELING, "I'm in a bad mood"),
    (TRANSIENT_FEELING, "今天好累"),
    (TRANSIENT_FEELING, "我心情不好"),
    (ONE_OFF_FRUSTRATION, "ugh, the bus was late again"),
    (ONE_OFF_FRUSTRATION, "this printer is driving me crazy"),
    (ONE_OFF_FRUSTRATION, "I'm so tired of this traffic"),
    (ONE_OFF_FRUSTRATION, "公車又遲到了，氣死我了"),
    (SPECULATIVE_MOTIVE, "maybe he's only nice because he wants something"),
    (SPECULATIVE_MOTIVE, "I bet she's just trying to get a promotion"),
    (SPECULATIVE_MOTIVE, "他可能是想借錢"),
    (SPECULATIVE_MOTIVE, "她说不定是为了升职才这样"),
]
KEPT = ["I live in Taipei", "I'm allergic to peanuts", "I'm a nurse", "I'm vegetarian", "I think she lives in Paris",
        "I like long walks", "我住在台北", "我累積了很多點數", "my manager is Bob", "I was diagnosed with asthma"]


@pytest.mark.parametrize(("rule", "sentence"), REFUSED)
def test_excluded_content_is_refused_by_its_rule(rule, sentence):
    assert policy_screen(sentence) == rule


@pytest.mark.parametrize("sentence", KEPT)
def test_facts_and_sensitive_attributes_pass_the_policy(sentence):
    assert policy_screen(sentence) is None


def _extract(text):
    return PatternExtractor().extract([Message("s1:3", "user", text, AT)], CONTEXT)


@pytest.mark.django_db
@pytest.mark.parametrize(("text", "rule", "label", "value"), [
    ("I'm tired today, but my email is ann@example.com.", TRANSIENT_FEELING, "email", "ann@example.com"),
    ("Ugh, the bus was late again. I work at Acme.", ONE_OFF_FRUSTRATION, "employer", "Acme"),
    ("Maybe he's only nice because he wants something. My boss is Bob.", SPECULATIVE_MOTIVE, "manager", None),
    ("今天好累，但我住在高雄。", TRANSIENT_FEELING, "city", "高雄"),
])
def test_a_mixed_message_keeps_the_fact_and_names_the_dropped_rule(text, rule, label, value):
    extraction = _extract(text)
    assert extraction.dropped == [Dropped("s1:3", rule)]
    (kept,) = extraction.proposals
    assert kept.label == label and (value is None or kept.value == value)
    assert kept.quote in text and policy_screen(kept.quote) is None


def test_excluded_content_is_never_proposed_even_when_a_rule_would_match():
    # "I'm tired of my job" would otherwise read as nothing useful; "remember that I'm sad" is still a feeling.
    for text, rule in [("remember that I'm sad today", TRANSIENT_FEELING),
                       ("I hate my commute, it is driving me crazy", ONE_OFF_FRUSTRATION)]:
        extraction = _extract(text)
        assert rule in [d.rule for d in extraction.dropped]
        assert all(policy_screen(p.quote) is None for p in extraction.proposals)


def test_dropped_keeps_no_text():
    (dropped,) = _extract("I'm tired today").dropped
    assert set(vars(dropped)) == {"message_id", "rule"}


def test_clauses_are_exact_substrings():
    text = "I'm tired today, but my email is a.b@c.io. 今天好累，但我住在高雄！Ugh, I missed it"
    found = clauses(text)
    assert found == ["I'm tired today", "my email is a.b@c.io", "今天好累", "我住在高雄", "Ugh", "I missed it"]
    assert all(clause in text for clause in found)
