"""Review's keys into the card go through the scope (core/scope_keys.py, docs/distributed.md): a candidate's
card was approved in the candidate's scope, a probe and an upkeep proposal's card are in theirs. An upkeep
proposal's `other` card may be in a scope above (a contradiction read up the ladder): no key for it."""

from django.db import migrations

from core.scope_keys import scope_foreign_key

THROUGH_SCOPE = (("review_candidate", "card_id", "cards_card"), ("review_probe", "card_id", "cards_card"),
                 ("review_upkeepproposal", "card_id", "cards_card"))


class Migration(migrations.Migration):

    dependencies = [
        ("review", "0013_card_keys_off"),
        ("cards", "0027_card_keyed_by_scope"),
    ]

    operations = [*(migrations.RunSQL(*scope_foreign_key(*key)) for key in THROUGH_SCOPE)]
