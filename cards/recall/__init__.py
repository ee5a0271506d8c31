"""Recall (DESIGN §6): the cards most relevant to a query, scored as score.py defines it once.

    score.py           relevance, decay and Δt's anchor: SQL, numpy and Python forms (imports no other module here)
    routes.py          recall(): the route a read takes (exact, from memory, index)
    exact.py           the exact route's one statement
    index.py           the index route (HNSW) for broad reads
    snapshots.py       scopes' cards kept in a worker's memory, checked against the database's log
    memory.py          the exact route scored from those snapshots in numpy
    unembedded.py      candidates without a vector yet, scored in the request
    candidates.py      which cards a read considers
    query.py           the query's vector, words, named entities, unanswerable attributes
    lexical.py         the lexical share of the query's words (SQL and numpy)
    aging.py           aging facts; contradictions.py: contradictions; questions.py: whether to ask
    answer.py          the answer's types; assemble.py: a route's findings into one answer

The reader's view of it (a function of the principal) is cards/selectors/recall.py."""
