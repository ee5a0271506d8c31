"""Refusals of the scopes domain; mapped to 4xx codes in one place by the API."""

from __future__ import annotations

from core.errors import DomainError


class LastOwner(DomainError):
    code = "last_owner"
    status = 409


class InvalidLadder(DomainError):
    code = "invalid_ladder"
