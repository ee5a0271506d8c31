"""The deterministic extractor: named regex rules over the user's own messages,
English and Chinese. A message is cut into sentences (pysbd: "Dr. Okafor" is not two) and each
sentence into clauses by the never-store policy's splitter; each clause first passes the policy
(cards/screen), then must state something as so (a_fact: no question, wish, hypothetical, quote of
someone else); then the first rule that matches it (english.RULES, then chinese.RULES) proposes its
cards, each value standing alone (keep).

"remember that …" / 記住… marks the proposals explicit; what follows is mined by
the other rules, and when none matches it is kept as a `note`.

Boundaries ("please don't mention …", "keep … private", 不要跟別人提…) are
knowledge cards under `note` with tag `boundary`, subject me: the registry has
no boundary label, a boundary is not an attribute with a current value (so not
a state), and a note is "something to keep in mind" — what a boundary is."""

from __future__ import annotations

import re

from cards.text import chinese_in
from cards.screen.never_store import policy_split

from . import chinese, english
from .base import Dropped, ExtractContext, Extraction, Message, Proposal
from .rules import Draft, Rule, said_as, standalone

RULES: list[Rule] = [*english.RULES, *chinese.RULES]
REMEMBER = [("remember_that", english.REMEMBER), ("zh_remember", chinese.REMEMBER)]
# "Remember, I live in Oslo" / "記住，我不吃牛肉": the clause splitter leaves the
# marker on its own; it makes the message's next clause explicit.
MARKER_ONLY = re.compile(r"^(?:please\s+)?(?:remember|keep\s+in\s+mind|don['’]t\s+forget)(?:\s+that)?[\s,:：，]*$"
                         r"|^(?:請|请)?(?:記住|记住)[\s,:：，]*$", re.IGNORECASE)


# Not the speaker's fact: a question, a wish or a hypothetical, someone else's words, a negation of
# the whole clause ("I don't live in Leeds anymore"), or a joke marked as one.
_NOT_A_FACT = re.compile(
    r"^(?:(?:do|does|did|is|are|was|were|can|could|would|should|will|shall|have|has|what|where|when|why|how|who|"
    r"which|any|anyone|anybody)\b(?!\s*[,:]|\s+to\s)"
    r"|.*\b(?:if|unless|would|wish|hope|maybe|might|supposedly|pretend|imagine|joking|kidding|jk|lol|not\s+really)\b"
    r"|.*\b(?:says?|said|tells?|told\s+(?!me\s+(?:she|he|they)\b)|asks?|asked|keeps?\s+saying|always\s+says)\s*[:'\"‘“]"
    r"|.*['’](?:d|ll)\s+(?:love|like|hate|move|buy|be)\b"
    r"|.*\b(?:used\s+to|no\s+longer|anymore|any\s+more|never\s+(?:been|had|lived|worked|bought))\b)",
    re.IGNORECASE)
_NOT_A_FACT_ZH = re.compile(r"如果|要是|假如|萬一|万一|是不是|嗎|吗|呢？|開玩笑|开玩笑|說不定|说不定|也許|也许|想要|打算|希望|"
                            r"(?:說|说|講|讲)(?:過|过)?[:：「“]|以前|曾經|曾经|不再|已經不|已经不")


def a_fact(clause: str) -> bool:
    """Whether the clause states something as so (not a question, wish, hypothetical, quote or joke)."""
    if chinese_in(clause):
        return not _NOT_A_FACT_ZH.search(clause)
    return not _NOT_A_FACT.match(clause.strip())


def keep(draft: Draft) -> bool:
    """A state or event keeps only a value that stands alone; a knowledge card keeps its sentence."""
    if draft.kind == "knowledge":
        return bool(draft.value)
    return all(standalone(v) for v in (draft.value, draft.object) if v) and bool(draft.value or draft.object)


def rule_names() -> list[str]:
    return [name for name, _ in REMEMBER] + [rule.name for rule in RULES]


def mine(clause: str) -> tuple[str, list[Draft]] | None:
    """The first rule that proposes something for this clause, with its drafts."""
    for rule in RULES:
        m = rule.regex.search(clause)
        if m:
            drafts = [d for d in rule.build(m) if keep(d)]
            if drafts:
                return rule.name, drafts
    return None


def mine_explicit(clause: str) -> tuple[str, list[Draft], bool] | None:
    for name, pattern in REMEMBER:
        if m := pattern.match(clause):
            inner = mine(m["rest"])
            if inner:
                return inner[0], inner[1], True
            said = said_as(m["rest"])
            return name, [Draft(kind="knowledge", label="note", value=said, text=said)], True
    inner = mine(clause)
    return (inner[0], inner[1], False) if inner else None


class PatternExtractor:
    name = "patterns"

    def extract(self, messages: list[Message], context: ExtractContext) -> Extraction:
        extraction = Extraction()
        for message in messages:
            if message.role != "user":  # what the assistant said is never the user's memory
                continue
            marked = False
            for clause, refused_by in policy_split(message.text):
                if MARKER_ONLY.match(clause.strip()):
                    marked = True
                    continue
                if refused_by:
                    extraction.dropped.append(Dropped(message.id, refused_by))
                    marked = False
                    continue
                found = mine_explicit(clause) if a_fact(clause) else None
                if found is None and marked:  # "記住，我不吃牛肉": what follows the marker is kept as a note
                    said = said_as(clause)
                    found = ("zh_remember" if re.match(r"^\W*[\u4e00-\u9fff]", said) else "remember_that",
                             [Draft(kind="knowledge", label="note", value=said, text=said)], True)
                if found is None:
                    continue
                rule_name, drafts, explicit = found
                explicit, marked = explicit or marked, False
                extraction.proposals.extend(
                    Proposal(kind=d.kind, label=d.label, subject=d.subject, quote=clause, message_id=message.id,
                             rule=rule_name, value=d.value, object=d.object, text=d.text, tag=d.tag, when=d.when,
                             explicit=explicit)
                    for d in drafts)
        return extraction
