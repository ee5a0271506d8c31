"""Dashboard forms for scopes, invites and signing up: they only validate; the services write."""

from __future__ import annotations

from django import forms
from django.contrib.auth import password_validation
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from ..invites import INVITE_ROLES
from ..models import KIND_NAMES, ROLE_NAMES, Language, Role, ScopeKind, User
from ..relations import RELATION_MAX
from ..zones import time_zone_names

CREATABLE_KINDS = [k for k in ScopeKind.values if k not in (ScopeKind.PERSONAL, ScopeKind.GLOBAL)]


class ScopeCreateForm(forms.Form):
    name = forms.CharField(max_length=200, label=_("Name"))
    kind = forms.ChoiceField(choices=[(k, KIND_NAMES[k]) for k in CREATABLE_KINDS], initial=ScopeKind.FAMILY,
                             label=_("Kind"))
    parent = forms.TypedChoiceField(required=False, coerce=int, empty_value=None, label=_("Parent"),
                                    help_text=_("Optional: a scope you manage to sit under."))

    def __init__(self, *args, parents=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["parent"].choices = [("", _("— none —"))] + [(s.id, s.shown_with_kind) for s in parents]


class InviteForm(forms.Form):
    role = forms.ChoiceField(choices=[(r, ROLE_NAMES[r]) for r in INVITE_ROLES], initial="member", label=_("Role"))
    relation = forms.CharField(max_length=RELATION_MAX, required=False, label=_("Relation"),
                               help_text=_('What they are to you, in your words: "mother", "wife", '
                                           '"friend from school".'))


class SignUpForm(forms.Form):
    username = forms.CharField(max_length=150, label=_("Username"))
    display_name = forms.CharField(max_length=150, required=False, label=_("Display name"))
    password1 = forms.CharField(label=_("Password"),
                                widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}))
    password2 = forms.CharField(label=_("Password again"),
                                widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}))

    def clean_username(self):
        username = self.cleaned_data["username"]
        User.username_validator(username)
        if User.objects.filter(username__iexact=username).exists():
            raise forms.ValidationError(_("That username is taken."))
        return username

    def clean(self):
        data = super().clean()
        if data.get("password1") and data.get("password1") != data.get("password2"):
            self.add_error("password2", _("The two passwords differ."))
        elif data.get("password1"):
            candidate = User(username=data.get("username", ""), display_name=data.get("display_name", ""))
            try:
                password_validation.validate_password(data["password1"], candidate)
            except forms.ValidationError as error:
                self.add_error("password1", error)
        return data


ROLE_CHOICES = [(r.value, ROLE_NAMES[r]) for r in Role]


class MemberAddForm(forms.Form):
    username = forms.CharField(max_length=150, validators=[User.username_validator], label=_("Username"),
                               help_text=_("Their username here. They join when they accept; until then they see "
                                           "nothing of this scope. A member's role changes at once."))
    role = forms.ChoiceField(choices=ROLE_CHOICES, initial=Role.MEMBER, label=_("Role"))
    relation = forms.CharField(max_length=RELATION_MAX, required=False, label=_("Relation"),
                               help_text=_('What they are to you, in your words: "mother", "wife", '
                                           '"friend from school".'))

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("auto_id", "add_%s")  # beside one change form per member
        super().__init__(*args, **kwargs)


class MemberChangeForm(forms.Form):
    role = forms.ChoiceField(choices=ROLE_CHOICES, label=_("Role"))
    relation = forms.CharField(max_length=RELATION_MAX, required=False, label=_("Relation"),
                               help_text=_("What they are to you."))


# What a token or a connection may do (scopes.principals.TOKEN_ACCESS), as the forms offer it.
ACCESS_CHOICES = [("read", pgettext_lazy("token access", "read")), ("read+write", _("read and write")),
                  ("propose", _("propose only: its writes wait for your review"))]


class TokenForm(forms.Form):
    name = forms.CharField(max_length=100, label=_("Name"),
                           help_text=_("Which agent uses it, e.g. \"kitchen assistant\"."))
    scopes = forms.TypedMultipleChoiceField(coerce=int, widget=forms.CheckboxSelectMultiple, label=_("Scopes"),
                                            help_text=_("The agent sees only these, and never more than you."))
    access = forms.ChoiceField(
        choices=ACCESS_CHOICES, initial="read", label=_("Access"),
        help_text=_("Propose only is for an agent you do not yet trust: whatever it asks to remember waits in your "
                    "review queue until you approve it, so a wrong or planted memory (memory poisoning) never "
                    "reaches your facts unseen. It can read, but never correct, verify or forget."))
    days = forms.IntegerField(label=_("Expires after (days)"), min_value=1, max_value=366, initial=90)

    def __init__(self, *args, scopes=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["scopes"].choices = [(s.id, s.shown_with_kind) for s in scopes]


class MemberMinorForm(forms.Form):
    minor = forms.BooleanField(required=False, label=_("Minor"),
                               help_text=_("A minor makes no agent tokens or scopes; the family's owners see and "
                                           "revoke their tokens."))


class SettingsForm(forms.Form):
    """A person's own settings; person_settings_set checks them again (the API's rule)."""

    time_zone = forms.ChoiceField(label=_("Time zone"),
                                  help_text=_("Where you are: relative dates (\"yesterday\") and your days are "
                                              "read in this zone, summer time included."))
    language = forms.ChoiceField(choices=[("", _("Your browser's language")), *Language.choices], required=False,
                                 label=_("Language"))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Place names only, as IANA writes them; no bare offsets (they go wrong at the next summer-time change).
        self.fields["time_zone"].choices = [(name, name.replace("_", " ")) for name in sorted(time_zone_names())]
