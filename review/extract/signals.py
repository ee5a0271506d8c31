"""Signals: what a person says that matters for what it shows over time, read by fixed patterns in
English and Chinese (Traditional and Simplified, written once in Traditional: scripts.both_scripts).

- a recurring blocker ("the build broke again", "CI is red again", 又壞了, 又掛了): only its short name
  is read, never the sentence; the never-store policy may drop the sentence itself as a one-off
  frustration, so the name is all that is kept (review/services/signals.py);
- a priority shift ("we dropped the garden plan, we're doing the patio instead", "the priority now is
  X", 先做X, 改成做Y): what is now first and, when said, what it replaced.

A repeated preference is not read here: it is a preference the extractor already proposes, said again
(review/services/ingest.py `_mark_long_term`, the one home of "repeated").

Nothing here touches the database; questions, wishes and hypotheticals are not signals (patterns.a_fact)."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from cards.text import chinese_in
from cards.screen.never_store import ONE_OFF_FRUSTRATION, TRANSIENT_FEELING, policy_split
from cards.screen.scripts import both_scripts, traditional

from .base import Message
from .patterns import a_fact
from .rules import clean
from .sentences import sentence_spans

# A blocker may be read from a clause the policy drops as a passing mood or a one-off frustration:
# only its name is kept. A guess at someone's motive, or a pasted log, is not the speaker's own report.
_READ_THROUGH = (None, ONE_OFF_FRUSTRATION, TRANSIENT_FEELING)
MAX_SUBJECT = 40

_OPENERS = r"^(?:(?:ugh+|argh+|sigh|damn(?:\s*it)?|dammit|ffs|oh\s+no|great|of\s+course|and|so|well|yep|yup)\W*\s*)*"
_BLOCKER_EN = re.compile(
    _OPENERS
    + r"(?:(?:the|our|my|this|that)\s+)?(?P<s>[a-z0-9][\w.+#/-]*(?:\s+[a-z0-9][\w.+#/-]*){0,2}?)"
    # A past verb stands alone ("the build broke"); a state needs its verb ("CI is red", not "the street goes red").
    r"(?:\s+(?:again\s+)?(?:broke(?:\s+down)?|failed|crashed|timed\s+out)"
    r"|(?:['’]s|\s+(?:is|are|was|were|has\s+been|have\s+been|went|got|keeps?|turned))\s+(?:again\s+)?"
    r"(?:broke(?:\s+down)?|broken|breaking|failed|failing|crashed|crashing|down|red|stuck|blocked|"
    r"timed\s+out|timing\s+out|flaky|flaking))"
    r"(?:\s+(?:again|once\s+more|yet\s+again))?"
    r"(?:\s+(?:today|tonight|yesterday|this\s+(?:morning|afternoon|evening|week)|on\s+[\w/-]+))?\s*$",
    re.IGNORECASE)
# Who broke down is a person, not a blocker ("we broke up", "I failed", "it crashed": what is "it"?).
_NOT_A_THING = frozenset(
    "i you he she we they it this that everything something nothing everyone someone me him her us them who what "
    "there here one".split())

_BLOCKER_ZH = re.compile(both_scripts(
    r"^(?:唉|哎|欸|靠|天啊|又是)?[，,\s]*(?P<s>[A-Za-z0-9\u3400-\u9fff][\w\u3400-\u9fff .+#/-]{0,15}?)\s*"
    r"(?:又|再次|還是|一直)?"
    r"(?:壞了|壞掉了|掛了|失敗了|紅了|當機了|卡住了|崩了|炸了|出問題了|跑不動了|跑不起來了|不能用了|掛掉了)"
    r"[了啦喔哦呢吧呀啊耶！!。…]*$"))
_ZH_NOT_A_THING = re.compile(both_scripts(r"^(?:我|你|妳|您|他|她|它|我們|你們|他們|她們|大家|自己|這|那|這個|那個|人家)$"
                                         # Not a report of a breakage: 被我用壞了 (worn out by use), 快壞了 (almost).
                                         r"|被|把|快|會|要|都"))


@dataclass(frozen=True)
class Blocker:
    subject: str  # the short name as said ("build", "CI", 建置)
    key: str  # what "the same blocker" means: casefolded, Chinese in Traditional
    message: Message
    chinese: bool = False  # said in Chinese (CI又掛了): the candidate speaks the speaker's language

    def day(self, tz: dt.tzinfo) -> dt.date:
        return self.message.at.astimezone(tz).date()


@dataclass(frozen=True)
class PriorityShift:
    now: str  # what is first now
    replaced: str  # what was dropped for it ("" when not said)
    sentence: str  # the sentence as said: the candidate's quote
    message: Message


def blocker_key(subject: str) -> str:
    return traditional(re.sub(r"\s+", " ", subject).strip().casefold())


def blocker_in(clause: str) -> str | None:
    """The short name of the blocker this clause reports ("the build broke again" → build), or None."""
    # "I'm so tired, the deploy is down again": the report may follow a comma the clauses keep.
    for part in re.split(r"[,，;；]\s*", clause):
        # Its key is what is stored, and casefolding may lengthen it ("ß" → "ss"): both must fit.
        if (subject := _blocker_named(part.strip())) and len(blocker_key(subject)) <= MAX_SUBJECT:
            return subject
    return None


def _blocker_named(said: str) -> str | None:
    if chinese_in(said):
        m = _BLOCKER_ZH.match(said)
        subject = m and m["s"].strip()
        return subject if subject and not _ZH_NOT_A_THING.search(subject) else None
    m = _BLOCKER_EN.match(said)
    if not m:
        return None
    subject = m["s"].strip()
    words = subject.casefold().split()
    return None if not words or words[0] in _NOT_A_THING or len(subject) > MAX_SUBJECT else subject


# --- priority shifts -----------------------------------------------------------------------------------

_WE = r"(?:we|i)(?:['’](?:ve|re|m|ll)|\s+(?:have|are|am|will))?"
_DO = r"(?:doing|do|going\s+with|go\s+with|building|build|focusing\s+on|focus\s+on|working\s+on|switching\s+to)"
_DROP = r"(?:dropped|ditched|scrapped|shelved|cancell?ed|abandoned|gave\s+up(?:\s+on)?|given\s+up(?:\s+on)?)"
_PRIORITY_EN = [
    re.compile(rf"\b{_WE}\s+{_DROP}\s+(?P<old>.+?)(?:[,;]\s*|\s+)(?:and\s+|so\s+)?(?:{_WE}|let['’]s)\s+{_DO}\s+"
               rf"(?P<new>.+?)(?:\s+instead)?$", re.IGNORECASE),
    re.compile(rf"\binstead\s+of\s+(?P<old>.+?),\s*(?:{_WE}|let['’]s)\s+{_DO}\s+(?P<new>.+)$", re.IGNORECASE),
    re.compile(r"\b(?:the\s+|our\s+|my\s+)?(?:top\s+|main\s+|new\s+|first\s+|number\s+one\s+|real\s+)?priority\s+"
               r"(?:now\s+|right\s+now\s+|from\s+now\s+on\s+|these\s+days\s+)?is\s+(?:now\s+)?(?P<new>.+)$",
               re.IGNORECASE),
    re.compile(r"^(?P<new>.+?)\s+is\s+(?:now\s+)?(?:the|our|my)\s+(?:top\s+|main\s+|first\s+|new\s+)?priority"
               r"(?:\s+now)?$", re.IGNORECASE),
    re.compile(rf"\b(?:let['’]s|{_WE})\s+(?:focus|focusing)\s+on\s+(?P<new>.+?)\s+(?:first|now|from\s+now\s+on)$",
               re.IGNORECASE),
    re.compile(rf"\b(?:let['’]s|{_WE})\s+(?:prioriti[sz]e|prioriti[sz]ing)\s+(?P<new>.+)$", re.IGNORECASE),
]
# Not a thing to do: "the priority is low", "… is our priority".
_NOT_A_PLAN = frozenset("low high medium urgent unclear clear it this that what something everything nothing".split())

_PRIORITY_ZH = [re.compile(both_scripts(p)) for p in (
    r"(?P<old>[^，,。；;]{1,20}?)不做了[，,；;\s]*(?:我們|我)?(?:改成|改為|改)(?:先)?(?:做)?(?P<new>[^，,。；;]{1,20})",
    r"(?:不做|放棄|取消|停掉|砍掉)(?P<old>[^了，,。；;][^，,。；;]{0,19}?)了?[，,；;\s]*(?:我們|我)?(?:改成|改為|改)(?:先)?"
    r"(?:做)?(?P<new>[^，,。；;]{1,20})",
    r"(?:改成|改為)(?:先)?做(?P<new>[^，,。；;]{1,20})",
    r"先做(?!完|好|一下|個|個|一|點|些|吧)(?P<new>[^，,。；;]{1,20})",
    r"(?:重點|優先|首要任務|第一優先|優先順序)(?:現在)?(?:是|改成|變成|改為)(?P<new>[^，,。；;]{1,20})",
    r"優先(?:做|處理)(?P<new>[^，,。；;]{1,20})",
)]
# A question the zh fact check does not see: 要不要先做…, 該不該…, …好不好.
_ZH_ASKS = re.compile(both_scripts(r"要不要|該不該|好不好|能不能|可不可以|還是要|[?？]"))


def _plan(value: str) -> str:
    said = clean(re.sub(r"\s+(?:instead|first|now|from\s+now\s+on|for\s+now|for\s+good)$", "", clean(value),
                        flags=re.IGNORECASE))
    return "" if said.casefold() in _NOT_A_PLAN else said


# How a plan is named beside the project that holds it: "the garden plan" is the project "Garden".
_PLAN_WORDS = re.compile(r"^(?:the|our|my|that|this)\s+|\s+(?:plan|project|idea)s?$|(?:計畫|計劃|计划|項目|项目|專案|专案)$",
                         re.IGNORECASE)


def plan_name(said: str) -> str:
    """What names a plan or a project, for telling whether a dropped plan is this project."""
    name = " ".join(said.split()).casefold()
    while (shorter := _PLAN_WORDS.sub("", name).strip()) != name:
        name = shorter
    return traditional(name) if chinese_in(name) else name


def priority_in(sentence: str) -> tuple[str, str] | None:
    """(what is first now, what it replaced or "") when the sentence states a shift of priorities."""
    chinese = chinese_in(sentence)
    if chinese and _ZH_ASKS.search(sentence):
        return None
    for pattern in _PRIORITY_ZH if chinese else _PRIORITY_EN:
        if m := pattern.search(sentence.strip().rstrip(".!。！")):
            now = _plan(m["new"]) if "new" in pattern.groupindex and m["new"] else ""
            old = _plan(m["old"]) if "old" in pattern.groupindex and m["old"] else ""
            if now or old:
                return now, old
    return None


def _asked(text: str, clause: str) -> bool:
    """Whether the clause is asked, not said: the policy's clauses lose their end punctuation."""
    at = text.find(clause)
    rest = text[at + len(clause):].lstrip() if at >= 0 else ""
    return rest[:1] in ("?", "？")


# Words without which no pattern above can match: most messages are passed over at the cost of one search.
_MAY_BLOCK = re.compile(r"(?i:broke|fail|crash|down|red\b|stuck|block|timed\s+out|timing\s+out|flak)"
                        + both_scripts("|壞|掛|失敗|紅|當機|卡住|崩|炸|出問題|跑不|不能用"))
_MAY_SHIFT = re.compile(r"(?i:priorit|instead|focus)" + both_scripts("|先做|改成|改為|改做|不做|重點|優先|首要"))


def blockers_in(messages: list[Message]) -> list[Blocker]:
    """Every blocker reported in the user's own messages, once per message and name."""
    found: dict[tuple[str, str], Blocker] = {}
    for message in (m for m in messages if m.role == "user" and _MAY_BLOCK.search(m.text)):
        for clause, refused_by in policy_split(message.text):
            if refused_by not in _READ_THROUGH or not a_fact(clause) or _asked(message.text, clause):
                continue
            if subject := blocker_in(clause):
                chinese = chinese_in(clause)
                found.setdefault((message.id, blocker_key(subject)),
                                 Blocker(subject, blocker_key(subject), message, chinese))
    return list(found.values())


def priority_shifts_in(messages: list[Message]) -> list[PriorityShift]:
    """Every priority shift stated in the user's own messages, in a sentence the policy keeps whole."""
    found = []
    for message in (m for m in messages if m.role == "user" and _MAY_SHIFT.search(m.text)):
        for start, end in sentence_spans(message.text):
            sentence = message.text[start:end]
            kept = all(refused_by is None for _, refused_by in policy_split(sentence))
            if not kept or not a_fact(sentence) or sentence.rstrip().endswith(("?", "？")):
                continue
            if shift := priority_in(sentence):
                found.append(PriorityShift(now=shift[0], replaced=shift[1], sentence=sentence, message=message))
    return found
