"""One exception per refusal of the card domain (STYLE 8); the API maps each to
a 4xx with its `code`."""

from django.http import Http404

from core.errors import DomainError, InvalidInput
from core.text import InvalidText  # one refusal for text that may not enter, wherever it is found

__all__ = ["InvalidCard", "InvalidText", "ConfusableName", "UnknownLabel", "LabelKindMismatch", "NeedsConsent",
           "Excluded", "ImmutableEvent", "NotCurrent", "NotYourPerspective", "CardGone", "NotAHypothesis",
           "NotAnEvent", "SameEventExists"]


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


class NotAnEvent(DomainError):
    """Only an event's date, place or description is corrected in place (DESIGN §4 rule 3): a state's new
    value is remembered, and supersedes the old one with its history."""

    code = "not_an_event"


class SameEventExists(DomainError):
    """A correction would make the event another one already recorded (the same value, on the corrected
    day): carries `card`, that event. One of the two is forgotten instead — never two of one event."""

    code = "same_event_exists"
    status = 409


class NotCurrent(DomainError):
    code = "not_current"
    status = 409


class Excluded(DomainError):
    """Content the memory never stores (DESIGN §4 rule 8); `rule` names which."""

    code = "excluded"


class NotYourPerspective(DomainError):
    """Another member's phrasing of a card is theirs to set (DESIGN §3)."""

    code = "not_your_perspective"
    status = 403


class CardGone(DomainError, Http404):
    """The card was forgotten while the request was on its way (another forget
    committed first): the same answer as a card that never was — a 404 in the
    API and on a page alike (hence Http404 too)."""

    code = "not_found"
    status = 404


class ConfusableName(DomainError):
    """A new name that looks like an existing entity's (the same TR39 skeleton)
    without being it: carries `candidates`, the entities it could be. Naming one
    of them, or registering the look-alike as its alias, binds."""

    code = "confusable_name"


class NotAHypothesis(DomainError):
    """Only a current guess is discarded, demoted or confirmed as one (DESIGN §4 rule 7): a fact never is."""

    code = "not_a_hypothesis"
    status = 409
