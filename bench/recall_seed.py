"""The data side of bench/recall.py: its own database on the same server, a
world of users, scopes and entities made through the app's services, card
texts embedded with the real model, and cards COPYed straight into cards_card.
Imported after Django is set up (on the bench database)."""

from __future__ import annotations

import datetime as dt
import itertools
import threading
import time
from dataclasses import dataclass, field

import numpy as np
from django.db import connection, transaction

from api_workload import EVENTS, EVENTS_OTHER, MULTI, MULTI_ME, MULTI_OTHER, NAMES, SINGLE_ME, SINGLE_OTHER, \
    SINGLE_VALUES, single_value  # noqa: E402  (bench/ is on sys.path when run as a script)
from cards.embeddings import current_space
from cards.words.lexical import card_lexemes
from cards.models import Card, Entity, EntityKind, Label
from cards.text import name_skeleton, normalize
from scopes.models import Scope, ScopeKind, User
from scopes.services import membership_set, scope_create

HNSW_NAME = "card_embedding_hnsw"
DAYS_BACK = 540            # 18 months of history
OWNER_TIME = 0.4           # share of cards about their writer ("me") rather than a named person


# --- texts, vectors, queries ----------------------------------------------------------------

@dataclass(frozen=True)
class Base:
    label: str
    value: str
    who: str | None        # None: the writer ("me"); else a name from NAMES
    text: str

    @property
    def embed_text(self) -> str:
        # As cards.embeddings.card_embedding_text builds it: "label: value. text".
        return f"{self.label.replace('_', ' ')}: {self.value}. {self.text}"


def base_texts(rng: np.random.Generator, n: int, labels: dict[str, Label]) -> list[Base]:
    """`n` distinct (label, value, who) card contents from the API bench's vocabularies."""
    import random
    r = random.Random(int(rng.integers(1 << 30)))
    seen: set[tuple[str, str, str | None]] = set()
    out: list[Base] = []
    for _ in range(n * 50):
        if len(out) >= n:
            break
        who = None if r.random() < OWNER_TIME else r.choice(NAMES)
        shown = who or "Me"
        roll = r.random()
        if roll < 0.35:
            label = r.choice(SINGLE_OTHER if who else SINGLE_ME)
            value = single_value(label, r, shown) if label not in SINGLE_VALUES or r.random() < 0.5 \
                else r.choice(SINGLE_VALUES[label])
            text = f"{shown}: {label.replace('_', ' ')} is {value}"
        elif roll < 0.65:
            label = r.choice(MULTI_OTHER if who else MULTI_ME)
            value = r.choice(MULTI[label])
            text = f"{shown}: {label} {value}"
        else:
            label = r.choice(EVENTS_OTHER if who else list(EVENTS))
            value = EVENTS[label](r, NAMES)
            text = f"{shown}: {value}"
        if label not in labels or (label, value, who) in seen:
            continue
        seen.add((label, value, who))
        out.append(Base(label, value, who, text))
    return out


QUESTION_TEMPLATES = [
    "where does {who} live now?", "what city is {who} in these days", "who does {who} work for?",
    "what is {who}'s job", "does {who} like {like}?", "has {who} been on a trip to {city}",
    "when did {who} last have dinner with {other}", "what languages does {who} speak",
    "is {who} still into {hobby}", "what does {who} eat, still {diet}?", "which car does {who} drive",
    "any party for {other} coming up", "what's {who}'s phone number", "is {who} good at {skill}",
    "what pet does {who} have", "did {who} buy anything lately", "{who} and {other}: last meeting",
    "what is {who} interested in, {interest}?", "which browser does {who} use", "{who} appointment this month",
]


class Queries:
    """Distinct query texts, never repeated within a run (thread-safe): every measured
    recall embeds its query afresh, in the bench process and in the server's workers."""

    def __init__(self, seed: int) -> None:
        import random
        r = random.Random(seed)
        people = ["I", "me", *NAMES]
        texts = set()
        for template in QUESTION_TEMPLATES:
            for _ in range(600):
                texts.add(template.format(
                    who=r.choice(people), other=r.choice(NAMES), like=r.choice(MULTI["likes"]),
                    city=r.choice(SINGLE_VALUES["city"]), hobby=r.choice(MULTI["hobby"]),
                    diet=r.choice(SINGLE_VALUES["diet"]), skill=r.choice(MULTI["skill"]),
                    interest=r.choice(MULTI["interest"])))
        self.texts = sorted(texts)
        r.shuffle(self.texts)
        self.n = itertools.count()
        self.lock = threading.Lock()

    def next(self) -> str:
        with self.lock:
            i = next(self.n)
        text = self.texts[i % len(self.texts)]
        return text if i < len(self.texts) else f"{text} ({i // len(self.texts)})"


# --- the world -------------------------------------------------------------------------------

@dataclass
class World:
    caller: User
    scope_ids: list[int]                   # all scopes holding cards; [0:5] are the caller's
    caller_scope_ids: list[int]            # personal + enterprise > department > team > project
    request_scope_id: int                  # the project at the bottom of the caller's ladder
    writer: dict[int, tuple[int, int]]     # scope id -> (writing user id, that user's own entity id)
    named: dict[int, dict[str, int]]       # scope id -> name -> entity id
    seconds: float = 0.0
    token_raw: str = ""
    labels: dict[str, Label] = field(default_factory=dict)


def world_create(n_scopes: int, n_owners: int) -> World:
    """Through the services: users (each with a personal scope and own entity), shared scopes with
    their owners' memberships and grants; the caller is a member of a 4-scope ladder and owns its
    personal scope, so a read in the ladder's project sees exactly those 5 scopes with cards."""
    started = time.perf_counter()
    caller = User.objects.create_user(username="recall_caller", display_name="Bench Caller", time_zone="UTC")
    owners = [User.objects.create_user(username=f"recall_o{i:03d}", display_name=f"Bench Owner {i}")
              for i in range(n_owners)]
    ladder, parent = [], None
    for i, kind in enumerate([ScopeKind.ENTERPRISE, ScopeKind.DEPARTMENT, ScopeKind.TEAM, ScopeKind.PROJECT]):
        parent = scope_create(name=f"recall ladder {kind}", kind=kind, creator=owners[i % n_owners], parent=parent)
        membership_set(scope=parent, user=caller, role="member")
        ladder.append(parent)
    personal = Scope.objects.get(owner=caller, kind=ScopeKind.PERSONAL)
    scopes = [personal, *ladder]
    kinds = [ScopeKind.PROJECT, ScopeKind.TEAM, ScopeKind.FAMILY]
    for i in range(n_scopes - len(scopes)):
        scopes.append(scope_create(name=f"recall scope {i:04d}", kind=kinds[i % 3], creator=owners[i % n_owners]))
    own = dict(Entity.objects.filter(user__isnull=False).values_list("user_id", "pk"))
    writer = {personal.pk: (caller.pk, own[caller.pk])}
    for i, scope in enumerate(scopes[1:]):
        user = owners[i % n_owners] if i >= 4 or i % 2 else caller    # the caller writes in half its ladder
        writer[scope.pk] = (user.pk, own[user.pk])
    Entity.objects.bulk_create(Entity(scope_id=s.pk, name=name, name_norm=normalize(name),
                                      name_skeleton=name_skeleton(name), kind=EntityKind.PERSON)
                               for s in scopes for name in NAMES)
    named: dict[int, dict[str, int]] = {}
    for scope_id, name, pk in Entity.objects.filter(user__isnull=True).values_list("scope_id", "name", "pk"):
        named.setdefault(scope_id, {})[name] = pk
    return World(caller=caller, scope_ids=[s.pk for s in scopes], caller_scope_ids=[s.pk for s in scopes[:5]],
                 request_scope_id=ladder[-1].pk, writer=writer, named=named,
                 seconds=round(time.perf_counter() - started, 1),
                 labels={l.key: l for l in Label.objects.all()})


def world_load() -> World:
    """The world of a kept bench database (--reuse): its caller, its ladder and its scopes."""
    caller = User.objects.get(username="recall_caller")
    ladder = [Scope.objects.get(name=f"recall ladder {kind}") for kind in
              [ScopeKind.ENTERPRISE, ScopeKind.DEPARTMENT, ScopeKind.TEAM, ScopeKind.PROJECT]]
    personal = Scope.objects.get(owner=caller, kind=ScopeKind.PERSONAL)
    rest = list(Scope.objects.filter(name__startswith="recall scope ").order_by("pk").values_list("pk", flat=True))
    mine = [personal.pk, *(s.pk for s in ladder)]
    return World(caller=caller, scope_ids=mine + rest, caller_scope_ids=mine, request_scope_id=ladder[-1].pk,
                 writer={}, named={}, labels={l.key: l for l in Label.objects.all()})


def spaces_held(*, refuse_other: bool) -> dict[str, int]:
    """How many cards hold a vector of each embedding space ("none": no vector). With `refuse_other`,
    a vector of another space than the current one is refused: the bench measures one model at a time,
    never a query of one against cards of the other."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT COALESCE(embedding_space, 'none'), count(*) FROM cards_card GROUP BY 1 ORDER BY 2 DESC")
        held = dict(cursor.fetchall())
    other = {space: n for space, n in held.items() if space not in (current_space(), "none")}
    if refuse_other and other:
        raise SystemExit(f"the database holds vectors of another space than {current_space()}: {other}; "
                         f"run with the EMBEDDING_BACKEND that seeded it")
    return held


# --- the cards ---------------------------------------------------------------------------------

COLUMNS = ["id", "scope_id", "kind", "tag", "subject_id", "label_id", "cardinality", "value", "value_norm", "text",
           "effective_at", "superseded_at", "superseded_by_id", "recorded_at", "verified_at", "stated_at",
           "occurred_at", "precision", "time_source", "source_actor_id", "source_session", "source_message",
           "source_quote", "impact", "lexemes", "embedding", "embedding_space"]


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=1, keepdims=True)


# How big a scope is, relative to the rest (`--scope-sizes skewed`): a log-normal spread, so most
# households are small and a few large, and a long tail of busy teams ten to forty times the median.
SIZE_SIGMA = 1.0
BUSY_SHARE, BUSY_FACTOR = 0.03, (10, 40)
# `--texts distinct`: each card is one base text mentioned with a second one (its words carry both, and its
# vector leans a random 20-60 % towards the second): nearly every card is a text of its own, not one of
# `--base-texts` near-copies.
COMPANION_WEIGHT = (0.2, 0.6)


def scope_weights(rng: np.random.Generator, world: World, sizes: str) -> np.ndarray:
    """The chance that a card falls in each scope of `world.scope_ids`. The caller's five
    scopes keep the mean share, so their household read is the same size in both modes."""
    count = len(world.scope_ids)
    if sizes == "uniform":
        return np.full(count, 1 / count)
    weights = rng.lognormal(0.0, SIZE_SIGMA, count)
    busy = rng.random(count) < BUSY_SHARE
    weights[busy] *= rng.uniform(*BUSY_FACTOR, busy.sum())
    mine = np.isin(np.array(world.scope_ids), world.caller_scope_ids)
    weights[mine] = weights[~mine].mean()
    return weights / weights.sum()


def seed_cards(world: World, bases: list[Base], base_vectors: np.ndarray, n: int, noise: float,
               seed: int, chunk: int = 50_000, *, texts: str = "distinct", sizes: str = "skewed") -> dict:
    """Replace every card with `n` new ones: drop the HNSW index, TRUNCATE, one binary COPY
    (ids from the sequence, triggers and foreign keys checked), CREATE the index as the
    migration defines it, VACUUM ANALYZE. `texts` "near-copies" and `sizes` "uniform" are the
    earlier bench, kept as the named worst case (every scope alike, 4,000 texts each copied ~250 times)."""
    rng = np.random.default_rng(seed + n)
    now = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    t = {}
    started = time.perf_counter()
    index = next(i for i in Card._meta.indexes if i.name == HNSW_NAME)
    with connection.schema_editor() as editor:
        editor.execute(f'DROP INDEX IF EXISTS "{HNSW_NAME}"')
    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE cards_card CASCADE")
    # Who, what and when, as arrays.
    scopes = np.array(world.scope_ids)
    s_idx = rng.choice(len(scopes), n, p=scope_weights(rng, world, sizes))
    b_idx = rng.integers(0, len(bases), n)
    # The companion text of each card (`texts` "distinct"), and how far its vector leans towards it.
    c_idx = rng.integers(0, len(bases), n)
    lean = rng.uniform(*COMPANION_WEIGHT, n).astype(np.float32)
    eff = now.timestamp() - rng.uniform(2, DAYS_BACK, n) * 86400
    labels = world.labels
    b_kind = np.array([labels[b.label].kind == "event" for b in bases])
    b_single = np.array([labels[b.label].cardinality == "single" for b in bases])
    is_event = b_kind[b_idx]
    eff = np.where(is_event, np.floor(eff / 86400) * 86400, np.floor(eff))      # events: day precision
    recorded = np.minimum(eff + rng.uniform(0, 2 * 86400, n), now.timestamp() - 60)
    recorded = np.floor(np.maximum(recorded, eff))
    order = np.argsort(recorded, kind="stable")                        # ids follow record time
    s_idx, b_idx, eff, recorded, is_event = s_idx[order], b_idx[order], eff[order], recorded[order], is_event[order]
    c_idx, lean = c_idx[order], lean[order]
    with connection.cursor() as cursor:
        cursor.execute("SELECT nextval(pg_get_serial_sequence('cards_card', 'id'))")
        first = cursor.fetchone()[0]
        cursor.execute("SELECT setval(pg_get_serial_sequence('cards_card', 'id'), %s)", [first + n - 1])
    ids = np.arange(first, first + n)
    # Supersession: single-value states per (scope, subject, label), multi-value per (scope, subject, label,
    # value): the later effective card ends the earlier one, so one current card per key, as the app keeps it.
    who_label = {}
    gid = np.array([who_label.setdefault((b.who, b.label) if b_single[i] else i, len(who_label))
                    for i, b in enumerate(bases)])
    key = np.where(is_event, -1 - np.arange(n), s_idx.astype(np.int64) * len(who_label) + gid[b_idx])
    srt = np.lexsort((ids, eff, key))
    same = key[srt][1:] == key[srt][:-1]
    sup_at = np.full(n, np.nan)
    sup_by = np.zeros(n, dtype=np.int64)
    sup_at[srt[:-1][same]] = np.maximum(eff[srt[1:][same]], eff[srt[:-1][same]] + 1)
    sup_by[srt[:-1][same]] = ids[srt[1:][same]]
    end = np.where(np.isnan(sup_at), now.timestamp(), sup_at)
    reverified = (~is_event) & (rng.random(n) < 0.25)
    verified = np.where(reverified, recorded + rng.random(n) * np.maximum(end - recorded, 0), recorded)
    restated = (~is_event) & (rng.random(n) < 0.3)
    stated2 = eff + rng.random(n) * np.maximum(end - eff - 1, 0)
    # Saying it again is a confirmation: the app moves verified_at to the latest statement.
    verified = np.where(restated, np.maximum(verified, stated2), verified)
    t["arrays_s"] = round(time.perf_counter() - started, 1)

    with connection.cursor() as cursor:
        cursor.execute("SELECT attname, atttypid FROM pg_attribute WHERE attrelid = 'cards_card'::regclass"
                       " AND attnum > 0 AND NOT attisdropped")
        oids = dict(cursor.fetchall())
    types = [17 if c == "embedding" else oids[c] for c in COLUMNS]      # the vector goes as its binary form
    header = np.array([384, 0], dtype=">u2").tobytes()
    ts = dt.datetime.fromtimestamp
    utc = dt.timezone.utc
    base_rows = [(labels[b.label].pk, labels[b.label].kind, labels[b.label].cardinality, b.value, normalize(b.value),
                  b.text, "preference" if b.label in ("likes", "dislikes") else "fact", b.who,
                  card_lexemes(label_key=b.label, value=b.value, object_name=None, text=b.text)) for b in bases]
    space = current_space()     # the base vectors are of the model the settings name (recall.py embeds them)
    copy_started = time.perf_counter()
    connection.ensure_connection()
    with connection.connection.cursor() as cur:
        with cur.copy(f"COPY cards_card ({', '.join(COLUMNS)}) FROM STDIN (FORMAT BINARY)") as copy:
            copy.set_types(types)
            for lo in range(0, n, chunk):
                hi = min(n, lo + chunk)
                mixed = base_vectors[b_idx[lo:hi]]
                if texts == "distinct":
                    mixed = mixed + lean[lo:hi, None] * base_vectors[c_idx[lo:hi]]
                vectors = _unit(mixed + rng.normal(0, noise, (hi - lo, base_vectors.shape[1])).astype(np.float32))
                raw = vectors.astype(">f4")
                for j in range(lo, hi):
                    scope_id = int(scopes[s_idx[j]])
                    label_id, kind, cardinality, value, value_norm, text, tag, who, words = base_rows[b_idx[j]]
                    if texts == "distinct":
                        companion = base_rows[c_idx[j]]
                        text = f"{text}; also {companion[5]}"
                        words = sorted(set(words) | set(companion[8]))
                    user_id, me = world.writer[scope_id]
                    e = ts(eff[j], utc)
                    event = kind == "event"
                    stated = [] if event else ([e, ts(stated2[j], utc)] if restated[j] else [e])
                    copy.write_row((
                        int(ids[j]), scope_id, kind, tag, world.named[scope_id][who] if who else me, label_id,
                        cardinality, value, value_norm, text, e,
                        None if np.isnan(sup_at[j]) else ts(sup_at[j], utc), int(sup_by[j]) or None,
                        ts(recorded[j], utc), ts(verified[j], utc), stated, e if event else None,
                        "day" if event else "", "stated" if event else "message", user_id,
                        f"s{ids[j] // 40}", f"m{ids[j]}", "", 2, words, header + raw[j - lo].tobytes(), space))
    t["copy_s"] = round(time.perf_counter() - copy_started, 1)
    t["copy_rows_per_s"] = round(n / max(t["copy_s"], 1e-9))
    index_started = time.perf_counter()
    with transaction.atomic():
        with connection.cursor() as cursor:
            # A 1M-row graph is ~2 GB: built in memory it takes minutes, spilled it takes far longer.
            cursor.execute("SET LOCAL maintenance_work_mem = '3GB'")
            cursor.execute("SET LOCAL max_parallel_maintenance_workers = 1")
        with connection.schema_editor(atomic=False) as editor:
            editor.add_index(Card, index)
    t["hnsw_build_s"] = round(time.perf_counter() - index_started, 1)
    vacuum_started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE cards_card")
    t["vacuum_analyze_s"] = round(time.perf_counter() - vacuum_started, 1)
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*), count(*) FILTER (WHERE superseded_at IS NULL),"
                       " count(*) FILTER (WHERE superseded_at IS NULL AND scope_id = ANY(%s)),"
                       " count(*) FILTER (WHERE kind = 'event') FROM cards_card", [world.caller_scope_ids])
        rows, current, visible, events = cursor.fetchone()
        table_size, index_size = _sizes(cursor)
        cursor.execute("SELECT count(*) FROM cards_card WHERE superseded_at IS NULL GROUP BY scope_id")
        per_scope = sorted(row[0] for row in cursor.fetchall())
    spread = {"min": per_scope[0], "median": per_scope[len(per_scope) // 2],
              "p99": per_scope[int(len(per_scope) * 0.99)], "max": per_scope[-1]} if per_scope else {}
    return {"texts": texts, "scope_sizes": sizes, "current_per_scope": spread,
            "rows": rows, "current_rows": current, "events": events, "caller_candidates": visible,
            "table_size": table_size, "hnsw_size": index_size, **t,
            "seconds": round(time.perf_counter() - started, 1)}


def _sizes(cursor) -> tuple[str, str]:
    """The table's size and its HNSW index's."""
    cursor.execute("SELECT pg_size_pretty(pg_table_size('cards_card')),"
                   " pg_size_pretty(pg_relation_size(%s::regclass))", [HNSW_NAME])
    return cursor.fetchone()
