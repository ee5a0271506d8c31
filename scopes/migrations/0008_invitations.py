# Membership by consent: an invitation by name, which grants nothing until accepted.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('scopes', '0007_global_scope'),
    ]

    operations = [
        migrations.CreateModel(
            name='Invitation',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('username', models.CharField(help_text='The name as it was asked for.', max_length=150)),
                ('role', models.CharField(choices=[('owner', 'Owner'), ('admin', 'Admin'), ('member', 'Member'), ('reviewer', 'Reviewer'), ('viewer', 'Viewer')], max_length=16)),
                ('relation', models.CharField(blank=True, help_text='What the invitee is to the person who invited them (a relation key); stated when they accept.', max_length=32)),
                ('status', models.CharField(choices=[('invited', 'Invited'), ('accepted', 'Accepted'), ('declined', 'Declined'), ('withdrawn', 'Withdrawn')], default='invited', max_length=16)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('decided_at', models.DateTimeField(blank=True, null=True)),
                ('invited_by', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('invitee', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='invitations', to=settings.AUTH_USER_MODEL)),
                ('scope', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='invitations', to='scopes.scope')),
            ],
            options={
                'indexes': [models.Index(fields=['invitee', 'status'], name='invitation_by_invitee')],
                'constraints': [models.UniqueConstraint(condition=models.Q(('status', 'invited')), fields=('scope', 'username'), name='one_open_invitation_per_name')],
            },
        ),
    ]
