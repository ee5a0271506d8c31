"""What every dashboard page shares: how a refusal from the selectors becomes a
page. The selectors are the API's (one permission system); they refuse in the
domain's words (core/errors.py), which `page` maps to Django's 403 page. Pages
are decorated by scopes/pages/entry.py's `page`, which wraps this one with who
asks and the scope the URL names (core may not import the ladder)."""

from __future__ import annotations

import functools

from django import forms
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _

from .errors import Refusal
from .instants import EARLIEST_YEAR, LATEST_YEAR


def page(view):
    """Sign-in required; a refusal that is a 403 — NotAllowed, or a domain error
    that is one (a minor's `minor_not_allowed`) — becomes Django's 403 page, with
    its words (a 404 already is Http404)."""
    @functools.wraps(view)
    def wrapped(request, *args, **kwargs):
        try:
            return view(request, *args, **kwargs)
        except Refusal as refused:
            if refused.status != 403:
                raise
            raise PermissionDenied(refused.detail) from None
    return login_required(wrapped)


def refusal_message(error) -> str:
    """A refusal's words for a person, with the screen's code and what it named
    (`excluded: transient_feeling`, `needs_consent: health`), as the API gives them."""
    named = error.extra.get("rule") if error.code == "excluded" else error.extra.get("category")
    if error.code in ("excluded", "needs_consent") and named:
        return _("%(detail)s (%(code)s: %(named)s)") % {"detail": error.detail, "code": error.code, "named": named}
    return error.detail


def error_fields(error) -> dict[str, list[str]]:
    """A DomainError as {form field: [messages]}, so the page shows each next to its input."""
    extra = error.extra
    if extra.get("fields"):
        return {name: [str(m) for m in (msgs if isinstance(msgs, list) else [msgs])]
                for name, msgs in extra["fields"].items()}
    field = {"unknown_label": "label", "label_kind_mismatch": "label", "needs_consent": "consent",
             "unresolvable_time": "when"}.get(error.code, "__all__")
    if error.code == "excluded" and extra.get("field"):
        # The screen names the field by its API name (`source.quote`); a form calls it `quote`.
        field = str(extra["field"]).split(".")[0 if extra["field"].startswith("perspectives") else -1]
    # The detail already names any suggestions (an unknown label's "Close registered labels: …"):
    # they are not listed a second time from `suggestions`, which is there for agents to read.
    return {field: [refusal_message(error)]}


class DayField(forms.DateField):
    """A day a page's form takes (as of, from, to): within the years the memory
    can compute with (core/instants.py), so the day after 31 December 9999 is a
    form error, not a 500."""

    def to_python(self, value):
        day = super().to_python(value)
        if day is not None and not EARLIEST_YEAR <= day.year <= LATEST_YEAR:
            raise forms.ValidationError(_("Pick a day between the years %(earliest)s and %(latest)s.")
                                        % {"earliest": EARLIEST_YEAR, "latest": LATEST_YEAR})
        return day


def back_to(request, default: str) -> str:
    """The page a form was posted from (its `next`, this site only), else `default`."""
    target = request.POST.get("next", "")
    if target and url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()},
                                                  require_https=request.is_secure()):
        return target
    return default
