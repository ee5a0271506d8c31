"""A probe keeps its card's scope (cards.models.InParentScope): Citus distributes it by scope_id, onto the
card's shard (docs/distributed.md). Existing probes take it from their card."""

import django.db.models.deletion
from django.db import migrations, models


def scope_field(*, null: bool) -> models.ForeignKey:
    return models.ForeignKey(null=null, on_delete=django.db.models.deletion.CASCADE, related_name="+",
                             to="scopes.scope")


class Migration(migrations.Migration):

    dependencies = [
        ("review", "0011_decision_in_a_scope"),
        ("scopes", "0012_agent_token_connection"),
    ]

    operations = [
        migrations.AddField(model_name="probe", name="scope", field=scope_field(null=True)),
        migrations.RunSQL("UPDATE review_probe c SET scope_id = p.scope_id FROM cards_card p WHERE p.id = c.card_id",
                          migrations.RunSQL.noop),
        migrations.AlterField(model_name="probe", name="scope", field=scope_field(null=False)),
    ]
