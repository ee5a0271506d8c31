"""`Authorization: Bearer memsite_…` for agents (and, inside the MCP server's
own calls, a connection's OAuth access token: scopes/connections.py)."""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions
from rest_framework.permissions import BasePermission

from ..connections import MCP_RESOURCE_KEY, bearer_authenticate
from ..models import AgentToken
from ..tokens import TokenRefused


class AgentTokenAuthentication(authentication.BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower() != self.keyword.lower().encode():
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("Send `Authorization: Bearer <token>`.", code="invalid_token")
        try:
            raw = header[1].decode("ascii")
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed("The token is malformed.", code="invalid_token") from None
        try:
            # A connection's OAuth token only through the MCP server, which says so in the environ.
            token = bearer_authenticate(raw, resource=request._request.META.get(MCP_RESOURCE_KEY))
        except TokenRefused as refused:
            raise exceptions.AuthenticationFailed(refused.detail, code=refused.code) from None
        return token.user, token

    def authenticate_header(self, request):
        # Makes DRF answer 401 (not 403) to a request without credentials.
        return f'{self.keyword} realm="api"'


class SignedInPerson(BasePermission):
    """What stays with people: a signed-in session, never an agent token (tokens
    are managed by people; an account is erased by its person)."""

    message = "This is done from a signed-in session, not with an agent token."

    def has_permission(self, request, view) -> bool:
        return bool(request.user and request.user.is_authenticated and not isinstance(request.auth, AgentToken))


class AgentTokenScheme(OpenApiAuthenticationExtension):
    target_class = "scopes.api.auth.AgentTokenAuthentication"
    name = "agentToken"

    def get_security_definition(self, auto_schema):
        return {"type": "http", "scheme": "bearer", "bearerFormat": "memsite_<id>_<secret>"}
