"""Candidates, probes and upkeep proposals keyed by (id, scope_id): no key points at them, so only their own
primary key changes (core/scope_keys.py, docs/distributed.md)."""

from django.db import migrations

from core.scope_keys import scope_primary_key

KEYED = ("review_candidate", "review_probe", "review_upkeepproposal")


class Migration(migrations.Migration):

    dependencies = [("review", "0014_card_keys_through_scope")]

    operations = [migrations.RunSQL(*scope_primary_key(table)) for table in KEYED]
