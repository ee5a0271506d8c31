# Cards without a vector yet, for the embedding sweep and recall's exact scan of
# them (cards/recall/unembedded.py). Partial, so it holds only the few waiting cards.
# Built CONCURRENTLY (hence atomic = False), like the other card indexes.
# Numbered 0017 on purpose; its parent may move on merge.

from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations, models


class Migration(migrations.Migration):

    atomic = False

    dependencies = [
        ('cards', '0017_multi_value_disputes_beside'),
    ]

    operations = [
        AddIndexConcurrently(
            model_name='card',
            index=models.Index(condition=models.Q(('embedding__isnull', True)), fields=['scope', 'verified_at'],
                               name='card_unembedded'),
        ),
    ]
