"""The ingest policy: what is never kept, decided per clause before any extractor
mines a message (DESIGN §4 rule 8).

Refused: transient feelings ("I'm tired today", 今天好累), one-off frustrations
("ugh, the bus was late again"), speculative motives ("maybe he's only nice
because he wants something", 他可能是想…). Each refusal names its rule.

Sensitive attributes are *not* refused here: they become proposals under a
label the registry marks sensitive, and the caller asks for consent. The
policy works clause by clause so that "I'm tired today, but my email is …"
still keeps the email.
"""

from __future__ import annotations

import re

TRANSIENT_FEELING = "transient_feeling"
ONE_OFF_FRUSTRATION = "one_off_frustration"
SPECULATIVE_MOTIVE = "speculative_motive"

# Sentence ends; a full stop counts only before a space, so emails and "3.5" survive.
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|[。！？；;\n]+")
# A clause starts again at "…, but my …" / "… and I …", or at "，但我…" in Chinese.
_CLAUSE_BREAK = re.compile(
    r",?\s+(?:and|but|so|though)\s+(?=(?:I|I['’]m|I['’]ve|I['’]d|my|we|My|We)\b)|,\s+(?=(?:I|I['’]m|my)\b)"
    r"|[，,]\s*(?:但是|可是|而且|不過|不过|但|所以)?\s*(?=我)")
_TERMINATORS = ".!?…。！？，,;；:： \t"

_I_AM = r"\bI(?:['’]m|\s+am)\s+"
_DEGREE = r"(?:so|really|very|a\s+bit|a\s+little|kind\s+of|kinda|pretty|super|totally|quite|just|too|extremely)\s+"
_FEELINGS = (r"(?:tired|exhausted|sleepy|worn\s+out|drained|sad|down|blue|stressed(?:\s+out)?|anxious|nervous|"
             r"bored|grumpy|cranky|upset|moody|overwhelmed|lonely|sick|unwell|hungover|under\s+the\s+weather)")

_SPECULATIVE = re.compile("|".join([
    # A hedge, someone else, and a reason for what they do.
    r"(?i:\b(?:maybe|perhaps|probably|possibly|i\s+bet|i\s+suspect|i\s+guess|i\s+think|i\s+wonder\s+if|"
    r"must\s+be|might\s+be|could\s+be|seems\s+like)\b)"
    r"(?=.*(?i:\b(?:he|she|they|him|her|them|his|their)\b))"
    r"(?=.*(?i:\b(?:because|wants?|wanted|trying\s+to|tries\s+to|so\s+that|to\s+get|in\s+order\s+to|only|"
    r"secretly|agenda|motive|jealous|after\s+(?:my|our|your)\b)))",
    r"(?i:\b(?:he|she|they)(?:['’]s|\s+is|\s+are|\s+was)?\s+(?:only|just)\s+[\w\s]{0,30}\bbecause\b)",
    r"(?:可能|大概|也許|也许|說不定|说不定|八成|恐怕|應該是|应该是|搞不好)是?(?:想|要|為了|为了|故意|只是|別有|别有|有目的|另有)",
    r"別有用心|别有用心|居心不良",
]))

_FRUSTRATION = re.compile("|".join([
    r"(?i:^(?:ugh+|argh+|ffs|damn(?:\s*it)?|dammit|grr+|sigh)\b)",
    r"(?i:driving\s+me\s+(?:crazy|nuts|mad|insane|up\s+the\s+wall))",
    r"(?i:\b(?:was|is|were|are)\s+late\s+again\b)",
    r"(?i:\b(?:so|really|incredibly|super)\s+annoying\b)",
    r"(?i:\b(?:annoyed|pissed(?:\s+off)?|fed\s+up|sick\s+of|tired\s+of)\b)",
    r"(?i:\bwhat\s+a\s+(?:nightmare|pain|joke|mess)\b)",
    r"氣死|气死|煩死|烦死|真煩|真烦|好煩|好烦|又遲到|又迟到|又壞了|又坏了|搞什麼|搞什么|受夠了|受够了|可惡|可恶|抓狂",
]))

_TRANSIENT = re.compile("|".join([
    rf"(?i:{_I_AM}(?:feeling\s+)?(?:{_DEGREE})*{_FEELINGS}\b)",
    rf"(?i:\b(?:feeling|feel|felt)\s+(?:{_DEGREE})*{_FEELINGS}\b)",
    rf"(?i:{_I_AM}in\s+a\s+(?:bad|terrible|awful|foul|good|great)\s+mood\b)",
    r"(?i:\b(?:rough|long|bad|terrible|awful|exhausting|hard)\s+day\b)",
    # 累 but not 累積/累计 (to accumulate).
    r"(?:好|很|有點|有点|超|真|太|非常|特別|特别)?(?:累(?![積积計计])|疲倦|疲憊|疲惫|好睏|好困|難過|难过|沮喪|沮丧|焦慮|焦虑"
    r"|心情不好|心情很差|不開心|不开心|鬱悶|郁闷|想睡)",
]))

# Checked in this order: "maybe he is tired because…" is a guess at a motive, and
# "I'm tired of…" a frustration, before either is read as a feeling.
_RULES = [(SPECULATIVE_MOTIVE, _SPECULATIVE), (ONE_OFF_FRUSTRATION, _FRUSTRATION), (TRANSIENT_FEELING, _TRANSIENT)]


def policy_screen(sentence: str) -> str | None:
    """The rule that refuses this sentence (or clause), or None when it may be kept."""
    for rule, pattern in _RULES:
        if pattern.search(sentence):
            return rule
    return None


def clauses(text: str) -> list[str]:
    """The message's clauses, each an exact substring of `text` without its end punctuation."""
    found = []
    for sentence in _SENTENCE_END.split(text):
        for clause in _CLAUSE_BREAK.split(sentence):
            clause = clause.strip().rstrip(_TERMINATORS).strip()
            if clause:
                found.append(clause)
    return found


def policy_split(text: str) -> list[tuple[str, str | None]]:
    """Each clause of `text` with the rule that refuses it (None: kept)."""
    return [(clause, policy_screen(clause)) for clause in clauses(text)]
