"""tests/builtin_rows.py puts back exactly the labels the migrations make."""

import pytest

from cards.models import Label
from tests.builtin_rows import builtin_rows_restore


@pytest.mark.django_db(transaction=True, serialized_rollback=True)  # starts from the migrated rows
def test_the_restored_labels_are_the_migrated_ones():
    migrated = {(label.key, tuple(label.synonyms), label.ages, label.sensitive) for label in Label.objects.all()}
    Label.objects.all().delete()  # what a flush after a live-server test leaves (no card holds them here)
    builtin_rows_restore()
    assert {(label.key, tuple(label.synonyms), label.ages, label.sensitive) for label in Label.objects.all()} == migrated
