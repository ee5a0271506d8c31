"""The one binder (DESIGN §7 "Entity binding first", §3 "People are entities"):
which entity a name means, among the scopes a read or a write sees. Writes,
list filters, answer, count, resolve, recall and the dashboard all ask here.

A name binds only to
- an entity of those scopes with exactly that name, or a name registered there as an alias;
- a member of a shared scope among them, by display name, username, their person entity's name or
  an alias it has there — and from a personal scope, any fellow member of its owner (someone who
  shares a family or team with them: scopes.relations.fellow_scope_ids), never a stranger;
- a member named by a relation word from the speaker's side (Kai's "Mom" is Dana; Sam's is nobody);
and then to whatever it was merged into. Two different entities answering to
one name make it ambiguous — reported, never guessed. Look-alikes are offered
as "did you mean", never bound: first the names that look the same (one TR39
skeleton, cards.text.name_skeleton: "Pаris" with a Cyrillic а), then the
trigram-close ones. A look-alike binds only as a registered alias; as a new
name it is refused (cards.services.entities.look_alikes_refuse)."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import connection
from django.db.models import F, Q
from django.db.models.expressions import RawSQL
from django.db.models.functions import Coalesce

from django.http import Http404
from django.utils.translation import gettext

from core.compiled import Compiled
from core.errors import DomainError, NotAllowed
from scopes.principals import scope_ids_for
from scopes.selectors import read_scope_ids, scope_get
from scopes.relations import fellow_scope_ids, members_by_relation, members_of, relation_keys_meant

from ..models import Alias, Entity, EntityKind
from ..text import name_skeleton, normalize

ME = "me"


def entity_term(entity_id: int, kind: str, scope_kind: str, name_norm: str) -> str:
    """What derivation (cards/answers/derive.py) knows an entity by: a kind, or
    anything of the global scope, by its name; any other entity by its id. The
    binder gives each binding its term, so it holds the rule."""
    return f"n:{name_norm}" if kind == EntityKind.KIND or scope_kind == "global" else f"e:{entity_id}"


class AmbiguousEntity(DomainError):
    """A name that two different entities answer to, where one must be chosen (a write, a filter)."""

    code = "ambiguous_entity"


@dataclass
class Binding:
    status: str  # bound | ambiguous | unknown
    term: str | None = None
    entities: list[Entity] = field(default_factory=list)  # what the caller may be shown
    # What cards are matched by (merged ones included); for an ambiguous name, any candidate's.
    entity_ids: list[int] = field(default_factory=list)
    did_you_mean: list[tuple[int, float]] = field(default_factory=list)
    roots: list[Entity] = field(default_factory=list)  # the entities bound to, merges followed
    # An ambiguous name: one bound binding per entity it may mean (a read answers over each, named).
    candidates: list[Binding] = field(default_factory=list)

    def one(self, asked: str, *, prefer_scope: int | None = None, members_first: bool = False) -> Entity | None:
        """The entity a write or a filter means: None when unknown, refused when ambiguous.
        `members_first` (a write): a name one member answers to is that member, whatever
        else answers to it here (an entity written under their name before the name
        bound them, DESIGN §3: a second entity is never made, nor written to, for a
        member); two members answering to it stay ambiguous."""
        if self.status == "unknown":
            return None
        people = [e for e in self.roots if e.user_id is not None]
        if self.status == "ambiguous" and members_first and len(people) == 1:
            return people[0]
        if self.status == "ambiguous":
            raise AmbiguousEntity(gettext("%(name)s names more than one entity here; name one by id or a unique name.")
                                  % {"name": repr(asked)},
                                  candidates=[entity_brief(e) for e in self.entities])
        return next((e for e in self.roots if e.scope_id == prefer_scope), self.roots[0])


LOOK_ALIKE_THRESHOLD = 0.3
LOOK_ALIKE_LIMIT = 5


def look_alikes_sql(norm: str, eligible: tuple[str, list], *, exclude_id: int | None = None,
                    limit: int = LOOK_ALIKE_LIMIT) -> tuple[str, list]:
    """SQL and parameters for (entity id, trigram similarity) of the `eligible`
    entities (the SQL and parameters of their ids: which ones a read or a new
    entity's scope sees, a compiled in_scopes or scope_condition query) whose
    name or an alias is close to `norm`, best first."""
    eligible_sql, eligible_params = eligible
    sql = f"""
        SELECT e.id, max(similarity(n.name_norm, %s)) AS score
          FROM cards_entity e
          JOIN (SELECT id AS entity_id, name_norm FROM cards_entity
                UNION ALL SELECT entity_id, name_norm FROM cards_alias) n ON n.entity_id = e.id
         WHERE e.id IN ({eligible_sql}) AND n.name_norm %% %s AND e.id <> %s
         GROUP BY e.id HAVING max(similarity(n.name_norm, %s)) >= %s
         ORDER BY score DESC, e.id LIMIT %s"""
    return sql, [norm, *eligible_params, norm, exclude_id or 0, norm, LOOK_ALIKE_THRESHOLD, limit]


def _entities_in_scopes_query(*, scopes):
    return Entity.objects.in_scopes(RawSQL("SELECT unnest(%s::bigint[])", [scopes])).values("id")


# Compiled once: building and compiling the ORM query cost ~1 ms a call, as much as running it.
_IN_SCOPES = Compiled(_entities_in_scopes_query, "scopes")


def entity_look_alikes(name: str, scope_ids) -> list[tuple[int, float]]:
    """(entity id, score) of names and aliases in `scope_ids` (members' own
    included) like `name`, best first: those that look the same (score 1.0),
    then the trigram-close ones (their similarity). Offered, never bound."""
    norm, visible = normalize(name), set(scope_ids)
    # Roots merged into from elsewhere are offered only where they could be shown (entity_bind's `shown`).
    same = [row["id"] for row in skeleton_look_alikes(name, visible)
            if row["scope_id"] in visible or row["user_id"] is not None]
    sql, params = look_alikes_sql(norm, entities_in_scopes_sql(scope_ids))
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        close = [(pk, round(score, 3)) for pk, score in cursor.fetchall() if pk not in same]
    return [(pk, 1.0) for pk in same] + close[:max(LOOK_ALIKE_LIMIT - len(same), 0)]


def skeleton_look_alikes_query(*, scopes, skeleton, norm):
    """The entities whose name or alias in `scopes` (members' own entities
    included) has the TR39 `skeleton` under another name than `norm`, merges
    followed to their roots; each match on its (scope, skeleton) index, or the
    members' user index."""
    own = Entity.objects.in_scopes(scopes, include="own").filter(name_skeleton=skeleton).exclude(name_norm=norm)
    members = Entity.objects.in_scopes(scopes, include="members").filter(name_skeleton=skeleton).exclude(
        name_norm=norm)
    aliased = Alias.objects.in_scopes(scopes).filter(name_skeleton=skeleton).exclude(name_norm=norm)
    direct = own.values("id").union(members.values("id"), aliased.values("entity_id"))
    roots = Entity.objects.filter(pk__in=direct).values(root=Coalesce("merged_into_id", "id"))
    return Entity.objects.filter(pk__in=roots).values(*_ENTITY_COLUMNS).order_by("id")


_SKELETON_IN_SCOPES = Compiled(
    lambda *, scopes, skeleton, norm: skeleton_look_alikes_query(
        scopes=RawSQL("SELECT unnest(%s::bigint[])", [scopes]), skeleton=skeleton, norm=norm),
    "scopes", "skeleton", "norm", text=("skeleton", "norm"))


def entities_in_scopes_sql(scope_ids) -> tuple[str, list]:
    """SQL and parameters of the ids of the entities in `scope_ids` (members' own
    included), the scope ids one constant array: for a statement that embeds it."""
    return _IN_SCOPES.sql({"scopes": list(scope_ids)})


def skeleton_look_alikes_sql(*, scope_ids, skeleton: str, norm: str) -> tuple[str, list]:
    """SQL and parameters of skeleton_look_alikes' rows, for a statement that embeds it."""
    return _SKELETON_IN_SCOPES.sql({"scopes": list(scope_ids), "skeleton": skeleton, "norm": norm})


def skeleton_look_alikes(name: str, scope_ids) -> list[dict]:
    """Rows (entity columns) of the entities in `scope_ids` that `name` looks like without being."""
    skeleton = name_skeleton(name)
    if not skeleton:
        return []
    return _SKELETON_IN_SCOPES.rows({"scopes": list(scope_ids), "skeleton": skeleton, "norm": normalize(name)})


def entity_brief(entity: Entity) -> dict:
    return {"id": entity.pk, "scope": entity.scope_id, "name": entity.name, "kind": entity.kind}


_ENTITY_COLUMNS = ("id", "scope_id", "name", "name_norm", "kind", "user_id", "merged_into_id", "created_at")


def _bound_query(*, related: bool, scopes, norm, name, speaker, keys):
    """The entities `name` binds among `scopes`, merges followed: each root (what
    a directly named entity was merged into, or itself) and everything merged
    into it, with the kind of its scope. Each direct match on its own index:
    entities of the scopes by (scope, name), aliases by (scope, name), members'
    own entities by user (EntityQuerySet.scope_condition); with `keys`, the
    members a relation word names from the speaker's side (`related`)."""
    ids = RawSQL("SELECT unnest(%s::bigint[])", [scopes])  # one array: the compiled query fits any scopes
    own = Entity.objects.in_scopes(ids, include="own").filter(name_norm=norm).values("id")
    aliased = Alias.objects.in_scopes(ids).filter(name_norm=norm).values("entity_id")
    members = (Entity.objects.in_scopes(ids, include="members")
               .filter(Q(name_norm=norm) | Q(user__username__iexact=name) | Q(user__display_name__iexact=name))
               .values("id"))
    # A member's alias is theirs wherever they are a member: one given in the family binds in a
    # fellow member's personal scope too (the alias of a thing stays in its scope).
    member_aliases = Alias.objects.in_scopes(fellow_scope_ids(ids)).filter(name_norm=norm).values("entity_id")
    members_aliased = Entity.objects.in_scopes(ids, include="members").filter(pk__in=member_aliases).values("id")
    direct = own.union(aliased, members, members_aliased)
    if related:
        relatives = members_by_relation(scope_ids=ids, speaker_id=speaker,
                                      keys=RawSQL("SELECT unnest(%s::text[])", [keys]))
        direct = direct.union(Entity.objects.in_scopes(ids, include="members").filter(user_id__in=relatives)
                              .values("id"))
    roots = Entity.objects.filter(pk__in=direct).values(root=Coalesce("merged_into_id", "id"))
    columns = {"scope_kind": F("scope__kind")}
    return (Entity.objects.filter(pk__in=roots).values(*_ENTITY_COLUMNS, **columns)
            .union(Entity.objects.filter(merged_into_id__in=roots).values(*_ENTITY_COLUMNS, **columns), all=True))


# Built and compiled once per shape (binding runs on every named write and read).
_BOUND = Compiled(_bound_query, "scopes", "norm", "name", "speaker", "keys", text=("norm", "name"))


def _bound(norm: str, name: str, scope_ids: list[int], speaker_id: int | None) -> list[Entity]:
    values = {"scopes": scope_ids, "norm": norm, "name": name.strip()}
    keys = relation_keys_meant(name) if speaker_id is not None else set()
    if keys:
        values.update(speaker=speaker_id, keys=sorted(keys))
    rows = _BOUND.rows(values, related=bool(keys))
    found = []
    for row in sorted(rows, key=lambda r: r["id"]):
        entity = Entity.from_db("default", list(_ENTITY_COLUMNS), [row[c] for c in _ENTITY_COLUMNS])
        entity.scope_kind = row["scope_kind"]
        found.append(entity)
    return found


def entity_bind(*, name: str, scope_ids, speaker=None, suggest: bool = True) -> Binding:
    """Bind `name` among `scope_ids` (a read's scopes from `read_scope_ids`, or a
    write's scope), as `speaker` (a user, for "me" and relation words) says it.
    `suggest`: look for "did you mean" names when nothing binds (a write, which
    creates the entity then, has no use for them: creating one refuses a
    look-alike itself, among every scope the new entity is seen from)."""
    scope_ids = list(scope_ids)
    norm = normalize(name)
    if norm == ME and speaker is not None:
        me = speaker.entity
        return Binding("bound", f"e:{me.pk}", [me], [me.pk], roots=[me])
    named = _bound(norm, name, scope_ids, speaker.pk if speaker is not None else None) if norm else []
    if not named:
        return Binding("unknown", did_you_mean=entity_look_alikes(name, scope_ids) if norm and suggest else [])
    roots = [e for e in named if e.merged_into_id is None]
    terms = {e.pk: entity_term(e.pk, e.kind, e.scope_kind, e.name_norm) for e in roots}
    # A name that is a kind in one visible scope names that kind in all of them
    # (a team's "kettle" and a project's kind "kettle" are one concept).
    kinds = {term for term in terms.values() if term.startswith("n:")}
    terms = {e.pk: f"n:{e.name_norm}" if f"n:{e.name_norm}" in kinds else terms[e.pk] for e in roots}
    by_term: dict[str, list[Entity]] = {}
    for entity in named:
        by_term.setdefault(terms[entity.merged_into_id or entity.pk], []).append(entity)
    # Entities merged in from scopes the caller cannot see still match cards (which
    # are read only from visible scopes) but are never shown. A member's own entity
    # lives in their personal scope and is shown wherever they are a member.
    visible = set(scope_ids)

    def shown(entity: Entity) -> bool:
        return entity.scope_id in visible or (entity.user_id is not None and entity.merged_into_id is None)

    if len(by_term) == 1:
        (term, entities), = by_term.items()
        return Binding("bound", term, [e for e in entities if shown(e)], [e.pk for e in entities], roots=roots)
    # Each candidate shown by its root first, then what was merged into it.
    candidates = [Binding("bound", term, sorted((e for e in entities if shown(e)),
                                                key=lambda e: (e.merged_into_id is not None, e.pk)),
                          [e.pk for e in entities],
                          roots=[e for e in entities if e.merged_into_id is None])
                  for term, entities in by_term.items()]
    return Binding("ambiguous", entities=[e for group in by_term.values() for e in group if shown(e)],
                   entity_ids=[pk for candidate in candidates for pk in candidate.entity_ids], roots=roots,
                   candidates=candidates)


def entity_binding(entity_id: int, scope_ids) -> Binding | None:
    """A binding to one entity already found among `scope_ids` (a relation card's object,
    followed by `ask`), as entity_bind would give it: its root, and everything merged
    into it there. None when it is not to be seen there."""
    visible = Entity.objects.in_scopes(scope_ids, named_by_cards=True).select_related("scope")
    entity = visible.filter(pk=entity_id).first()
    if entity is not None and entity.merged_into_id is not None:
        entity = visible.filter(pk=entity.merged_into_id).first()
    if entity is None:
        return None
    merged = list(visible.filter(merged_into_id=entity.pk).order_by("pk"))
    term = entity_term(entity.pk, entity.kind, entity.scope.kind if entity.scope_id else "", entity.name_norm)
    return Binding("bound", term, [entity], [entity.pk, *(e.pk for e in merged)], roots=[entity])


def alias_target(*, principal, entity_id: int, scope_id: int) -> tuple[Entity, object]:
    """The entity and scope for a new name registered in `scope_id`. A member's
    own entity takes names in a shared scope they belong to: from themselves, or
    from someone who manages that scope (never an agent token: tokens manage
    nothing). Any other entity must be visible from that scope, which the
    principal must be allowed to write in. 404 for what the principal cannot see."""
    scope = scope_get(principal=principal, scope_id=scope_id, action="write")
    # Seen from that scope: its ladder's entities, and its members' own.
    entity = Entity.objects.in_scopes(read_scope_ids(principal=principal, scope_id=scope.pk)).filter(
        pk=entity_id).first()
    if entity is None:
        raise Http404
    if entity.user_id is not None:
        if not members_of([scope.pk]).filter(user_id=entity.user_id).exists():
            raise Http404
        if entity.user_id != principal.user.pk and not scope_ids_for(principal, "manage").filter(
                pk=scope.pk).exists():
            raise NotAllowed(gettext("Members name themselves; a scope's admins may name any member."))
    return entity, scope
