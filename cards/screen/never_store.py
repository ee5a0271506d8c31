"""What is never stored (DESIGN §4 rule 8), decided per clause, on every write
path: transient feelings ("I'm tired today", 今天好累), one-off frustrations
("ugh, the bus was late again"), speculative motives ("maybe he's only nice
because he wants something", 他可能是想…), raw conversation logs (a pasted
transcript with speaker turns) and secrets ("the wifi password is hunter2",
secrets.py). Each refusal names its rule.

Ingest screens message by message and keeps the clauses that pass, so "I'm
tired today, but my email is …" still keeps the email; a card's value, text or
quote is refused whole when any of its clauses is never-stored content.
Chinese patterns are written in Traditional characters and matched in both
scripts (scripts.both_scripts)."""

from __future__ import annotations

import re

from .scripts import both_scripts
from .secrets import SECRET, secret_in

TRANSIENT_FEELING = "transient_feeling"
ONE_OFF_FRUSTRATION = "one_off_frustration"
SPECULATIVE_MOTIVE = "speculative_motive"
RAW_CONVERSATION_LOG = "raw_conversation_log"

# Sentence ends; a full stop counts only before a space, so emails and "3.5" survive.
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|[。！？；;\n]+")
# A clause starts again at "…, but my …" / "… and I …", or at "，但我…" in Chinese.
_CLAUSE_BREAK = re.compile(
    # (?<=\S): a break starts where a word ends, so a long run of spaces is not rescanned from each of its places.
    r"(?<=\S),?\s+(?:and|but|so|though)\s+(?=(?:I|I['’]m|I['’]ve|I['’]d|my|we|My|We)\b)|,\s+(?=(?:I|I['’]m|my)\b)"
    r"|[，,]\s*" + both_scripts("(?:但是|可是|而且|不過|但|所以)") + r"?\s*(?=我)")
_TERMINATORS = ".!?…。！？，,;；:： \t"
_INNER_STOP = re.compile(r"\.(?=\s+\S)")
_HIDDEN_STOP = "\u2024"
_SEGMENTER = None

# English patterns are matched against the lowered text (no IGNORECASE: the
# engine then skips an alternative on its first character); Chinese ones only
# when the text is not ASCII.
_I_AM = r"\bi(?:['’]m|\s+am)\s+"
_DEGREE = r"(?:so|really|very|a\s+bit|a\s+little|kind\s+of|kinda|pretty|super|totally|quite|just|too|extremely)\s+"
_FEELINGS = (r"(?:tired|exhausted|sleepy|worn\s+out|drained|sad|down|blue|stressed(?:\s+out)?|anxious|nervous|"
             r"bored|grumpy|cranky|upset|moody|overwhelmed|lonely|sick|unwell|hungover|under\s+the\s+weather|"
             r"depressed|miserable|frustrated)")

_SPECULATIVE = (
    [  # A hedge, someone else, and a reason for what they do.
        r"\b(?:maybe|perhaps|probably|possibly|i\s+bet|i\s+suspect|i\s+guess|i\s+think|i\s+wonder\s+if|"
        r"must\s+be|might\s+be|could\s+be|seems\s+like)\b"
        # Looking ahead a sentence's length, not to the end: a long text is not rescanned from every hedge.
        r"(?=.{0,200}?\b(?:he|she|they|him|her|them|his|their)\b)"
        r"(?=.{0,200}?\b(?:because|wants?|wanted|trying\s+to|tries\s+to|so\s+that|to\s+get|in\s+order\s+to|only|"
        r"secretly|agenda|motive|jealous|after\s+(?:my|our|your)\b))",
        r"\b(?:he|she|they)(?:['’]s|\s+is|\s+are|\s+was)?\s+(?:only|just)\s+[\w\s]{0,30}\bbecause\b",
    ],
    ["(?:可能|大概|也許|說不定|八成|恐怕|應該是|搞不好)是?(?:想|要|為了|故意|只是|別有|有目的|另有)", "別有用心|居心不良"],
)

_FRUSTRATION = (
    [
        # An exclamation that opens a clause ("ugh, …", "…; argh").
        r"(?:^|(?<=[.!?…;,:\n]))\s*(?:ugh+|argh+|ffs|damn(?:\s*it)?|dammit|grr+|sigh)\b",
        r"driving\s+me\s+(?:crazy|nuts|mad|insane|up\s+the\s+wall)",
        r"\b(?:was|is|were|are)\s+late\s+again\b",
        r"\b(?:so|really|incredibly|super)\s+annoying\b",
        r"\b(?:annoyed|pissed(?:\s+off)?|fed\s+up|sick\s+of|tired\s+of)\b",
        r"\bwhat\s+a\s+(?:nightmare|pain|joke|mess)\b",
    ],
    ["氣死|煩死|真煩|好煩|又遲到|又壞了|搞什麼|受夠了|可惡|抓狂"],
)

_TRANSIENT = (
    [
        rf"{_I_AM}(?:feeling\s+)?(?:{_DEGREE})*{_FEELINGS}\b",
        rf"\b(?:feeling|feel|felt)\s+(?:{_DEGREE})*{_FEELINGS}\b",
        rf"{_I_AM}in\s+a\s+(?:bad|terrible|awful|foul|good|great)\s+mood\b",
        r"\b(?:rough|long|bad|terrible|awful|exhausting|hard)\s+day\b(?!['’]s)",
    ],
    # 累 but not 累積/累計 (to accumulate), 積累, 連累 or 累贅 (a burden); 焦慮症 is a diagnosis, not a mood.
    ["(?:好|很|有點|超|真|太|非常|特別)?(?:(?<![積連拖])累(?![積計贅])|疲倦|疲憊|好睏|難過|沮喪|焦慮(?!症)"
     "|心情不好|心情很差|不開心|鬱悶|想睡)"],
)

# Checked in this order: "maybe he is tired because…" is a guess at a motive, and
# "I'm tired of…" a frustration, before either is read as a feeling.
_ORDER = [(SPECULATIVE_MOTIVE, _SPECULATIVE), (ONE_OFF_FRUSTRATION, _FRUSTRATION), (TRANSIENT_FEELING, _TRANSIENT)]
_RULES_ENGLISH = [(rule, re.compile("|".join(english))) for rule, (english, _) in _ORDER]
_RULES_EVERY = [(rule, re.compile("|".join([*english, *(both_scripts(p) for p in chinese)])))
                for rule, (english, chinese) in _ORDER]

# A line that opens with a speaker: "User: …", "[10:32] Dana: …", "我：…". Known
# roles count on their own; any other name must speak twice, among two or more
# speakers, so "Step 1: … / Step 2: …" or "Address: … / Phone: …" is not a chat.
_ROLES = {"user", "assistant", "human", "ai", "bot", "system", "agent", "me", "you", "q", "a",
          "我", "你", "用戶", "用户", "助手", "助理", "客服"}
_TURN = re.compile(
    r"^[ \t]*(?:\[[^\]\n]{1,25}\][ \t]*|\(?\d{1,2}:\d{2}(?::\d{2})?\)?[ \t]*(?:[AaPp][Mm])?[ \t]*-?[ \t]*)?"
    r"(?P<speaker>[A-Za-z\u4e00-\u9fff][A-Za-z\u4e00-\u9fff .'’-]{0,23}?)[ \t]*[:：]",
    re.MULTILINE)
_INLINE_ROLE = re.compile(r"(?i:\b(?:user|assistant|human|ai)\s*:)|(?:用戶|用户|助手)\s*[:：]")


def is_conversation_log(text: str) -> bool:
    """Speaker turns: two known roles, or three turns among two speakers where one speaks again."""
    if text.count(":") + text.count("：") < 2:
        return False
    speakers = [m["speaker"].strip().lower() for m in _TURN.finditer(text)]
    roles = [s for s in speakers if s in _ROLES]
    if len(roles) >= 2 or len(_INLINE_ROLE.findall(text)) >= 2:
        return True
    distinct = set(speakers)
    return len(speakers) >= 3 and len(distinct) >= 2 and len(distinct) < len(speakers)


def policy_screen(sentence: str) -> str | None:
    """The rule that refuses this sentence (or clause), or None when it may be kept."""
    if secret_in(sentence):
        return SECRET
    folded = sentence.lower()
    for rule, pattern in _RULES_ENGLISH if sentence.isascii() else _RULES_EVERY:
        if pattern.search(folded):
            return rule
    return None


def sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) of each of the message's sentences, abbreviation-aware ("Dr. Okafor", "e.g.",
    "a.m.", "1.5"): the rule-based splitter pysbd, loaded once. Chinese sentence ends (。！？) are
    left to `clauses`; the blanks between sentences may be inside a span."""
    return [(span.start, span.end) for span in _segmenter().segment(text)]


def _segmenter():
    global _SEGMENTER
    if _SEGMENTER is None:
        import pysbd  # about a second to load: only once a message needs it

        _SEGMENTER = pysbd.Segmenter(language="en", clean=False, char_span=True)
    return _SEGMENTER


def clauses(text: str) -> list[str]:
    """The message's clauses, each an exact substring of `text` without its end punctuation: its
    sentences, each cut at "…, but my …", "，但我…", a semicolon, a line end or a Chinese full stop.
    The write path and every extractor screen these same clauses."""
    found = []
    for start, end in sentences(text):
        said = text[start:end]
        # A full stop inside a sentence ("Dr. Okafor") is no end: hidden by a character of the same length.
        hidden = _INNER_STOP.sub(_HIDDEN_STOP, said)
        at = 0
        for clause in _sentence_clauses(hidden):
            at = hidden.index(clause, at)
            found.append(said[at:at + len(clause)])
            at += len(clause)
    return found


def _sentence_clauses(sentence: str) -> list[str]:
    found = []
    for part in _SENTENCE_END.split(sentence):
        for clause in _CLAUSE_BREAK.split(part):
            clause = clause.strip().rstrip(_TERMINATORS).strip()
            if clause:
                found.append(clause)
    return found


def policy_split(text: str) -> list[tuple[str, str | None]]:
    """Each clause of `text` with the rule that refuses it (None: kept). A pasted
    conversation log is refused whole: its lines are not the speaker's own words."""
    if is_conversation_log(text):
        return [(text, RAW_CONVERSATION_LOG)]
    return [(clause, policy_screen(clause)) for clause in clauses(text)]


def never_store_rule(text: str) -> str | None:
    """The rule that refuses this stored text (a card's value, text or quote) as a
    whole: a conversation log, or any clause that is never stored."""
    if is_conversation_log(text):
        return RAW_CONVERSATION_LOG
    found = policy_screen(text)  # one pass over the whole; most texts end here
    if found is None or found == SECRET:  # a secret in the whole: a clause break may fall between word and value
        return found
    return next((rule for clause in clauses(text) if (rule := policy_screen(clause))), None)
