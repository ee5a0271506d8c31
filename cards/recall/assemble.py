"""What every route's findings become: the answer's types filled in, the candidates without a vector
scored alike (unembedded.py), the k most relevant shown in score order, contradictions for the caller."""

from __future__ import annotations

from .answer import Aging, Contradiction, Scored
from .contradictions import for_the_caller, touching_first
from .unembedded import unembedded_score


def answer_of(cursor, params: dict, *, top: list, aged: list, aging_askable: int, sides: list,
              unembedded: list[int], unanswered: bool = False) -> dict:
    """Recall's answer from what a route found: the top (id, similarity, lexical, decay, days, named,
    by_words) in score order, aged facts (id, days, asked_at, askable), contradictions' sides (subject,
    label, ids, question card, asked_at, askable) and the ids of the freshest candidates without a vector."""
    results = [Scored(card_id=pk, similarity=float(sim), lexical=float(lex), decay=float(dec), days=float(days),
                      named=named, by_words=bool(words)) for pk, sim, lex, dec, days, named, words in top]
    aging = [Aging(card_id=pk, days=float(days), asked_at=asked, askable=askable) for pk, days, asked, askable in aged]
    contradictions = [Contradiction(subject_id=subject, label_id=label, card_ids=ids, question_card_id=key,
                                    asked_at=asked, askable=askable)
                      for subject, label, ids, key, asked, askable in sides]
    results, unembedded = with_unembedded(cursor, results, unembedded, params)
    if unanswered:
        results = []
    return {"results": results, "aging": aging, "aging_askable": aging_askable, "unembedded": unembedded,
            "unanswered": unanswered, **for_the_caller(touching_first(contradictions, {r.card_id for r in results}))}


def with_unembedded(cursor, results: list[Scored], ids: list[int], params: dict) -> tuple[list[Scored], dict]:
    """The top k of the scored cards and of the candidates still without a vector
    (`ids`), scored alike (unembedded.py), in recall's order; and what was done about the latter."""
    found = unembedded_score(cursor, ids, params)
    if not found.scored:
        return results, found.summary()
    # Their words are stored with them: only the vector is missing. Their lexical
    # share is not known here (it is taken over the candidates), so they are
    # scored on similarity alone until the sweep has given them a vector.
    scored = [Scored(card_id=pk, similarity=sim, decay=dec, days=days, computed=True)
              for pk, sim, dec, days in found.scored]
    results = sorted(results + [r for r in scored if r.relevance >= params["floor"]],
                     key=lambda r: (r.relevance, r.card_id), reverse=True)[:params["k"]]
    return in_score_order(results), found.summary()


def in_score_order(results: list[Scored]) -> list[Scored]:
    """The k most relevant are chosen first, then shown by score (relevance ×
    decay): decay orders what is relevant, and never keeps a relevant card out
    for being old (bench/README "retrieval_quality.py": recall@10 0.90 chosen
    so, 0.72 when decay chooses too)."""
    return sorted(results, key=lambda r: (r.score, r.card_id), reverse=True)
