"""What the card store tells the apps above it; it never imports them (README, "How apps tell each other")."""

from django.dispatch import Signal

# Something is being forgotten (`forgetting=`, a cards.services.forget.Forgetting), before the cards go, so
# links to them still hold. Whatever keeps a copy of a card's words (the review queue: candidates, decision
# reasons) removes it in the forget's transaction and answers its counts ({kind: n}) for the receipt.
forgetting = Signal()

# A propose-only token's cards (`principal=`, `items=` [(scope, draft)], `bulk=`): the store writes none of them.
# The one receiver (the review queue) makes them wait as candidates, all or nothing, and answers the API's
# answer: one {"outcome": "proposed", "candidate": {…}} per card. With none, the endpoints take no proposals.
cards_proposed = Signal()

# The hypothesis a context block may put to `user=` next, in `scope_ids=`, and how many wait to be (that one
# included): the one receiver answers (card id or None, count). Probing is the review queue's (it knows who was
# probed and when); with no receiver, no probe is offered.
probe_asked = Signal()

# Who let these cards in (`card_ids=`, of `scope_ids=` already checked visible): a receiver answers
# {card id: cards.provenance.Approval} for the cards it knows (the review queue: the person who approved it).
approvals_asked = Signal()
