"""Chinese expressions, traditional and simplified: 今天, 上週, 這個週末, 週五, 三天前, 2023年5月8日…

Traditional characters are first mapped to their simplified forms, so each
rule is written once. Unlike English "last Friday", 上週五 names the week
explicitly: Friday of the previous Monday-based week."""

from __future__ import annotations

import datetime as dt
import re

from ..models import TimeSource
from .base import (
    Context, Interval, Refusal, day_of, hours, latest_date, latest_month, month_of, part_of, shifted, week_start,
    weekend_of, year_of,
)

SIMPLIFIED = str.maketrans({"週": "周", "這": "这", "個": "个", "後": "后", "禮": "礼", "號": "号", "兩": "两"})
DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
DAYS = {"今天": 0, "今日": 0, "昨天": -1, "昨日": -1, "前天": -2, "大前天": -3, "明天": 1, "明日": 1,
        "后天": 2, "大后天": 3}
YEARS = {"前年": -2, "去年": -1, "今年": 0, "明年": 1, "后年": 2}
# Prefixes naming the previous, current or next week or month.
STEP = {"上": -1, "上个": -1, "这": 0, "这个": 0, "本": 0, "下": 1, "下个": 1}
PARTS = {"早上": "morning", "上午": "morning", "早晨": "morning", "下午": "afternoon", "晚上": "evening",
         "傍晚": "evening"}

N = r"(?P<n>[0-9]{1,5}|[零〇一二两三四五六七八九十]{1,4})"
STEP_RE = "|".join(sorted(STEP, key=len, reverse=True))
WEEK_WORD = r"(?:周|个?星期|个?礼拜)"


def number(text: str) -> int:
    """Arabic digits, or Chinese numerals up to 99 (十 = 10, 十二 = 12, 二十三 = 23)."""
    if text.isdigit():
        return int(text)
    tens, ten, units = text.rpartition("十")
    try:
        if not ten:
            (digit,) = units  # one digit, e.g. 三; "三三" is not a number
            return DIGITS[digit]
        if len(tens) <= 1 and len(units) <= 1:
            return (DIGITS[tens] if tens else 1) * 10 + (DIGITS[units] if units else 0)
    except (KeyError, ValueError):
        pass
    raise Refusal(f"{text} is not a number we read")


def _day(m, ctx):
    return day_of(ctx.today + dt.timedelta(days=DAYS[m["word"]]), ctx)


def _evening(offset: int):
    """今晚 is tonight (18:00 to midnight, like English); 昨晚 is last night (to 06:00)."""
    def build(m, ctx):
        day = ctx.today + dt.timedelta(days=offset)
        if offset == -1:
            return hours(day, 18, ctx.today, 6, ctx)
        return hours(day, 18, day + dt.timedelta(days=1), 0, ctx)
    return build


def _week(m, ctx):
    return shifted("week", STEP[m["step"]], ctx)


def _weekend(m, ctx):
    step = STEP[m["step"]] if m["step"] else 0
    return weekend_of(ctx.today + dt.timedelta(weeks=step), ctx)


def _weekday(m, ctx):
    """A plain 週五 is the most recent Friday, today included, like English "Friday"."""
    target, today = WEEKDAYS[m["wd"]], ctx.today
    if m["step"] is None:
        return day_of(today - dt.timedelta(days=(today.weekday() - target) % 7), ctx)
    monday = week_start(today) + dt.timedelta(weeks=STEP[m["step"]])
    return day_of(monday + dt.timedelta(days=target), ctx)


def _month(m, ctx):
    return shifted("month", STEP[m["step"]], ctx)


def _year(m, ctx):
    return year_of(ctx.today.year + YEARS[m["word"]], ctx)


def _ago(m, ctx):
    unit = {"天": "day", "日": "day", "月": "month", "年": "year"}.get(m["unit"][-1], "week")
    sign = -1 if m["dir"].endswith("前") else 1
    return shifted(unit, sign * number(m["n"]), ctx)


def _date(m, ctx):
    """2023年5月8日 and 2023年5月 are stated; 5月8日 and 五月 take the most recent one."""
    year = int(m["year"]) if m["year"] else None
    month = number(m["month"])
    if not 1 <= month <= 12:
        raise Refusal(f"there is no month {month}")
    source = TimeSource.STATED if year else TimeSource.RESOLVED
    if m["day"] is None:
        return month_of(dt.date(year, month, 1) if year else latest_month(month, ctx), ctx, source)
    day = number(m["day"])
    try:
        date = dt.date(year, month, day) if year else latest_date(month, day, ctx)
    except ValueError:
        raise Refusal(f"{year}年{month}月{day}日 does not exist") from None
    return day_of(date, ctx, source)


def _year_only(m, ctx):
    return year_of(int(m["year"]), ctx, TimeSource.STATED)


def _part(m, ctx):
    base = resolve_chinese_text(m["base"], ctx)
    if base is None:
        return None
    return part_of(base, PARTS[m["part"]], ctx)


RULES = [(re.compile(pattern), build) for pattern, build in [
    (r"(?P<word>大前天|前天|昨天|昨日|今天|今日|明天|明日|大后天|后天)", _day),
    (r"今晚", _evening(0)),
    (r"昨晚", _evening(-1)),
    (r"明晚", _evening(1)),
    (r"今早", lambda m, ctx: part_of(day_of(ctx.today, ctx), "morning", ctx)),
    (rf"(?P<step>{STEP_RE})?{WEEK_WORD}末", _weekend),
    (rf"(?P<step>{STEP_RE}){WEEK_WORD}", _week),
    (rf"(?P<step>{STEP_RE})?{WEEK_WORD}(?P<wd>[一二三四五六日天])", _weekday),
    (r"(?P<step>上个|上|这个|本|下个|下)月", _month),
    (r"(?P<word>前年|去年|今年|明年|后年)", _year),
    (rf"{N}(?P<unit>天|日|{WEEK_WORD}|个月|年)(?P<dir>以前|之前|前|以后|之后|后)", _ago),
    (r"(?:(?P<year>[0-9]{4})年)?(?P<month>[0-9]{1,2}|[一二三四五六七八九十]{1,3})月"
     r"(?:(?P<day>[0-9]{1,2}|[一二三四五六七八九十]{1,3})[日号])?", _date),
    (r"(?P<year>[0-9]{4})年", _year_only),
    (rf"(?P<base>.+?)(?P<part>{'|'.join(PARTS)})", _part),
]]


def resolve_chinese_text(text: str, ctx: Context) -> Interval | None:
    for pattern, build in RULES:
        if m := pattern.fullmatch(text):
            return build(m, ctx)
    return None


def resolve_chinese(text: str, ctx: Context) -> Interval | None:
    return resolve_chinese_text(re.sub(r"\s+", "", text).translate(SIMPLIFIED), ctx)
