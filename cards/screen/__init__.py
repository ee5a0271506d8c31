"""The screen every write path calls before anything is stored (DESIGN §4 rule
8): never-stored content is refused (`excluded`, naming the rule; a secret by
its label too, `wifi_password`), and sensitive content — by its label, or by
the words in its value, text, quote, object or perspectives — needs the
person's explicit consent (`needs_consent`, naming the category). Consent never lets never-stored content through.

The card write plan (services/write_plan.py) calls it for remember, bulk,
import, review approval and hypothesis confirmation alike; corrections and
perspectives call it for the text they write; ingest asks `content_finding`
and holds sensitive candidates for consent."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import Excluded, NeedsConsent
from .lexicon import HEALTH, POLITICS, RELIGION, ETHNICITY, SEXUALITY
from .never_store import (ONE_OFF_FRUSTRATION, RAW_CONVERSATION_LOG, SPECULATIVE_MOTIVE, TRANSIENT_FEELING,
                          never_store_rule)
from .secrets import SECRET, secret_label
from .sensitive import CATEGORIES, sensitive_match

__all__ = ["Finding", "content_finding", "content_screen", "CATEGORIES", "NEVER_STORED"]

NEVER_STORED = {
    TRANSIENT_FEELING: "a passing feeling (tired today, in a bad mood)",
    ONE_OFF_FRUSTRATION: "a one-off frustration (the bus was late again)",
    SPECULATIVE_MOTIVE: "a guess at why someone does something",
    RAW_CONVERSATION_LOG: "a conversation log with speaker turns: store the facts it holds as cards, "
                          "or send the conversation to ingest",
    SECRET: "a secret (a password, PIN, door or alarm code, card number or one-time code) — keep it in a "
            "password manager, not in memory",
}
CATEGORY_WORDS = {
    "health": "health", "religion": "religion or belief", "sexuality": "sexuality or gender identity",
    "ethnicity": "ethnicity", "politics": "political views", "trade_union": "trade-union membership",
    "criminal_record": "a criminal record", "immigration_status": "immigration status",
}
# The registry's sensitive labels, by category; a label marked sensitive later is its own category.
LABEL_CATEGORY = {"weight": HEALTH, "allergy": HEALTH, "health_condition": HEALTH, "religion": RELIGION,
                  "sexual_orientation": SEXUALITY, "ethnicity": ETHNICITY, "political_view": POLITICS}


@dataclass(frozen=True)
class Finding:
    """Why a text is held: a never-store `rule`, or a sensitive `category` (with the words matched)."""

    field: str
    rule: str | None = None
    category: str | None = None
    words: str = ""


def content_finding(fields: dict[str, str]) -> Finding | None:
    """The first never-stored field, else the first sensitive one, else None."""
    sensitive = None
    seen = set()
    for name, text in fields.items():
        if not text or text in seen:  # a quote is often the text again
            continue
        seen.add(text)
        if rule := never_store_rule(text):
            return Finding(name, rule=rule)
        if sensitive is None and (hit := sensitive_match(text)):
            sensitive = Finding(name, category=hit[0], words=hit[1])
    return sensitive


def content_screen(*, fields: dict[str, str], consent: bool, label=None) -> Finding | None:
    """Refuse never-stored content; without consent, refuse sensitive content or a
    sensitive label. Returns the sensitive finding that consent let through, if any."""
    found = content_finding(fields)
    if found is not None and found.rule:
        raise Excluded(f"Never stored: {NEVER_STORED[found.rule]} (in `{found.field}`).",
                       rule=found.rule, field=found.field)
    if label is not None and secret_label(label.key):  # a `wifi_password` card's every value is one
        raise Excluded(f"Never stored: {NEVER_STORED[SECRET]} (the label {label.key!r} names one).",
                       rule=SECRET, field="label", label=label.key)
    if consent:
        return found
    if label is not None and label.sensitive:
        category = LABEL_CATEGORY.get(label.key, label.key)
        raise NeedsConsent(
            f"{label.key!r} is sensitive ({label.description}); store it only with the person's explicit consent "
            "(consent: true).", rule="sensitive_attribute", category=category, field="label", label=label.key)
    if found is not None:
        raise NeedsConsent(
            f"`{found.field}` mentions {CATEGORY_WORDS[found.category]} ({found.words!r}): a sensitive attribute, "
            "stored only with the person's explicit consent (consent: true).",
            rule="sensitive_attribute", category=found.category, field=found.field)
    return None
