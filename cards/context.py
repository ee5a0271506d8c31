"""The block an agent puts into its system prompt (DESIGN §6): the time, the
person's boundaries, the best memories in the caller's words, facts to re-check,
contradictions and unconfirmed hypotheses — cut to a token budget, most important
first — and at most one question for the person (the seed: "do not stack multiple
probes in one response"), with how many more wait. Boundaries are never cut: every
agent honours them whatever its budget."""

from __future__ import annotations

import datetime as dt
import threading
from dataclasses import dataclass
from typing import Any, Callable

from .models import CardKind, Tag

# What survives a tight budget first: the clock, then what could make the
# agent say something false (a contradiction) and the one question, then how to
# talk to the person (a few lines that shape every reply), then the memories by
# score, then what to re-check, then guesses. Boundaries come before all of it.
SECTION_ORDER = ("current_time", "boundaries", "memory", "aging_facts", "contradiction_alert", "profile",
                 "hypotheses", "question")
PRIORITY = ("boundaries", "contradiction_alert", "question", "profile", "memory", "aging_facts", "hypotheses")
# Taken whatever the budget: what the person asked every agent never to do.
ALWAYS = frozenset({"boundaries"})
# The order questions are put in: what could be false now, then what may have
# gone stale, then guesses to confirm.
QUESTION_KINDS = ("contradiction", "aging", "probe")
KIND_HEADINGS = {CardKind.STATE: "States", CardKind.EVENT: "Events", CardKind.KNOWLEDGE: "Knowledge"}

_tokenizer: Any = None
_lock = threading.Lock()


def tokenizer():
    """The embedding model's own tokenizer (from the offline model package), without loading the model."""
    global _tokenizer
    if _tokenizer is None:
        with _lock:
            if _tokenizer is None:
                from .embeddings import model_tokenizer

                loaded = model_tokenizer()
                loaded.no_truncation()  # counting, not embedding: a long prompt is not cut at 512
                loaded.no_padding()
                _tokenizer = loaded
    return _tokenizer


def count_tokens(text: str) -> int:
    return len(tokenizer().encode(text, add_special_tokens=False).ids)


@dataclass
class Line:
    section: str
    text: str
    card_ids: tuple[int, ...]
    kind: str = ""


def _day(value: str | None) -> str:
    return value[:10] if value else "undated"


def _who(card: dict, me_id: int | None) -> str:
    return "you" if card["subject_id"] == me_id else card["subject"]


def _fact(card: dict, me_id: int | None) -> str:
    value = card["object"] or card["value"]
    label = card["label"].replace("_", " ")
    head = f"{_who(card, me_id)} · {label}: {value}" if value else f"{_who(card, me_id)} · {label}"
    text = card["text"].strip()
    return f"{head} — {text}" if text and text != value else head


def _when(card: dict) -> str:
    if card["kind"] == CardKind.EVENT:
        return _day(card["occurred_at"])
    return f"since {_day(card['effective_at'])}"


@dataclass
class Question:
    kind: str  # one of QUESTION_KINDS
    card_id: int  # what the agent acknowledges with POST /api/v1/cards/{id}/asked/ once it asked
    text: str


def question_next(*, contradictions: list[dict], aging: list[dict],
                  probe: Callable[[], Question | None]) -> Question | None:
    """The one question for this reply: the first contradiction that may be put
    to the person, else the first aging fact, else the probe (see QUESTION_KINDS;
    `probe` is only called when nothing comes before it). Which may be put at
    all is recall's to say: their `question` is null otherwise."""
    for group in contradictions:
        if group["question"]:
            return Question("contradiction", group["question_card"], group["question"])
    for card in aging:
        if card["question"]:
            return Question("aging", card["id"], card["question"])
    return probe()


def _question_line(question: Question, more: int) -> Line:
    waiting = (f"{more} more question{'s' if more != 1 else ''} wait{'s' if more == 1 else ''} for later replies; "
               "ask none of them now." if more else "No other question waits.")
    return Line("question", f"Ask once, in this reply: “{question.text}”\n"
                            f"Once asked, call POST /api/v1/cards/{question.card_id}/asked/ so it is not asked again.\n"
                            f"{waiting}", (question.card_id,))


def _boundary(card: dict) -> str:
    said = " ".join((card["text"] or card["value"] or card["object"] or "").split())
    return f"- {said}"


def context_lines(*, results: list[dict], aging: list[dict], contradictions: list[dict],
                  me_id: int | None, question: Question | None = None, more: int = 0,
                  boundaries: list[dict] = (), profile: list[dict] = ()) -> list[Line]:
    """Every candidate line, in priority order (see PRIORITY). `boundaries` (the
    person's own, cards tagged boundary) come first and are never cut. The contradictions
    and aging facts are what the agent should know (never state a contested or
    stale value as sure); `question` is the only one to ask, `more` how many wait.
    `profile`: the person's style and constraints (cards.selectors.profile items),
    each already phrased as guidance, a guess as a guess."""
    lines: list[Line] = [Line("boundaries", _boundary(card), (card["id"],)) for card in boundaries]
    # Said once: a boundary or a profile item is not repeated among the memories or the guesses.
    said = {card["id"] for card in boundaries} | {item["card"]["id"] for item in profile}
    results = [item for item in results if item["card"]["id"] not in said]
    for group in contradictions:
        sides = " vs ".join(f"“{c['object'] or c['value']}” (scope {c['scope']}, {_when(c)})" for c in group["cards"])
        subject = "you" if group["subject_id"] == me_id else group["subject"]
        lines.append(Line("contradiction_alert",
                          f"- {subject} · {group['label'].replace('_', ' ')}: {sides}. State none as current "
                          "until the person settles it.", tuple(c["id"] for c in group["cards"])))
    if question is not None:
        lines.append(_question_line(question, more))
    lines += [Line("profile", f"- {item['guidance']}", (item["card"]["id"],)) for item in profile]
    hypotheses = []
    for item in results:
        card = item["card"]
        if card["tag"] == Tag.HYPOTHESIS:
            hypotheses.append(Line("hypotheses", f"- UNCONFIRMED guess: {_fact(card, me_id)} "
                                                 f"(score {item['score']:.2f}; never state it as fact)", (card["id"],)))
            continue
        lines.append(Line("memory", f"- [recorded, {_when(card)}] {_fact(card, me_id)}", (card["id"],),
                          kind=card["kind"]))
    for card in aging:
        lines.append(Line("aging_facts", f"- {_fact(card, me_id)} (unconfirmed for {int(card['unverified_days'])} "
                                          "days; it may have changed)", (card["id"],)))
    return lines + hypotheses


def render(now: dt.datetime, lines: list[Line]) -> str:
    sections = {"current_time": [now.isoformat(timespec="seconds")]}
    for name in SECTION_ORDER[1:]:
        chosen = [line for line in lines if line.section == name]
        if not chosen:
            continue  # empty sections are left out
        if name == "memory":
            body = []
            for kind, heading in KIND_HEADINGS.items():
                of_kind = [line.text for line in chosen if line.kind == kind]
                if of_kind:
                    body += [f"{heading}:", *of_kind]
            sections[name] = body
        else:
            sections[name] = [line.text for line in chosen]
    parts = []
    for name in SECTION_ORDER:
        if name in sections:
            inner = sections[name]
            parts.append(f"<{name}>{inner[0]}</{name}>" if name == "current_time"
                         else f"<{name}>\n" + "\n".join(inner) + f"\n</{name}>")
    return "\n".join(parts)


def context_block(*, now: dt.datetime, lines: list[Line], budget: int) -> tuple[str, list[int], int, list[Line]]:
    """Lines are taken in order while the whole rendered block stays within
    `budget` tokens; a line that does not fit is skipped, and a shorter one
    after it may still fit. The time is always there.

    Each line is tokenized once: the tokenizer splits on whitespace first, so a
    block's count is the sum of its lines' and of the tags and headings around
    them (a section's wrapping is charged when its first line is taken). The
    final count is exact; should it ever exceed the budget, lines go from the end.
    Boundaries (ALWAYS) are taken first and never dropped: with more of them than the
    budget holds, the block is over budget (its `tokens` say so) rather than without them.
    Returns the prompt, the cards it holds, its tokens and the lines taken."""
    taken: list[Line] = []
    tokens = count_tokens(render(now, taken))
    opened: set[str] = set()
    for line in lines:
        cost = count_tokens(line.text)
        heading = line.kind if line.section == "memory" else ""
        if (line.section, heading) not in opened:
            cost += _wrapping(line.section, heading, first_of_section=line.section not in {s for s, _ in opened})
        if tokens + cost <= budget or line.section in ALWAYS:
            taken.append(line)
            tokens += cost
            opened.add((line.section, heading))
    prompt = render(now, taken)
    tokens = count_tokens(prompt)
    while tokens > budget and taken and taken[-1].section not in ALWAYS:
        taken.pop()
        prompt = render(now, taken)
        tokens = count_tokens(prompt)
    card_ids = list(dict.fromkeys(pk for line in taken for pk in line.card_ids))
    return prompt, card_ids, tokens, taken


def _wrapping(section: str, heading: str, *, first_of_section: bool) -> int:
    cost = count_tokens(f"<{section}>\n</{section}>") if first_of_section else 0
    if heading:
        cost += count_tokens(f"{KIND_HEADINGS[heading]}:")
    return cost
