"""Answers that say how they know (DESIGN §7): recorded, derived, guessed or no
evidence, with no model call — the same question gives the same answer.

Entity binding comes first: a subject binds only by exact name or registered
alias in the visible scopes; look-alikes are offered, never bound, and two
different entities answering to one name make the question ambiguous."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from django.db import connection

from .derive import Deriver, FactBase, Proof, approved_rules
from ..embeddings.spaces import IN_SPACE_SQL, current_space, space_values
from ..models import Cardinality, CardKind, EntityKind, Label, Tag
from ..reads import in_read_sql, read_params
from ..selectors.entities import Binding
from ..text import normalize
from ..valid_time import held_sql, valid_sql

# A neighbour's value is offered as a guess only when the two subjects' cards are alike: the cosine of their
# mean card vectors, of the current space only, at least its `guess_threshold` (cards/embeddings/spaces.py),
# and only when each is known by at least this many cards: one shared fact is not a likeness.
GUESS_MIN_CARDS = 2
GUESS_LIMIT = 5


@dataclass
class Guess:
    value: str
    score: float
    why: str
    card_id: int


@dataclass
class Planned:
    """A value from a future date: not yet true, and the current one holds until then."""

    value: str
    starts: dt.datetime
    card_id: int


@dataclass
class Answer:
    tier: str  # recorded | derived | guessed | no_evidence
    binding: Binding
    label: Label
    values: list[str] = field(default_factory=list)
    evidence: list[int] = field(default_factory=list)  # recorded card ids
    derived: list[Proof] = field(default_factory=list)
    contradictions: list[Proof] = field(default_factory=list)  # derived values a recorded one contradicts
    guesses: list[Guess] = field(default_factory=list)
    # A single-value label with two recorded values (personal "Kyoto", family "Osaka"), or someone
    # else's statement disputing a member's own: ask which holds.
    conflicting: bool = False
    planned: list[Planned] = field(default_factory=list)
    disputes: list[int] = field(default_factory=list)  # others' statements beside a member's own card
    # An ambiguous name: the answer about each entity it may mean, in the binding's order (each names
    # its entity by its binding). The fields above are theirs together, the tier the surest of theirs.
    parts: list[Answer] = field(default_factory=list)


# The surest first: an ambiguous name's answer is as sure as its surest candidate's.
TIERS = ("recorded", "derived", "guessed", "no_evidence")


def answer(*, binding: Binding, label: Label, scope_ids: list[int], as_of: dt.datetime | None = None,
           likeness: bool = True, rules: list | None = None) -> Answer:
    """`likeness`: with no record nor derivation, also guess from subjects whose cards
    look like this one's (`ask` asks without: a plain answer offers only hypotheses).
    `rules`: the approved rules, when the caller answers several labels at once.
    A name two entities answer to (a member and a thing called like them, two
    members) is answered about each of them, never `no_evidence` for lack of one's."""
    if binding.status == "ambiguous" and binding.candidates:
        rules = approved_rules() if rules is None else rules
        return _over_candidates(binding, label, [
            answer(binding=candidate, label=label, scope_ids=scope_ids, as_of=as_of, likeness=likeness, rules=rules)
            for candidate in binding.candidates])
    if binding.status != "bound":
        return Answer("no_evidence", binding, label)
    facts = FactBase(scope_ids, as_of)
    found = _answer(binding, label, scope_ids, Deriver(facts, approved_rules() if rules is None else rules),
                    facts.at, likeness=likeness)
    found.planned, found.disputes = _beside(binding, label, scope_ids, facts.at)
    # Another's word about a member beside the member's own, read across scopes (derive.FactBase).
    found.disputes += [pk for pk in facts.overruled.get((label.key, binding.term), []) if pk not in found.disputes]
    found.conflicting = found.conflicting or bool(found.disputes)
    return found


def _over_candidates(binding: Binding, label: Label, parts: list[Answer]) -> Answer:
    together = Answer(min((part.tier for part in parts), key=TIERS.index), binding, label, parts=parts)
    for part in parts:
        together.values += part.values
        together.evidence += part.evidence
        together.derived += part.derived
        together.contradictions += part.contradictions
        together.guesses += part.guesses
        together.planned += part.planned
        together.disputes += part.disputes
        together.conflicting = together.conflicting or part.conflicting
    return together


def _answer(binding: Binding, label: Label, scope_ids: list[int], deriver: Deriver, at: dt.datetime, *,
            likeness: bool = True) -> Answer:
    recorded = deriver.recorded(binding.term, label.key)
    proofs = deriver.prove(binding.term, label.key)
    derived = [p for obj, p in sorted(proofs.items()) if obj not in recorded]
    if recorded:
        found = Answer("recorded", binding, label, values=[p.shown for p in recorded.values()],
                       evidence=[p.fact.card_id for p in recorded.values()])
        if label.cardinality == Cardinality.SINGLE:
            # A single value holds once: a derivation disagreeing with the record is shown, not dropped.
            found.contradictions = derived
            found.conflicting = len(recorded) > 1
        else:
            # Several values may hold: the derived ones stand beside the recorded, each with its chain.
            found.values += [p.shown for p in derived]
            found.derived = derived
        # A guess never replaces the record: it is listed apart, and says when it disagrees.
        found.guesses = _hypotheses(binding, label, scope_ids, at, recorded={normalize(v) for v in found.values})
        return found
    if derived:
        return Answer("derived", binding, label, values=[p.shown for p in derived], derived=derived,
                      guesses=_hypotheses(binding, label, scope_ids, at, recorded={normalize(p.shown) for p in derived}))
    guesses = _guesses(binding, label, scope_ids, at) if likeness else _hypotheses(binding, label, scope_ids, at)
    if guesses:
        return Answer("guessed", binding, label, guesses=guesses)
    return Answer("no_evidence", binding, label)


def _beside(binding: Binding, label: Label, scope_ids: list[int], at: dt.datetime) -> tuple[list[Planned], list[int]]:
    """What stands beside the record: values planned from a later date (that are
    not replaced before they start), and others' statements disputing a member's own."""
    read = read_params(scope_ids)
    with connection.cursor() as cursor:
        cursor.execute(
            f"""SELECT c.id, CASE WHEN c.object_id IS NULL THEN c.value ELSE o.name END, c.effective_at,
                       c.disputes_id IS NOT NULL
                  FROM cards_card c LEFT JOIN cards_entity o ON o.id = c.object_id
                 WHERE {in_read_sql("c", read)} AND c.subject_id = ANY(%(ids)s) AND c.label_id = %(label)s
                   AND c.kind <> '{CardKind.EVENT}' AND c.tag <> '{Tag.HYPOTHESIS}'
                   AND ((c.disputes_id IS NULL AND c.effective_at > %(at)s AND {held_sql("c")})
                        OR (c.disputes_id IS NOT NULL AND {valid_sql("c")}))
                 ORDER BY c.effective_at, c.id""",
            {**read, "ids": binding.entity_ids, "label": label.pk, "at": at})
        rows = cursor.fetchall()
    planned = [Planned(value, starts, pk) for pk, value, starts, disputing in rows if not disputing]
    return planned, [pk for pk, _, _, disputing in rows if disputing]


def _hypotheses(binding: Binding, label: Label, scope_ids: list[int], at: dt.datetime, *,
                recorded: set[str] | None = None) -> list[Guess]:
    """The hypotheses about the subject, as guesses; beside a record, each says whether it disagrees."""
    read = read_params(scope_ids)
    with connection.cursor() as cursor:
        cursor.execute(
            f"""SELECT c.id, CASE WHEN c.object_id IS NULL THEN c.value ELSE o.name END, c.confidence
                  FROM cards_card c LEFT JOIN cards_entity o ON o.id = c.object_id
                 WHERE {in_read_sql("c", read)} AND c.subject_id = ANY(%(ids)s) AND c.label_id = %(label)s
                   AND c.tag = '{Tag.HYPOTHESIS}' AND {valid_sql("c")}
                 ORDER BY c.confidence DESC NULLS LAST, c.id""",
            {**read, "ids": binding.entity_ids, "label": label.pk, "at": at})
        rows = cursor.fetchall()
    guesses = []
    for card_id, value, confidence in rows:
        why = f"hypothesis (unconfirmed), card #{card_id}"
        if recorded is not None and normalize(value) not in recorded:
            why += "; it contradicts the record"
        guesses.append(Guess(value, round(confidence if confidence is not None else 0.5, 3), why, card_id))
    return guesses


def _guesses(binding: Binding, label: Label, scope_ids: list[int], at: dt.datetime) -> list[Guess]:
    """Hypotheses about the subject, then values of subjects whose cards look
    like the subject's. Kind membership (`is_a`) is left out of the likeness:
    inheriting through a kind is the rules' job, and being filed under the same
    kind is not evidence of sharing an unwritten property. For the same reason
    kinds and common sense are never neighbours: their properties reach a thing
    only through a rule."""
    ids = binding.entity_ids
    guesses = _hypotheses(binding, label, scope_ids, at)
    space = current_space()
    read = read_params(scope_ids)
    with connection.cursor() as cursor:
        cursor.execute(
            f"""WITH profile AS (
                    SELECT avg(c.embedding) AS v, count(*) AS n FROM cards_card c
                      JOIN cards_label l ON l.id = c.label_id
                     WHERE {in_read_sql("c", read)} AND c.subject_id = ANY(%(ids)s) AND l.key <> 'is_a'
                       AND c.superseded_at IS NULL AND {IN_SPACE_SQL} AND c.tag <> '{Tag.HYPOTHESIS}'),
                others AS (
                    SELECT c.subject_id, avg(c.embedding) AS v, count(*) AS n FROM cards_card c
                      JOIN cards_label l ON l.id = c.label_id
                      JOIN cards_entity se ON se.id = c.subject_id JOIN scopes_scope ss ON ss.id = se.scope_id
                     WHERE {in_read_sql("c", read)} AND NOT c.subject_id = ANY(%(ids)s) AND l.key <> 'is_a'
                       AND se.kind <> '{EntityKind.KIND}' AND ss.kind <> 'global'
                       AND c.superseded_at IS NULL AND {IN_SPACE_SQL} AND c.tag <> '{Tag.HYPOTHESIS}'
                       AND c.subject_id IN (SELECT h.subject_id FROM cards_card h WHERE h.label_id = %(label)s
                                             AND {in_read_sql("h", read)} AND h.superseded_at IS NULL)
                     GROUP BY c.subject_id)
                SELECT c.id, CASE WHEN c.object_id IS NULL THEN c.value ELSE o.name END,
                       (1 - (others.v <=> profile.v))::float8 AS score, s.name
                  FROM others CROSS JOIN profile
                  JOIN cards_card c ON c.subject_id = others.subject_id AND c.label_id = %(label)s
                  JOIN cards_entity s ON s.id = c.subject_id LEFT JOIN cards_entity o ON o.id = c.object_id
                 WHERE profile.v IS NOT NULL AND profile.n >= %(cards)s AND others.n >= %(cards)s
                   AND {in_read_sql("c", read)} AND c.superseded_at IS NULL
                   AND c.kind <> '{CardKind.EVENT}' AND c.tag <> '{Tag.HYPOTHESIS}'
                   AND 1 - (others.v <=> profile.v) >= %(threshold)s
                 ORDER BY score DESC, c.id LIMIT %(limit)s""",
            {**read, "ids": ids, "label": label.pk, "space": space,
             "threshold": space_values(space).guess_threshold,
             "cards": GUESS_MIN_CARDS, "limit": GUESS_LIMIT})
        guesses += [Guess(value, round(score, 3), f"model guess: {name} is alike (similarity {score:.2f}) and has it",
                          card_id) for card_id, value, score, name in cursor.fetchall()]
    return guesses
