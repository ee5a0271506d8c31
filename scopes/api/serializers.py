from __future__ import annotations

from rest_framework import serializers

from core.api.common import IdField, StrictSerializer

from ..models import Role, ScopeKind
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


class MemberIn(StrictSerializer):
    username = serializers.CharField(max_length=150)
    role = serializers.ChoiceField(choices=ASSIGNABLE_ROLES)
    relation = serializers.CharField(max_length=100, required=False, allow_blank=True, default=None)


class MemberPatchIn(StrictSerializer):
    role = serializers.ChoiceField(choices=ASSIGNABLE_ROLES, required=False)
    relation = serializers.CharField(max_length=100, required=False, allow_blank=True)


class MemberOut(serializers.Serializer):
    username = serializers.CharField(source="user.username")
    display_name = serializers.CharField(source="user.shown_name")
    role = serializers.CharField()
    relation = serializers.SerializerMethodField(help_text='What this member is to you ("mother"), or "".')

    def get_relation(self, membership) -> str:
        viewer = self.context.get("viewer")
        if viewer is None:
            return ""
        return relation_to(scope_id=membership.scope_id, member_id=membership.user_id, of_id=viewer.pk)


class RelationIn(StrictSerializer):
    member = serializers.CharField(max_length=150, help_text="Username of the member who is …")
    of = serializers.CharField(max_length=150, help_text="… this relation of this member (username).")
    relation = serializers.CharField(max_length=100, required=False, help_text='"mother", "wife", 媽媽…')


class RelationOut(serializers.Serializer):
    member = serializers.CharField(source="member.username")
    of = serializers.CharField(source="of.username")
    relation = serializers.CharField()


class TokenIn(StrictSerializer):
    name = serializers.CharField(max_length=100)
    access = serializers.ChoiceField(choices=["read", "read+write"], default="read")
    scopes = serializers.ListField(child=serializers.CharField(max_length=24), min_length=1, max_length=200,
                                   help_text='Scope ids, "personal", or ["all"]: every scope you can see, now and later.')
    days = serializers.IntegerField(min_value=1, max_value=366, default=90)


class TokenOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    prefix = serializers.CharField(help_text="The identifying part; safe to show.")
    access = serializers.CharField()
    all_scopes = serializers.BooleanField()
    scopes = serializers.SerializerMethodField()
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()
    revoked_at = serializers.DateTimeField(allow_null=True)
    last_used_at = serializers.DateTimeField(allow_null=True)

    def get_scopes(self, token) -> list[int]:
        return sorted(scope.pk for scope in token.scopes.all())


class TokenCreatedOut(TokenOut):
    token = serializers.CharField(help_text="The secret token. Shown once, never again.")
