"""Users, the scope ladder, memberships and per-scope object permissions."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import AbstractUser, UserManager
from django.core.exceptions import ValidationError
from django.db import connection, models, transaction
from django.db.models.functions import Now
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy
from guardian.models import UserObjectPermissionBase

from .restriction import ScopedQuerySet
from .signals import user_created
from .zones import DEFAULT_ZONE, time_zone_names, validate_time_zone  # noqa: F401  (migrations name it here)


class MemoryUserManager(UserManager):
    """Every user gets their personal scope and their own person entity in the
    same transaction, whichever path creates them (service, createsuperuser,
    admin), so the invariant "exactly one personal scope" can never lapse."""

    def _create_user(self, username, email, password, **extra_fields):
        with transaction.atomic():
            user = super()._create_user(username, email, password, **extra_fields)
            # The setup is a service (scopes.services.user_setup), and services import the models:
            # the manager says a user was created, and ScopesConfig.ready connects the setup.
            user_created.send(sender=User, user=user)
        return user


class Language(models.TextChoices):
    EN = "en", "English"
    ZH_HANT = "zh-hant", "繁體中文"
    ZH_HANS = "zh-hans", "简体中文"


class User(AbstractUser):
    """A person. Their own entity ("me") and personal scope are created with them."""

    display_name = models.CharField(max_length=150, blank=True)
    time_zone = models.CharField(max_length=64, default=DEFAULT_ZONE, validators=[validate_time_zone],
                                 help_text="An IANA zone name (never an offset): the day the person's words mean.")
    # False until the person chose a zone (or kept the default on purpose): the
    # dashboard then proposes the browser's zone, and never stores it unasked.
    time_zone_chosen = models.BooleanField(default=False)
    # Blank until the person picks one: pages then follow the browser's language (or the switch's cookie).
    language = models.CharField(max_length=16, choices=Language.choices, default="", blank=True)

    objects = MemoryUserManager()

    def __str__(self) -> str:
        return self.display_name or self.username

    @property
    def shown_name(self) -> str:
        return self.display_name or self.username

    @property
    def zone_unset(self) -> bool:
        """Still the default zone, never chosen: the dashboard proposes the browser's."""
        return not self.time_zone_chosen and self.time_zone == DEFAULT_ZONE


class ScopeKind(models.TextChoices):
    # The labels are the ones Django would derive (the migrations hold them); pages name kinds with KIND_NAMES.
    PERSONAL = "personal", _("Personal")
    PROJECT = "project", _("Project")
    FAMILY = "family", _("Family")
    TEAM = "team", _("Team")
    DEPARTMENT = "department", _("Department")
    ENTERPRISE = "enterprise", _("Enterprise")
    GLOBAL = "global", _("Global")


# A kind as a page says it inside a sentence or a table: lower case in English, as the pages always wrote it.
KIND_NAMES = {
    ScopeKind.PERSONAL: pgettext_lazy("scope kind", "personal"),
    ScopeKind.PROJECT: pgettext_lazy("scope kind", "project"),
    ScopeKind.FAMILY: pgettext_lazy("scope kind", "family"),
    ScopeKind.TEAM: pgettext_lazy("scope kind", "team"),
    ScopeKind.DEPARTMENT: pgettext_lazy("scope kind", "department"),
    ScopeKind.ENTERPRISE: pgettext_lazy("scope kind", "enterprise"),
    ScopeKind.GLOBAL: pgettext_lazy("scope kind", "global"),
}


# Which kinds may stand directly above a kind on the ladder.
ALLOWED_PARENTS: dict[str, set[str]] = {
    ScopeKind.PROJECT: {ScopeKind.PERSONAL, ScopeKind.FAMILY, ScopeKind.TEAM,
                        ScopeKind.DEPARTMENT, ScopeKind.ENTERPRISE},
    ScopeKind.TEAM: {ScopeKind.DEPARTMENT, ScopeKind.ENTERPRISE},
    ScopeKind.DEPARTMENT: {ScopeKind.ENTERPRISE},
    ScopeKind.FAMILY: set(),
    ScopeKind.ENTERPRISE: set(),
    ScopeKind.PERSONAL: set(),
    ScopeKind.GLOBAL: set(),
}
MAX_LADDER_DEPTH = 8


class ScopeQuerySet(ScopedQuerySet):
    """Scopes, restricted by the one primitive (scopes/restriction.py) as every row
    stored in them is: a scope's way to its scope is its own id."""

    scope_path = ""


class Scope(models.Model):
    """A container every card belongs to; scopes form a ladder through `parent`."""

    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=16, choices=ScopeKind.choices)
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT,
                               related_name="children")
    owner = models.OneToOneField("scopes.User", null=True, blank=True, on_delete=models.CASCADE,
                                 related_name="personal_scope",
                                 help_text="Set only on personal scopes.")
    created_at = models.DateTimeField(auto_now_add=True)
    auto_accept_explicit = models.BooleanField(
        default=False, help_text='Store a member\'s own explicit "remember that …" without review. '
                                 "Nothing a model extracted is ever auto-accepted.")
    # A project that ended (scopes/archive.py): read-only, out of default reads, restorable.
    archived_at = models.DateTimeField(null=True, blank=True, help_text="When the project was archived; "
                                       "null while it is active.")
    # Reads stamp this at most once a day (scopes/idle.py), so the upkeep job can tell an idle scope;
    # it starts at creation, so a new scope is not idle and its first read writes nothing.
    last_read_at = models.DateTimeField(default=timezone.now, db_default=Now(),
                                        help_text="About when the scope was last read (to the day).")

    objects = ScopeQuerySet.as_manager()

    class Meta:
        permissions = [
            ("write_scope", "Write cards in the scope"),
            ("review_scope", "Review candidates in the scope"),
            ("manage_scope", "Manage members of the scope"),
        ]
        constraints = [
            models.CheckConstraint(
                name="personal_scope_has_owner",
                condition=(models.Q(kind="personal", owner__isnull=False)
                           | (~models.Q(kind="personal") & models.Q(owner__isnull=True))),
            ),
            models.UniqueConstraint(fields=["kind"], condition=models.Q(kind="global"),
                                    name="one_global_scope"),
            models.CheckConstraint(name="scope_not_own_parent",
                                   condition=~models.Q(parent=models.F("id"))),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.kind})"

    @property
    def kind_name(self) -> str:
        """The kind in the page's language."""
        return KIND_NAMES.get(self.kind, self.kind)

    @property
    def shown_with_kind(self) -> str:
        """The name and kind as a page lists a scope to choose: "Home (family)"."""
        return _("%(name)s (%(kind)s)") % {"name": self.name, "kind": self.kind_name}

    def clean(self) -> None:
        if self.parent_id is None:
            return
        parent = self.parent
        if parent.kind not in ALLOWED_PARENTS.get(self.kind, set()):
            raise ValidationError({"parent": _("A %(kind)s scope cannot sit under a %(parent)s scope.")
                                   % {"kind": self.kind_name, "parent": parent.kind_name}})
        seen = {self.pk} if self.pk else set()
        node, depth = parent, 0
        while node is not None:
            if node.pk in seen:
                raise ValidationError({"parent": _("The ladder would form a cycle.")})
            seen.add(node.pk)
            node, depth = node.parent, depth + 1
            if depth >= MAX_LADDER_DEPTH:
                raise ValidationError({"parent": _("A ladder is at most %(most)s scopes deep.")
                                       % {"most": MAX_LADDER_DEPTH}})

    def ancestor_ids(self) -> list[int]:
        """Ids of the scopes above this one, nearest first, in one query."""
        if self.parent_id is None:
            return []
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute(LADDER_UP_SQL + " ORDER BY depth", [self.parent_id, MAX_LADDER_DEPTH])
            return [row[0] for row in cursor.fetchall()]


_LADDER_UP_CTE = """
    WITH RECURSIVE up(id, parent_id, depth) AS (
        SELECT id, parent_id, 1 FROM scopes_scope WHERE id = %s
        UNION ALL
        SELECT s.id, s.parent_id, up.depth + 1 FROM scopes_scope s JOIN up ON s.id = up.parent_id
         WHERE up.depth < %s
    )"""
# A scope and every scope above it: `SELECT id FROM up`, with `depth` 1 for the
# scope named by the first parameter. Usable as a subquery (`id IN (…)`).
LADDER_UP_SQL = _LADDER_UP_CTE + """
    SELECT id FROM up"""
# The same ladder as a read climbs it (scopes/archive.py): an archived scope
# above the one named is skipped — its cards are read only when it is named.
LADDER_READ_SQL = _LADDER_UP_CTE + """
    SELECT up.id FROM up JOIN scopes_scope s ON s.id = up.id WHERE up.depth = 1 OR s.archived_at IS NULL"""
# A scope, every scope above it and global: what a name written in that scope
# is seen with (cards.services.entities), whoever writes it.
LADDER_SEEN_SQL = _LADDER_UP_CTE + f"""
    SELECT id FROM up UNION SELECT id FROM scopes_scope WHERE kind = '{ScopeKind.GLOBAL.value}'"""


def ladder_seen_ids(scope_id: int) -> list[int]:
    """Ids of LADDER_SEEN_SQL's scopes, in one statement on the scopes alone. A
    statement on the scoped tables takes them as constants: on a cluster those
    tables are distributed by scope_id, a recursive CTE inside a statement on
    them is refused, and constant scope ids let the planner prune."""
    with connection.cursor() as cursor:
        cursor.execute(LADDER_SEEN_SQL, [scope_id, MAX_LADDER_DEPTH])
        return sorted(row[0] for row in cursor.fetchall())


# The scopes whose reads and writes reach any of %(ids)s: each scope and every scope below it; for a personal
# scope, every scope its owner belongs to and those below (a read takes its reader's personal scope along,
# scopes/selectors.py read_scope_ids); for global, every scope (LADDER_SEEN_SQL sees it from all of them).
LADDER_REACHING_SQL = f"""
    WITH RECURSIVE named AS (SELECT id, kind, owner_id FROM scopes_scope WHERE id = ANY(%(ids)s)),
    start(id) AS (
        SELECT id FROM named
        UNION SELECT m.scope_id FROM scopes_membership m JOIN named ON m.user_id = named.owner_id
        UNION SELECT s.id FROM scopes_scope s WHERE EXISTS (SELECT FROM named WHERE kind = '{ScopeKind.GLOBAL.value}')
    ),
    down(id, depth) AS (
        SELECT id, 1 FROM start
        UNION ALL
        SELECT s.id, down.depth + 1 FROM scopes_scope s JOIN down ON s.parent_id = down.id
         WHERE down.depth < %(depth)s
    )
    SELECT DISTINCT id FROM down"""


def ladder_reaching_ids(scope_ids) -> list[int]:
    """Ids of LADDER_REACHING_SQL's scopes, in one statement on the scopes alone: where a row may lie that
    points across scopes at a row of `scope_ids` (an upkeep proposal's `other` card, a card naming an
    entity, a review decision about a card), for a statement on the scoped tables to name as constants."""
    if not scope_ids:
        return []
    with connection.cursor() as cursor:
        cursor.execute(LADDER_REACHING_SQL, {"ids": sorted(set(scope_ids)), "depth": MAX_LADDER_DEPTH})
        return sorted(row[0] for row in cursor.fetchall())


class Role(models.TextChoices):
    # The labels are the ones Django would derive (the migrations hold them); pages name roles with ROLE_NAMES.
    OWNER = "owner", _("Owner")
    ADMIN = "admin", _("Admin")
    MEMBER = "member", _("Member")
    REVIEWER = "reviewer", _("Reviewer")
    VIEWER = "viewer", _("Viewer")


# A role as a page says it inside a sentence ("invites you as member"): lower case in English.
ROLE_NAMES = {
    Role.OWNER: pgettext_lazy("role", "owner"),
    Role.ADMIN: pgettext_lazy("role", "admin"),
    Role.MEMBER: pgettext_lazy("role", "member"),
    Role.REVIEWER: pgettext_lazy("role", "reviewer"),
    Role.VIEWER: pgettext_lazy("role", "viewer"),
}


# Each relation (scopes.relations.RELATIONS) as a page names it: `relation_name` on a row that has one.
RELATION_NAMES = {
    "mother": pgettext_lazy("relation", "mother"), "father": pgettext_lazy("relation", "father"),
    "parent": pgettext_lazy("relation", "parent"), "wife": pgettext_lazy("relation", "wife"),
    "husband": pgettext_lazy("relation", "husband"), "spouse": pgettext_lazy("relation", "spouse"),
    "partner": pgettext_lazy("relation", "partner"), "son": pgettext_lazy("relation", "son"),
    "daughter": pgettext_lazy("relation", "daughter"), "child": pgettext_lazy("relation", "child"),
    "brother": pgettext_lazy("relation", "brother"), "sister": pgettext_lazy("relation", "sister"),
    "sibling": pgettext_lazy("relation", "sibling"), "grandmother": pgettext_lazy("relation", "grandmother"),
    "grandfather": pgettext_lazy("relation", "grandfather"), "grandchild": pgettext_lazy("relation", "grandchild"),
    "aunt": pgettext_lazy("relation", "aunt"), "uncle": pgettext_lazy("relation", "uncle"),
    "cousin": pgettext_lazy("relation", "cousin"), "niece": pgettext_lazy("relation", "niece"),
    "nephew": pgettext_lazy("relation", "nephew"), "friend": pgettext_lazy("relation", "friend"),
    "neighbour": pgettext_lazy("relation", "neighbour"), "roommate": pgettext_lazy("relation", "roommate"),
    "manager": pgettext_lazy("relation", "manager"), "report": pgettext_lazy("relation", "report"),
    "colleague": pgettext_lazy("relation", "colleague"),
}


def relation_shown(relation: str, said: str = "") -> str:
    """A relation as a page shows it: in the person's words ("friend from school", "Mom"),
    but a plain relation said by its own name ("mother") in the page's language."""
    if said and " ".join(said.casefold().split()) != relation:
        return said
    return RELATION_NAMES.get(relation, relation)


class RelationNamed:
    """A row with a `relation` (a relation key, words as said, or "") — and perhaps `said`,
    the words as said — names it in the page's language where it is a plain relation."""

    relation: str

    @property
    def relation_name(self) -> str:
        return relation_shown(self.relation, getattr(self, "said", ""))


class RoleNamed:
    """A row with a `role` names it in the page's language."""

    role: str

    @property
    def role_name(self) -> str:
        return ROLE_NAMES.get(self.role, self.role)


ROLE_PERMISSIONS: dict[str, tuple[str, ...]] = {
    Role.OWNER: ("view_scope", "write_scope", "review_scope", "manage_scope"),
    Role.ADMIN: ("view_scope", "write_scope", "review_scope", "manage_scope"),
    Role.MEMBER: ("view_scope", "write_scope"),
    Role.REVIEWER: ("view_scope", "review_scope"),
    Role.VIEWER: ("view_scope",),
}


class Membership(RoleNamed, models.Model):
    """A user's place in a scope: a role (what they may do). Who they are to the
    other members is a `MemberRelation` per pair, read from one side."""

    user = models.ForeignKey("scopes.User", on_delete=models.CASCADE, related_name="memberships")
    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices)
    # Set by a family's owner (scopes/guardians.py): a minor makes no tokens or
    # scopes, and the family's owners are their guardians.
    minor = models.BooleanField(default=False, help_text="A minor in this family: no tokens or scopes of their "
                                                          "own; the family's owners see and revoke their tokens.")
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ScopedQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "scope"], name="one_membership_per_scope"),
            # An owner is a guardian; a minor cannot be their own.
            models.CheckConstraint(name="a_minor_is_never_owner", condition=~models.Q(minor=True, role="owner")),
        ]
        indexes = [models.Index(fields=["user"], condition=models.Q(minor=True), name="minor_memberships")]

    def __str__(self) -> str:
        return f"{self.user} in {self.scope} as {self.role}"


class ScopeUserObjectPermission(UserObjectPermissionBase):
    """Direct-FK guardian grants: joins on an integer key, not a generic text pk."""

    content_object = models.ForeignKey(Scope, on_delete=models.CASCADE)


class MemberRelation(RelationNamed, models.Model):
    """How one member stands to another in a scope, read from one side: Dana
    (`member`) is Kai's (`of`) mother. Kai's "Mom" binds Dana through this row;
    Sam's "Mom" does not. `said` keeps the relation in the person's words ("friend
    from school"); `relation` is what they mean, a key of scopes.relations (friend),
    or "" when the words name no relation this memory knows (then nothing binds by it)."""

    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="relations")
    member = models.ForeignKey("scopes.User", on_delete=models.CASCADE, related_name="+")
    of = models.ForeignKey("scopes.User", on_delete=models.CASCADE, related_name="+")
    relation = models.CharField(max_length=32, blank=True)
    said = models.CharField(max_length=100, blank=True, default="", help_text="The relation in the person's words.")
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ScopedQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["scope", "member", "of"], name="one_relation_per_pair"),
            models.CheckConstraint(name="relation_between_two", condition=~models.Q(member=models.F("of"))),
        ]
        indexes = [models.Index(fields=["scope", "of"], name="relation_by_speaker")]

    def __str__(self) -> str:
        return f"{self.member} is {self.relation} of {self.of} in {self.scope}"


class Share(models.Model):
    """A member's choice (DESIGN §3 "Sharing by the person's choice"): the members of
    `scope`, a family or team `owner` belongs to, may read `owner`'s cards about
    themselves with the label `label_key` that live in the owner's personal scope —
    read, never write. A row of the scope it is shared with (its members see what is
    shared with them; only the owner changes it: scopes/sharing.py). The label is
    its registry key as text: the ladder sits below the cards app."""

    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="shares")
    owner = models.ForeignKey("scopes.User", on_delete=models.CASCADE, related_name="shares")
    label_key = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ScopedQuerySet.as_manager()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["scope", "owner", "label_key"], name="one_share_per_label")]

    def __str__(self) -> str:
        return f"{self.owner} shares {self.label_key} with {self.scope}"



class AgentToken(models.Model):
    """An agent's credential. It acts for one user, on some of that user's
    scopes, never beyond what the user may do at the moment of the request.
    Only a SHA-256 of the token is stored; the secret is shown once.

    A *connection* is an agent token granted to a hosted assistant on the OAuth
    consent page (`application` set): its secret is never shown, and the
    assistant presents OAuth access tokens instead, which act as this row
    (scopes/connections.py). One row, one set of rights, two ways to hold them."""

    user = models.ForeignKey("scopes.User", on_delete=models.CASCADE, related_name="agent_tokens")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=16, unique=True, help_text="The identifying part, safe to show.")
    secret_hash = models.CharField(max_length=64)
    can_write = models.BooleanField(default=False)
    # Propose-only: its writes become review candidates of its person, never
    # cards (for agents a household does not yet trust); never with can_write.
    proposes = models.BooleanField(default=False, help_text="Its writes wait in its person's review queue.")
    all_scopes = models.BooleanField(default=False, help_text="Every scope the user can see, now and later.")
    scopes = models.ManyToManyField(Scope, blank=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    application = models.ForeignKey(settings.OAUTH2_PROVIDER_APPLICATION_MODEL, null=True, blank=True,
                                    on_delete=models.CASCADE, related_name="+",
                                    help_text="For a connection: the OAuth client it was granted to.")

    class Meta:
        indexes = [models.Index(fields=["user", "created_at"], name="token_by_user")]
        constraints = [models.CheckConstraint(name="token_writes_or_proposes",
                                              condition=~models.Q(can_write=True, proposes=True)),
                       # A person grants an assistant one connection at a time; consenting again changes it.
                       models.UniqueConstraint(fields=["user", "application"], name="one_live_connection",
                                               condition=models.Q(application__isnull=False,
                                                                  revoked_at__isnull=True))]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def access(self) -> str:
        """One of TOKEN_ACCESS (scopes/principals.py): what the token may do."""
        return "propose" if self.proposes else "read+write" if self.can_write else "read"

    @property
    def access_name(self) -> str:
        """The access in the page's language."""
        return ACCESS_NAMES[self.access]

    @property
    def is_connection(self) -> bool:
        return self.application_id is not None


# A token's access as pages say it (the API and the command keep `access` itself).
ACCESS_NAMES = {
    "read": pgettext_lazy("token access", "read"),
    "read+write": pgettext_lazy("token access", "read+write"),
    "propose": pgettext_lazy("token access", "propose"),
}


class Invite(RoleNamed, RelationNamed, models.Model):
    """A link that lets one person join a scope with a role. Only a SHA-256 of
    the link's secret is stored; the link is shown once, to the admin who made it."""

    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="invites")
    role = models.CharField(max_length=16, choices=Role.choices)
    relation = models.CharField(max_length=100, blank=True)
    token_hash = models.CharField(max_length=64, unique=True)
    created_by = models.ForeignKey("scopes.User", on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    used_by = models.ForeignKey("scopes.User", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    used_at = models.DateTimeField(null=True, blank=True)

    objects = ScopedQuerySet.as_manager()

    class Meta:
        constraints = [models.CheckConstraint(name="invite_never_owner", condition=~models.Q(role="owner"))]

    def __str__(self) -> str:
        return f"invite to {self.scope} as {self.role}"


class InvitationStatus(models.TextChoices):
    INVITED = "invited", _("Invited")
    ACCEPTED = "accepted", _("Accepted")
    DECLINED = "declined", _("Declined")
    WITHDRAWN = "withdrawn", _("Withdrawn")


class Invitation(RoleNamed, RelationNamed, models.Model):
    """Someone asked by name to join a scope with a role (membership by consent,
    DESIGN §3). It grants nothing: no membership and no guardian grant exist
    until the invitee accepts, so nothing of the scope reaches them or their
    tokens before. `invitee` is null when no one had the name: such a row
    answers and lists exactly like any other and can never be accepted (an
    account made later under that name does not inherit it), so a name cannot
    be probed by inviting it."""

    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="invitations")
    username = models.CharField(max_length=150, help_text="The name as it was asked for.")
    invitee = models.ForeignKey("scopes.User", null=True, blank=True, on_delete=models.CASCADE,
                                related_name="invitations")
    role = models.CharField(max_length=16, choices=Role.choices)
    relation = models.CharField(max_length=100, blank=True,
                                help_text="What the invitee is to the person who invited them, in the inviter's "
                                          "words; stated when they accept.")
    invited_by = models.ForeignKey("scopes.User", on_delete=models.CASCADE, related_name="+")
    status = models.CharField(max_length=16, choices=InvitationStatus.choices, default=InvitationStatus.INVITED)
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)

    objects = ScopedQuerySet.as_manager()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["scope", "username"], condition=models.Q(status="invited"),
                                               name="one_open_invitation_per_name")]
        # The invitee's own list: a person's row across scopes, like their person entity.
        indexes = [models.Index(fields=["invitee", "status"], name="invitation_by_invitee")]

    def __str__(self) -> str:
        return f"{self.username} invited to {self.scope} as {self.role} ({self.status})"
