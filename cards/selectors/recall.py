"""Recall as a reader sees it: the body of POST /api/v1/recall/, also what the
dashboard's ask page shows and what the agent's context block is built from."""

from __future__ import annotations

from django.utils.translation import gettext

from core.errors import DomainError
from scopes.principals import Principal

from .read_scopes import scope_ids_read
from ..time.when import when_in_query, when_interval
from ..embeddings import EmbeddingError
from ..models import Tag
from ..recall.routes import recall
from .entity_reads import entity_of_user
from .entities import entity_bind
from .shape import cards_shown, iso


class EmbeddingDown(DomainError):
    code = "embedding_unavailable"
    status = 503


def _whose(card: dict, me_id: int) -> str:
    return "your" if card["subject_id"] == me_id else f"{card['subject']}'s"


def _question(card: dict, me_id: int) -> str:
    value = card["object"] or card["value"]
    label = card["label"].replace("_", " ")
    return f"I remember {_whose(card, me_id)} {label} is {value} — is this still accurate?"


def _contradiction_question(cards: list[dict], me_id: int) -> str:
    values = list(dict.fromkeys(f"‘{c['object'] or c['value']}’" for c in cards))
    listed = f"{', '.join(values[:-1])} and {values[-1]}" if len(values) > 1 else values[0]
    label = cards[0]["label"].replace("_", " ")
    return f"I have different answers for {_whose(cards[0], me_id)} {label}: {listed} — which one is current?"


def probe_question(card: dict) -> str:
    """A hypothesis put to the person as the seed's probes are: tentatively."""
    guess = card["text"].strip() or f"{card['label'].replace('_', ' ')}: {card['object'] or card['value']}"
    return f"I might be wrong, but is this right: ‘{guess}’?"


def recall_body(principal: Principal, *, scope_id: int | None, query: str, k: int, when: str | None, tz: str | None,
                as_of, subject: str | None = None, scope_ids: list[int] | None = None) -> tuple[dict, int]:
    """Recall as the caller sees it (scores, cards in their own words, aging and
    contradictions) in the body the API answers with, and the id of the caller's
    own entity ("you"). `scope_ids`: the read's scopes when the caller already has them.

    Each aging fact and contradiction carries the question to put to the person,
    or null when it is not to be put: asked already (`asked_at`), a sensitive
    attribute, or — for an aging fact — a side of a contradiction listed here,
    whose question covers it. `questions_waiting` counts those that may be asked."""
    if scope_ids is None:
        scope_ids = scope_ids_read(principal=principal, scope_id=scope_id)
    interval = when_interval(when, tz_name=tz, user=principal.user) if when else None
    events_only = True
    if interval is None and (timed := when_in_query(query, tz_name=tz, user=principal.user,
                                                    reference=as_of)) is not None:
        # "What did we do last weekend?": the events of that weekend, scored on the rest of the question.
        interval, query = timed.interval, timed.rest
        events_only = not timed.ahead
    subject_ids = None
    if subject is not None:
        # Bound as /answer/ binds it; an ambiguous name is refused with its candidates.
        binding = entity_bind(name=subject, scope_ids=scope_ids, speaker=principal.user)
        binding.one(subject)
        subject_ids = binding.entity_ids
    try:
        found = recall(scope_ids=scope_ids, query=query, k=k, as_of=as_of, when=interval, subject_ids=subject_ids,
                       asker_id=principal.user.pk, when_events_only=events_only)
    except EmbeddingError as error:
        raise EmbeddingDown(gettext("The embedding model is not available right now (%(error)s); try again shortly.")
                            % {"error": error}) from None
    ids = [r.card_id for r in found.results] + [a.card_id for a in found.aging]
    ids += [pk for c in found.contradictions for pk in c.card_ids]
    # Read once more to shape them: a card forgotten in between is left out, not a 500.
    cards = cards_shown(ids, user=principal.user, scope_ids=scope_ids)
    me_id = entity_of_user(principal.user).pk
    results = [{"card": cards[r.card_id], "similarity": r.similarity, "lexical": r.lexical, "relevance": r.relevance,
                "decay": r.decay, "score": r.score,
                "days": r.days, "tier": "hypothesis" if cards[r.card_id]["tag"] == Tag.HYPOTHESIS else "recorded",
                "vector": "computed" if r.computed else "none" if r.by_words else "stored"}
               for r in found.results if r.card_id in cards]
    sides = {pk for c in found.contradictions for pk in c.card_ids}
    covered = {a.card_id for a in found.aging if a.askable and a.card_id in sides}
    aging = [{**cards[a.card_id], "unverified_days": a.days, "asked_at": iso(a.asked_at),
              "question": _question(cards[a.card_id], me_id) if a.askable and a.card_id not in covered else None}
             for a in found.aging if a.card_id in cards]
    contradictions = [{"subject": cards[c.card_ids[0]]["subject"], "subject_id": c.subject_id,
                       "label": cards[c.card_ids[0]]["label"], "cards": [cards[pk] for pk in c.card_ids],
                       "question_card": c.question_card_id, "asked_at": iso(c.asked_at),
                       "question": _contradiction_question([cards[pk] for pk in c.card_ids], me_id)
                       if c.askable else None}
                      for c in found.contradictions if all(pk in cards for pk in c.card_ids)]
    waiting = {"contradictions": found.contradictions_askable, "aging_facts": found.aging_askable - len(covered)}
    return {"results": results, "no_evidence": found.no_evidence, "aging_facts": aging,
            "contradictions": contradictions, "questions_waiting": waiting, "at": iso(found.at), "route": found.route,
            "unembedded": found.unembedded}, me_id
