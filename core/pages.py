"""What every dashboard page shares: how a refusal from the selectors becomes a
page. The selectors are the API's (one permission system); they speak DRF's
PermissionDenied, which a plain Django view must translate."""

from __future__ import annotations

import functools

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from rest_framework import exceptions as drf_exceptions


def page(view):
    """Sign-in required; a selector's 403 becomes Django's 403 page (its 404 already is Http404)."""
    @functools.wraps(view)
    def wrapped(request, *args, **kwargs):
        try:
            return view(request, *args, **kwargs)
        except drf_exceptions.PermissionDenied as refused:
            raise PermissionDenied(str(refused.detail)) from None
    return login_required(wrapped)


def error_fields(error) -> dict[str, list[str]]:
    """A DomainError as {form field: [messages]}, so the page shows each next to its input."""
    extra = error.extra
    if extra.get("fields"):
        return {name: [str(m) for m in (msgs if isinstance(msgs, list) else [msgs])]
                for name, msgs in extra["fields"].items()}
    field = {"unknown_label": "label", "label_kind_mismatch": "label", "needs_consent": "consent",
             "unresolvable_time": "when"}.get(error.code, "__all__")
    message = error.detail
    if extra.get("suggestions"):
        message += " Did you mean: " + ", ".join(map(str, extra["suggestions"])) + "?"
    return {field: [message]}
