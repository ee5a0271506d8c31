"""Dynamic client registration (RFC 7591) for connectors, on django-oauth-toolkit's endpoint.

Anyone may register (a hosted assistant registers itself before a person has
signed in); a registration grants nothing until a person consents. What may be
registered is narrowed to what OAuth 2.1 and this server allow: the
authorization-code grant (with refresh tokens), the `code` response type, and
redirect URIs over https, or http to this machine's loopback only (RFC 8252,
for desktop clients).
"""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from django.db import transaction
from django.http import HttpResponse, JsonResponse
from django.utils.decorators import method_decorator
from django.views.decorators.csrf import csrf_exempt
from oauth2_provider.models import get_access_token_model
from oauth2_provider.settings import oauth2_settings
from oauth2_provider.views import DynamicClientRegistrationManagementView, DynamicClientRegistrationView

from scopes.models import AgentToken
from scopes.tokens import token_revoke

GRANT_TYPES = {"authorization_code", "refresh_token"}
LOOPBACK = {"127.0.0.1", "::1", "localhost"}
MAX_REDIRECT_URIS = 10


def _refusal(description: str) -> JsonResponse:
    return JsonResponse({"error": "invalid_client_metadata", "error_description": description}, status=400)


def _redirect_problem(uri: object) -> str | None:
    if not isinstance(uri, str) or len(uri) > 2000:
        return "each redirect URI must be a string of at most 2000 characters"
    try:
        parts = urlsplit(uri)
        parts.port  # noqa: B018  (a port out of range raises here)
    except ValueError:
        return f"{uri}: not a URI"
    if parts.fragment:
        return f"{uri}: a redirect URI has no fragment"
    if parts.scheme == "https" and parts.hostname:
        return None
    if parts.scheme == "http" and parts.hostname in LOOPBACK:
        return None
    return f"{uri}: redirect URIs use https, or http to a loopback address (127.0.0.1, [::1], localhost)"


def metadata_problem(metadata: object) -> str | None:
    """Why this client metadata cannot be registered here, or None."""
    if not isinstance(metadata, dict):
        return None  # the library answers a body that is not a JSON object
    grant_types = metadata.get("grant_types", ["authorization_code"])
    if (not isinstance(grant_types, list) or not all(isinstance(g, str) for g in grant_types)
            or not set(grant_types) <= GRANT_TYPES):
        return "grant_types may only be authorization_code and refresh_token"
    if metadata.get("response_types", ["code"]) != ["code"]:
        return 'response_types may only be ["code"]'
    redirect_uris = metadata.get("redirect_uris")
    if not isinstance(redirect_uris, list) or not 1 <= len(redirect_uris) <= MAX_REDIRECT_URIS:
        return f"redirect_uris must list 1 to {MAX_REDIRECT_URIS} URIs"
    problems = [problem for problem in map(_redirect_problem, redirect_uris) if problem]
    if problems:
        return problems[0]
    name = metadata.get("client_name", "")
    if not isinstance(name, str) or len(name) > 255 or any(ord(c) < 32 for c in name):
        return "client_name must be a line of text of at most 255 characters"
    return None


def _problem_in(request) -> JsonResponse | None:
    try:
        metadata = json.loads(request.body or b"null")
    except ValueError:
        return None  # the library answers malformed JSON itself
    problem = metadata_problem(metadata)
    return _refusal(problem) if problem else None


@method_decorator(csrf_exempt, name="dispatch")
class ConnectorRegistrationView(DynamicClientRegistrationView):
    def post(self, request, *args, **kwargs):
        return _problem_in(request) or super().post(request, *args, **kwargs)


@method_decorator(csrf_exempt, name="dispatch")
class ConnectorManagementView(DynamicClientRegistrationManagementView):
    """RFC 7592 for a registered connector: it reads and updates itself within the same
    narrowing, and deleting itself ends every person's connection to it (revoked, kept as
    history on their tokens page) and makes its client id unusable, never erasing their rows."""

    def put(self, request, client_id: str, *args, **kwargs):
        auth = self._authenticate_registration_request(request, client_id)
        if isinstance(auth, HttpResponse):
            return auth
        return _problem_in(request) or super().put(request, client_id, *args, **kwargs)

    def delete(self, request, client_id: str, *args, **kwargs):
        auth = self._authenticate_registration_request(request, client_id)
        if isinstance(auth, HttpResponse):
            return auth
        application = auth.application
        with transaction.atomic():
            for connection in AgentToken.objects.filter(application=application, revoked_at__isnull=True):
                token_revoke(token=connection)
            # No redirect URI left: no authorization can be asked for it again.
            application.redirect_uris = ""
            application.save(update_fields=["redirect_uris"])
            get_access_token_model().objects.filter(application=application,
                                                    scope=oauth2_settings.DCR_REGISTRATION_SCOPE).delete()
        return HttpResponse(status=204)
