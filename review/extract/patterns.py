"""The deterministic extractor: named regex rules over the user's own messages,
English and Chinese. Each clause first passes the never-store policy (cards/screen); then the first
rule that matches it (english.RULES, then chinese.RULES) proposes its cards.

"remember that …" / 記住… marks the proposals explicit; what follows is mined by
the other rules, and when none matches it is kept as a `note`.

Boundaries ("please don't mention …", "keep … private", 不要跟別人提…) are
knowledge cards under `note` with tag `boundary`, subject me: the registry has
no boundary label, a boundary is not an attribute with a current value (so not
a state), and a note is "something to keep in mind" — what a boundary is."""

from __future__ import annotations

import re

from cards.screen.never_store import policy_split

from . import chinese, english
from .base import Dropped, ExtractContext, Extraction, Message, Proposal
from .rules import Draft, Rule, clean

RULES: list[Rule] = [*english.RULES, *chinese.RULES]
REMEMBER = [("remember_that", english.REMEMBER), ("zh_remember", chinese.REMEMBER)]
# "Remember, I live in Oslo" / "記住，我不吃牛肉": the clause splitter leaves the
# marker on its own; it makes the message's next clause explicit.
MARKER_ONLY = re.compile(r"^(?:please\s+)?(?:remember|keep\s+in\s+mind|don['’]t\s+forget)(?:\s+that)?[\s,:：，]*$"
                         r"|^(?:請|请)?(?:記住|记住)[\s,:：，]*$", re.IGNORECASE)


def rule_names() -> list[str]:
    return [name for name, _ in REMEMBER] + [rule.name for rule in RULES]


def mine(clause: str) -> tuple[str, list[Draft]] | None:
    """The first rule that proposes something for this clause, with its drafts."""
    for rule in RULES:
        m = rule.regex.search(clause)
        if m:
            drafts = rule.build(m)
            if drafts:
                return rule.name, drafts
    return None


def mine_explicit(clause: str) -> tuple[str, list[Draft], bool] | None:
    for name, pattern in REMEMBER:
        if m := pattern.match(clause):
            inner = mine(m["rest"])
            if inner:
                return inner[0], inner[1], True
            said = clean(m["rest"])
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
                found = mine_explicit(clause)
                if found is None and marked:  # "記住，我不吃牛肉": what follows the marker is kept as a note
                    said = clean(clause)
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
