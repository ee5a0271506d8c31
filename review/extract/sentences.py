"""A message's sentences as quotes: every candidate keeps its whole sentence (found by the
never-store screen's own splitter, cards/screen/never_store.sentences) as its quote."""

from __future__ import annotations

import re
from functools import lru_cache

from cards.screen import content_finding
from cards.screen.never_store import clauses, policy_screen, sentences

# A Chinese sentence ends at its own full stop, question or exclamation mark, which pysbd's English
# rules do not see: the sentence is cut after each.
_ZH_END = re.compile(r"(?<=[。！？])")
# A quote is a sentence people say, not a pasted page without full stops.
MAX_QUOTE = 600


@lru_cache(maxsize=64)
def sentence_spans(text: str) -> tuple[tuple[int, int], ...]:
    """(start, end) of each sentence of `text`, in order, without the blanks between them. Kept for
    the last few messages: ingest asks once per proposal, and a message may hold several."""
    spans = []
    for sentence_start, sentence_end in sentences(text):
        start = sentence_start
        for part in _ZH_END.split(text[sentence_start:sentence_end]):
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
    if len(whole) > MAX_QUOTE or any(policy_screen(clause) for clause in clauses(whole)):
        return quote
    if content_finding({"source.quote": whole}) is not None and content_finding({"source.quote": quote}) is None:
        return quote
    return whole
