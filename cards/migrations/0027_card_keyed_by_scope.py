"""Cards keyed by (id, scope_id), and the keys from the cards' own tables into them through the scope:
supersede and dispute links (a timeline is in one scope), revisions, perspectives, questions asked
(core/scope_keys.py, docs/distributed.md). Review's keys into the card come back in review 0014. Existing
rows already agree: each was written in its card's scope (cards 0025 copied it)."""

from django.db import migrations

from core.scope_keys import scope_foreign_key, scope_primary_key

THROUGH_SCOPE = (("cards_card", "superseded_by_id", "cards_card"), ("cards_card", "disputes_id", "cards_card"),
                 ("cards_cardrevision", "card_id", "cards_card"), ("cards_cardperspective", "card_id", "cards_card"),
                 ("cards_cardasked", "card_id", "cards_card"))


class Migration(migrations.Migration):

    dependencies = [
        ("cards", "0026_card_keys_off"),
        # Review's single-column keys into the card go first: they hold on the primary key being replaced.
        ("review", "0013_card_keys_off"),
    ]

    operations = [
        migrations.RunSQL(*scope_primary_key("cards_card")),
        *(migrations.RunSQL(*scope_foreign_key(*key)) for key in THROUGH_SCOPE),
    ]
