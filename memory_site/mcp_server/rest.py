"""An agent API route called in process, as an agent token.

The MCP tools act "exactly as the token would over REST": rather than a second
copy of each endpoint's checks (scopes, read/write/propose, throttles,
validation, error codes), every tool runs the REST view itself with the
token's `Authorization` header. Middleware is skipped: none of it applies to a
bearer-token API call (no session, no CSRF, no pages).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import orjson
from django.core.handlers.wsgi import WSGIRequest
from django.urls import Resolver404, resolve

from scopes.connections import MCP_RESOURCE_KEY

API_ROOT = "/api/v1/"


@dataclass(frozen=True)
class Caller:
    """Who calls: the raw token, and where the call came from (the HTTP request's
    host and address, or the machine itself for stdio)."""

    token: str
    host: str = "localhost"
    scheme: str = "http"
    remote_addr: str = "127.0.0.1"
    # The MCP server's URL when the call came over HTTP: a connection's OAuth
    # token is accepted only for the resource it was issued for.
    resource: str | None = None


@dataclass(frozen=True)
class Answer:
    status: int
    body: Any  # the decoded JSON, or None for an empty answer (204)

    @property
    def ok(self) -> bool:
        return self.status < 400


def call(caller: Caller, method: str, route: str, *, body: dict | None = None, query: dict | None = None) -> Answer:
    """`route` is relative to /api/v1/ (e.g. "recall/"); `query` leaves out Nones."""
    path = API_ROOT + route
    content = orjson.dumps(body) if body is not None else b""
    host, _, port = caller.host.partition(":")
    environ = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "SCRIPT_NAME": "",
        "QUERY_STRING": urlencode({k: v for k, v in (query or {}).items() if v is not None}),
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(content)),
        "HTTP_ACCEPT": "application/json",
        "HTTP_HOST": caller.host,
        "HTTP_AUTHORIZATION": f"Bearer {caller.token}",
        "SERVER_NAME": host,
        "SERVER_PORT": port or ("443" if caller.scheme == "https" else "80"),
        "REMOTE_ADDR": caller.remote_addr,
        "wsgi.input": io.BytesIO(content),
        "wsgi.url_scheme": caller.scheme,
        MCP_RESOURCE_KEY: caller.resource,
    }
    request = WSGIRequest(environ)
    try:
        match = resolve(path)
    except Resolver404:
        return Answer(404, {"code": "not_found", "detail": "No such route."})
    # Every route under /api/v1/ is a DRF view: its refusals (a 404 too) are answers, never raised.
    response = match.func(request, *match.args, **match.kwargs)
    if hasattr(response, "render"):
        response.render()
    content = response.content
    return Answer(response.status_code, orjson.loads(content) if content else None)
