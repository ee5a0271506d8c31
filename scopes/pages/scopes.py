"""Dashboard pages for scopes: members, agent tokens, invite links and signing
up through one (the home page, with the ladder and its health, is the site's). Thin: forms validate,
selectors restrict (the API's), services write."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.db import transaction
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _

from core.errors import DomainError
from core.pages import back_to, error_fields

from .entry import page
from .forms import InviteForm, MemberAddForm, MemberChangeForm, MemberMinorForm, SettingsForm, SignUpForm, TokenForm
from ..guardians import is_minor, member_minor_set
from ..invites import (invitation_accept, invitation_decline, invitation_open_get, invitation_withdraw,
                       invitations_open, invite_accept, invite_create, invite_open, invite_revoke, invites_open,
                       member_invite_or_change)
from ..members import ROLE_EFFECTS, is_owner
from ..models import ROLE_NAMES, AgentToken, Invitation, Invite, MemberRelation, Membership, Scope, User
from ..languages import language_chosen
from ..people import person_settings_set
from ..selectors import invitation_waiting, scope_list
from ..services import member_change, member_remove, member_remove_check, membership_leave
from ..tokens import (TOKEN_SHOWN_ONCE, token_access_flags, token_create, token_get, token_revoke,
                      tokens_of_wards)


@page(scope="scope_id", action="manage", methods=("POST",))
def invite_create_page(request, scope, *, principal):
    form = InviteForm(request.POST)
    if form.is_valid():
        try:
            with transaction.atomic():
                invite, raw = invite_create(scope=scope, role=form.cleaned_data["role"], created_by=request.user,
                                            relation=form.cleaned_data["relation"])
        except DomainError as error:
            for field, problems in error_fields(error).items():
                form.add_error(field if field in form.fields else None, problems)
    if form.errors:
        # The members page again, the refusal next to the invite's own fields.
        return render(request, "scopes/members.html", _members_context(request, principal, scope, invite_form=form),
                      status=400)
    link = request.build_absolute_uri(reverse("invite", args=[raw]))
    # Shown once, on this page only: only its hash is stored.
    return render(request, "scopes/invite_created.html", {"scope": scope, "invite": invite, "link": link})


def invite_page(request, token: str):
    """Anyone holding the link: a new person signs up, a signed-in person joins."""
    try:
        invite = invite_open(token)
    except DomainError:
        raise Http404 from None
    form = SignUpForm(request.POST or None) if not request.user.is_authenticated else None
    error = None
    if request.method == "POST":
        try:
            with transaction.atomic():
                if form is not None:
                    if not form.is_valid():
                        raise _FormInvalid
                    data = form.cleaned_data
                    user = User.objects.create_user(data["username"], password=data["password1"],
                                                    display_name=data["display_name"])
                else:
                    user = request.user
                membership = invite_accept(raw=token, user=user)
        except _FormInvalid:
            pass
        except DomainError as refused:
            error = refused.detail
        else:
            if form is not None:
                login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, _("You joined %(scope)s as %(role)s.")
                             % {"scope": membership.scope.name, "role": membership.role_name})
            return redirect("sharing-joined", scope_id=membership.scope_id)  # asked once, as on accepting
    return render(request, "scopes/invite.html", {"invite": invite, "form": form, "error": error},
                  status=400 if request.method == "POST" else 200)


def _members_context(request, principal, scope, *, add_form=None, invite_form=None,
                     refused: dict | None = None) -> dict:
    memberships = (Membership.objects.visible_to(principal, "manage").filter(scope=scope)
                   .select_related("user").order_by("role", "user__username"))
    # What each member is to the person looking: Kai's page says Dana is "mother".
    to_me = {row.member_id: row for row in MemberRelation.objects.in_scopes([scope.pk]).filter(of=request.user)}
    # A family's owners mark minors (scopes/guardians.py): the box is theirs only.
    guardian = scope.kind == "family" and is_owner(scope, request.user.pk)
    rows = [{"m": m, "effect": ROLE_EFFECTS[m.role], "refused": (refused or {}).get(m.pk),
             "relation": m.user_id in to_me,
             "relation_name": to_me[m.user_id].relation_name if m.user_id in to_me else "",
             # The relation as it was said, to be said again.
             "form": MemberChangeForm(initial={"role": m.role, "relation": _said(to_me.get(m.user_id))},
                                      auto_id=f"m{m.pk}_%s"),
             "minor_form": MemberMinorForm(initial={"minor": m.minor}, auto_id=f"minor{m.pk}_%s")
             if guardian and m.role != "owner" else None}
            for m in memberships]
    return {"scope": scope, "rows": rows, "add_form": add_form or MemberAddForm(),
            "invitations": invitations_open(scope=scope), "invites": invites_open(scope=scope),
            "invite_form": invite_form or InviteForm(),
            # A minor changes nothing here (scopes/guardians.py refuses it): the page offers no form.
            "minor": is_minor(request.user),
            "effects": [(ROLE_NAMES[role], effect) for role, effect in ROLE_EFFECTS.items()]}


def _said(row: MemberRelation | None) -> str:
    return (row.said or row.relation) if row is not None else ""


@page(scope="scope_id", action="manage")
def members_page(request, scope, *, principal):
    return render(request, "scopes/members.html", _members_context(request, principal, scope))


@page(scope="scope_id", action="manage", methods=("POST",))
def member_add_page(request, scope, *, principal):
    form = MemberAddForm(request.POST)
    with transaction.atomic():
        if form.is_valid():
            data = form.cleaned_data
            try:
                with transaction.atomic():
                    result = member_invite_or_change(
                        principal=principal, scope=scope, username=data["username"], role=data["role"],
                        relation=data["relation"])
            except DomainError as error:
                for field, problems in error_fields(error).items():
                    form.add_error(field if field in form.fields else None, problems)
            else:
                # An existing member's role changes, as through the API. Anyone else is invited, in
                # the same words whether or not the name exists (the page must not tell).
                if isinstance(result, Invitation):
                    messages.success(request, _("Invited %(name)s as %(role)s: they join %(scope)s when they "
                                                "accept.") % {"name": data["username"],
                                                              "role": ROLE_NAMES[data["role"]], "scope": scope.name})
                else:
                    messages.success(request, _("%(name)s was already a member; now %(role)s of %(scope)s.")
                                     % {"name": result.user.shown_name, "role": ROLE_NAMES[data["role"]],
                                        "scope": scope.name})
                return redirect("members", scope_id=scope.pk)
    return render(request, "scopes/members.html", _members_context(request, principal, scope, add_form=form),
                  status=400)


def _membership_of(scope, user_id: int) -> Membership:
    membership = Membership.objects.in_scopes([scope.pk]).filter(user_id=user_id).select_related("user").first()
    if membership is None:
        raise Http404
    return membership


@page(scope="scope_id", action="manage", methods=("POST",))
def member_change_page(request, scope, user_id: int, *, principal):
    form = MemberChangeForm(request.POST)
    with transaction.atomic():
        membership = _membership_of(scope, user_id)
        if not form.is_valid():
            # What was wrong, on the member's row: a role not offered, or a relation too long.
            return _member_refused(request, principal, scope, membership,
                                   " ".join(problem for problems in form.errors.values() for problem in problems))
        role = form.cleaned_data["role"]
        try:
            with transaction.atomic():
                member_change(principal=principal, scope=scope, membership=membership, role=role,
                              relation=form.cleaned_data["relation"])
        except DomainError as error:
            return _member_refused(request, principal, scope, membership, error.detail)
    messages.success(request, _("%(name)s is now %(role)s.") % {"name": membership.user.shown_name,
                                                                 "role": ROLE_NAMES[role]})
    return redirect("members", scope_id=scope.pk)


@page(scope="scope_id", action="manage", methods=("POST",))
def member_minor_page(request, scope, user_id: int, *, principal):
    """A family's owner marks a member as a minor, or unmarks them."""
    form = MemberMinorForm(request.POST)
    form.is_valid()
    minor = form.cleaned_data.get("minor", False)
    with transaction.atomic():
        membership = _membership_of(scope, user_id)
        try:
            with transaction.atomic():
                member_minor_set(principal=principal, scope=scope, membership=membership, minor=minor)
        except DomainError as error:
            return _member_refused(request, principal, scope, membership, error.detail)
    said = _("%(name)s is now marked as a minor.") if minor else _("%(name)s is no longer a minor.")
    messages.success(request, said % {"name": membership.user.shown_name})
    return redirect("members", scope_id=scope.pk)


@page(scope="scope_id", action="manage", methods=("GET", "POST"))
def member_remove_page(request, scope, user_id: int, *, principal):
    with transaction.atomic():
        membership = _membership_of(scope, user_id)
        member_remove_check(principal=principal, scope=scope, membership=membership)
        if request.method == "GET":  # asks first: the person loses the scope at once
            return render(request, "scopes/member_remove.html", {"scope": scope, "membership": membership})
        try:
            with transaction.atomic():
                member_remove(principal=principal, scope=scope, membership=membership)
        except DomainError as error:
            return _member_refused(request, principal, scope, membership, error.detail)
    messages.success(request, _("%(name)s was removed from %(scope)s.")
                     % {"name": membership.user.shown_name, "scope": scope.name})
    return redirect("members", scope_id=scope.pk)


def _member_refused(request, principal, scope, membership, message: str):
    """The page again, the refusal on the member's own row."""
    return render(request, "scopes/members.html",
                  _members_context(request, principal, scope, refused={membership.pk: message}), status=409)


@page(scope="scope_id", action="manage", methods=("POST",))
def invite_revoke_page(request, scope, invite_id: int):
    with transaction.atomic():
        invite = Invite.objects.in_scopes([scope.pk]).filter(pk=invite_id).first()
        if invite is None:
            raise Http404
        invite_revoke(invite=invite)
    messages.success(request, _("The invite link no longer works."))
    return redirect("members", scope_id=scope.pk)


@page(scope="scope_id", action="manage", methods=("POST",))
def invitation_withdraw_page(request, scope, invitation_id: int):
    with transaction.atomic():
        invitation = invitation_open_get(scope=scope, invitation_id=invitation_id)
        invitation_withdraw(invitation=invitation)
    messages.success(request, _("The invitation of %(name)s is withdrawn.") % {"name": invitation.username})
    return redirect("members", scope_id=scope.pk)


@page(methods=("POST",))
def invitation_answer_page(request, invitation_id: int, accept: bool, *, principal):
    """The invitee's answer, from their home page."""
    invitation = invitation_waiting(principal=principal, invitation_id=invitation_id)
    try:
        with transaction.atomic():
            if not accept:
                invitation_decline(invitation=invitation, user=request.user)
            else:
                membership = invitation_accept(invitation=invitation, user=request.user)
    except DomainError as refused:  # answered meanwhile, in another tab
        messages.error(request, refused.detail)
        return redirect("home")
    if not accept:
        messages.success(request, _("You declined the invitation to %(scope)s.") % {"scope": invitation.scope.name})
        return redirect("home")
    messages.success(request, _("You joined %(scope)s as %(role)s.")
                     % {"scope": invitation.scope.name, "role": membership.role_name})
    # Asked once, on joining: what of yours its members may read (the card store's page, which goes
    # on to the scope's own when there is nothing to ask).
    return redirect("sharing-joined", scope_id=invitation.scope_id)


@page(scope="scope_id", methods=("POST",))
def scope_leave_page(request, scope):
    with transaction.atomic():
        try:
            with transaction.atomic():
                membership_leave(scope=scope, user=request.user)
        except DomainError as refused:
            messages.error(request, refused.detail)
            return redirect("scope", scope_id=scope.pk)
    messages.success(request, _("You left %(scope)s.") % {"scope": scope.name})
    return redirect("home")


def _tokens_context(request, principal, *, form=None) -> dict:
    """Tokens are a person's own: the page lists only theirs, and offers only
    scopes they see; a guardian also sees the tokens of the minors they look after."""
    scopes = list(scope_list(principal=principal))
    tokens = list(AgentToken.objects.filter(user=request.user).select_related("application")
                  .prefetch_related("scopes").order_by("-id"))
    # Connections (granted to hosted assistants on the consent page) beside the tokens made here.
    return {"form": form or TokenForm(scopes=scopes), "tokens": [t for t in tokens if not t.is_connection],
            "connections": [t for t in tokens if t.is_connection],
            "mcp_url": request.build_absolute_uri(reverse("mcp")),
            "minor": is_minor(request.user), "ward_tokens": list(tokens_of_wards(guardian=request.user))}


@page
def tokens_page(request, *, principal):
    return render(request, "scopes/tokens.html", _tokens_context(request, principal))


@page(methods=("POST",))
def token_create_page(request, *, principal):
    form = TokenForm(request.POST, scopes=list(scope_list(principal=principal)))
    if form.is_valid():
        data = form.cleaned_data
        chosen = list(Scope.objects.visible_to(principal, "view").filter(pk__in=data["scopes"]))
        try:
            with transaction.atomic():
                token, raw = token_create(user=request.user, name=data["name"], scopes=chosen, days=data["days"],
                                          **token_access_flags(data["access"]))
        except DomainError as error:
            for field, problems in error_fields(error).items():
                form.add_error(field if field in form.fields else None, problems)
        else:
            # Shown on the next page only (only its hash is stored); a reload there creates nothing.
            request.session[TOKEN_SHOWN_ONCE] = {"token": token.pk, "secret": raw}
            return redirect("token-connect", token_id=token.pk)
    return render(request, "scopes/tokens.html", _tokens_context(request, principal, form=form), status=400)


@page(methods=("GET", "POST"))
def token_revoke_page(request, token_id: int):
    # One's own, or a minor's one looks after; anyone else's is as absent as a missing one.
    token = token_get(person=request.user, token_id=token_id)
    if request.method == "GET":  # asks first: revoking cannot be undone
        return render(request, "scopes/token_revoke.html", {"token": token})
    token_revoke(token=token)
    messages.success(request, _("Revoked %(name)s: it stops working at once.") % {"name": token.name})
    return redirect("tokens")


@page
def settings_page(request):
    """The person's time zone and language. The zone proposal every page shows
    until a zone is chosen posts here too, with the browser's zone filled in."""
    user = request.user
    form = SettingsForm(request.POST or None, initial={"time_zone": user.time_zone, "language": user.language})
    if request.method == "POST" and form.is_valid():
        # The zone proposal every page shows posts no language: it leaves the choice alone.
        language = form.cleaned_data["language"] if "language" in request.POST else None
        try:
            person_settings_set(user=user, time_zone=form.cleaned_data["time_zone"], language=language)
        except DomainError as error:
            for field, problems in error_fields(error).items():
                form.add_error(field if field in form.fields else None, problems)
        else:
            response = redirect(back_to(request, reverse("settings")))
            if language is not None:  # the next page, and this message, in the language chosen
                language_chosen(request, response, language)
            messages.success(request, _("Your dates are now read in %(zone)s.")
                             % {"zone": user.time_zone.replace("_", " ")})
            return response
    return render(request, "scopes/settings.html", {"form": form, "minor": is_minor(user)},
                  status=400 if request.method == "POST" else 200)


class _FormInvalid(Exception):
    """The sign-up form has errors: roll back, show them."""
