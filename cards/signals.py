"""What the card store tells the apps above it; it never imports them (README, "How apps tell each other")."""

from django.dispatch import Signal

# Something is being forgotten (`forgetting=`, a cards.services.forget.Forgetting), before the cards go, so
# links to them still hold. Whatever keeps a copy of a card's words (the review queue: candidates, decision
# reasons) removes it in the forget's transaction and answers its counts ({kind: n}) for the receipt.
forgetting = Signal()

# Who let these cards in (`card_ids=`, of `scope_ids=` already checked visible): a receiver answers
# {card id: cards.provenance.Approval} for the cards it knows (the review queue: the person who approved it).
approvals_asked = Signal()
