"""The page's language: a person's own choice, remembered; else the browser's.

Django's LocaleMiddleware reads the switch's cookie, then the browser's
Accept-Language. After sign-in, the language a person chose in their settings
wins on every device. The agent API and the MCP server speak English: their
`code`s are the contract, and their words are read by models, not people."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.http import HttpResponseBadRequest
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import translation
from django.utils.translation import get_language_from_request
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from core.pages import back_to

from .people import person_settings_set

# What machines read: the agent API, the MCP server, discovery and the OAuth
# endpoints a connector calls (the consent page, /oauth/authorize/, is a page).
AGENT_PATHS = ("/api/", "/mcp/", "/.well-known/", "/oauth/token/", "/oauth/revoke/", "/oauth/register/")
_REMEMBERED = dt.timedelta(days=365)


class PersonLanguageMiddleware:
    """After AuthenticationMiddleware, inside LocaleMiddleware (which then names the language in
    the response's Content-Language)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path_info.startswith(AGENT_PATHS):
            translation.activate(settings.LANGUAGE_CODE)
        elif request.user.is_authenticated and request.user.language:
            translation.activate(request.user.language)
        request.LANGUAGE_CODE = translation.get_language()
        return self.get_response(request)


def language_chosen(request, response, language: str):
    """After a person chose `language` ("" for the browser's again), from the switch or their settings: the
    rest of this request (its messages) speaks it, and this device remembers it for the sign-in page too."""
    request.COOKIES.pop(settings.LANGUAGE_COOKIE_NAME, None)  # the old choice no longer speaks for this device
    translation.activate(language or get_language_from_request(request))
    if language:
        response.set_cookie(settings.LANGUAGE_COOKIE_NAME, language, max_age=int(_REMEMBERED.total_seconds()),
                            samesite="Lax", secure=request.is_secure(), httponly=True)
    else:
        response.delete_cookie(settings.LANGUAGE_COOKIE_NAME, samesite="Lax")
    return response


@require_POST
def language_page(request):
    """The header's switch: shows the page it was pressed on again, in the language picked."""
    language = request.POST.get("language", "")
    if language not in dict(settings.LANGUAGES):  # only a hand-made request gets here: the switch offers no other
        return HttpResponseBadRequest(_("Not a language of this site."), content_type="text/plain; charset=utf-8")
    if request.user.is_authenticated:
        person_settings_set(user=request.user, language=language)
    return language_chosen(request, redirect(back_to(request, reverse("home"))), language)
