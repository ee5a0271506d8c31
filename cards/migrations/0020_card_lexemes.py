"""Every card keeps its words (cards/words/lexical.py card_lexemes) for recall's lexical
score beside the vector's, with a GIN index for "holds any of these words".
Existing cards get theirs here, in batches."""

import django.contrib.postgres.fields
import django.contrib.postgres.indexes
from django.conf import settings
from django.db import migrations, models

BATCH = 2_000


def fill_lexemes(apps, schema_editor):
    from cards.words.lexical import card_lexemes

    Card = apps.get_model("cards", "Card")
    rows = []
    for card in (Card.objects.only("id", "value", "text", "label__key", "object__name")
                 .select_related("label", "object").iterator(chunk_size=BATCH)):
        card.lexemes = card_lexemes(label_key=card.label.key, value=card.value, text=card.text,
                                    object_name=card.object.name if card.object_id else None)
        rows.append(card)
        if len(rows) == BATCH:
            Card.objects.bulk_update(rows, ["lexemes"])
            rows = []
    Card.objects.bulk_update(rows, ["lexemes"])


class Migration(migrations.Migration):

    dependencies = [
        ('cards', '0019_name_skeletons'),
        ('scopes', '0009_minors_and_propose_tokens'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='card',
            name='lexemes',
            field=django.contrib.postgres.fields.ArrayField(base_field=models.TextField(), blank=True, default=list, editable=False, size=None),
        ),
        migrations.RunPython(fill_lexemes, migrations.RunPython.noop),
        migrations.AddIndex(
            model_name='card',
            index=django.contrib.postgres.indexes.GinIndex(fields=['lexemes'], name='card_lexemes'),
        ),
    ]
