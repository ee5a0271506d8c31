"""English pattern rules, most specific first: the first rule that matches a clause wins.

Boundaries ("don't call me before 9", "keep my address private") become
knowledge cards under `note` with tag `boundary`: the registry has no boundary
label, a boundary is not an attribute with one current value (so not a state),
and `note` ("something to keep in mind") is what a boundary is to the assistant.
"""

from __future__ import annotations

import re

from django.core.exceptions import ObjectDoesNotExist

from .rules import CAPITALISED, NAME, Draft, Rule, clause_when, clean, items, rule, single

_I_AM = r"\bI(?:['’]m|\s+am)\s+"
_DONT = r"(?:don['’]t|do\s+not)"
_JOBS = (r"teacher|nurse|doctor|physician|surgeon|engineer|developer|programmer|designer|lawyer|attorney|accountant|"
         r"chef|cook|writer|journalist|architect|scientist|researcher|professor|lecturer|student|manager|consultant|"
         r"analyst|pharmacist|dentist|artist|musician|photographer|pilot|farmer|electrician|plumber|mechanic|"
         r"librarian|translator|editor|therapist|psychologist|firefighter|paramedic|barista|waiter|waitress|"
         r"cashier|salesperson|entrepreneur|founder|director|administrator|technician|economist|veterinarian|vet")
# "I love you", "I hate it when…": about the conversation, not a lasting taste.
_NOT_A_THING = r"(?!(?:it|this|that|you|him|her|them|when|how|what)\b)"
_MY_RELATIONS = {"mother": "parent", "mom": "parent", "mum": "parent", "father": "parent", "dad": "parent",
                 "brother": "sibling", "sister": "sibling", "best friend": "friend", "friend": "friend"}


def _state(label: str, value: str = "", **extra) -> Draft:
    return Draft(kind="state", label=label, value=value, **extra)


def _event(label: str, m: re.Match[str], value: str) -> Draft:
    when = clause_when(m)
    return Draft(kind="event", label=label, value=single(value, when) if value else "", when=when)


def _value_of(label: str, *, many: bool = False, tag: str = "fact"):
    def build(m: re.Match[str]) -> list[Draft]:
        values = items(m["v"]) if many else [single(m["v"])]
        return [_state(label, value, tag=tag) for value in values if value]
    return build


def _related(label: str, *, keep_word: bool = False):
    def build(m: re.Match[str]) -> list[Draft]:
        return [_state(label, m["rel"].lower() if keep_word else "", object=m["name"])]
    return build


def _my_attribute(m: re.Match[str]) -> list[Draft]:
    """"my X is Y" for any registered state label X (or a synonym of one)."""
    from cards.labels import label_lookup

    name = re.sub(r"^(?:new|current|present)\s+", "", m["x"].strip(), flags=re.IGNORECASE)
    try:
        # A lookup, not label_resolve: "my flight is at 7" is no label, and no suggestions are wanted.
        label = label_lookup(name)
    except ObjectDoesNotExist:
        return []
    if label is None or label.kind != "state":
        return []
    value = single(m["v"])
    if not value:
        return []
    if label.takes_object:
        return [_state(label.key, object=value)]
    return [_state(label.key, value)]


def _moved(m: re.Match[str]) -> list[Draft]:
    when = clause_when(m)
    city = single(m["v"], when)
    return [_state("city", city, when=when), Draft(kind="event", label="move", value=city, when=when)]


def _job(m: re.Match[str]) -> list[Draft]:
    found = [_state("job_title", clean(m["v"]))]
    if m["org"]:
        found.append(_state("employer", single(m["org"])))
    return found


def _boundary(m: re.Match[str]) -> list[Draft]:
    said = clean(m.string)
    return [Draft(kind="knowledge", label="note", value=said, text=said, tag="boundary")]


def _wedding(m: re.Match[str]) -> list[Draft]:
    return [Draft(kind="event", label="wedding", value=f"{m['name']}'s wedding", when=clause_when(m))]


def _met(m: re.Match[str]) -> list[Draft]:
    return [_event("meeting", m, m["v"])]


def _simple_event(label: str):
    return lambda m: [_event(label, m, m["v"])]


REMEMBER = re.compile(r"^(?:please\s+)?(?:remember|keep\s+in\s+mind|don['’]t\s+forget)(?:\s+that)?[\s,:]+(?P<rest>.+)$",
                      re.IGNORECASE)

RULES: list[Rule] = [
    rule("birthday_is", r"\b(?:my\s+birthday\s+is|I\s+was\s+born\s+on)\s+(?:on\s+)?(?P<v>.+)",
         _value_of("birthday")),
    rule("email_is", r"\bmy\s+e-?mail(?:\s+address)?\s+is\s+(?P<v>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)",
         _value_of("email")),
    rule("phone_is", r"\bmy\s+(?:phone|mobile|cell)(?:\s+number)?\s+is\s+(?P<v>\+?\d[\d\s().-]{5,}\d)",
         _value_of("phone")),
    rule("partner_is", r"\bmy\s+(?P<rel>wife|husband|partner|spouse|boyfriend|girlfriend)(?:['’]s\s+name)?\s+is\s+"
         rf"(?:called\s+|named\s+)?(?P<name>{NAME})", _related("partner")),
    rule("child_is", r"\bmy\s+(?P<rel>son|daughter)(?:['’]s\s+name\s+is|\s+is\s+(?:called|named)|\s+is|,)?\s+"
         rf"(?P<name>{NAME})\b", _related("child", keep_word=True)),
    rule("relation_is", rf"\bmy\s+(?P<rel>{'|'.join(_MY_RELATIONS)})(?:['’]s\s+name)?\s+is\s+(?:called\s+|named\s+)?"
         rf"(?P<name>{NAME})\b", lambda m: [_state(_MY_RELATIONS[m["rel"].lower()], m["rel"].lower(),
                                                   object=m["name"])]),
    rule("manager_is", rf"\bmy\s+(?:line\s+)?(?:manager|boss|supervisor)\s+is\s+(?P<name>{NAME})\b",
         _related("manager")),
    rule("my_attribute_is", r"\bmy\s+(?P<x>[a-z][a-z -]{1,30}?)\s+is\s+(?P<v>.+)", _my_attribute),
    rule("lives_in", rf"\bI(?:\s+live|\s+am\s+living|['’]m\s+living|\s+reside)\s+in\s+(?P<v>{CAPITALISED}.+)",
         _value_of("city")),
    rule("moved_to", r"\b(?:I|we)\s+(?:just\s+|recently\s+|have\s+|['’]ve\s+)?moved\s+to\s+"
         rf"(?P<v>{CAPITALISED}.+)", _moved),
    rule("works_at", rf"\bI(?:\s+work|\s+am\s+working|['’]m\s+working)\s+(?:at|for)\s+(?P<v>{CAPITALISED}.+)",
         _value_of("employer")),
    rule("works_as", r"\bI\s+work\s+as\s+(?:an?\s+)?(?P<v>.+)", _value_of("job_title")),
    rule("diet", rf"{_I_AM}(?:an?\s+)?(?:strict\s+)?(?P<v>vegetarian|vegan|pescatarian|pescetarian)\b",
         lambda m: [_state("diet", m["v"].lower())]),
    rule("religion", rf"{_I_AM}(?:an?\s+)?(?:practising\s+|practicing\s+|devout\s+)?(?P<v>Buddhist|Christian|"
         r"Catholic|Protestant|Muslim|Jewish|Hindu|Sikh|Taoist|atheist|agnostic)\b", _value_of("religion")),
    rule("job_i_am", rf"{_I_AM}an?\s+(?P<v>(?:[a-z-]+\s+){{0,3}}?(?:{_JOBS}))\b"
         rf"(?:\s+(?:at|for)\s+(?P<org>{CAPITALISED}.+))?", _job),
    rule("allergic_to", rf"{_I_AM}(?:very\s+|severely\s+|mildly\s+)?allergic\s+to\s+(?P<v>.+)",
         _value_of("allergy", many=True)),
    rule("allergy_have", r"\bI\s+have\s+(?:an?\s+|severe\s+)*(?!(?:an?|severe)\s)(?P<v>[\w -]{2,30}?)"
         r"\s+allerg(?:y|ies)\b",
         _value_of("allergy", many=True)),
    rule("diagnosed_with", r"\bI\s+(?:was|have\s+been|['’]ve\s+been|got)\s+diagnosed\s+with\s+(?P<v>.+)",
         _value_of("health_condition")),
    rule("speaks", r"\bI\s+(?:can\s+)?speak\s+(?P<v>(?-i:[A-Z]).+)", _value_of("language", many=True)),
    rule("dislikes", rf"\bI\s+(?:really\s+)?(?:hate|dislike|detest|can['’]t\s+stand|cannot\s+stand|{_DONT}\s+like)\s+"
         rf"{_NOT_A_THING}(?P<v>.+)", _value_of("dislikes", many=True, tag="preference")),
    rule("likes", r"\bI\s+(?:really\s+|absolutely\s+|also\s+)?(?:like|love|enjoy|adore)\s+"
         rf"{_NOT_A_THING}(?P<v>.+)", _value_of("likes", many=True, tag="preference")),
    rule("boundary_dont", rf"^(?:please\s+)?(?:{_DONT}|never)\s+(?!(?:worry|mind|forget|know)\b)\w", _boundary),
    rule("boundary_private", r"\bkeep\s+.+?\s+(?:private|secret|confidential|between\s+us)\b", _boundary),
    rule("wedding", rf"\b(?:we|I)\s+(?:went\s+to|attended)\s+(?P<name>{NAME}|my\s+\w+)['’]s\s+wedding\b", _wedding),
    rule("trip_to", r"\b(?:I|we)\s+(?:travell?ed|flew|went\s+on\s+a\s+trip|took\s+a\s+trip)\s+to\s+"
         rf"(?P<v>{CAPITALISED}.+)", _simple_event("trip")),
    # "went to" is everyday talk; only a dated one is worth a card.
    rule("went_to", r"\b(?:I|we)\s+went\s+to\s+(?!(?:bed|sleep)\b)(?P<v>.+)",
         lambda m: [_event("visit", m, m["v"])] if clause_when(m) else []),
    rule("visited", r"\b(?:I|we)\s+visited\s+(?P<v>.+)", _simple_event("visit")),
    rule("met", rf"\bI\s+met\s+(?:with\s+)?(?P<v>(?:{NAME}|my\s+\w+).*)", _met),
    rule("bought", r"\bI\s+(?:just\s+)?(?:bought|purchased)\s+(?P<v>.+)", _simple_event("purchase")),
]
