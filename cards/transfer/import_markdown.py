"""Read `MEMORY.md` and `memory/*.md` (the layout `cards.transfer.export_markdown`
writes) back into an export document, best effort: values, labels, tags,
since-dates and event dates come back; history, revisions and exact
instants do not — an export.json carries those."""

from __future__ import annotations

import datetime as dt
import re
import zoneinfo

from dateutil.relativedelta import relativedelta

from ..confidence import WORDS
from ..errors import UnknownLabel
from .importer import FORMAT, ImportFileError
from ..labels import label_resolve
from ..models import CardKind, Cardinality, Precision, Tag, TimeSource

SECTION_TAGS = {"facts": Tag.FACT, "preferences": Tag.PREFERENCE, "goals": Tag.GOAL, "boundaries": Tag.BOUNDARY,
                "knowledge": Tag.FACT, "hypotheses": Tag.HYPOTHESIS}
PROFILE_LINE = re.compile(
    r"^- (?P<subject>.+?) · (?P<label>[\w-]+): (?P<rest>.*) \(since (?P<since>\d{4}-\d{2}-\d{2})"
    rf"(?:, confidence (?P<confidence>[0-9.]+|{'|'.join(WORDS)}))?\)(?: <!-- card:(?P<id>\d+) -->)?\s*$")
EVENT_LINE = re.compile(
    r"^- (?P<when>\d{1,2}:\d{2}|day|week|month|year|undated) · (?P<subject>.+?) · (?P<label>[\w-]+): "
    r"(?P<rest>.*?)(?: \[(?P<tag>[a-z]+)\])?(?: <!-- card:(?P<id>\d+) -->)?\s*$")
NOTE_NAME = re.compile(r"^memory/(?P<day>\d{4}-\d{2}-\d{2}|undated)\.md$")
ZONE = re.compile(r"\(dates in (?P<zone>[\w/+-]+)\)")
OBJECT = re.compile(r"^\[\[(?P<name>.+)\]\]$")
WORD_PRECISION = {"day": Precision.DAY, "week": Precision.WEEK, "month": Precision.MONTH, "year": Precision.YEAR}
SPAN = {Precision.DAY: relativedelta(days=1), Precision.WEEK: relativedelta(weeks=1),
        Precision.MONTH: relativedelta(months=1), Precision.YEAR: relativedelta(years=1)}


class _Builder:
    def __init__(self) -> None:
        self.entities: dict[str, dict] = {}
        self.cards: list[dict] = []
        self.ids: set[int] = set()

    def entity(self, name: str) -> int:
        name = name.strip()
        if name not in self.entities:
            self.entities[name] = {"id": len(self.entities) + 1, "scope": 0, "name": name, "kind": "thing",
                                   "me": name == "me", "aliases": [], "merged_into": None}
        return self.entities[name]["id"]

    def card_id(self, marker: str | None) -> int:
        card_id = int(marker) if marker and int(marker) not in self.ids else max(self.ids | {10**12}) + 1
        self.ids.add(card_id)
        return card_id

    def card(self, match: re.Match, **fields) -> dict:
        value, _, text = match["rest"].partition(" — ")
        obj = OBJECT.match(value.strip())
        card = {"id": self.card_id(match["id"]), "scope": 0, "subject": self.entity(match["subject"]),
                "label": match["label"], "value": "" if obj else value.strip(), "text": text.strip(),
                "object": self.entity(obj["name"]) if obj else None, "perspective": None, "superseded_at": None,
                "superseded_by": None, "verified_at": None, "stated_at": [], "confidence": None, "impact": 2,
                "revisions": [], "source": {"actor": None, "session": "", "message": "", "quote": ""}, **fields}
        self.cards.append(card)
        return card


def _label_kind(label: str) -> tuple[str, str]:
    try:
        found = label_resolve(label)
    except UnknownLabel:
        return CardKind.STATE, Cardinality.MULTI  # the importer refuses it by name, with suggestions
    return found.kind, found.cardinality


def _iso(value: dt.datetime | None) -> str | None:
    return value.isoformat() if value else None


def _profile(text: str, builder: _Builder, tz: dt.tzinfo) -> None:
    tag = None
    for line in text.splitlines():
        if line.startswith("## "):
            tag = SECTION_TAGS.get(line[3:].split()[0].lower() if line[3:].split() else "")
            continue
        match = PROFILE_LINE.match(line)
        if tag is None or match is None:
            continue
        kind, cardinality = _label_kind(match["label"])
        since = dt.datetime.combine(dt.date.fromisoformat(match["since"]), dt.time(), tzinfo=tz)
        builder.card(match, kind=kind, cardinality=cardinality, tag=tag, effective_at=_iso(since),
                     occurred_at=None, occurred_end=None, precision="", time_source=TimeSource.NONE,
                     # As written (a number or a word): the import reads it as every entry point does.
                     confidence=match["confidence"])


def _daily(day: str, text: str, builder: _Builder, tz: dt.tzinfo, now: dt.datetime) -> None:
    last = None
    for line in text.splitlines():
        if line.startswith("  > ") and last is not None:
            last["source"]["quote"] = line[4:].strip()
            continue
        match = EVENT_LINE.match(line)
        last = None
        if match is None:
            continue
        start = end = None
        precision = ""
        if day != "undated" and match["when"] != "undated":
            date = dt.date.fromisoformat(day)
            if match["when"] in WORD_PRECISION:
                precision = WORD_PRECISION[match["when"]]
                start = dt.datetime.combine(date, dt.time(), tzinfo=tz)
                end = start + SPAN[precision]
            else:
                hour, minute = map(int, match["when"].split(":"))
                start, precision = dt.datetime.combine(date, dt.time(hour, minute), tzinfo=tz), Precision.DATETIME
        last = builder.card(match, kind=CardKind.EVENT, cardinality=Cardinality.MULTI,
                            tag=match["tag"] if match["tag"] in Tag.values else Tag.FACT,
                            effective_at=_iso(start or now), occurred_at=_iso(start), occurred_end=_iso(end),
                            precision=precision, time_source=TimeSource.STATED if start else TimeSource.NONE)


def document_from_markdown(files: dict[str, str], *, time_zone: str, now: dt.datetime) -> dict:
    """An export document from MEMORY.md and the daily notes (`files`: name → text)."""
    profile = files.get("MEMORY.md")
    notes = {NOTE_NAME.match(name)["day"]: text for name, text in files.items() if NOTE_NAME.match(name)}
    if profile is None and not notes:
        raise ImportFileError("The zip holds neither export.json, MEMORY.md nor memory/YYYY-MM-DD.md notes.")
    zone = ZONE.search(profile or "")
    try:
        tz = zoneinfo.ZoneInfo(zone["zone"] if zone else time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        tz = zoneinfo.ZoneInfo(time_zone)
    builder = _Builder()
    if profile is not None:
        _profile(profile, builder, tz)
    for day, text in sorted(notes.items()):
        _daily(day, text, builder, tz, now)
    return {"format": FORMAT, "version": 1, "scopes": [{"id": 0, "name": "markdown", "kind": "personal"}],
            "entities": list(builder.entities.values()), "cards": builder.cards}
