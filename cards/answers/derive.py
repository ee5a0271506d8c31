"""Derivation at question time (DESIGN §7): approved rules over the recorded
facts the caller may read, by backward chaining, bounded in depth. Nothing
derived is ever written back as a card — it is recomputed on every question.

Facts are triples of terms. An ordinary entity is its own term ("e:<id>", the
id of the entity it was merged into, if any); a
kind, anything in the global scope and a plain value are terms by normalised
name ("n:<name>"), so "my car is_a car" in a household meets "car used_for
driving" admitted into global common sense. The binder names an entity's term
as it binds a name (cards/selectors/entities.py `entity_term`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from django.db import connection
from django.utils import timezone

from ..models import Cardinality, CardKind, Rule, RuleStatus, Tag
from ..reads import in_read_sql, read_params
from ..rule_shape import rule_check
from ..selectors.entities import entity_term
from ..text import normalize
from ..valid_time import valid_sql

MAX_DEPTH = 8
# Goals one question may expand: a bound on the work, whatever the rules and kinds.
MAX_STEPS = 2_000


def name_term(name: str) -> str:
    return f"n:{normalize(name)}"


@dataclass(frozen=True)
class Fact:
    card_id: int
    subject: str
    label: str
    object: str
    shown: str  # the value, or the object's name


@dataclass
class Proof:
    """Why a triple holds: a recorded card, or an approved rule over premises."""

    subject: str
    label: str
    object: str
    shown: str
    fact: Fact | None = None
    rule: Rule | None = None
    premises: list[Proof] = field(default_factory=list)

    @property
    def size(self) -> int:
        return 1 if self.fact else 1 + sum(p.size for p in self.premises)

    def card_ids(self) -> list[int]:
        if self.fact:
            return [self.fact.card_id]
        return [pk for p in self.premises for pk in p.card_ids()]


# `labels` picks the label(s) (one, or many at once for FactBase.preload); `subject` the subject.
_FACTS = f"""
    SELECT c.id, c.value, c.value_norm, s.id, s.kind, ss.kind, s.name_norm, o.id, o.kind, os.kind, o.name_norm, o.name,
           l.key, c.cardinality = '{Cardinality.SINGLE}', s.user_id, c.source_actor_id
      FROM cards_card c
      JOIN cards_label l ON l.id = c.label_id
      JOIN cards_entity s0 ON s0.id = c.subject_id
      JOIN cards_entity s ON s.id = COALESCE(s0.merged_into_id, s0.id) JOIN scopes_scope ss ON ss.id = s.scope_id
      LEFT JOIN cards_entity o0 ON o0.id = c.object_id
      LEFT JOIN cards_entity o ON o.id = COALESCE(o0.merged_into_id, o0.id)
      LEFT JOIN scopes_scope os ON os.id = o.scope_id
     WHERE {{covered}} AND {{labels}} AND c.kind <> '{CardKind.EVENT}'
       AND c.tag <> '{Tag.HYPOTHESIS}' AND c.disputes_id IS NULL AND {{valid}} AND {{subject}}
     ORDER BY c.effective_at, c.id"""


class FactBase:
    """The recorded facts a question may use: current (or valid at `as_of`)
    states and knowledge in the visible scopes — never guesses, nor others'
    statements disputing a member's own. Read lazily, per
    (label, subject), and memoised for the question."""

    def __init__(self, scope_ids: list[int], as_of: dt.datetime | None = None) -> None:
        # Current means valid now: a planned value is not yet a fact (valid_time.py).
        self.read, self.as_of, self.at = read_params(scope_ids), as_of, as_of or timezone.now()
        self._memo: dict[tuple[str, str], list[Fact]] = {}
        # Others' single values about a member that disagree with the member's own (_own_word_first), by
        # (label, subject term): they stand beside the member's word, not in its place.
        self.overruled: dict[tuple[str, str], list[int]] = {}
        # Labels read whole by `preload`: {label: {subject term: facts}}.
        self._whole: dict[str, dict[str, list[Fact]]] = {}

    def facts(self, label: str, subject: str) -> list[Fact]:
        if label in self._whole:
            return self._whole[label].get(subject, [])
        key = (label, subject)
        if key not in self._memo:
            self._memo[key] = self._read(label, subject)
        return self._memo[key]

    def preload(self, labels) -> None:
        """Read every fact of `labels` in the visible scopes in one query, so that
        asking many subjects (a rule's preview, cards/answers/rule_preview.py) costs one
        read, not one per subject and label. `facts` then answers exactly as its
        lazy read would: by the entity (and what was merged into it) for an
        "e:" term, by name for an "n:" term."""
        labels = sorted(set(labels) - set(self._whole))
        if not labels:
            return
        whole: dict[str, dict[str, list[Fact]]] = {label: {} for label in labels}
        for fact, subject_name in self._rows({"labels": labels}, "l.key = ANY(%(labels)s)", "TRUE"):
            by_subject = whole[fact.label]
            by_subject.setdefault(fact.subject, []).append(fact)
            if fact.subject != subject_name:  # an ordinary entity answers to its name as well
                by_subject.setdefault(subject_name, []).append(fact)
        self._whole.update(whole)

    def subjects(self) -> list[str]:
        """The subject terms of the preloaded facts, in the order read: who and
        what the recorded facts of those labels are about."""
        terms: dict[str, None] = {}
        for by_subject in self._whole.values():
            for facts in by_subject.values():
                for fact in facts:
                    terms[fact.subject] = None
        return list(terms)

    def objects(self) -> list[str]:
        """The object terms of the preloaded facts (values, kinds, entities)."""
        terms: dict[str, None] = {}
        for by_subject in self._whole.values():
            for facts in by_subject.values():
                for fact in facts:
                    terms[fact.object] = None
        return list(terms)

    def _read(self, label: str, subject: str) -> list[Fact]:
        params = {"label": label}
        if subject.startswith("e:"):
            params["subject_id"] = int(subject[2:])
            # The entity, and any merged into it (their cards stay as written).
            where = ("c.subject_id IN (SELECT id FROM cards_entity WHERE id = %(subject_id)s"
                     " OR merged_into_id = %(subject_id)s)")
        else:
            # A kind by its name: whatever entity of that name a visible scope holds
            # (a team may write "kettle used_for …" before anything is_a kettle).
            params["name"] = subject[2:]
            where = "s.name_norm = %(name)s"
        return [fact for fact, _ in self._rows(params, "l.key = %(label)s", where)]

    def _rows(self, params: dict, labels: str, subject: str) -> list[tuple[Fact, str]]:
        """Facts, each with the name term of its subject (how an "n:" lookup finds it)."""
        with connection.cursor() as cursor:
            cursor.execute(_FACTS.format(covered=in_read_sql("c", self.read), labels=labels, valid=valid_sql("c"),
                                         subject=subject), {**params, **self.read, "at": self.at})
            rows = cursor.fetchall()
        facts, said = [], {}
        for (card_id, value, value_norm, s_id, s_kind, s_scope_kind, s_norm,
             o_id, o_kind, o_scope_kind, o_norm, o_name, label, single, member_id, author_id) in rows:
            if o_id is not None:
                obj, shown = entity_term(o_id, o_kind, o_scope_kind, o_norm), o_name
            else:
                obj, shown = name_term(value), value
            fact = Fact(card_id, entity_term(s_id, s_kind, s_scope_kind, s_norm), label, obj, shown)
            facts.append((fact, f"n:{s_norm}"))
            said[card_id] = (single, member_id is not None and author_id == member_id)
        return self._own_word_first(facts, said)

    def _own_word_first(self, facts: list[tuple[Fact, str]], said: dict[int, tuple[bool, bool]]):
        """DESIGN §4 rule 7, "what a person says about themselves wins": of a single value about a member, the
        member's own statement holds, and another's that disagrees stands beside it (`overruled`). A write in
        one shared scope marks such a card (`disputes`); across the scopes of one read — a family's card beside
        what the member shares with it, or keeps in their own scope — it is told here."""
        own = {(f.subject, f.label): set() for f, _ in facts if said[f.card_id] == (True, True)}
        for fact, _ in facts:
            if said[fact.card_id] == (True, True):
                own[(fact.subject, fact.label)].add(fact.object)
        kept = []
        for fact, term in facts:
            objects = own.get((fact.subject, fact.label))
            if objects is not None and said[fact.card_id][0] and fact.object not in objects:
                self.overruled.setdefault((fact.label, fact.subject), []).append(fact.card_id)
                continue
            kept.append((fact, term))
        return kept


def approved_rules() -> list[Rule]:
    """Approved rules that can run; one changed by hand into a bad shape is skipped, never a 500."""
    return [rule for rule in Rule.objects.filter(status=RuleStatus.APPROVED).order_by("name")
            if not rule_check(rule.premises, rule.conclusion)]


class Deriver:
    """Backward chaining: `prove(subject, label)` gives every object term that
    holds with its best proof — a recorded card beats a derivation, and a
    shorter derivation beats a longer one."""

    def __init__(self, base: FactBase, rules: list[Rule], *, budget: int = MAX_STEPS) -> None:
        self.base = base
        self.by_conclusion: dict[str, list[Rule]] = {}
        for rule in rules:
            self.by_conclusion.setdefault(rule.conclusion[1], []).append(rule)
        self._in_progress: set[tuple[str, str]] = set()
        # Proved goals, memoised for the question: without this a lattice of kinds
        # re-derives every is_a closure on every path (exponential in depth).
        self._memo: dict[tuple[str, str], dict[str, Proof]] = {}
        # Goals cut short (a cycle back to a goal in progress, or the depth bound)
        # while proving each goal on the stack: a result built on a cut other than
        # its own goal may be incomplete, and is not memoised.
        self._cuts: list[set] = []
        self.budget = budget

    def recorded(self, subject: str, label: str) -> dict[str, Proof]:
        found: dict[str, Proof] = {}
        for fact in self.base.facts(label, subject):
            found.setdefault(fact.object, Proof(subject, label, fact.object, fact.shown, fact=fact))
        return found

    def _cut(self, goal) -> None:
        if self._cuts:
            self._cuts[-1].add(goal)

    def prove(self, subject: str, label: str, depth: int = 0) -> dict[str, Proof]:
        goal = (subject, label)
        if goal in self._memo:
            return self._memo[goal]
        found = self.recorded(subject, label)
        # A goal already being proved only contributes what is recorded: this
        # keeps `is_a` transitivity finite and still chains through every kind.
        if goal in self._in_progress:
            self._cut(goal)
            return found
        self.budget -= 1
        if depth >= MAX_DEPTH or self.budget < 0:
            self._cut(None)  # bounded: what lies deeper is not derived
            return found
        self._in_progress.add(goal)
        self._cuts.append(set())
        try:
            for rule in self.by_conclusion.get(label, []):
                for proof in self._apply(rule, subject, depth):
                    best = found.get(proof.object)
                    if best is None or (best.fact is None and proof.size < best.size):
                        found[proof.object] = proof
        finally:
            self._in_progress.discard(goal)
            cuts = self._cuts.pop() - {goal}
        if cuts:
            if self._cuts:
                self._cuts[-1].update(cuts)
        else:
            self._memo[goal] = found
        return found

    def prove_by(self, rule: Rule, subject: str) -> list[Proof]:
        """Every proof `rule` itself gives for `subject` and its conclusion's label,
        whether or not `prove` would keep it as the best: what that one rule adds
        (a rule's preview). The goal is expanded as `prove` expands it — marked in progress,
        so a rule that recurses on its own label meets only what is recorded there."""
        goal = (subject, rule.conclusion[1])
        if goal in self._in_progress:
            return []
        self.budget -= 1
        if self.budget < 0:
            return []
        self._in_progress.add(goal)
        self._cuts.append(set())
        try:
            return self._apply(rule, subject, 0)
        finally:
            self._in_progress.discard(goal)
            self._cuts.pop()

    def _apply(self, rule: Rule, subject: str, depth: int) -> list[Proof]:
        conclusion_subject, label, conclusion_object = rule.conclusion
        bindings: dict[str, str] = {}
        if conclusion_subject.startswith("?"):
            bindings[conclusion_subject] = subject
        elif name_term(conclusion_subject) != subject:
            return []
        partial: list[tuple[dict[str, str], list[Proof], dict[str, str]]] = [(bindings, [], {})]
        for premise_subject, premise_label, premise_object in rule.premises:
            extended = []
            for bound, proofs, shown in partial:
                term = bound.get(premise_subject) if premise_subject.startswith("?") else name_term(premise_subject)
                if term is None:
                    continue  # a premise whose subject is not bound yet cannot be looked up by subject
                for obj, proof in sorted(self.prove(term, premise_label, depth + 1).items()):
                    if premise_object.startswith("?"):
                        if premise_object in bound and bound[premise_object] != obj:
                            continue
                        extended.append(({**bound, premise_object: obj}, [*proofs, proof],
                                         {**shown, premise_object: proof.shown}))
                    elif name_term(premise_object) == obj:
                        extended.append((bound, [*proofs, proof], shown))
            partial = extended
        proofs = []
        for bound, premises, shown in partial:
            if conclusion_object.startswith("?"):
                obj, text = bound.get(conclusion_object), shown.get(conclusion_object)
            else:
                obj, text = name_term(conclusion_object), conclusion_object
            if obj is not None:
                proofs.append(Proof(subject, label, obj, text or obj[2:], rule=rule, premises=premises))
        return proofs
