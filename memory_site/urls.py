from django.contrib import admin
from django.http import JsonResponse
from django.urls import include, path
from django.views.generic import RedirectView


def healthz(request):
    return JsonResponse({"status": "ok"})


urlpatterns = [
    path("", RedirectView.as_view(url="/admin/", permanent=False)),
    path("admin/", admin.site.urls),
    path("healthz", healthz),
    path("api/v1/", include("memory_site.api.urls")),
]

handler404 = "memory_site.api.errors.json_not_found"
handler500 = "memory_site.api.errors.json_server_error"
