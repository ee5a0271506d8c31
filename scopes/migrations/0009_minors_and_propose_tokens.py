"""Roles that fit a household: a family's owner marks a member as a minor, and
a token can be made propose-only (its writes wait in its person's review queue).
Both additive, both default off: every existing membership and token keeps
meaning what it meant."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("scopes", "0008_invitations"),
    ]

    operations = [
        migrations.AddField(
            model_name="membership",
            name="minor",
            field=models.BooleanField(default=False, help_text="A minor in this family: no tokens or scopes of "
                                                               "their own; the family's owners see and revoke "
                                                               "their tokens."),
        ),
        migrations.AddConstraint(
            model_name="membership",
            constraint=models.CheckConstraint(condition=models.Q(("minor", True), ("role", "owner"), _negated=True),
                                              name="a_minor_is_never_owner"),
        ),
        migrations.AddIndex(
            model_name="membership",
            index=models.Index(condition=models.Q(("minor", True)), fields=["user"], name="minor_memberships"),
        ),
        migrations.AddField(
            model_name="agenttoken",
            name="proposes",
            field=models.BooleanField(default=False, help_text="Its writes wait in its person's review queue."),
        ),
        migrations.AddConstraint(
            model_name="agenttoken",
            constraint=models.CheckConstraint(condition=models.Q(("can_write", True), ("proposes", True),
                                                                 _negated=True),
                                              name="token_writes_or_proposes"),
        ),
    ]
