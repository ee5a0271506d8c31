"""Which labels age, and the record of check-in questions asked.

A label ages when its value can change: only then is a single-value state left
unconfirmed for AGING_DAYS put back to the person ("I remember you live in
Taipei — is this still accurate?"). Among the built-in single-value states a
date of birth cannot change, and a name, a religion, a sexual orientation or an
ethnicity is the person's to correct, not ours to re-check; every other one (an
address, an employer, a weight…) can go stale. Multi-value, event and knowledge
labels never age (aging reads single-value states only), so their flag stays at
its default.

CardAsked records that a person's agent put a card's question to them, for the
card as it stood (its verified_at then), so the same question is not asked again."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

NEVER_AGE = ("birthday", "name", "religion", "sexual_orientation", "ethnicity")


def never_age(apps, schema_editor):
    apps.get_model("cards", "Label").objects.filter(key__in=NEVER_AGE).update(ages=False)


def age_again(apps, schema_editor):
    apps.get_model("cards", "Label").objects.filter(key__in=NEVER_AGE).update(ages=True)


class Migration(migrations.Migration):

    dependencies = [
        ("cards", "0013_tag_rules"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="label",
            name="ages",
            field=models.BooleanField(default=True, help_text="Its value can change, so a single-value state of it "
                                                              "that stays unconfirmed long enough is re-checked with "
                                                              "the person."),
        ),
        migrations.RunPython(never_age, age_again),
        migrations.CreateModel(
            name="CardAsked",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("asked_at", models.DateTimeField()),
                ("card_verified_at", models.DateTimeField()),
                ("card", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE,
                                           related_name="questions_asked", to="cards.card")),
                ("user", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="+",
                                           to=settings.AUTH_USER_MODEL)),
            ],
            options={
                "constraints": [models.UniqueConstraint(fields=("card", "user"),
                                                        name="one_question_record_per_person")],
            },
        ),
    ]
