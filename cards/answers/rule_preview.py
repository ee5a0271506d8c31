"""What a rule would derive, before anyone approves it (issue 20: rules as a
form; DESIGN §7). The rule runs as if approved, beside the approved ones, on
the facts a reader of a scope may see — with derive.py's own fact base and
backward chaining, so the preview says what answers will say once it is
approved. Nothing is written, and no model is called.

Also the words a rule reads in ("someone's car is X"), so the form, the
preview and the review queue say a pattern the same way."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from django.utils.translation import gettext, gettext_noop

from .derive import Deriver, FactBase, Proof, approved_rules, name_term
from ..words.label_names import label_name
from ..labels import label_lookup
from ..models import Cardinality, Rule
from ..rule_shape import rule_check
from ..services.rules import RuleInvalid, rule_cannot_run
from .answer_read import Shaper

PREVIEW_LIMIT = 20
# Subjects asked at most: a preview is read on a page, and a scope's facts may name thousands.
MAX_SUBJECTS = 500

# How a label reads between its subject {s} and its object or value {o}, in the page's language; any
# other label reads "{s}'s <label> is {o}" (one value) or "{s} has <label> {o}".
PHRASES = {
    "is_a": gettext_noop("{s} is a {o}"),
    "has": gettext_noop("{s} has {o}"),
    "used_for": gettext_noop("{s} is used for {o}"),
    "needs": gettext_noop("{s} needs {o}"),
    "made_of": gettext_noop("{s} is made of {o}"),
    "member_of": gettext_noop("{s} is a member of {o}"),
    "likes": gettext_noop("{s} likes {o}"),
    "dislikes": gettext_noop("{s} dislikes {o}"),
    "works_at": gettext_noop("{s} works at {o}"),
    "interest": gettext_noop("{s} is interested in {o}"),
    "language": gettext_noop("{s} speaks {o}"),
    "skill": gettext_noop("{s} is skilled at {o}"),
    "hobby": gettext_noop("{s} has the hobby {o}"),
    "friend": gettext_noop("{o} is a friend of {s}"),
    "child": gettext_noop("{o} is a child of {s}"),
    "parent": gettext_noop("{o} is a parent of {s}"),
    "sibling": gettext_noop("{o} is a sibling of {s}"),
    "advisor": gettext_noop("{o} advises {s}"),
    "pet": gettext_noop("{s} has a pet, {o}"),
}


def label_phrase(key: str) -> str:
    """The sentence pattern of a label, with `{s}` and `{o}` to fill."""
    if key in PHRASES:
        return gettext(PHRASES[key])
    label = label_lookup(key)
    if label is not None and label.cardinality == Cardinality.SINGLE:
        phrase = gettext("{s}'s {label} is {o}")
    else:
        phrase = gettext("{s} has {label} {o}")
    return phrase.replace("{label}", label_name(key))


def said(subject: str, label: str, obj: str) -> str:
    """A triple in words: said("Dana", "car", "Subaru") == "Dana's car is Subaru"."""
    return label_phrase(label).format(s=subject, o=obj)


@dataclass
class Derived:
    """One conclusion the rule reaches here, with why."""

    subject: str
    label: str
    value: str
    term: str  # the subject as derive.py knows it ("e:12", "n:subaru")
    object: str  # the conclusion's object term
    cards: list[int]  # the recorded cards it rests on, in the chain's order
    sentence: str  # "Dana's car is Subaru"
    because: list[str]  # each premise in words, in the rule's order
    chain: dict  # the derivation as the ask page shows it: the rule, then each premise card or derivation
    # A single-value label's recorded value(s) the conclusion disagrees with: answers show
    # it as a derivation contradicting the record, never in its place.
    disagrees: list[str] = field(default_factory=list)


@dataclass
class RulePreview:
    derived: list[Derived]  # at most the limit
    total: int  # every conclusion it reaches here
    already: int  # conclusions it reaches that the memory records already
    subjects_cut: bool = False  # more subjects than MAX_SUBJECTS: only the first were asked

    @property
    def more(self) -> int:
        return self.total - len(self.derived)


def rule_preview(*, rule: Rule, scope_ids: list[int], user, limit: int = PREVIEW_LIMIT,
                 base: FactBase | None = None) -> RulePreview:
    """What `rule` (a draft, or one not saved yet) would derive from the facts of
    `scope_ids` — a read's scopes (scopes.selectors.read_scope_ids), so only what
    the reader may see — once approved; cards shown in `user`'s own phrasing.

    Each subject the facts name is asked as a question would ask it
    (derive.Deriver, the approved rules and this one); what this rule gives that
    is not already recorded is listed, at most `limit`, with its chain. `base`:
    a FactBase of the same scopes, shared between the previews of one page."""
    problems = rule_check(rule.premises, rule.conclusion)
    if problems:
        raise RuleInvalid(rule_cannot_run(problems), fields={"rule": problems})
    rules = [r for r in approved_rules() if rule.pk is None or r.pk != rule.pk]
    # Where approval puts it among the others (approved_rules orders by name).
    rules.insert(bisect.bisect_right([r.name for r in rules], rule.name), rule)
    base = base or FactBase(scope_ids)
    base.preload({p[1] for r in rules for p in r.premises} | {r.conclusion[1] for r in rules})
    subject, label, _ = rule.conclusion
    found: list[tuple[Proof, dict[str, Proof]]] = []
    already = 0
    universe = _subjects(rule, base)
    for term in universe[:MAX_SUBJECTS]:
        # One deriver per subject: each is one question, with a question's budget (derive.MAX_STEPS).
        deriver = Deriver(base, rules)
        best: dict[str, Proof] = {}
        for proof in deriver.prove_by(rule, term):
            if proof.object not in best or proof.size < best[proof.object].size:
                best[proof.object] = proof
        recorded = deriver.recorded(term, label)
        for obj, proof in sorted(best.items()):
            if obj in recorded:
                already += 1
            else:
                found.append((proof, recorded))
    shown = found[:limit]
    shaper = Shaper([proof for proof, _ in shown], [], user)
    single = (label_found := label_lookup(label)) is not None and label_found.cardinality == Cardinality.SINGLE
    derived = []
    for proof, recorded in shown:
        name = _term_name(proof.subject, proof, shaper)
        derived.append(Derived(
            subject=name, label=label, value=proof.shown, term=proof.subject, object=proof.object,
            cards=proof.card_ids(), sentence=said(name, label, proof.shown),
            because=[_premise_words(p, shaper) for p in proof.premises], chain=shaper.chain(proof),
            disagrees=[p.shown for p in recorded.values()] if single else []))
    return RulePreview(derived=derived, total=len(found), already=already,
                       subjects_cut=len(universe) > MAX_SUBJECTS)


def _subjects(rule: Rule, base: FactBase) -> list[str]:
    """Whom to ask: a named subject; else whom the facts are about — and, when the
    first premise starts elsewhere (["Dana", "has", "?x"] ⇒ ["?x", …]), what they
    name as well. A derivation rests on recorded facts of the preloaded labels,
    so nobody else can have one (but for a rule whose subject appears in no
    premise, which would hold of anything: it is asked of these)."""
    subject = rule.conclusion[0]
    if not subject.startswith("?"):
        return [name_term(subject)]
    terms = base.subjects()
    if rule.premises[0][0] != subject:
        terms = list(dict.fromkeys([*terms, *base.objects()]))
    return terms


def _term_name(term: str, proof: Proof, shaper: Shaper) -> str:
    """A term as the cards it comes from name it: "Subaru", not the "subaru" a
    name term keeps (an entity found by its name is named by its cards too)."""
    for leaf in _leaves(proof):
        subject = shaper.cards[leaf.card_id]["subject"]
        if leaf.subject == term or (term.startswith("n:") and name_term(subject) == term):
            return subject
        if leaf.object == term:
            return leaf.shown
    if term.startswith("n:") and proof.rule is not None:  # a name the rule itself writes
        written = [t for pattern in (proof.rule.conclusion, *proof.rule.premises) for t in pattern]
        return next((t for t in written if not t.startswith("?") and name_term(t) == term), shaper.name(term))
    return shaper.name(term)


def _leaves(proof: Proof):
    if proof.fact is not None:
        yield proof.fact
    for premise in proof.premises:
        yield from _leaves(premise)


def _premise_words(premise: Proof, shaper: Shaper) -> str:
    if premise.fact is not None:
        card = shaper.cards[premise.fact.card_id]
        return said(card["subject"], card["label"], card["object"] or card["value"])
    words = said(_term_name(premise.subject, premise, shaper), premise.label, premise.shown)
    return gettext("%(words)s (worked out by “%(rule)s”)") % {"words": words, "rule": premise.rule.name}
