"""Entities and aliases: creating them and binding a name to one."""

from __future__ import annotations

from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from scopes.models import LADDER_UP_SQL, MAX_LADDER_DEPTH, Scope, User

from ..errors import InvalidCard
from ..models import Alias, Entity, EntityKind
from ..text import normalize

ME = "me"


@transaction.atomic
def person_entity_ensure(*, user: User, scope: Scope) -> Entity:
    """The user's own person entity ("me"), in their personal `scope`; created on
    first call. A step of every user's setup (registered in CardsConfig.ready)."""
    entity, _ = Entity.objects.get_or_create(
        user=user, defaults={"scope": scope, "name": user.shown_name, "kind": EntityKind.PERSON})
    return entity


def entity_of_user(user: User) -> Entity:
    # The OneToOne accessor caches on the user object: one query per actor, not per card.
    return user.entity


def entity_bind(*, scope: Scope, name: str) -> Entity | None:
    """The entity named exactly `name` (or by a registered alias) in `scope`; never a fuzzy match.
    Two index lookups in one statement (an OR across the alias join would scan every entity)."""
    norm = normalize(name)
    # A merged entity's name binds to the entity it was merged into.
    found = list(Entity.objects.raw(
        "(SELECT r.* FROM cards_entity e JOIN cards_entity r ON r.id = COALESCE(e.merged_into_id, e.id)"
        "  WHERE e.scope_id = %s AND e.name_norm = %s)"
        " UNION ALL (SELECT r.* FROM cards_entity e JOIN cards_alias a ON a.entity_id = e.id"
        "  JOIN cards_entity r ON r.id = COALESCE(e.merged_into_id, e.id)"
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
    duplicates_propose(entity)
    return entity


LOOK_ALIKE_THRESHOLD = 0.3
LOOK_ALIKE_LIMIT = 5


_LOOK_ALIKES = """
    SELECT e.id, max(similarity(n.name_norm, %(norm)s)) AS score
      FROM cards_entity e
      JOIN (SELECT id AS entity_id, name_norm FROM cards_entity
            UNION ALL SELECT entity_id, name_norm FROM cards_alias) n ON n.entity_id = e.id
     WHERE e.scope_id IN ({scopes}) AND n.name_norm %% %(norm)s AND e.id <> %(exclude)s
     GROUP BY e.id HAVING max(similarity(n.name_norm, %(norm)s)) >= %(threshold)s
     ORDER BY score DESC, e.id LIMIT %(limit)s"""


def entity_look_alikes(norm: str, scope_ids, *, exclude_id: int | None = None,
                       limit: int = LOOK_ALIKE_LIMIT) -> list[tuple[int, float]]:
    """(entity id, trigram similarity) of names and aliases in `scope_ids` close
    to `norm`, best first. Offered as candidates, never bound."""
    with connection.cursor() as cursor:
        cursor.execute(_LOOK_ALIKES.format(scopes="SELECT unnest(%(scopes)s::bigint[])"),
                       {"norm": norm, "scopes": list(scope_ids), "exclude": exclude_id or 0,
                        "threshold": LOOK_ALIKE_THRESHOLD, "limit": limit})
        return [(pk, round(score, 3)) for pk, score in cursor.fetchall()]


def duplicates_propose(entity: Entity) -> None:
    """A new entity that looks like one in its scope, the scopes above it or
    global becomes a "possible duplicate" for review; nothing is merged. One
    statement: it runs on the write path whenever a new name appears."""
    if entity.user_id is not None:
        return
    ladder = f"SELECT id FROM ({LADDER_UP_SQL}) AS up UNION SELECT id FROM scopes_scope WHERE kind = 'global'"
    ladder = ladder.replace("%s", "%(scope)s", 1).replace("%s", "%(depth)s", 1)
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO cards_possibleduplicate (entity_id, similar_to_id, score, status, created_at, reason)"
            f" SELECT %(exclude)s, alike.id, alike.score, 'open', now(), '' FROM ({_LOOK_ALIKES.format(scopes=ladder)})"
            " AS alike ON CONFLICT DO NOTHING",
            {"norm": entity.name_norm, "scope": entity.scope_id, "depth": MAX_LADDER_DEPTH, "exclude": entity.pk,
             "threshold": LOOK_ALIKE_THRESHOLD, "limit": LOOK_ALIKE_LIMIT})


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
    if root.scope_id not in ladder and root.scope.kind != "global":
        raise InvalidCard("Merge into an entity of the same scope, a scope above it, or global: members of "
                          "this scope could not see it otherwise.", fields={"into": ["not visible from here"]})
    Entity.objects.filter(merged_into=duplicate).update(merged_into=root)
    duplicate.merged_into = root
    duplicate.save(update_fields=["merged_into"])
    return duplicate
