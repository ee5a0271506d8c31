"""Built-in approved rules (DESIGN §7): kinds chain, and a thing inherits the
listed properties of every kind it is (an electric car is a car and an appliance)."""

from django.db import migrations
from django.utils import timezone

INHERITABLE = ("used_for", "has", "needs", "made_of")

RULES = [
    ("is_a is transitive", "A kind of a kind is a kind: X is a K and K is a J, so X is a J.",
     [["?x", "is_a", "?k"], ["?k", "is_a", "?j"]], ["?x", "is_a", "?j"]),
    *[(f"inherit {label}", f"X is a K and K {label.replace('_', ' ')} V, so X {label.replace('_', ' ')} V.",
       [["?x", "is_a", "?k"], ["?k", label, "?v"]], ["?x", label, "?v"]) for label in INHERITABLE],
]


def load(apps, schema_editor):
    Rule = apps.get_model("cards", "Rule")
    now = timezone.now()
    for name, description, premises, conclusion in RULES:
        Rule.objects.update_or_create(name=name, defaults={
            "description": description, "premises": premises, "conclusion": conclusion,
            "status": "approved", "approved_at": now})


def unload(apps, schema_editor):
    apps.get_model("cards", "Rule").objects.filter(name__in=[row[0] for row in RULES]).delete()


class Migration(migrations.Migration):
    dependencies = [("cards", "0008_rules_and_duplicates")]
    operations = [migrations.RunPython(load, unload)]
