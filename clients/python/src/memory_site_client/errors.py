"""Refusals as exceptions: the API's stable `code`, what to do (`detail`), and
the rest of its body (`fields` for validation errors, `suggestions` for an
unknown label, `candidates` for an ambiguous name)."""

from __future__ import annotations

from typing import Any


class MemoryError(Exception):
    """Any refusal by the memory API (a 4xx or 5xx answer)."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        self.status = status
        self.body = body
        self.code: str = body.get("code", "error")
        self.detail: str = body.get("detail", "")
        self.fields: dict[str, Any] = body.get("fields") or {}
        super().__init__(f"{self.code}: {self.detail}" if self.detail else self.code)

    @property
    def suggestions(self) -> list:
        return self.body.get("suggestions") or []

    @property
    def candidates(self) -> list:
        return self.body.get("candidates") or []


class Unauthorized(MemoryError):
    """401: no token, a wrong one, or a revoked or expired one."""


class Forbidden(MemoryError):
    """403: seen but not allowed (a read-only token writing, a review that stays with people)."""


class NotFound(MemoryError):
    """404: no such scope or card, or one this token may not see (the same answer)."""


class Invalid(MemoryError):
    """400 and 409: the request itself (see `code` and `fields`)."""


class RateLimited(MemoryError):
    """429 after the client's own retries: wait `retry_after` seconds."""

    @property
    def retry_after(self) -> float:
        return float(self.body.get("retry_after") or 1)


def error_for(status: int, body: Any) -> MemoryError:
    body = body if isinstance(body, dict) else {"code": "error", "detail": str(body)[:500]}
    kind = {401: Unauthorized, 403: Forbidden, 404: NotFound, 429: RateLimited}.get(
        status, Invalid if status in (400, 409, 413, 422) else MemoryError)
    return kind(status, body)
