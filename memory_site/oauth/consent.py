"""The consent page (`/oauth/authorize/`): a person decides what a hosted
assistant may do, on django-oauth-toolkit's authorization endpoint.

The person chooses the scopes (their personal scope first) and the access
(read, read and write, propose only); the grant is a connection
(scopes/connections.py), and the code the assistant gets carries that choice
as OAuth scopes. Every token is bound to this site's MCP server (RFC 8707):
an authorization request naming another resource is refused with
`invalid_target`, and one naming none is bound to the MCP server.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from django import forms
from django.db import transaction
from django.utils.functional import cached_property
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from oauth2_provider.exceptions import OAuthToolkitError
from oauth2_provider.forms import AllowForm
from oauth2_provider.models import get_application_model
from oauth2_provider.oauth2_validators import validate_resource_as_url_prefix
from oauth2_provider.views import AuthorizationView
from oauthlib.oauth2.rfc6749.errors import CustomOAuth2Error

from core.errors import DomainError
from core.pages import error_fields
from memory_site.mcp_server.http import mcp_url
from scopes.connections import ACCESS_SCOPES, access_requested, connection_grant, connection_name
from scopes.errors import MinorRefused
from scopes.pages.forms import ACCESS_CHOICES
from scopes.guardians import is_minor
from scopes.models import Scope, ScopeKind
from scopes.principals import Principal


class ConsentForm(AllowForm):
    """DOT's hidden fields (client, redirect, PKCE, state, resource), plus the person's choice."""

    scopes = forms.TypedMultipleChoiceField(
        coerce=int, required=False, widget=forms.CheckboxSelectMultiple, label=gettext_lazy("Scopes"),
        help_text=gettext_lazy("The assistant sees only these, and never more than you."))
    access = forms.ChoiceField(choices=ACCESS_CHOICES, initial="read", widget=forms.RadioSelect,
                               label=gettext_lazy("Access"))

    def __init__(self, *args, scopes=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["scopes"].choices = [(s.id, s.shown_with_kind) for s in scopes]


def _parts(uri: str):
    """A URI's parts, or None for one that is not a URI (a tampered form field)."""
    try:
        return urlsplit(uri)
    except ValueError:
        return None


def _granted(response) -> bool:
    """Whether the authorization response hands the assistant a code (and not an error)."""
    location = _parts(response.get("Location", "") if response.status_code in (301, 302, 303, 307) else "")
    answer = parse_qs(location.query) if location else {}
    return "code" in answer and "error" not in answer


class ConsentView(AuthorizationView):
    template_name = "oauth/consent.html"
    form_class = ConsentForm

    @cached_property
    def _scopes(self) -> list[Scope]:
        """What may be granted: the person's active scopes, once per request (the form and the grant)."""
        return list(Scope.objects.visible_to(Principal(self.request.user), "view")
                    .filter(archived_at__isnull=True).exclude(kind=ScopeKind.GLOBAL).order_by("id"))

    def get_form_kwargs(self):
        kwargs = super().get_form_kwargs()
        kwargs["scopes"] = self._scopes
        return kwargs

    def get_initial(self):
        initial = super().get_initial()
        personal = self.request.user.personal_scope
        initial["scopes"] = [personal.pk] if personal else []
        initial["access"] = access_requested(self.oauth2_data.get("scopes", []))
        # Bound to the MCP server when the assistant named no resource.
        initial["resource"] = initial.get("resource") or mcp_url(self.request)
        return initial

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        application = context.get("application")
        if application is None and self.request.method == "POST":
            application = get_application_model().objects.filter(
                client_id=self.request.POST.get("client_id", "")).first()
            context["application"] = application
        if application is not None:
            context["assistant"] = connection_name(application)
            redirect = _parts(self.request.POST.get("redirect_uri") or context.get("redirect_uri") or "")
            context["returns_to"] = redirect.hostname if redirect else None
        context["minor"] = is_minor(self.request.user)
        return context

    def render_to_response(self, context, **kwargs):
        response = super().render_to_response(context, **kwargs)
        # Allowing or denying posts here and is redirected to the assistant: the
        # page's form-action must admit that origin too (browsers check redirects).
        uri = self.request.POST.get("redirect_uri") or context.get("redirect_uri") or ""
        application, redirect = context.get("application"), _parts(uri)
        if application is not None and redirect and redirect.netloc and application.redirect_uri_allowed(uri):
            response._csp_update = {"form-action": [f"{redirect.scheme}://{redirect.netloc}"]}
        return response

    def _foreign_resource(self, resources: list[str]) -> str | None:
        ours = mcp_url(self.request)
        return next((uri for uri in resources if not validate_resource_as_url_prefix(ours, [uri])), None)

    def _refused(self, error: str, description: str, credentials: dict, application):
        refusal = CustomOAuth2Error(error=error, state=credentials.get("state"), description=description)
        return self.error_response(OAuthToolkitError(error=refusal, redirect_uri=credentials["redirect_uri"]),
                                   application)

    def _problem(self, request) -> tuple[str, str] | None:
        """What this server refuses before a person is asked, though the library would ask."""
        foreign = self._foreign_resource(request.GET.getlist("resource"))
        if foreign is not None:
            return "invalid_target", f"This server issues tokens for {mcp_url(request)} only, not {foreign}."
        if request.GET.get("code_challenge") and request.GET.get("code_challenge_method") != "S256":
            # OAuth 2.1: S256 only (a missing method means "plain").
            return "invalid_request", "PKCE must use code_challenge_method=S256."
        return None

    def get(self, request, *args, **kwargs):
        if "approval_prompt" in request.GET:
            # Every grant is asked for (REQUEST_APPROVAL_PROMPT "force"); a client cannot waive it.
            request.GET = request.GET.copy()
            del request.GET["approval_prompt"]
        problem = self._problem(request)
        if problem is None:
            return super().get(request, *args, **kwargs)
        try:  # the client and its redirect URI first: a refusal goes back only to a registered one
            _scopes, credentials = self.validate_authorization_request(request)
        except OAuthToolkitError as error:
            return self.error_response(error, application=None)
        application = get_application_model().objects.get(client_id=credentials["client_id"])
        return self._refused(*problem, credentials, application)

    def form_valid(self, form):
        data = form.cleaned_data
        application = get_application_model().objects.filter(client_id=data["client_id"]).first()
        if application is None:  # a tampered form: nobody to answer but the person
            form.add_error(None, _("This assistant is not registered here any more; connect it again."))
            return self.form_invalid(form)
        if not data.get("allow"):
            return super().form_valid(form)  # declined: the assistant hears access_denied
        resources = (data.get("resource") or "").split() or [mcp_url(self.request)]
        foreign = self._foreign_resource(resources)
        if foreign is not None:  # a tampered form: the page itself never offers another resource
            return self._refused("invalid_target", f"This server issues tokens for {mcp_url(self.request)} "
                                 f"only, not {foreign}.", data, application)
        chosen = [scope for scope in self._scopes if scope.pk in set(data["scopes"])]
        if not chosen:
            form.add_error("scopes", _("Choose at least one scope."))
            return self.form_invalid(form)
        data["scope"], data["resource"] = ACCESS_SCOPES[data["access"]], " ".join(resources)
        with transaction.atomic():
            try:
                connection_grant(user=self.request.user, application=application, scopes=chosen,
                                 access=data["access"])
            # A minor (a NotAllowed: the page shows it, as it tells them who may connect), or a scope they
            # lost meanwhile.
            except (DomainError, MinorRefused) as refused:
                for field, problems in error_fields(refused).items():
                    form.add_error(field if field in form.fields else None, problems)
                return self.form_invalid(form)
            response = super().form_valid(form)
            if not _granted(response):  # the request itself was refused: no connection without a code
                transaction.set_rollback(True)
        return response
