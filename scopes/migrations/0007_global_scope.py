"""Every install has the one `global` scope (DESIGN §3: admitted common sense,
read by everyone, written only through review). Until now it appeared only
when some code asked for it, so a fresh install had none and its rules could
not be reviewed from the dashboard.

A frozen copy of scopes.services.global_scope_get, on the historical model:
a migration must keep meaning what it meant when it was written, whatever the
live helper becomes. Numbered 0007 on purpose; its parent may move on merge."""

from django.db import migrations

GLOBAL_NAME = "Common sense"


def global_scope_create(apps, schema_editor):
    Scope = apps.get_model("scopes", "Scope")
    # The unique index one_global_scope makes a second one impossible; get_or_create keeps it idempotent.
    Scope.objects.get_or_create(kind="global", defaults={"name": GLOBAL_NAME})


class Migration(migrations.Migration):

    dependencies = [
        ("scopes", "0006_user_language"),
    ]

    # Not undone: deleting the scope would delete the common sense stored in it.
    operations = [migrations.RunPython(global_scope_create, migrations.RunPython.noop)]
