"""The built-in label registry. Cardinality is chosen for what goes wrong if it
is wrong: a stale single value (two addresses) is worse than a lost extra one,
so "where/what is it now" attributes are single; sets a person accumulates
(skills, languages, allergies) are multi. Health, religion, politics, sexuality
and ethnicity labels are marked sensitive and need explicit consent."""

from django.db import migrations

SINGLE, MULTI = "single", "multi"
STATE, EVENT, KNOWLEDGE = "state", "event", "knowledge"
# λ per day: single-value states halve in ~35 days, multi-value in ~140 (DESIGN §6).
L_SINGLE, L_MULTI = 0.02, 0.005

LABELS = [
    # key, kind, cardinality, λ, synonyms, description, takes_object, sensitive
    ("address", STATE, SINGLE, L_SINGLE, ["home address", "home", "residence", "street address", "lives at"],
     "Where the subject lives now.", False, False),
    ("city", STATE, SINGLE, L_SINGLE, ["home city", "town", "lives in"], "The city the subject lives in.", False, False),
    ("country", STATE, SINGLE, L_SINGLE, ["home country", "country of residence"], "The country the subject lives in.", False, False),
    ("employer", STATE, SINGLE, L_SINGLE, ["company", "current company", "workplace", "works for"],
     "The organisation the subject works for now.", False, False),
    ("works_at", STATE, SINGLE, L_SINGLE, ["place of work", "office"],
     "Where the subject works now, as an entity.", True, False),
    ("job_title", STATE, SINGLE, L_SINGLE, ["job", "position", "occupation", "title", "role"],
     "The subject's current job title.", False, False),
    ("manager", STATE, SINGLE, L_SINGLE, ["boss", "supervisor", "reports to"], "Who the subject reports to.", True, False),
    ("phone", STATE, SINGLE, L_SINGLE, ["phone number", "mobile", "cell", "telephone"], "Main phone number.", False, False),
    ("email", STATE, SINGLE, L_SINGLE, ["email address", "e-mail", "mail"], "Main email address.", False, False),
    ("birthday", STATE, SINGLE, L_MULTI, ["date of birth", "birth date", "dob", "born on"], "Date of birth.", False, False),
    ("browser", STATE, SINGLE, L_SINGLE, ["web browser", "preferred browser"], "The browser the subject uses.", False, False),
    ("diet", STATE, SINGLE, L_SINGLE, ["dietary preference", "eating style", "diet type"],
     "How the subject eats now (vegetarian, vegan, …).", False, False),
    ("name", STATE, SINGLE, L_MULTI, ["full name", "preferred name", "called"], "What the subject is called.", False, False),
    ("partner", STATE, SINGLE, L_SINGLE, ["spouse", "wife", "husband", "significant other", "boyfriend", "girlfriend"],
     "The subject's partner now.", True, False),
    ("relationship_status", STATE, SINGLE, L_SINGLE, ["marital status"], "Single, married, …", False, False),
    ("time_zone", STATE, SINGLE, L_SINGLE, ["timezone", "tz"], "The time zone the subject lives in.", False, False),
    ("car", STATE, SINGLE, L_SINGLE, ["vehicle", "drives"], "The car the subject drives now.", False, False),
    ("school", STATE, SINGLE, L_SINGLE, ["university", "college", "studies at"], "Where the subject studies now.", False, False),
    ("stage", STATE, SINGLE, L_SINGLE, ["current stage", "current_stage", "phase", "project status", "status"],
     "The current stage of a project or plan.", False, False),
    ("weight", STATE, SINGLE, L_SINGLE, ["body weight"], "Body weight (health data).", False, True),
    ("religion", STATE, SINGLE, L_MULTI, ["faith", "religious belief"], "Religion (sensitive).", False, True),
    ("sexual_orientation", STATE, SINGLE, L_MULTI, ["sexuality"], "Sexual orientation (sensitive).", False, True),
    ("ethnicity", STATE, SINGLE, L_MULTI, ["race", "ethnic background"], "Ethnicity (sensitive).", False, True),
    ("advisor", STATE, MULTI, L_MULTI, ["supervisor at school", "mentor", "thesis advisor"],
     "An advisor of the subject (co-advisors are common).", True, False),
    ("skill", STATE, MULTI, L_MULTI, ["skills", "can do", "expertise", "good at"], "Something the subject can do.", False, False),
    ("interest", STATE, MULTI, L_MULTI, ["interests", "interested in", "into"], "Something the subject is interested in.", False, False),
    ("language", STATE, MULTI, L_MULTI, ["languages", "speaks"], "A language the subject speaks.", False, False),
    ("topic", STATE, MULTI, L_MULTI, ["topics", "topic discussed", "discussed"], "A topic the subject talks about.", False, False),
    ("hobby", STATE, MULTI, L_MULTI, ["hobbies", "pastime"], "A hobby.", False, False),
    ("likes", STATE, MULTI, L_MULTI, ["like", "loves", "enjoys", "favorite", "favourite"], "Something the subject likes.", False, False),
    ("dislikes", STATE, MULTI, L_MULTI, ["dislike", "hates", "does not like"], "Something the subject dislikes.", False, False),
    ("allergy", STATE, MULTI, L_MULTI, ["allergies", "allergic to"], "An allergy (health data).", False, True),
    ("health_condition", STATE, MULTI, L_MULTI, ["condition", "illness", "diagnosis", "medication"],
     "A health condition or medication (sensitive).", False, True),
    ("political_view", STATE, MULTI, L_MULTI, ["politics", "party affiliation"], "A political view (sensitive).", False, True),
    ("pet", STATE, MULTI, L_MULTI, ["pets", "has pet"], "A pet of the subject.", False, False),
    ("child", STATE, MULTI, L_MULTI, ["son", "daughter", "kid"], "A child of the subject.", True, False),
    ("parent", STATE, MULTI, L_MULTI, ["mother", "father", "mom", "dad"], "A parent of the subject.", True, False),
    ("sibling", STATE, MULTI, L_MULTI, ["brother", "sister"], "A sibling of the subject.", True, False),
    ("friend", STATE, MULTI, L_MULTI, ["friends", "buddy"], "A friend of the subject.", True, False),
    ("member_of", STATE, MULTI, L_MULTI, ["belongs to", "part of"], "A group the subject belongs to.", True, False),
    ("is_a", STATE, MULTI, L_MULTI, ["is a", "kind of", "type of", "instance of"],
     "A kind the subject belongs to; an entity may be of several kinds.", True, False),
    ("used_for", STATE, MULTI, L_MULTI, ["use", "purpose", "good for"], "What the subject is used for.", False, False),
    ("has", STATE, MULTI, L_MULTI, ["has part", "owns", "possesses", "contains"], "Something the subject has.", False, False),
    ("needs", STATE, MULTI, L_MULTI, ["requires", "need"], "Something the subject needs.", False, False),
    ("made_of", STATE, MULTI, L_MULTI, ["material", "made from"], "What the subject is made of.", False, False),
    # Events: write-once; λ reflects how long such an event stays relevant.
    ("wedding", EVENT, MULTI, 0.003, ["marriage ceremony", "got married"], "A wedding.", False, False),
    ("trip", EVENT, MULTI, 0.005, ["travel", "vacation", "holiday", "journey"], "A trip.", False, False),
    ("meeting", EVENT, MULTI, 0.02, ["met", "sync", "call"], "A meeting or call.", False, False),
    ("decision", EVENT, MULTI, 0.005, ["decided", "resolution"], "A decision that was taken.", False, False),
    ("purchase", EVENT, MULTI, 0.01, ["bought", "order"], "Something bought.", False, False),
    ("visit", EVENT, MULTI, 0.01, ["visited"], "A visit to a place or person.", False, False),
    ("appointment", EVENT, MULTI, 0.02, ["booking", "reservation"], "An appointment or booking.", False, False),
    ("move", EVENT, MULTI, 0.005, ["moved", "relocation", "moving house"], "Moving home or office.", False, False),
    ("birth", EVENT, MULTI, 0.001, ["born", "new baby"], "A birth.", False, False),
    ("graduation", EVENT, MULTI, 0.002, ["graduated"], "A graduation.", False, False),
    ("party", EVENT, MULTI, 0.01, ["celebration", "birthday party"], "A party or celebration.", False, False),
    ("milestone", EVENT, MULTI, 0.005, ["achievement", "launch", "release"], "A milestone reached.", False, False),
    ("meal", EVENT, MULTI, 0.03, ["dinner", "lunch", "breakfast", "restaurant"], "A meal out or in company.", False, False),
    ("outing", EVENT, MULTI, 0.02, ["concert", "show", "movie", "game"], "An outing: a concert, a film, a match.", False, False),
    # Knowledge: no decay; merged and renamed with history.
    ("note", KNOWLEDGE, MULTI, 0.0, ["notes", "memo"], "Something to keep in mind.", False, False),
    ("howto", KNOWLEDGE, MULTI, 0.0, ["how to", "instructions", "procedure", "steps"], "How to do something.", False, False),
    ("principle", KNOWLEDGE, MULTI, 0.0, ["lesson", "learned", "rule of thumb", "guideline"], "A learned principle.", False, False),
    ("reference", KNOWLEDGE, MULTI, 0.0, ["link", "resource", "document"], "A pointer to a resource.", False, False),
    ("definition", KNOWLEDGE, MULTI, 0.0, ["meaning", "glossary", "term"], "What a term means.", False, False),
    ("design", KNOWLEDGE, MULTI, 0.0, ["architecture", "design decision"], "A design or architecture note.", False, False),
]


def load(apps, schema_editor):
    Label = apps.get_model("cards", "Label")
    for key, kind, cardinality, decay, synonyms, description, takes_object, sensitive in LABELS:
        Label.objects.update_or_create(key=key, defaults={
            "kind": kind, "cardinality": cardinality, "decay_lambda": decay, "synonyms": synonyms,
            "description": description, "takes_object": takes_object, "sensitive": sensitive})


def unload(apps, schema_editor):
    apps.get_model("cards", "Label").objects.filter(key__in=[row[0] for row in LABELS]).delete()


class Migration(migrations.Migration):
    dependencies = [("cards", "0004_event_write_once")]
    operations = [migrations.RunPython(load, unload)]
