"""Refusals of the scopes domain; mapped to 4xx codes in one place by the API."""

from __future__ import annotations


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


class LastOwner(DomainError):
    code = "last_owner"
    status = 409


class InvalidLadder(DomainError):
    code = "invalid_ladder"
