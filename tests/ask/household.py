"""The household the ask question set is asked of (household_cards.py), written
through the services as people's agents write: each card by its speaker at its
time, events dated in the speaker's zone, members related from their own side."""

from __future__ import annotations

import datetime as dt

from cards.drafts import CardDraft
from cards.services import card_remember
from cards.services.embedding import cards_embed_now
from cards.models import Card
from cards.time.when import when_resolve
from scopes.relations import relation_set
from scopes.services import membership_set
from scopes.zones import person_zone
from tests.factories import UserFactory, family_scope

from . import household_cards as data


def seed() -> dict:
    """The people by username, the family scope, and the card ids by the data's ids."""
    people = {p["username"]: UserFactory(username=p["username"], display_name=p["display_name"],
                                         time_zone=p["time_zone"]) for p in data.PEOPLE}
    first, *others = people.values()
    family = family_scope(owner=first, name="Household")
    for user in others:
        membership_set(scope=family, user=user, role="member")
    for member, relation, of in data.RELATIONS:
        relation_set(scope=family, member=people[member], of=people[of], relation=relation)
    cards = {}
    for card in data.CARDS:
        speaker = people[card["by"]]
        at = dt.datetime.fromisoformat(card["at"])
        fields = dict(kind=card["kind"], label=card["label"], subject=card["subject"], value=card.get("value") or "",
                      object=card.get("object"), text=card.get("text", ""), tag=card.get("tag", "fact"),
                      reference_time=at, consent=True)
        if card["kind"] == "event" and card.get("occurred"):
            when = when_resolve(card["occurred"], reference=at, tz=person_zone(speaker))
            fields.update(occurred_at=when.start, occurred_end=when.end, precision=when.precision,
                          time_source=when.source)
        cards[card["id"]] = card_remember(scope=family, actor=speaker, draft=CardDraft(**fields)).card.pk
    cards_embed_now(card_ids=list(Card.objects.values_list("pk", flat=True)))
    return {"people": people, "scope": family, "cards": cards}
