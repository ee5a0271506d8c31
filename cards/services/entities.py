"""Entities and aliases: creating, aliasing and merging them. Which entity a
name means is decided by the one binder, `cards.selectors.entities.entity_bind`.
A new name is taken as it reads (cards.text: NFC, no invisible or direction
controls) and never as a look-alike of a name its scope already sees."""

from __future__ import annotations

from django.db import IntegrityError, connection, transaction
from django.utils import timezone
from django.utils.translation import gettext

from scopes.models import LADDER_SEEN_SQL, MAX_LADDER_DEPTH, Scope, User, ladder_seen_ids
from scopes.relations import members_of

from ..errors import ConfusableName, InvalidCard
from ..models import Alias, Entity, EntityKind
from ..selectors.entity_reads import entity_of_user
from ..selectors.entities import (LOOK_ALIKE_THRESHOLD, entities_in_scopes_sql, entity_bind, look_alikes_sql,
                                  skeleton_look_alikes, skeleton_look_alikes_sql)
from ..text import name_in, name_skeleton, normalize

ME = "me"


@transaction.atomic
def person_entity_ensure(*, user: User, scope: Scope) -> Entity:
    """The user's own person entity ("me"), in their personal `scope`; created on
    first call. A step of every user's setup (cards.receivers, on scopes.signals.user_set_up)."""
    entity, _ = Entity.objects.get_or_create(
        user=user, defaults={"scope": scope, "name": user.shown_name, "kind": EntityKind.PERSON})
    return entity


def member_look_alikes_propose(*, scope: Scope, user: User) -> None:
    """Someone joins a shared scope that already holds an entity under a name
    like theirs (the family's "Dana" written before Dana joined): proposed for
    merge into their own entity, in the review queue; nothing is merged. A step
    of every membership (cards.receivers, on scopes.signals.member_joined)."""
    try:
        person = entity_of_user(user)
    except Entity.DoesNotExist:
        return
    # The person's entity lives in another scope (their personal one): its id and
    # name go in as constants, so the statement reads only this scope's entities
    # (on a cluster, one shard; a join of two scopes' entities is refused there).
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO cards_possibleduplicate (scope_id, entity_id, similar_to_id, score, status, created_at,"
            " reason) SELECT e.scope_id, e.id, %(person)s, similarity(e.name_norm, %(norm)s), 'open', now(), ''"
            "   FROM cards_entity e"
            "  WHERE e.scope_id = %(scope)s AND e.user_id IS NULL AND e.merged_into_id IS NULL"
            "    AND e.name_norm %% %(norm)s AND similarity(e.name_norm, %(norm)s) >= %(threshold)s"
            " ON CONFLICT DO NOTHING",
            {"person": person.pk, "norm": person.name_norm, "scope": scope.pk, "threshold": LOOK_ALIKE_THRESHOLD})


@transaction.atomic
def entity_create(*, scope: Scope, name: str, kind: str = EntityKind.THING) -> Entity:
    name = name_in(name)
    if not normalize(name):
        raise InvalidCard(gettext("An entity needs a name."), fields={"name": [gettext("must not be empty")]})
    if Alias.objects.filter(scope=scope, name_norm=normalize(name)).exists():
        raise InvalidCard(gettext("%(name)s is already an alias in this scope.") % {"name": repr(name)},
                          fields={"name": [gettext("already an alias")]})
    look_alikes_refuse(scope_id=scope.pk, name=name)
    try:
        with transaction.atomic():
            entity = Entity.objects.create(scope=scope, name=name.strip(), kind=kind)
    except IntegrityError:
        raise InvalidCard(gettext("An entity named %(name)s already exists in this scope.") % {"name": repr(name)},
                          fields={"name": [gettext("already exists")]}) from None
    duplicates_propose(entity)
    return entity


@transaction.atomic
def alias_add(*, entity: Entity, name: str, scope: Scope | None = None) -> Alias:
    """`name` is `entity` too, in `scope`. A name that looks like the entity's
    own ("Pаris" with a Cyrillic а, for Paris) is how a look-alike is made to
    bind; one that looks like another entity's is refused."""
    scope = scope or entity.scope
    name = name_in(name)
    norm = normalize(name)
    clash = Entity.objects.filter(scope=scope, name_norm=norm).exclude(pk=entity.pk).exists()
    if not norm or clash:
        raise InvalidCard(gettext("%(name)s already names another entity here.") % {"name": repr(name)},
                          fields={"name": [gettext("already taken")]})
    look_alikes_refuse(scope_id=scope.pk, name=name, allowed=entity.merged_into_id or entity.pk)
    alias, _ = Alias.objects.get_or_create(scope=scope, name_norm=norm, defaults={"entity": entity, "name": name})
    if alias.entity_id != entity.pk:
        raise InvalidCard(gettext("%(name)s is already an alias of another entity.") % {"name": repr(name)},
                          fields={"name": [gettext("already taken")]})
    return alias


def entity_for_write(*, scope: Scope, actor: User, ref: Entity | str, kind: str = EntityKind.THING,
                     memo: dict | None = None) -> Entity:
    """Subject or object of a card being written: "me", an entity, or a name bound
    (or created) in the card's scope. `memo` lets a batch bind each name once."""
    return entity_for_write_resolved(scope=scope, actor=actor, ref=ref, kind=kind, memo=memo)[0]


def entity_for_write_resolved(*, scope: Scope, actor: User, ref: Entity | str, kind: str = EntityKind.THING,
                              memo: dict | None = None) -> tuple[Entity, bool]:
    """entity_for_write's entity, and whether this call created it (a write's
    `new_entity`): False for "me", an entity given, a name that bound, and a name
    a concurrent writer or an earlier card of the batch (`memo`) created first.
    A name binds as entity_bind binds it in the card's scope, as `actor` says it:
    a member of the scope, or from the writer's personal scope any fellow member,
    by name, username, alias or a relation word ("Dana", Kai's "Mom") — never a
    second entity. When a member and something else answer to the name, the
    member is meant (Binding.one's `members_first`); two members are refused
    (AmbiguousEntity, with the candidates), and nothing is written."""
    if isinstance(ref, Entity):
        return ref, False
    if normalize(ref) == ME:
        return entity_of_user(actor), False
    if memo is not None:
        key = (scope.pk, normalize(ref))
        if key in memo:
            return memo[key], False
        memo[key], created = entity_for_write_resolved(scope=scope, actor=actor, ref=ref, kind=kind)
        return memo[key], created
    bound = entity_bind(name=ref, scope_ids=[scope.pk], speaker=actor, suggest=False).one(
        ref, prefer_scope=scope.pk, members_first=True)
    if bound is not None:
        return bound, False
    return _entity_insert_or_get(scope=scope, name=ref.strip(), kind=kind)


# The first key of the advisory locks look-alike names take (the second: the skeleton's hash).
LOOK_ALIKE_LOCK = 0x4C4B  # "LK"


def _look_alikes_take_turns(skeleton: str, *, scope_id: int) -> list[int]:
    """Writers adding names with one skeleton ("Paris", "Pаris") at the same
    moment take turns until their transactions end, so the second's check sees
    the first's name (no index can say it: look-alikes across the ladder are a
    query, and ones stored before this rule stay side by side). Returns the
    scopes a name in `scope_id` is seen with (ladder_seen_ids), read by the
    same statement: the check that follows takes them as constants."""
    if not connection.in_atomic_block:
        raise RuntimeError("a look-alike check must run in the transaction that adds the name")
    with connection.cursor() as cursor:
        # The ladder is read from the scopes alone; the snapshot taken before the
        # lock is granted does not matter for it, only for the entities read next.
        cursor.execute(f"SELECT pg_advisory_xact_lock(%s, hashtext(%s)), ARRAY({LADDER_SEEN_SQL})",
                       [LOOK_ALIKE_LOCK, skeleton, scope_id, MAX_LADDER_DEPTH])
        return sorted(cursor.fetchone()[1])


def look_alikes_refuse(*, scope_id: int, name: str, allowed: int | None = None) -> None:
    """Refuse a new name in `scope_id` (an entity, or an alias of the entity
    `allowed`) that looks like a name seen from there — of the scope, the scopes
    above it, global, or a member's own — without being it: its TR39 skeleton
    is theirs, its exact form is not. One indexed equality per table."""
    skeleton = name_skeleton(name)
    if not skeleton:
        return
    rows = skeleton_look_alikes(name, _look_alikes_take_turns(skeleton, scope_id=scope_id))
    others = [(row["id"], row["scope_id"], row["name"], row["kind"]) for row in rows if row["id"] != allowed]
    if others:
        raise _confusable(name, others)


def _confusable(name: str, look_alikes: list[tuple]) -> ConfusableName:
    shown = ", ".join(repr(alike_name) for _, _, alike_name, _ in look_alikes)
    return ConfusableName(
        gettext("%(name)s looks like %(shown)s but is written with other characters. Did you mean %(shown)s? Use that "
                "name, or register this spelling as its alias.") % {"name": repr(name), "shown": shown}, name=name,
        candidates=[{"id": pk, "scope": scope_id, "name": alike_name, "kind": kind}
                    for pk, scope_id, alike_name, kind in look_alikes])


def _entity_insert_or_get(*, scope: Scope, name: str, kind: str) -> tuple[Entity, bool]:
    """Create the entity, or take the one a concurrent writer just created (the
    unique index decides; ON CONFLICT waits for the other transaction; the flag
    says which) — unless
    it looks like a name seen from its scope (look_alikes_refuse's rule): one
    statement inserts only when no look-alike is found, and returns them; the
    same statement proposes the trigram-close ones as possible duplicates
    (duplicates_propose's rule), so a first mention costs one statement more
    than binding, after its turn among look-alikes (which reads the scopes it
    is seen with). Those scope ids are constants here, never the ladder's CTE:
    the statement touches only entities and aliases of known scopes."""
    norm, skeleton = normalize(name), name_skeleton(name)
    seen_from = _look_alikes_take_turns(skeleton, scope_id=scope.pk) if skeleton else ladder_seen_ids(scope.pk)
    now = timezone.now()
    alike_sql, alike_params = skeleton_look_alikes_sql(scope_ids=seen_from, skeleton=skeleton, norm=norm)
    similar_sql, similar_params = look_alikes_sql(norm, entities_in_scopes_sql(seen_from))
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH alike AS ({alike_sql}), created AS ("
            "  INSERT INTO cards_entity (scope_id, name, name_norm, name_skeleton, kind, user_id, created_at)"
            "  SELECT %s, %s, %s, %s, %s, NULL, %s WHERE NOT EXISTS (SELECT FROM alike)"
            "  ON CONFLICT (scope_id, name_norm) DO NOTHING RETURNING id),"
            " proposed AS ("
            "  INSERT INTO cards_possibleduplicate (scope_id, entity_id, similar_to_id, score, status, created_at,"
            "   reason)"
            "  SELECT %s, created.id, close.id, close.score, 'open', now(), ''"
            f"   FROM created, ({similar_sql}) AS close"
            # One snapshot hides the new row from `close` on one PostgreSQL; Citus runs the CTEs one after
            # the other, and `close` would find the new entity itself.
            "  WHERE close.id <> created.id"
            "  ON CONFLICT DO NOTHING)"
            " SELECT id, NULL, NULL, NULL FROM created"
            " UNION ALL SELECT id, scope_id, name, kind FROM alike",
            [*alike_params, scope.pk, name, norm, skeleton, kind, now, scope.pk, *similar_params])
        rows = cursor.fetchall()
    look_alikes = [row for row in rows if row[2] is not None]
    if look_alikes:
        raise _confusable(name, look_alikes)
    if not rows:
        return Entity.objects.get(scope=scope, name_norm=norm), False
    row = rows[0]
    entity = Entity(id=row[0], scope=scope, name=name, name_norm=norm, name_skeleton=skeleton, kind=kind,
                    created_at=now)
    entity._state.adding, entity._state.db = False, connection.alias
    return entity, True


def duplicates_propose(entity: Entity) -> None:
    """A new entity that looks like one in its scope, the scopes above it, global
    or a member's own person entity becomes a "possible duplicate" for review;
    nothing is merged. The entities compared with are those of ladder_seen_ids (read
    first, from the scopes alone) and the members' own."""
    if entity.user_id is not None:
        return
    eligible = entities_in_scopes_sql(ladder_seen_ids(entity.scope_id))
    sql, params = look_alikes_sql(entity.name_norm, eligible, exclude_id=entity.pk)
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO cards_possibleduplicate (scope_id, entity_id, similar_to_id, score, status, created_at,"
            " reason)"
            f" SELECT %s, %s, alike.id, alike.score, 'open', now(), '' FROM ({sql}) AS alike ON CONFLICT DO NOTHING",
            [entity.scope_id, entity.pk, *params])


def look_alike_duplicates_propose(entity: Entity) -> None:
    """An entity stored before look-alikes were refused (a "Pаris" beside
    "Paris") is proposed for merge into each entity it looks like, seen from its
    scope: into a member's own, else into the older one. Nothing is merged."""
    if entity.user_id is not None or entity.merged_into_id is not None or not entity.name_skeleton:
        return
    sql, params = skeleton_look_alikes_sql(scope_ids=ladder_seen_ids(entity.scope_id),
                                           skeleton=entity.name_skeleton, norm=entity.name_norm)
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO cards_possibleduplicate (scope_id, entity_id, similar_to_id, score, status, created_at,"
            " reason)"
            f" SELECT %s, %s, alike.id, 1.0, 'open', now(), '' FROM ({sql}) AS alike"
            " WHERE alike.id <> %s AND (alike.user_id IS NOT NULL OR alike.id < %s) ON CONFLICT DO NOTHING",
            [entity.scope_id, entity.pk, *params, entity.pk, entity.pk])


@transaction.atomic
def entity_merge(*, duplicate: Entity, into: Entity) -> Entity:
    """`duplicate` is `into` under another name: its name (and what was merged
    into it) binds to `into` from now on. Cards are not rewritten — an event's
    "to whom" is write-once — they are read through the merge."""
    root = into.merged_into or into
    ladder = [duplicate.scope_id, *duplicate.scope.ancestor_ids()]
    if duplicate.pk == root.pk or duplicate.user_id is not None:
        raise InvalidCard(gettext("An entity cannot be merged into itself, and a person's own entity is never merged."),
                          fields={"entity": ["cannot be merged"]})
    # A member's own entity is who they are in every scope they belong to, and in their fellow members'
    # personal scopes (scopes.relations.members_of).
    member_here = root.user_id is not None and members_of([duplicate.scope_id]).filter(user_id=root.user_id).exists()
    if root.scope_id not in ladder and root.scope.kind != "global" and not member_here:
        raise InvalidCard(gettext("Merge into an entity of the same scope, a scope above it, or global: members of "
                                  "this scope could not see it otherwise."),
                          fields={"into": [gettext("not visible from here")]})
    Entity.objects.filter(merged_into=duplicate).update(merged_into=root)
    duplicate.merged_into = root
    duplicate.save(update_fields=["merged_into"])
    return duplicate
