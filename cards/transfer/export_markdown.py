"""The export in the remember-me layout: `MEMORY.md` (the current long-term
profile), `memory/YYYY-MM-DD.md` daily notes of events by local date,
`memory/undated.md`, and `export.json` so the zip alone restores losslessly.

The line formats are read back by `cards.transfer.import_markdown` when a zip carries
no export.json; keep the two in step."""

from __future__ import annotations

import datetime as dt
import io
import json
import zipfile
import zoneinfo

from ..models import CardKind, Precision, Tag

# MEMORY.md sections: (heading, which current non-event cards it holds).
SECTIONS = [
    ("Facts", lambda c: c["kind"] == CardKind.STATE and c["tag"] == Tag.FACT),
    ("Preferences", lambda c: c["kind"] == CardKind.STATE and c["tag"] == Tag.PREFERENCE),
    ("Goals", lambda c: c["kind"] == CardKind.STATE and c["tag"] == Tag.GOAL),
    # A boundary is one whatever its kind: "please don't call before 9" is a note tagged boundary.
    ("Boundaries", lambda c: c["tag"] == Tag.BOUNDARY),
    ("Knowledge", lambda c: c["kind"] == CardKind.KNOWLEDGE and c["tag"] not in (Tag.HYPOTHESIS, Tag.BOUNDARY)),
    ("Hypotheses (unconfirmed)", lambda c: c["tag"] == Tag.HYPOTHESIS),
]
UNDATED = "undated"
# How an event's time reads in a daily note, by precision (the file name holds the date).
PRECISION_WORDS = {Precision.DAY: "day", Precision.WEEK: "week", Precision.MONTH: "month", Precision.YEAR: "year"}


def one_line(text: str | None) -> str:
    """Markdown entries are single lines: the parser reads them line by line."""
    return " ".join((text or "").split())


def _parse(value: str | None) -> dt.datetime | None:
    return dt.datetime.fromisoformat(value.replace("Z", "+00:00")) if value else None


class _Names:
    def __init__(self, document: dict) -> None:
        self.by_id = {e["id"]: e for e in document["entities"]}

    def subject(self, entity_id: int) -> str:
        entity = self.by_id.get(entity_id)
        return "me" if entity is None or entity["me"] else one_line(entity["name"])

    def value(self, card: dict) -> str:
        # [[Name]] marks an entity, so the reader knows to bind it rather than store text.
        if card["object"]:
            return f"[[{one_line(self.by_id[card['object']]['name'])}]]"
        return one_line(card["value"])


def _describe(card: dict, names: _Names) -> str:
    text = one_line(card["perspective"] or card["text"])
    value = names.value(card)
    line = f"{names.subject(card['subject'])} · {card['label']}: {value}"
    return f"{line} — {text}" if text and text != value else line


def memory_md(document: dict, tz: dt.tzinfo) -> str:
    names = _Names(document)
    # A demoted card left the long-term profile: it is in its daily note, annotated stale.
    current = [c for c in document["cards"] if c["kind"] != CardKind.EVENT and c["superseded_at"] is None
               and not c.get("demoted_at")]
    scope = next((s for s in document["scopes"] if s["id"] == document["scope"]), {})
    archived = _parse(scope.get("archived_at"))
    ended = f" The project was archived on {archived.astimezone(tz).date().isoformat()}." if archived else ""
    lines = ["# MEMORY", "", f"Long-term profile read in “{one_line(scope.get('name', ''))}”, exported "
             f"{document['exported_at']} (dates in {tz}).{ended}", ""]
    for heading, holds in SECTIONS:
        lines += [f"## {heading}", ""]
        cards = [c for c in current if holds(c)]
        for card in cards:
            since = _parse(card["effective_at"]).astimezone(tz).date().isoformat()
            extra = f", confidence {card['confidence']:g}" if card["confidence"] is not None else ""
            lines.append(f"- {_describe(card, names)} (since {since}{extra}) <!-- card:{card['id']} -->")
        if not cards:
            lines.append("- (none)")
        lines.append("")
    return "\n".join(lines)


def _event_when(card: dict, tz: dt.tzinfo) -> tuple[str, str]:
    """(the daily note it belongs to, how its time reads there)."""
    start = _parse(card["occurred_at"])
    if start is None:
        return UNDATED, UNDATED
    local = start.astimezone(tz)
    word = PRECISION_WORDS.get(card["precision"]) or local.strftime("%H:%M")
    return local.date().isoformat(), word


def daily_notes(document: dict, tz: dt.tzinfo) -> dict[str, str]:
    names = _Names(document)
    days: dict[str, list[tuple[str, dict]]] = {}
    events = [c for c in document["cards"] if c["kind"] == CardKind.EVENT]
    # Within a day, in time order; the id breaks ties so the file is stable.
    for card in sorted(events, key=lambda c: (c["occurred_at"] or "", c["id"])):
        day, when = _event_when(card, tz)
        days.setdefault(day, []).append((when, card))
    notes = {}
    for day, entries in days.items():
        title = "Undated events (it happened; when is not known)" if day == UNDATED else day
        lines = [f"# {title}", ""]
        for when, card in entries:
            tag = f" [{card['tag']}]" if card["tag"] != Tag.FACT else ""
            lines.append(f"- {when} · {_describe(card, names)}{tag} <!-- card:{card['id']} -->")
            if card["source"]["quote"]:
                lines.append(f"  > {one_line(card['source']['quote'])}")
        notes[f"memory/{day}.md"] = "\n".join(lines) + "\n"
    for day, lines in _demoted(document, names, tz).items():
        note = notes.get(f"memory/{day}.md") or f"# {day}\n\n"
        notes[f"memory/{day}.md"] = note + "\n".join(lines) + "\n"
    return notes


def _demoted(document: dict, names: _Names, tz: dt.tzinfo) -> dict[str, list[str]]:
    """Demoted cards, back in the daily note of the day they became true, annotated stale.
    The line starts "- stale ·", which the markdown reader does not take for an event."""
    days: dict[str, list[str]] = {}
    demoted = [c for c in document["cards"] if c.get("demoted_at") and c["superseded_at"] is None]
    for card in sorted(demoted, key=lambda c: (c["effective_at"], c["id"])):
        day = _parse(card["effective_at"]).astimezone(tz).date().isoformat()
        when = _parse(card["demoted_at"]).astimezone(tz).date().isoformat()
        days.setdefault(day, []).append(f"- stale · {_describe(card, names)} (demoted {when}: "
                                        f"{card.get('demoted_why') or 'stale'}) <!-- card:{card['id']} -->")
    return days


def export_zip(document: dict, time_zone: str) -> bytes:
    try:
        tz = zoneinfo.ZoneInfo(time_zone or "UTC")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        tz = zoneinfo.ZoneInfo("UTC")
    files = {"MEMORY.md": memory_md(document, tz), **dict(sorted(daily_notes(document, tz).items())),
             "export.json": json.dumps(document, ensure_ascii=False, indent=1)}
    stamp = _parse(document["exported_at"]).timetuple()[:6]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            archive.writestr(zipfile.ZipInfo(name, date_time=stamp), content.encode(),
                             compress_type=zipfile.ZIP_DEFLATED)
    return buffer.getvalue()
