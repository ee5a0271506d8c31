"""English pattern rules, most specific first: the first rule that matches a clause wins.

Values stop where the thing named stops (rules.single / rules.items: a comma, a
conjunction, a relative clause, "as a …", "more than …"); a value that cannot
stand alone (a pronoun, a function word, a fragment) is never proposed
(patterns.keep). A clause may carry an event beside a state ("We moved to Kyoto
last Friday": the move and the city; "My daughter Mia started piano lessons
yesterday": the child and the lessons). Part of speech is decided by these rules
and word lists, not a tagger: the shapes people use for facts about themselves
are few, and a rule can be read and tested.

Boundaries ("don't call me before 9", "keep my address private") become
knowledge cards under `note` with tag `boundary`: the registry has no boundary
label, a boundary is not an attribute with one current value (so not a state),
and `note` ("something to keep in mind") is what a boundary is to the assistant.
"""

from __future__ import annotations

import re

from django.core.exceptions import ObjectDoesNotExist

from .rules import (CAPITALISED, NAME, Draft, Rule, clause_when, clean, items, rule, said_as, said_whole,
                    single)

_I_AM = r"\bI(?:['’]m|\s+am)\s+"
_DONT = r"(?:don['’]t|do\s+not)"
_JOBS = (r"teacher|nurse|doctor|physician|surgeon|engineer|developer|programmer|designer|lawyer|attorney|accountant|"
         r"chef|cook|writer|journalist|architect|scientist|researcher|professor|lecturer|student|manager|consultant|"
         r"analyst|pharmacist|dentist|artist|musician|photographer|pilot|farmer|electrician|plumber|mechanic|"
         r"librarian|translator|editor|therapist|psychologist|firefighter|paramedic|barista|waiter|waitress|"
         r"cashier|salesperson|entrepreneur|founder|director|administrator|technician|economist|veterinarian|vet|"
         r"postdoc|intern|teller|principal|lead|officer|clerk|receptionist|coordinator|supervisor|assistant|"
         r"head\s+of\s+[a-z]+")
_JOB = rf"(?:[a-z-]+\s+){{0,3}}?(?:{_JOBS})"
# "I love you", "I hate it when…": about the conversation, not a lasting taste.
_NOT_A_THING = r"(?!(?:it|this|that|you|him|her|them|when|how|what|to)\b)"
_MY_RELATIONS = {"mother": "parent", "mom": "parent", "mum": "parent", "father": "parent", "dad": "parent",
                 "brother": "sibling", "sister": "sibling", "best friend": "friend", "friend": "friend"}
_WHO = rf"(?P<who>I|we|(?-i:(?!(?:He|She|They|It|You|This|That|These|Those|There)\b)[A-Z][\w-]+))"
# What a person reached, when the sentence says the day ("passed the driving test this morning").
_MILESTONE = (r"(?:finally\s+|just\s+)?(?P<ev>(?:passed(?!\s+(?:out|away|by|through|on)\b)|won|shipped|closed|"
              r"defended|finished|adopted|started|lost|"
              r"got\s+(?:his|her|my|their|our|a|the)|(?:got\s+|was\s+)?promoted\s+to)\b.+)")
_EVENT_HEADS = {"recital": "outing", "concert": "outing", "game": "outing", "match": "outing", "show": "outing",
                "meetup": "outing", "festival": "outing", "repair": "appointment", "servicing": "appointment",
                "inspection": "appointment", "surgery": "appointment", "appointment": "appointment",
                "check-up": "appointment", "checkup": "appointment", "party": "party", "wedding": "wedding",
                "lunch": "meal", "dinner": "meal", "breakfast": "meal"}
_HEAD = "|".join(_EVENT_HEADS)


def _state(label: str, value: str = "", **extra) -> Draft:
    return Draft(kind="state", label=label, value=value, **extra)


def _who(m: re.Match[str]) -> str:
    who = m["who"] if "who" in m.re.groupindex and m["who"] else "I"
    return "me" if who.lower() in ("i", "we", "my", "our") else who


def _event(label: str, m: re.Match[str], value: str, *, cut=single, subject: str = "me") -> Draft:
    when = clause_when(m)
    return Draft(kind="event", label=label, value=cut(value, when) if value else "", when=when, subject=subject)


def _value_of(label: str, *, many: bool = False, tag: str = "fact"):
    def build(m: re.Match[str]) -> list[Draft]:
        values = items(m["v"]) if many else [single(m["v"])]
        return [_state(label, value, tag=tag, subject=_who(m)) for value in values if value]
    return build


def _milestone_of(subject: str, rest: str, m: re.Match[str]) -> list[Draft]:
    """The event beside a person's name: "… Mia started piano lessons yesterday"."""
    found = re.match(_MILESTONE, rest.strip(), re.IGNORECASE)
    when = clause_when(m)
    if not found or not when or re.match(r"started\s+(?:at|in)\s", found["ev"], re.IGNORECASE):
        return []  # "Tiago started at Escola Gil Vicente": a school or a job, not a milestone
    value = re.sub(r"^(?:got|was)\s+(?=promoted\b)", "", single(found["ev"], when), flags=re.IGNORECASE)
    event = Draft(kind="event", label="milestone", value=value, when=when, subject=subject)
    if title := re.match(r"promoted\s+to\s+(?P<t>.+)", value, re.IGNORECASE):
        return [Draft(kind="state", label="job_title", value=single(title["t"]), when=when, subject=subject), event]
    return [event]


def _related(label: str, *, keep_word: bool = False):
    def build(m: re.Match[str]) -> list[Draft]:
        rest = m.string[m.end():]
        return [_state(label, m["rel"].lower() if keep_word else "", object=m["name"]),
                *_milestone_of(m["name"], rest, m)]
    return build


_NOT_A_VALUE = re.compile(
    r"(?:not|no|so|very|really|too|always|never|still|also|just|quite|pretty|super|getting|going|being|away|off|"
    r"out|sick|ill|busy|late|down|up|broken|dead|gone|fine|ok|okay|great|good|bad|awful|terrible|nice|lovely|"
    r"amazing|here|there|back|on|in|at|to|for|with|a\s+\w+er\b)\b", re.IGNORECASE)


def _attribute_label(name: str):
    from cards.labels import label_lookup

    try:
        # A lookup, not label_resolve: "my flight is at 7" is no label, and no suggestions are wanted.
        label = label_lookup(name)
    except ObjectDoesNotExist:
        return None
    return label if label is not None and label.kind == "state" else None


def _address(value: str) -> str:
    """An address keeps its commas ("14 Elm Road, Ponsonby") up to a clause or a purpose ("…, for the cards")."""
    kept = re.split(r"\s*,\s*(?=(?-i:[a-z]))|\s+(?:for|so|update|in\s+case)\s", clean(value), maxsplit=1)[0]
    return clean(kept)


def _my_attribute(m: re.Match[str]) -> list[Draft]:
    """"my X is Y" (or "Rohan's X is Y", "the school's X is Y") for any registered state label X or a synonym."""
    name = re.sub(r"^(?:new|current|present|home|work)\s+", "", m["x"].strip(), flags=re.IGNORECASE)
    subject = m["owner"].strip()
    subject = "me" if subject.lower() in ("my", "our") else re.sub(r"['’]s$", "", subject)
    if name.lower() in ("job", "new job", "work") and re.match(r"at\s", m["v"], re.IGNORECASE):
        return [_state("employer", single(m["v"][3:]), subject=subject)]
    label = _attribute_label(name)
    if label is None:
        return []
    said = re.sub(r"^(?:called|named)\s+", "", m["v"].strip(), flags=re.IGNORECASE)
    value = _address(said) if label.key == "address" else single(said)
    # "my manager is not happy", "my phone is dead": a state of it, not its value.
    if not value or _NOT_A_VALUE.match(value) or (label.takes_object and not re.match(r"(?-i:[A-Z])", value)):
        return []
    if label.takes_object:
        return [_state(label.key, object=value, subject=subject)]
    return [_state(label.key, value, subject=subject)]


def _moved(m: re.Match[str]) -> list[Draft]:
    when = clause_when(m)
    city = single(m["v"], when)
    move = Draft(kind="event", label="move", value=city, when=when)
    if m["place"]:  # "moved to a place in Ponsonby": a new home there, not a new city
        return [move]
    return [_state("city", city, when=when), move]


def _job(m: re.Match[str]) -> list[Draft]:
    # "…, started on Monday": the title from that day.
    when = clause_when(m) if re.search(r"\bstarted\b", m.string, re.IGNORECASE) else None
    found = [_state("job_title", clean(m["v"]), subject=_who(m), when=when)]
    if "org" in m.re.groupindex and m["org"]:
        found.append(_state("employer", single(m["org"]), subject=_who(m)))
    return found


def _works_at(m: re.Match[str]) -> list[Draft]:
    """"I work at Toyota as a mechanic": the employer, and the job title apart."""
    when = clause_when(m) if m["started"] else None
    said = clean(m["v"], when)
    found = [_state("employer", single(said), when=when)]
    if title := re.search(r"\sas\s+(?:an?|the)\s+(?P<t>.+)", said, re.IGNORECASE):
        found.append(_state("job_title", single(title["t"]), when=when))
    return found


def _works_as(m: re.Match[str]) -> list[Draft]:
    """"I work as a nurse at Harborview": the job title, and the employer apart."""
    said = clean(m["v"])
    found = [_state("job_title", single(re.split(r"\s+(?:at|for)\s+", said, maxsplit=1)[0]))]
    if org := re.search(r"\s(?:at|for)\s+(?P<o>(?-i:[A-Z]).+)", said):
        found.append(_state("employer", single(org["o"])))
    return found


def _boundary(m: re.Match[str]) -> list[Draft]:
    """The boundary as said, up to where the reason starts ("…, nobody turns up"); "even …" belongs to it."""
    parts = re.split(r"\s*,\s*", said_as(m.string))
    kept = [parts[0]]
    for part in parts[1:]:
        if not re.match(r"even\b", part, re.IGNORECASE):
            break
        kept.append(part)
    said = said_as(", ".join(kept))
    return [Draft(kind="knowledge", label="note", value=said, text=said, tag="boundary")]


def _knowledge(m: re.Match[str]) -> list[Draft]:
    """"Our principle for incidents: …", "Design note: …", "Definition: …" — what follows, up to an aside."""
    head = m["kind"].lower()
    label = ("definition" if "definition" in head else "design" if "design" in head else "principle")
    said = said_as(re.split(r",\s+(?=(?:I|even|no\s+matter|so|because|which|it['’]s)\b)", m["v"], maxsplit=1)[0])
    return [Draft(kind="knowledge", label=label, value=said, text=said)]


def _reference(m: re.Match[str]) -> list[Draft]:
    said = said_as(re.split(r",\s+", m.string, maxsplit=1)[0])
    return [Draft(kind="knowledge", label="reference", value=said, text=said)]


def _wedding(m: re.Match[str]) -> list[Draft]:
    name = re.sub(r"^my\s+[a-z]+\s+(?=(?-i:[A-Z]))", "", m["name"])
    return [Draft(kind="event", label="wedding", value=f"{name}'s wedding", when=clause_when(m))]


def _met(m: re.Match[str]) -> list[Draft]:
    return [_event("meeting", m, m["v"], cut=lambda v, w: single(re.split(r"\s+(?:from|in|at)\s", clean(v, w))[0]))]


def _went(m: re.Match[str]) -> list[Draft]:
    """"went to" is everyday talk; only a dated one is worth a card, a party, a wedding or a meetup by its name."""
    when = clause_when(m)
    if not when:
        return []
    value = re.sub(r"^(?:my\s+[a-z]+\s+)(?=(?-i:[A-Z]))", "", single(m["v"], when))
    head = re.search(rf"\b({_HEAD})\b", value, re.IGNORECASE)
    label = _EVENT_HEADS[head[1].lower()] if head and _EVENT_HEADS[head[1].lower()] != "meal" else "visit"
    return [Draft(kind="event", label=label, value=value, when=when)]


def _visited(m: re.Match[str]) -> list[Draft]:
    when = clause_when(m)
    value = single(m["v"], when)
    if value.lower().startswith("my "):  # "my grandmother in Braga": the person visited
        value = re.split(r"\s+(?:in|at)\s", value, maxsplit=1)[0]
    return [Draft(kind="event", label="visit", value=value, when=when)]


def _purchase(m: re.Match[str]) -> list[Draft]:
    when = clause_when(m)
    value = re.split(r"\s+(?:for|from|at\s+the|on\s+the\s+\d+\w*|on\s+sale)(?!\w)", single(m["v"], when), maxsplit=1)[0]
    value = re.sub(r"^(?:us|me|him|her|them|myself)\s+(?=\w)", "", value, flags=re.IGNORECASE)
    if re.match(r"(?:remind|make|made|look|looks|is|are|was|were)\b", value, re.IGNORECASE):
        return []
    return [Draft(kind="event", label="purchase", value=clean(value), when=when, subject=_who(m))]


def _trip(m: re.Match[str]) -> list[Draft]:
    """"Kamau is flying to Kigali for the bank meeting": the place; a trip still to come only with its day."""
    if m["soon"] and not _coming(clause_when(m)):
        return []
    return [_event("trip", m, m["v"], subject=_who(m), cut=lambda v, w: single(re.split(r"\s+for\s", clean(v, w))[0]))]


def _needs_when(label: str, *, cut=single):
    def build(m: re.Match[str]) -> list[Draft]:
        when = clause_when(m)
        if not when:
            return []
        return [Draft(kind="event", label=label, value=cut(m["v"], when), when=when, subject=_who(m))]
    return build


def _decision(m: re.Match[str]) -> list[Draft]:
    when = m["w"].strip() if m["w"] else None
    said = clean(re.split(r"\s*[,;]\s*", m["v"], maxsplit=1)[0])
    return [Draft(kind="event", label="decision", value=said, when=when)]


def _coming(when: str | None) -> bool:
    """A day said for something still to come that resolves to that day: "tomorrow", "next Friday" — not
    "on Friday", which the resolver reads as the last one."""
    return bool(when) and not re.match(r"on\s", when, re.IGNORECASE)


def _scheduled(m: re.Match[str]) -> list[Draft]:
    """"The furnace repair is booked for tomorrow", "Layla's dance recital is tomorrow at 2"."""
    when = clause_when(m)
    if not _coming(when):
        return []
    label = _EVENT_HEADS[m["head"].lower()]
    value = clean(m["v"])
    if label == "meal":
        place = re.match(r"at\s+(?P<p>(?-i:[A-Z])[^,]*?)(?:\s+(?:on|at|this|next|tomorrow|tonight)\b|$)", m["rest"])
        if not place:
            return []
        value = clean(place["p"])
    return [Draft(kind="event", label=label, value=value, when=when)]


def _languages(m: re.Match[str]) -> list[Draft]:
    return [_state("language", v) for v in items(m["v"]) if re.search(r"(?-i:[A-Z])", v)]


REMEMBER = re.compile(r"^(?:please\s+)?(?:remember|keep\s+in\s+mind|don['’]t\s+forget|reminder)(?:\s+that)?[\s,:]+"
                      r"(?P<rest>.+)$", re.IGNORECASE)

RULES: list[Rule] = [
    rule("birthday_is", r"\b(?:my\s+birthday\s+is|I\s+was\s+born\s+on)\s+(?:on\s+)?(?P<v>.+)",
         _value_of("birthday")),
    rule("email_is", r"\bmy\s+(?:new\s+|work\s+|personal\s+|home\s+)?e-?mail(?:\s+address)?(?:\s+for\s+[\w\s]{1,30}?)?"
         r"\s+is\s+(?P<v>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)", _value_of("email")),
    rule("phone_is", r"\bmy\s+(?:new\s+|work\s+|home\s+)?(?:(?:phone|mobile|cell)(?:\s+number)?|number)\s+is\s+"
         r"(?P<v>\+?\d[\d\s().-]{5,}\d)", _value_of("phone")),
    rule("partner_is", r"\bmy\s+(?P<rel>wife|husband|partner|spouse|boyfriend|girlfriend)(?:['’]s\s+name\s+is|\s+is"
         rf"(?:\s+called|\s+named)?|,)?\s+(?P<name>{NAME})\b", _related("partner")),
    rule("child_is", r"\b(?:my|our)\s+(?P<rel>son|daughter)(?:['’]s\s+name\s+is|\s+is\s+(?:called|named)|\s+is|,)?\s+"
         rf"(?P<name>{NAME})\b", _related("child", keep_word=True)),
    rule("relation_is", rf"\bmy\s+(?P<rel>{'|'.join(_MY_RELATIONS)})"
         rf"(?:['’]s\s+name\s+is|\s+is(?:\s+called|\s+named)?|,)?\s+(?P<name>{NAME})\b",
         lambda m: [_state(_MY_RELATIONS[m["rel"].lower()], m["rel"].lower(), object=m["name"])]),
    rule("pet_is", rf"\b(?:my|our)\s+(?:cat|dog|puppy|kitten|rabbit|parrot|hamster|tortoise)\s+(?P<name>{NAME})\b",
         lambda m: [_state("pet", m["name"])]),
    rule("manager_is", rf"\bmy\s+(?:line\s+)?(?:manager|boss|supervisor)\s+is\s+(?P<name>{NAME})\b",
         _related("manager")),
    rule("manager_of_me", rf"^(?P<name>(?:Dr\.?\s+|Mr\.?\s+|Ms\.?\s+|Mrs\.?\s+)?{NAME})\s+is\s+my\s+(?:line\s+)?"
         r"(?:manager|boss|supervisor)\b", lambda m: [_state("manager", object=m["name"])]),
    rule("my_attribute_is", r"\b(?P<owner>my|our|(?:the\s+)?[A-Za-z][\w-]*['’]s)\s+(?P<x>[a-z][a-z -]{1,30}?)"
         r"(?:\s+for\s+[\w\s]{1,30}?)?\s+is\s+(?P<v>.+)", _my_attribute),
    rule("lives_in", rf"\bI(?:\s+live|\s+am\s+living|['’]m\s+living|\s+reside)\s+in\s+(?P<v>{CAPITALISED}.+)",
         _value_of("city")),
    rule("moved_to", r"\b(?:I|we)\s+(?:just\s+|recently\s+|have\s+|['’]ve\s+)?moved\s+to\s+"
         rf"(?P<place>an?\s+(?:place|flat|house|apartment|home)\s+in\s+)?(?P<v>{CAPITALISED}.+)", _moved),
    rule("works_at", r"\bI(?:\s+work|\s+am\s+working|['’]m\s+working|(?P<started>\s+started\s+(?:a\s+new\s+job|work)))"
         rf"\s+(?:at|for)\s+(?P<v>{CAPITALISED}.+)", _works_at),
    rule("works_as", r"\bI\s+work\s+as\s+(?:an?\s+)?(?P<v>.+)", _works_as),
    rule("job_of", rf"^(?:welcome\s+)?(?P<who>{NAME})(?:\s+is\s+(?:our|the)\s+(?:new\s+)?|,\s+(?:she|he|they)\s+joins?"
         rf"\s+us\s+as\s+an?\s+)(?P<v>{_JOB})\b", _job),
    rule("diet", rf"{_I_AM}(?:an?\s+)?(?:strict\s+)?(?P<v>vegetarian|vegan|pescatarian|pescetarian)\b",
         lambda m: [_state("diet", m["v"].lower())]),
    rule("religion", rf"{_I_AM}(?:an?\s+)?(?:practising\s+|practicing\s+|devout\s+)?(?P<v>Buddhist|Christian|"
         r"Catholic|Protestant|Muslim|Jewish|Hindu|Sikh|Taoist|atheist|agnostic)\b", _value_of("religion")),
    rule("condition_i_am", rf"{_I_AM}(?P<v>lactose\s+intolerant|gluten\s+intolerant|diabetic|asthmatic|coeliac|celiac|"
         r"colou?r[- ]blind|epileptic)\b", lambda m: [_state("health_condition", m["v"].lower())]),
    rule("job_i_am", rf"{_I_AM}(?:an?|the)\s+(?:new\s+)?(?P<v>{_JOB})\b"
         rf"(?:\s+(?:at|for)\s+(?P<org>{CAPITALISED}.+))?", _job),
    rule("member_of", rf"{_I_AM}(?:now\s+)?an?\s+member\s+of\s+(?P<v>(?:the\s+)?(?:(?-i:[A-Z])|[\w-]+\s+){{0,3}}?"
         r"(?:(?-i:[A-Z])\S*|committee|club|team|board|group|association|society|union|council|choir|band|league)\b.*)",
         lambda m: [_state("member_of", object=single(m["v"]))]),
    # "I'm Elif, I maintain the parser": the clause splitter leaves "I'm Elif"; a demonym is no name.
    rule("name_i_am", r"^(?:hi|hello|hey)?[\s,!]*I['’]m\s+(?P<v>(?-i:[A-Z][a-z]+(?<!an)(?<!ish)(?<!ese)(?<!ic)))"
         r"(?:,\s+I\s.*)?$", _value_of("name")),
    rule("good_at", rf"{_I_AM}(?:really\s+|very\s+|pretty\s+)?good\s+at\s+(?P<v>.+)", _value_of("skill")),
    rule("allergic_to", rf"(?:{_I_AM}|\b(?P<who>(?-i:[A-Z][\w-]+))(?:['’]s|\s+is)\s+)(?:very\s+|severely\s+|mildly\s+)?"
         r"allergic\s+to\s+(?P<v>.+)", _value_of("allergy", many=True)),
    rule("allergy_have", r"(?:\bI\s+have|\b(?P<who>(?-i:[A-Z][\w-]+))\s+has)\s+(?:an?\s+|severe\s+)*"
         r"(?!(?:an?|severe)\s)(?P<v>[\w -]{2,30}?)\s+allerg(?:y|ies)\b", _value_of("allergy", many=True)),
    rule("diagnosed_with", r"\bI\s+(?:was|have\s+been|['’]ve\s+been|got)\s+diagnosed\s+with\s+(?P<v>.+)",
         _value_of("health_condition")),
    rule("speaks", r"\bI\s+(?:can\s+)?speak\s+(?P<v>(?-i:[a-z]*[A-Z]).+)", _languages),
    rule("studies_at", rf"\bI\s+(?:study|am\s+studying|['’]m\s+studying)\s+at\s+(?P<v>{CAPITALISED}.+)",
         _value_of("school")),
    rule("drives", r"\bI\s+drive\s+an?\s+(?P<v>.+)", _value_of("car")),
    rule("uses_browser", r"\bI\s+use\s+(?P<v>Firefox|Chrome|Safari|Edge|Brave|Opera|Vivaldi)\b", _value_of("browser")),
    rule("into", r"^(?P<who>the\s+kids|I['’]m|we['’]re)\s*(?:are\s+|is\s+)?(?:really\s+)?into\s+(?P<v>.+)",
         lambda m: [_state("interest", single(m["v"]),
                           subject="me" if m["who"].lower().startswith(("i", "we")) else m["who"])]),
    rule("needs", r"^(?P<who>(?:the|our)\s+[a-z]+)\s+needs\s+(?P<v>.+)",
         lambda m: [_state("needs", single(m["v"]), subject=m["who"])]),
    rule("stage_is", rf"^(?P<who>{NAME})\s+is\s+(?:now\s+)?in\s+(?P<v>(?:private\s+|public\s+|open\s+)?(?:beta|alpha)"
         r"|preview)\b", lambda m: [_state("stage", m["v"], subject=m["who"])]),
    rule("dislikes", r"\bI\s+(?:really\s+|just\s+|also\s+)?(?:hate|dislike|detest|can['’]t\s+stand|cannot\s+stand|"
         # "I don't eat meat on Fridays during Lent": a custom with its occasion, not a dislike.
         rf"{_DONT}\s+like|{_DONT}\s+eat(?![^,]*\s(?:on|during|before|after|at|in|when|unless)\s))\s+"
         rf"{_NOT_A_THING}(?P<v>.+)", _value_of("dislikes", many=True, tag="preference")),
    rule("likes", r"\bI\s+(?:really\s+|absolutely\s+|also\s+)?(?:do\s+)?(?:like|love|enjoy|adore)\s+"
         rf"{_NOT_A_THING}(?:reading\s+|watching\s+|listening\s+to\s+)?(?P<v>.+)",
         _value_of("likes", many=True, tag="preference")),
    rule("knowledge_is", r"^(?P<kind>(?:our\s+|new\s+|the\s+|safety\s+|house\s+)?(?:principle|rule|design\s+decision|"
         r"design\s+note|definition)\b[^:]{0,40}):\s*(?P<v>.+)", _knowledge),
    rule("howto", r"^(?:how\s+to\s+\w+[^:]{0,40}:\s*\w|to\s+\w+[^,]{2,60},\s*(?:run|press|click|open|use|go|type)\b)",
         said_whole("howto")),
    rule("reference", r"^the\s+[\w ]{2,30}\s+(?:is|are|live|lives)\s+(?:in|at)\s+(?:the\s+wiki|docs?\.|\S+\.\S+/)",
         _reference),
    rule("boundary_dont", rf"^(?:please\s+)?(?:{_DONT}|never)\s+(?!(?:worry|mind|forget|know)\b)\w", _boundary),
    rule("boundary_private", r"\bkeep\s+.+?\s+(?:private|secret|confidential|between\s+us)\b", _boundary),
    rule("wedding", rf"\b(?:we|I)\s+(?:went\s+to|attended)\s+(?P<name>{NAME}|my\s+\w+(?:\s+{NAME})?)['’]s\s+wedding\b",
         _wedding),
    rule("decided", r"\bwe\s+(?:decided|agreed)\s+(?P<w>on\s+\w+day\s+|yesterday\s+|today\s+)?(?:to|on)\s+(?P<v>.+)",
         _decision),
    rule("scheduled", rf"^(?:the\s+)?(?P<v>(?:(?-i:[A-Z])[\w-]*['’]s\s+)?(?:[\w-]+\s+){{0,3}}?(?P<head>{_HEAD}))"
         r"\s+is\s+(?:booked\s+|scheduled\s+)?(?:for\s+)?(?P<rest>.+)", _scheduled),
    rule("trip_to", rf"\b{_WHO}\s+(?P<soon>is\s+|am\s+|are\s+|['’]m\s+|['’]re\s+)?(?:travell?ed|flew|flying|"
         rf"went\s+on\s+(?:a|the)\s+(?:[\w-]+\s+)?trip|took\s+a\s+trip)\s+to\s+(?P<v>(?:the\s+)?{CAPITALISED}.+)",
         _trip),
    rule("trip_back", rf"^(?:we\s+|I\s+)?(?:got\s+back\s+from|came\s+back\s+from|landed\s+in)\s+(?P<v>{CAPITALISED}.+)",
         _needs_when("trip")),
    rule("had_meal", r"\b(?:I|we)\s+had\s+(?:dinner|lunch|breakfast|brunch)\s+at\s+(?P<v>.+)", _needs_when("meal")),
    rule("graduated", rf"\b{_WHO}\s+graduated\s+from\s+(?P<v>.+)",
         lambda m: [_event("graduation", m, m["v"], subject=_who(m))]),
    rule("milestone", rf"^{_WHO}\s+{_MILESTONE}", lambda m: _milestone_of(_who(m), m.string[m.start("ev"):], m)
         if m["who"].lower() in ("i", "we") or re.match(NAME, m["who"]) else []),
    rule("went_to", r"\b(?:I|we)\s+went\s+to\s+(?!(?:bed|sleep)\b)(?P<v>.+)", _went),
    rule("visited", r"\b(?:I|we)\s+visited\s+(?P<v>.+)", _visited),
    rule("met", rf"\bI\s+met\s+(?:with\s+)?(?P<v>(?:{NAME}|my\s+\w+|the\s+{NAME}\s+team).*)", _met),
    rule("bought_these", r"^(?:these|this|those|the)\s+(?P<v>[\w -]{2,40}?)\s+(?:that\s+)?(?:I|we)\s+(?:just\s+)?"
         r"(?:bought|purchased)\b", _purchase),
    rule("bought", rf"\b{_WHO}\s+(?:just\s+)?(?:bought|purchased)\s+(?P<v>.+)", _purchase),
]
