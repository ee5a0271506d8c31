# Each vector records which model made it (cards/embeddings/spaces.py). Every vector stored so far is
# all-MiniLM-L6-v2's, the only model there was.
#
# Without rewriting the table (PERFORMANCE.md: a million rows through their HNSW index is not a migration
# step): a column added with a constant default is only recorded in the catalogue, so every existing row
# reads 'minilm-l6-v2' at once; the one UPDATE is of the few rows without a vector (the partial index
# card_unembedded finds them), which get NULL; then the default goes, and new rows start without a space
# until the embedding service writes their vector and its space together.
#
# The check that holds the two together is added NOT VALID (instant) and validated apart, so that its scan
# of the table takes no lock that stops reads or writes; hence each statement commits on its own.

from django.db import migrations, models

CONSTRAINT = "card_vector_with_its_space"
FORWARD = [
    "ALTER TABLE cards_card ADD COLUMN embedding_space varchar(64) DEFAULT 'minilm-l6-v2'",
    "UPDATE cards_card SET embedding_space = NULL WHERE embedding IS NULL",
    "ALTER TABLE cards_card ALTER COLUMN embedding_space DROP DEFAULT",
    f"ALTER TABLE cards_card ADD CONSTRAINT {CONSTRAINT} CHECK ((embedding IS NULL AND embedding_space IS NULL)"
    " OR (embedding IS NOT NULL AND embedding_space IS NOT NULL)) NOT VALID",
    f"ALTER TABLE cards_card VALIDATE CONSTRAINT {CONSTRAINT}",
]
BACKWARD = [f"ALTER TABLE cards_card DROP CONSTRAINT {CONSTRAINT}",
            "ALTER TABLE cards_card DROP COLUMN embedding_space"]


class Migration(migrations.Migration):

    atomic = False

    dependencies = [
        ('cards', '0030_standing_beside'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunSQL(FORWARD, BACKWARD)],
            state_operations=[
                migrations.AddField(
                    model_name='card',
                    name='embedding_space',
                    field=models.CharField(blank=True, editable=False, max_length=64, null=True),
                ),
                migrations.AddConstraint(
                    model_name='card',
                    constraint=models.CheckConstraint(
                        condition=models.Q(models.Q(('embedding__isnull', True), ('embedding_space__isnull', True)),
                                           models.Q(('embedding__isnull', False),
                                                    ('embedding_space__isnull', False)), _connector='OR'),
                        name=CONSTRAINT),
                ),
            ],
        ),
    ]
