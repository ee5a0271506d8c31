"""Perspectives (DESIGN §3): a member of a shared scope may phrase a card their
own way ("wife's birthday — prepare a gift"). Only that member sets or changes
their phrasing — or whoever writes a new card, for the members they write it
for, at its creation — and nobody else reads it (the read side is
selectors/cards.py `perspectives_own`)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.translation import gettext

from scopes.models import Membership, User

from ..errors import InvalidCard, NotYourPerspective
from ..models import Card, CardPerspective
from ..screen import content_screen
from ..text import text_in

MAX_PHRASING = 2_000


@transaction.atomic
def perspectives_set(*, card: Card, actor: User, phrasings: dict[str, str],
                     new_card: bool = False, consent: bool = False) -> list[CardPerspective]:
    """Per-member phrasings of a card in a shared scope, keyed by username; each
    passes the screen (`consent` for sensitive words).

    `new_card`: the card was created by this very write, so its writer may set
    any member's phrasing. Otherwise a phrasing of another member is refused
    (NotYourPerspective, nothing written) unless it is already exactly what is
    stored: an agent retrying its own creating write is not refused."""
    # As every text is taken in (cards.text): NFC, bidi controls stripped.
    phrasings = {name: text_in(text) if isinstance(text, str) else text for name, text in phrasings.items()}
    users = {u.username: u for u in get_user_model().objects.filter(
        username__in=list(phrasings),
        pk__in=Membership.objects.filter(scope=card.scope_id).values("user_id"))}
    unknown = sorted(set(phrasings) - set(users))
    if unknown:
        raise InvalidCard(gettext("Perspectives are for members of the card's scope."),
                          fields={"perspectives": [gettext("not a member: %(name)s") % {"name": name}
                                                   for name in unknown]})
    for username, text in phrasings.items():
        if not isinstance(text, str) or not text.strip() or "\x00" in text or len(text) > MAX_PHRASING:
            raise InvalidCard(gettext("A perspective is a non-empty text of at most %(most)s characters.")
                              % {"most": MAX_PHRASING},
                              fields={"perspectives": [gettext("invalid phrasing for %(name)s") % {"name": username}]})
        content_screen(fields={f"perspectives.{username}": text}, consent=consent)
    others = {name: text.strip() for name, text in phrasings.items() if users[name].pk != actor.pk}
    if others and not new_card:
        stored = dict(CardPerspective.objects.filter(scope_id=card.scope_id, card=card,
                                                     user__in=[users[n] for n in others])
                      .values_list("user__username", "text"))
        changed = sorted(name for name, text in others.items() if stored.get(name) != text)
        if changed:
            raise NotYourPerspective(
                gettext("Only a member sets their own phrasing of a card (or whoever writes a new card, at its "
                        "creation). Nothing was changed."),
                fields={"perspectives": [gettext("not yours: %(name)s") % {"name": n} for n in changed]})
    result = []
    for username, text in phrasings.items():
        # Looked up (and locked, by update_or_create) with the card's scope: one shard on a cluster.
        perspective, _ = CardPerspective.objects.update_or_create(
            scope_id=card.scope_id, card=card, user=users[username], defaults={"text": text.strip()})
        result.append(perspective)
    return result
