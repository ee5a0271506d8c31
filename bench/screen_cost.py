"""What the write screen (cards/screen) costs on the bulk path, in-process.

    .venv/bin/python bench/screen_cost.py [--cards 1000] [--rounds 5] [--json]

Builds one deterministic batch of ordinary cards (states, events with a
description, notes with a description and a source quote; about a third in
Chinese, Traditional or Simplified) for a throwaway user, and times
`card_remember_batch` over it with the screen and with the screen replaced by
a no-op, alternating, each run in a transaction that is rolled back (nothing
is left behind). It also times the screen alone over the same drafts (process
time). The report gives the median of each, the ratio with / without, and the
screen's share of a bulk write (its time alone ÷ the bulk without it, by wall
time and by this process's CPU time, the database's own work left out), which
a busy machine disturbs less than the ratio of two wall times. Needs a migrated
database (`manage.py migrate`); run it from the repo root.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")
os.environ.setdefault("EMBED_ON_WRITE", "0")
import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.db import transaction  # noqa: E402

import cards.services.write_plan as write_plan  # noqa: E402
from cards.drafts import CardDraft  # noqa: E402
from cards.screen import content_screen  # noqa: E402
from cards.services import card_remember_batch  # noqa: E402
from scopes.models import User  # noqa: E402

CITIES = ["Berlin", "Taipei", "Lisbon", "Kyoto", "Toronto", "Oslo", "台北", "高雄", "上海", "京都"]
HOBBIES = ["chess", "bouldering", "sourdough baking", "birdwatching", "爬山", "攝影", "书法", "下围棋"]
NOTES_EN = [
    "The router password is on the sticker under the modem; reset it by holding the button for ten seconds.",
    "Prefers meetings before noon and written agendas sent the day before, with the decisions listed first.",
    "Keeps the spare key with the neighbour at number 12, who is away most of August every year.",
    "Orders the vegetarian set at the ramen place near the station; no coriander, extra egg.",
]
NOTES_ZH = [
    "家裡的備用鑰匙放在隔壁十二號的鄰居那裡，八月她通常不在家。",
    "开会前一天把议程发给大家，决定写在最前面，上午开会比较好。",
    "車站旁邊的拉麵店點素食套餐，不要香菜，多加一顆蛋。",
]
EVENTS = ["Dinner with Anna at the harbour", "Team offsite in the mountains", "和大學同學聚餐", "去看牙醫"]


def drafts(count: int, seed: int = 7) -> list[CardDraft]:
    rng = random.Random(seed)
    made = []
    for index in range(count):
        kind = index % 4
        if kind == 0:
            made.append(CardDraft(kind="state", label="city", subject="me", value=rng.choice(CITIES)))
        elif kind == 1:
            made.append(CardDraft(kind="state", label="hobby", subject="me", value=f"{rng.choice(HOBBIES)} {index}"))
        elif kind == 2:
            made.append(CardDraft(kind="event", label="meal", subject="me", text=f"{rng.choice(EVENTS)} #{index}"))
        else:
            note = rng.choice(NOTES_ZH if index % 3 == 0 else NOTES_EN)
            made.append(CardDraft(kind="knowledge", label="note", subject="me", value=f"note {index}", text=note,
                                  source_quote=note))
    return made


def timed(run, clock=time.perf_counter) -> float:
    start = clock()
    run()
    return clock() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    settings.DEBUG = False
    batch = drafts(args.cards)
    screened, unscreened, alone, unscreened_cpu = [], [], [], []
    with transaction.atomic():
        user = User.objects.create_user(username=f"bench_screen_{os.getpid()}", password="x")
        scope = user.personal_scope

        def remember() -> None:
            with transaction.atomic():
                card_remember_batch(actor=user, items=[(scope, d) for d in batch])
                transaction.set_rollback(True)

        remember()  # warm the label registry, the entity memo and the compiled patterns
        for _ in range(args.rounds):
            screened.append(timed(remember))
            write_plan.content_screen = lambda **kwargs: None
            try:
                start = time.process_time()
                unscreened.append(timed(remember))
                unscreened_cpu.append(time.process_time() - start)
            finally:
                write_plan.content_screen = content_screen
            # Process time: the screen is pure Python, and a busy machine inflates its wall time.
            alone.append(timed(lambda: [content_screen(fields=write_plan.draft_fields(d), consent=False)
                                        for d in batch], clock=time.process_time))
        transaction.set_rollback(True)
    with_screen, without, screen_only = (statistics.median(t) for t in (screened, unscreened, alone))
    report = {"cards": args.cards, "rounds": args.rounds,
              "bulk_with_screen_ms": round(with_screen * 1000, 1), "bulk_without_screen_ms": round(without * 1000, 1),
              "ratio": round(with_screen / without, 3), "screen_alone_cpu_ms": round(screen_only * 1000, 1),
              "screen_us_per_card": round(screen_only / args.cards * 1e6, 1),
              "screen_share_of_bulk": round(screen_only / without, 3),
              "bulk_without_screen_cpu_ms": round(statistics.median(unscreened_cpu) * 1000, 1),
              "screen_share_of_bulk_cpu": round(screen_only / statistics.median(unscreened_cpu), 3)}
    if args.json:
        print(json.dumps(report))
    else:
        for key, value in report.items():
            print(f"{key:>24}  {value}")


if __name__ == "__main__":
    main()
