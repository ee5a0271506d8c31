"""Forgetting a timeline or a subject (`POST /forget/`) and erasing an account
(`DELETE /account/`): thin views over cards.services.forget and .account."""

from __future__ import annotations

from django.contrib.auth import logout
from django.db import transaction
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from core.api.common import ScopeRefField, StrictSerializer
from core.api.errors import error_responses
from scopes.api.auth import SignedInPerson
from scopes.api.entry import View

from ..selectors.cards import FORGET_ACTION
from ..services import subject_forget
from ..services.account import account_erase_confirmed

RECEIPT_HELP = "Counts per kind of what was removed — never content. Kinds that count nothing may be left out, " \
               "except cards, candidates, revisions and perspectives."

FORGET_DESCRIPTION = """With `label`, that label's whole timeline for the subject in the scope: every past value
(all past addresses), guesses and disputes included. Without it, everything about the subject in the scope, then
its name there (an entity no card names any more, with its aliases; a member's own entity stays). `subject` is
bound as a write in that scope binds it: `me`, a name, an alias, a member, a relation word; a name two entities
answer to is `ambiguous_entity`; an unknown one forgets only what the review queue holds under that name.

Each card goes as `DELETE /cards/{id}/` takes it, with every copy of its words: its revisions, perspectives and
vector, the guesses promoted into it, what a knowledge merge copied from it, the review candidates it came from,
and the free text of the decisions about it. Pending and rejected candidates about the subject (on the label)
go too. A token acts only on what its person may forget: the cards of scopes it may write in (a read-only token,
or a scope it may only read: 403). The audit log keeps that something was forgotten, by whom and when — not
what. Forgetting again answers a receipt of zeros."""

ACCOUNT_DESCRIPTION = """A signed-in person, with their password (an agent token gets 403, whatever its access).
Erased: every scope only they belong to (their personal scope, with everything in it); in shared scopes, every
card they stated and every card about them, their perspectives and memberships; their agent tokens, review
candidates and ingest jobs; the free text of their review decisions and corrections (the decisions stay, by
nobody). The account row goes last, and the session ends. A shared scope whose last owner they are is refused
with `last_owner` until someone else is made owner; a wrong password is `validation_error` with
`fields.password`. Nothing is erased unless everything is."""


class ReceiptCounts(serializers.Serializer):
    cards = serializers.IntegerField()
    candidates = serializers.IntegerField()
    revisions = serializers.IntegerField()
    perspectives = serializers.IntegerField()
    vectors = serializers.IntegerField(required=False)
    reasons = serializers.IntegerField(required=False, help_text="Free-text reasons cleared (decisions, corrections).")
    entities = serializers.IntegerField(required=False, help_text="Names (entities) no card names any more.")
    aliases = serializers.IntegerField(required=False)
    jobs = serializers.IntegerField(required=False)
    tokens = serializers.IntegerField(required=False)
    memberships = serializers.IntegerField(required=False)
    scopes = serializers.IntegerField(required=False)
    account = serializers.IntegerField(required=False)


class ReceiptOut(serializers.Serializer):
    receipt = ReceiptCounts(help_text=RECEIPT_HELP)


class ForgetIn(StrictSerializer):
    scope = ScopeRefField()
    subject = serializers.CharField(max_length=200, help_text='"me", a name, an alias or a relation word.')
    label = serializers.CharField(max_length=64, required=False,
                                  help_text="A registered label (key or synonym): forget only its timeline.")


class AccountEraseIn(StrictSerializer):
    password = serializers.CharField(max_length=4096, trim_whitespace=False)


class Forget(View):
    @extend_schema(request=ForgetIn, responses={200: ReceiptOut, **error_responses(400, 401, 403, 404)},
                   summary="Forget a label's whole timeline for a subject, or everything about a subject, in a "
                           "scope", description=FORGET_DESCRIPTION)
    def post(self, request):
        data = ForgetIn(data=request.data)
        data.is_valid(raise_exception=True)
        params = data.validated_data
        principal = self.principal
        with transaction.atomic():
            scope = self.scope_named(params["scope"], action=FORGET_ACTION)
            receipt = subject_forget(principal=principal, scope=scope, subject=params["subject"],
                                     label=params.get("label"))
        return Response({"receipt": receipt.as_dict()})


class Account(View):
    permission_classes = [SignedInPerson]

    @extend_schema(request=AccountEraseIn, responses={200: ReceiptOut, **error_responses(400, 401, 403, 409)},
                   summary="Erase your account and everything of yours (a signed-in person, with the password)",
                   description=ACCOUNT_DESCRIPTION)
    def delete(self, request):
        data = AccountEraseIn(data=request.data)
        data.is_valid(raise_exception=True)
        receipt = account_erase_confirmed(user=request.user, password=data.validated_data["password"])
        logout(request._request)
        return Response({"receipt": receipt.as_dict()})
