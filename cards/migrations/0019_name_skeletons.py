"""Names are what they look like: every entity and alias keeps the TR39
skeleton of its name (cards.text.name_skeleton) in an indexed column, so a new
name that looks like a visible one is found by one equality. Existing rows are
filled here; look-alikes already stored side by side ("Pаris" with a Cyrillic а
beside "Paris") are proposed for merge in the review queue, never merged."""

import django.contrib.postgres.fields
from django.db import migrations, models

import cards.text
from cards.services.entities import look_alike_duplicates_propose
from cards.text import name_skeleton

BATCH = 2_000


def fill_skeletons(apps, schema_editor):
    for model in (apps.get_model("cards", "Entity"), apps.get_model("cards", "Alias")):
        rows = []
        for row in model.objects.only("id", "name").iterator(chunk_size=BATCH):
            row.name_skeleton = name_skeleton(row.name)
            rows.append(row)
            if len(rows) == BATCH:
                model.objects.bulk_update(rows, ["name_skeleton"])
                rows = []
        model.objects.bulk_update(rows, ["name_skeleton"])


def propose_look_alikes(apps, schema_editor):
    from cards.models import Entity

    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            "SELECT name_skeleton FROM (SELECT name_skeleton, name_norm FROM cards_entity"
            "  UNION ALL SELECT name_skeleton, name_norm FROM cards_alias) n"
            " WHERE name_skeleton <> '' GROUP BY name_skeleton HAVING count(DISTINCT name_norm) > 1")
        shared = [row[0] for row in cursor.fetchall()]
    for entity in Entity.objects.filter(name_skeleton__in=shared, user__isnull=True, merged_into__isnull=True):
        look_alike_duplicates_propose(entity)


class Migration(migrations.Migration):

    dependencies = [
        ("cards", "0018_card_unembedded"),
    ]

    operations = [
        migrations.AddField(
            model_name="entity",
            name="name_skeleton",
            field=models.TextField(db_default="", default="", editable=False),
        ),
        migrations.AddField(
            model_name="alias",
            name="name_skeleton",
            field=models.TextField(db_default="", default="", editable=False),
        ),
        migrations.AlterField(
            model_name="entity",
            name="name",
            field=models.CharField(max_length=200, validators=[cards.text.name_validator]),
        ),
        migrations.AlterField(
            model_name="alias",
            name="name",
            field=models.CharField(max_length=200, validators=[cards.text.name_validator]),
        ),
        migrations.AlterField(
            model_name="label",
            name="synonyms",
            field=django.contrib.postgres.fields.ArrayField(
                base_field=models.CharField(max_length=64, validators=[cards.text.name_validator]),
                blank=True, default=list, size=None),
        ),
        migrations.RunPython(fill_skeletons, migrations.RunPython.noop),
        migrations.AddIndex(
            model_name="entity",
            index=models.Index(fields=["scope", "name_skeleton"], name="entity_skeleton_in_scope"),
        ),
        migrations.AddIndex(
            model_name="alias",
            index=models.Index(fields=["scope", "name_skeleton"], name="alias_skeleton_in_scope"),
        ),
        migrations.RunPython(propose_look_alikes, migrations.RunPython.noop),
    ]
