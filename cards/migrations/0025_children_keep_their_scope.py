"""Revisions, perspectives, questions asked and possible duplicates keep the scope of what they hang off
(cards.models.InParentScope): Citus distributes them by scope_id, onto its shard (docs/distributed.md).
Existing rows take it from their card, or from their entity for a possible duplicate."""

import django.db.models.deletion
from django.db import migrations, models

# (model, table, parent table, parent column)
CHILDREN = (("cardrevision", "cards_cardrevision", "cards_card", "card_id"),
            ("cardperspective", "cards_cardperspective", "cards_card", "card_id"),
            ("cardasked", "cards_cardasked", "cards_card", "card_id"),
            ("possibleduplicate", "cards_possibleduplicate", "cards_entity", "entity_id"))


def scope_field(*, null: bool) -> models.ForeignKey:
    return models.ForeignKey(null=null, on_delete=django.db.models.deletion.CASCADE, related_name="+",
                             to="scopes.scope")


class Migration(migrations.Migration):

    dependencies = [
        ("cards", "0024_card_long_term_state"),
        ("scopes", "0012_agent_token_connection"),
    ]

    operations = [
        *(migrations.AddField(model_name=model, name="scope", field=scope_field(null=True))
          for model, *_ in CHILDREN),
        *(migrations.RunSQL(f"UPDATE {table} c SET scope_id = p.scope_id FROM {parent} p WHERE p.id = c.{column}",
                            migrations.RunSQL.noop)
          for _, table, parent, column in CHILDREN),
        *(migrations.AlterField(model_name=model, name="scope", field=scope_field(null=False))
          for model, *_ in CHILDREN),
    ]
