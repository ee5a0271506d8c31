"""Retrieval quality on the evaluation set in bench/retrieval_set/ (its README
says what it holds): recall@5, recall@10 and MRR over the answerable questions,
and abstention precision and recall over all, for our recall and two baselines
in one run — plain cosine over the same vectors, and BM25 over the same cards'
words — beside the fusions measured for issue 17's hybrid scoring.

    .venv/bin/python bench/retrieval_quality.py [--json] [--keep]

Everything happens in a database of its own (``--database``), created and
migrated here and dropped at the end unless ``--keep``. Each conversation is
loaded through the services into a scope of its own, its people as members,
each card written by its session's speaker at the session's time; every card
is then embedded with the configured model (EMBEDDING_BACKEND: each model is
measured with its own values, cards/embeddings/spaces.py). Each question is
asked by its asker, in what a read in the conversation's scope sees (the scope,
the asker's personal scope, global), as of its time.

Figures are given for all questions and by group (`by_language`): en, zh,
mixed by the conversation's language, and apart from them the questions asked
across languages, en→zh and zh→en (retrieval_set/validate.py question_group).
`--json` also lists ours per question (`per_question`), for paired comparisons
of two models (embedder_compare.py).

Methods:
* ours — `cards.recall.routes.recall` as the API calls it (k 10);
* cosine — the valid cards by similarity alone;
* bm25 — rank_bm25's BM25Okapi over the valid cards' stored words (cards/words/lexical.py
  card_lexemes: label, value, object, text), the query's words as recall takes them;
* fused variants (what issue 17 builds, measured here before it is built):
  `α·similarity + (1−α)·lexical`, where lexical is the idf-weighted share of the
  query's words a card holds (its idf over the candidates), × decay; and
  reciprocal-rank fusion of cosine and bm25. `+time`: a time expression in the
  question (cards/time/find.py) becomes `when` — events in that range — and
  the rest of the question is scored.

Abstention: a method abstains when its best result's relevance (before decay)
is below a floor; for each fused method the floor is swept on this set and the
best floor with precision ≥ 0.9 is reported (ours and cosine: similarity).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

from recall_harness import ROOT, ask, bench_database, embed_every_card, log, time_asked
from retrieval_set.validate import question_group

SET = ROOT / "bench" / "retrieval_set"


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--database", default="memory_site_bench_retrieval")
    p.add_argument("--files", default="", help="comma-separated file names in bench/retrieval_set (default: all)")
    p.add_argument("--alphas", default="0.2,0.3,0.4,0.5,0.6,0.7")
    p.add_argument("--boosts", default="", help="other named boosts to measure ours with, e.g. 0,0.2")
    p.add_argument("--ours-alphas", default="", help="other α to measure ours with, e.g. 0.6,0.8")
    p.add_argument("--ours", default="", help="other α:boost pairs to measure ours with, e.g. 0.8:0.05,0.6:0.1")
    p.add_argument("--keep", action="store_true")
    p.add_argument("--json", action="store_true")
    return p.parse_args(argv)


ARGS = parse_args()


# --- loading ---------------------------------------------------------------------------------

class Conversation:
    def __init__(self, data: dict):
        self.data = data
        self.users: dict[str, object] = {}
        self.scope = None
        self.cards: dict[str, int] = {}  # dataset id -> card pk
        self.refused: list[tuple[str, str]] = []


def load(path: Path) -> Conversation:
    from cards.drafts import CardDraft
    from cards.services import card_remember
    from cards.time.when import when_resolve
    from core.errors import DomainError
    from scopes.models import User
    from scopes.services import membership_set, scope_create
    from scopes.zones import person_zone

    convo = Conversation(json.loads(path.read_text()))
    prefix = convo.data["id"][:20]
    for person in convo.data["people"]:
        convo.users[person["username"]] = User.objects.create_user(
            username=f"{prefix}-{person['username']}"[:150], display_name=person["display_name"],
            time_zone=person.get("time_zone", "UTC"))
    first, *others = convo.users.values()
    convo.scope = scope_create(name=convo.data["scope"]["name"], kind=convo.data["scope"]["kind"], creator=first)
    for user in others:
        membership_set(scope=convo.scope, user=user, role="member")
    for session in convo.data["sessions"]:
        speaker = convo.users[session["speaker"]]
        at = dt.datetime.fromisoformat(session["at"])
        for card in session["cards"]:
            fields = dict(kind=card["kind"], label=card["label"], subject=card["subject"],
                          value=card.get("value", ""), text=card.get("text", ""), object=card.get("object"),
                          tag=card.get("tag", "fact"), reference_time=at, source_session=session["id"], consent=True)
            if card["kind"] == "event":
                when = when_resolve(card["occurred"], reference=at, tz=person_zone(speaker))
                fields.update(occurred_at=when.start, occurred_end=when.end, precision=when.precision,
                              time_source=when.source)
            try:
                convo.cards[card["id"]] = card_remember(scope=convo.scope, actor=speaker,
                                                        draft=CardDraft(**fields)).card.pk
            except DomainError as refused:
                convo.refused.append((card["id"], f"{refused.code}: {refused.detail}"))
    return convo


# --- the methods -------------------------------------------------------------------------------

def candidates(scope_ids: list[int], query: str, at: dt.datetime, when=None) -> list[dict]:
    """Every card a read sees now (valid, in the scopes; in `when`'s range if given), with its
    similarity to the query and its decay as recall computes them, and its words."""
    from django.db import connection

    from cards.recall.candidates import candidates_sql
    from cards.embeddings import current_space
    from cards.recall.query import query_vector
    from cards.recall.score import DAYS_SQL, SIMILARITY_SQL, decay_sql

    params = {"scopes": scope_ids, "q": query_vector(query), "at": at, "space": current_space()}
    valid = candidates_sql(params, as_of=at, when=when)
    scored = (f"SELECT c.id, {SIMILARITY_SQL} AS similarity, {decay_sql('l.decay_lambda', DAYS_SQL)} AS decay,"
              f" {DAYS_SQL} AS days FROM cards_card c JOIN cards_label l ON l.id = c.label_id")
    sql = (f"SELECT s.*, c.lexemes FROM ({scored}"
           f" WHERE {valid} AND c.embedding IS NOT NULL) s JOIN cards_card c ON c.id = s.id")
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    # The card's stored words (cards/words/lexical.py card_lexemes), as recall's lexical score reads them.
    return [{"id": pk, "similarity": similarity, "decay": decay, "words": tuple(words)}
            for pk, similarity, decay, _days, words in rows]


def idf_share(found: list[dict], terms: tuple[str, ...]) -> dict[int, float]:
    """The idf-weighted share of the query's words each card holds (binary tf, idf over the candidates)."""
    if not terms or not found:
        return {c["id"]: 0.0 for c in found}
    n = len(found)
    sets = {c["id"]: set(c["words"]) for c in found}
    df = {t: sum(1 for words in sets.values() if t in words) for t in terms}
    idf = {t: math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in terms}
    total = sum(idf.values())
    return {pk: sum(idf[t] for t in terms if t in words) / total for pk, words in sets.items()}


def bm25_scores(found: list[dict], terms: tuple[str, ...]) -> dict[int, float]:
    from rank_bm25 import BM25Okapi

    if not found or not terms:
        return {c["id"]: 0.0 for c in found}
    model = BM25Okapi([list(c["words"]) or ["∅"] for c in found])
    return dict(zip((c["id"] for c in found), model.get_scores(list(terms))))


# How decay weighs on relevance: as DESIGN §6 has it (× decay), and two
# variants measured beside it: none, and half of the score decaying.
DECAY_MODES = {"": lambda d: d, " no-decay": lambda d: 1.0, " half-decay": lambda d: 0.5 + 0.5 * d}


def ranked(scores: dict[int, float]) -> list[int]:
    return [pk for pk, _ in sorted(scores.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)]


def rrf(*rankings: list[int], k: int = 60) -> dict[int, float]:
    fused: dict[int, float] = defaultdict(float)
    for ranking in rankings:
        for rank, pk in enumerate(ranking):
            fused[pk] += 1 / (k + rank + 1)
    return fused


# --- metrics -----------------------------------------------------------------------------------

SCORES = ("recall@5", "recall@10", "mrr")
# The groups in the order they are reported: by the conversation's language, then asked across languages.
GROUPS = ("en", "zh", "mixed", "en→zh", "zh→en")


def question_scores(ids: list[int], answers: set[int]) -> dict[str, float]:
    """One answerable question's recall@5, recall@10 and reciprocal rank (within the first 10)."""
    return {"recall@5": len(set(ids[:5]) & answers) / len(answers),
            "recall@10": len(set(ids[:10]) & answers) / len(answers),
            "mrr": next((1 / (i + 1) for i, pk in enumerate(ids[:10]) if pk in answers), 0.0)}


def metrics(runs: list[tuple[list[int], set[int], float | None]]) -> dict:
    """runs: (ranked ids, answer ids, relevance of the best result) per question; each figure is the mean
    of question_scores over the answerable ones."""
    scored = [question_scores(ids, answers) for ids, answers, _ in runs if answers]
    out = {"questions": len(runs), "answerable": len(scored)}
    for name in SCORES:
        out[name] = round(sum(s[name] for s in scored) / max(1, len(scored)), 4)
    return out


def abstention(runs: list[tuple[list[int], set[int], float | None]], floor: float) -> dict:
    abstained = [not answers for _, answers, top in runs if top is None or top < floor]
    unanswerable = sum(1 for _, answers, _ in runs if not answers)
    hits = sum(abstained)
    return {"floor": round(floor, 4), "abstained": len(abstained),
            "precision": round(hits / len(abstained), 4) if abstained else None,
            "recall": round(hits / unanswerable, 4) if unanswerable else None}


def best_floor(runs) -> dict:
    """The floor with the highest abstention recall at precision ≥ 0.9 (else the most precise one)."""
    tops = sorted({round(top, 4) for _, _, top in runs if top is not None})
    tried = [abstention(runs, floor) for floor in tops]
    good = [a for a in tried if a["precision"] is not None and a["precision"] >= 0.9]
    if good:
        return max(good, key=lambda a: (a["recall"], -a["floor"]))
    return max((a for a in tried if a["precision"] is not None), key=lambda a: (a["precision"], a["recall"]),
               default={"floor": None, "abstained": 0, "precision": None, "recall": None})


# --- the run -----------------------------------------------------------------------------------

def variants() -> list[tuple[str, dict]]:
    """Ours as the product has it, then with the other values asked for (the current space's, changed)."""
    from cards.embeddings.spaces import space_values

    values = space_values()
    boosts = [float(b) for b in ARGS.boosts.split(",") if b and float(b) != values.named_boost]
    alphas = [float(a) for a in ARGS.ours_alphas.split(",") if a and float(a) != values.alpha]
    pairs = [tuple(float(x) for x in pair.split(":")) for pair in ARGS.ours.split(",") if pair]
    return [("ours", {}), *((f"ours, named boost {b}", {"named_boost": b}) for b in boosts),
            *((f"ours, α {a}", {"alpha": a}) for a in alphas),
            *((f"ours, α {a}, named boost {b}", {"alpha": a, "named_boost": b}) for a, b in pairs)]


def space_changed(changes: dict) -> None:
    """The current space's values with `changes` (none: as the product has them): every form of the score
    reads them from the one table (cards/embeddings/spaces.py)."""
    import dataclasses

    from cards.embeddings import spaces

    space = spaces.current_space()
    spaces.SPACE_VALUES[space] = dataclasses.replace(PRODUCT_VALUES[space], **changes)


PRODUCT_VALUES: dict = {}


def evaluate(conversations: list[Conversation], alphas: list[float]) -> dict:
    from cards.embeddings import spaces
    from cards.recall.query import recall_terms
    from scopes.principals import Principal
    from scopes.selectors import read_scope_ids

    methods: dict[str, list] = defaultdict(list)
    by_language: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    timings: dict[str, list[float]] = defaultdict(list)
    # Per question, ours: (recall said no_evidence, nothing answers it, the question).
    said_none: list[tuple[bool, bool, str]] = []
    per_question: list[dict] = []  # ours, each answerable question's scores
    PRODUCT_VALUES.update(spaces.SPACE_VALUES)
    for convo in conversations:
        language = convo.data["language"]
        for question in convo.data["questions"]:
            asker = convo.users[question["asker"]]
            scope_ids = read_scope_ids(principal=Principal(user=asker), scope_id=convo.scope.pk)
            answers = {convo.cards[c] for c in question["answers"] if c in convo.cards}
            if question["answers"] and not answers:
                continue  # every answering card was refused at load (reported)
            query, at = question["text"], dt.datetime.fromisoformat(question["at"])
            group = question_group(language, question)
            timed = time_asked(query, asker=asker, at=at)
            results = {}
            for name, changes in variants():  # the first is the product's own
                space_changed(changes)
                started = time.perf_counter()
                ours = ask(query, asker=asker, scope_ids=scope_ids, at=at, k=10)
                timings[name].append(time.perf_counter() - started)
                results[name] = ([r.card_id for r in ours.results], ours.results[0].relevance if ours.results else 0.0)
                if name == "ours":
                    said_none.append((ours.no_evidence, not answers, query))
                    if answers:
                        per_question.append({"id": f"{convo.data['id']}/{question['id']}", "group": group,
                                             **question_scores(results[name][0], answers)})
            space_changed({})
            found = candidates(scope_ids, query, at)
            sims = {c["id"]: c["similarity"] for c in found}
            decays = {c["id"]: c["decay"] for c in found}
            terms = recall_terms(query)
            results["before: similarity × decay"] = (ranked({pk: sims[pk] * decays[pk] for pk in sims})[:10],
                                                     max(sims.values(), default=None))
            results["cosine"] = (ranked(sims)[:10], max(sims.values(), default=None))
            bm25 = bm25_scores(found, terms)
            results["bm25"] = (ranked(bm25)[:10], None)
            results["rrf(cosine,bm25)"] = (ranked(rrf(ranked(sims), ranked(bm25)))[:10], None)
            share = idf_share(found, terms)
            if timed is not None:
                found_t = candidates(scope_ids, timed.rest or query, at, when=timed.interval)
                terms_t = recall_terms(timed.rest or query)
                share_t = idf_share(found_t, terms_t)
            for alpha in alphas:
                for mode, damp in DECAY_MODES.items():
                    name = f"fused α={alpha}{mode}"
                    relevance = {pk: alpha * sims[pk] + (1 - alpha) * share[pk] for pk in sims}
                    top = ranked({pk: relevance[pk] * damp(decays[pk]) for pk in sims})[:10]
                    results[name] = (top, relevance[top[0]] if top else 0.0)
                    if timed is not None:
                        relevance_t = {c["id"]: alpha * c["similarity"] + (1 - alpha) * share_t[c["id"]]
                                       for c in found_t}
                        top = ranked({c["id"]: relevance_t[c["id"]] * damp(c["decay"]) for c in found_t})[:10]
                        results[name + " +time"] = (top, relevance_t[top[0]] if top else 0.0)
                    else:
                        results[name + " +time"] = results[name]
                # The ten most relevant, in the order of relevance × decay: decay orders what is
                # relevant and never keeps a relevant card out (recall@10 is no-decay's; MRR is not).
                pool = ({c["id"]: (alpha * c["similarity"] + (1 - alpha) * share_t[c["id"]], c["decay"])
                         for c in found_t} if timed is not None else
                        {pk: (alpha * sims[pk] + (1 - alpha) * share[pk], decays[pk]) for pk in sims})
                chosen = ranked({pk: rel for pk, (rel, _) in pool.items()})[:10]
                ordered = sorted(chosen, key=lambda pk: (pool[pk][0] * pool[pk][1], pk), reverse=True)
                results[f"fused α={alpha} select-then-decay +time"] = (ordered, pool[chosen[0]][0] if chosen else 0.0)
                lexical_top = max((share_t if timed is not None else share).values(), default=0.0)
                results[f"fused α={alpha} select-then-decay +time, abstain on words"] = (ordered, lexical_top)
            for name, (ids, best) in results.items():
                methods[name].append((ids, answers, best))
                by_language[group][name].append((ids, answers, best))
    report = {"methods": {}, "by_language": {}}
    for name, runs in methods.items():
        report["methods"][name] = {**metrics(runs), **({"abstention": best_floor(runs)}
                                                        if runs and runs[0][2] is not None else {})}
    for language in sorted(by_language, key=lambda g: (GROUPS.index(g) if g in GROUPS else len(GROUPS), g)):
        report["by_language"][language] = {name: metrics(runs) for name, runs in by_language[language].items()}
    abstained = [unanswerable for no_evidence, unanswerable, _ in said_none if no_evidence]
    unanswerable = sum(1 for _, u, _ in said_none if u)
    report["ours_abstention"] = {
        "abstained": len(abstained), "right": sum(abstained), "unanswerable": unanswerable,
        "precision": round(sum(abstained) / len(abstained), 4) if abstained else None,
        "recall": round(sum(abstained) / unanswerable, 4) if unanswerable else None,
        "wrongly": [text for no_evidence, unanswerable, text in said_none if no_evidence and not unanswerable]}
    report["ours_ms_p50"] = round(sorted(timings["ours"])[len(timings["ours"]) // 2] * 1000, 1)
    report["per_question"] = per_question
    return report


def main() -> int:
    from http_load import load_average

    files = [SET / name for name in ARGS.files.split(",") if name] or sorted(SET.glob("*.json"))  # a path is kept as is
    report = {"started_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
              "command": " ".join([".venv/bin/python", "bench/retrieval_quality.py", *sys.argv[1:]]),
              "cpus": os.cpu_count(), "load_average_start": load_average(), "files": [f.name for f in files]}
    with bench_database(ARGS.database, keep=ARGS.keep):
        started = time.perf_counter()
        conversations = [load(path) for path in files]
        report["loaded"] = {"conversations": len(conversations), "cards": sum(len(c.cards) for c in conversations),
                            "refused": {c.data["id"]: c.refused for c in conversations if c.refused},
                            "seconds": round(time.perf_counter() - started, 1)}
        log(f"loaded {report['loaded']['cards']} cards; embedding …")
        embedded = embed_every_card()
        report["space"], report["embedded_seconds"] = embedded["space"], embedded["seconds"]
        log("asking …")
        started = time.perf_counter()
        report.update(evaluate(conversations, [float(a) for a in ARGS.alphas.split(",")]))
        report["asked_seconds"] = round(time.perf_counter() - started, 1)
        report["load_average_end"] = load_average()
    if ARGS.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print_table(report)
    return 0


def print_table(report: dict) -> None:
    print(f"{report['command']}\nloaded: {report['loaded']}\n")
    print(f"{'method':28} {'r@5':>7} {'r@10':>7} {'MRR':>7}   abstention (floor, precision, recall)")
    for name, row in report["methods"].items():
        a = row.get("abstention")
        shown = f"{a['floor']}, {a['precision']}, {a['recall']}" if a else "—"
        print(f"{name:28} {row['recall@5']:7.3f} {row['recall@10']:7.3f} {row['mrr']:7.3f}   {shown}")
    for language, named in report["by_language"].items():
        print(f"\n{language}:")
        for name, row in named.items():
            print(f"  {name:26} {row['recall@5']:7.3f} {row['recall@10']:7.3f} {row['mrr']:7.3f}  "
                  f"({row['answerable']} answerable)")
    a = report["ours_abstention"]
    print(f"\nours says no_evidence on {a['abstained']} questions, {a['right']} of them unanswerable"
          f" (of {a['unanswerable']}): precision {a['precision']}, recall {a['recall']}")
    print(f"ours p50 {report['ours_ms_p50']} ms per question")


if __name__ == "__main__":
    sys.exit(main())
