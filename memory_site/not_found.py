"""A 404 never shows the site's insides, in any mode.

With DEBUG on (`make run`'s default) Django answers a 404 with its technical
page, which lists every URL pattern; a person following a forgotten card's old
link must see the plain "not found" page instead (JSON under /api/), the one
`handler404` gives with DEBUG off. Only 404s are replaced: the debug pages of
real errors stay for developers."""

from __future__ import annotations

from django.conf import settings

from core.api.errors import json_not_found


class PlainNotFoundMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if settings.DEBUG and response.status_code == 404 and _technical(response):
            return json_not_found(request)
        return response


def _technical(response) -> bool:
    # Django's technical 404 page is HTML rendered from its own template, which names the URLconf.
    return (response.get("Content-Type", "").startswith("text/html")
            and b"Using the URLconf defined in" in getattr(response, "content", b""))
