"""What the review queue does when the card store tells it something (cards.signals); connected in
ReviewConfig.ready."""

from __future__ import annotations

from collections.abc import Mapping

from cards.provenance import Approval
from cards.services.forget import Forgetting

from .api.proposals import proposals_answer
from .selectors import card_approvals
from .services.forget import review_forget
from .services.hypotheses import probe_pending


def review_forget_copies(sender, *, forgetting: Forgetting, **kwargs) -> Mapping[str, int]:
    """Whatever the store forgets, the queue forgets its copies of too; its counts join the receipt."""
    return review_forget(forgetting=forgetting)


def proposals_answer_on_propose(sender, *, principal, items: list, bulk: bool, **kwargs) -> list[dict]:
    """A propose-only token's cards wait in its person's review queue; the card endpoints answer with them."""
    return proposals_answer(principal=principal, items=items, bulk=bulk)


def probe_pending_answer(sender, *, user, scope_ids: list[int], **kwargs) -> tuple[int | None, int]:
    """The context block's probe: the hypothesis the queue would put to the person next, and how many wait."""
    return probe_pending(user=user, scope_ids=scope_ids)


def card_approvals_answer(sender, *, card_ids: list[int], scope_ids: list[int], **kwargs) -> dict[int, Approval]:
    """A card's provenance ends with who approved it here."""
    return card_approvals(card_ids=card_ids, scope_ids=scope_ids)
