"""Seed a small fictional household so the dashboard, the admin and the API have something to show.

Every card goes through card_remember (and corrections through their services),
so the demo data obeys the same rules as real writes: supersede chains,
multi-value labels, write-once events, consent for sensitive labels. The review
queue is seeded the same way — a conversation read by the extractor, an agent's
proposals through its propose-only token, a guess, a contradiction, a draft
rule — so it can be tried at once. The seed spans the store and the queue, so it
is the site's command (memory_site), above both layers.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo

from dateutil.relativedelta import relativedelta
from django.core.management.base import BaseCommand
from django.db import transaction
from django.db.models import Count
from django.utils import timezone

from cards.drafts import CardDraft
from cards.models import Card, Entity, Rule, Tag
from cards.services import card_describe, card_remember, card_verify
from cards.services.rules import rule_propose
from cards.services.sharing import sharing_choose
from cards.time.when import when_resolve
from review.extract import ExtractionFailed
from review.models import Candidate, CandidateStatus
from review.services.ingest import ingest_create, ingest_fail, ingest_process
from review.services.proposals import candidates_propose
from scopes.guardians import member_minor_set
from scopes.models import AgentToken, Membership, Role, Scope, ScopeKind, User
from scopes.principals import Principal
from scopes.relations import relation_set
from scopes.services import global_scope_get, membership_set, scope_create
from scopes.tokens import token_create

DEMO_PASSWORD = "memory-demo"
TIME_ZONE = "Europe/Lisbon"
LOCAL = zoneinfo.ZoneInfo(TIME_ZONE)
FAMILY_NAME = "Family (demo)"
# username, display name, role in the family scope
PEOPLE = [
    ("dana", "Dana", Role.OWNER),
    ("sam", "Sam", Role.MEMBER),
    ("kai", "Kai", Role.VIEWER),
]
# Who is what to whom there, read from one side: Dana is Kai's mother.
RELATIONS = [
    ("dana", "kai", "mother"), ("dana", "sam", "wife"),
    ("sam", "kai", "father"), ("sam", "dana", "husband"),
    ("kai", "dana", "son"), ("kai", "sam", "son"),
]
# The adults moved together twice; (months ago, address).
ADDRESSES = [
    (23, "Rua das Amoreiras 14, Porto"),
    (14, "Avenida do Mar 3, Matosinhos"),
    (3, "Travessa do Sol 7, Lisbon"),
]
# What Sam told the family's assistant two days ago, read by the extractor into proposals.
SAM_SAID = [
    "I went to Madrid last weekend.",
    "I love fado.",
    "My new job title is charge nurse.",
    "Remember that Kai is allergic to peanuts.",
]
RULE_NAME = "Children live where a parent lives"


def _local(day: dt.date, hour: int = 0, minute: int = 0) -> dt.datetime:
    return dt.datetime(day.year, day.month, day.day, hour, minute, tzinfo=LOCAL)


class _Household:
    """Writes the demo cards, dated relative to `today` so the history always
    falls within the last two years whenever the seed runs."""

    def __init__(self, today: dt.date) -> None:
        self.today = today
        self.users: dict[str, User] = {}
        self.family: Scope | None = None

    # --- time --------------------------------------------------------------------
    def day(self, months_ago: int, day_of_month: int = 1) -> dt.datetime:
        return _local((self.today - relativedelta(months=months_ago)).replace(day=day_of_month))

    def month(self, months_ago: int) -> dt.datetime:
        return self.day(months_ago, 1)

    def week(self, months_ago: int) -> dt.datetime:
        date = (self.today - relativedelta(months=months_ago))
        return _local(date - dt.timedelta(days=date.weekday()))

    def next_sunday(self) -> dt.datetime:
        return _local(self.today + dt.timedelta(days=(6 - self.today.weekday()) or 7))

    # --- writes ------------------------------------------------------------------
    def remember(self, username: str, scope: Scope | None = None, **fields) -> Card:
        actor = self.users[username]
        fields.setdefault("subject", "me")
        return card_remember(scope=scope or actor.personal_scope, actor=actor, draft=CardDraft(**fields)).card

    def state(self, username: str, label: str, value: str, since: dt.datetime, **fields) -> Card:
        return self.remember(username, kind="state", label=label, value=value,
                             effective_at=since, reference_time=since, **fields)

    def states(self, username: str, label: str, values: list[str], since: dt.datetime) -> None:
        for value in values:
            self.state(username, label, value, since)

    def event(self, username: str, label: str, value: str, **fields) -> Card:
        return self.remember(username, kind="event", label=label, value=value, **fields)

    def knowledge(self, username: str, label: str, value: str, text: str, **fields) -> Card:
        return self.remember(username, kind="knowledge", label=label, value=value, text=text, **fields)

    # --- the household -------------------------------------------------------------
    def run(self) -> None:
        for username, display_name, _ in PEOPLE:
            self.users[username] = User.objects.create_user(
                username=username, password=DEMO_PASSWORD, display_name=display_name, time_zone=TIME_ZONE,
                email=f"{username}@example.invalid",
                # One adult can open the admin; the others sign in as ordinary members.
                is_staff=username == "dana", is_superuser=username == "dana")
        self.family = scope_create(name=FAMILY_NAME, kind=ScopeKind.FAMILY, creator=self.users["dana"])
        for username, _, role in PEOPLE:
            membership_set(scope=self.family, user=self.users[username], role=role)
        # Kai is a child: no agent tokens or scopes of his own; Dana, the family's owner, looks after his.
        member_minor_set(principal=Principal(self.users["dana"]), scope=self.family, minor=True,
                         membership=Membership.objects.get(scope=self.family, user=self.users["kai"]))
        for member, of, relation in RELATIONS:
            relation_set(scope=self.family, member=self.users[member], of=self.users[of], relation=relation)
        self.dana()
        self.sam()
        self.kai()
        self.family_cards()
        self.shares()
        self.waiting_for_review()

    def dana(self) -> None:
        for months_ago, address in ADDRESSES:
            current = self.state("dana", "address", address, self.day(months_ago, 15))
        card_verify(card=current, actor=self.users["dana"])
        self.state("dana", "employer", "Harbor Logistics", self.day(30, 1))
        self.state("dana", "job_title", "Data analyst", self.day(20, 1))
        self.state("dana", "job_title", "Senior data analyst", self.day(6, 1))
        self.states("dana", "skill", ["SQL", "Python", "Public speaking"], self.day(18, 1))
        self.states("dana", "language", ["Portuguese", "English", "Swedish"], self.day(24, 1))
        self.states("dana", "hobby", ["Trail running", "Pottery"], self.day(12, 1))
        self.state("dana", "diet", "Vegetarian", self.day(9, 1))
        self.state("dana", "likes", "Black coffee", self.day(24, 1))
        self.state("dana", "allergy", "Penicillin", self.day(24, 1), consent=True,
                   source_quote="I'm allergic to penicillin — please remember that.")
        self.state("dana", "birthday", f"1988-{self.next_sunday():%m-%d}", self.day(24, 1))
        trip_start = self.day(7, 10)
        self.event("dana", "trip", "Work trip to Hamburg", occurred_at=trip_start,
                   occurred_end=trip_start + dt.timedelta(days=3), precision="day",
                   text="Three days at the Hamburg office for the logistics data review.")
        # Dana cannot remember when: an undated event stays undated rather than guessed.
        self.event("dana", "milestone", "Ran a first marathon", text="Finished a first full marathon.")
        self.knowledge("dana", "howto", "Descale the espresso machine", subject="Espresso machine",
                       text="Monthly: one sachet of descaler in a litre of water, half through the steam "
                            "wand, the rest through the group head, then rinse twice with clean water.")

    def sam(self) -> None:
        for months_ago, address in ADDRESSES:
            self.state("sam", "address", address, self.day(months_ago, 15))
        self.state("sam", "job_title", "Nurse", self.day(22, 1))
        self.state("sam", "job_title", "Head nurse", self.day(8, 1))
        self.state("sam", "car", "Diesel estate car", self.day(20, 1))
        self.state("sam", "car", "Electric hatchback", self.day(4, 5))
        self.event("sam", "purchase", "Electric hatchback", occurred_at=self.month(4), precision="month",
                   text="Bought an electric hatchback and traded in the diesel estate car.")
        self.states("sam", "skill", ["Cooking", "First aid"], self.day(20, 1))
        self.states("sam", "language", ["Portuguese", "English"], self.day(24, 1))
        self.states("sam", "hobby", ["Cycling", "Board games"], self.day(16, 1))
        self.knowledge("sam", "note", "Gift ideas for Dana", subject=self.users["dana"].entity,
                       text="A pottery wheel class; a trail-running vest; anything but another mug.")

    def kai(self) -> None:
        self.state("kai", "address", ADDRESSES[-1][1], self.day(ADDRESSES[-1][0], 15))
        self.state("kai", "school", "Escola Básica Vale Verde", self.day(3, 16))
        self.state("kai", "birthday", "2016-03-02", self.day(24, 1))
        self.states("kai", "hobby", ["Drawing", "Football"], self.day(12, 1))
        self.states("kai", "language", ["Portuguese", "English"], self.day(24, 1))
        self.state("kai", "likes", "Dinosaurs", self.day(18, 1))
        self.state("kai", "skill", "Swimming", self.day(10, 1))
        self.event("kai", "trip", "School trip to the aquarium", occurred_at=self.day(2, 12), precision="day",
                   text="Class trip to the aquarium; Kai's favourite was the sunfish.")
        self.event("kai", "milestone", "Yellow belt in judo", occurred_at=self.day(1, 20), precision="day")

    def shares(self) -> None:
        """What each adult chose to let the family read of their own cards (nothing is shared unless chosen):
        Dana asks the family's assistant where Sam works and what his skills are; Sam, when Dana's birthday is."""
        for username, labels in (("sam", ["address", "job_title", "skill"]), ("dana", ["birthday", "allergy"])):
            sharing_choose(principal=Principal(self.users[username]), scope=self.family, labels=labels)

    def family_cards(self) -> None:
        dana, sam, kai = (self.users[name] for name in ("dana", "sam", "kai"))
        self.event("dana", "wedding", "Wedding of Dana and Sam", scope=self.family, object=sam.entity,
                   occurred_at=_local(dt.date(2014, 6, 14)), precision="day",
                   text="Dana and Sam got married in a small ceremony by the sea.")
        azores = self.event("sam", "trip", "Family trip to the Azores", scope=self.family,
                            occurred_at=self.month(10), precision="month",
                            text="Family trip to São Miguel, Azores — four days.")
        # A person corrects the description; that the trip happened, and when, stays as written.
        card_describe(card=azores, actor=dana, reason="It was five days, not four.",
                      text="Family trip to São Miguel, Azores — five days, whale watching on day two.")
        self.event("dana", "decision", "Move to Lisbon", scope=self.family, occurred_at=self.week(5),
                   precision="week", text="Decided together to move to Lisbon for Dana's new role.")
        self.event("sam", "move", "Moved to Travessa do Sol 7, Lisbon", scope=self.family,
                   occurred_at=self.day(ADDRESSES[-1][0], 15), precision="day")
        self.event("sam", "meeting", "Parent-teacher meeting", scope=self.family, subject=kai.entity,
                   occurred_at=self.day(1, 8) + dt.timedelta(hours=18, minutes=30), precision="datetime",
                   text="Kai is doing well; more reading at home is suggested.")
        self.event("dana", "party", "Dana's birthday", scope=self.family, occurred_at=self.next_sunday(),
                   precision="day", text="Dana's birthday on Sunday — lunch at home.",
                   perspectives={"sam": "wife's birthday — prepare a gift", "kai": "mom's birthday — prepare a cake"})
        self.state("dana", "is_a", "", self.day(12, 1), scope=self.family, subject="Miso", object="Cat")
        self.state("sam", "likes", "Sunny windowsills", self.day(12, 1), scope=self.family, subject="Miso")
        self.knowledge("sam", "howto", "Reset the home router", scope=self.family, subject="Home router",
                       text="Hold the reset button for ten seconds, wait for the green light, then sign in "
                            "with the password on the sticker underneath.")
        self.knowledge("dana", "note", "School closes early on Wednesdays", scope=self.family, subject=kai.entity,
                       text="Kai's school closes at 13:00 on Wednesdays; whoever works from home does pick-up.")


    # --- the review queue ------------------------------------------------------------
    def waiting_for_review(self) -> None:
        """What waits for a reviewer of the family (Dana, its owner) and of common sense (Dana too)."""
        dana, sam, kai = (self.users[name] for name in ("dana", "sam", "kai"))
        family = self.family
        # A contradiction: the family still says what Dana did before her promotion; her own scope says since.
        self.state("dana", "job_title", "Data analyst", self.day(20, 1), scope=family)
        # A guess, to confirm or reject.
        self.state("sam", "interest", "Marine biology", self.day(1, 13), scope=family, subject=kai.entity,
                   tag=Tag.HYPOTHESIS, confidence=0.55,
                   source_quote="He would not leave the sunfish tank — maybe marine biology one day?")
        # A conversation of Sam's, read by the extractor: each statement waits as a candidate.
        said_at = _local(self.today - dt.timedelta(days=2), 19, 40)
        job = ingest_create(scope=family, actor=sam, session="demo-kitchen-chat",
                            messages=[{"id": f"m{n}", "role": "user", "text": text, "at": said_at}
                                      for n, text in enumerate(SAM_SAID, start=1)])
        try:
            ingest_process(job_id=job.pk, scope_id=job.scope_id)
        except ExtractionFailed as error:  # an extractor configured elsewhere (EXTRACTOR=llm) and not answering
            ingest_fail(job_id=job.pk, scope_id=job.scope_id, error=error)
        # Agents' own proposals, through propose-only tokens: never cards until a person approves them.
        tablet, _ = token_create(user=dana, name="Kitchen tablet", proposes=True, scopes=[family])
        noted_at = _local(self.today - dt.timedelta(days=1), 8, 10)
        checkup = when_resolve("next Tuesday", reference=noted_at, tz=LOCAL)
        candidates_propose(author=dana, token=tablet, items=[
            (family, CardDraft(kind="event", label="appointment", subject=kai.entity, value="Dentist check-up",
                               occurred_at=checkup.start, occurred_end=checkup.end, precision=checkup.precision,
                               time_source=checkup.source, reference_time=noted_at, time_zone=TIME_ZONE,
                               source_session="demo-tablet", source_message="t1",
                               source_quote="Kai has a dentist check-up next Tuesday at the Alvalade clinic.")),
            (family, CardDraft(kind="state", label="likes", subject=kai.entity, value="Sunfish",
                               reference_time=noted_at, time_zone=TIME_ZONE, source_session="demo-tablet",
                               source_message="t2",
                               source_quote="Kai keeps talking about the sunfish from the aquarium.")),
        ])
        phone, _ = token_create(user=sam, name="Sam's phone", proposes=True, scopes=[family])
        candidates_propose(author=sam, token=phone, items=[
            (family, CardDraft(kind="state", label="hobby", subject="me", value="Sourdough baking",
                               reference_time=noted_at, time_zone=TIME_ZONE, source_session="demo-phone",
                               source_message="p1", source_quote="I've started baking sourdough on Sundays.")),
        ])
        # A draft rule, for the reviewers of common sense: Dana is one (a rule is approved by someone other
        # than its author, and Sam wrote it).
        membership_set(scope=global_scope_get(), user=dana, role=Role.REVIEWER)
        if not Rule.objects.filter(name=RULE_NAME).exists():
            rule_propose(name=RULE_NAME, author=sam,
                         description="A child's address is a parent's, unless the child's own is remembered.",
                         premises=[["?x", "parent", "?p"], ["?p", "address", "?a"]],
                         conclusion=["?x", "address", "?a"])


class Command(BaseCommand):
    help = (f"Seed a fictional demo household: users dana (superuser), sam and kai, all with the password "
            f"{DEMO_PASSWORD!r}, a family scope and a few dozen cards with history, and a review queue to try: "
            "proposals (some from agents), a guess, a contradiction and a draft rule. "
            "Does nothing if any demo user already exists.")

    def handle(self, *args, **options) -> None:
        usernames = [person[0] for person in PEOPLE]
        existing = sorted(User.objects.filter(username__in=usernames).values_list("username", flat=True))
        if existing:
            self.stdout.write(f"Demo household already exists ({', '.join(existing)}); nothing to do.")
            return
        household = _Household(today=timezone.localdate(timezone=LOCAL))
        with transaction.atomic():
            household.run()
        self._summarise(household)

    def _summarise(self, household: _Household) -> None:
        scopes = [user.personal_scope for user in household.users.values()] + [household.family]
        counts = dict(Card.objects.filter(scope__in=scopes).values_list("scope").annotate(n=Count("id")))
        for scope in scopes:
            self.stdout.write(f"  {scope.name}: {counts.get(scope.pk, 0)} cards")
        entities = Entity.objects.filter(scope=household.family).count()
        waiting = Candidate.objects.filter(scope=household.family, status__in=(
            CandidateStatus.PENDING, CandidateStatus.NEEDS_CONSENT))
        agents = AgentToken.objects.filter(user__in=household.users.values(), proposes=True).count()
        self.stdout.write(self.style.SUCCESS(
            f"Seeded the demo household: {len(household.users)} users, {sum(counts.values())} cards, "
            f"{entities} entities in {household.family.name}; {waiting.count()} proposals waiting for review "
            f"({waiting.filter(proposed_by__isnull=False).count()} from {agents} agents), with a guess, "
            f"a contradiction and a draft rule."))
        self.stdout.write(f"Sign in at /admin/ as dana / {DEMO_PASSWORD} (superuser); "
                          f"sam and kai use the same password.")
