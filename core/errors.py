"""The base of every domain refusal; each app declares its own kinds, and the API
maps them all to 4xx codes in one place (core/api/errors.py)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import contextmanager

from django.db import IntegrityError


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


IntegrityReader = Callable[[IntegrityError], DomainError | None]

# A rule the database holds (a trigger, a constraint) refuses with an
# IntegrityError; the app that owns the rule registers how to read it as its own
# refusal, so the one mapping to 4xx needs to know no app.
_INTEGRITY_READERS: list[IntegrityReader] = []


def integrity_reader_register(reader: IntegrityReader) -> None:
    if reader not in _INTEGRITY_READERS:
        _INTEGRITY_READERS.append(reader)


def integrity_refusal(error: IntegrityError) -> DomainError | None:
    """The domain refusal a registered reader recognises in `error`, if any."""
    return next((refused for read in _INTEGRITY_READERS if (refused := read(error)) is not None), None)


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
