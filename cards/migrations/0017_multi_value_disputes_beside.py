# Disputes stand beside a timeline, outside its uniqueness (DESIGN §4 rule 7),
# on multi-value labels too: likes/dislikes of one value share a timeline, and a
# member's own "dislikes coriander" was refused by the index while another
# member's "she dislikes coriander" stood beside her "likes" (it then settles
# it). The single-value index already left disputes out. The narrower index is
# built CONCURRENTLY beside the old one, which is then dropped (hence atomic =
# False, one statement per operation); the model's state changes in one step.
# Numbered 0017 on purpose; its parent may move on merge.

from django.db import migrations, models

COLUMNS = "(scope_id, subject_id, label_id, value_norm)"
BESIDE = ("cardinality = 'multi' AND disputes_id IS NULL AND kind = 'state' AND superseded_at IS NULL"
          " AND NOT (tag = 'hypothesis')")
BEFORE = "cardinality = 'multi' AND kind = 'state' AND superseded_at IS NULL AND NOT (tag = 'hypothesis')"


def _swap(condition: str) -> list[str]:
    return [f"CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS one_current_per_multi_value_next ON cards_card"
            f" {COLUMNS} WHERE {condition}",
            "DROP INDEX CONCURRENTLY IF EXISTS one_current_per_multi_value",
            "ALTER INDEX one_current_per_multi_value_next RENAME TO one_current_per_multi_value"]


class Migration(migrations.Migration):

    atomic = False

    dependencies = [
        ('cards', '0016_card_session_index'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveConstraint(model_name='card', name='one_current_per_multi_value'),
                migrations.AddConstraint(
                    model_name='card',
                    constraint=models.UniqueConstraint(
                        condition=models.Q(('cardinality', 'multi'), ('disputes__isnull', True), ('kind', 'state'),
                                           ('superseded_at__isnull', True),
                                           models.Q(('tag', 'hypothesis'), _negated=True)),
                        fields=('scope', 'subject', 'label', 'value_norm'), name='one_current_per_multi_value'),
                ),
            ],
            database_operations=[
                migrations.RunSQL(forward, reverse)
                for forward, reverse in zip(_swap(BESIDE), reversed(_swap(BEFORE)))
            ],
        ),
    ]
