"""The answer to a propose-only token's remember: the card endpoints ask for it
by cards.signals.cards_proposed, received in review/receivers.py (cards never
imports the queue). The candidates are made by
review/services/proposals.py, the one home of where such a write goes."""

from __future__ import annotations

from ..services.proposals import candidates_propose
from .serializers import ReviewCandidateOut


def proposals_answer(*, principal, items: list, bulk: bool) -> list[dict]:
    """[(scope, draft)] → one {"outcome": "proposed", "candidate": {…}} per card, all or nothing."""
    candidates = candidates_propose(author=principal.user, token=principal.token, items=items, indexed=bulk)
    return [{"outcome": "proposed", "candidate": ReviewCandidateOut(candidate).data} for candidate in candidates]
