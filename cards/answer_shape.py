"""Answers and counts shaped for a reader: the subject's binding, derivation
chains with their premise cards, and a count's range. The API's answer and
count views and the dashboard's ask page both use these, so they agree."""

from __future__ import annotations

import datetime as dt

from core.errors import DomainError

from .answer import Binding
from .count import Count, count_cards
from .derive import Proof
from .drafts import when_interval
from .models import Entity, Label
from .selectors.shape import cards_out
from .when import user_zone


class AmbiguousSubject(DomainError):
    code = "ambiguous_subject"


def entity_brief(entity: Entity) -> dict:
    return {"id": entity.pk, "scope": entity.scope_id, "name": entity.name, "kind": entity.kind}


def subject_shaped(asked: str, binding: Binding) -> dict:
    alike = {e.pk: e for e in Entity.objects.filter(pk__in=[pk for pk, _ in binding.did_you_mean])}
    return {"asked": asked, "binding": binding.status, "entities": [entity_brief(e) for e in binding.entities],
            "did_you_mean": [{"entity": entity_brief(alike[pk]), "score": score}
                             for pk, score in binding.did_you_mean]}


class Shaper:
    """Cards and term names for a whole answer, each read once."""

    def __init__(self, proofs: list[Proof], card_ids: list[int], user) -> None:
        ids = list(dict.fromkeys([*card_ids, *(pk for p in proofs for pk in p.card_ids())]))
        self.cards = dict(zip(ids, cards_out(ids, user=user)))
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


def count_asked(*, user, scope_ids: list[int], label: Label, binding: Binding | None, subject: str | None,
                start: dt.datetime | None, end: dt.datetime | None, when: str | None,
                tz: str | None) -> tuple[Count, dt.datetime | None, dt.datetime | None]:
    """A count as asked (a subject already bound, `when` or a from/to range), with the range it covered."""
    subject_ids = None
    if binding is not None:
        if binding.status == "ambiguous":
            raise AmbiguousSubject(f"{subject!r} names more than one entity here; ask about one.",
                                   entities=[entity_brief(e) for e in binding.entities])
        subject_ids = binding.entity_ids
    if when:
        interval = when_interval(when, tz_name=tz, user=user)
        # A stated instant (end None) is a range of one microsecond, not "from then on".
        start, end = interval.start, interval.end or interval.start + dt.timedelta(microseconds=1)
    found = count_cards(scope_ids=scope_ids, label=label, subject_ids=subject_ids, start=start, end=end,
                        tz=tz or str(user_zone(user)))
    return found, start, end
