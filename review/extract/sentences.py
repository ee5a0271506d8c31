"""A message's sentences and clauses, each an exact substring of it, for every extractor: the
pattern rules read its clauses, and every candidate keeps its whole sentence as its quote."""

from __future__ import annotations

import re
from functools import lru_cache

from cards.screen import content_finding
from cards.screen.never_store import clauses, policy_screen

# Sentences first, abbreviation-aware ("Dr. Okafor", "St. Brigid's", "e.g.", "a.m.", "1.5"): the rule-based
# splitter pysbd, loaded once; Chinese sentence ends (。！？) are the clause splitter's.
_SEGMENTER = None
# A full stop inside one of its sentences is not a sentence end: hidden from the clause splitter by a
# character of the same length, so each clause is still found at its place in the message.
_HIDDEN_STOP = "\u2024"
# A Chinese sentence ends at its own full stop, question or exclamation mark, which pysbd's English
# rules do not see: the sentence is cut after each.
_ZH_END = re.compile(r"(?<=[。！？])")
# A quote is a sentence people say, not a pasted page without full stops.
MAX_QUOTE = 600


def _segmenter():
    global _SEGMENTER
    if _SEGMENTER is None:
        import pysbd

        _SEGMENTER = pysbd.Segmenter(language="en", clean=False, char_span=True)
    return _SEGMENTER


def message_clauses(text: str) -> list[str]:
    """The message's clauses, each an exact substring of `text`: pysbd's sentences, each cut into
    clauses by the never-store policy's own splitter (so the policy and the rules see the same clauses)."""
    found = []
    for sentence in _segmenter().segment(text):
        said = text[sentence.start:sentence.end]
        hidden = re.sub(r"\.(?=\s+\S)", _HIDDEN_STOP, said)
        at = 0
        for clause in clauses(hidden):
            at = hidden.index(clause, at)
            found.append(said[at:at + len(clause)])
            at += len(clause)
    return found


@lru_cache(maxsize=64)
def sentence_spans(text: str) -> tuple[tuple[int, int], ...]:
    """(start, end) of each sentence of `text`, in order, without the blanks between them. Kept for
    the last few messages: ingest asks once per proposal, and a message may hold several."""
    spans = []
    for sentence in _segmenter().segment(text):
        start = sentence.start
        for part in _ZH_END.split(text[sentence.start:sentence.end]):
            said = part.strip()
            if said:
                at = text.index(said, start)
                spans.append((at, at + len(said)))
                start = at + len(said)
    return tuple(spans)


def quote_whole(text: str, quote: str) -> str:
    """The whole sentence (or sentences) of `text` that `quote` stands in, as the candidate's quote.
    Never wider than what may be kept: when the rest of the sentence holds what the screen finds and
    the quote does not — never-stored content ("…, and I'm so tired today") or a sensitive attribute
    ("…because my clinic is there") — only `quote` itself; `quote` too when it is not in `text`, or
    when its "sentence" is a run-on past MAX_QUOTE characters."""
    at = text.find(quote.strip()) if quote.strip() else -1
    if at < 0:
        return quote
    end = at + len(quote.strip())
    spans = [(s, e) for s, e in sentence_spans(text) if s < end and e > at]
    if not spans:
        return quote
    whole = text[min(at, spans[0][0]):max(end, spans[-1][1])]
    if len(whole) > MAX_QUOTE or any(policy_screen(clause) for clause in message_clauses(whole)):
        return quote
    if content_finding({"source.quote": whole}) is not None and content_finding({"source.quote": quote}) is None:
        return quote
    return whole
