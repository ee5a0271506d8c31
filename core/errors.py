"""The base of every domain refusal; each app declares its own kinds, and the API
maps them all to 4xx codes in one place (core/api/errors.py)."""

from __future__ import annotations

from contextlib import contextmanager

from django.db import IntegrityError

from .signals import database_rule_refused


class DomainError(Exception):
    """A refusal a caller can act on: a stable `code`, a `detail` for people and
    any extra fields (suggestions, rule, fields) the API passes through."""

    code = "domain_error"
    status = 400

    def __init__(self, detail: str, **extra) -> None:
        super().__init__(detail)
        self.detail = detail
        self.extra = extra

    def as_dict(self) -> dict:
        return {"code": self.code, "detail": self.detail, **self.extra}


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
