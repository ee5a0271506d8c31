"""Entities and aliases: creating them and binding a name to one."""

from __future__ import annotations

from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from scopes.models import Scope, User

from ..errors import InvalidCard
from ..models import Alias, Entity, EntityKind
from ..text import normalize

ME = "me"


def entity_of_user(user: User) -> Entity:
    # The OneToOne accessor caches on the user object: one query per actor, not per card.
    return user.entity


def entity_bind(*, scope: Scope, name: str) -> Entity | None:
    """The entity named exactly `name` (or by a registered alias) in `scope`; never a fuzzy match.
    Two index lookups in one statement (an OR across the alias join would scan every entity)."""
    norm = normalize(name)
    found = list(Entity.objects.raw(
        "(SELECT e.* FROM cards_entity e WHERE e.scope_id = %s AND e.name_norm = %s)"
        " UNION ALL (SELECT e.* FROM cards_entity e JOIN cards_alias a ON a.entity_id = e.id"
        "  WHERE a.scope_id = %s AND a.name_norm = %s) LIMIT 1", [scope.pk, norm, scope.pk, norm]))
    return found[0] if found else None


@transaction.atomic
def entity_create(*, scope: Scope, name: str, kind: str = EntityKind.THING) -> Entity:
    if not normalize(name):
        raise InvalidCard("An entity needs a name.", fields={"name": ["must not be empty"]})
    if Alias.objects.filter(scope=scope, name_norm=normalize(name)).exists():
        raise InvalidCard(f"{name!r} is already an alias in this scope.", fields={"name": ["already an alias"]})
    try:
        with transaction.atomic():
            return Entity.objects.create(scope=scope, name=name.strip(), kind=kind)
    except IntegrityError:
        raise InvalidCard(f"An entity named {name!r} already exists in this scope.",
                          fields={"name": ["already exists"]}) from None


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
    bound = entity_bind(scope=scope, name=ref)
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
    return entity
