"""The caller's own profile in a scope (DESIGN §6 "Profile"): GET /api/v1/profile/
returns `profile_read`; the context block and the MCP tool read the same.

Whose: the caller's own person entity ("me" — for a token, its person's), and
what a reviewer merged into it. What: the current cards of the profile's labels
and every boundary of theirs (cards/profile.py decides which), in the scopes a
read in `scope_id` sees (scopes.selectors.read_scope_ids: the scope, its
ancestors, their personal scope and global), in the caller's own phrasing.
Another member's statement that disputes the person's own is left out: what a
person says about themselves wins (DESIGN §4 rule 7), and the dispute is theirs
to settle elsewhere."""

from __future__ import annotations

import datetime as dt

from django.db.models import Q
from django.utils import timezone

from scopes.principals import Principal
from scopes.selectors import read_scope_ids, scope_ref_id

from ..models import Card, CardKind, Tag
from ..profile import CONSTRAINT_LABELS, GROUPS, STYLE_LABELS, profile_group, profile_guidance, profile_tier
from .entity_reads import entity_of_user
from ..valid_time import valid_q
from ..time.when import speaker_zone
from .boundaries import BOUNDARY, person_own
from .shape import card_out, card_rows

# A person has a handful of these; past this many the oldest are left out.
PROFILE_LIMIT = 100
_ORDER = {label: i for i, label in enumerate(STYLE_LABELS + CONSTRAINT_LABELS)}


def profile_items(*, principal: Principal, scope_ids: list[int], zone: dt.tzinfo,
                  now: dt.datetime | None = None) -> list[dict]:
    """The profile's items, each {"group", "label", "value", "tier", "tag", "confidence",
    "guidance", "card"}: style first (in STYLE_LABELS order), then constraints, then
    boundaries; within a label what was stated before what is guessed, surer guesses first.
    `scope_ids` must come from read_scope_ids; `zone` dates the guidance."""
    now = now or timezone.now()
    me = entity_of_user(principal.user)
    cards = (person_own(Card.objects.in_scopes(scope_ids).filter(valid_q(now)), me.pk)
             .filter((Q(label__key__in=STYLE_LABELS + CONSTRAINT_LABELS) & ~Q(kind=CardKind.EVENT)) | BOUNDARY)
             .order_by("-verified_at", "-id"))
    items = []
    for row in card_rows(cards, user=principal.user)[:PROFILE_LIMIT]:
        card = card_out(row, now)
        group = profile_group(label=card["label"], tag=card["tag"])
        value = card["object"] or card["value"] or card["text"]
        guessed = card["tag"] == Tag.HYPOTHESIS
        items.append({
            "group": group, "label": card["label"], "value": value, "tier": profile_tier(card["tag"]),
            "tag": card["tag"], "confidence": card["confidence_level"] if guessed else None,
            "guidance": profile_guidance(group=group, label=card["label"], value=value, tag=card["tag"],
                                         confidence=card["confidence"], stated=row["verified_at"], zone=zone),
            "card": card})
    items.sort(key=lambda item: (GROUPS.index(item["group"]), _ORDER.get(item["label"], len(_ORDER)),
                                 item["tier"] == "guessed", -(item["card"]["confidence"] or 0)))
    return items


def profile_read(*, principal: Principal, scope_id: int | str) -> dict:
    """{"items": […]} for the caller in `scope_id` (an id or a scope word: scope_ref_id; 404 when they may not
    read there)."""
    scope_ids = read_scope_ids(principal=principal, scope_id=scope_ref_id(principal=principal, ref=scope_id))
    return {"items": profile_items(principal=principal, scope_ids=scope_ids, zone=speaker_zone(principal.user, None))}
