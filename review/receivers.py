"""What the review queue does when the card store tells it something (cards.signals); connected in
ReviewConfig.ready."""

from __future__ import annotations

from collections.abc import Mapping

from cards.provenance import Approval
from cards.services.forget import Forgetting

from .selectors import card_approvals
from .services.forget import review_forget


def review_forget_copies(sender, *, forgetting: Forgetting, **kwargs) -> Mapping[str, int]:
    """Whatever the store forgets, the queue forgets its copies of too; its counts join the receipt."""
    return review_forget(forgetting=forgetting)


def card_approvals_answer(sender, *, card_ids: list[int], scope_ids: list[int], **kwargs) -> dict[int, Approval]:
    """A card's provenance ends with who approved it here."""
    return card_approvals(card_ids=card_ids, scope_ids=scope_ids)
