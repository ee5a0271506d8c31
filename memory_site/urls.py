from django.contrib import admin
from django.http import JsonResponse
from django.urls import include, path

from memory_site.mcp_server.http import mcp_view


def healthz(request):
    return JsonResponse({"status": "ok"})


urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", healthz),
    path("api/v1/", include("memory_site.api.urls")),
    # The MCP server (streamable HTTP); its OAuth authorization server and discovery documents.
    path("mcp/", mcp_view, name="mcp"),
    path("", include("memory_site.oauth.urls")),
    path("", include("memory_site.web_urls")),
]

handler404 = "core.api.errors.json_not_found"
handler500 = "core.api.errors.json_server_error"
