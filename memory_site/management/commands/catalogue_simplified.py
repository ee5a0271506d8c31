"""Writes the Simplified Chinese catalogue from the Traditional one (`make messages` runs it).

One catalogue is translated by hand, zh_Hant; zh_Hans follows from it through
OpenCC's Taiwan-to-mainland conversion (tw2sp: characters and the words that
differ, 程式 → 程序, 設定 → 设置), so the two never drift apart. Only
translations change: msgids, placeholders and markup are ASCII, which the
conversion leaves as they are."""

from __future__ import annotations

from pathlib import Path

import opencc
from django.conf import settings
from django.core.management.base import BaseCommand

TRADITIONAL = Path("zh_Hant") / "LC_MESSAGES" / "django.po"
SIMPLIFIED = Path("zh_Hans") / "LC_MESSAGES" / "django.po"


def simplified_catalogue(traditional: str) -> str:
    convert = opencc.OpenCC("tw2sp").convert
    lines, in_translation = [], False
    for line in traditional.splitlines(keepends=True):
        if line.startswith("msgstr"):
            in_translation = True
        elif not line.startswith('"'):
            in_translation = False
        if line.startswith('"Language: '):
            line = '"Language: zh_Hans\\n"\n'
        elif in_translation:
            line = convert(line)
        lines.append(line)
    text = "".join(lines)
    return text.replace("# memory-site's pages in Traditional Chinese.",
                        "# memory-site's pages in Simplified Chinese, converted from zh_Hant (do not edit).", 1)


class Command(BaseCommand):
    help = "Write locale/zh_Hans's catalogue from locale/zh_Hant's (OpenCC tw2sp)."

    def handle(self, *args, **options):
        root = Path(settings.LOCALE_PATHS[0])
        target = root / SIMPLIFIED
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(simplified_catalogue((root / TRADITIONAL).read_text(encoding="utf-8")), encoding="utf-8")
        self.stdout.write(f"Wrote {target.relative_to(root.parent)}")
