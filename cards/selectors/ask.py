"""Questions in plain words (issue 18): one question in English or Chinese,
understood and answered without a model — the same question gives the same
bytes. What the question names is read by the modules that read everything
else: the subject by the one binder (cards.selectors.entities: names, aliases,
members, relation words from the asker's side, "I"), the label by the
registry's names (cards.understand), the time words by the time module that
anchors writes (in the asker's zone, against `as_of` or now), and the form by
its question words (cards.ask_words). Then it is answered by what answers the
expert forms: `answer` (tiers, rules, guesses), `count_cards`, and recall —
with recall's abstention.

A subject may be reached through a relation card ("my advisor": the advisor
card's person; "my car": the car card's value, bound as an entity), at most
two hops; every hop is a card in the chain, and the answer is then derived."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

from django.utils import timezone

from scopes.principals import Principal
from scopes.relations import RELATIONS, relation_key
from scopes.selectors import read_scope_ids

from ..answer import Answer, answer
from ..ask_words import (asked_value, day_words, form_of, is_yes_no, label_words, language_of, listed, no_record,
                         sentence, whose)
from ..count import count_cards
from ..embeddings import EmbeddingError
from ..labels import label_lookup, registry
from ..lexical import CJK, simplified, singular
from ..models import Card, CardKind, Label, Tag
from ..retrieval import recall
from ..text import normalize
from ..timeexpr.find import time_in_query
from ..understand import labels_named, name_runs, speaks_of_self
from ..when import anchor_zone, speaker_zone, zone_label
from .answers import Shaper
from .entities import Binding, entity_bind, entity_binding
from .recall import EmbeddingDown
from .shape import cards_out, iso

MAX_HOPS = 2
# Relations a speaker names that are kept as cards about them, not as member
# relations: "my advisor" is the person on my advisor card.
_RELATION_LABELS = {"wife": "partner", "husband": "partner", "spouse": "partner", "partner": "partner",
                    "mother": "parent", "father": "parent", "parent": "parent", "son": "child", "daughter": "child",
                    "child": "child", "brother": "sibling", "sister": "sibling", "sibling": "sibling",
                    "friend": "friend", "manager": "manager"}


@dataclass
class Subject:
    asked: str  # as the question says it: "my advisor", "Kai", "I"
    binding: Binding
    mine: bool = False  # the asker's own
    hops: list[int] = field(default_factory=list)  # the relation cards followed to reach it
    hop_labels: set[str] = field(default_factory=set)  # their labels ("advisor"): not what is asked
    spoken: str = ""  # the words of the question it took (left out when looking for the label)


def ask_read(*, principal: Principal, scope_id: int, question: str, as_of: dt.datetime | None = None,
             tz: str | None = None) -> dict:
    """The answer to `question` as a read in `scope_id` sees it (API.md "Ask")."""
    # The zone first: a bad one is the caller's 400 whatever the scope.
    zone = anchor_zone(None, speaker_zone(principal.user, tz))
    scope_ids = read_scope_ids(principal=principal, scope_id=scope_id)
    reference = as_of or timezone.now()
    language = language_of(question)
    timed = time_in_query(question, reference=reference, tz=zone)
    rest = timed.rest if timed is not None and re.search(r"[^\W_]", timed.rest) else question
    if rest is question:
        timed = None
    form = form_of(rest)
    subject = _subject(rest, scope_ids, principal.user, as_of)
    spoken = rest.replace(subject.spoken, " ") if subject and subject.spoken else rest
    labels = [label for label in labels_named(spoken) if not subject or label.key not in subject.hop_labels]
    asking = _Asking(principal, scope_ids, language, zone, as_of, reference, question, rest, timed, subject, labels)
    if form == "count" and labels:
        body = asking.count()
    elif form == "when" and not any(label.kind != CardKind.EVENT for label in labels[:1]):
        body = asking.when()
    elif subject is not None and labels:
        body = asking.answer(yes_no=is_yes_no(rest), spoken=spoken)
    elif labels and (stranger := _unbound_name(rest)):
        # "Where does Bob live?" with no Bob here: nothing can be recorded about him.
        body = {"answer": no_record(labels[0], language, name=stranger, mine=False), "tier": "no_evidence",
                "form": "answer", "label": labels[0].key, "values": [], "evidence": [], "chain": [], "cards": []}
    else:
        body = asking.recall()
    body["understood"] = {
        "subject": subject.asked if subject else None,
        "subject_entities": [e.pk for e in subject.binding.entities] if subject else [],
        "label": body.pop("label", None) or (labels[0].key if labels else None),
        "when": {"expression": timed.expression, "start": iso(timed.interval.start),
                 "end": iso(timed.interval.end)} if timed else None,
        "form": body.pop("form"), "language": language}
    return {"answer": body.pop("answer"), "tier": body.pop("tier"), "understood": body.pop("understood"), **body}


# --- the subject -------------------------------------------------------------------------------

def _subject(text: str, scope_ids: list[int], user, as_of) -> Subject | None:
    """Who or what the question is about: a possessive through a relation or a
    label ("my advisor", "Kai's school", 我老婆), else a name that binds, else the
    asker when it speaks of them ("I", "my", 我)."""
    return (_through_possessive(text, scope_ids, user, as_of) or _named(text, scope_ids, user)
            or (_me(user, scope_ids) if speaks_of_self(text) else None))


def _me(user, scope_ids) -> Subject:
    binding = entity_bind(name="me", scope_ids=scope_ids, speaker=user)
    return Subject("I", binding, mine=True)


def _named(text: str, scope_ids: list[int], user) -> Subject | None:
    """The longest run of the question's words that binds (names and aliases in
    the scopes, members by name, members by a relation word from the asker's side)."""
    runs = sorted(name_runs(text), key=lambda run: (-len(run), run))
    relation_words = _relation_words(text)
    for run in [*relation_words, *runs]:
        if normalize(run) in {"i", "me", "my", "我"}:
            continue
        binding = entity_bind(name=run, scope_ids=scope_ids, speaker=user, suggest=False)
        if binding.status == "bound":
            return Subject(_as_said(text, run), binding, spoken=_as_said(text, run))
    return None


_QUESTION_WORDS = frozenset("what what's whats where where's who who's whom whose which when when's how why is are "
                            "was were do does did can could will would should has have had tell remind i i'm".split())


def _unbound_name(text: str) -> str | None:
    """A name the question uses that binds nothing here ("Bob"): capitalized words past
    the first, or Latin words in a Chinese question."""
    if CJK.search(text):
        latin = re.findall(r"[A-Za-z][\w.-]*(?:\s+[A-Z][\w.-]*)*", text)
        return latin[0] if latin else None
    words = re.findall(r"[^\W_][\w'-]*", text)
    names = [w.removesuffix("'s") for w in words[1:] if w[:1].isupper() and w.casefold() not in _QUESTION_WORDS]
    return " ".join(names[:2]) if names else None


def _as_said(text: str, run: str) -> str:
    """The words of `text` a normalized run came from ("Kai" for "kai")."""
    match = re.search(re.escape(run), text, re.IGNORECASE)
    return match.group(0) if match else run


def _relation_words(text: str) -> list[str]:
    """Relation words the question uses ("Mom", 媽媽, "my wife"), longest first."""
    folded = normalize(text)
    found = [word for word in _ALL_RELATION_WORDS if (CJK.search(word) and word in folded)
             or re.search(rf"\b{re.escape(word)}\b", folded)]
    return sorted(found, key=lambda w: -len(w))


_ALL_RELATION_WORDS = sorted({word for words in RELATIONS.values() for word in words}, key=lambda w: -len(w))


def _possessives(text: str):
    """(the owner's words — None for the asker — and what is theirs, longest first) for
    each possessive: "my thesis advisor", "Kai's school", 我的导师, 小安的主管."""
    for match in re.finditer(r"\bmy\s+([^\W_]+)(?:\s+([^\W_]+))?", text, re.IGNORECASE):
        yield None, [w for w in (" ".join(filter(None, match.groups())), match.group(1)) if w]
    for match in re.finditer(r"'s\s+([^\W_]+)(?:\s+([^\W_]+))?", text):
        before = re.findall(r"[^\W_]+", text[:match.start()])
        owners = [" ".join(before[-n:]) for n in range(min(4, len(before)), 0, -1)]
        yield owners, [w for w in (" ".join(filter(None, match.groups())), match.group(1)) if w]
    for match in re.finditer(r"的", text):
        before, after = text[:match.start()], text[match.end():]
        run = re.search(r"[\u3400-\u9fff\w]{1,8}$", before)
        if run is None:
            continue
        whats = [after[:n] for n in range(min(4, len(after)), 0, -1) if CJK.fullmatch(after[:n])]
        owner = run.group(0)
        yield (None if owner == "我" else [owner[-n:] for n in range(len(owner), 0, -1)]), whats


def _through_possessive(text: str, scope_ids: list[int], user, as_of) -> Subject | None:
    """A subject reached through a card: "my advisor" (the person on my advisor card),
    "my car" (the car my car card names), "Kai's manager"."""
    for owners, whats in _possessives(text):
        owner = _me(user, scope_ids) if owners is None else next(
            (found for name in owners if (found := _named(name, scope_ids, user)) is not None), None)
        if owner is None:
            continue
        for what in whats:
            label = _hop_label(what)
            if label is None:
                continue
            reached = _follow(owner, label, scope_ids, as_of)
            if reached is not None:
                phrase = _phrase(text, owners, what)
                reached.asked, reached.spoken = phrase, phrase
                return reached
    return None


def _phrase(text: str, owners, what: str) -> str:
    """The words of `text` that name the reached subject ("my advisor", "Kai's manager", 我的导师)."""
    at = text.find(what)
    if owners is None:
        mine = max(text.rfind("my ", 0, at), text.rfind("My ", 0, at), text.rfind("我", 0, at))
        return text[mine:at + len(what)] if mine >= 0 else what
    owner = next((o for o in owners if o in text[:at]), owners[-1])
    return text[text.rfind(owner, 0, at):at + len(what)]


def _hop_label(word: str) -> Label | None:
    """The label a relation or thing word names ("advisor", "wife" → partner, "car", 导师)."""
    key = relation_key(word)
    if key in _RELATION_LABELS:
        return registry().get(_RELATION_LABELS[key])
    # The whole word names it: "advisor", never the "advisor" inside "advisor teach".
    label = label_lookup(simplified(word)) or label_lookup(singular(word))
    return label if label is not None and label.kind == CardKind.STATE else None


def _follow(owner: Subject, label: Label, scope_ids: list[int], as_of) -> Subject | None:
    """The entity `owner`'s card of `label` names (its object, else its value as a
    name that binds): the next subject, the card its hop."""
    if len(owner.hops) >= MAX_HOPS:
        return None
    found = answer(binding=owner.binding, label=label, scope_ids=scope_ids, as_of=as_of)
    if found.tier != "recorded" or not found.evidence:
        return None
    card = (Card.objects.in_scopes(scope_ids).filter(pk=found.evidence[0])
            .values("object_id", "value").first())
    if card is None:
        return None
    if card["object_id"] is not None:
        binding = entity_binding(card["object_id"], scope_ids)
    else:
        binding = entity_bind(name=card["value"], scope_ids=scope_ids, suggest=False)
    if binding is None or binding.status != "bound":
        return None
    return Subject("", binding, hops=[*owner.hops, found.evidence[0]], hop_labels={*owner.hop_labels, label.key})


# --- answering ---------------------------------------------------------------------------------

@dataclass
class _Asking:
    principal: Principal
    scope_ids: list[int]
    language: str
    zone: object
    as_of: dt.datetime | None
    reference: dt.datetime
    question: str
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
            return re.sub(r"^(my|My)\b", "your", self.subject.asked)
        entities = self.subject.binding.entities
        return entities[0].name if entities else self.subject.asked

    def whose(self) -> str:
        if self.subject is None:
            return ""
        mine = self.subject.mine
        name = self.subject.asked if self.subject.hops else (
            self.subject.binding.entities[0].name if self.subject.binding.entities else self.subject.asked)
        if self.subject.hops and self.language == "en":
            name = re.sub(r"^(my|My)\b", "your", name)
            return name + ("'s" if not name.endswith("'s") else "")
        return whose(name, self.language, mine=mine)

    def answer(self, *, yes_no: bool, spoken: str) -> dict:
        found: Answer | None = None
        for label in self.labels:
            found = answer(binding=self.subject.binding, label=label, scope_ids=self.scope_ids, as_of=self.as_of)
            if found.tier != "no_evidence":
                break
        label = found.label
        shaper = Shaper([*found.derived, *found.contradictions], [*self.subject.hops, *found.evidence], self.user)
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
        words = label_words(label, self.language)
        parts = {"whose": self.whose(), "label": words, "values": listed(values, self.language)}
        yes = None
        if tier == "no_evidence":
            text = no_record(label, self.language, name=self.name(), mine=self.subject.mine)
        elif yes_no and (asked := asked_value(_without(spoken, label))):
            yes = any(asked in normalize(v) or normalize(v) in asked for v in values)
            text = sentence("yes" if yes else "no", self.language, **parts)
        elif tier == "derived":
            how = " → ".join(shaper.cards[pk]["text"] or shaper.cards[pk]["value"] for pk in self.subject.hops) \
                if self.subject.hops else (chain[0]["rule"]["name"] if chain else "")
            text = sentence("derived", self.language, how=how, **parts)
        elif tier == "guessed":
            text = sentence("guessed", self.language, **parts)
        else:
            text = sentence("recorded" if len(values) == 1 else "recorded_many", self.language, **parts)
        evidence = [shaper.cards[pk] for pk in found.evidence]
        guessed = [g.card_id for g in found.guesses] if tier == "guessed" else []
        return {"answer": text, "tier": tier, "form": "answer", "label": label.key,
                "values": values if tier != "no_evidence" else [],
                "evidence": evidence, "chain": chain,
                "cards": list(dict.fromkeys([*self.subject.hops, *found.evidence, *guessed])),
                **({"yes": yes} if yes is not None else {})}

    def count(self) -> dict:
        label = next((l for l in self.labels if l.kind == CardKind.EVENT), self.labels[0])
        start = end = None
        if self.timed is not None:
            start = self.timed.interval.start
            end = self.timed.interval.end or start + dt.timedelta(microseconds=1)
        found = count_cards(scope_ids=self.scope_ids, label=label, subject_ids=self.subject.binding.entity_ids
                            if self.subject else None, start=start, end=end, tz=zone_label(self.zone))
        range_words = f" {self.timed.expression}" if self.timed and self.language == "en" else (
            self.timed.expression if self.timed else "")
        words = label_words(label, self.language, plural=found.count != 1)
        if not found.count and not found.undated_ids:
            text = sentence("count_none", self.language, label=label_words(label, self.language, plural=True),
                            range=range_words)
            tier = "no_evidence"
        elif found.exact:
            text, tier = sentence("count", self.language, count=found.count, label=words, range=range_words), \
                "recorded"
        else:
            text = sentence("count_at_least", self.language, count=found.count, label=words, range=range_words,
                            undated=len(found.undated_ids) + len(found.straddling_ids))
            tier = "recorded"
        evidence = cards_out(found.card_ids, user=self.user)
        return {"answer": text, "tier": tier, "form": "count", "label": label.key, "values": [str(found.count)],
                "count": found.count, "exact": found.exact,
                "undated": len(found.undated_ids) + len(found.straddling_ids),
                "evidence": evidence, "chain": [], "cards": found.card_ids}

    def _recalled(self, *, k: int):
        subject_ids = self.subject.binding.entity_ids if self.subject else None
        try:
            return recall(scope_ids=self.scope_ids, query=self.rest, k=k, as_of=self.as_of,
                          when=self.timed.interval if self.timed else None, subject_ids=subject_ids,
                          asker_id=self.user.pk, when_events_only=not self.timed.ahead if self.timed else True)
        except EmbeddingError as error:
            raise EmbeddingDown(f"The embedding model is not available right now ({error}); "
                                "try again shortly.") from None

    def when(self) -> dict:
        found = self._recalled(k=10)
        events = cards_out([r.card_id for r in found.results], user=self.user)
        label_keys = {l.key for l in self.labels if l.kind == CardKind.EVENT}
        event = next((c for c in events if c["kind"] == CardKind.EVENT and c["occurred_at"]
                      and (not label_keys or c["label"] in label_keys)), None)
        if event is None:
            return {"answer": sentence("when_none", self.language), "tier": "no_evidence", "form": "when",
                    "values": [], "evidence": [], "chain": [], "cards": []}
        day = dt.datetime.fromisoformat(event["occurred_at"]).astimezone(self.zone).date()
        what = event["text"] or event["value"]
        return {"answer": sentence("when", self.language, what=what, day=day_words(day, self.language)),
                "tier": "guessed" if event["tag"] == Tag.HYPOTHESIS else "recorded", "form": "when",
                "label": event["label"], "values": [day.isoformat()], "evidence": [event], "chain": [],
                "cards": [event["id"]]}

    def recall(self) -> dict:
        found = self._recalled(k=5)
        cards = cards_out([r.card_id for r in found.results], user=self.user)
        if not cards:
            return {"answer": sentence("recall_none", self.language), "tier": "no_evidence", "form": "recall",
                    "values": [], "evidence": [], "chain": [], "cards": []}
        top = cards[0]
        tier = "guessed" if top["tag"] == Tag.HYPOTHESIS else "recorded"
        return {"answer": sentence("recall", self.language, text=top["text"] or top["value"]), "tier": tier,
                "form": "recall", "values": [c["object"] or c["value"] for c in cards], "evidence": cards,
                "chain": [], "cards": [c["id"] for c in cards]}


def _without(text: str, label: Label) -> str:
    """`text` without the names of `label` (its key and synonyms, as said)."""
    out = simplified(normalize(text))
    for name in sorted([label.key.replace("_", " "), *label.synonyms], key=len, reverse=True):
        name = simplified(normalize(name))
        out = out.replace(name, " ") if CJK.search(name) else re.sub(rf"\b{re.escape(name)}\b", " ", out)
    return out
