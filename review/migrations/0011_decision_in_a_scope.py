"""Every review decision has a scope: a rule's decisions, scope-less until now, are in the global scope,
where rules live. Then decisions are keyed by (id, scope_id), as Citus needs to distribute them by scope
(core/scope_keys.py, docs/distributed.md)."""

import django.db.models.deletion
from django.db import migrations, models

from core.scope_keys import scope_primary_key

GLOBAL_NAME = "Common sense"   # as scopes 0007 names it


def rule_decisions_in_global(apps, schema_editor):
    Decision = apps.get_model("review", "Decision")
    Scope = apps.get_model("scopes", "Scope")
    if not Decision.objects.filter(scope__isnull=True).exists():
        return
    # A frozen copy of scopes.services.global_scope_get: the one global scope, made if someone deleted it.
    scope, _created = Scope.objects.get_or_create(kind="global", defaults={"name": GLOBAL_NAME})
    Decision.objects.filter(scope__isnull=True).update(scope=scope)


class Migration(migrations.Migration):

    dependencies = [
        ("review", "0010_scope_keys"),
        ("scopes", "0007_global_scope"),
    ]

    operations = [
        migrations.RunPython(rule_decisions_in_global, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="decision",
            name="scope",
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="+",
                                    to="scopes.scope"),
        ),
        migrations.RunSQL(*scope_primary_key("review_decision")),
    ]
