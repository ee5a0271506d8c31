"""Questions in plain words (issue 18): one question in English or Chinese,
understood and answered without a model — the same question gives the same
bytes. What the question names is read by the modules that read everything
else: the subject by the one binder (ask_subject.py), the label by the
registry's names (cards.words.understand), the time words by the time module that
anchors writes (in the asker's zone, against `as_of` or now), and the form by
its question words (cards.answers.ask_words). Then it is answered by what answers the
expert forms: `answer` (tiers, rules, hypotheses), `count_cards`, and recall —
with recall's abstention."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from django.utils import timezone

from core.errors import DomainError
from scopes.principals import Principal

from ..selectors.read_scopes import scope_ids_read
from .answer import answer
from .derive import approved_rules
from .ask_words import (asked_value, candidate_names, day_words, form_of, is_yes_no, language_of, listed, no_record,
                        sentence, whose)
from .count import count_cards
from ..labels import label_lookup
from ..embeddings import EmbeddingError
from ..words.label_names import label_words
from ..words.lexical import CJK, query_terms, simplified
from ..models import Card, CardKind, Label, Tag
from ..recall.routes import recall
from ..text import normalize
from ..time.anchor import zone_from_label
from ..time.find import time_in_query
from ..words.understand import labels_named
from ..valid_time import valid_q
from ..time.when import anchor_zone, speaker_zone, zone_label
from .answer_read import Shaper
from .ask_subject import Subject, Unbound, subject_of, unbound_name, we_mean_me
from ..selectors.recall import EmbeddingDown
from ..selectors.entities import entity_brief
from ..selectors.shape import cards_out, iso

# Words of a "when" question that say nothing of which event ("when did I last go on a trip?").
_WHEN_FILLER = frozenset("last latest recent recently go went gone going take took taken have had get got make made "
                         "first time 去 上次 最近 一次 时候 时间".split())
_LATEST = re.compile(r"\b(last|latest|most recent|recently)\b|最近|上次|上一次|最后一次")
_IS_A = re.compile(r"^\s*(is|are)\b.+\b(a|an)\s+[^\W_]", re.IGNORECASE)
# Labels whose value is a day: "when is Kai's birthday?" asks for the value, not an event.
_DAY_VALUED = frozenset({"birthday"})
RECALLED = 10
RECALLED_IN_A_RANGE = 20  # "what did we do last weekend?": every event of it, within reason


def ask_read(*, principal: Principal, scope_id: int | str | None, question: str, as_of: dt.datetime | None = None,
             tz: str | None = None) -> dict:
    """The answer to `question` as a read in `scope_id` sees it, or with none every scope
    the asker reads by default (API.md "Ask", "Reads without a scope")."""
    # The zone first: a bad one is the caller's 400 whatever the scope.
    zone = anchor_zone(None, speaker_zone(principal.user, tz))
    scope_ids = scope_ids_read(principal=principal, scope_id=scope_id)
    reference = as_of or timezone.now()
    language = language_of(question, zone_label(zone))
    timed = time_in_query(question, reference=reference, tz=zone)
    rest = timed.rest if timed is not None and re.search(r"[^\W_]", timed.rest) else question
    if rest is question:
        timed = None
    form = form_of(rest)
    found = subject_of(rest, scope_ids, principal.user, as_of)
    subject = found if isinstance(found, Subject) else None
    spoken = rest.replace(subject.spoken, " ") if subject and subject.spoken else rest
    labels = [label for label in labels_named(spoken) if not subject or label.key not in subject.hop_labels]
    if subject is None and found is None and labels and form == "answer":
        subject = we_mean_me(rest, scope_ids, principal.user)
    if subject is not None and _IS_A.search(rest) and (kind := label_lookup("is_a")) is not None:
        # "Is the Tesla Model 3 a car?": a kind it is, recorded or through the rules.
        labels = [kind, *(label for label in labels if label.pk != kind.pk)]
    asking = _Asking(principal, scope_ids, language, zone, as_of, reference, rest, timed, subject, labels)
    stranger = found.name if isinstance(found, Unbound) else (
        unbound_name(rest, _names_of(labels)) if subject is None and labels else None)
    if form == "count" and labels:
        body = asking.count()
    elif form == "when" and not (labels and labels[0].key in _DAY_VALUED):
        body = asking.when()
    elif stranger and labels:
        # "Where does Bob live?" with no Bob here: nothing can be recorded about him.
        body = {"answer": no_record(labels[0], language, name=stranger, mine=False), "tier": "no_evidence",
                "form": "answer", "label": labels[0].key, "values": [], "evidence": [], "chain": [], "cards": []}
    elif subject is not None and labels and labels[0].kind == CardKind.EVENT:
        # "What did I buy last week?": the events themselves, in the range.
        body = asking.recall()
    elif subject is not None and labels:
        body = asking.answer(labels, yes_no=is_yes_no(rest), spoken=spoken)
    elif subject is not None and subject.via is not None:
        # "Who is my advisor?": the relation card itself answers.
        owner, label = subject.via
        asking.subject = owner
        body = asking.answer([label], yes_no=False, spoken=spoken)
    elif subject is not None and is_yes_no(rest) and asked_value(spoken):
        body = asking.has_value(asked_value(spoken))
    else:
        body = asking.recall()
    body["understood"] = {
        "subject": asking.subject.asked if asking.subject else (stranger or None),
        "subject_entities": [e.pk for e in asking.subject.binding.entities] if asking.subject else [],
        "label": body.pop("label", None) or (labels[0].key if labels else None),
        "when": {"expression": timed.expression, "start": iso(timed.interval.start),
                 "end": iso(timed.interval.end)} if timed else None,
        "form": body.pop("form"), "language": language}
    return {"answer": body.pop("answer"), "tier": body.pop("tier"), "understood": body.pop("understood"), **body}


def _names_of(labels: list[Label]) -> set[str]:
    return {simplified(normalize(n)) for label in labels for n in (label.key.replace("_", " "), *label.synonyms)}


@dataclass
class _Asking:
    principal: Principal
    scope_ids: list[int]
    language: str
    zone: object
    as_of: dt.datetime | None
    reference: dt.datetime
    rest: str
    timed: object
    subject: Subject | None
    labels: list[Label]

    @property
    def user(self):
        return self.principal.user

    def name(self) -> str:
        """The subject as a sentence names it: its entity's name, or the words that reached it."""
        if self.subject.hops:
            return re.sub(r"^(my|My|our|Our)\b", "your", self.subject.asked)
        entities = self.subject.binding.entities
        return entities[0].name if entities else self.subject.asked

    def _plain_name(self) -> str:
        if self.subject.mine:
            return "you" if self.language == "en" else "你"
        return self.name()

    def whose(self) -> str:
        name = self.name()
        if self.subject.hops:
            if self.language == "en":
                return name if name.endswith("'s") else f"{name}'s"
            return f"{name}的"
        return whose(name, self.language, mine=self.subject.mine)

    def answer(self, labels: list[Label], *, yes_no: bool, spoken: str) -> dict:
        as_of = self.as_of
        if self.timed is not None and self.timed.interval.end and self.timed.interval.end <= self.reference:
            # "Where did I live last year?": as it stood at the end of that range.
            as_of = self.timed.interval.end - dt.timedelta(microseconds=1)
        rules = approved_rules()
        for label in labels:
            # A plain answer offers only what someone's agent guessed about this subject, never
            # a likeness to others (their birthday is not this person's).
            found = answer(binding=self.subject.binding, label=label, scope_ids=self.scope_ids, as_of=as_of,
                           likeness=False, rules=rules)
            if found.tier != "no_evidence":
                break
        if found.parts:
            return self._over_candidates(found)
        label = found.label
        if label.key == "name" and self.subject.hops and found.tier == "no_evidence":
            # "What's my dog called?": the one the pet card names.
            return self._the_hop_itself(label)
        shaper = Shaper([*found.derived, *found.contradictions], [*self.subject.hops, *found.evidence], self.user,
                        self.scope_ids)
        values = list(found.values) if found.tier != "guessed" else [g.value for g in found.guesses[:1]]
        tier = found.tier
        chain = [shaper.chain(p) for p in found.derived]
        if self.subject.hops and tier != "no_evidence":
            # Reached through relation cards: the answer is derived, each hop a premise.
            chain.insert(0, {"rule": {"id": None, "name": "through a relation",
                                      "description": "A question about someone or something named by a relation "
                                                     "card is answered by that card and theirs."},
                             "conclusion": f"{self.subject.asked}: {listed(values, 'en')}",
                             "value": listed(values, "en"),
                             "premises": [shaper.cards[pk] for pk in [*self.subject.hops, *found.evidence]]})
            tier = "derived" if tier == "recorded" else tier
        parts = {"whose": self.whose(), "label": label_words(label, self.language),
                 "values": listed(values, self.language)}
        yes = None
        if tier == "no_evidence":
            text = no_record(label, self.language, name=self.name(), mine=self.subject.mine)
        elif yes_no:
            # "Does my car need gas?": whether what is asked is among the values; with nothing
            # asked beyond the label ("奶奶吃素吗？"), whether the label holds at all.
            asked = asked_value(_without(spoken, label))
            exact = [v for v in values if _same(asked, v, exactly=True)]
            matching = (exact or [v for v in values if _same(asked, v)]) if asked else values
            yes = bool(matching)
            values = matching or values
            if yes and tier == "recorded" and set(matching) <= {p.shown for p in found.derived}:
                # Only a derived value says yes ("is the Tesla a car?": through the kinds).
                tier = "derived"
            key = ("yes" if yes else "no") + ("_is" if label.key == "is_a" else "")
            text = sentence(key, self.language, name=self._plain_name(),
                            **{**parts, "values": listed(values, self.language)})
        elif tier == "derived":
            how = " → ".join(shaper.cards[pk]["text"] or shaper.cards[pk]["value"] for pk in self.subject.hops) \
                if self.subject.hops else (chain[0]["rule"]["name"] if chain else "")
            text = sentence("derived", self.language, how=how, **parts)
        elif tier == "guessed":
            text = sentence("guessed", self.language, **parts)
        else:
            text = sentence("recorded" if len(values) == 1 else "recorded_many", self.language, **parts)
        guessed = [g.card_id for g in found.guesses] if tier == "guessed" else []
        return {"answer": text, "tier": tier, "form": "answer", "label": label.key,
                "values": values if tier != "no_evidence" else [],
                "evidence": [shaper.cards[pk] for pk in found.evidence], "chain": chain,
                "cards": list(dict.fromkeys([*self.subject.hops, *found.evidence, *guessed])),
                **({"yes": yes} if yes is not None else {})}

    def _over_candidates(self, found) -> dict:
        """A name several entities answer to ("Sam": the member, and a thing written under
        that name): what is known of each, each named, one sentence apiece."""
        label, names = found.label, candidate_names([part.binding for part in found.parts], self.language)
        shaper = Shaper([*found.derived, *found.contradictions], found.evidence, self.user, self.scope_ids)
        said = [sentence("ambiguous", self.language, asked=self.subject.asked, count=len(found.parts))]
        for part, name in zip(found.parts, names):
            values = list(part.values) if part.tier != "guessed" else [g.value for g in part.guesses[:1]]
            parts = {"whose": whose(name, self.language, mine=False), "label": label_words(label, self.language),
                     "values": listed(values, self.language)}
            if part.tier == "no_evidence":
                said.append(no_record(label, self.language, name=name, mine=False))
            elif part.tier == "derived":
                said.append(sentence("derived", self.language, how=part.derived[0].rule.name, **parts))
            elif part.tier == "guessed":
                said.append(sentence("guessed", self.language, **parts))
            else:
                said.append(sentence("recorded" if len(values) == 1 else "recorded_many", self.language, **parts))
        guessed = [g.card_id for part in found.parts if part.tier == "guessed" for g in part.guesses]
        return {"answer": (" " if self.language == "en" else "").join(said), "tier": found.tier, "form": "answer",
                "label": label.key, "values": found.values, "evidence": [shaper.cards[pk] for pk in found.evidence],
                "chain": [shaper.chain(p) for p in found.derived],
                "cards": list(dict.fromkeys([*found.evidence, *guessed])),
                "by_subject": [{"entities": [entity_brief(e) for e in part.binding.entities or part.binding.roots],
                                "name": name, "tier": part.tier, "values": part.values, "evidence": part.evidence}
                               for part, name in zip(found.parts, names)]}

    def _the_hop_itself(self, label: Label) -> dict:
        """The last hop's card answers ("your pet is Bolacha"): the subject reached is what it names."""
        card = cards_out(self.subject.hops[-1:], user=self.user, scope_ids=self.scope_ids)[0]
        value = card["object"] or card["value"]
        owner, hop_label = self.subject.via
        owner_name = owner.binding.entities[0].name if owner.binding.entities else owner.asked
        text = sentence("recorded", self.language, whose=whose(owner_name, self.language, mine=owner.mine),
                        label=label_words(hop_label, self.language), values=value)
        return {"answer": text, "tier": "recorded", "form": "answer", "label": label.key, "values": [value],
                "evidence": [card], "chain": [], "cards": [card["id"]]}

    def has_value(self, asked: str) -> dict:
        """"Is Mom vegetarian?": whether any card about the subject says so, whatever its label."""
        rows = list(Card.objects.in_scopes(self.scope_ids)
                    .filter(valid_q(self.as_of or timezone.now()), subject_id__in=self.subject.binding.entity_ids)
                    .exclude(tag=Tag.HYPOTHESIS).values("id", "value").order_by("id"))
        matching = [row for row in rows if row["value"] and _same(asked, row["value"])]
        if not matching:
            text = sentence("has_none", self.language, name=self._plain_name(), value=asked)
            return {"answer": text, "tier": "no_evidence", "form": "answer", "values": [], "evidence": [],
                    "chain": [], "cards": []}
        evidence = cards_out([row["id"] for row in matching], user=self.user, scope_ids=self.scope_ids)
        text = sentence("yes_has", self.language, name=self._plain_name(),
                        values=listed([c["value"] for c in evidence], self.language))
        return {"answer": text, "tier": "recorded", "form": "answer", "label": evidence[0]["label"],
                "values": [c["value"] for c in evidence], "evidence": evidence, "chain": [],
                "cards": [c["id"] for c in evidence], "yes": True}

    def count(self) -> dict:
        label = next((l for l in self.labels if l.kind == CardKind.EVENT), self.labels[0])
        start = end = None
        if self.timed is not None:
            start = self.timed.interval.start
            end = self.timed.interval.end or start + dt.timedelta(microseconds=1)
        found = count_cards(scope_ids=self.scope_ids, label=label, subject_ids=self.subject.binding.entity_ids
                            if self.subject else None, start=start, end=end, tz=zone_label(self.zone))
        range_words = (f" {self.timed.expression}" if self.language == "en" else self.timed.expression) \
            if self.timed else ""
        words = label_words(label, self.language, plural=found.count != 1)
        undated = len(found.undated_ids) + len(found.straddling_ids)
        if not found.count and not undated:
            text = sentence("count_none", self.language, label=label_words(label, self.language, plural=True),
                            range=range_words)
            tier = "no_evidence"
        elif found.exact:
            text, tier = sentence("count", self.language, count=found.count, label=words, range=range_words), \
                "recorded"
        else:
            text = sentence("count_at_least", self.language, count=found.count, label=words, range=range_words,
                            undated=undated)
            tier = "recorded"
        return {"answer": text, "tier": tier, "form": "count", "label": label.key, "values": [str(found.count)],
                "count": found.count, "exact": found.exact, "undated": undated,
                "evidence": cards_out(found.card_ids, user=self.user, scope_ids=self.scope_ids), "chain": [],
                "cards": found.card_ids}

    def _recalled(self, *, k: int, subject: bool = True):
        subject_ids = self.subject.binding.entity_ids if self.subject and subject else None
        try:
            return recall(scope_ids=self.scope_ids, query=self.rest, k=k, as_of=self.as_of,
                          when=self.timed.interval if self.timed else None, subject_ids=subject_ids,
                          asker_id=self.user.pk, when_events_only=not self.timed.ahead if self.timed else True)
        except EmbeddingError as error:
            raise EmbeddingDown(f"The embedding model is not available right now ({error}); "
                                "try again shortly.") from None

    def when(self) -> dict:
        """The day of the event the question means: the most relevant event holding the
        question's own words (not only its label's: "when did we go to Paris?" is not the
        trip to Madrid), about its person if it names one."""
        person = bool(self.subject and self.subject.person)
        event_labels = [l for l in self.labels if l.kind == CardKind.EVENT]
        asked = set(query_terms(self.rest)) - _label_words(self.labels) - _subject_words(self.subject) - _WHEN_FILLER
        if event_labels and not asked and (self.subject is None or person):
            # "When did I last go on a trip?": nothing to match but the label — the latest such event.
            return self._latest_event(event_labels)
        found = self._recalled(k=RECALLED_IN_A_RANGE, subject=person)
        by_id = {r.card_id: r for r in found.results}
        held = dict(Card.objects.in_scopes(self.scope_ids).filter(pk__in=list(by_id)).values_list("id", "lexemes"))
        event_keys = {l.key for l in self.labels if l.kind == CardKind.EVENT}
        # What the event must hold: a thing the question is about ("when was Bolacha born?"), and
        # with no event label named, one of the question's own words ("Paris", not any trip).
        thing = set() if person or not self.subject else _subject_words(self.subject)
        words = set() if event_keys or thing else \
            set(query_terms(self.rest)) - _label_words(self.labels) - _subject_words(self.subject)
        about = set(self.subject.binding.entity_ids) if self.subject else set()
        events = [c for c in cards_out(list(by_id), user=self.user, scope_ids=self.scope_ids)
                  if c["kind"] == CardKind.EVENT and c["occurred_at"] and (not event_keys or c["label"] in event_keys)
                  and (not words or words & set(held.get(c["id"], ())))
                  and (not thing or thing <= set(held.get(c["id"], ())) or c["subject_id"] in about
                       or c["object_id"] in about)]
        if not events:
            return {"answer": sentence("when_none", self.language), "tier": "no_evidence", "form": "when",
                    "values": [], "evidence": [], "chain": [], "cards": []}
        # "When was my last meeting…?": the latest of them; else the one the question means most.
        latest = bool(_LATEST.search(simplified(self.rest.casefold())))
        event = max(events, key=lambda c: (c["occurred_at"], c["id"]) if latest else
                    (by_id[c["id"]].relevance, c["id"]))
        return self._when_of(event)

    def _latest_event(self, labels: list[Label]) -> dict:
        rows = Card.objects.in_scopes(self.scope_ids).filter(
            valid_q(self.as_of or timezone.now()), label__in=labels, kind=CardKind.EVENT, occurred_at__isnull=False)
        if self.subject is not None:
            rows = rows.filter(subject_id__in=self.subject.binding.entity_ids)
        if self.timed is not None:
            rows = rows.filter(occurred_at__gte=self.timed.interval.start,
                               **({"occurred_at__lt": self.timed.interval.end} if self.timed.interval.end else {}))
        latest = rows.exclude(tag=Tag.HYPOTHESIS).order_by("-occurred_at", "-id").values_list("id", flat=True).first()
        if latest is None:
            return {"answer": sentence("when_none", self.language), "tier": "no_evidence", "form": "when",
                    "values": [], "evidence": [], "chain": [], "cards": []}
        return self._when_of(cards_out([latest], user=self.user, scope_ids=self.scope_ids)[0])

    def _when_of(self, event: dict) -> dict:
        # The day it happened where it was said (the card's zone), as its speaker dated it.
        day = dt.datetime.fromisoformat(event["occurred_at"]).astimezone(_zone(event["zone"], self.zone)).date()
        return {"answer": sentence("when", self.language, what=event["text"] or event["value"],
                                   day=day_words(day, self.language)),
                "tier": "guessed" if event["tag"] == Tag.HYPOTHESIS else "recorded", "form": "when",
                "label": event["label"], "values": [day.isoformat()], "evidence": [event], "chain": [],
                "cards": [event["id"]]}

    def recall(self) -> dict:
        found = self._recalled(k=RECALLED_IN_A_RANGE if self.timed else RECALLED)
        cards = cards_out([r.card_id for r in found.results], user=self.user, scope_ids=self.scope_ids)
        if not cards:
            return {"answer": sentence("recall_none", self.language), "tier": "no_evidence", "form": "recall",
                    "values": [], "evidence": [], "chain": [], "cards": []}
        top = cards[0]
        tier = "guessed" if top["tag"] == Tag.HYPOTHESIS else "recorded"
        return {"answer": sentence("recall", self.language, text=top["text"] or top["value"]), "tier": tier,
                "form": "recall", "values": [c["object"] or c["value"] for c in cards], "evidence": cards,
                "chain": [], "cards": [c["id"] for c in cards]}


def _zone(label: str | None, fallback):
    try:
        return zone_from_label(label) if label else fallback
    except DomainError:
        return fallback


def _label_words(labels: list[Label]) -> set[str]:
    return {w for label in labels for n in (label.key.replace("_", " "), *label.synonyms) for w in query_terms(n)}


def _subject_words(subject: Subject | None) -> set[str]:
    return set(query_terms(subject.asked)) if subject else set()


def _same(asked: str, value: str, *, exactly: bool = False) -> bool:
    """A yes/no question's words and a value mean the same: one holds the other (or, `exactly`,
    they are the same), read alike."""
    a, v = simplified(normalize(asked)), simplified(normalize(value))
    return bool(a) and bool(v) and (a == v if exactly else (a in v or v in a))


def _without(text: str, label: Label) -> str:
    """`text` without the names of `label` (its key and synonyms, as said)."""
    out = simplified(normalize(text))
    for name in sorted([label.key.replace("_", " "), *label.synonyms], key=len, reverse=True):
        name = simplified(normalize(name))
        out = out.replace(name, " ") if CJK.search(name) else re.sub(rf"\b{re.escape(name)}\b", " ", out)
    return out
