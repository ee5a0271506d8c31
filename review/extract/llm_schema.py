"""The JSON a language model must answer with, and a hand-written validator for it.

Validation errors are sentences the model can act on: they are sent back with
the retry request. A date hint that cannot be read is not an error: the item is
kept, marked `hint_unusable`, and ingest dates it at the message's timestamp
(DESIGN §5).
"""

from __future__ import annotations

import datetime as dt
import json

from cards.confidence import confidence_value
from cards.screen.never_store import ONE_OFF_FRUSTRATION, SPECULATIVE_MOTIVE, TRANSIENT_FEELING
from cards.time.when import EARLIEST_YEAR, LATEST_YEAR, anchor_zone
from core.text import InvalidText, text_tree_check

from .base import Dropped, Extraction, Message, Proposal

KINDS = ("state", "event", "knowledge")
TAGS = ("fact", "preference", "goal", "boundary", "hypothesis")
DROP_RULES = (TRANSIENT_FEELING, ONE_OFF_FRUSTRATION, SPECULATIVE_MOTIVE)
REQUIRED = {"message_id": str, "quote": str, "kind": str, "label": str, "subject": str, "value": str, "tag": str}

SCHEMA = f"""{{
  "items": [
    {{
      "message_id": "id of the user message it comes from",
      "quote": "the exact words from that message, copied character for character",
      "kind": "one of {' | '.join(KINDS)}",
      "label": "a known label key",
      "subject": "me, or the name of the person or thing it is about",
      "value": "the value as text ('' when object is given)",
      "object": "an entity name for relations (partner, manager, child, …), else null",
      "tag": "one of {' | '.join(TAGS)}",
      "occurred_at_hint": "events: absolute ISO 8601 datetime with offset, e.g. 2026-05-02T00:00:00+08:00; else null",
      "confidence": "a hypothesis: high | medium | low (or a number 0..1); else null",
      "text": "one short sentence describing the card"
    }}
  ],
  "dropped": [{{"message_id": "…", "rule": "one of {' | '.join(DROP_RULES)}"}}]
}}"""


def _hint(value: str, tz: dt.tzinfo) -> dt.datetime | None:
    """An aware datetime, or None when the hint is unusable (not ISO, out of range)."""
    try:
        moment = dt.datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    if not EARLIEST_YEAR <= moment.year <= LATEST_YEAR:
        return None
    return moment.replace(tzinfo=tz) if moment.tzinfo is None else moment


def _item(raw: object, where: str, users: dict[str, Message], tz: dt.tzinfo, errors: list[str]) -> Proposal | None:
    if not isinstance(raw, dict):
        errors.append(f"{where} must be an object")
        return None
    problems = [f"{where}.{key} is required and must be a string" for key, kind in REQUIRED.items()
                if not isinstance(raw.get(key), kind)]
    for key in ("object", "occurred_at_hint"):
        if raw.get(key) is not None and not isinstance(raw[key], str):
            problems.append(f"{where}.{key} must be a string or null")
    if "text" in raw and not isinstance(raw["text"], str):
        problems.append(f"{where}.text must be a string")
    try:
        confidence = confidence_value(raw.get("confidence"))
    except ValueError as refused:
        confidence = None
        problems.append(f"{where}.confidence {refused}, or null")
    impact = raw.get("impact", 2)
    if isinstance(impact, bool) or impact not in (1, 2, 3):
        problems.append(f"{where}.impact must be 1, 2 or 3")
    if problems:
        errors.extend(problems)
        return None
    message = users.get(raw["message_id"])
    if message is None:
        problems.append(f"{where}.message_id {raw['message_id']!r} is not the id of a user message")
    elif not raw["quote"].strip() or raw["quote"] not in message.text:
        problems.append(f"{where}.quote must be copied exactly from message {raw['message_id']!r}")
    if raw["kind"] not in KINDS:
        problems.append(f"{where}.kind must be one of {', '.join(KINDS)}")
    if raw["tag"] not in TAGS:
        problems.append(f"{where}.tag must be one of {', '.join(TAGS)}")
    if not raw["label"].strip() or not raw["subject"].strip():
        problems.append(f"{where}.label and {where}.subject must not be empty")
    if raw["kind"] == "state" and not raw["value"].strip() and not (raw.get("object") or "").strip():
        problems.append(f"{where} is a state: give a value or an object")
    if problems:
        errors.extend(problems)
        return None
    # Blank is "no time said", as null is; any other text that is no usable date is a hint we cannot read.
    hint_text = (raw.get("occurred_at_hint") or "").strip()
    # A hint without an offset is a wall time in the day of the message it came from.
    hint = _hint(hint_text, anchor_zone(message.at, tz)) if hint_text else None
    # A model's extraction is never explicit: only a person's "remember that" is (base.py).
    return Proposal(kind=raw["kind"], label=raw["label"].strip(), subject=raw["subject"].strip(), quote=raw["quote"],
                    message_id=raw["message_id"], rule="llm", value=raw["value"].strip(),
                    object=(raw.get("object") or "").strip() or None, text=raw.get("text", "").strip(),
                    tag=raw["tag"], occurred_at_hint=hint, hint_unusable=bool(hint_text) and hint is None,
                    confidence=confidence, impact=impact, explicit=False)


def _dropped(raw: object, where: str, users: dict[str, Message], errors: list[str]) -> Dropped | None:
    if not isinstance(raw, dict) or raw.get("message_id") not in users or raw.get("rule") not in DROP_RULES:
        errors.append(f"{where} must be {{\"message_id\": a user message id, \"rule\": one of "
                      f"{', '.join(DROP_RULES)}}}")
        return None
    return Dropped(raw["message_id"], raw["rule"])


def validate(content: str, messages: list[Message], tz: dt.tzinfo) -> tuple[Extraction, list[str]]:
    """The extraction the answer describes, and every problem found (empty: valid)."""
    try:
        answer = json.loads(content)
        text_tree_check(answer)
    except (TypeError, ValueError) as error:
        return Extraction(), [f"the answer is not JSON ({error})"]
    except InvalidText as error:
        return Extraction(), [f"the answer holds text that is not Unicode at {', '.join(error.extra['fields'])}"]
    if not isinstance(answer, dict) or not isinstance(answer.get("items"), list):
        return Extraction(), ['the answer must be a JSON object with an "items" list']
    dropped = answer.get("dropped", [])
    if not isinstance(dropped, list):
        return Extraction(), ['"dropped" must be a list']
    users = {m.id: m for m in messages if m.role == "user"}
    errors: list[str] = []
    proposals = [_item(raw, f"items[{i}]", users, tz, errors) for i, raw in enumerate(answer["items"])]
    drops = [_dropped(raw, f"dropped[{i}]", users, errors) for i, raw in enumerate(dropped)]
    return Extraction([p for p in proposals if p], [d for d in drops if d]), errors
