"""Import an export document into one scope, through the card services so
every card rule applies (labels, cardinality, supersede, write-once events).

History is replayed in valid-time order: each single-value statement at its
own time, so supersede chains come back; retracted multi values are closed
where they were; description corrections and renames are replayed on the
card they belong to. A second import of the same document only reinforces:
corrections are replayed only onto a card the import itself created."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import dataclass

from django.db import transaction

from core.errors import DomainError
from scopes.models import Scope, ScopeKind, User

from ..confidence import confidence_value
from ..drafts import CardDraft
from ..errors import InvalidCard
from ..models import Card, CardKind, Cardinality, Entity, EntityKind
from ..services import (Outcome, alias_add, card_describe, card_remember, card_retract, entity_create,
                        knowledge_merge, knowledge_rename, value_key)
from ..selectors.entities import entity_bind
from ..services.entities import entity_merge

FORMAT = "memory-site-export"
SUPPORTED_VERSIONS = {1}
NEW = {Outcome.INSERTED, Outcome.SUPERSEDED}


class ImportFileError(ValueError):
    """The document is not an export this importer can read; the message says why."""


class ImportRefused(ImportFileError):
    """A card of the document was refused by a card rule: `code` is the rule's
    (excluded, needs_consent, unknown_label, …), `card` the document's id for it."""

    def __init__(self, message: str, *, code: str, card, extra: dict) -> None:
        super().__init__(message)
        self.code, self.card, self.extra = code, card, extra


def when(value) -> dt.datetime | None:
    if value in (None, ""):
        return None
    try:
        parsed = dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        raise ImportFileError(f"{value!r} is not an ISO date-time.") from None
    if parsed.tzinfo is None:
        raise ImportFileError(f"{value!r} has no time zone offset.")
    return parsed


def document_check(document) -> None:
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ImportFileError(f'Not a memory export: expected {{"format": "{FORMAT}", …}}.')
    if document.get("version") not in SUPPORTED_VERSIONS:
        raise ImportFileError(f"Export version {document.get('version')!r} is not supported "
                              f"(this importer reads {sorted(SUPPORTED_VERSIONS)}).")
    for key in ("scopes", "entities", "cards"):
        if not isinstance(document.get(key), list):
            raise ImportFileError(f"The export has no {key!r} list.")


@dataclass(order=True)
class _Step:
    at: dt.datetime
    order: int          # retract (0) before a statement (1) at the same instant
    card_id: int
    statement: dt.datetime | None = None  # a restatement of a single value, at this time


class _Import:
    def __init__(self, *, actor: User, scope: Scope, document: dict, consent: bool) -> None:
        self.actor, self.scope, self.document, self.consent = actor, scope, document, consent
        self.counts: Counter = Counter()
        self.entities: dict[int, Entity] = {}
        self.created: dict[int, Card] = {}  # export id → card this import created
        self.skipped: set[int] = set()

    # --- entities ---------------------------------------------------------------------
    def entity(self, entity_id) -> Entity:
        if entity_id not in self.entities:
            raise ImportFileError(f"A card names entity {entity_id!r}, which the export does not list.")
        return self.entities[entity_id]

    def import_entities(self, shared: set[int]) -> None:
        rows = sorted(self.document["entities"], key=lambda e: e["id"])
        for row in rows:
            if row.get("me"):
                self.entities[row["id"]] = self.actor.entity
                continue
            bound = entity_bind(name=row["name"], scope_ids=[self.scope.pk], speaker=self.actor, suggest=False).one(
                row["name"], prefer_scope=self.scope.pk)
            if bound is None:
                kind = row.get("kind") if row.get("kind") in EntityKind.values else EntityKind.THING
                bound = entity_create(scope=self.scope, name=row["name"], kind=kind)
                self.counts["entities created"] += 1
            self.entities[row["id"]] = bound
        for row in rows:
            if row.get("me") or row.get("scope") in shared:
                continue
            for alias in row.get("aliases") or []:
                try:
                    alias_add(entity=self.entities[row["id"]], name=alias["name"], scope=self.scope)
                    self.counts["aliases"] += 1
                except InvalidCard:
                    self.counts["aliases skipped (name taken here)"] += 1
        for row in rows:
            into = self.entities.get(row.get("merged_into"))
            mine = self.entities[row["id"]]
            if into is not None and into.pk != mine.pk and mine.merged_into_id is None:
                try:
                    entity_merge(duplicate=mine, into=into)
                    self.counts["entities merged"] += 1
                except InvalidCard:
                    self.counts["merges skipped"] += 1

    # --- cards ------------------------------------------------------------------------
    def steps(self, cards: list[dict]) -> list[_Step]:
        steps = []
        for card in cards:
            effective = when(card.get("effective_at")) or when(card.get("occurred_at"))
            if effective is None:
                raise ImportFileError(f"Card {card['id']} has no effective_at.")
            if card.get("kind") == CardKind.STATE and when(card.get("superseded_at")) == effective:
                # Overruled by a later statement (DESIGN §4 rule 2): it held at no instant, and replayed as a
                # start stated it would hold again, up to the next value.
                self.counts["overruled values left out"] += 1
                continue
            steps.append(_Step(effective, 1, card["id"]))
            if card.get("kind") == CardKind.STATE and card.get("cardinality") == Cardinality.SINGLE:
                for stated in card.get("stated_at") or []:
                    if when(stated) > effective:
                        steps.append(_Step(when(stated), 1, card["id"], statement=when(stated)))
            elif (card.get("kind") == CardKind.STATE and card.get("superseded_at")
                  and not card.get("superseded_by")):
                steps.append(_Step(when(card["superseded_at"]), 0, card["id"]))
        return sorted(steps)

    def draft(self, card: dict, *, value: str, text: str, statement: dt.datetime | None) -> CardDraft:
        kind = card.get("kind")
        source = card.get("source") or {}
        draft = CardDraft(
            kind=kind, label=card.get("label") or "", subject=self.entity(card.get("subject")), value=value,
            object=self.entity(card["object"]) if card.get("object") else None, text=text,
            tag=card.get("tag") or "fact", confidence=self.confidence(card), impact=card.get("impact") or 2,
            source_session=source.get("session") or "", source_message=source.get("message") or "",
            source_quote=source.get("quote") or "",
            time_zone=card.get("zone") or None,  # whose day it was anchored in, kept across the move
            # A file is not a person: sensitive cards come in only when the importing person consents.
            consent=self.consent)
        if kind == CardKind.EVENT:
            draft.occurred_at, draft.occurred_end = when(card.get("occurred_at")), when(card.get("occurred_end"))
            draft.precision = card.get("precision") or ""
            draft.time_source = card.get("time_source") if draft.occurred_at else ""
            # An undated event's effective_at is its reference time; a dated one's is when it happened.
            draft.reference_time = when(card.get("verified_at")) if draft.occurred_at else when(card["effective_at"])
        else:
            draft.effective_at = statement or when(card["effective_at"])
            # Said when it was stated to hold (a file is not said today: the import adds no statement of its own).
            draft.reference_time = draft.effective_at
            if card.get("cardinality") != Cardinality.SINGLE:
                draft.reference_time = when(card.get("verified_at"))
            elif draft.effective_at in {when(at) for at in card.get("said_at") or []}:
                draft.effective_at = None   # only said to hold then, with no start of its own: replayed so

        return draft

    @staticmethod
    def confidence(card: dict) -> float | None:
        # Exports write numbers; a hand-written file may use the words agents send.
        try:
            return confidence_value(card.get("confidence"))
        except ValueError as refused:
            raise ImportFileError(f"Card {card.get('id')}: confidence {refused}.") from None

    def remember(self, card: dict, statement: dt.datetime | None) -> None:
        revisions = [r for r in card.get("revisions") or [] if r.get("field") in ("text", "value")]
        first = {field: next((r["before"] for r in revisions if r["field"] == field), card.get(field) or "")
                 for field in ("text", "value")}
        if statement is None and self.holds_already(card):
            self.skipped.add(card["id"])
            self.counts["cards already here"] += 1
            return
        replay = statement is None
        if any(r["field"] == "value" for r in revisions) and self.holds_current(card, card.get("value") or ""):
            first["value"], replay = card.get("value") or "", False
        draft = self.draft(card, value=first["value"], text=first["text"], statement=statement)
        if replay and card.get("perspective"):
            draft.perspectives = {self.actor.username: card["perspective"]}
        result = card_remember(scope=self.scope, actor=self.actor, draft=draft)
        self.counts[result.outcome] += 1
        if statement is None and result.outcome in NEW:
            self.created[card["id"]] = result.card
            if replay:
                for revision in revisions:
                    self.correct(result.card, revision)

    def correct(self, card: Card, revision: dict) -> None:
        reason = revision.get("reason") or ""
        if revision["field"] == "text":
            card_describe(card=card, actor=self.actor, text=revision["after"], reason=reason, consent=self.consent)
        else:
            knowledge_rename(card=card, actor=self.actor, value=revision["after"], reason=reason,
                             consent=self.consent)
        self.counts["revisions"] += 1

    def _same(self, card: dict, value: str):
        obj = self.entities.get(card.get("object"))
        return Card.objects.filter(scope=self.scope, kind=card.get("kind"), label__key=card.get("label"),
                                   subject=self.entity(card.get("subject")),
                                   value_norm=value_key(value, card.get("text") or "", obj.pk if obj else None))

    def holds_current(self, card: dict, value: str) -> bool:
        return self._same(card, value).filter(superseded_at__isnull=True).exists()

    def holds_already(self, card: dict) -> bool:
        """A retracted value this scope already holds, closed at the same time (a second import)."""
        closed = when(card.get("superseded_at"))
        if card.get("kind") != CardKind.STATE or closed is None or card.get("superseded_by"):
            return False
        return self._same(card, card.get("value") or "").filter(superseded_at=closed).exists()

    def run(self) -> Counter:
        shared = {s["id"] for s in self.document["scopes"] if s.get("kind") == ScopeKind.GLOBAL}
        self.import_entities(shared)
        # Admitted common sense stays in global, which every reader already sees.
        cards = {c["id"]: c for c in self.document["cards"] if c.get("scope") not in shared}
        for step in self.steps(list(cards.values())):
            card = cards[step.card_id]
            try:
                if step.order == 0:
                    self.retract(card, step.at)
                elif step.card_id not in self.skipped:
                    self.remember(card, step.statement)
            except DomainError as error:
                what = f"{card.get('label')}: {card.get('value') or card.get('text')!r}"
                raise ImportRefused(f"Card {card['id']} ({what}) was refused: {error.detail} "
                                    f"{error.extra or ''}".strip(), code=error.code, card=card.get("id"),
                                    extra=error.extra) from None
        self.merge_knowledge(cards)
        return self.counts

    def retract(self, card: dict, at: dt.datetime) -> None:
        mine = self.created.get(card["id"])
        if mine is not None and mine.superseded_at is None and mine.cardinality == Cardinality.MULTI:
            card_retract(card=mine, actor=self.actor, at=at)
            self.counts["retracted"] += 1

    def merge_knowledge(self, cards: dict[int, dict]) -> None:
        """Knowledge folded into another card is folded again (at import time: the service stamps now)."""
        into: dict[int, list[Card]] = {}
        for card in cards.values():
            target = card.get("superseded_by")
            if card.get("kind") == CardKind.KNOWLEDGE and target in self.created and card["id"] in self.created:
                into.setdefault(target, []).append(self.created[card["id"]])
        for target, others in sorted(into.items()):
            knowledge_merge(target=self.created[target], others=others, actor=self.actor)
            self.counts["knowledge merged"] += len(others)


@transaction.atomic
def memory_import(*, actor: User, scope: Scope, document: dict, dry_run: bool = False,
                  consent: bool = False) -> Counter:
    """Replay `document` into `scope` as `actor`; all or nothing. The caller
    checks that `actor` may write in `scope`. Every card passes the screen: a
    never-stored one refuses the import (`excluded`), and a sensitive one needs
    `consent` — the importing person's, for the whole file."""
    document_check(document)
    try:
        counts = _Import(actor=actor, scope=scope, document=document, consent=consent).run()
    except (KeyError, TypeError, AttributeError) as error:
        raise ImportFileError(f"The export is malformed ({type(error).__name__}: {error}).") from None
    if dry_run:
        transaction.set_rollback(True)
    return counts
