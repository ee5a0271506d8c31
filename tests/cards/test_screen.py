"""The write screen itself (cards/screen): the never-store rules and the
sensitive lexicon, in English and in Chinese written once and matched in both
scripts. The write paths that call it are walked in tests/test_screen_write_paths.py."""

from __future__ import annotations

import pytest

from cards.screen import content_finding, content_screen
from cards.screen.lexicon import CHINESE, ENGLISH
from cards.screen.never_store import is_conversation_log, never_store_rule, policy_split
from cards.screen.scripts import both_scripts, simplified, traditional
from cards.screen.sensitive import sensitive_match
from cards.errors import Excluded, NeedsConsent
from tests.screen_inputs import EXCLUDED, HELD, PASSED

# Every category is represented in both languages, so none is English-only by accident.
def test_every_category_has_english_and_chinese_entries():
    assert set(ENGLISH) == set(CHINESE)
    assert all(ENGLISH[category] and CHINESE[category] for category in ENGLISH)


@pytest.mark.parametrize("category", sorted(CHINESE))
def test_each_chinese_entry_matches_in_traditional_and_in_simplified(category):
    wrong = []
    for entry in CHINESE[category]:
        for written in dict.fromkeys([traditional(entry), simplified(entry)]):
            found = sensitive_match(f"她說{written}。")
            if found is None or found[0] != category:
                wrong.append((entry, written, found))
    assert wrong == []


def test_the_two_scripts_are_really_different_for_most_entries():
    # The check above would prove nothing if the list held Simplified words that OpenCC leaves alone.
    entries = [entry for entries in CHINESE.values() for entry in entries]
    converted = [entry for entry in entries if simplified(entry) != traditional(entry)]
    assert len(converted) > len(entries) // 2


def test_a_negative_lookaround_refuses_both_scripts():
    # 累 (tired) but not 累積 / 累积 (to accumulate): a class holding both forms, not one alternative per script.
    assert both_scripts("累(?![積計])") == "累(?![積积計计])"
    assert never_store_rule("今天好累") == never_store_rule("今天好累") == "transient_feeling"
    assert never_store_rule("我累積了很多點數") is None and never_store_rule("我积累了很多积分") is None


@pytest.mark.parametrize(("text", "code", "named"), HELD)
def test_held_inputs_are_named_by_their_rule_or_category(text, code, named):
    found = content_finding({"value": text})
    assert found is not None
    assert (found.rule if code == EXCLUDED else found.category) == named


@pytest.mark.parametrize("text", PASSED)
def test_ordinary_memories_pass(text):
    assert content_finding({"value": text}) is None


@pytest.mark.parametrize(("text", "category"), [
    ("I love Christmas markets", None),                      # a plain preference
    ("My doctor's appointment is Tuesday", None),            # a plain event
    ("Works at the Catholic University of Leuven", None),    # an employer named by a faith says nothing of the person
    ("A devout Catholic", "religion"),
    ("Catholic", "religion"),
    ("Her star sign is Cancer", None),
    ("Her aunt has breast cancer", "health"),
    ("Teaching aids", None),
    ("Living with AIDS", "health"),                          # the abbreviation is matched as written
    ("Christian Bale films", None),
    ("A practising Christian", "religion"),
    ("他教會我游泳", None),                                   # 教會: taught; only 去教會 / 上教會 is church
    ("她每週日去教會", "religion"),
    ("下禮拜二開會", None),                                   # 禮拜: a week; 做禮拜 is worship
    ("他們週日做禮拜", "religion"),
    ("我的男同學", None),
    ("他是男同志", "sexuality"),
])
def test_words_are_matched_as_words_and_institutions_are_not_people(text, category):
    found = sensitive_match(text)
    assert (found[0] if found else None) == category


def test_a_conversation_log_needs_speaker_turns_not_just_colons():
    assert is_conversation_log("User: hi\nAssistant: hello")
    assert is_conversation_log("Dana: coming?\nSam: yes\nDana: good")
    assert is_conversation_log("我：明天幾點？\n你：八點。")
    assert not is_conversation_log("Step 1: unplug\nStep 2: wait\nStep 3: plug in")
    assert not is_conversation_log("Address: 1 Main St\nPhone: 555-0101\nEmail: a@b.example")
    assert not is_conversation_log("Ratio 3:2, meeting at 10:30")


def test_ingest_keeps_the_clauses_that_pass():
    split = policy_split("I'm tired today, but my email is dana@example.com")
    assert [rule for _, rule in split] == ["transient_feeling", None]
    assert split[1][0] == "my email is dana@example.com"
    assert policy_split("User: hi\nAssistant: hello") == [("User: hi\nAssistant: hello", "raw_conversation_log")]


def test_consent_never_lets_never_stored_content_through():
    with pytest.raises(Excluded) as refused:
        content_screen(fields={"text": "I'm so tired today"}, consent=True)
    assert refused.value.extra == {"rule": "transient_feeling", "field": "text"}
    with pytest.raises(NeedsConsent) as held:
        content_screen(fields={"value": "hiking", "source.quote": "my HIV meds make me tired on hikes"},
                       consent=False)
    assert held.value.extra["category"] == "health" and held.value.extra["field"] == "source.quote"
    assert content_screen(fields={"value": "devout catholic"}, consent=True).category == "religion"
