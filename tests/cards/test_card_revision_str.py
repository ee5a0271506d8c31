"""The admin names a revision by what changed, not "CardRevision object (3)"."""

import pytest

from cards.drafts import CardDraft
from cards.services import card_describe, card_remember

pytestmark = pytest.mark.django_db


def test_a_revision_reads_as_what_changed(alice, scope, t0):
    event = card_remember(scope=scope, actor=alice, draft=CardDraft(
        kind="event", label="wedding", subject="me", text="Lee's wedding", reference_time=t0)).card
    revision = card_describe(card=event, actor=alice, text="Lee and Kim's wedding", reason="names")
    shown = str(event.revisions.get())
    assert shown == f"card {event.pk}, text: “Lee's wedding” → “Lee and Kim's wedding”", (shown, revision)


def test_a_corrected_time_reads_as_corrected_never_as_the_instants_it_keeps(alice, scope, t0):
    import datetime as dt

    from cards.services import event_correct

    event = card_remember(scope=scope, actor=alice, draft=CardDraft(
        kind="event", label="wedding", subject="me", text="Lee's wedding", reference_time=t0,
        occurred_at=dt.datetime(2026, 5, 2), precision="day")).card
    event_correct(card=event, actor=alice, when="2026-05-03")
    assert str(event.revisions.get()) == f"card {event.pk}, when corrected"
