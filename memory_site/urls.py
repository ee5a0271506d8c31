from django.contrib import admin
from django.http import JsonResponse
from django.urls import include, path


def healthz(request):
    return JsonResponse({"status": "ok"})


urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", healthz),
    path("api/v1/", include("memory_site.api.urls")),
    path("", include("memory_site.web_urls")),
]

handler404 = "core.api.errors.json_not_found"
handler500 = "core.api.errors.json_server_error"
