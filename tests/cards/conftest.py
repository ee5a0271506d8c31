import pytest

from cards.embeddings.reembedding import reembed_forget
from cards.recall import snapshots, unembedded
from cards.recall.query import query_vectors_clear


def _forget_what_a_process_keeps_by_space():
    # The query vectors, the cards embedded in a request, the snapshots, and a reembed's hold.
    query_vectors_clear()
    unembedded.vectors_forget()
    snapshots.MEMORY.clear()
    reembed_forget()


@pytest.fixture
def nothing_kept_by_space():
    """For tests that change the embedding space: nothing a process keeps by space crosses from one to the next."""
    _forget_what_a_process_keeps_by_space()
    yield
    _forget_what_a_process_keeps_by_space()
