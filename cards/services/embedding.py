"""Card vectors: computed after the write commits, outside its transaction, so
a slow or failing embedder never holds a lock or loses a card."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import islice
from typing import TYPE_CHECKING

from celery import current_app
from django.db import connection, transaction

from ..embeddings import card_embedding_text, current_space, embed_texts, embedding_setting
from ..models import Card, Entity
from .sql import scopes_of

if TYPE_CHECKING:
    from .write_plan import WriteOutcome

EMBED_BATCH = 64
# One sweep's bound (tasks.cards_embed_sweep, every few minutes): a few seconds
# of the local model, so a backlog drains over several runs, never in one long task.
SWEEP_LIMIT = 512
_NEW_CARD_OUTCOMES = ("inserted", "superseded")  # Outcome.INSERTED / SUPERSEDED (remember imports this module)


def embed_on_write() -> bool:
    return str(embedding_setting("EMBED_ON_WRITE", "true")).strip().lower() in {"1", "true", "yes", "on"}


def embed_after_commit(cards: Iterable[tuple[int | None, int]]) -> None:
    """Queue `cards_embed` for these cards, (id, scope_id) pairs, once the transaction commits. The task
    carries both: a card is a row of its scope, which is how a cluster finds it.

    Every call inside one transaction adds to a single pending task, so a batch
    (or a request of many writes, or card_remember nested in the batch) makes one
    task, not one per call. Joining an earlier callback is safe: Django drops it
    only when one of its savepoints rolls back, and those savepoints enclose this
    call too; ids from a rolled-back inner savepoint are skipped as missing."""
    if not embed_on_write():
        return
    ids = {pk: scope_id for pk, scope_id in cards if pk is not None}
    if not ids:
        return
    if connection.in_atomic_block:
        pending = next((func for _, func, _ in connection.run_on_commit
                        if isinstance(func, _EmbedOnCommit) and not func.ran), None)
        if pending is not None:
            pending.cards.update(ids)
            return
    # robust: after the commit the card is safe; an embedder or broker failure is
    # logged (the backfill command catches up) instead of failing the request.
    transaction.on_commit(_EmbedOnCommit(ids), robust=True)


def embed_outcomes_after_commit(outcomes: Iterable[WriteOutcome]) -> None:
    """embed_after_commit for the cards a remember call stored. A superseding
    card's successor is included: when it was a back-dated fork, the value that
    resumes after it is a new row too (re-embedding an older successor is harmless)."""
    if not embed_on_write():
        return
    # A successor is in its card's scope (superseded_by is a key through the scope).
    embed_after_commit((pk, o.card.scope_id) for o in outcomes if o.outcome in _NEW_CARD_OUTCOMES
                       for pk in (o.card.pk, o.card.superseded_by_id if o.outcome == "superseded" else None))


class _EmbedOnCommit:
    def __init__(self, cards: dict[int, int]) -> None:
        # Django names a robust callback that failed by its __qualname__ before logging it: an instance has
        # none, and looking it up raised out of the commit instead of the failure being logged.
        self.__qualname__ = "cards_embed after commit"
        self.cards = cards  # id → scope_id
        self.ran = False  # a callback that ran takes no more ids (test helpers keep it listed)

    def __call__(self) -> None:
        self.ran = True
        ids = sorted(self.cards)
        # By its registered name: the task module calls this one, so this one never imports it
        # (CardsConfig.ready imports it, so every process has it registered and an eager run finds it).
        current_app.tasks["cards.tasks.cards_embed"].delay(card_ids=ids, scope_ids=[self.cards[pk] for pk in ids])


def cards_embed_now(*, card_ids: Iterable[int], scope_ids: Iterable[int] = (),
                    batch_size: int = EMBED_BATCH) -> int:
    """Embed these cards and store the vectors; returns how many rows were written.

    Idempotent: the same content gives the same vector. Cards forgotten since
    are skipped. No transaction is held while the model runs; each batch is one
    UPDATE that only lands where value and text are still what was embedded,
    so a slow task cannot overwrite the vector of a newer description (that
    change queued its own task).

    `scope_ids`, when given, are the cards' scopes (the n-th the n-th card's): the read is restricted to
    them, which a cluster sends to their shards only; without them (a task queued before it carried
    them, a backfill by id) the read looks for the ids everywhere. The object's name is read apart: an
    entity is a row of another table distributed by scope, not joined by its id alone."""
    written = 0
    card_ids, scope_ids = list(card_ids), list(scope_ids)
    scope_of = dict(zip(card_ids, scope_ids, strict=True)) if scope_ids else {}
    ids = iter(sorted(set(card_ids)))
    while chunk := list(islice(ids, batch_size)):
        rows = Card.objects.filter(pk__in=chunk)
        if scope_of:
            rows = rows.filter(scope_id__in={scope_of[pk] for pk in chunk})
        cards = list(rows.select_related("label").only("id", "scope", "value", "text", "object", "label__key"))
        if not cards:
            continue
        cards = _objects_named(cards)
        space = current_space()     # read before embedding: the vectors are of the space asked for
        vectors = embed_texts([card_embedding_text(card) for card in cards])
        written += _store(cards, vectors, space)
    return written


def _objects_named(cards: list[Card]) -> list[Card]:
    """The cards, each object with its name, in one read (none when no card has an object). A card whose
    object is gone meanwhile went with it (a card protects its entities): it is skipped."""
    object_ids = {card.object_id for card in cards if card.object_id is not None}
    if not object_ids:
        return cards
    named = Entity.objects.only("id", "name").in_bulk(object_ids)
    for card in cards:
        if card.object_id in named:
            card.object = named[card.object_id]
    return [card for card in cards if card.object_id is None or card.object_id in named]


def _store(cards: list[Card], vectors: list[list[float]], space: str) -> int:
    # Vectors go as pgvector's text form and are cast in SQL: no per-connection
    # register_vector needed. 9 significant digits round-trip a float32 exactly.
    literals = ["[" + ",".join(f"{x:.9g}" for x in vector) + "]" for vector in vectors]
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE cards_card c SET embedding = v.embedding::vector, embedding_space = %s"
            " FROM unnest(%s::bigint[], %s::bigint[], %s::text[], %s::text[], %s::text[])"
            " AS v(id, scope, value, text, embedding)"
            " WHERE c.id = v.id AND c.scope_id = v.scope AND c.value = v.value AND c.text = v.text"
            " AND c.scope_id = ANY(%s::bigint[])",
            [space, [c.pk for c in cards], [c.scope_id for c in cards], [c.value for c in cards],
             [c.text for c in cards], literals, scopes_of(cards)])
        return cursor.rowcount


def cards_embed_missing(*, limit: int | None = SWEEP_LIMIT, batch_size: int = EMBED_BATCH,
                        progress: Callable[[int], None] | None = None) -> dict:
    """Embed committed cards that have no vector (a process killed between
    commit and embedding, an embedder outage, EMBED_ON_WRITE off, an import),
    newest first, at most `limit` of them (None: all); returns
    {"missing": cards looked at, "embedded": vectors written}.

    Idempotent and safe beside the on-commit tasks: cards_embed_now writes a
    vector only where the text is still what was embedded. The walk goes down
    by id rather than re-asking for "the newest NULLs": a card whose text
    changes mid-run keeps its NULL (its own task fills it) and is not fetched
    again by this run. `progress` is told how many cards each batch covered."""
    # Every scope at once, on no person's behalf: the partial index card_unembedded holds only these rows.
    seen, written = cards_embed_walk(Card.objects.filter(embedding__isnull=True), limit=limit,
                                     batch_size=batch_size, progress=progress)
    return {"missing": seen, "embedded": written}


def cards_embed_walk(cards, *, limit: int | None, batch_size: int,
                     progress: Callable[[int], None] | None = None) -> tuple[int, int]:
    """Embed `cards` (a queryset) newest first, `batch_size` a batch, at most `limit` (None: all): the sweep's
    walk and the reembed's. It goes down by id rather than re-asking for the newest: a card the batch could
    not write (its words changed meanwhile) is not fetched again by this walk. Returns (looked at, written)."""
    seen = written = 0
    below: int | None = None
    while limit is None or seen < limit:
        chunk = cards if below is None else cards.filter(id__lt=below)
        size = batch_size if limit is None else min(batch_size, limit - seen)
        rows = list(chunk.order_by("-id").values_list("id", "scope_id")[:size])
        if not rows:
            break
        ids = [pk for pk, _ in rows]
        written += cards_embed_now(card_ids=ids, scope_ids=[scope_id for _, scope_id in rows],
                                   batch_size=batch_size)
        seen += len(ids)
        below = ids[-1]
        if progress is not None:
            progress(len(ids))
    return seen, written


def cards_missing_count() -> int:
    """How many cards have no vector (the backfill command's progress bar)."""
    return Card.objects.filter(embedding__isnull=True).count()
