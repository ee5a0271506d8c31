"""Probes' unique key includes the scope, and Django's single-column keys into the card are dropped
(db_constraint=False): cards 0027 keys the card by (id, scope_id), and review 0014 puts them back through
the scope (core/scope_keys.py, docs/distributed.md)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('cards', '0026_card_keys_off'),
        ('review', '0012_probe_keeps_its_scope'),
        ('scopes', '0012_agent_token_connection'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='probe',
            name='one_probe_per_card_and_person',
        ),
        migrations.AlterField(
            model_name='candidate',
            name='card',
            field=models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='cards.card'),
        ),
        migrations.AlterField(
            model_name='probe',
            name='card',
            field=models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='cards.card'),
        ),
        migrations.AlterField(
            model_name='upkeepproposal',
            name='card',
            field=models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='cards.card'),
        ),
        migrations.AlterField(
            model_name='upkeepproposal',
            name='other',
            field=models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='cards.card'),
        ),
        migrations.AddConstraint(
            model_name='probe',
            constraint=models.UniqueConstraint(fields=('scope', 'card', 'user'), name='one_probe_per_card_and_person'),
        ),
    ]
