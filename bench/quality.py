"""Answer quality: our tiered answers against a plain vector-store baseline, side by side.

    .venv/bin/python bench/quality.py [--worlds 200] [--seed 7] [--http-sample 300] [--json] [--keep]
    .venv/bin/python bench/quality.py --cleanup RUN_ID|all

Builds deterministic synthetic worlds (bench/quality_worlds.py): per world a
team scope holds the common sense of 4–6 kinds (each kind's facts over
used_for / has / needs / made_of, one label kept out), and a child project
scope holds 2–4 new things known only by "X is_a K" (some of two kinds, some of
a kind of a kind) plus, for some, one personal fact on a label no rule covers.
Then it asks, for every thing:

* kind: ours = is K among the values of answer(X, "is_a"); baseline = does
  the kind whose cards' mean vector is nearest to X's cards' mean vector come
  first (and, as a second line, the nearest kind *name*);
* inherited facts of its kinds: ours = the derived values contain the fact;
  baseline = the top-1 card by cosine for the query text "<X> <label>" has
  that value (restricted to cards of that label, and over every card);
* facts true in the world but never written (a label none of X's kinds has
  any card for, and rule-less labels likes / hobby / pet): ours must answer
  no_evidence; the baseline cannot abstain, so its correct top-1 guesses count;
* recorded facts, and inherited facts next to a value of X's own (probes).

Ours is called in-process (entity_bind + answer, timed per question); a sample
also goes through POST /api/v1/answer/ with Django's test Client, and both must
agree. Every card is embedded with the local model (cards_embed_now) before any
question, so the guessed tier sees the same vectors as the baseline.

Everything the run created is deleted at the end unless --keep is given.
"""

from __future__ import annotations

import argparse
import collections
import datetime as dt
import json
import os
import platform
import random
import secrets
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")
os.environ["EMBED_ON_WRITE"] = "0"  # the run embeds every card itself, before asking
import django  # noqa: E402

django.setup()

import numpy as np  # noqa: E402
from django.conf import settings  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.test import Client  # noqa: E402
from quality_worlds import INHERITABLE, RULELESS, World, build_worlds  # noqa: E402
from sqlcleanup import raw_cascade  # noqa: E402

from cards.answer import answer  # noqa: E402
from cards.selectors.entities import entity_bind, entity_of_user  # noqa: E402
from cards.drafts import CardDraft  # noqa: E402
from cards.embeddings import embed_texts  # noqa: E402
from cards.labels import label_resolve, registry  # noqa: E402
from cards.models import Card, Entity, EntityKind  # noqa: E402
from cards.services import card_remember_many, entity_create  # noqa: E402
from cards.services.embedding import cards_embed_now  # noqa: E402
from cards.text import normalize  # noqa: E402
from scopes.models import Scope, User  # noqa: E402
from scopes.principals import Principal  # noqa: E402
from scopes.selectors import read_scope_ids  # noqa: E402
from scopes.services import global_scope_get, scope_create  # noqa: E402

PREFIX = "qbench_"
CATEGORIES = {
    "kind": "kind ranked first (X, direct kind K)",
    "kind_of_kind": "kind of a kind (X, J with K is_a J)",
    "inherit": "inherited facts of X's kinds",
    "no_evidence_rule": "never written, label with a rule",
    "no_evidence_ruleless": "never written, label with no rule",
    "recorded": "recorded facts of X (probe)",
    "inherit_next_to_own": "inherited next to X's own value (probe)",
}
TARGETS = ("inherit", "no_evidence_rule", "no_evidence_ruleless")


# --- writing the worlds ------------------------------------------------------------------

def state(subject: str, label: str, value: str = "", obj: str | None = None) -> CardDraft:
    return CardDraft(kind="state", subject=subject, label=label, value=value, object=obj)


def world_write(world: World, user: User, prefix: str) -> dict:
    team = scope_create(name=f"{prefix}w{world.index:04d} kinds", kind="team", creator=user)
    project = scope_create(name=f"{prefix}w{world.index:04d} things", kind="project", creator=user, parent=team)
    # A kind's facts are found by name from scopes below only when its entity is a kind (see the README).
    for kind in world.kinds:
        entity_create(scope=team, name=kind, kind=EntityKind.KIND)
    kind_drafts = [state(kind, label, value) for kind in world.kinds
                   for label, values in world.written(kind).items() for value in values]
    kind_drafts += [state(child, "is_a", obj=parent) for child, parent in world.parent_of.items()]
    thing_drafts = []
    for thing in world.things:
        thing_drafts += [state(thing.name, "is_a", obj=kind) for kind in thing.kinds]
        if thing.written_personal:
            thing_drafts.append(state(thing.name, thing.written_personal, thing.personal[thing.written_personal]))
        if thing.own:
            thing_drafts.append(state(thing.name, *thing.own))
    card_remember_many(scope=team, actor=user, drafts=kind_drafts)
    card_remember_many(scope=project, actor=user, drafts=thing_drafts)
    return {"team": team, "project": project}


# --- the baseline: a plain vector store over the same card texts ------------------------

class Store:
    """One world's cards with their stored vectors (the same model, the same card text)."""

    def __init__(self, scope_ids: list[int]) -> None:
        rows = list(Card.objects.filter(scope_id__in=scope_ids, superseded_at__isnull=True)
                    .select_related("label", "object", "subject").order_by("id"))
        self.ids = [c.pk for c in rows]
        self.labels = [c.label.key for c in rows]
        self.values = [c.object.name if c.object_id else c.value for c in rows]
        self.subjects = [c.subject.name_norm for c in rows]
        missing = [c.pk for c in rows if c.embedding is None]
        assert not missing, f"cards without a vector: {missing[:5]}"
        self.vectors = np.array([np.asarray(c.embedding, dtype=np.float32) for c in rows])

    def top1(self, query: np.ndarray, label: str | None = None) -> str | None:
        mask = np.array([label is None or key == label for key in self.labels])
        if not mask.any():
            return None
        scores = np.where(mask, self.vectors @ query, -np.inf)
        return self.values[int(np.argmax(scores))]

    def profile(self, subject_norm: str) -> np.ndarray:
        rows = [i for i, s in enumerate(self.subjects) if s == subject_norm]
        mean = self.vectors[rows].mean(axis=0)
        return mean / np.linalg.norm(mean)


# --- asking ----------------------------------------------------------------------------

class Tally:
    def __init__(self) -> None:
        self.n = collections.Counter()
        self.ours = collections.Counter()
        self.base = collections.defaultdict(collections.Counter)  # category → variant → hits
        self.tiers = collections.defaultdict(collections.Counter)
        self.extra_values = 0  # derived values that are not facts of the world
        self.examples: dict[str, list] = collections.defaultdict(list)

    def add(self, category: str, ours: bool, base: dict[str, bool], tier: str, example) -> None:
        self.n[category] += 1
        self.ours[category] += ours
        self.tiers[category][tier] += 1
        for variant, hit in base.items():
            self.base[category][variant] += hit
        if not ours and len(self.examples[category]) < 3:
            self.examples[category].append(example)


def same(a: str | None, b: str) -> bool:
    return a is not None and normalize(a) == normalize(b)


def ask_world(world: World, scopes: dict, principal: Principal, me: Entity, tally: Tally, latencies: list[float],
              calls: list[tuple], kind_vectors: dict[str, np.ndarray], query_vectors: dict[str, np.ndarray]) -> None:
    scope_ids = read_scope_ids(principal=principal, scope_id=scopes["project"].pk)
    store = Store([scopes["team"].pk, scopes["project"].pk])
    world_kinds = list(world.kinds)
    kind_profiles = {k: store.profile(normalize(k)) for k in world_kinds}

    def ours(name: str, label: str):
        started = time.perf_counter()
        binding = entity_bind(name=name, scope_ids=scope_ids, speaker=me.user)
        found = answer(binding=binding, label=label_resolve(label), scope_ids=scope_ids)
        latencies.append(time.perf_counter() - started)
        calls.append((scopes["project"].pk, name, label, found.tier, sorted(found.values)))
        return found

    for thing in world.things:
        where = f"world {world.index} {thing.name!r}"
        # Kind: ours reads is_a; the baseline ranks the world's kinds by cosine to X's own cards.
        found = ours(thing.name, "is_a")
        values = {normalize(v) for v in found.values}
        profile = store.profile(normalize(thing.name))
        by_cards = max(world_kinds, key=lambda k: float(kind_profiles[k] @ profile))
        by_name = max(world_kinds, key=lambda k: float(kind_vectors[k] @ profile))
        for kind in thing.closure:
            category = "kind" if kind in thing.kinds else "kind_of_kind"
            tally.add(category, normalize(kind) in values,
                      {"kind cards": by_cards == kind, "kind name": by_name == kind},
                      found.tier, f"{where} is_a {kind}: {found.tier} {found.values}")
        inherited = world.inherited(thing)
        truth_all = {label: {v for k in thing.closure for v in world.kinds[k][label]} for label in INHERITABLE}
        for label in (*INHERITABLE, *RULELESS):
            found = ours(thing.name, label)
            values = {normalize(v) for v in found.values}
            query = query_vectors[f"{thing.name} {label.replace('_', ' ')}"]
            top_label, top_any = store.top1(query, label), store.top1(query)
            own = thing.own and thing.own[0] == label
            recorded = ([thing.own[1]] if own else []) + (
                [thing.personal[label]] if thing.written_personal == label else [])
            for value in recorded:
                tally.add("recorded", found.tier == "recorded" and normalize(value) in values,
                          {"same label": same(top_label, value), "any card": same(top_any, value)},
                          found.tier, f"{where} {label} {value!r}: {found.tier} {found.values}")
            if label in INHERITABLE and inherited[label]:
                category = "inherit_next_to_own" if own else "inherit"
                lenient_label = any(same(top_label, v) for v in inherited[label])
                lenient_any = any(same(top_any, v) for v in inherited[label])
                for value in sorted(inherited[label]):
                    ok = normalize(value) in values and (own or found.tier == "derived")
                    tally.add(category, ok, {"same label": same(top_label, value), "any card": same(top_any, value),
                                             "lenient, same label": lenient_label,
                                             "lenient, any card": lenient_any},
                              found.tier, f"{where} {label} {value!r}: {found.tier} {found.values}")
                truth = {normalize(v) for v in inherited[label]} | {normalize(v) for v in recorded}
                tally.extra_values += len(values - truth)
            elif label in INHERITABLE and not own:
                truth = truth_all[label]
                tally.add("no_evidence_rule", found.tier == "no_evidence",
                          {"same label": any(same(top_label, v) for v in truth),
                           "any card": any(same(top_any, v) for v in truth)},
                          found.tier, f"{where} {label} (true: {sorted(truth)}): {found.tier} {found.values} "
                                      f"{[g.value for g in found.guesses]}")
                tally.extra_values += len(values)
            elif label in RULELESS and thing.written_personal != label:
                truth = thing.personal[label]
                tally.add("no_evidence_ruleless", found.tier == "no_evidence",
                          {"same label": same(top_label, truth), "any card": same(top_any, truth)},
                          found.tier, f"{where} {label} (true: {truth!r}): {found.tier} {found.values} "
                                      f"{[g.value for g in found.guesses]}")
                tally.extra_values += len(values)


def http_check(user: User, calls: list[tuple], sample: int, seed: int) -> dict:
    """The same questions through POST /api/v1/answer/: same tier, same values."""
    picked = random.Random(seed).sample(calls, min(sample, len(calls)))
    client = Client(HTTP_HOST="localhost")
    client.force_login(user)
    agree, latencies, disagreements = 0, [], []
    try:
        for scope, name, label, tier, values in picked:
            started = time.perf_counter()
            response = client.post("/api/v1/answer/", {"scope": scope, "subject": name, "label": label},
                                    content_type="application/json")
            latencies.append(time.perf_counter() - started)
            body = response.json()
            if response.status_code == 200 and (body["tier"], sorted(body["values"])) == (tier, values):
                agree += 1
            elif len(disagreements) < 3:
                disagreements.append({"question": [scope, name, label], "service": [tier, values],
                                      "http": [response.status_code, body.get("tier"), body.get("values")]})
    finally:
        client.logout()
    return {"asked": len(picked), "agree": agree, "disagreements": disagreements, "latency_ms": percentiles(latencies)}


def percentiles(seconds: list[float]) -> dict:
    if not seconds:
        return {}
    ms = sorted(s * 1000 for s in seconds)
    at = lambda q: round(ms[min(len(ms) - 1, int(q * len(ms)))], 2)  # noqa: E731
    return {"n": len(ms), "p50": at(0.50), "p95": at(0.95), "p99": at(0.99), "max": round(ms[-1], 2),
            "mean": round(statistics.fmean(ms), 2)}


# --- cleanup ---------------------------------------------------------------------------

def cleanup(prefix: str) -> dict:
    """Cards first (PROTECT to entities; the write-once trigger needs forgetting on),
    then projects, then teams (a parent is PROTECT), then the users with what
    cascades from them (personal scope, entities, memberships, grants)."""
    started = time.perf_counter()
    user_ids = list(User.objects.filter(username__startswith=prefix).values_list("pk", flat=True))
    made = Scope.objects.filter(name__startswith=prefix)
    projects = list(made.filter(parent__isnull=False).values_list("pk", flat=True))
    teams = list(made.filter(parent__isnull=True).values_list("pk", flat=True))
    personal = list(Scope.objects.filter(owner_id__in=user_ids).values_list("pk", flat=True))
    tables = set(connection.introspection.table_names())
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL memory_site.forgetting = 'on'")
        cards = raw_cascade(cursor, Card, '"scope_id" = ANY(%s)', [projects + teams + personal], tables)
        scopes = raw_cascade(cursor, Scope, '"id" = ANY(%s)', [projects], tables)
        scopes += raw_cascade(cursor, Scope, '"id" = ANY(%s)', [teams], tables)
        users = raw_cascade(cursor, User, f'"{User._meta.pk.column}" = ANY(%s)', [user_ids], tables)
    return {"users": users, "scopes": scopes + len(personal), "cards": cards,
            "seconds": round(time.perf_counter() - started, 2)}


# --- the run -----------------------------------------------------------------------------

def pct(hits: int, n: int) -> str:
    return f"{hits}/{n} ({100 * hits / n:.1f}%)" if n else "—"


def summary(tally: Tally) -> dict:
    out = {}
    for category in CATEGORIES:
        n = tally.n[category]
        out[category] = {"questions": n, "ours": tally.ours[category],
                         "ours_pct": round(100 * tally.ours[category] / n, 1) if n else None,
                         "ours_tiers": dict(tally.tiers[category]),
                         "baseline": dict(tally.base[category]),
                         "ours_misses": tally.examples.get(category, [])}
    return out


def run(args, run_id: str) -> dict:
    prefix = f"{PREFIX}{run_id}_"
    started = time.perf_counter()
    worlds = build_worlds(args.worlds, args.seed)
    user = User.objects.create_user(username=f"{prefix}user", display_name="Quality bench")
    principal, me = Principal(user=user), entity_of_user(user)
    report: dict = {"prefix": prefix}
    try:
        t = time.perf_counter()
        written = [world_write(world, user, prefix) for world in worlds]
        report["write_seconds"] = round(time.perf_counter() - t, 1)
        t = time.perf_counter()
        scope_ids = [s.pk for w in written for s in w.values()]
        card_ids = list(Card.objects.filter(scope_id__in=scope_ids).values_list("pk", flat=True))
        report["cards"] = len(card_ids)
        report["embedded"] = cards_embed_now(card_ids=card_ids)
        kinds = sorted({k for w in worlds for k in w.kinds})
        kind_vectors = dict(zip(kinds, (np.asarray(v, dtype=np.float32) for v in embed_texts(kinds))))
        queries = sorted({f"{thing.name} {label.replace('_', ' ')}" for w in worlds for thing in w.things
                          for label in (*INHERITABLE, *RULELESS)})
        query_vectors = dict(zip(queries, (np.asarray(v, dtype=np.float32) for v in embed_texts(queries))))
        report["embed_seconds"] = round(time.perf_counter() - t, 1)
        t = time.perf_counter()
        tally, latencies, calls = Tally(), [], []
        for world, scopes in zip(worlds, written):
            ask_world(world, scopes, principal, me, tally, latencies, calls, kind_vectors, query_vectors)
        report["ask_seconds"] = round(time.perf_counter() - t, 1)
        report["answer_latency_ms"] = percentiles(latencies)
        report["http"] = http_check(user, calls, args.http_sample, args.seed)
        report["results"] = summary(tally)
        report["extra_derived_values"] = tally.extra_values
        report["worlds"] = {"worlds": len(worlds), "things": sum(len(w.things) for w in worlds),
                            "kinds_written": sum(len(w.kinds) for w in worlds),
                            "multi_kind": sum(w.multi_kind for w in worlds), "chain": sum(w.chain for w in worlds),
                            "things_with_own_value": sum(t.own is not None for w in worlds for t in w.things)}
    finally:
        report["wall_seconds"] = round(time.perf_counter() - started, 1)
        if args.keep:
            report["kept"] = True
        else:
            report["cleanup"] = cleanup(prefix)
    return report


def table(report: dict) -> str:
    cfg, w = report["config"], report.get("worlds", {})
    lines = [f"memory-site answer-quality bench  run {report['run_id']}  {report['started_at']}",
             f"seed {cfg['seed']}: {w.get('worlds')} worlds, {w.get('things')} things, {w.get('kinds_written')} "
             f"kinds written ({w.get('multi_kind')} worlds with a two-kind thing, {w.get('chain')} with a kind "
             f"of a kind, {w.get('things_with_own_value')} things with an own value), {report.get('cards')} cards "
             f"embedded; PostgreSQL {report['postgres']}, {report['cpus']} CPUs", ""]
    lines.append(f"{'question':<44}{'n':>6}  {'ours':<20}baseline (top-1 by cosine, no abstain)")
    for category, title in CATEGORIES.items():
        r = report["results"][category]
        base = "; ".join(f"{variant}: {pct(hits, r['questions'])}" for variant, hits in r["baseline"].items())
        lines.append(f"{title:<44}{r['questions']:>6}  {pct(r['ours'], r['questions']):<20}{base}")
    lines.append("")
    lines.append("ours by tier: " + "; ".join(
        f"{c}: " + ", ".join(f"{t} {n}" for t, n in sorted(report["results"][c]["ours_tiers"].items()))
        for c in CATEGORIES))
    for category in ("no_evidence_rule", "no_evidence_ruleless"):
        r = report["results"][category]
        quiet = r["ours_tiers"].get("no_evidence", 0) + r["ours_tiers"].get("guessed", 0)
        lines.append(f"{CATEGORIES[category]}: no value asserted (no evidence, or candidates labelled as guesses) "
                     f"{pct(quiet, r['questions'])}")
    lines.append(f"derived or recorded values that are not facts of the world: {report['extra_derived_values']}")
    met = all(report["results"][c]["ours"] == report["results"][c]["questions"] for c in TARGETS)
    lines.append(f"target (ours 100% on inherited facts and on no evidence): {'met' if met else 'MISSED'}")
    for category in CATEGORIES:
        for example in report["results"][category]["ours_misses"]:
            lines.append(f"  ours missed [{category}]: {example}")
    lat, http = report["answer_latency_ms"], report["http"]
    lines.append("")
    lines.append(f"service answer() latency per question (bind + answer, in-process): {lat['n']} questions, "
                 f"p50 {lat['p50']} ms, p95 {lat['p95']} ms, p99 {lat['p99']} ms, max {lat['max']} ms")
    lines.append(f"POST /api/v1/answer/ (test Client, session login): {http['agree']}/{http['asked']} agree with "
                 f"the service on tier and values; p50 {http['latency_ms'].get('p50')} ms, "
                 f"p95 {http['latency_ms'].get('p95')} ms")
    lines.append(f"wall {report['wall_seconds']} s (write {report.get('write_seconds')} s, embed "
                 f"{report.get('embed_seconds')} s, ask {report.get('ask_seconds')} s); load average "
                 f"{report['load_average_before']} → {report['load_average_after']}")
    if "cleanup" in report:
        c = report["cleanup"]
        lines.append(f"cleaned up: {c['users']} users, {c['scopes']} scopes, {c['cards']} cards in {c['seconds']} s")
    elif report.get("kept"):
        lines.append(f"kept; remove later with: .venv/bin/python bench/quality.py --cleanup {report['run_id']}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--worlds", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--http-sample", type=int, default=300, help="questions also asked over HTTP")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--keep", action="store_true", help="leave the run's users, scopes and cards in place")
    parser.add_argument("--cleanup", metavar="RUN_ID", help="remove a kept or crashed run (all: every run)")
    args = parser.parse_args()
    if args.cleanup:
        print(json.dumps(cleanup(PREFIX if args.cleanup == "all" else f"{PREFIX}{args.cleanup}_")))
        return
    settings.DEBUG = False
    registry()
    run_id = f"{dt.datetime.now():%Y%m%d%H%M%S}{secrets.token_hex(2)}"
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        pg_version = cursor.fetchone()[0]
    # Kinds are matched by name in global too: a kind of the vocabulary written there would leak in.
    vocabulary = {normalize(k) for w in build_worlds(args.worlds, args.seed) for k in w.kinds}
    collisions = sorted(set(Entity.objects.filter(scope=global_scope_get(), name_norm__in=vocabulary)
                            .values_list("name", flat=True)))
    report = {"run_id": run_id, "started_at": dt.datetime.now().astimezone().isoformat(timespec="seconds"),
              "cpus": os.cpu_count(), "python": platform.python_version(), "postgres": pg_version,
              "config": {"worlds": args.worlds, "seed": args.seed, "http_sample": args.http_sample},
              "global_kind_collisions": collisions,
              "load_average_before": [round(x, 2) for x in os.getloadavg()]}
    report.update(run(args, run_id))
    report["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(report, indent=2, default=str) if args.json else table(report))


if __name__ == "__main__":
    main()
