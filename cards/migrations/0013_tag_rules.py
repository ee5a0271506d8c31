"""The tag rules (DESIGN §4 rule 7): guesses and disputes stand beside a
timeline, opposite labels share one. Until now a hypothesis on a single-value
label closed the stated value; those values are given back their span."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

OPPOSITES = [("likes", "dislikes"), ("prefers", "avoids")]
NEW_LABELS = [
    ("prefers", ["prefer", "would rather", "favours", "favors"], "Something the subject prefers."),
    ("avoids", ["avoid", "stays away from", "would rather not"], "Something the subject avoids."),
]


def forward(apps, schema_editor):
    Label, Card = apps.get_model("cards", "Label"), apps.get_model("cards", "Card")
    for key, synonyms, description in NEW_LABELS:
        Label.objects.get_or_create(key=key, defaults={
            "kind": "state", "cardinality": "multi", "decay_lambda": 0.005, "synonyms": synonyms,
            "description": description})
    for one, other in OPPOSITES:
        a, b = Label.objects.get(key=one), Label.objects.get(key=other)
        Label.objects.filter(pk=a.pk).update(opposite=b)
        Label.objects.filter(pk=b.pk).update(opposite=a)
    # A stated value a guess closed holds on over the guess's span: it ends where
    # the guess was followed by a statement, or stays open.
    while True:
        closed = list(Card.objects.filter(superseded_by__tag="hypothesis").exclude(tag="hypothesis")
                      .select_related("superseded_by"))
        if not closed:
            break
        for card in closed:
            guess = card.superseded_by
            card.superseded_at, card.superseded_by_id = (
                (guess.superseded_at, guess.superseded_by_id) if guess.superseded_by_id else (None, None))
            card.save(update_fields=["superseded_at", "superseded_by"])


def backward(apps, schema_editor):
    apps.get_model("cards", "Label").objects.update(opposite=None)


class Migration(migrations.Migration):

    dependencies = [
        ('cards', '0012_member_look_alikes'),
        ('scopes', '0005_member_relations'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='card',
            name='one_current_single_value',
        ),
        migrations.RemoveConstraint(
            model_name='card',
            name='one_current_per_multi_value',
        ),
        migrations.AddField(
            model_name='card',
            name='disputes',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='disputed_by', to='cards.card'),
        ),
        migrations.AddField(
            model_name='label',
            name='opposite',
            field=models.OneToOneField(blank=True, help_text='The label that excludes this one for the same value.', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='cards.label'),
        ),
        migrations.AddConstraint(
            model_name='card',
            constraint=models.UniqueConstraint(condition=models.Q(('cardinality', 'single'), ('disputes__isnull', True), ('kind', 'state'), ('superseded_at__isnull', True), models.Q(('tag', 'hypothesis'), _negated=True)), fields=('scope', 'subject', 'label'), name='one_current_single_value'),
        ),
        migrations.AddConstraint(
            model_name='card',
            constraint=models.UniqueConstraint(condition=models.Q(('cardinality', 'multi'), ('kind', 'state'), ('superseded_at__isnull', True), models.Q(('tag', 'hypothesis'), _negated=True)), fields=('scope', 'subject', 'label', 'value_norm'), name='one_current_per_multi_value'),
        ),
        migrations.AddConstraint(
            model_name='card',
            constraint=models.UniqueConstraint(condition=models.Q(('kind', 'state'), ('superseded_at__isnull', True), ('tag', 'hypothesis')), fields=('scope', 'subject', 'label', 'value_norm'), name='one_current_guess_per_value'),
        ),
        migrations.AddIndex(
            model_name='card',
            index=models.Index(condition=models.Q(('superseded_at__isnull', False)), fields=['scope', 'superseded_at'], name='card_closing'),
        ),
        migrations.RunPython(forward, backward),
    ]

