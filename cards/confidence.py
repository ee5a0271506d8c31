"""How sure a hypothesis is: the seed's three words (high | medium | low) and the
numbers stored for them. Callers may send either; a card stores the number.

The hypothesis lifecycle (review.services.hypotheses) steps a guess down through
these same numbers, so a word an agent sends and a level the nightly job sets
always mean the same thing.
"""

from __future__ import annotations

import math

LEVELS = {"high": 0.9, "medium": 0.6, "low": 0.3}
WORDS = tuple(LEVELS)
PROBLEM = "must be " + ", ".join(f'"{word}"' for word in WORDS) + " or a number between 0 and 1"

# The accepted input as OpenAPI describes it (API packages attach it to their field).
CONFIDENCE_SCHEMA = {
    "oneOf": [{"type": "string", "enum": list(WORDS)}, {"type": "number", "minimum": 0, "maximum": 1}],
    "nullable": True,
}


def confidence_value(raw: object) -> float | None:
    """The number to store for what a caller sent: a word, a number in [0, 1]
    (or its text, as JSON clients and forms send it), or None. Anything else
    raises ValueError with a sentence the caller can act on."""
    if raw is None:
        return None
    if isinstance(raw, str):
        word = raw.strip().casefold()
        if word in LEVELS:
            return LEVELS[word]
        try:
            raw = float(word)
        except ValueError:
            raise ValueError(PROBLEM) from None
    if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not math.isfinite(raw) or not 0 <= raw <= 1:
        raise ValueError(PROBLEM)
    return float(raw)


def level_of(confidence: float | None) -> str:
    """The word for a stored number (no number: a guess of medium certainty)."""
    if confidence is None:
        return "medium"
    return "high" if confidence >= 0.75 else "medium" if confidence >= 0.45 else "low"
