"""Who let a card in: the last word of its provenance. A card a model proposed
became a fact when a person approved it in the review queue (DESIGN §4 rule 6);
the queue keeps that decision, and the store never imports the queue. So the
store asks (cards.signals.approvals_asked), the queue answers from its
AppConfig.ready's receiver, and the card pages ask `approvals_of` for the cards
they already show."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass

from .signals import approvals_asked


@dataclass(frozen=True)
class Approval:
    """A person's approval that made, or reinforced, a card: their shown name and when."""

    by: str
    at: dt.datetime


def approvals_of(card_ids: Iterable[int], *, scope_ids: list[int]) -> dict[int, Approval]:
    """The latest approval of each of these cards, in `scope_ids` (already checked
    visible by the caller); a card written directly, or by an agent allowed to write, has none."""
    ids = sorted(set(card_ids))
    found: dict[int, Approval] = {}
    if not ids:
        return found
    for _receiver, approvals in approvals_asked.send(sender=Approval, card_ids=ids, scope_ids=scope_ids):
        for card_id, approval in approvals.items():
            if card_id not in found or approval.at > found[card_id].at:
                found[card_id] = approval
    return found
