"""The rows of forgotten cards, and every row hanging off them, deleted by their scopes (DESIGN §4 rule 9;
docs/distributed.md).

Django's collector would find and delete what hangs off a card by `card_id` alone, which a cluster sends
to every shard. Here each relation to Card says where its rows lie, and is deleted (or its link cleared, as
its `on_delete` says) with those scopes named as constants. A relation Django knows and this table does not
stops the forget: a new one must say where its rows lie, never be left to the collector (or left behind).
The store names the review queue's models by label only: it never imports the queue."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from django.db import models
from django.db.models.deletion import CASCADE, SET_NULL, Collector, get_candidate_relations_to_delete

from ..models import Card, Entity

# In the card's own scope: a key through the scope (core/scope_keys.py), or a row kept in its card's scope
# (InParentScope).
OWN = "own"
# In the card's scope or one reaching it (scopes.models.ladder_reaching_ids): a link across scopes, with no key.
REACHING = "reaching"

# (model label, field) of every relation to Card → where its rows lie.
HANGING = {
    ("cards.Card", "superseded_by"): OWN,
    ("cards.Card", "disputes"): OWN,
    ("cards.CardRevision", "card"): OWN,
    ("cards.CardPerspective", "card"): OWN,
    ("cards.CardAsked", "card"): OWN,
    ("review.Candidate", "card"): OWN,
    ("review.Probe", "card"): OWN,
    ("review.UpkeepProposal", "card"): OWN,
    # A contradicted demotion's later card, a replaced project's card: in a scope above the proposal's.
    ("review.UpkeepProposal", "other"): REACHING,
}


def relations_to(model) -> dict[tuple[str, str], models.ForeignKey]:
    """Every relation to `model` Django knows, as its collector would follow them (hidden ones too:
    `related_name="+"`)."""
    return {(rel.related_model._meta.label, rel.field.name): rel.field
            for rel in get_candidate_relations_to_delete(model._meta)}


def card_rows_delete(cards: Mapping[int, int], *, reaching: Iterable[int]) -> Counter[str]:
    """Delete the cards (id → scope) and what hangs off them; the rows deleted, by model label. Run with
    the cards locked, after every copy elsewhere is gone (cards.services.forget). `reaching`: the scopes
    reaching the cards' (the forget read them once)."""
    return _rows_delete(Card, cards, HANGING, {OWN: sorted(set(cards.values())), REACHING: list(reaching)})


# (model label, field) of every relation to Entity → how its rows go when a name is forgotten. Entities and
# aliases are replicated (reference tables); the distributed rows are named by scope.
NAMED = "named"            # refused while any: the caller forgets only a name no card nor entity points at
REPLICATED = "replicated"  # a reference table's rows: by the entity alone, a local statement on any node
ENTITY_HANGING = {
    ("cards.Entity", "merged_into"): NAMED,
    ("cards.Card", "subject"): NAMED,
    ("cards.Card", "object"): NAMED,
    ("cards.Alias", "entity"): REPLICATED,
    # A possible duplicate lives in its new entity's scope; the one it looks like is seen from there.
    ("cards.PossibleDuplicate", "entity"): OWN,
    ("cards.PossibleDuplicate", "similar_to"): REACHING,
}


def entities_delete(entity_ids: set[int], *, scope_id: int, reaching: Iterable[int]) -> Counter[str]:
    """Delete these entities of `scope_id`, which nothing names any more (their keys in the database hold
    that), with their aliases and possible duplicates; the rows deleted, by model label."""
    return _rows_delete(Entity, dict.fromkeys(entity_ids, scope_id), ENTITY_HANGING,
                        {OWN: [scope_id], REACHING: list(reaching), REPLICATED: None})


def _rows_delete(model, rows: Mapping[int, int], hanging: dict, places: dict) -> Counter[str]:
    """Delete `rows` (id → scope) of `model` and what hangs off them, each relation where `hanging` says its
    rows lie (`places`: the scopes of each place; None for a replicated table, read by the ids alone; a
    NAMED relation is the caller's to have emptied). A relation Django knows and `hanging` does not stops it."""
    relations = relations_to(model)
    if set(relations) != set(hanging):
        raise RuntimeError(f"relations to {model._meta.label} without a place: {sorted(set(relations) ^ set(hanging))}")
    deleted: Counter[str] = Counter()
    if not rows:
        return deleted
    ids = list(rows)
    for key, field in relations.items():
        if hanging[key] == NAMED:
            continue
        linked = field.model._base_manager.filter(**{f"{field.attname}__in": ids})
        if places[hanging[key]] is not None:
            linked = linked.filter(scope_id__in=places[hanging[key]])
        if field.remote_field.on_delete is SET_NULL:
            linked.update(**{field.name: None})
        elif field.remote_field.on_delete is CASCADE:
            deleted[key[0]] += _fast_delete(linked)
        else:
            raise RuntimeError(f"{key[0]}.{field.name}: on_delete {field.remote_field.on_delete.__name__} is not "
                               "one the forget knows")
    # Nothing hangs off these rows any more (every relation was above): one DELETE by id and scope, not the
    # collector's reads and deletes by id alone.
    gone = model.objects.filter(pk__in=ids, scope_id__in=set(rows.values()))
    deleted[model._meta.label] += gone._raw_delete(gone.db)
    return deleted


def _fast_delete(rows: models.QuerySet) -> int:
    """One DELETE with `rows`' own WHERE (its scopes). A row with something hanging off it, or a delete signal,
    would send the collector after it by id alone: refused, to be given its place here first."""
    if not Collector(using=rows.db).can_fast_delete(rows):
        raise RuntimeError(f"rows hang off {rows.model._meta.label}: the forget must delete them by scope first")
    return rows.delete()[0]
