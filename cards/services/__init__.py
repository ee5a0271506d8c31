"""Every write on cards, entities and labels."""

from .batch import card_remember_batch, card_remember_many
from .corrections import (card_describe, card_hold, card_retract, card_verify, event_correct, event_update_refused,
                          knowledge_merge, knowledge_rename)
from .entities import alias_add, entity_create, entity_for_write
from .forget import Receipt, card_forget, cards_forget, subject_forget
from .hypotheses import hypothesis_confidence_lower, hypothesis_discard, hypothesis_state
from .perspectives import perspectives_set
from .remember import card_remember
from .write_plan import Outcome, WriteOutcome, value_key

__all__ = [
    "Outcome", "Receipt", "WriteOutcome", "alias_add", "card_describe", "card_forget", "card_hold", "card_remember",
    "card_remember_batch", "card_remember_many", "card_retract", "card_verify", "cards_forget", "entity_create",
    "entity_for_write", "event_correct", "event_update_refused",
    "hypothesis_confidence_lower", "hypothesis_discard", "hypothesis_state", "knowledge_merge", "knowledge_rename",
    "perspectives_set", "subject_forget", "value_key",
]
