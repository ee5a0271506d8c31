"""Recall's score is defined once (cards/recall/score.py, DESIGN §6) and every route is held to it: on
generated cards — labels of different λ, events dated, undated and planned, states stated and confirmed at
different times (some ahead of now), about a named entity or not, with a stored vector or without one (the
unembedded few, scored in the request) — the similarity, lexical share, relevance, decay, Δt and final score
each route reports (SQL exact, index, memory) equal what score's Python form computes from the card's own
fields, and the SQL and Python forms of each fragment agree card by card.

The oracle (_expected, _chosen_by_relevance) also knows cards scored by their words alone — a vector of
another embedding space, or none that the request embeds — which tests/cards/test_reembed.py meets in a
database half moved from one model to another."""

from __future__ import annotations

import datetime as dt
import math
import random

import numpy as np
import pytest
from django.db import connection, transaction
from django.utils import timezone
from hypothesis import HealthCheck, given, settings as hypothesis_settings
from hypothesis import strategies as st

from cards.embeddings import current_space, embed_cards_in_request, embedding_text, space_values
from cards.models import Card, CardKind, Cardinality, Entity, Label, Precision, Tag, TimeSource
from cards.recall import routes, score
from cards.recall.query import query_vector, recall_terms
from cards.recall.unembedded import UNEMBEDDED_LIMIT, vector_of
from tests.factories import card_vector, family_scope

DAY = dt.timedelta(days=1)
WORDS = ["tea", "chess", "kyoto", "garden", "piano", "river"]
# Single-value states (λ 0.02 and 0.005), multi-value, an event, knowledge; and one label made per example
# with a drawn λ.
LABELS = ("city", "birthday", "hobby", "meal", "note")
QUERIES = ("where does Mei live", "tea and chess with Kai", "the garden by the river")
TOLERANCE = 1e-6


def _world(alice, rng: random.Random, decay_lambda: float, size: int) -> tuple[list[int], dict[str, int]]:
    now = timezone.now()
    scopes = [alice.personal_scope, family_scope(owner=alice, name=f"Family {rng.random()}")]
    people = [alice.entity, *(Entity.objects.create(scope=scopes[1], name=name, kind="person")
                              for name in ("Mei", "Kai"))]
    labels = [*Label.objects.filter(key__in=LABELS),
              Label.objects.create(key=f"pace_{rng.randrange(10**9)}", kind=CardKind.STATE,
                                   cardinality=Cardinality.MULTI, decay_lambda=decay_lambda, description="drawn λ")]
    held, cards = set(), []
    for i in range(size):
        label, subject, scope = rng.choice(labels), rng.choice(people), rng.choice(scopes)
        if label.cardinality == Cardinality.SINGLE and (scope.pk, subject.pk, label.pk) in held:
            label = labels[-1]     # one current value a scope, subject and single-value label
        held.add((scope.pk, subject.pk, label.pk))
        recorded = now - rng.choice([400, 200, 100, 30, 1, 0.01]) * DAY
        # Events dated in the past or ahead (planned: no decay until then), or undated (since recorded).
        occurred = (now - rng.choice([300, 40, 2, -3]) * DAY) if label.kind == CardKind.EVENT \
            and rng.random() < 0.7 else None
        cards.append(Card(
            scope=scope, kind=label.kind, cardinality=label.cardinality, label=label,
            tag=rng.choice([Tag.FACT, Tag.FACT, Tag.HYPOTHESIS]), subject=subject,
            object=rng.choice([None, None, *people]), value=f"v{i}", value_norm=f"v{i}", text="",
            effective_at=recorded, recorded_at=recorded,
            verified_at=rng.choice([recorded, now - rng.choice([500, 190, 50, 0.5]) * DAY, now + DAY]),
            stated_at=sorted(now - d * DAY for d in rng.sample([250, 20, 2, -4], rng.randint(0, 3))),
            occurred_at=occurred, precision=Precision.DAY if occurred else "",
            time_source=TimeSource.STATED if occurred else TimeSource.NONE,
            lexemes=rng.sample(WORDS, rng.randint(0, 3)),
            **card_vector(None if rng.random() < 0.15 else [rng.gauss(0, 1) for _ in range(384)])))
    Card.objects.bulk_create(cards)
    return [s.pk for s in scopes], {p.name: p.pk for p in people}


def computed_ids(cards, *, embed_in_request: bool = True) -> set[int]:
    """The cards without a vector the request embeds: the freshest UNEMBEDDED_LIMIT of the candidates (every
    card given is one), none while a reembed runs (recall/unembedded.py)."""
    if not embed_in_request:
        return set()
    waiting = sorted((c for c in cards if c.embedding is None), key=lambda c: (c.verified_at, c.pk), reverse=True)
    return {c.pk for c in waiting[:UNEMBEDDED_LIMIT]}


def _cosine(a, b) -> float:
    a = np.asarray(a, dtype=np.float32).astype(np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def _expected(card: Card, *, at: dt.datetime, query: str, named_ids: set[int], lexical: float,
              computed: set[int]) -> dict:
    """What score.py says of this card, from its own fields. A card without a stored vector that the request
    embeds (`computed`) is scored on similarity alone until the sweep stores one (recall/assemble.py
    with_unembedded): no lexical share, no boost. A card with no vector of the current space otherwise — one
    of another model, or none beyond those the request embeds — is scored by its words alone: the space's
    `unrelated` similarity, and returned only when its words or a named entity relate it to the query."""
    q = vector_of(query_vector(query))
    named = card.subject_id in named_ids or card.object_id in named_ids
    by_words = False
    if card.embedding is not None and card.embedding_space == current_space():
        similarity = _cosine(card.embedding, q)
    elif card.pk in computed:   # the route embeds it in the request, as the sweep will store it
        text = embedding_text(label_key=card.label.key, value=card.value,
                              object_name=card.object.name if card.object else None, text=card.text)
        similarity = _cosine(embed_cards_in_request([text])[0], q)
        named, lexical = False, 0.0
    else:
        similarity, by_words = space_values().unrelated, True
    anchor = score.anchor(kind=card.kind, occurred_at=card.occurred_at, recorded_at=card.recorded_at,
                          effective_at=card.effective_at, verified_at=card.verified_at,
                          stated_at=card.stated_at, at=at)
    days = score.days_since(anchor, at)
    decay = score.decay(card.label.decay_lambda, days)
    relevance = score.relevance(similarity, lexical, named)
    return {"similarity": similarity, "lexical": lexical, "named": named, "days": days, "decay": decay,
            "relevance": relevance, "score": score.final(relevance, decay), "by_words": by_words,
            "eligible": not by_words or lexical > 0 or named}


def _lexical(cards: list[Card], terms: tuple[str, ...], n: int) -> dict[int, float]:
    """The idf-weighted share of the query's words each card holds, idf over n (recall/lexical.py)."""
    if not terms:
        return {c.pk: 0.0 for c in cards}
    df = {t: sum(t in c.lexemes for c in cards) for t in terms}
    idf = {t: math.log(1 + (max(n, df[t]) - df[t] + 0.5) / (df[t] + 0.5)) for t in terms}
    return {c.pk: sum(idf[t] for t in terms if t in c.lexemes) / sum(idf.values()) for c in cards}


def _held_to_score(found, cards: dict[int, Card], *, query: str, named_ids: set[int], lexical: dict[int, float],
                   computed: set[int]):
    for r in found.results:
        card = cards[r.card_id]
        want = _expected(card, at=found.at, query=query, named_ids=named_ids, lexical=lexical.get(card.pk, 0.0),
                         computed=computed)
        assert r.computed == (card.pk in computed)
        assert (r.by_words, want.pop("eligible")) == (want.pop("by_words"), True)
        assert bool(r.named) == want.pop("named")
        got = {"similarity": r.similarity, "lexical": r.lexical, "days": r.days, "decay": r.decay,
               "relevance": r.relevance, "score": r.score}
        assert got == pytest.approx(want, abs=TOLERANCE), (found.route, found.memory, card.pk)
    # Shown by the final score (relevance × decay), best first.
    scores = [r.score for r in found.results]
    assert all(a >= b - TOLERANCE for a, b in zip(scores, scores[1:]))


def _chosen_by_relevance(found, cards: dict[int, Card], k: int, *, query: str, named_ids: set[int],
                         lexical: dict[int, float], computed: set[int]) -> None:
    """A complete route (exact, memory) chooses the k most relevant as score.relevance ranks them: what its
    SQL or numpy computed to choose is the Python relevance."""
    expected = [_expected(c, at=found.at, query=query, named_ids=named_ids, lexical=lexical.get(c.pk, 0.0),
                          computed=computed) for c in cards.values()]
    relevance = sorted((e["relevance"] for e in expected if e["eligible"]), reverse=True)
    eligible = [r for r in relevance if r >= space_values().floor]
    assert sorted((r.relevance for r in found.results), reverse=True) == pytest.approx(eligible[:k], abs=TOLERANCE)


@hypothesis_settings(max_examples=8, deadline=None, derandomize=True,
                     suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), size=st.integers(1, 30),
       decay_lambda=st.one_of(st.just(0.0), st.floats(0.0001, 0.2)))
def test_every_route_scores_as_score_defines(alice, seed, size, decay_lambda):
    rng = random.Random(seed)
    with pytest.raises(_Rollback), transaction.atomic():
        scope_ids, people = _world(alice, rng, decay_lambda, size)
        cards = {c.pk: c for c in Card.objects.filter(scope_id__in=scope_ids).select_related("label", "object")}
        held_to_the_oracle(scope_ids, cards, people)
        _sql_forms_agree(cards, alpha_cases=rng)
        raise _Rollback


def held_to_the_oracle(scope_ids: list[int], cards: dict[int, Card], people: dict[str, int], *,
                       embed_in_request: bool = True) -> None:
    """Every route scores `cards` (all of `scope_ids`' cards, each valid now) as the oracle does, and the
    complete ones choose as it does, for every query of QUERIES."""
    everything = len(cards) + 1
    computed = computed_ids(cards.values(), embed_in_request=embed_in_request)
    for query in QUERIES:
        named_ids = {pk for name, pk in people.items() if name.lower() in query.lower()}
        terms = recall_terms(query)
        # The exact route and memory take idf over the candidates counted for routing (every card here is
        # open), the index route over the exact route's limit, among the cards SQL scores (by a vector of
        # the space, or by words: every card but those the request embeds).
        counted = _lexical(list(cards.values()), terms, len(cards))
        indexed = _lexical([c for c in cards.values() if c.pk not in computed], terms, routes.EXACT_LIMIT + 1)
        for route, lexical in (("exact", counted), ("memory", counted), ("index", indexed)):
            found = routes.recall(scope_ids=scope_ids, query=query, k=everything, route=route)
            assert (found.route, found.memory) == ("index" if route == "index" else "exact", route == "memory")
            _held_to_score(found, cards, query=query, named_ids=named_ids, lexical=lexical, computed=computed)
            if route != "index":
                _chosen_by_relevance(found, cards, everything, query=query, named_ids=named_ids, lexical=lexical,
                                     computed=computed)
                few = routes.recall(scope_ids=scope_ids, query=query, k=3, route=route)
                _chosen_by_relevance(few, cards, 3, query=query, named_ids=named_ids, lexical=lexical,
                                     computed=computed)


def _sql_forms_agree(cards: dict[int, Card], *, alpha_cases: random.Random) -> None:
    """ANCHOR_SQL, DAYS_SQL and decay_sql (the home chart's anchor, the snapshots' build) against anchor(),
    days() and decay() for each card; relevance_sql against relevance() for drawn inputs, SQL's NULL named
    among them."""
    at = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT c.id, {score.ANCHOR_SQL}, {score.DAYS_SQL},"
                       f" {score.decay_sql('l.decay_lambda', score.DAYS_SQL)}"
                       " FROM cards_card c JOIN cards_label l ON l.id = c.label_id WHERE c.id = ANY(%(ids)s)",
                       {"at": at, "ids": list(cards)})
        for pk, anchor, days, decay in cursor.fetchall():
            card = cards[pk]
            want = score.anchor(kind=card.kind, occurred_at=card.occurred_at, recorded_at=card.recorded_at,
                                effective_at=card.effective_at, verified_at=card.verified_at,
                                stated_at=card.stated_at, at=at)
            assert anchor == want
            assert days == pytest.approx(score.days_since(want, at), abs=TOLERANCE)
            assert decay == pytest.approx(score.decay(card.label.decay_lambda, days), abs=TOLERANCE)
        inputs = [(alpha_cases.uniform(-1, 1), alpha_cases.random(), alpha_cases.choice([True, False, None]))
                  for _ in range(20)]
        cursor.execute("SELECT " + ", ".join(score.relevance_sql(f"%(s{i})s::float8", f"%(l{i})s::float8",
                                                                 f"%(n{i})s::boolean") for i in range(len(inputs))),
                       {**score.params(), **{f"{key}{i}": value for i, row in enumerate(inputs)
                                             for key, value in zip("sln", row)}})
        assert list(cursor.fetchone()) == pytest.approx([score.relevance(*row) for row in inputs], abs=1e-12)
    # The numpy form is the Python form, element by element.
    similarity, lexical, named = (np.array(column) for column in zip(*((s, l, bool(n)) for s, l, n in inputs)))
    assert score.relevance(similarity, lexical, named) == pytest.approx(
        [score.relevance(*row) for row in inputs], abs=1e-12)
    days = np.array([0.0, 1.5, 30.0, 400.0])
    assert score.decay(0.02, days) == pytest.approx([score.decay(0.02, float(d)) for d in days], abs=1e-12)
    assert score.days(np.array([0, 86_400 * 10**6]), 86_400 * 10**6 // 2).tolist() == [0.0, 0.5]


class _Rollback(Exception):
    pass
