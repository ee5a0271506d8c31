"""Every write on cards, entities and labels."""

from .batch import card_remember_batch, card_remember_many
from .corrections import (card_describe, card_forget, card_retract, card_verify, event_update_refused,
                          knowledge_merge, knowledge_rename)
from .entities import alias_add, entity_create, entity_for_write, entity_of_user
from .remember import card_remember, perspectives_set
from .write_plan import Outcome, WriteOutcome, value_key

__all__ = [
    "Outcome", "WriteOutcome", "alias_add", "card_describe", "card_forget", "card_remember",
    "card_remember_batch", "card_remember_many", "card_retract", "card_verify", "entity_create",
    "entity_for_write", "entity_of_user", "event_update_refused", "knowledge_merge", "knowledge_rename",
    "perspectives_set", "value_key",
]
