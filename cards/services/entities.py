"""Entities and aliases: creating, aliasing and merging them. Which entity a
name means is decided by the one binder, `cards.selectors.entities.entity_bind`."""

from __future__ import annotations

from django.db import IntegrityError, connection, transaction
from django.db.models import Q
from django.db.models.expressions import RawSQL
from django.utils import timezone

from core.compiled import Compiled
from scopes.models import LADDER_UP_SQL, MAX_LADDER_DEPTH, Membership, Scope, ScopeKind, User

from ..errors import InvalidCard
from ..models import Alias, Entity, EntityKind
from ..selectors.entities import LOOK_ALIKE_THRESHOLD, entity_bind, look_alikes_sql
from ..text import normalize

ME = "me"


@transaction.atomic
def person_entity_ensure(*, user: User, scope: Scope) -> Entity:
    """The user's own person entity ("me"), in their personal `scope`; created on
    first call. A step of every user's setup (registered in CardsConfig.ready)."""
    entity, _ = Entity.objects.get_or_create(
        user=user, defaults={"scope": scope, "name": user.shown_name, "kind": EntityKind.PERSON})
    return entity


def member_look_alikes_propose(*, scope: Scope, user: User) -> None:
    """Someone joins a shared scope that already holds an entity under a name
    like theirs (the family's "Dana" written before Dana joined): proposed for
    merge into their own entity, in the review queue; nothing is merged. A step
    of every membership (registered in CardsConfig.ready)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO cards_possibleduplicate (entity_id, similar_to_id, score, status, created_at, reason)"
            " SELECT e.id, p.id, similarity(e.name_norm, p.name_norm), 'open', now(), ''"
            "   FROM cards_entity e JOIN cards_entity p ON p.user_id = %(user)s"
            "  WHERE e.scope_id = %(scope)s AND e.user_id IS NULL AND e.merged_into_id IS NULL"
            "    AND e.name_norm %% p.name_norm AND similarity(e.name_norm, p.name_norm) >= %(threshold)s"
            " ON CONFLICT DO NOTHING",
            {"user": user.pk, "scope": scope.pk, "threshold": LOOK_ALIKE_THRESHOLD})


def entity_of_user(user: User) -> Entity:
    # The OneToOne accessor caches on the user object: one query per actor, not per card.
    return user.entity


@transaction.atomic
def entity_create(*, scope: Scope, name: str, kind: str = EntityKind.THING) -> Entity:
    if not normalize(name):
        raise InvalidCard("An entity needs a name.", fields={"name": ["must not be empty"]})
    if Alias.objects.filter(scope=scope, name_norm=normalize(name)).exists():
        raise InvalidCard(f"{name!r} is already an alias in this scope.", fields={"name": ["already an alias"]})
    try:
        with transaction.atomic():
            entity = Entity.objects.create(scope=scope, name=name.strip(), kind=kind)
    except IntegrityError:
        raise InvalidCard(f"An entity named {name!r} already exists in this scope.",
                          fields={"name": ["already exists"]}) from None
    duplicates_propose(entity)
    return entity


@transaction.atomic
def alias_add(*, entity: Entity, name: str, scope: Scope | None = None) -> Alias:
    scope = scope or entity.scope
    norm = normalize(name)
    clash = Entity.objects.filter(scope=scope, name_norm=norm).exclude(pk=entity.pk).exists()
    if not norm or clash:
        raise InvalidCard(f"{name!r} already names another entity here.", fields={"name": ["already taken"]})
    alias, _ = Alias.objects.get_or_create(scope=scope, name_norm=norm, defaults={"entity": entity, "name": name})
    if alias.entity_id != entity.pk:
        raise InvalidCard(f"{name!r} is already an alias of another entity.", fields={"name": ["already taken"]})
    return alias


def entity_for_write(*, scope: Scope, actor: User, ref: Entity | str, kind: str = EntityKind.THING,
                     memo: dict | None = None) -> Entity:
    """Subject or object of a card being written: "me", an entity, or a name bound
    (or created) in the card's scope. `memo` lets a batch bind each name once."""
    if isinstance(ref, Entity):
        return ref
    if normalize(ref) == ME:
        return entity_of_user(actor)
    if memo is not None:
        key = (scope.pk, normalize(ref))
        if key not in memo:
            memo[key] = entity_for_write(scope=scope, actor=actor, ref=ref, kind=kind)
        return memo[key]
    # A member of a shared scope is their own entity there ("Dana", Kai's "Mom"), never a new one.
    bound = entity_bind(name=ref, scope_ids=[scope.pk], speaker=actor, suggest=False).one(ref, prefer_scope=scope.pk)
    if bound is not None:
        return bound
    return _entity_insert_or_get(scope=scope, name=ref.strip(), kind=kind)


def _entity_insert_or_get(*, scope: Scope, name: str, kind: str) -> Entity:
    """Create the entity, or take the one a concurrent writer just created (the
    unique index decides; ON CONFLICT waits for the other transaction)."""
    now = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO cards_entity (scope_id, name, name_norm, kind, user_id, created_at)"
            " VALUES (%s, %s, %s, %s, NULL, %s) ON CONFLICT (scope_id, name_norm) DO NOTHING RETURNING id",
            [scope.pk, name, normalize(name), kind, now])
        row = cursor.fetchone()
    if row is None:
        return Entity.objects.get(scope=scope, name_norm=normalize(name))
    entity = Entity(id=row[0], scope=scope, name=name, name_norm=normalize(name), kind=kind, created_at=now)
    entity._state.adding, entity._state.db = False, connection.alias
    duplicates_propose(entity)
    return entity


def _seen_from_query(*, scope_id):
    """Ids of the entities a new entity in `scope_id` sees: of the scope, the
    scopes above it, global, and the members' own."""
    ladder = Scope.objects.filter(Q(pk__in=RawSQL(LADDER_UP_SQL, [scope_id, MAX_LADDER_DEPTH]))
                                  | Q(kind=ScopeKind.GLOBAL)).values("id")
    return Entity.objects.filter(Entity.objects.all().scope_condition(ladder)).values("id")


# Compiled once per process, like the binder: building and compiling this ORM
# query for every new name cost ~1 ms, more than running the statement.
_SEEN_FROM = Compiled(_seen_from_query, "scope_id")


def duplicates_propose(entity: Entity) -> None:
    """A new entity that looks like one in its scope, the scopes above it, global
    or a member's own person entity becomes a "possible duplicate" for review;
    nothing is merged. One statement: it runs on the write path whenever a new name appears."""
    if entity.user_id is not None:
        return
    eligible = _SEEN_FROM.sql({"scope_id": entity.scope_id})
    sql, params = look_alikes_sql(entity.name_norm, eligible, exclude_id=entity.pk)
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO cards_possibleduplicate (entity_id, similar_to_id, score, status, created_at, reason)"
            f" SELECT %s, alike.id, alike.score, 'open', now(), '' FROM ({sql}) AS alike ON CONFLICT DO NOTHING",
            [entity.pk, *params])


@transaction.atomic
def entity_merge(*, duplicate: Entity, into: Entity) -> Entity:
    """`duplicate` is `into` under another name: its name (and what was merged
    into it) binds to `into` from now on. Cards are not rewritten — an event's
    "to whom" is write-once — they are read through the merge."""
    root = into.merged_into or into
    ladder = [duplicate.scope_id, *duplicate.scope.ancestor_ids()]
    if duplicate.pk == root.pk or duplicate.user_id is not None:
        raise InvalidCard("An entity cannot be merged into itself, and a person's own entity is never merged.",
                          fields={"entity": ["cannot be merged"]})
    # A member's own entity is who they are in every scope they belong to.
    member_here = root.user_id is not None and Membership.objects.filter(scope_id=duplicate.scope_id,
                                                                        user_id=root.user_id).exists()
    if root.scope_id not in ladder and root.scope.kind != "global" and not member_here:
        raise InvalidCard("Merge into an entity of the same scope, a scope above it, or global: members of "
                          "this scope could not see it otherwise.", fields={"into": ["not visible from here"]})
    Entity.objects.filter(merged_into=duplicate).update(merged_into=root)
    duplicate.merged_into = root
    duplicate.save(update_fields=["merged_into"])
    return duplicate
