"""One place maps every refusal to a 4xx body {"code", "detail", …} (API.md
"Errors"). The domain's refusals (core/errors.py) carry their own code and status;
DRF's and Django's are named here."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.db import IntegrityError
from django.http import Http404, JsonResponse
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler

from ..errors import DomainError, Refusal, integrity_refusal


class NotFoundAt(DomainError):
    """A 404 inside a batch, naming the item (`index`)."""

    code = "not_found"
    status = 404


class ForbiddenAt(DomainError):
    """A 403 inside a batch, naming the item (`index`)."""

    code = "permission_denied"
    status = 403


DRF_CODES: list[tuple[type, str]] = [
    (exceptions.ParseError, "malformed_json"),
    (exceptions.NotAuthenticated, "not_authenticated"),
    (exceptions.PermissionDenied, "permission_denied"),
    (exceptions.NotFound, "not_found"),
    (exceptions.MethodNotAllowed, "method_not_allowed"),
    (exceptions.NotAcceptable, "not_acceptable"),
    (exceptions.UnsupportedMediaType, "unsupported_media_type"),
    (exceptions.Throttled, "throttled"),
]


def _flatten(detail) -> str:
    if isinstance(detail, dict):
        return "; ".join(f"{key}: {_flatten(value)}" for key, value in detail.items())
    if isinstance(detail, list):
        return "; ".join(_flatten(item) for item in detail if item)
    return str(detail)


def api_exception_handler(exc, context):
    if isinstance(exc, Refusal):  # a DomainError, or NotAllowed: 403 permission_denied
        return Response(exc.as_dict(), status=exc.status)
    if isinstance(exc, RequestDataTooBig):
        return Response({"code": "payload_too_large", "detail": "The request body is too large; send less at once."},
                        status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
    if isinstance(exc, IntegrityError) and (refused := integrity_refusal(exc)):
        return Response(refused.as_dict(), status=refused.status)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        fields = exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail}
        response.data = {"code": "validation_error",
                         "detail": f"The request has invalid fields: {_flatten(exc.detail)}"[:2000],
                         "fields": fields}
        return response
    if isinstance(exc, exceptions.AuthenticationFailed):
        code = exc.get_codes() if isinstance(exc.get_codes(), str) else "authentication_failed"
        response.data = {"code": code, "detail": str(exc.detail)}
        return response
    code = next((name for kind, name in DRF_CODES if isinstance(exc, kind)), "error")
    body = {"code": code, "detail": str(exc.detail)}
    if isinstance(exc, exceptions.Throttled) and exc.wait is not None:
        body["retry_after"] = int(exc.wait) + 1
    response.data = body
    return response


def json_not_found(request, exception=None):
    """URLs nobody routes: JSON under /api/, the plain page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse({"code": "not_found", "detail": "No such endpoint; see /api/v1/docs/."}, status=404)
    from django.views.defaults import page_not_found

    return page_not_found(request, exception)


def json_server_error(request):
    if request.path.startswith("/api/"):
        return JsonResponse({"code": "server_error", "detail": "Something broke on our side; it was logged."},
                            status=500)
    from django.views.defaults import server_error

    return server_error(request)


ERROR_MEANINGS = {
    400: "validation_error, malformed_json, invalid_text (not Unicode text, e.g. a lone surrogate; or invisible or "
         "direction-control characters in a name, an alias or a label; with fields), unknown_label, "
         "label_kind_mismatch, excluded (never stored; with `rule`), needs_consent (a sensitive attribute sent "
         "without consent; with `category`), unresolvable_time, ambiguous_entity (with candidates), "
         "confusable_name (a new name that looks like an existing entity's without being it; with candidates: use "
         "that name, or register the spelling as its alias), not_family_or_team (sharing is with a family or team you "
         "belong to)",
    401: "not_authenticated, invalid_token, token_expired, token_revoked",
    403: "permission_denied: seen, but not allowed to change; minor_not_allowed: minors create no tokens, scopes "
         "or invites, change no roles and do not leave their family",
    404: "not_found: does not exist, or you may not see it",
    409: "immutable_event, not_current, last_owner, invitation_gone",
    429: "throttled (with retry_after seconds)",
    503: "embedding_unavailable: the embedding model cannot be reached; retry shortly",
}


def error_responses(*statuses: int) -> dict:
    """Schema entries for the error bodies an endpoint may return."""
    from drf_spectacular.utils import OpenApiResponse

    from .common import ErrorSerializer

    return {code: OpenApiResponse(ErrorSerializer, description=ERROR_MEANINGS[code])
            for code in (*statuses, 429)}
