"""The unique keys of what hangs off a card or an entity include its scope, and Django's own single-column
keys into the card are dropped (db_constraint=False): cards 0027 keys the card by (id, scope_id) and puts
them back through the scope (core/scope_keys.py, docs/distributed.md)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('cards', '0025_children_keep_their_scope'),
        ('scopes', '0012_agent_token_connection'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='cardasked',
            name='one_question_record_per_person',
        ),
        migrations.RemoveConstraint(
            model_name='cardperspective',
            name='one_perspective_per_member',
        ),
        migrations.RemoveConstraint(
            model_name='possibleduplicate',
            name='one_duplicate_proposal',
        ),
        migrations.AlterField(
            model_name='card',
            name='disputes',
            field=models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='disputed_by', to='cards.card'),
        ),
        migrations.AlterField(
            model_name='card',
            name='superseded_by',
            field=models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='supersedes', to='cards.card'),
        ),
        migrations.AlterField(
            model_name='cardasked',
            name='card',
            field=models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.CASCADE, related_name='questions_asked', to='cards.card'),
        ),
        migrations.AlterField(
            model_name='cardperspective',
            name='card',
            field=models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.CASCADE, related_name='perspectives', to='cards.card'),
        ),
        migrations.AlterField(
            model_name='cardrevision',
            name='card',
            field=models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.CASCADE, related_name='revisions', to='cards.card'),
        ),
        migrations.AddConstraint(
            model_name='cardasked',
            constraint=models.UniqueConstraint(fields=('scope', 'card', 'user'), name='one_question_record_per_person'),
        ),
        migrations.AddConstraint(
            model_name='cardperspective',
            constraint=models.UniqueConstraint(fields=('scope', 'card', 'user'), name='one_perspective_per_member'),
        ),
        migrations.AddConstraint(
            model_name='possibleduplicate',
            constraint=models.UniqueConstraint(fields=('scope', 'entity', 'similar_to'), name='one_duplicate_proposal'),
        ),
    ]
