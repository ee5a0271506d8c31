"""Who or what a plain question is about (issue 18), bound by the one binder
(cards.selectors.entities): a possessive, followed through relation cards ("my
advisor" is the person on my advisor card; "my advisor's manager" is two hops,
the most there are), a member named by a relation word from the asker's side
("my wife", 媽媽), a name or alias, or the asker ("I", "my", 我). A name or a
relation word that binds nothing here is reported as such: nothing can be
recorded about it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from django.db import connection
from django.utils import timezone

from scopes.relations import RELATION_WORDS, fellow_scope_ids, members_of, relation_key

from ..labels import label_lookup, registry
from ..words.lexical import CJK, query_terms, simplified, singular
from ..models import Card, CardKind, EntityKind, Label, Tag
from ..text import normalize
from ..words.understand import labels_named, name_runs, speaks_of_self
from ..valid_time import valid_q
from ..selectors.entities import Binding, entity_bind, entity_binding

MAX_HOPS = 2
# Relation words that are kept as cards about a person, not as member relations:
# "my boss" (not a member) is the person on my manager card.
_RELATION_LABELS = {"wife": "partner", "husband": "partner", "spouse": "partner", "partner": "partner",
                    "mother": "parent", "father": "parent", "parent": "parent", "son": "child", "daughter": "child",
                    "child": "child", "brother": "sibling", "sister": "sibling", "sibling": "sibling",
                    "friend": "friend", "manager": "manager"}
# Labels whose value is the name of a thing that has cards of its own ("my car" is the Tesla).
_NAMING = frozenset({"car", "pet"})
_WE = re.compile(r"\b(we|our|us)\b|我们|我們|咱们|咱們|我哋", re.IGNORECASE)


@dataclass
class Subject:
    asked: str  # as the question says it: "my advisor", "Kai", "I"
    binding: Binding
    mine: bool = False  # the asker's own
    hops: list[int] = field(default_factory=list)  # the relation cards followed to reach it
    hop_labels: set[str] = field(default_factory=set)  # their labels ("advisor"): not what is asked
    spoken: str = ""  # the words of the question it took (left out when looking for the label)
    # The subject one hop back and the label followed from it: "who is my advisor?" asks that card itself.
    via: tuple[Subject, Label] | None = None

    @property
    def person(self) -> bool:
        return any(e.user_id is not None or e.kind == EntityKind.PERSON for e in self.binding.entities)


@dataclass
class Unbound:
    """A name or relation word the question uses that binds nothing here ("Bob", 表哥)."""

    name: str


# The asker as the one who did it ("when did I visit Wei?", 我什麼時候去看 Wei): the
# subject, whoever else the question names.
_I_DID = re.compile(r"\bi\b|我(?![们們的哋])", re.IGNORECASE)


def subject_of(text: str, scope_ids: list[int], user, as_of) -> Subject | Unbound | None:
    return (_through_possessive(text, scope_ids, user, as_of) or _unbound_relation(text, scope_ids, user)
            or (me(user, scope_ids) if _I_DID.search(text) else None)
            or named(text, scope_ids, user) or (me(user, scope_ids) if speaks_of_self(text) else None))


def we_mean_me(text: str, scope_ids: list[int], user) -> Subject | None:
    """"Where do we live?": the asker, one of "we"."""
    return me(user, scope_ids) if _WE.search(text) else None


def me(user, scope_ids) -> Subject:
    return Subject("I", entity_bind(name="me", scope_ids=scope_ids, speaker=user), mine=True)


def named(text: str, scope_ids: list[int], user) -> Subject | None:
    """The longest run of the question's words that binds (names and aliases in the
    scopes, members by name, members by a relation word from the asker's side); a
    run that names a label ("car", "dog") is the label, not a subject."""
    runs = sorted(_binding_runs(name_runs(text), scope_ids), key=lambda run: (-len(run), run))
    for run in [*_relation_words(text), *runs]:
        if normalize(run) in {"i", "me", "my", "我"} or (label_lookup(run) and run not in RELATION_WORDS):
            continue
        binding = entity_bind(name=run, scope_ids=scope_ids, speaker=user, suggest=False)
        # A name several entities answer to is still what the question is about: it is answered
        # over each of them (cards.answers.answer), never as a name nothing answers to.
        if binding.status != "unknown":
            return Subject(_as_said(text, run), binding, spoken=_as_said(text, run))
    return None


def _unbound_relation(text: str, scope_ids: list[int], user) -> Unbound | None:
    """A relation word of the asker's that names no member and no card ("my cousin", 表哥)."""
    for word in _relation_words(text):
        if entity_bind(name=word, scope_ids=scope_ids, speaker=user, suggest=False).status == "unknown":
            return Unbound(_as_said(text, word))
    return None


def _binding_runs(runs: list[str], scope_ids: list[int]) -> list[str]:
    """Of a question's word runs, those that are a name here (an entity's, an alias, a
    member's display name or username, or an alias a member has where they are one), found
    in one statement: the binder is then asked only about them, not about every run of
    words. Who the members are is the binder's rule (scopes.relations.members_of)."""
    if not runs:
        return []
    members_sql, members_params = members_of(scope_ids).query.sql_with_params()
    fellow_sql, fellow_params = fellow_scope_ids(scope_ids).query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(
            f"""SELECT e.name_norm FROM cards_entity e WHERE e.name_norm = ANY(%s) AND e.scope_id = ANY(%s)
               UNION SELECT a.name_norm FROM cards_alias a
                WHERE a.name_norm = ANY(%s) AND (a.scope_id = ANY(%s) OR a.scope_id IN ({fellow_sql}))
               UNION SELECT r.run FROM unnest(%s::text[]) AS r(run)
                 JOIN scopes_user u ON lower(u.display_name) = r.run OR lower(u.username) = r.run
                   OR u.id IN (SELECT e.user_id FROM cards_entity e WHERE e.name_norm = r.run AND e.user_id IS NOT NULL)
                WHERE u.id IN ({members_sql})""",
            [runs, list(scope_ids), runs, list(scope_ids), *fellow_params, runs, *members_params])
        return [row[0] for row in cursor.fetchall()]


def _as_said(text: str, run: str) -> str:
    """The words of `text` a normalized run came from ("Kai" for "kai")."""
    match = re.search(re.escape(run), text, re.IGNORECASE)
    return match.group(0) if match else run


# The relation words as one pattern, longest first (one search, not one per word: there are
# about 300 with the compounds); Chinese ones are found as they stand, with no word boundaries.
_CHINESE_RELATION_WORDS = tuple(word for word in RELATION_WORDS if CJK.search(word))
_RELATION_PATTERN = re.compile(r"\b(?:%s)\b" % "|".join(re.escape(word) for word in RELATION_WORDS
                                                        if not CJK.search(word)))


def _relation_words(text: str) -> list[str]:
    """Relation words the question uses ("Mom", 媽媽, "wife"), longest first, none inside another."""
    folded, found = normalize(text), []
    used = {match.group(0) for match in _RELATION_PATTERN.finditer(folded)}
    used.update(word for word in _CHINESE_RELATION_WORDS if word in folded)
    for word in RELATION_WORDS:
        if word in used and not any(word in longer for longer in found):
            found.append(word)
    return found


# --- possessives -------------------------------------------------------------------------------

def _possessives(text: str):
    """(the owner's words — None for the asker — and what is theirs, longest first) for
    each possessive: "my thesis advisor", "Kai's school", 我的导师, 我老闆, 小安的主管. The
    last possessive comes first: "my advisor's manager" is the manager, reached through both."""
    for match in reversed(list(re.finditer(r"'s\s+([^\W_]+)(?:\s+([^\W_]+))?", text))):
        before = re.findall(r"[^\W_][\w'-]*", text[:match.start()])
        owners = [" ".join(before[-n:]) for n in range(min(4, len(before)), 0, -1)]
        yield owners, [w for w in (" ".join(filter(None, match.groups())), match.group(1)) if w]
    for match in reversed(list(re.finditer(r"的", text))):
        run = re.search(r"[\u3400-\u9fff\w-]{1,8}\s*$", text[:match.start()])
        if run is None:
            continue
        owner = run.group(0).strip()
        yield (None if owner == "我" else [owner[-n:] for n in range(len(owner), 0, -1)]), _chinese_whats(
            text[match.end():])
    for match in re.finditer(r"我(?![们們的哋])", text):
        # Bare 我X: X is a relation or a label's word (我老闆, 我導師), never a verb's object by its words.
        yield None, [what for what in _chinese_whats(text[match.end():])
                     if relation_key(what) is not None or _hop_label(what) is not None]
    for match in re.finditer(r"\b(?:my|our)\s+([^\W_]+)(?:\s+([^\W_]+))?", text, re.IGNORECASE):
        whats = [w for w in (" ".join(filter(None, match.groups())), match.group(1)) if w]
        # A relation said in more words than these ("my mother-in-law", "my mother in law") first,
        # so that it is never read as the "mother" it starts with.
        yield None, [*(w for w in _relation_at(text[match.start(1):]) if w not in whats), *whats]


def _relation_at(after: str) -> list[str]:
    """The longest relation word (plain or compound) `after` starts with, as a list of none or one."""
    folded = after.casefold()
    return [after[:len(w)] for w in RELATION_WORDS
            if folded.startswith(w) and not folded[len(w):len(w) + 1].isalnum()][:1]


def _chinese_whats(after: str) -> list[str]:
    """What may follow a Chinese possessive: up to six characters, or up to three Latin
    words (Kai 的 judo club)."""
    after = after.lstrip()
    latin = re.match(r"[A-Za-z][\w'-]*(?:\s+[A-Za-z][\w'-]*){0,2}", after)
    if latin:
        words = latin.group(0).split()
        return [" ".join(words[:n]) for n in range(len(words), 0, -1)]
    return [after[:n] for n in range(min(6, len(after)), 0, -1) if CJK.fullmatch(after[:n])]


def _has_possessive(text: str) -> bool:
    return bool(re.search(r"\b(my|our)\s|'s\s|的|我(?![们們的哋])", text, re.IGNORECASE))


def _through_possessive(text: str, scope_ids: list[int], user, as_of, depth: int = 0) -> Subject | None:
    for owners, whats in _possessives(text):
        owner = me(user, scope_ids) if owners is None else _owner(owners, scope_ids, user, as_of, depth)
        if owner is None:
            continue
        # Each way of reaching over every reading of what follows, the surest first: a member by a
        # relation word, a label's card, then a relation card by its words.
        for way in (_member, _by_label, _by_words):
            for what in whats:
                reached = way(owner, what, scope_ids, user, as_of)
                if reached is not None:
                    reached.asked = reached.spoken = _phrase(text, owner, what)
                    return reached
        if owner.hops:
            # "my boss's home address": the boss, reached; what follows is the question's label.
            return owner
    return None


def _owner(owners: list[str], scope_ids, user, as_of, depth: int) -> Subject | None:
    for words in owners:
        if depth < MAX_HOPS and _has_possessive(words):
            found = _through_possessive(words, scope_ids, user, as_of, depth + 1)
            if found is not None:
                return found
        found = named(words, scope_ids, user)
        if found is not None:
            return found
    return None


def _phrase(text: str, owner: Subject, what: str) -> str:
    """The words of `text` that name the reached subject ("my advisor", "Kai's manager", 我的导师)."""
    at = text.find(what)
    start = owner.spoken and text.rfind(owner.spoken, 0, at)
    if not owner.spoken or start < 0:
        start = max(text.rfind("my ", 0, at), text.rfind("My ", 0, at), text.rfind("our ", 0, at),
                    text.rfind("我", 0, at))
    return text[start:at + len(what)] if start >= 0 else what


def _member(owner: Subject, what: str, scope_ids, user, as_of) -> Subject | None:
    """A member named by a relation word from the asker's own side ("my wife", 我兒子)."""
    if owner.mine and relation_key(what) is not None:
        member = entity_bind(name=what, scope_ids=scope_ids, speaker=user, suggest=False)
        if member.status == "bound":
            return Subject(what, member, spoken=what)
    return None


def _by_label(owner: Subject, what: str, scope_ids, user, as_of) -> Subject | None:
    """The entity on the owner's card of the label `what` names ("my advisor", "my car")."""
    label = _hop_label(what)
    return _follow(owner, label, scope_ids, as_of) if label is not None else None


def _by_words(owner: Subject, what: str, scope_ids, user, as_of) -> Subject | None:
    """The one entity on the owner's relation cards whose words hold all of `what`'s
    ("my judo club"); never for words that name a label or run past a possessive."""
    if "的" in what or labels_named(what) or any(len(w) < 2 for w in query_terms(what)):
        return None
    return _follow_by_words(owner, what, scope_ids, as_of)


def _hop_label(word: str) -> Label | None:
    """The label a relation or thing word names ("advisor", "wife" → partner, "car", 导师)."""
    key = relation_key(word)
    if key in _RELATION_LABELS:
        return registry().get(_RELATION_LABELS[key])
    # The whole word names it: "advisor", never the "advisor" inside "advisor teach"; and a
    # label whose cards name someone or something (an object, or a car or pet by name).
    label = label_lookup(simplified(word)) or label_lookup(singular(word))
    hops = label is not None and label.kind == CardKind.STATE and (label.takes_object or label.key in _NAMING)
    return label if hops else None


def _follow(owner: Subject, label: Label, scope_ids: list[int], as_of) -> Subject | None:
    """The entity `owner`'s card of `label` names (its object, else its value as a
    name that binds): the next subject, the card its hop."""
    if len(owner.hops) >= MAX_HOPS:
        return None
    # Its recorded card (never a guess, nor someone's dispute of a member's own), the latest holding.
    card = (Card.objects.in_scopes(scope_ids)
            .filter(valid_q(as_of or timezone.now()), subject_id__in=owner.binding.entity_ids, label=label,
                    disputes__isnull=True).exclude(tag=Tag.HYPOTHESIS)
            .order_by("-effective_at", "-id").values("id", "object_id", "value").first())
    return _hopped(owner, label, card, card["id"], scope_ids) if card else None


def _follow_by_words(owner: Subject, what: str, scope_ids: list[int], as_of) -> Subject | None:
    """The one entity on `owner`'s relation cards whose words hold all of `what`'s."""
    words = list(query_terms(what))
    if not words or len(owner.hops) >= MAX_HOPS:
        return None
    cards = list(Card.objects.in_scopes(scope_ids).filter(valid_q(as_of or timezone.now()),
                                                          subject_id__in=owner.binding.entity_ids,
                                                          object__isnull=False, lexemes__contains=words)
                 .values("id", "object_id", "value", "label_id").order_by("id")[:3])
    if len({c["object_id"] for c in cards}) != 1:
        return None
    label = next(l for l in registry().values() if l.pk == cards[0]["label_id"])
    return _hopped(owner, label, cards[0], cards[0]["id"], scope_ids)


def _hopped(owner: Subject, label: Label, card: dict | None, card_id: int, scope_ids) -> Subject | None:
    if card is None:
        return None
    if card["object_id"] is not None:
        binding = entity_binding(card["object_id"], scope_ids)
    else:
        binding = entity_bind(name=card["value"], scope_ids=scope_ids, suggest=False)
    if binding is None or binding.status != "bound":
        return None
    return Subject("", binding, hops=[*owner.hops, card_id], hop_labels={*owner.hop_labels, label.key},
                   via=(owner, label))


# --- names nothing here answers to -------------------------------------------------------------

_QUESTION_WORDS = frozenset("what what's whats where where's who who's whom whose which when when's how why is are "
                            "was were do does did can could will would should has have had tell remind i i'm".split())
_FUNCTION = frozenset("a an the this that these those my our your his her their its".split())


def unbound_name(text: str, label_names: set[str]) -> str | None:
    """A name the question uses that binds nothing here: capitalized words past the
    first ("Bob"), "the <thing>" ("the dishwasher"), Latin words in a Chinese
    question, or the Chinese words before the label's ("洗衣機" in 洗衣機需要什麼)."""
    if CJK.search(text):
        latin = re.findall(r"[A-Za-z][\w.-]*(?:\s+[A-Z][\w.-]*)*", text)
        if latin:
            return latin[0]
        simple = simplified(normalize(text))
        at = min((simple.find(n) for n in label_names if CJK.search(n) and n in simple), default=-1)
        before = re.split(r"[的是有在要会會]", re.sub(r"^(请问|你知道)", "", simple[:at]))[0].strip() if at > 0 else ""
        return before if len(before) >= 2 and not re.search(r"[什哪谁几多怎我你他她]", before) else None
    words = re.findall(r"[^\W_][\w'-]*", text)
    names = [w.removesuffix("'s") for w in words[1:] if w[:1].isupper() and w.casefold() not in _QUESTION_WORDS]
    if names:
        return " ".join(names[:2])
    lowered = [w.casefold() for w in words]
    for i, word in enumerate(lowered[:-1]):
        thing = lowered[i + 1].removesuffix("'s")
        if word == "the" and thing not in label_names and thing not in _FUNCTION and not label_lookup(thing):
            return f"the {thing}"
    return None
