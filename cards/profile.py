"""The profile (DESIGN §6 "Profile"): how to talk to a person. Which labels make
it, which tier each item has, and how an item reads as guidance — the one home
of those rules; the endpoint, the context block and the MCP tool all read it
through cards.selectors.profile.

Three groups:
- style: tone, brevity, workflow style and decision style (cards/migrations/0023);
  stated (a preference) or guessed (a hypothesis with a confidence);
- constraint: what an agent must keep to when it suggests anything — a diet,
  an allergy, what the person avoids;
- boundary: every card the person tagged `boundary`, whatever its label or kind.

A stated item is `recorded`, a guess `guessed` (the answer tiers, cards/answers/answer.py);
a guess always reads as a guess, with its confidence, and never as what the
person said."""

from __future__ import annotations

import datetime as dt

from core.dates import date_shown

from .confidence import level_of
from .models import Tag

STYLE_LABELS = ("tone", "brevity", "workflow_style", "decision_style")
# Registered labels whose value limits what may be offered to the person. A health
# condition is left out: it says nothing about how to talk to them, and an agent
# that needs it asks for it by name.
CONSTRAINT_LABELS = ("diet", "allergy", "avoids")
GROUPS = ("style", "constraint", "boundary")
TIERS = ("recorded", "guessed")  # of the answer tiers, the two a profile item can have


def profile_group(*, label: str, tag: str) -> str | None:
    """Which group a current card about the person belongs to, or None when it is not part of the profile."""
    if tag == Tag.BOUNDARY:
        return "boundary"
    if label in STYLE_LABELS:
        return "style"
    if label in CONSTRAINT_LABELS:
        return "constraint"
    return None


def profile_tier(tag: str) -> str:
    return "guessed" if tag == Tag.HYPOTHESIS else "recorded"


def _words(label: str) -> str:
    return label.replace("_", " ")


def profile_guidance(*, group: str, label: str, value: str, tag: str, confidence: float | None,
                     stated: dt.datetime, zone) -> str:
    """One line of guidance for an agent. Stated: "Prefers short answers (brevity; stated
    Nov 3, 2026)", the day as the person reads it, in `zone`. Guessed: "May prefer quick
    decisions when tired (decision style) — a guess, medium confidence; never state it as
    fact". The two never read alike: only a guess says "a guess"."""
    if tag == Tag.HYPOTHESIS:
        guess = f"a guess, {level_of(confidence)} confidence"
        if group == "style":
            return f"May prefer {value} ({_words(label)}) — {guess}; never state it as fact"
        return f"{_words(label).capitalize()}: perhaps {value} — {guess}; ask before relying on it"
    day = f"stated {date_shown(stated, zone=zone)}"
    if group == "style":
        return f"Prefers {value} ({_words(label)}; {day})"
    if group == "constraint":
        return f"{_words(label).capitalize()}: {value} — keep to it ({day})"
    return f"Boundary: {value} — always honour it ({day})"
