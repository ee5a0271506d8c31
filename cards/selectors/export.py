"""The export document: everything a read in one scope sees, with history and
sources, as a versioned JSON-ready dict (reads only; no embeddings).

A fixed number of queries whatever the size: scopes, cards, revisions,
entities, aliases — each filtered by the handful of scope ids a read sees."""

from __future__ import annotations

from django.utils import timezone

from scopes.models import Scope
from scopes.principals import Principal
from scopes.selectors import read_scope_ids

from ..models import Alias, Card, CardRevision, Entity
from .cards import with_perspective
from .shape import iso

FORMAT = "memory-site-export"
VERSION = 1

CARD_COLUMNS = (
    "id", "scope_id", "kind", "tag", "subject_id", "label__key", "cardinality", "value", "object_id", "text",
    "perspective_text", "effective_at", "superseded_at", "superseded_by_id", "recorded_at", "verified_at",
    "stated_at", "said_at", "occurred_at", "occurred_end", "precision", "time_source", "anchor_zone",
    "source_actor__username",
    "source_session", "source_message", "source_quote", "confidence", "impact", "long_term_at", "demoted_at",
    "demoted_why",
)


def export_document(*, principal: Principal, scope_id: int) -> dict:
    """The export of what a read in `scope_id` sees (404 when the scope is not visible)."""
    scope_ids = read_scope_ids(principal=principal, scope_id=scope_id)
    rows = list(with_perspective(Card.objects.in_scopes(scope_ids), user=principal.user)
                .order_by("id").values(*CARD_COLUMNS))
    revisions: dict[int, list[dict]] = {}
    for revision in (CardRevision.objects.in_scopes(scope_ids).order_by("card_id", "at", "id")
                     .values("card_id", "at", "actor__username", "field", "before", "after", "reason")):
        revisions.setdefault(revision["card_id"], []).append(_revision_out(revision))
    me_id = principal.user.entity.pk
    entities = list(Entity.objects.in_scopes(scope_ids, named_by_cards=True).order_by("id")
                    .values("id", "scope_id", "name", "kind", "merged_into_id"))
    aliases: dict[int, list[dict]] = {}
    for alias in (Alias.objects.in_scopes(scope_ids).filter(entity_id__in=[e["id"] for e in entities])
                  .order_by("id").values("entity_id", "scope_id", "name")):
        aliases.setdefault(alias["entity_id"], []).append({"name": alias["name"], "scope": alias["scope_id"]})
    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": iso(timezone.now()),
        "exported_by": principal.user.username,
        "scope": scope_id,
        "time_zone": principal.user.time_zone or "UTC",
        # An archived project says so (`archived_at`), so a reader of the file knows it had ended.
        "scopes": [{"id": s["id"], "name": s["name"], "kind": s["kind"], "parent": s["parent_id"],
                    "archived_at": iso(s["archived_at"])}
                   for s in Scope.objects.filter(pk__in=scope_ids).order_by("id").values("id", "name", "kind",
                                                                                         "parent_id", "archived_at")],
        "entities": [{"id": e["id"], "scope": e["scope_id"], "name": e["name"], "kind": e["kind"],
                      "me": e["id"] == me_id, "aliases": aliases.get(e["id"], []),
                      "merged_into": e["merged_into_id"]} for e in entities],
        "cards": [_card_out(row, revisions.get(row["id"], [])) for row in rows],
    }


def _revision_out(row: dict) -> dict:
    return {"at": iso(row["at"]), "actor": row["actor__username"], "field": row["field"],
            "before": row["before"], "after": row["after"], "reason": row["reason"]}


def _card_out(row: dict, revisions: list[dict]) -> dict:
    return {
        "id": row["id"],
        "scope": row["scope_id"],
        "kind": row["kind"],
        "tag": row["tag"],
        "subject": row["subject_id"],
        "label": row["label__key"],
        "cardinality": row["cardinality"],
        "value": row["value"],
        "object": row["object_id"],
        "text": row["text"],
        "perspective": row["perspective_text"],
        "effective_at": iso(row["effective_at"]),
        "superseded_at": iso(row["superseded_at"]),
        "superseded_by": row["superseded_by_id"],
        "recorded_at": iso(row["recorded_at"]),
        "verified_at": iso(row["verified_at"]),
        "stated_at": [iso(at) for at in sorted(row["stated_at"] or [])],
        # Of those, the statements that gave no start of their own (a later move may overrule them).
        "said_at": [iso(at) for at in sorted(set(row["said_at"] or []) & set(row["stated_at"] or []))],
        "occurred_at": iso(row["occurred_at"]),
        "occurred_end": iso(row["occurred_end"]),
        "precision": row["precision"],
        "time_source": row["time_source"],
        "zone": row["anchor_zone"] or None,
        "source": {"actor": row["source_actor__username"], "session": row["source_session"],
                   "message": row["source_message"], "quote": row["source_quote"]},
        "confidence": row["confidence"],
        "impact": row["impact"],
        # Long-term as a person approved it; a demoted card is out of MEMORY.md, in its daily note as stale.
        "long_term_at": iso(row["long_term_at"]),
        "demoted_at": iso(row["demoted_at"]),
        "demoted_why": row["demoted_why"] or None,
        "revisions": revisions,
    }
