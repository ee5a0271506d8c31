"""The domain's refusals, in its own words: each app declares its own kinds, and
they are mapped once for the API (core/api/errors.py) and once for the pages
(`page` in core/pages.py)."""

from __future__ import annotations

from contextlib import contextmanager

from django.db import IntegrityError

from .signals import database_rule_refused


class Refusal(Exception):
    """What every refusal carries: a stable `code`, the HTTP `status` it answers with,
    a `detail` for people and any extra fields (suggestions, rule, fields) the API
    passes through."""

    code = "refused"
    status = 400

    def __init__(self, detail: str, **extra) -> None:
        super().__init__(detail)
        self.detail = detail
        self.extra = extra

    def as_dict(self) -> dict:
        return {"code": self.code, "detail": self.detail, **self.extra}


class DomainError(Refusal):
    """A refusal a caller can act on (send other input, pick another value): pages
    catch it to show it next to the form."""

    code = "domain_error"


class NotAllowed(Refusal):
    """The principal may see this but not do it (403 `permission_denied`). Not a
    DomainError: nothing the caller sends changes it, so a page that shows a
    DomainError next to its form lets this one through to its 403 page."""

    code = "permission_denied"
    status = 403

    def __init__(self, detail: str) -> None:
        # In the words of the language active where it is refused (a lazy text would
        # be translated wherever it is read).
        super().__init__(str(detail))


class InvalidInput(DomainError):
    code = "validation_error"


def integrity_refusal(error: IntegrityError) -> DomainError | None:
    """The domain refusal that the app owning a database rule reads in `error`, if any (the app answers
    signals.database_rule_refused; the first answer, in connection order, wins)."""
    answers = database_rule_refused.send(sender=type(error), error=error)
    return next((refused for _receiver, refused in answers if refused is not None), None)


@contextmanager
def database_rules_refuse():
    """A rule the database holds, broken inside the block, raised as its domain refusal (as the
    API's handler reads it): a page handles it like any other. Enter it outside the block's
    transaction, so the transaction has rolled back first."""
    try:
        yield
    except IntegrityError as error:
        if (refused := integrity_refusal(error)) is None:
            raise
        raise refused from None
