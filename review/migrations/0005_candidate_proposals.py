"""Propose-only agent tokens: their cards wait as candidates, which remember
the token and the phrasings it asked for; an ingest job remembers whether
what it extracts may be auto-accepted (never for such a token). Additive."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("review", "0004_candidate_expired"),
        ("scopes", "0002_agent_tokens"),
    ]

    operations = [
        migrations.AddField(
            model_name="candidate",
            name="proposed_by",
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL,
                                    related_name="+", to="scopes.agenttoken"),
        ),
        migrations.AddField(
            model_name="candidate",
            name="perspectives",
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.AddField(
            model_name="ingestjob",
            name="auto_accept",
            field=models.BooleanField(default=True),
        ),
    ]
