"""Who let a card in: the last word of its provenance. A card a model proposed
became a fact when a person approved it in the review queue (DESIGN §4 rule 6);
the queue keeps that decision, and the store never imports the queue. So the
queue registers an *approval reader* here from its AppConfig.ready, as it
registers its forget participant (cards.services.forget), and the card pages
ask `approvals_of` for the cards they already show."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Approval:
    """A person's approval that made, or reinforced, a card: their shown name and when."""

    by: str
    at: dt.datetime


ApprovalReader = Callable[..., Mapping[int, Approval]]
_READERS: list[ApprovalReader] = []


def approval_reader_register(reader: ApprovalReader) -> None:
    """`reader(card_ids=, scope_ids=)` answers {card id: its latest approval} for those it knows."""
    if reader not in _READERS:
        _READERS.append(reader)


def approvals_of(card_ids: Iterable[int], *, scope_ids: list[int]) -> dict[int, Approval]:
    """The latest approval of each of these cards, in `scope_ids` (already checked
    visible by the caller); a card written directly, or by an agent allowed to write, has none."""
    ids = sorted(set(card_ids))
    found: dict[int, Approval] = {}
    if not ids:
        return found
    for reader in _READERS:
        for card_id, approval in reader(card_ids=ids, scope_ids=scope_ids).items():
            if card_id not in found or approval.at > found[card_id].at:
                found[card_id] = approval
    return found
