"""Answers as a reader gets them (DESIGN §7): the subject's binding, the tier,
the values with their evidence cards and derivation chains, the guesses. The
API's /answer/ and the dashboard's ask page both return `answer_read`, so they agree."""

from __future__ import annotations

import datetime as dt

from scopes.principals import Principal

from ..selectors.read_scopes import scope_ids_read
from .answer import answer
from .derive import Proof
from ..labels import label_resolve
from ..models import Entity
from ..selectors.entities import Binding, entity_bind, entity_brief
from ..selectors.shape import cards_out, iso


def subject_shaped(asked: str, binding: Binding, scope_ids: list[int]) -> dict:
    alike = {e.pk: e for e in Entity.objects.in_scopes(scope_ids).filter(pk__in=[pk for pk, _ in binding.did_you_mean])}
    return {"asked": asked, "binding": binding.status, "entities": [entity_brief(e) for e in binding.entities],
            "did_you_mean": [{"entity": entity_brief(alike[pk]), "score": score}
                             for pk, score in binding.did_you_mean if pk in alike]}


class Shaper:
    """Cards and term names for a whole answer, each read once; by the read's scopes when given
    (`scope_ids`: every card of the answer was found in them)."""

    def __init__(self, proofs: list[Proof], card_ids: list[int], user, scope_ids: list[int] | None = None) -> None:
        ids = list(dict.fromkeys([*card_ids, *(pk for p in proofs for pk in p.card_ids())]))
        self.cards = dict(zip(ids, cards_out(ids, user=user, scope_ids=scope_ids)))
        terms = {t for p in proofs for t in _terms(p)}
        entity_ids = [int(t[2:]) for t in terms if t.startswith("e:")]
        self.names = {f"e:{pk}": name for pk, name in Entity.objects.filter(pk__in=entity_ids).values_list("pk", "name")}

    def name(self, term: str) -> str:
        return self.names.get(term, term[2:])

    def chain(self, proof: Proof) -> dict:
        return {"rule": {"id": proof.rule.pk, "name": proof.rule.name, "description": proof.rule.description},
                "conclusion": f"{self.name(proof.subject)} {proof.label} {proof.shown}", "value": proof.shown,
                "premises": [self.cards[p.fact.card_id] if p.fact else self.chain(p) for p in proof.premises]}


def _terms(proof: Proof):
    yield proof.subject
    for premise in proof.premises:
        yield from _terms(premise)


def answer_read(*, principal: Principal, scope_id: int | str | None, subject: str, label: str,
                as_of: dt.datetime | None = None) -> dict:
    """The answer to (subject, label) as a read in `scope_id` sees it (None: every scope read
    by default); no model call."""
    scope_ids = scope_ids_read(principal=principal, scope_id=scope_id)
    found_label = label_resolve(label)
    binding = entity_bind(name=subject, scope_ids=scope_ids, speaker=principal.user)
    found = answer(binding=binding, label=found_label, scope_ids=scope_ids, as_of=as_of)
    shaper = Shaper([*found.derived, *found.contradictions],
                    [*found.evidence, *(p.card_id for p in found.planned), *found.disputes], principal.user,
                    scope_ids)
    return {
        "tier": found.tier, "subject": subject_shaped(subject, binding, scope_ids), "label": found_label.key,
        "values": found.values, "evidence": [shaper.cards[pk] for pk in found.evidence],
        "chain": [shaper.chain(p) for p in found.derived],
        "candidates": [{"value": g.value, "score": g.score, "why": g.why, "card": g.card_id} for g in found.guesses],
        "contradictions": [shaper.chain(p) for p in found.contradictions],
        "conflicting": found.conflicting,
        # Not yet true: each value from its date on (the values above hold until then).
        "planned": [{"value": p.value, "starts": iso(p.starts), "card": shaper.cards[p.card_id]} for p in found.planned],
        # Others' statements about a member that disagree with the member's own, for the member to settle.
        "disputes": [shaper.cards[pk] for pk in found.disputes],
        # A name several entities answer to: what is known of each, by whom it is about.
        "by_subject": [{"entities": [entity_brief(e) for e in part.binding.entities or part.binding.roots],
                        "tier": part.tier, "values": part.values, "evidence": part.evidence}
                       for part in found.parts]}
