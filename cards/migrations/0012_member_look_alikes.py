"""Members are their own entities in every shared scope they belong to. An
entity made before that for a member's name (Sam's "Dana" in the family, beside
Dana's own) is proposed for merge into the member's entity, in the review queue;
nothing is merged without a reviewer."""

from django.db import migrations

from cards.services.entities import duplicates_propose


def propose_member_look_alikes(apps, schema_editor):
    Entity = apps.get_model("cards", "Entity")
    shared = Entity.objects.filter(user__isnull=True, merged_into__isnull=True).exclude(
        scope__kind__in=["personal", "global"])
    for entity in shared.only("id", "scope_id", "name_norm", "user_id").iterator():
        duplicates_propose(entity)


class Migration(migrations.Migration):

    dependencies = [
        ("cards", "0011_card_current_recent"),
        ("scopes", "0005_member_relations"),
    ]

    operations = [migrations.RunPython(propose_member_look_alikes, migrations.RunPython.noop)]
