"""Recall's lexical score (issue 17): the idf-weighted share of the query's words a candidate holds — BM25
with every word counted once and no length norm, since cards are a sentence long. In SQL for the routes
that read it there, in numpy for recall from memory; tests/cards/test_recall_memory.py holds the two to the
same answers. A card's words and a query's: cards/words/lexical.py."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

# In the statement that scores similarity: `lex` is the cards holding any of the query's words (`matched`,
# through the GIN index on lexemes, or among the candidates in hand), each word's idf is taken over {n}
# cards, and a card's score is the idf-weighted share of the query's words it holds. In float8: numeric
# arithmetic on every candidate's relevance cost more than the scoring around it.
LEXICAL_SQL = """lex AS MATERIALIZED ({matched}),
idf AS MATERIALIZED (
    SELECT t.term, ln(1 + (GREATEST({n}, count(l.id)) - count(l.id) + 0.5) / (count(l.id) + 0.5))::float8 AS idf
    FROM unnest(%(terms)s::text[]) AS t(term) LEFT JOIN lex l ON t.term = ANY(l.lexemes) GROUP BY t.term),
lexical AS MATERIALIZED (
    SELECT l.id, (SELECT sum(i.idf) FROM idf i WHERE i.term = ANY(l.lexemes)) / (SELECT sum(i.idf) FROM idf i)
           AS lexical
    FROM lex l)"""


def shares(holding: Callable[[str], np.ndarray], valid: np.ndarray, terms: list[str], n: int) -> np.ndarray:
    """LEXICAL_SQL in numpy, for `len(valid)` candidates: each word's idf over the n candidates routing
    counted, its holders (`holding(word)`: their positions) among the valid ones."""
    lexical = np.zeros(len(valid))
    if not terms:
        return lexical
    held, idfs = [], []
    for term in terms:
        positions = holding(term)
        positions = positions[valid[positions]]
        df = len(positions)
        idfs.append(np.log(1 + (max(n, df) - df + 0.5) / (df + 0.5)))
        held.append(positions)
    for positions, idf in zip(held, idfs):
        np.add.at(lexical, positions, idf)
    return lexical / sum(idfs)
