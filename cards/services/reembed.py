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
from .embedding import cards_embed_walk

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
    try:
        looked_at, moved = cards_embed_walk(cards_to_move(space), limit=limit, batch_size=batch_size,
                                            progress=progress)
    finally:
        reembed_release()
        reembed_forget()
    return {"space": space, "looked_at": looked_at, "moved": moved}
