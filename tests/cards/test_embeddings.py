"""Card embeddings: the real local model (no mocks), the write hooks through
eager Celery, the backfill command, the HTTP backend against a local
OpenAI-compatible server, and the HNSW index."""

import datetime as dt
import json
import math
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection

from cards.drafts import CardDraft
from cards.embeddings import EmbeddingError, EmbeddingUnavailable, card_embedding_text, embed_texts
from cards.embeddings.local import embedding_model
from cards.embeddings.spaces import MINILM
from cards.models import Card, Label
from cards.services import card_describe, card_remember, card_remember_batch, knowledge_rename
from cards.services import embedding as embedding_service
from cards.services.embedding import cards_embed_now

DIM = 384


@pytest.fixture(scope="module", autouse=True)
def model():
    # The process-wide singleton: loaded once (~5-8 s) and reused by every test here.
    return embedding_model()


@pytest.fixture(autouse=True)
def _local_backend_and_hooks_on(settings):
    settings.EMBEDDING_BACKEND = "local"
    settings.EMBED_ON_WRITE = True


def cosine(a, b) -> float:
    return sum(x * y for x, y in zip(a, b))


def city(value, at, **extra):
    return CardDraft(kind="state", label="city", subject="me", value=value, reference_time=at, **extra)


# --- the local model ------------------------------------------------------------

def test_local_model_gives_384_dim_unit_vectors():
    vectors = embed_texts(["My sister moved to Kyoto.", "Peanut allergy", "x" * 5000])
    assert [len(v) for v in vectors] == [DIM] * 3
    assert all(abs(math.sqrt(cosine(v, v)) - 1) < 1e-5 for v in vectors)
    assert embed_texts([]) == []


def test_similar_sentences_score_higher_than_unrelated_ones():
    query, near, far = embed_texts(["Where does my sister live now?",
                                    "city: Kyoto. My sister lives in Kyoto since spring",
                                    "allergy: peanuts. Carries an epinephrine pen"])
    assert cosine(query, near) > cosine(query, far) + 0.1


def test_a_batch_is_padded_to_its_longest_text_not_a_fixed_window(model):
    features = model.preprocess(["hi", "a somewhat longer sentence of about a dozen tokens in all"])
    assert features["input_ids"].shape[1] < 20


def test_embedding_text_names_attribute_value_object_and_description():
    card = Card(label=Label(key="job_title"), value="Kyoto", text="Moved for the new job")
    assert card_embedding_text(card) == "job title: Kyoto. Moved for the new job"


# --- hooks: remember, batch, describe, rename (eager Celery) ----------------------

@pytest.mark.django_db
def test_remembering_a_card_fills_its_embedding(alice, scope, t0, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        card = card_remember(scope=scope, actor=alice, draft=city("Kyoto", t0)).card
    assert len(callbacks) == 1
    card.refresh_from_db()
    expected = embed_texts([card_embedding_text(card)])[0]
    assert len(card.embedding) == DIM
    assert cosine(card.embedding, expected) > 0.9999
    assert card.embedding_space == MINILM


@pytest.mark.django_db
def test_describe_and_rename_recompute_the_embedding(alice, scope, t0, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        card = card_remember(scope=scope, actor=alice, draft=city("Kyoto", t0)).card
        note = card_remember(scope=scope, actor=alice, draft=CardDraft(
            kind="knowledge", label="howto", subject="Router", value="Reset the router", reference_time=t0)).card
    card.refresh_from_db()
    before = list(card.embedding)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        card_describe(card=card, actor=alice, text="Moved there to study marine biology")
    assert len(callbacks) == 1
    card.refresh_from_db()
    assert cosine(card.embedding, embed_texts([card_embedding_text(card)])[0]) > 0.9999
    assert cosine(card.embedding, before) < 0.99
    with django_capture_on_commit_callbacks(execute=True):
        knowledge_rename(card=note, actor=alice, value="Factory-reset the router")
    note.refresh_from_db()
    assert cosine(note.embedding, embed_texts(["howto: Factory-reset the router"])[0]) > 0.9999
    assert card.embedding_space == note.embedding_space == MINILM


@pytest.mark.django_db
def test_a_batch_queues_one_task_for_all_its_new_cards(alice, scope, t0, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):  # its own, earlier transaction
        card_remember(scope=scope, actor=alice, draft=city("Taipei", t0))
    drafts = [city("Kyoto", t0 + dt.timedelta(days=2)),
              city("Osaka", t0 - dt.timedelta(days=5)),  # back-dated: the careful path, card_remember inside
              CardDraft(kind="state", label="skill", subject="me", value="sailing", reference_time=t0),
              CardDraft(kind="state", label="skill", subject="me", value="pottery", reference_time=t0)]
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        results = card_remember_batch(actor=alice, items=[(scope, d) for d in drafts])
    assert len(callbacks) == 1
    new_ids = {r.card.pk for r in results}
    assert Card.objects.filter(pk__in=new_ids, embedding__isnull=True).count() == 0
    assert set(Card.objects.filter(pk__in=new_ids).values_list("embedding_space", flat=True)) == {MINILM}


@pytest.mark.django_db
def test_a_back_dated_fork_embeds_the_value_that_resumes_too(alice, scope, t0, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        card_remember(scope=scope, actor=alice, draft=city("Taipei", t0))
        card_remember(scope=scope, actor=alice, draft=city("Taipei", t0 + dt.timedelta(days=10)))
        result = card_remember(scope=scope, actor=alice, draft=city("Kyoto", t0 + dt.timedelta(days=5)))
    assert result.outcome == "superseded"
    assert Card.objects.filter(scope=scope).count() == 3  # Taipei, Kyoto, Taipei again from day 10
    assert not Card.objects.filter(scope=scope, embedding__isnull=True).exists()


@pytest.mark.django_db
def test_with_embed_on_write_off_nothing_is_queued(alice, scope, t0, settings, django_capture_on_commit_callbacks):
    settings.EMBED_ON_WRITE = False
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        card = card_remember(scope=scope, actor=alice, draft=city("Kyoto", t0)).card
    assert callbacks == []
    card.refresh_from_db()
    assert card.embedding is None


@pytest.mark.django_db
def test_embedding_skips_forgotten_cards_and_stale_content(alice, scope, t0):
    card = card_remember(scope=scope, actor=alice, draft=city("Kyoto", t0)).card
    assert cards_embed_now(card_ids=[card.pk, 10**12]) == 1
    # A task that read the old text must not overwrite the newer description's vector.
    Card.objects.filter(pk=card.pk).update(text="changed meanwhile", embedding=None, embedding_space=None)
    assert embedding_service._store([card], [[1.0] + [0.0] * (DIM - 1)], MINILM) == 0


@pytest.mark.django_db
def test_the_task_names_each_cards_scope_and_a_message_queued_without_them_still_embeds(
        alice, scope, t0, monkeypatch, django_capture_on_commit_callbacks):
    """A card is a row of its scope, which is how a cluster finds it: the task's message carries the scope of
    each card. A message queued before it did (card ids alone) still embeds its cards, objects named."""
    from cards.tasks import cards_embed

    sent = []
    monkeypatch.setattr(cards_embed, "delay", lambda **kwargs: sent.append(kwargs))
    with django_capture_on_commit_callbacks(execute=True):
        card = card_remember(scope=scope, actor=alice, draft=CardDraft(
            kind="state", label="partner", subject="me", object="Ren", reference_time=t0)).card
    assert sent == [{"card_ids": [card.pk], "scope_ids": [scope.pk]}]
    assert cards_embed.apply(kwargs={"card_ids": [card.pk]}).get() == 1  # the old message's one argument
    card = Card.objects.select_related("label", "object").get(pk=card.pk)
    assert "Ren" in card_embedding_text(card)
    assert cosine(card.embedding, embed_texts([card_embedding_text(card)])[0]) > 0.9999
    assert cards_embed_now(card_ids=[card.pk], scope_ids=[scope.pk + 1000]) == 0  # not found in another scope


# --- backfill -----------------------------------------------------------------------

@pytest.mark.django_db
def test_backfill_fills_null_embeddings_in_batches(alice, scope, t0, settings):
    settings.EMBED_ON_WRITE = False
    for i, value in enumerate(["sailing", "pottery", "chess", "tango", "baking"]):
        card_remember(scope=scope, actor=alice, draft=CardDraft(kind="state", label="skill", subject="me",
                                                                value=value, reference_time=t0))
    missing = Card.objects.filter(scope=scope, embedding__isnull=True)
    assert missing.count() == 5
    out = StringIO()
    call_command("embed_backfill", "--batch", "2", "--limit", "3", stdout=out, stderr=StringIO())
    assert missing.count() == 2
    assert "Embedded 3 of 3" in out.getvalue()
    call_command("embed_backfill", "--batch", "2", stdout=StringIO(), stderr=StringIO())
    assert missing.count() == 0
    assert set(Card.objects.filter(scope=scope).values_list("embedding_space", flat=True)) == {MINILM}


# --- the HTTP backend ---------------------------------------------------------------

class _EmbeddingsHandler(BaseHTTPRequestHandler):
    """Speaks POST /v1/embeddings; `server.answer` chooses a good or a bad reply."""

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append((self.path, self.headers.get("Authorization"), body))
        status, dim = self.server.answer
        texts = body["input"]
        # Reversed, as the protocol allows: the client must order by "index".
        data = [{"object": "embedding", "index": i, "embedding": [float(len(t) + 1)] + [0.5] * (dim - 1)}
                for i, t in reversed(list(enumerate(texts)))]
        payload = json.dumps({"object": "list", "data": data, "model": body["model"]}).encode() \
            if status == 200 else b'{"error": "overloaded"}'
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


@pytest.fixture
def embedding_server(settings):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _EmbeddingsHandler)
    server.requests, server.answer = [], (200, DIM)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    settings.EMBEDDING_BACKEND = "http"
    settings.EMBEDDING_URL = f"http://127.0.0.1:{server.server_address[1]}/"
    settings.EMBEDDING_MODEL = "minilm-test"
    settings.EMBEDDING_API_KEY = "k-123"
    settings.EMBEDDING_TIMEOUT = 5
    yield server
    server.shutdown()
    server.server_close()


def test_http_backend_posts_to_v1_embeddings_and_returns_unit_vectors_in_order(embedding_server):
    vectors = embed_texts(["a", "abc"])
    path, auth, body = embedding_server.requests[0]
    assert (path, auth, body) == ("/v1/embeddings", "Bearer k-123", {"model": "minilm-test", "input": ["a", "abc"]})
    assert [len(v) for v in vectors] == [DIM, DIM]
    assert all(abs(cosine(v, v) - 1) < 1e-9 for v in vectors)
    assert vectors[1][0] > vectors[0][0]  # "abc" (first component 4) came back second despite the reversed reply


def test_http_backend_refuses_the_wrong_dimension_clearly(embedding_server):
    embedding_server.answer = (200, 768)
    with pytest.raises(EmbeddingError, match=r"768-dimensional vectors; cards store 384") as caught:
        embed_texts(["a"])
    assert not isinstance(caught.value, EmbeddingUnavailable)  # a misconfiguration: retrying won't help


def test_http_backend_reports_server_trouble_as_retryable(embedding_server, settings):
    embedding_server.answer = (503, DIM)
    with pytest.raises(EmbeddingUnavailable, match="answered HTTP 503"):
        embed_texts(["a"])
    embedding_server.answer = (400, DIM)
    with pytest.raises(EmbeddingError, match="answered HTTP 400") as caught:
        embed_texts(["a"])
    assert not isinstance(caught.value, EmbeddingUnavailable)
    settings.EMBEDDING_URL = "http://127.0.0.1:9"  # discard port: nothing listens
    with pytest.raises(EmbeddingUnavailable, match="could not be reached"):
        embed_texts(["a"])


@pytest.mark.django_db
def test_http_backend_fills_card_embeddings(embedding_server, alice, scope, t0):
    card = card_remember(scope=scope, actor=alice, draft=city("Kyoto", t0)).card
    assert cards_embed_now(card_ids=[card.pk]) == 1
    card.refresh_from_db()
    assert len(card.embedding) == DIM
    assert card.embedding_space == "http:minilm-test"   # the model the server was asked for


# --- the index ----------------------------------------------------------------------

@pytest.mark.django_db
def test_hnsw_cosine_index_exists_on_card_embeddings():
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE tablename = 'cards_card' AND indexname = %s",
                       ["card_embedding_hnsw"])
        (definition,) = cursor.fetchone()
    assert "USING hnsw (embedding vector_cosine_ops)" in definition
    assert "m='16'" in definition and "ef_construction='64'" in definition


def test_a_failure_to_queue_the_embedding_is_logged_and_the_card_stays(alice, scope, t0, monkeypatch, caplog,
                                                                        django_capture_on_commit_callbacks):
    """The card is committed before its embedding is queued: a broker or embedder failure then is logged
    (the sweep catches up), never raised out of the write."""
    from cards import tasks

    def down(**kwargs):
        raise ConnectionError("broker down")
    monkeypatch.setattr(tasks.cards_embed, "delay", down)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        card = card_remember(scope=scope, actor=alice, draft=city("Kyoto", t0)).card
    assert len(callbacks) == 1
    assert Card.objects.get(pk=card.pk).embedding is None
    assert Card.objects.get(pk=card.pk).embedding_space is None
    assert any("cards_embed after commit" in r.getMessage() and "broker down" in r.getMessage()
               for r in caplog.records)
