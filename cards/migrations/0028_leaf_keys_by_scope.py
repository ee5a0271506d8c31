"""Aliases, revisions, perspectives, questions asked and possible duplicates keyed by (id, scope_id): no key
points at them, so only their own primary key changes (core/scope_keys.py, docs/distributed.md)."""

from django.db import migrations

from core.scope_keys import scope_primary_key

KEYED = ("cards_alias", "cards_cardrevision", "cards_cardperspective", "cards_cardasked", "cards_possibleduplicate")


class Migration(migrations.Migration):

    dependencies = [("cards", "0027_card_keyed_by_scope")]

    operations = [migrations.RunSQL(*scope_primary_key(table)) for table in KEYED]
