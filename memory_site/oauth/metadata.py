"""Discovery (RFC 9728): the MCP server's protected-resource metadata names this
site's own authorization server, whose RFC 8414 metadata django-oauth-toolkit serves."""

from __future__ import annotations

import json

from django.urls import reverse
from oauth2_provider.views import OAuthProtectedResourceMetadataView

from memory_site.mcp_server.http import mcp_url


class ResourceMetadataView(OAuthProtectedResourceMetadataView):
    """The library names the authorization server itself (this site's origin, from its own
    metadata route); the resource is the MCP server, not the document's own path."""

    def get_resource(self, request):
        return mcp_url(request)

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
