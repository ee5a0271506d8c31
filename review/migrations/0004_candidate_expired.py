from django.db import migrations, models


class Migration(migrations.Migration):
    """Candidates nobody decided within the retention period leave the queue as `expired`."""

    dependencies = [
        ('review', '0003_candidate_anchor_zone'),
    ]

    operations = [
        migrations.AlterField(
            model_name='candidate',
            name='status',
            field=models.CharField(choices=[('pending', 'Pending'), ('needs_consent', 'Needs Consent'),
                                            ('approved', 'Approved'), ('auto_accepted', 'Auto Accepted'),
                                            ('rejected', 'Rejected'), ('expired', 'Expired')],
                                   default='pending', max_length=16),
        ),
    ]
