"""The profile's labels (DESIGN §6 "Profile"): how to talk to a person — their
tone, how brief the answers should be, how they like to work and how they
decide. One value each (a new statement supersedes the old); a person states
them (tag preference) or an agent guesses them (tag hypothesis, with a
confidence), and a guess stands beside the stated value, never over it.

They decay slowly: a way of talking or deciding changes over months, not days.
Names follow 0021: everyday words, and Chinese in Simplified; a name another
label holds already is not added (one name, one label)."""

from django.db import migrations

L_STYLE = 0.005

# key, synonyms (English, then Chinese), description
STYLE_LABELS = [
    ("tone", ["tone of voice", "communication style", "speaking style", "语气", "口吻", "说话方式",
              "沟通风格", "沟通方式"],
     "How the subject wants to be talked to: direct, exploratory, formal, playful…"),
    ("brevity", ["answer length", "length of answers", "verbosity", "detail level", "level of detail", "回答长度",
                 "篇幅", "详略", "简洁程度"],
     "How long the subject wants answers: short answers, bullet points, full detail…"),
    ("workflow_style", ["workflow", "working style", "work style", "way of working", "工作方式", "工作风格",
                        "做事方式"],
     "How the subject likes to work: step by step, plan first, iterate quickly…"),
    ("decision_style", ["decision making", "decision-making style", "决策方式", "决策风格",
                        "做决定的方式"],
     "How the subject makes decisions: quickly, after weighing options, with data…"),
]


def add(apps, schema_editor):
    Label = apps.get_model("cards", "Label")
    for key, synonyms, description in STYLE_LABELS:
        taken = {n for other in Label.objects.exclude(key=key) for n in [other.key, *other.synonyms]}
        Label.objects.get_or_create(key=key, defaults={
            "kind": "state", "cardinality": "single", "decay_lambda": L_STYLE,
            "synonyms": [n for n in synonyms if n not in taken], "description": description})


def remove(apps, schema_editor):
    apps.get_model("cards", "Label").objects.filter(key__in=[row[0] for row in STYLE_LABELS],
                                                    cards__isnull=True).delete()


class Migration(migrations.Migration):

    dependencies = [
        ('cards', '0022_card_source_token'),
    ]

    operations = [migrations.RunPython(add, remove)]
