from __future__ import annotations

from django.contrib.auth.validators import UnicodeUsernameValidator
from rest_framework import serializers

from core.api.common import IdField, StrictSerializer

from ..models import InvitationStatus, Role, ScopeKind
from ..principals import TOKEN_ACCESS
from ..relations import relation_to

CREATABLE_KINDS = [k for k in ScopeKind.values if k not in (ScopeKind.PERSONAL, ScopeKind.GLOBAL)]
ASSIGNABLE_ROLES = Role.values


class ScopeIn(StrictSerializer):
    name = serializers.CharField(max_length=200)
    kind = serializers.ChoiceField(choices=CREATABLE_KINDS)
    parent = IdField(required=False, allow_null=True, default=None)


class ScopeOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.CharField()
    parent = serializers.IntegerField(source="parent_id", allow_null=True)
    role = serializers.CharField(allow_null=True, help_text="Your role here (null for global).")
    relation = serializers.CharField(allow_null=True, help_text='How you stand here: "mother of Kai, wife of Sam".')
    archived_at = serializers.DateTimeField(allow_null=True, help_text="When the project was archived (read-only, "
                                            "left out of default reads until restored); null while active.")


class ScopeListQuery(serializers.Serializer):
    """The scope list's filter; its paging parameters are the paginator's."""

    archived = serializers.BooleanField(required=False, allow_null=True, default=None,
                                        help_text="true: only archived projects; false: only active scopes; "
                                                  "absent: every scope you can see.")


class MemberIn(StrictSerializer):
    username = serializers.CharField(max_length=150, validators=[UnicodeUsernameValidator()],
                                     help_text="Who to invite (or, for a member, whose role to change).")
    role = serializers.ChoiceField(choices=ASSIGNABLE_ROLES, help_text="Only an owner invites or makes an owner.")
    relation = serializers.CharField(max_length=100, required=False, allow_blank=True, default=None,
                                     help_text='What they are to you, in your words ("mother", "friend from '
                                               'school"); stated when they join.')


class MemberPatchIn(StrictSerializer):
    role = serializers.ChoiceField(choices=ASSIGNABLE_ROLES, required=False)
    relation = serializers.CharField(max_length=100, required=False, allow_blank=True)
    minor = serializers.BooleanField(
        required=False, help_text="Family scopes, owners only: mark the member as a minor (or unmark them). A "
                                  "minor cannot create agent tokens, scopes or invites, change roles or leave their "
                                  "family (403 `minor_not_allowed`); the family's owners are their guardians and "
                                  "see and revoke their tokens (`GET /api/v1/tokens/minors/`, "
                                  "`DELETE /api/v1/tokens/{id}/`). An owner cannot be a minor.")


class MemberOut(serializers.Serializer):
    username = serializers.CharField(source="user.username")
    display_name = serializers.CharField(source="user.shown_name")
    role = serializers.CharField()
    minor = serializers.BooleanField(help_text="A minor in this family (set by its owners).")
    relation = serializers.SerializerMethodField(help_text='What this member is to you ("mother"), or "".')

    def get_relation(self, membership) -> str:
        viewer = self.context.get("viewer")
        if viewer is None:
            return ""
        return relation_to(scope_id=membership.scope_id, member_id=membership.user_id, of_id=viewer.pk)


class InvitationOut(serializers.Serializer):
    id = serializers.IntegerField()
    scope = serializers.IntegerField(source="scope_id")
    scope_name = serializers.CharField(source="scope.name")
    scope_kind = serializers.CharField(source="scope.kind")
    username = serializers.CharField(help_text="The name that was invited, as it was asked for.")
    role = serializers.CharField()
    relation = serializers.CharField(help_text='What the invitee is to the person who invited them ("" for none).')
    status = serializers.ChoiceField(choices=InvitationStatus.choices)
    invited_by = serializers.CharField(source="invited_by.shown_name")


class InvitationPageOut(serializers.Serializer):
    """A person's open invitations, shaped like every list (one page: `next` is null)."""

    results = InvitationOut(many=True)
    next = serializers.CharField(allow_null=True)


class InvitationCreatedOut(serializers.Serializer):
    invitation = InvitationOut(help_text="The same answer whether or not anyone has the name.")


class RelationIn(StrictSerializer):
    member = serializers.CharField(max_length=150, help_text="Username of the member who is …")
    of = serializers.CharField(max_length=150, help_text="… this relation of this member (username).")
    relation = serializers.CharField(max_length=100, required=False,
                                     help_text='In your words: "mother", 媽媽, "friend from school" (any words, kept as '
                                               'said; the ones naming a known relation bind to it in questions).')


class RelationOut(serializers.Serializer):
    member = serializers.CharField(source="member.username")
    of = serializers.CharField(source="of.username")
    relation = serializers.CharField(help_text='The relation the words mean ("mother", "friend", "mother_in_law"), '
                                              'or "" when they name none this memory knows.')
    said = serializers.CharField(help_text='The relation in the words it was stated in ("friend from school").')


class TokenIn(StrictSerializer):
    name = serializers.CharField(max_length=100)
    access = serializers.ChoiceField(
        choices=TOKEN_ACCESS, default="read",
        help_text="`read`; `read+write`; or `propose`: for an agent you do not yet trust (memory poisoning is a "
                  "named risk for agent memory), its writes wait in your review queue as candidates — "
                  "`POST /cards/` and `/cards/bulk/` answer 202 `{\"outcome\": \"proposed\", \"candidate\"}` — "
                  "and every other write (corrections, verify, forget, confirm, entities) is refused with 403; "
                  "ingest still queues its extraction, and nothing it extracts is auto-accepted.")
    scopes = serializers.ListField(child=serializers.CharField(max_length=24), min_length=1, max_length=200,
                                   help_text='Scope ids, "personal", or ["all"]: every scope you can see, now and later.')
    days = serializers.IntegerField(min_value=1, max_value=366, default=90)


class TokenOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    prefix = serializers.CharField(help_text="The identifying part; safe to show.")
    access = serializers.ChoiceField(choices=TOKEN_ACCESS)
    all_scopes = serializers.BooleanField()
    scopes = serializers.SerializerMethodField()
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()
    revoked_at = serializers.DateTimeField(allow_null=True)
    last_used_at = serializers.DateTimeField(allow_null=True)
    connection = serializers.BooleanField(
        source="is_connection", help_text="A connection: granted to a hosted assistant on the OAuth consent page "
                                          "(its `name` is the assistant's); it holds OAuth tokens, not a secret.")

    def get_scopes(self, token) -> list[int]:
        return sorted(scope.pk for scope in token.scopes.all())


class WardTokenOut(TokenOut):
    user = serializers.CharField(source="user.username", help_text="The minor whose token it is.")


class TokenCreatedOut(TokenOut):
    token = serializers.CharField(help_text="The secret token. Shown once, never again.")
