"""`MemoryClient` (blocking) and `AsyncMemoryClient` (asyncio), on httpx.

Both run the same operations (operations.py); a 429 is retried after the
`retry_after` the API sends, up to `retries` times, then raised as RateLimited.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Callable
from typing import Any

import httpx

from . import operations as ops
from .errors import error_for

DEFAULT_TIMEOUT = 30.0
MAX_WAIT = 60.0  # never sleep longer than this on one retry, whatever the server says


def _request_args(base_url: str, call: ops.Call) -> dict:
    return {"method": call.method, "url": base_url + call.path, "json": call.json, "params": call.params}


def _decoded(response: httpx.Response) -> Any:
    if response.status_code == 204 or not response.content:
        return None
    try:
        return response.json()
    except ValueError:
        return {"code": "error", "detail": response.text[:500]}


def _wait(response: httpx.Response, body: Any) -> float:
    seconds = body.get("retry_after") if isinstance(body, dict) else None
    seconds = seconds or response.headers.get("Retry-After") or 1
    return min(float(seconds), MAX_WAIT)


def _api_root(base_url: str) -> str:
    return base_url.rstrip("/") + "/api/v1/"


def _headers(token: str) -> dict:
    return {"Authorization": f"Bearer {token}", "Accept": "application/json",
            "User-Agent": "memory-site-client/0.1"}


def _sync(operation: Callable) -> Callable:
    @functools.wraps(operation)
    def method(self: MemoryClient, *args: Any, **kwargs: Any) -> Any:
        return self._drive(operation(self._known, *args, **kwargs))
    return method


def _async(operation: Callable) -> Callable:
    @functools.wraps(operation)
    async def method(self: AsyncMemoryClient, *args: Any, **kwargs: Any) -> Any:
        return await self._drive(operation(self._known, *args, **kwargs))
    return method


class MemoryClient:
    """client = MemoryClient("https://memory.example", "memsite_…"); client.remember(…)."""

    def __init__(self, base_url: str, token: str, *, timeout: float = DEFAULT_TIMEOUT, retries: int = 3,
                 http: httpx.Client | None = None) -> None:
        self._root = _api_root(base_url)
        self._retries = retries
        self._http = http or httpx.Client(timeout=timeout)
        self._http.headers.update(_headers(token))
        self._known: dict[str, int] = {}  # scope names already looked up

    def _send(self, call: ops.Call) -> Any:
        for attempt in range(self._retries + 1):
            response = self._http.request(**_request_args(self._root, call))
            body = _decoded(response)
            if response.status_code == 429 and attempt < self._retries:
                time.sleep(_wait(response, body))
                continue
            if response.status_code >= 400:
                raise error_for(response.status_code, body)
            return body

    def _drive(self, operation: ops.Op) -> Any:
        try:
            call = next(operation)
            while True:
                call = operation.send(self._send(call))
        except StopIteration as done:
            return done.value

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> MemoryClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    scopes = _sync(ops.scopes)
    remember = _sync(ops.remember)
    remember_many = _sync(ops.remember_many)
    recall = _sync(ops.recall)
    context = _sync(ops.context)
    profile = _sync(ops.profile)
    ask = _sync(ops.ask)
    count = _sync(ops.count)
    forget = _sync(ops.forget)
    ingest = _sync(ops.ingest)
    next_probe = _sync(ops.next_probe)
    confirm = _sync(ops.confirm)
    reject = _sync(ops.reject)


class AsyncMemoryClient:
    """async with AsyncMemoryClient(base_url, token) as client: await client.recall(…)."""

    def __init__(self, base_url: str, token: str, *, timeout: float = DEFAULT_TIMEOUT, retries: int = 3,
                 http: httpx.AsyncClient | None = None) -> None:
        self._root = _api_root(base_url)
        self._retries = retries
        self._http = http or httpx.AsyncClient(timeout=timeout)
        self._http.headers.update(_headers(token))
        self._known: dict[str, int] = {}

    async def _send(self, call: ops.Call) -> Any:
        for attempt in range(self._retries + 1):
            response = await self._http.request(**_request_args(self._root, call))
            body = _decoded(response)
            if response.status_code == 429 and attempt < self._retries:
                await asyncio.sleep(_wait(response, body))
                continue
            if response.status_code >= 400:
                raise error_for(response.status_code, body)
            return body

    async def _drive(self, operation: ops.Op) -> Any:
        try:
            call = next(operation)
            while True:
                call = operation.send(await self._send(call))
        except StopIteration as done:
            return done.value

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncMemoryClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    scopes = _async(ops.scopes)
    remember = _async(ops.remember)
    remember_many = _async(ops.remember_many)
    recall = _async(ops.recall)
    context = _async(ops.context)
    profile = _async(ops.profile)
    ask = _async(ops.ask)
    count = _async(ops.count)
    forget = _async(ops.forget)
    ingest = _async(ops.ingest)
    next_probe = _async(ops.next_probe)
    confirm = _async(ops.confirm)
    reject = _async(ops.reject)
