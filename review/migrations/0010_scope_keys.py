"""Ingest jobs, upkeep runs and signals keyed by (id, scope_id), and the keys into them going through the
scope (core/scope_keys.py, docs/distributed.md): what Citus needs to distribute them by scope_id, and the
same schema on one PostgreSQL. Existing rows already agree: a job's candidates and a run's proposals were
always written in its scope."""

import django.db.models.deletion
from django.db import migrations, models

from core.scope_keys import scope_foreign_key, scope_primary_key

KEYED = ("review_ingestjob", "review_upkeeprun", "review_signal")
THROUGH_SCOPE = (("review_candidate", "job_id", "review_ingestjob"),
                 ("review_upkeepproposal", "run_id", "review_upkeeprun"))


class Migration(migrations.Migration):

    dependencies = [
        ('review', '0009_upkeep_archive_projects'),
    ]

    operations = [
        # Django's own single-column keys go first: they hold on the primary keys being replaced.
        migrations.AlterField(
            model_name='candidate',
            name='job',
            field=models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='candidates', to='review.ingestjob'),
        ),
        migrations.AlterField(
            model_name='upkeepproposal',
            name='run',
            field=models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='review.upkeeprun'),
        ),
        *(migrations.RunSQL(*scope_primary_key(table)) for table in KEYED),
        *(migrations.RunSQL(*scope_foreign_key(*key)) for key in THROUGH_SCOPE),
    ]
