"""Forgetting (DESIGN §4 rule 9): a card, a label's whole timeline for a
subject, or everything about a subject in a scope — at once and completely.

Completely means every copy of the words, wherever they are kept: the card
and, with its row, its vector, revisions and perspectives; the guesses that
were promoted into it (they say what it says); what a knowledge merge copied
into the survivor's revisions; the admin's change-log lines that name it; and
whatever an app above the store keeps (the review queue: the candidate it came
from, decision reasons). Such an app is a *forget participant*: it receives
cards.signals.forgetting, connected in its AppConfig.ready — the store never
imports it — and anything a later feature adds that holds a card's words
listens the same way. Who may forget a card is
`cards.selectors.cards.FORGET_ACTION`, asked of every card. Each operation
answers with a `Receipt`: counts per kind, never content; the audit log keeps
that something was forgotten, by whom and when, never what."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from django.contrib.admin.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext_lazy

from core.scope_locks import locked_scope_by_scope
from scopes.models import Scope, User, ladder_reaching_ids

from ..labels import label_resolve
from ..models import AuditEvent, Card, CardRevision, Entity, Label, Tag
from ..selectors.cards import cards_forgettable
from ..selectors.entities import ME, entity_bind
from ..signals import forgetting as forgetting_signal
from ..text import normalize
from .corrections import card_hold
from .forget_rows import card_rows_delete, entities_delete

# Always in a receipt, zero or not (API.md); other kinds appear when counted.
RECEIPT_KINDS = ("cards", "candidates", "revisions", "perspectives")
# Counted as a page says it, in the page's language (the management commands' terminal reads English).
_NAMES = {
    "cards": ngettext_lazy("%(count)d card", "%(count)d cards", "count"),
    "candidates": ngettext_lazy("%(count)d review candidate", "%(count)d review candidates", "count"),
    "revisions": ngettext_lazy("%(count)d revision", "%(count)d revisions", "count"),
    "perspectives": ngettext_lazy("%(count)d perspective", "%(count)d perspectives", "count"),
    "vectors": ngettext_lazy("%(count)d vector", "%(count)d vectors", "count"),
    "reasons": ngettext_lazy("%(count)d written reason", "%(count)d written reasons", "count"),
    "entities": ngettext_lazy("%(count)d name", "%(count)d names", "count"),
    "aliases": ngettext_lazy("%(count)d alias", "%(count)d aliases", "count"),
    "jobs": ngettext_lazy("%(count)d ingest job", "%(count)d ingest jobs", "count"),
    "tokens": ngettext_lazy("%(count)d agent token", "%(count)d agent tokens", "count"),
    "memberships": ngettext_lazy("%(count)d membership", "%(count)d memberships", "count"),
    "scopes": ngettext_lazy("%(count)d scope", "%(count)d scopes", "count"),
    "account": ngettext_lazy("%(count)d account", "%(count)d accounts", "count"),
    "signals": ngettext_lazy("%(count)d signal", "%(count)d signals", "count"),
}


class Receipt(Counter):
    """What one forget operation removed: counts per kind, never content."""

    def as_dict(self) -> dict[str, int]:
        return {**{kind: 0 for kind in RECEIPT_KINDS}, **{kind: n for kind, n in self.items() if n}}

    def words(self) -> str:
        """"3 cards, 2 revisions and 1 review candidate" — for a page or a terminal."""
        parts = [_NAMES[kind] % {"count": n} if kind in _NAMES else f"{n} {kind}"
                 for kind, n in self.as_dict().items() if n]
        if not parts:
            return _("nothing (it was already forgotten, or there was nothing to forget)")
        if len(parts) == 1:
            return parts[0]
        return _("%(some)s and %(last)s") % {"some": _(", ").join(parts[:-1]), "last": parts[-1]}


@dataclass(frozen=True)
class About:
    """A timeline or a subject being forgotten: in `scope_id`, the entities a
    name binds (merges followed), the name as asked (normalized; empty for
    "me"), and with `label` (a key) only that label's timeline. Participants use
    it to find what is about the subject but is no card (yet): a pending or a
    rejected candidate names its subject in words."""

    scope_id: int
    entity_ids: tuple[int, ...]
    name_norm: str
    label: str | None = None


@dataclass(frozen=True)
class Forgetting:
    """What a participant is asked to forget, before the cards go (so its links
    to them still hold): `card_ids`, in `card_scope_ids` (the scopes those cards
    are in: what hangs off a card is in its scope, and a statement names them;
    what links to one across scopes lies in `reaching_scope_ids`),
    plus everything `about` a subject, plus — when an account is erased —
    everything in the scopes erased whole (`scope_ids`) and everything of
    `user`'s (their candidates, jobs, the free text of their decisions)."""

    actor: User | None
    card_ids: tuple[int, ...] = ()
    card_scope_ids: tuple[int, ...] = ()
    # The scopes that reach the cards' (scopes.models.ladder_reaching_ids): where a row linked to one of them
    # across scopes may lie. Read once a forget, and before an erased account's memberships go.
    reaching_scope_ids: tuple[int, ...] = ()
    about: About | None = None
    scope_ids: tuple[int, ...] = ()
    user: User | None = None


def _with_copies(cards: Mapping[int, int]) -> dict[int, int]:
    """The cards (id → scope) still there and the guesses promoted into them (same label, same value), each
    with its scope. A promoted guess is in its card's scope (superseded_by is a key through the scope):
    each step joins by (id, scope_id), which a cluster can answer shard by shard."""
    found = dict(Card.objects.filter(pk__in=list(cards), scope_id__in=set(cards.values()))
                 .values_list("pk", "scope_id"))
    frontier = dict(found)
    while frontier:
        promoted = dict(Card.objects.filter(superseded_by_id__in=frontier, scope_id__in=set(frontier.values()),
                                            scope_id=F("superseded_by__scope_id"), tag=Tag.HYPOTHESIS,
                                            label_id=F("superseded_by__label_id"),
                                            value_norm=F("superseded_by__value_norm"))
                        .values_list("pk", "scope_id"))
        frontier = {pk: scope_id for pk, scope_id in promoted.items() if pk not in found}
        found.update(frontier)
    return found


def _cards_lock(cards: dict[int, int]) -> dict[int, int]:
    """Lock these cards (id → scope) that are still there, and answer them: nothing can hang a new copy
    on a card while it goes. Scope by scope (an account's cards span many scopes): core/scope_locks.py."""
    locked = locked_scope_by_scope(Card.objects.filter(pk__in=list(cards)).values_list("pk", flat=True),
                                   scope_ids=cards.values())
    return {pk: cards[pk] for pk in locked}


def _store_copies(cards: dict[int, int]) -> Receipt:
    """Remove the copies kept elsewhere in the store; what goes with the rows is counted as they go."""
    # A merge wrote the merged card's words into the survivor's history ("#<id>" → its value): the survivor
    # is of the merged card's scope (knowledge_merge takes one scope).
    merged = (CardRevision.objects.filter(field="merged", before__in=[f"#{pk}" for pk in cards],
                                          scope_id__in=set(cards.values()))
              .exclude(card_id__in=list(cards)).delete()[0])
    admin_log_forget(Card, list(cards))
    return Receipt(revisions=merged)


def admin_log_forget(model, ids: Iterable[int]) -> None:
    """The admin's change log names each object it touched (`str(card)` holds its value)."""
    LogEntry.objects.filter(content_type=ContentType.objects.get_for_model(model),
                            object_id__in=[str(pk) for pk in ids]).delete()


# What others said against a forgotten card stood beside it (a dispute of a
# member's own word, DESIGN §4 rule 7); with that word gone, the newest such
# statement is the record and the older ones are closed into it. The forgotten
# states are closed first, so the one that joins the timeline never meets them
# in its one-current index (their rows go in the same transaction). A dispute is in its card's scope (a key
# through the scope): every part names the cards' scopes, and the closing UPDATE joins by (id, scope_id), as a
# cluster asks.
_DISPUTES_JOIN = """
WITH gone AS (UPDATE cards_card SET superseded_at = %(now)s
               WHERE id = ANY(%(ids)s) AND scope_id = ANY(%(scopes)s) AND kind = 'state'
                 AND superseded_at IS NULL RETURNING id),
     d AS (SELECT c.id, c.scope_id, row_number() OVER w AS n, first_value(c.id) OVER w AS newest
             FROM cards_card c
            WHERE c.disputes_id = ANY(%(ids)s) AND c.scope_id = ANY(%(scopes)s) AND NOT c.id = ANY(%(ids)s)
              AND c.superseded_at IS NULL
           WINDOW w AS (PARTITION BY c.disputes_id ORDER BY c.effective_at DESC, c.id DESC))
UPDATE cards_card c SET superseded_at = %(now)s, superseded_by_id = d.newest, disputes_id = NULL
  FROM d WHERE c.id = d.id AND c.scope_id = d.scope_id AND c.scope_id = ANY(%(scopes)s) AND d.n > 1"""


def _cards_delete(cards: dict[int, int], actor: User | None, reaching: Iterable[int]) -> Receipt:
    """The cards and what hangs off them (counted as it goes), an audit line each."""
    if not cards:
        return Receipt()
    ids, scopes = list(cards), sorted(set(cards.values()))
    with connection.cursor() as cursor:
        cursor.execute(_DISPUTES_JOIN, {"ids": ids, "scopes": scopes, "now": timezone.now()})
    rows = list(Card.objects.filter(pk__in=ids, scope_id__in=scopes)
                .values_list("pk", "scope_id", "kind", Q(embedding__isnull=False)))
    AuditEvent.objects.bulk_create([AuditEvent(actor=actor, action="card.forgotten", scope_id=scope_id,
                                                object_type="card", object_id=pk, detail={"kind": kind})
                                    for pk, scope_id, kind, _ in rows])
    with connection.cursor() as cursor:
        # The write-once trigger lets an event row go only inside this transaction.
        cursor.execute("SET LOCAL memory_site.forgetting = 'on'")
    deleted = card_rows_delete(cards, reaching=reaching)
    with connection.cursor() as cursor:
        # Inside a caller's longer transaction, the permission ends with these cards.
        cursor.execute("SET LOCAL memory_site.forgetting = 'off'")
    return Receipt(revisions=deleted["cards.CardRevision"], perspectives=deleted["cards.CardPerspective"],
                   vectors=sum(vector for *_, vector in rows), cards=deleted["cards.Card"])


@transaction.atomic
def cards_forget(*, cards: Mapping[int, int], actor: User | None, about: About | None = None,
                 scope_ids: Iterable[int] = (), user: User | None = None,
                 reaching: Iterable[int] | None = None) -> Receipt:
    """The one way cards go: each participant removes its copies, then the
    store's own, then the cards (an audit line each: its kind, never its words).
    A card they had superseded stays closed — a stale value is never revived —
    with its superseded_by cleared. The caller has decided that the principal
    may forget each card, and gives each with its scope (`cards`, id → scope):
    every statement names the scopes, so a cluster sends it to their shards
    alone. `reaching`: the scopes reaching theirs, when the caller read them
    already (ladder_reaching_ids; an erased account, before its memberships go)."""
    cards = _cards_lock(_with_copies(cards))
    scopes = sorted(set(cards.values()))
    reaching = tuple(ladder_reaching_ids(scopes) if reaching is None else reaching) if cards else ()
    forgetting = Forgetting(actor=actor, card_ids=tuple(cards), card_scope_ids=tuple(scopes),
                            reaching_scope_ids=reaching, about=about, scope_ids=tuple(scope_ids), user=user)
    receipt = Receipt()
    for _receiver, counts in forgetting_signal.send(sender=Card, forgetting=forgetting):
        receipt.update(counts)
    receipt.update(_store_copies(cards))
    receipt.update(_cards_delete(cards, actor, reaching))
    return receipt


@transaction.atomic
def card_forget(*, card: Card, actor: User) -> Receipt:
    """Forget one card now and completely (see the module's docstring). It waits
    for the writers of the card's timeline (card_hold) to commit, and a second
    forget of one card finds it gone: a 404, never a write linked to a deleted card."""
    card = card_hold(card=card)
    return cards_forget(cards={card.pk: card.scope_id}, actor=actor)


def _about(*, scope: Scope, subject: Entity | str, speaker: User, label: Label | str | None) -> About:
    key = None if label is None else (label if isinstance(label, Label) else label_resolve(label)).key
    if isinstance(subject, Entity):
        root_id = subject.merged_into_id or subject.pk
        root = Entity.objects.get(pk=root_id)
        ids = {root_id, *Entity.objects.filter(merged_into_id=root_id).values_list("pk", flat=True)}
        return About(scope.pk, tuple(sorted(ids)), root.name_norm, key)
    # Bound as a write in this scope binds it: its names, aliases, members, relation words; merges followed.
    binding = entity_bind(name=subject, scope_ids=[scope.pk], speaker=speaker, suggest=False)
    bound = binding.one(subject, prefer_scope=scope.pk)  # a name two entities answer to is refused
    name_norm = normalize(subject)
    return About(scope.pk, tuple(sorted(binding.entity_ids)) if bound else (),
                 "" if name_norm == ME else name_norm, key)


def _names_forget(about: About, reaching: list[int]) -> Receipt:
    """A subject forgotten whole takes its name with it: each of its entities in
    the scope that no card names any more (nor another entity merged into it),
    with its aliases. A member's own entity is theirs and stays."""
    receipt = Receipt()
    left = set(Entity.objects.filter(pk__in=about.entity_ids, scope_id=about.scope_id, user__isnull=True)
                                    .values_list("pk", flat=True))
    # The cards that may name an entity of the scope: those of the scopes that see it (`reaching`: its own,
    # those below …).
    naming = Card.objects.filter(scope_id__in=reaching)
    while left:
        named = set(naming.filter(subject_id__in=left).values_list("subject_id", flat=True))
        named |= set(naming.filter(object_id__in=left).values_list("object_id", flat=True))
        named |= set(Entity.objects.filter(merged_into_id__in=left).values_list("merged_into_id", flat=True))
        free = left - named
        if not free:
            break
        admin_log_forget(Entity, free)
        deleted = entities_delete(free, scope_id=about.scope_id, reaching=reaching)
        receipt["aliases"] += deleted["cards.Alias"]
        receipt["entities"] += deleted["cards.Entity"]
        left -= free
    return receipt


@transaction.atomic
def subject_forget(*, principal, scope: Scope, subject: Entity | str, label: Label | str | None = None) -> Receipt:
    """With `label`: that label's whole timeline for `subject` in `scope` (every
    past value, guesses and disputes included). Without: everything about
    `subject` in `scope`, and then its name there. Only the cards `principal`
    may forget — the single card's rule, asked of each card — so a token acts
    within what its person may forget; the caller has checked the scope. What
    the review queue holds about the subject in words goes too."""
    about = _about(scope=scope, subject=subject, speaker=principal.user, label=label)
    cards = cards_forgettable(principal=principal).filter(scope_id=scope.pk, subject_id__in=about.entity_ids)
    if about.label is not None:
        cards = cards.filter(label__key=about.label)
    reaching = ladder_reaching_ids([scope.pk])  # once: for the cards' links and the name's alike
    receipt = cards_forget(cards=dict.fromkeys(cards.values_list("pk", flat=True), scope.pk),
                           actor=principal.user, about=about, reaching=reaching)
    if about.label is None:
        receipt.update(_names_forget(about, reaching))
    AuditEvent.objects.create(actor=principal.user, action="timeline.forgotten" if label else "subject.forgotten",
                              scope_id=scope.pk, object_type="entity",
                              object_id=about.entity_ids[0] if about.entity_ids else None, detail=receipt.as_dict())
    return receipt
