"""Discovery (RFC 9728): the MCP server's protected-resource metadata names this
site's own authorization server, whose RFC 8414 metadata django-oauth-toolkit serves."""

from __future__ import annotations

import json

from django.urls import reverse
from oauth2_provider.views import OAuthProtectedResourceMetadataView

from .consent import mcp_resource


def issuer(request) -> str:
    """This site's origin: the authorization server's issuer (its metadata is at the origin's /.well-known/)."""
    return request.build_absolute_uri("/").rstrip("/")


class ResourceMetadataView(OAuthProtectedResourceMetadataView):
    def get_resource(self, request):
        return mcp_resource(request)

    def get_authorization_servers(self, request):
        return [issuer(request)]

    def get_resource_name(self):
        return "memory-site"

    def get(self, request, *args, **kwargs):
        response = super().get(request, *args, **kwargs)
        document = {
            **json.loads(response.content),
            "resource_documentation": request.build_absolute_uri(reverse("tokens")),
            "description": "Hosted assistants connect through OAuth (the authorization server above: register, "
                           "then a person consents). Scripts and desktop agents may instead send an agent token "
                           "from the dashboard (Agent tokens) as `Authorization: Bearer <token>`.",
            "api": request.build_absolute_uri("/api/v1/docs/"),
        }
        response.content = json.dumps(document).encode()
        return response
