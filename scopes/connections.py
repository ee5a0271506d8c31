"""Connections: what a person granted a hosted assistant on the OAuth consent page.

A connection is an agent token (scopes.AgentToken with `application` set):
the same scopes, the same access (read, read+write, propose) and the same one
authorization path (scopes.principals), only held another way. The assistant
never sees the row's secret; it holds OAuth access tokens from
django-oauth-toolkit, short-lived and bound to the MCP server (RFC 8707), and
each one acts as its connection. Revoking the connection (scopes.tokens.token_revoke)
deletes every OAuth token and code the assistant holds for that person.
"""

from __future__ import annotations

import datetime as dt
from urllib.parse import urlsplit

from django.db import transaction
from django.utils import timezone
from oauth2_provider.models import clear_expired, get_access_token_model, get_application_model

from .models import AgentToken, Scope, User
from .tokens import (MAX_DAYS, TOKEN_PREFIX, TokenRefused, secret_digest, token_access_flags, token_admitted,
                     token_authenticate, token_create, token_rights_check, token_with_user)

# How long a person's grant lasts before they consent again (tokens always expire).
CONNECTION_DAYS = MAX_DAYS
# The OAuth scopes that carry the person's choice of access to the client.
ACCESS_SCOPES = {"read": "read", "read+write": "read write", "propose": "read propose"}
# Where the MCP server's in-process API calls (memory_site/mcp_server/rest.py) say
# which resource the credential was presented to. A WSGI key without the HTTP_
# prefix: only the server itself sets it, never a header a client sends.
MCP_RESOURCE_KEY = "memory_site.mcp_resource"


def access_requested(scopes: list[str]) -> str:
    """The access the consent page offers first: what the assistant asked for."""
    return "read+write" if "write" in scopes else "propose" if "propose" in scopes else "read"


def connection_name(application) -> str:
    """How the dashboard names the assistant: its registered name, else where it sends people back."""
    name = (application.name or "").strip()
    if not name:
        first_uri = (application.redirect_uris or "").split()
        name = urlsplit(first_uri[0]).hostname or "" if first_uri else ""
    return (name or application.client_id)[:100]


@transaction.atomic
def connection_grant(*, user: User, application, scopes: list[Scope], access: str) -> AgentToken:
    """The person's consent: the assistant may act for them on `scopes` with
    `access`. Consenting again changes the one live connection in place, so what
    the assistant already holds follows the new choice at once."""
    flags = token_access_flags(access)
    name = connection_name(application)
    # Two consents at once (two tabs) take turns on the person's row: the second finds the first's connection.
    list(User.objects.select_for_update().filter(pk=user.pk).values_list("pk", flat=True))
    existing = (AgentToken.objects.select_for_update()
                .filter(user=user, application=application, revoked_at__isnull=True).first())
    if existing is None:
        token, _secret = token_create(user=user, name=name, scopes=scopes, days=CONNECTION_DAYS,
                                      application=application, **flags)
        return token
    token_rights_check(user=user, scopes=scopes, all_scopes=False, days=CONNECTION_DAYS, name=name, **flags)
    existing.name, existing.can_write, existing.proposes = name, flags["can_write"], flags["proposes"]
    existing.all_scopes = False
    existing.expires_at = timezone.now() + dt.timedelta(days=CONNECTION_DAYS)
    existing.save(update_fields=["name", "can_write", "proposes", "all_scopes", "expires_at"])
    existing.scopes.set(scopes)
    return existing


def connection_authenticate(raw: str, *, resource: str) -> AgentToken:
    """The connection an OAuth access token acts as, presented to `resource`
    (the MCP server's URL). A token issued for another resource, or none, is
    refused: registration tokens and codes' leftovers never act for anyone."""
    access = (get_access_token_model().objects.filter(token_checksum=secret_digest(raw))
              .only("user_id", "application_id", "expires", "resource").first())
    if access is None or access.user_id is None or access.application_id is None:
        raise TokenRefused("invalid_token", "The token is not valid.")
    if access.is_expired():
        raise TokenRefused("token_expired", "The access token has expired; use the refresh token for a new one.")
    if not access.resource or not access.allows_audience(resource):
        raise TokenRefused("invalid_token", "The access token was issued for another resource.")
    prefix = (AgentToken.objects.filter(user_id=access.user_id, application_id=access.application_id,
                                        revoked_at__isnull=True).values_list("prefix", flat=True).first())
    token = token_with_user(prefix) if prefix else None
    if token is None:
        raise TokenRefused("token_revoked", "The connection was revoked; connect the assistant again.")
    return token_admitted(token)


def bearer_authenticate(raw: str, *, resource: str | None = None) -> AgentToken:
    """Any bearer credential to the agent token it acts as: an agent token
    anywhere, a connection's OAuth access token only at the resource it was
    issued for (`resource`, the MCP server, or None for the REST API)."""
    if raw.startswith(TOKEN_PREFIX + "_"):
        return token_authenticate(raw)
    if resource is None:
        raise TokenRefused("invalid_token", "OAuth access tokens are for the MCP server; the REST API takes an "
                                            "agent token (memsite_…) from the dashboard.")
    if len(raw) > 512:
        raise TokenRefused("invalid_token", "The token is malformed.")
    return connection_authenticate(raw, resource=resource)


# A registration nobody consented to within this many days is dropped: a
# connector that registers on every attempt would otherwise pile them up.
UNUSED_REGISTRATION_DAYS = 30


def connections_tidy() -> dict:
    """Expired OAuth tokens and codes (django-oauth-toolkit's own sweep), and
    registrations that never became a connection (beat: nightly)."""
    clear_expired()
    model = get_application_model()
    unused = (model.objects.filter(registration_source=model.RegistrationSource.DCR,
                                   created__lt=timezone.now() - dt.timedelta(days=UNUSED_REGISTRATION_DAYS))
              .exclude(pk__in=AgentToken.objects.filter(application__isnull=False).values("application_id")))
    _rows, by_model = unused.delete()
    return {"registrations_dropped": by_model.get(model._meta.label, 0)}
