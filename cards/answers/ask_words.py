"""How a question is put, read without a model (issue 18): its language, its
form (how many, when, a yes or no, or what / where / who), and the words it
asks about once its subject, label and time words are set aside. And the
sentences `ask` answers with, from templates in English and Chinese (Traditional
or Simplified, as the question was written)."""

from __future__ import annotations

import datetime as dt
import re

from scopes.models import User

from ..words.label_names import label_words
from ..words.lexical import CJK, in_script, simplified

FORMS = ("answer", "count", "when", "recall")

_COUNT = re.compile(r"\bhow (many|often)\b|\bnumber of\b|几[次个样件场趟回遍位家本只条顿餐]|多少[次个样件场趟回遍位家顿]")
_WHEN = re.compile(r"^\s*when\b|\bwhat (day|date|time)\b|\bwhich (day|date)\b|\bwhen did\b|\bwhen was\b|"
                   r"什么时候|几时|哪天|哪一天|何时|几月几号|啥时候")
_YES_NO = re.compile(r"^\s*(does|do|did|is|are|was|were|has|have|had|can)\b|吗[？?]?\s*$|[吗嗎]|有没有|是不是|是否|要不要")
_WH = re.compile(r"\b(what|what's|whats|where|where's|who|who's|whom|whose|which)\b|什么|哪|谁|啥|咩|边度|边个|几多")

# Words that carry the question, not what it is about ("does my car need gas": gas).
_FILLER = frozenset("""
does do did is are was were has have had can could would should will the a an to of for at in on my your our
their his her its me i you we it they please tell remember know any anything some still now ever really
吗 呢 啊 吧 呀 需要 要 是 的 了 有 没有 不 我 我的 你 他 她 它
""".split())


# Where Traditional characters are the ones people write.
_TRADITIONAL_ZONES = frozenset({"Asia/Taipei", "Asia/Hong_Kong", "Asia/Macau"})


def language_of(question: str, zone: str = "") -> str:
    """"en", or "zh-Hant" / "zh-Hans" by how its Chinese is written; Chinese written
    alike in both (我的生日是哪一天) in the script of the asker's place."""
    chinese = "".join(CJK.findall(question))
    if not chinese:
        return "en"
    if simplified(chinese) != chinese:
        return "zh-Hant"
    if in_script(chinese, "zh-Hant") != chinese:
        return "zh-Hans"
    return "zh-Hant" if zone in _TRADITIONAL_ZONES else "zh-Hans"


def form_of(question: str) -> str:
    """count, when, answer (a wh- or yes/no question about a subject's label), or recall."""
    text = simplified(question.casefold())
    if _COUNT.search(text):
        return "count"
    if _WHEN.search(text):
        return "when"
    if _YES_NO.search(text) or _WH.search(text):
        return "answer"
    return "recall"


def is_yes_no(question: str) -> bool:
    text = simplified(question.casefold())
    return bool(_YES_NO.search(text)) and not _WH.search(text)


def asked_value(rest: str) -> str:
    """What a yes/no question asks about, once its subject and label words are gone: "gas"."""
    words = [w for w in re.findall(r"[^\W_]+", simplified(rest.casefold())) if w not in _FILLER]
    return " ".join(words)


# --- sentences ----------------------------------------------------------------------------------

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")


def day_words(day: dt.date, language: str) -> str:
    """A day as a person reads it: "21 February 2026", 2026年2月21日."""
    if language == "en":
        return f"{day.day} {_MONTHS[day.month - 1]} {day.year}"
    return f"{day.year}年{day.month}月{day.day}日"


def listed(values: list[str], language: str) -> str:
    if not values:
        return ""
    if language != "en":
        return "、".join(values)
    return values[0] if len(values) == 1 else f"{', '.join(values[:-1])} and {values[-1]}"


def whose(subject: str | None, language: str, *, mine: bool) -> str:
    if language == "en":
        return "your" if mine else f"{subject}'s"
    return "你的" if mine else f"{subject}的"


TEMPLATES = {
    "en": {
        "recorded": "{whose} {label} is {values}.",
        "recorded_many": "{whose} {label}: {values}.",
        "derived": "{whose} {label} is {values} (derived: {how}).",
        "guessed": "I'm not sure; a guess, unconfirmed: {whose} {label} may be {values}.",
        "no_evidence": "I have no record of {what}.",
        "yes": "Yes — {whose} {label}: {values}.",
        "no": "No — {whose} {label}: {values}.",
        "yes_is": "Yes — {name} is a {values}.",
        "no_is": "No — {name} is a {values}.",
        "count": "{count} {label} on record{range}.",
        "count_at_least": "At least {count} {label} on record{range}; {undated} more without a date.",
        "count_none": "I have no record of any {label}{range}.",
        "when": "{what}: {day}.",
        "when_none": "I have no record of when that was.",
        "recall": "The closest record: “{text}”.",
        "recall_none": "I have no record that answers this.",
        "yes_has": "Yes — as recorded of {name}: {values}.",
        "has_none": "I have no record of {name} being {value}.",
        "ambiguous": "“{asked}” names {count} here.",
    },
    "zh": {
        "recorded": "{whose}{label}是{values}。",
        "recorded_many": "{whose}{label}：{values}。",
        "derived": "{whose}{label}是{values}（推得：{how}）。",
        "guessed": "我不确定；未经确认的猜测：{whose}{label}可能是{values}。",
        "no_evidence": "我没有{what}的纪录。",
        "yes": "是的——{whose}{label}：{values}。",
        "no": "不是——{whose}{label}：{values}。",
        "yes_is": "是的——{name}是{values}。",
        "no_is": "不是——{name}是{values}。",
        "count": "{range}有 {count} 次{label}的纪录。",
        "count_at_least": "{range}至少有 {count} 次{label}的纪录，另有 {undated} 次没有日期。",
        "count_none": "{range}没有{label}的纪录。",
        "when": "{what}：{day}。",
        "when_none": "我没有那是什么时候的纪录。",
        "recall": "最相关的纪录：「{text}」。",
        "recall_none": "我没有能回答这个问题的纪录。",
        "yes_has": "是的——{name}：{values}。",
        "has_none": "我没有{name}{value}的纪录。",
        "ambiguous": "「{asked}」在这里指 {count} 个对象。",
    },
}


def sentence(key: str, language: str, **parts) -> str:
    """The template in the question's language and script, filled: the parts (values as
    recorded, names) are never converted."""
    if language == "en":
        text = TEMPLATES["en"][key].format(**parts)
        return text[:1].upper() + text[1:]
    return in_script(TEMPLATES["zh"][key], language).format(**parts)


# How the entities one name means are told apart: a member, else its kind (English; Chinese).
_WHICH = {"member": ("member", "成员"), "person": ("person", "人物"), "place": ("place", "地点"),
          "organization": ("organization", "组织"), "thing": ("thing", "事物"), "kind": ("kind", "类别"),
          "event": ("event", "事件"), "concept": ("concept", "概念")}


def candidate_names(bindings, language: str) -> list[str]:
    """The entities an ambiguous name means, one per binding, each told apart from the
    others: "Sam (member)", "Sam (thing)"; two members alike by their usernames too,
    "Sam (member, sam2)" (they share a scope with the asker, who may see them)."""
    entities = [next(iter(b.roots or b.entities)) for b in bindings]
    which = [_WHICH.get("member" if e.user_id is not None else e.kind, (e.kind, e.kind)) for e in entities]
    which = [words[0] if language == "en" else in_script(words[1], language) for words in which]
    said = [(e.name, w) for e, w in zip(entities, which)]
    usernames = dict(User.objects.filter(pk__in=[e.user_id for e in entities if e.user_id is not None])
                     .values_list("pk", "username"))
    names = []
    for entity, (name, kind) in zip(entities, said):
        if said.count((name, kind)) > 1:
            kind = f"{kind}, {usernames.get(entity.user_id) or f'#{entity.pk}'}"
        names.append(f"{name} ({kind})" if language == "en" else f"{name}（{kind}）")
    return names


# What "no record of …" says for labels a plain "Bob's address" reads stiffly for:
# (English of the asker, of someone else; Chinese). {name} / {who} is filled in.
_NO_RECORD = {
    "address": ("where you live", "where {name} lives", "{who}住在哪里"),
    "city": ("which city you live in", "which city {name} lives in", "{who}住在哪个城市"),
    "employer": ("where you work", "where {name} works", "{who}在哪里工作"),
    "works_at": ("where you work", "where {name} works", "{who}在哪里工作"),
    "job_title": ("what you do for a living", "what {name} does for a living", "{who}做什么工作"),
    "phone": ("your phone number", "{name}'s phone number", "{who}的电话号码"),
    "email": ("your email address", "{name}'s email address", "{who}的电子邮件"),
    "birthday": ("your birthday", "{name}'s birthday", "{who}的生日"),
    "partner": ("your partner", "{name}'s partner", "{who}的伴侣"),
    "car": ("the car you drive", "the car {name} drives", "{who}开什么车"),
    "school": ("where you study", "where {name} studies", "{who}在哪里读书"),
}


def no_record(label, language: str, *, name: str | None, mine: bool) -> str:
    """"I have no record of where Bob lives." / 我没有 Bob 住在哪里的纪录。"""
    en_mine, en_other, chinese = _NO_RECORD.get(label.key, (
        "your {label}", "{name}'s {label}", "{who}的{label}"))
    if language == "en":
        what = (en_mine if mine else en_other).format(name=name, label=label_words(label, language))
    else:
        who = "你" if mine else (f" {name} " if name and not CJK.search(name) else name or "")
        what = in_script(chinese, language).format(who=who, label=label_words(label, language))
    return sentence("no_evidence", language, what=what.strip() if language == "en" else what)
