"""Moving the database to the current embedding space (`manage.py reembed`): every card whose vector is of
another model, or that has none, is embedded again by the model the settings name now.

In its own process, beside the web: batch by batch, newest cards first, each batch one embedding call and
one UPDATE that commits on its own, so nothing is held while the model runs and a read never waits. Recall
keeps answering meanwhile: a card not yet moved is scored by its words (cards/recall/score.py), and no card
is embedded inside a request (cards/embeddings/reembedding.py). Resumable: it looks for the cards whose space
is not the current one, so a run stopped anywhere goes on where it stopped when started again."""

from __future__ import annotations

from collections.abc import Callable

from ..embeddings import current_space
from ..embeddings.reembedding import reembed_forget, reembed_hold, reembed_release
from ..models import Card
from .embedding import cards_embed_now

REEMBED_BATCH = 64


class ReembedRunning(RuntimeError):
    """Another reembed holds the lock: one at a time."""


def cards_to_move(space: str):
    """The cards whose vector is not of `space`: of another model, or none."""
    return Card.objects.exclude(embedding_space=space)


def cards_reembed(*, batch_size: int = REEMBED_BATCH, limit: int | None = None,
                  progress: Callable[[int], None] | None = None) -> dict:
    """Embed the cards not of the current space in it, newest first, `batch_size` a batch, at most `limit`
    of them (None: all); `progress` is told how many cards each batch covered. Returns {"space", "looked_at",
    "moved"}. A card whose words change meanwhile is left to the task its change queued (the UPDATE lands
    only where the words are still those embedded). Refused (ReembedRunning) while another reembed runs."""
    space = current_space()
    if not reembed_hold():
        raise ReembedRunning("Another reembed is running; it holds the database's reembed lock.")
    reembed_forget()    # this process's recall sees the reembed at once, not at its next check
    looked_at = moved = 0
    below: int | None = None
    try:
        while limit is None or looked_at < limit:
            remaining = cards_to_move(space) if below is None else cards_to_move(space).filter(id__lt=below)
            size = batch_size if limit is None else min(batch_size, limit - looked_at)
            rows = list(remaining.order_by("-id").values_list("id", "scope_id")[:size])
            if not rows:
                break
            ids = [pk for pk, _ in rows]
            moved += cards_embed_now(card_ids=ids, scope_ids=[scope_id for _, scope_id in rows],
                                     batch_size=batch_size)
            looked_at += len(ids)
            below = ids[-1]
            if progress is not None:
                progress(len(ids))
    finally:
        reembed_release()
        reembed_forget()
    return {"space": space, "looked_at": looked_at, "moved": moved}
