"""The API's request budget, counted per agent token or per signed-in person."""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

from ..models import AgentToken


class AgentRateThrottle(SimpleRateThrottle):
    """One budget per token (agents), per user (dashboard sessions)."""

    scope = "agent"

    def get_rate(self):
        # DRF copies the rates into a class attribute at import; reading them
        # per request lets a changed setting (tests, override_settings) apply.
        try:
            return api_settings.DEFAULT_THROTTLE_RATES[self.scope]
        except KeyError:
            raise ImproperlyConfigured(f"No throttle rate set for scope {self.scope!r}.") from None

    def get_cache_key(self, request, view):
        if isinstance(request.auth, AgentToken):
            ident = f"token:{request.auth.pk}"
        elif request.user and request.user.is_authenticated:
            ident = f"user:{request.user.pk}"
        else:
            ident = f"anon:{self.get_ident(request)}"
        return self.cache_format % {"scope": self.scope, "ident": ident}
