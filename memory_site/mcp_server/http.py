"""`/mcp/`: the SDK's streamable-HTTP transport, stateless, inside a Django view.

Served by the same site under any server (runserver, gunicorn): the view
authenticates the agent token, then runs the SDK's ASGI handler for this one
request. Stateless mode keeps no session between requests, so each request
gets its own session manager (its task group lives as long as the request);
JSON responses (no SSE stream) let a WSGI view return the answer whole. The
tools run the REST views in this same thread (asgiref's thread-sensitive mode),
so a call sees what the request's own connection sees.
"""

from __future__ import annotations

import anyio
from asgiref.sync import async_to_sync
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings

from scopes.connections import bearer_authenticate
from scopes.tokens import TokenRefused

from .rest import Caller
from .server import lowlevel_server
from .tools import CALLER_KEY

# Django's ALLOWED_HOSTS already refuses a foreign Host (the DNS-rebinding
# guard), and a bearer token is no ambient credential a foreign page could ride on.
_SECURITY = TransportSecuritySettings(enable_dns_rebinding_protection=False)


def mcp_url(request: HttpRequest) -> str:
    """The MCP server's URL: what agents are given, and the one resource OAuth tokens are issued for."""
    return request.build_absolute_uri(reverse("mcp"))


def protected_resource_url(request: HttpRequest) -> str:
    return request.build_absolute_uri(reverse("oauth2_provider:resource-metadata"))


def _unauthorized(request: HttpRequest, code: str, detail: str) -> JsonResponse:
    response = JsonResponse({"code": code, "detail": detail}, status=401)
    response["WWW-Authenticate"] = (f'Bearer resource_metadata="{protected_resource_url(request)}"'
                                    + ("" if code == "not_authenticated" else f', error="invalid_token"'))
    return response


def _caller(request: HttpRequest) -> Caller | JsonResponse:
    scheme, _, raw = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not raw.strip():
        return _unauthorized(request, "not_authenticated",
                             "Send an agent token as `Authorization: Bearer <token>` (create one in the dashboard "
                             "under Agent tokens), or connect through OAuth: the authorization server is named "
                             "in the resource metadata this challenge points to.")
    resource = mcp_url(request)
    try:
        bearer_authenticate(raw.strip(), resource=resource)
    except TokenRefused as refused:
        return _unauthorized(request, refused.code, refused.detail)
    return Caller(token=raw.strip(), host=request.get_host(), scheme=request.scheme,
                  remote_addr=request.META.get("REMOTE_ADDR", ""), resource=resource)


def _asgi_scope(request: HttpRequest, caller: Caller) -> dict:
    headers = [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in request.headers.items()]
    host, _, port = caller.host.partition(":")
    return {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
        "method": request.method, "scheme": request.scheme,
        "path": request.path, "raw_path": request.path.encode(), "root_path": "",
        "query_string": request.META.get("QUERY_STRING", "").encode("latin-1"),
        "headers": headers,
        "server": (host, int(port) if port.isdigit() else (443 if request.is_secure() else 80)),
        "client": (caller.remote_addr, 0),
        CALLER_KEY: caller,
    }


async def _serve(scope: dict, body: bytes) -> tuple[int, list, bytes]:
    answered = anyio.Event()
    sent_body = False
    status, headers, chunks = 500, [], []

    async def receive() -> dict:
        nonlocal sent_body
        if not sent_body:
            sent_body = True
            return {"type": "http.request", "body": body, "more_body": False}
        await answered.wait()  # the client stays connected until the answer is out
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        nonlocal status, headers
        if message["type"] == "http.response.start":
            status, headers = message["status"], message.get("headers", [])
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                answered.set()

    manager = StreamableHTTPSessionManager(app=lowlevel_server(), stateless=True, json_response=True,
                                           security_settings=_SECURITY)
    async with manager.run():
        await manager.handle_request(scope, receive, send)
    answered.set()
    return status, headers, b"".join(chunks)


@csrf_exempt
def mcp_view(request: HttpRequest) -> HttpResponse:
    if request.method != "POST":
        # Stateless: no server-to-client stream (a GET would open one that never
        # ends and hold a worker), no session to DELETE.
        response = JsonResponse({"code": "method_not_allowed", "detail": "POST JSON-RPC messages here."}, status=405)
        response["Allow"] = "POST"
        return response
    caller = _caller(request)
    if isinstance(caller, JsonResponse):
        return caller
    status, headers, body = async_to_sync(_serve)(_asgi_scope(request, caller), request.body)
    response = HttpResponse(body, status=status)
    for name, value in headers:
        name = name.decode("latin-1")
        if name.lower() not in ("content-length",):
            response[name] = value.decode("latin-1")
    return response
