# The hypothesis lifecycle counts the sessions a person wrote cards in, per
# scope, since a time (review.services.hypotheses SESSIONS_SINCE); this partial
# index holds only cards that carry a session. Built CONCURRENTLY (hence
# atomic = False), like the other card indexes: a plain CREATE INDEX would block
# card writes while it builds. Numbered 0016 on purpose; its parent may move on merge.

from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations, models


class Migration(migrations.Migration):

    atomic = False

    dependencies = [
        ('cards', '0015_card_anchor_zone'),
    ]

    operations = [
        AddIndexConcurrently(
            model_name='card',
            index=models.Index(condition=models.Q(('source_session', ''), _negated=True),
                               fields=['scope', 'source_actor', 'recorded_at'], include=('source_session',),
                               name='card_sessions'),
        ),
    ]
