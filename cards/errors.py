"""One exception per refusal of the card domain (STYLE 8); the API maps each to
a 4xx with its `code`."""

from core.errors import DomainError, InvalidInput

__all__ = ["InvalidCard", "UnknownLabel", "LabelKindMismatch", "NeedsConsent",
           "ImmutableEvent", "NotCurrent"]


class InvalidCard(InvalidInput):
    """Carries `fields`: {field name: [problems]}."""


class UnknownLabel(DomainError):
    code = "unknown_label"


class LabelKindMismatch(DomainError):
    code = "label_kind_mismatch"


class NeedsConsent(DomainError):
    code = "needs_consent"


class ImmutableEvent(DomainError):
    code = "immutable_event"
    status = 409


class NotCurrent(DomainError):
    code = "not_current"
    status = 409
