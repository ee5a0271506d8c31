"""The rows migrations create (content types, permissions, labels, rules), put
back when a transactional test finds them gone.

Tests on a live server or real threads run on committed data, and the database
is flushed after each such test; serialized_rollback restores the migrated rows
only when this run created the test database (not under --reuse-db), and was
seen not to after another transactional test. So they are put back here, from
what creates them, whenever they are missing."""

from __future__ import annotations

import importlib


def builtin_rows_restore() -> None:
    from django.apps import apps
    from django.contrib.auth.management import create_permissions
    from django.contrib.auth.models import Permission
    from django.contrib.contenttypes.management import create_contenttypes

    from cards.labels import registry_clear
    from cards.models import Label, Rule

    if not Permission.objects.filter(codename="view_scope").exists():  # guardian grants need them
        for app_config in apps.get_app_configs():
            create_contenttypes(app_config, verbosity=0)
            create_permissions(app_config, verbosity=0)
    if not Label.objects.exists():
        importlib.import_module("cards.migrations.0005_builtin_labels").load(apps, None)
        importlib.import_module("cards.migrations.0013_tag_rules").forward(apps, None)
        importlib.import_module("cards.migrations.0014_label_ages_and_asked").never_age(apps, None)
        # The spoken and Chinese synonyms, and the labels added since ("Where do I live?" names address).
        importlib.import_module("cards.migrations.0021_label_synonyms_spoken").add(apps, None)
        importlib.import_module("cards.migrations.0023_profile_labels").add(apps, None)  # tone, brevity…
    if not Rule.objects.exists():
        importlib.import_module("cards.migrations.0009_builtin_rules").load(apps, None)
    registry_clear()
