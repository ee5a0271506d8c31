# Built CONCURRENTLY (hence atomic = False), like the HNSW index: on a filled
# table a plain CREATE INDEX would block card writes while it builds.

from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations, models


class Migration(migrations.Migration):

    atomic = False

    dependencies = [
        ('cards', '0010_entity_merged_into'),
    ]

    operations = [
        AddIndexConcurrently(
            model_name='card',
            index=models.Index(condition=models.Q(('superseded_at__isnull', True)), fields=['-verified_at'],
                               name='card_current_recent'),
        ),
    ]
