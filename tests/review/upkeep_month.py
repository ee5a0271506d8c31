"""A month of daily notes for the upkeep tests: a garden project (inside a family) where
one person talked to their agent over November, what reviewers approved from those
sessions, and the knowledge written beside it. Every card goes through the write
path (candidates approved, or card_remember); only the entities that must exist
twice, or carry an alias, are made directly.

What a careful person would tidy in the project on 30 Nov:
- make long-term: pruning (a skill seen in 3 sessions: 2, 9 and 16 Nov) and the
  planting stage (impact 3);
- not: composting (one session), the tulip guess (two sessions, but a guess), the
  roses (already long-term), the meeting (an event);
- demote: the city Taipei (long-term since 3 Nov; the family said Kyoto on 20 Nov) and
  the employer Acme (long-term, unconfirmed since 2 Mar);
- merge: the two Greenhouse how-tos (the same name), PostgreSQL and Postgres (Postgres
  was merged into PostgreSQL), Kubernetes and K8s (K8s is Kubernetes's alias);
- not merge: "Rose bed" and "Rose beds" (only alike)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from cards.drafts import CardDraft
from cards.models import Alias, Card, Entity
from cards.services import card_remember
from cards.services.entities import entity_merge
from review.models import Candidate
from review.services.candidates import candidate_approve
from scopes.models import Scope, ScopeKind
from scopes.services import scope_create
from tests.factories import family_scope

TAIPEI = dt.timezone(dt.timedelta(hours=8))
NOW = dt.datetime(2026, 11, 30, 12, 0, tzinfo=TAIPEI)


def day(month: int, date: int, hour: int = 20) -> dt.datetime:
    return dt.datetime(2026, month, date, hour, 0, tzinfo=TAIPEI)


@dataclass
class Month:
    family: Scope
    garden: Scope
    cards: dict[str, Card] = field(default_factory=dict)


def said(scope, author, session: str, at: dt.datetime, *, long_term: str = "", **fields) -> Card:
    """One statement of a session, as ingest proposed it and its person approved it."""
    defaults = {"kind": "state", "subject": "me", "quote": f"said in {session}", "extractor": "patterns",
                "message": f"{session}:0", "impact": 2, "tag": "fact"}
    candidate = Candidate.objects.create(scope=scope, author=author, session=session, message_at=at,
                                         long_term=long_term, **{**defaults, **fields})
    return candidate_approve(candidate=candidate, reviewer=author)


def knowledge(scope, author, subject, value: str, at: dt.datetime, session: str, label: str = "howto") -> Card:
    return card_remember(scope=scope, actor=author, draft=CardDraft(
        kind="knowledge", label=label, subject=subject, value=value, reference_time=at,
        source_session=session)).card


def month_of_notes(alice) -> Month:
    family = family_scope(owner=alice)
    garden = scope_create(name="Garden", kind=ScopeKind.PROJECT, creator=alice, parent=family)
    m = Month(family=family, garden=garden)
    c = m.cards
    for session, date in (("s-1102", 2), ("s-1109", 9), ("s-1116", 16)):
        c["pruning"] = said(garden, alice, session, day(11, date), label="skill", value="pruning")
    c["composting"] = said(garden, alice, "s-1105", day(11, 5), label="hobby", value="composting")
    c["planting"] = said(garden, alice, "s-1110", day(11, 10), label="stage", value="planting", impact=3)
    for session, date in (("s-1104", 4), ("s-1111", 11)):
        c["tulips"] = said(garden, alice, session, day(11, date), label="likes", value="tulips", tag="hypothesis",
                           confidence=0.6)
    # Approved as proposed for long-term: long-term from then on.
    c["taipei"] = said(garden, alice, "s-1103", day(11, 3), label="city", value="Taipei", impact=3,
                       long_term="impact 3")
    c["roses"] = said(garden, alice, "s-1112", day(11, 12), label="likes", value="roses", tag="preference",
                      long_term="explicit preference or boundary")
    c["acme"] = said(garden, alice, "s-0302", day(3, 2), label="employer", value="Acme", impact=3,
                     long_term="impact 3")
    c["meeting"] = said(garden, alice, "s-1104", day(11, 4), kind="event", label="meeting", value="seed swap")
    # The family, above the project, says otherwise about the city later.
    c["kyoto"] = said(family, alice, "s-1120", day(11, 20), label="city", value="Kyoto")

    # Knowledge: the same name in the family and the project (made apart, before anyone bound them).
    greenhouse_here = Entity.objects.create(scope=garden, name="Greenhouse")
    greenhouse_above = Entity.objects.create(scope=family, name="Greenhouse")
    c["greenhouse"] = knowledge(garden, alice, greenhouse_here, "open the vents at 25 degrees", day(11, 6), "s-1106")
    c["greenhouse_again"] = knowledge(garden, alice, greenhouse_above, "Open the vents at 25 degrees.", day(11, 18),
                                      "s-1118")
    # A name merged into another (a reviewer decided the possible duplicate).
    postgresql = Entity.objects.create(scope=garden, name="PostgreSQL")
    postgres = Entity.objects.create(scope=garden, name="Postgres")
    c["postgresql"] = knowledge(garden, alice, postgresql, "a relational database", day(11, 7), "s-1107",
                                label="definition")
    c["postgres"] = knowledge(garden, alice, postgres, "a relational database", day(11, 14), "s-1114",
                              label="definition")
    entity_merge(duplicate=postgres, into=postgresql)
    # A registered alias: "K8s" names Kubernetes in the project; the family had its own "K8s".
    kubernetes = Entity.objects.create(scope=garden, name="Kubernetes")
    k8s_above = Entity.objects.create(scope=family, name="K8s")
    Alias.objects.create(entity=kubernetes, scope=garden, name="K8s")
    c["kubernetes"] = knowledge(garden, alice, kubernetes, "runs the sensor services", day(11, 8), "s-1108",
                                label="note")
    c["k8s"] = knowledge(garden, alice, k8s_above, "runs the sensor services", day(11, 15), "s-1115", label="note")
    # Only alike: no alias, no merge, not the same name.
    rose_bed = Entity.objects.create(scope=garden, name="Rose bed")
    rose_beds = Entity.objects.create(scope=garden, name="Rose beds")
    c["rose_bed"] = knowledge(garden, alice, rose_bed, "mulch in spring", day(11, 9), "s-1109", label="note")
    c["rose_beds"] = knowledge(garden, alice, rose_beds, "mulch in spring", day(11, 19), "s-1119", label="note")
    for name, card in c.items():
        c[name] = Card.objects.get(pk=card.pk)
    return m
