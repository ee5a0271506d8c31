"""DESIGN §5: a time expression becomes an absolute interval [start, end) with a
precision, resolved in local calendar terms in the given zone. Every expected
value below was worked out by hand from a calendar, not by the code under test.

Calendar facts used: 2026-05-08 is a Friday (its week runs Mon 05-04 to Sun
05-10); 2026-12-31 a Thursday; 2026-01-31 a Saturday; 2024-02-29 a Thursday;
Berlin moves to +02:00 at 02:00 on 2026-03-29 and back to +01:00 at 03:00 on
2026-10-25; New York to -04:00 on 2026-03-08 and back to -05:00 on 2026-11-01."""

import datetime as dt
import zoneinfo

import pytest

from cards.time.when import UnresolvableTime, when_resolve

# name → (reference wall time or aware ISO, zone, date order)
REFS = {
    "fri": ("2026-05-08T16:44:10", "Asia/Taipei", "mdy"),
    "fri-dmy": ("2026-05-08T16:44:10", "Asia/Taipei", "dmy"),
    "sat": ("2026-05-09T10:00:00", "Asia/Taipei", "mdy"),
    "sun": ("2026-05-10T21:00:00", "Asia/Taipei", "mdy"),
    "wed": ("2026-05-06T09:00:00", "Asia/Taipei", "mdy"),
    "utc-late": ("2026-05-08T20:00:00+00:00", "Asia/Taipei", "mdy"),  # already Saturday 04:00 in Taipei
    "nye": ("2026-12-31T23:30:00", "Europe/London", "mdy"),
    "nyd": ("2027-01-01T00:15:00", "UTC", "mdy"),
    "jan31": ("2026-01-31T12:00:00", "UTC", "mdy"),
    "leap": ("2024-02-29T12:00:00", "UTC", "mdy"),
    "berlin-spring": ("2026-03-29T12:00:00", "Europe/Berlin", "mdy"),
    "berlin-mon": ("2026-03-30T09:00:00", "Europe/Berlin", "mdy"),
    "berlin-fall": ("2026-10-25T12:00:00", "Europe/Berlin", "mdy"),
    "ny-spring": ("2026-03-08T15:00:00", "America/New_York", "mdy"),
    "ny-fall-mon": ("2026-11-02T08:00:00", "America/New_York", "mdy"),
}

D, W, M, Y, T = "day", "week", "month", "year", "datetime"

ROWS = [
    # --- English, Friday 2026-05-08 16:44 in Taipei ---------------------------------
    ("today", "fri", "2026-05-08", "2026-05-09", D),
    ("Today", "fri", "2026-05-08", "2026-05-09", D),
    ("tonight", "fri", "2026-05-08T18:00", "2026-05-09T00:00", T),
    ("last night", "fri", "2026-05-07T18:00", "2026-05-08T06:00", T),
    ("this morning", "fri", "2026-05-08T06:00", "2026-05-08T12:00", T),
    ("this afternoon", "fri", "2026-05-08T12:00", "2026-05-08T18:00", T),
    ("this evening", "fri", "2026-05-08T18:00", "2026-05-09T00:00", T),
    ("yesterday", "fri", "2026-05-07", "2026-05-08", D),
    ("tomorrow", "fri", "2026-05-09", "2026-05-10", D),
    ("the day before yesterday", "fri", "2026-05-06", "2026-05-07", D),
    ("day before yesterday", "fri", "2026-05-06", "2026-05-07", D),
    ("the day after tomorrow", "fri", "2026-05-10", "2026-05-11", D),
    ("3 days ago", "fri", "2026-05-05", "2026-05-06", D),
    ("two days ago", "fri", "2026-05-06", "2026-05-07", D),
    ("a day ago", "fri", "2026-05-07", "2026-05-08", D),
    ("ten days ago", "fri", "2026-04-28", "2026-04-29", D),
    ("1 week ago", "fri", "2026-04-27", "2026-05-04", W),
    ("three weeks ago", "fri", "2026-04-13", "2026-04-20", W),
    ("2 months ago", "fri", "2026-03-01", "2026-04-01", M),
    ("a year ago", "fri", "2025-01-01", "2026-01-01", Y),
    ("five years ago", "fri", "2021-01-01", "2022-01-01", Y),
    ("in 3 days", "fri", "2026-05-11", "2026-05-12", D),
    ("in two weeks", "fri", "2026-05-18", "2026-05-25", W),
    ("in a month", "fri", "2026-06-01", "2026-07-01", M),
    ("in 2 years", "fri", "2028-01-01", "2029-01-01", Y),
    ("4 days from now", "fri", "2026-05-12", "2026-05-13", D),
    ("last week", "fri", "2026-04-27", "2026-05-04", W),
    ("this week", "fri", "2026-05-04", "2026-05-11", W),
    ("next week", "fri", "2026-05-11", "2026-05-18", W),
    ("last month", "fri", "2026-04-01", "2026-05-01", M),
    ("this month", "fri", "2026-05-01", "2026-06-01", M),
    ("next month", "fri", "2026-06-01", "2026-07-01", M),
    ("last year", "fri", "2025-01-01", "2026-01-01", Y),
    ("this year", "fri", "2026-01-01", "2027-01-01", Y),
    ("next year", "fri", "2027-01-01", "2028-01-01", Y),
    ("this weekend", "fri", "2026-05-09", "2026-05-11", D),
    ("last weekend", "fri", "2026-05-02", "2026-05-04", D),
    ("next weekend", "fri", "2026-05-16", "2026-05-18", D),
    ("the weekend", "fri", "2026-05-09", "2026-05-11", D),
    ("friday", "fri", "2026-05-08", "2026-05-09", D),
    ("Monday", "fri", "2026-05-04", "2026-05-05", D),
    ("saturday", "fri", "2026-05-02", "2026-05-03", D),
    ("sunday", "fri", "2026-05-03", "2026-05-04", D),
    ("thursday", "fri", "2026-05-07", "2026-05-08", D),
    ("last friday", "fri", "2026-05-01", "2026-05-02", D),
    ("last monday", "fri", "2026-05-04", "2026-05-05", D),
    ("last saturday", "fri", "2026-05-02", "2026-05-03", D),
    ("next friday", "fri", "2026-05-15", "2026-05-16", D),
    ("next monday", "fri", "2026-05-11", "2026-05-12", D),
    ("next saturday", "fri", "2026-05-09", "2026-05-10", D),
    ("this friday", "fri", "2026-05-08", "2026-05-09", D),
    ("this sunday", "fri", "2026-05-10", "2026-05-11", D),
    ("this monday", "fri", "2026-05-04", "2026-05-05", D),
    ("on Tuesday", "fri", "2026-05-05", "2026-05-06", D),
    ("Wed.", "fri", "2026-05-06", "2026-05-07", D),
    ("earlier this week", "fri", "2026-05-04", "2026-05-08T16:44:10", W),
    ("earlier today", "fri", "2026-05-08", "2026-05-08T16:44:10", D),
    ("yesterday evening", "fri", "2026-05-07T18:00", "2026-05-08T00:00", T),
    ("tomorrow morning", "fri", "2026-05-09T06:00", "2026-05-09T12:00", T),
    ("friday night", "fri", "2026-05-08T18:00", "2026-05-09T06:00", T),
    ("last tuesday afternoon", "fri", "2026-05-05T12:00", "2026-05-05T18:00", T),
    ("now", "fri", "2026-05-08T16:44:10", None, T),
    # month names: bare = the most recent one (this month included); last = before this month
    ("March", "fri", "2026-03-01", "2026-04-01", M),
    ("in March", "fri", "2026-03-01", "2026-04-01", M),
    ("May", "fri", "2026-05-01", "2026-06-01", M),
    ("June", "fri", "2025-06-01", "2025-07-01", M),
    ("in December", "fri", "2025-12-01", "2026-01-01", M),
    ("last March", "fri", "2026-03-01", "2026-04-01", M),
    ("last May", "fri", "2025-05-01", "2025-06-01", M),
    ("this June", "fri", "2026-06-01", "2026-07-01", M),
    ("next May", "fri", "2027-05-01", "2027-06-01", M),
    ("next June", "fri", "2026-06-01", "2026-07-01", M),
    ("March 2025", "fri", "2025-03-01", "2025-04-01", M),
    ("in September 2024", "fri", "2024-09-01", "2024-10-01", M),
    ("Sept 2024", "fri", "2024-09-01", "2024-10-01", M),
    ("2023", "fri", "2023-01-01", "2024-01-01", Y),
    ("in 2019", "fri", "2019-01-01", "2020-01-01", Y),
    # written and numeric dates
    ("8 May 2023", "fri", "2023-05-08", "2023-05-09", D),
    ("May 8, 2023", "fri", "2023-05-08", "2023-05-09", D),
    ("May 8", "fri", "2026-05-08", "2026-05-09", D),
    ("May 9", "fri", "2025-05-09", "2025-05-10", D),
    ("the 3rd of March", "fri", "2026-03-03", "2026-03-04", D),
    ("December 31st", "fri", "2025-12-31", "2026-01-01", D),
    ("Jan. 5, 2024", "fri", "2024-01-05", "2024-01-06", D),
    ("Monday 8 May 2023", "fri", "2023-05-08", "2023-05-09", D),
    ("May 8 2023 at 5pm", "fri", "2023-05-08T17:00", None, T),
    ("Feb 29", "fri", "2024-02-29", "2024-03-01", D),
    ("5/8/2023", "fri", "2023-05-08", "2023-05-09", D),
    ("5/8/2023", "fri-dmy", "2023-08-05", "2023-08-06", D),
    ("12/25/2025", "fri", "2025-12-25", "2025-12-26", D),
    ("25/12/2025", "fri-dmy", "2025-12-25", "2025-12-26", D),
    ("5/9", "fri", "2025-05-09", "2025-05-10", D),
    ("8/5", "fri-dmy", "2026-05-08", "2026-05-09", D),
    ("2/29", "fri", "2024-02-29", "2024-03-01", D),
    ("05/2023", "fri", "2023-05-01", "2023-06-01", M),
    ("2023-05", "fri", "2023-05-01", "2023-06-01", M),
    ("2026-05-08", "fri", "2026-05-08", "2026-05-09", D),
    ("2026-05-08T09:30:00+00:00", "fri", "2026-05-08T09:30:00+00:00", None, T),
    ("2026-05-08T09:30", "fri", "2026-05-08T09:30", None, T),
    # --- Chinese, same Friday ---------------------------------------------------------
    ("今天", "fri", "2026-05-08", "2026-05-09", D),
    ("昨天", "fri", "2026-05-07", "2026-05-08", D),
    ("前天", "fri", "2026-05-06", "2026-05-07", D),
    ("大前天", "fri", "2026-05-05", "2026-05-06", D),
    ("明天", "fri", "2026-05-09", "2026-05-10", D),
    ("後天", "fri", "2026-05-10", "2026-05-11", D),
    ("后天", "fri", "2026-05-10", "2026-05-11", D),
    ("上週", "fri", "2026-04-27", "2026-05-04", W),
    ("上周", "fri", "2026-04-27", "2026-05-04", W),
    ("這週", "fri", "2026-05-04", "2026-05-11", W),
    ("这周", "fri", "2026-05-04", "2026-05-11", W),
    ("本週", "fri", "2026-05-04", "2026-05-11", W),
    ("下週", "fri", "2026-05-11", "2026-05-18", W),
    ("下周", "fri", "2026-05-11", "2026-05-18", W),
    ("這個週末", "fri", "2026-05-09", "2026-05-11", D),
    ("这个周末", "fri", "2026-05-09", "2026-05-11", D),
    ("這週末", "fri", "2026-05-09", "2026-05-11", D),
    ("这周末", "fri", "2026-05-09", "2026-05-11", D),
    ("週末", "fri", "2026-05-09", "2026-05-11", D),
    ("上個週末", "fri", "2026-05-02", "2026-05-04", D),
    ("上個月", "fri", "2026-04-01", "2026-05-01", M),
    ("上个月", "fri", "2026-04-01", "2026-05-01", M),
    ("這個月", "fri", "2026-05-01", "2026-06-01", M),
    ("下個月", "fri", "2026-06-01", "2026-07-01", M),
    ("下个月", "fri", "2026-06-01", "2026-07-01", M),
    ("去年", "fri", "2025-01-01", "2026-01-01", Y),
    ("今年", "fri", "2026-01-01", "2027-01-01", Y),
    ("明年", "fri", "2027-01-01", "2028-01-01", Y),
    ("週一", "fri", "2026-05-04", "2026-05-05", D),
    ("周五", "fri", "2026-05-08", "2026-05-09", D),
    ("星期六", "fri", "2026-05-02", "2026-05-03", D),
    ("星期日", "fri", "2026-05-03", "2026-05-04", D),
    ("星期天", "fri", "2026-05-03", "2026-05-04", D),
    ("上週五", "fri", "2026-05-01", "2026-05-02", D),
    ("上周日", "fri", "2026-05-03", "2026-05-04", D),
    ("下週一", "fri", "2026-05-11", "2026-05-12", D),
    ("下周三", "fri", "2026-05-13", "2026-05-14", D),
    ("這週日", "fri", "2026-05-10", "2026-05-11", D),
    ("这周三", "fri", "2026-05-06", "2026-05-07", D),
    ("上星期一", "fri", "2026-04-27", "2026-04-28", D),
    ("3天前", "fri", "2026-05-05", "2026-05-06", D),
    ("三天前", "fri", "2026-05-05", "2026-05-06", D),
    ("十天前", "fri", "2026-04-28", "2026-04-29", D),
    ("2週前", "fri", "2026-04-20", "2026-04-27", W),
    ("兩周前", "fri", "2026-04-20", "2026-04-27", W),
    ("1個月前", "fri", "2026-04-01", "2026-05-01", M),
    ("三個月前", "fri", "2026-02-01", "2026-03-01", M),
    ("今晚", "fri", "2026-05-08T18:00", "2026-05-09T00:00", T),
    ("昨晚", "fri", "2026-05-07T18:00", "2026-05-08T06:00", T),
    ("今天早上", "fri", "2026-05-08T06:00", "2026-05-08T12:00", T),
    ("2023年5月8日", "fri", "2023-05-08", "2023-05-09", D),
    ("5月9日", "fri", "2025-05-09", "2025-05-10", D),
    ("三月", "fri", "2026-03-01", "2026-04-01", M),
    # --- the weekend rule: Saturday, Sunday, a weekday ------------------------------
    ("this weekend", "sat", "2026-05-09", "2026-05-11", D),
    ("last weekend", "sat", "2026-05-02", "2026-05-04", D),
    ("next weekend", "sat", "2026-05-16", "2026-05-18", D),
    ("這個週末", "sat", "2026-05-09", "2026-05-11", D),
    ("週末", "sat", "2026-05-09", "2026-05-11", D),
    ("上週末", "sat", "2026-05-02", "2026-05-04", D),
    ("saturday", "sat", "2026-05-09", "2026-05-10", D),
    ("last saturday", "sat", "2026-05-02", "2026-05-03", D),
    ("next saturday", "sat", "2026-05-16", "2026-05-17", D),
    ("tonight", "sat", "2026-05-09T18:00", "2026-05-10T00:00", T),
    ("this weekend", "sun", "2026-05-09", "2026-05-11", D),
    ("last weekend", "sun", "2026-05-02", "2026-05-04", D),
    ("next weekend", "sun", "2026-05-16", "2026-05-18", D),
    ("这个周末", "sun", "2026-05-09", "2026-05-11", D),
    ("this week", "sun", "2026-05-04", "2026-05-11", W),
    ("next week", "sun", "2026-05-11", "2026-05-18", W),
    ("sunday", "sun", "2026-05-10", "2026-05-11", D),
    ("monday", "sun", "2026-05-04", "2026-05-05", D),
    ("周一", "sun", "2026-05-04", "2026-05-05", D),
    ("下周一", "sun", "2026-05-11", "2026-05-12", D),
    ("yesterday", "sun", "2026-05-09", "2026-05-10", D),
    ("this weekend", "wed", "2026-05-09", "2026-05-11", D),
    ("last weekend", "wed", "2026-05-02", "2026-05-04", D),
    ("next weekend", "wed", "2026-05-16", "2026-05-18", D),
    ("這個週末", "wed", "2026-05-09", "2026-05-11", D),
    ("friday", "wed", "2026-05-01", "2026-05-02", D),
    ("this friday", "wed", "2026-05-08", "2026-05-09", D),
    ("next friday", "wed", "2026-05-08", "2026-05-09", D),
    ("last friday", "wed", "2026-05-01", "2026-05-02", D),
    ("上週五", "wed", "2026-05-01", "2026-05-02", D),
    ("這週五", "wed", "2026-05-08", "2026-05-09", D),
    ("下週五", "wed", "2026-05-15", "2026-05-16", D),
    ("earlier this week", "wed", "2026-05-04", "2026-05-06T09:00", W),
    # --- the reference is read in the zone: 20:00 UTC is already Saturday in Taipei
    ("today", "utc-late", "2026-05-09", "2026-05-10", D),
    ("昨天", "utc-late", "2026-05-08", "2026-05-09", D),
    # --- year and month ends ----------------------------------------------------------
    ("today", "nye", "2026-12-31", "2027-01-01", D),
    ("tomorrow", "nye", "2027-01-01", "2027-01-02", D),
    ("tonight", "nye", "2026-12-31T18:00", "2027-01-01T00:00", T),
    ("next month", "nye", "2027-01-01", "2027-02-01", M),
    ("next year", "nye", "2027-01-01", "2028-01-01", Y),
    ("this week", "nye", "2026-12-28", "2027-01-04", W),
    ("next week", "nye", "2027-01-04", "2027-01-11", W),
    ("this weekend", "nye", "2027-01-02", "2027-01-04", D),
    ("in 2 months", "nye", "2027-02-01", "2027-03-01", M),
    ("下個月", "nye", "2027-01-01", "2027-02-01", M),
    ("明年", "nye", "2027-01-01", "2028-01-01", Y),
    ("December", "nye", "2026-12-01", "2027-01-01", M),
    ("January", "nye", "2026-01-01", "2026-02-01", M),
    ("next January", "nye", "2027-01-01", "2027-02-01", M),
    ("yesterday", "nyd", "2026-12-31", "2027-01-01", D),
    ("last month", "nyd", "2026-12-01", "2027-01-01", M),
    ("last year", "nyd", "2026-01-01", "2027-01-01", Y),
    ("last week", "nyd", "2026-12-21", "2026-12-28", W),
    ("last night", "nyd", "2026-12-31T18:00", "2027-01-01T06:00", T),
    ("3 months ago", "nyd", "2026-10-01", "2026-11-01", M),
    ("去年", "nyd", "2026-01-01", "2027-01-01", Y),
    ("上個月", "nyd", "2026-12-01", "2027-01-01", M),
    ("December", "nyd", "2026-12-01", "2027-01-01", M),
    ("last December", "nyd", "2026-12-01", "2027-01-01", M),
    ("12/31", "nyd", "2026-12-31", "2027-01-01", D),
    ("Dec 31", "nyd", "2026-12-31", "2027-01-01", D),
    ("1 month ago", "jan31", "2025-12-01", "2026-01-01", M),
    ("in a month", "jan31", "2026-02-01", "2026-03-01", M),
    ("next month", "jan31", "2026-02-01", "2026-03-01", M),
    ("tomorrow", "jan31", "2026-02-01", "2026-02-02", D),
    ("this weekend", "jan31", "2026-01-31", "2026-02-02", D),
    ("last weekend", "jan31", "2026-01-24", "2026-01-26", D),
    # --- 29 February 2024 (a Thursday) ------------------------------------------------
    ("today", "leap", "2024-02-29", "2024-03-01", D),
    ("tomorrow", "leap", "2024-03-01", "2024-03-02", D),
    ("yesterday", "leap", "2024-02-28", "2024-02-29", D),
    ("this month", "leap", "2024-02-01", "2024-03-01", M),
    ("next month", "leap", "2024-03-01", "2024-04-01", M),
    ("a year ago", "leap", "2023-01-01", "2024-01-01", Y),
    ("1 week ago", "leap", "2024-02-19", "2024-02-26", W),
    ("in 1 week", "leap", "2024-03-04", "2024-03-11", W),
    ("this week", "leap", "2024-02-26", "2024-03-04", W),
    ("this weekend", "leap", "2024-03-02", "2024-03-04", D),
    ("Feb 29", "leap", "2024-02-29", "2024-03-01", D),
    ("2/29/2024", "leap", "2024-02-29", "2024-03-01", D),
    ("29 February 2024", "leap", "2024-02-29", "2024-03-01", D),
    # --- DST: offsets written out, so a 23- or 25-hour day shows ------------------------
    ("today", "berlin-spring", "2026-03-29T00:00+01:00", "2026-03-30T00:00+02:00", D),
    ("今天", "berlin-spring", "2026-03-29T00:00+01:00", "2026-03-30T00:00+02:00", D),
    ("this weekend", "berlin-spring", "2026-03-28T00:00+01:00", "2026-03-30T00:00+02:00", D),
    ("last night", "berlin-spring", "2026-03-28T18:00+01:00", "2026-03-29T06:00+02:00", T),
    ("this morning", "berlin-spring", "2026-03-29T06:00+02:00", "2026-03-29T12:00+02:00", T),
    ("this week", "berlin-spring", "2026-03-23T00:00+01:00", "2026-03-30T00:00+02:00", W),
    ("yesterday", "berlin-mon", "2026-03-29T00:00+01:00", "2026-03-30T00:00+02:00", D),
    ("last weekend", "berlin-mon", "2026-03-28T00:00+01:00", "2026-03-30T00:00+02:00", D),
    ("last week", "berlin-mon", "2026-03-23T00:00+01:00", "2026-03-30T00:00+02:00", W),
    ("this month", "berlin-mon", "2026-03-01T00:00+01:00", "2026-04-01T00:00+02:00", M),
    ("today", "berlin-fall", "2026-10-25T00:00+02:00", "2026-10-26T00:00+01:00", D),
    ("週日", "berlin-fall", "2026-10-25T00:00+02:00", "2026-10-26T00:00+01:00", D),
    ("last night", "berlin-fall", "2026-10-24T18:00+02:00", "2026-10-25T06:00+01:00", T),
    ("this weekend", "berlin-fall", "2026-10-24T00:00+02:00", "2026-10-26T00:00+01:00", D),
    ("this month", "berlin-fall", "2026-10-01T00:00+02:00", "2026-11-01T00:00+01:00", M),
    ("today", "ny-spring", "2026-03-08T00:00-05:00", "2026-03-09T00:00-04:00", D),
    ("last night", "ny-spring", "2026-03-07T18:00-05:00", "2026-03-08T06:00-04:00", T),
    ("tonight", "ny-spring", "2026-03-08T18:00-04:00", "2026-03-09T00:00-04:00", T),
    ("yesterday", "ny-fall-mon", "2026-11-01T00:00-04:00", "2026-11-02T00:00-05:00", D),
    ("last weekend", "ny-fall-mon", "2026-10-31T00:00-04:00", "2026-11-02T00:00-05:00", D),
    ("last week", "ny-fall-mon", "2026-10-26T00:00-04:00", "2026-11-02T00:00-05:00", W),
]


def reference(name):
    text, zone, order = REFS[name]
    tz = zoneinfo.ZoneInfo(zone)
    moment = dt.datetime.fromisoformat(text)
    return (moment if moment.tzinfo else moment.replace(tzinfo=tz)), tz, order


def expected(text, tz):
    if text is None:
        return None
    moment = dt.datetime.fromisoformat(text)
    return moment if moment.tzinfo else moment.replace(tzinfo=tz)


def utc(moment):
    # Aware datetimes sharing a tzinfo compare by wall clock in Python; UTC compares instants.
    return moment.astimezone(dt.timezone.utc) if moment else None


def test_the_table_is_large_and_has_no_duplicate_rows():
    assert len(ROWS) >= 150
    keys = [(expression, ref) for expression, ref, *_ in ROWS]
    assert len(keys) == len(set(keys))


@pytest.mark.parametrize("expression, ref, start, end, precision", ROWS)
def test_resolves(expression, ref, start, end, precision):
    moment, tz, order = reference(ref)
    got = when_resolve(expression, reference=moment, tz=tz, date_order=order)
    assert (utc(got.start), utc(got.end), got.precision) == (
        utc(expected(start, tz)), utc(expected(end, tz)), precision)


@pytest.mark.parametrize("expression, ref, real_hours, text", [
    ("today", "berlin-spring", 23, ("2026-03-29T00:00:00+01:00", "2026-03-30T00:00:00+02:00")),
    ("today", "berlin-fall", 25, ("2026-10-25T00:00:00+02:00", "2026-10-26T00:00:00+01:00")),
    ("last night", "berlin-spring", 11, ("2026-03-28T18:00:00+01:00", "2026-03-29T06:00:00+02:00")),
    ("last night", "berlin-fall", 13, ("2026-10-24T18:00:00+02:00", "2026-10-25T06:00:00+01:00")),
    ("today", "ny-spring", 23, ("2026-03-08T00:00:00-05:00", "2026-03-09T00:00:00-04:00")),
    ("yesterday", "ny-fall-mon", 25, ("2026-11-01T00:00:00-04:00", "2026-11-02T00:00:00-05:00")),
])
def test_dst_days_are_local_calendar_days_returned_in_the_zone(expression, ref, real_hours, text):
    moment, tz, order = reference(ref)
    got = when_resolve(expression, reference=moment, tz=tz)
    assert (got.start.isoformat(), got.end.isoformat()) == text
    assert (utc(got.end) - utc(got.start)) == dt.timedelta(hours=real_hours)


def test_a_day_whose_midnight_does_not_exist_starts_at_its_first_instant():
    # Santiago skips from 2026-09-06 00:00 to 01:00.
    tz = zoneinfo.ZoneInfo("America/Santiago")
    got = when_resolve("today", reference=dt.datetime(2026, 9, 6, 12, tzinfo=tz), tz=tz)
    assert (got.start.isoformat(), got.end.isoformat()) == ("2026-09-06T01:00:00-03:00", "2026-09-07T00:00:00-03:00")


@pytest.mark.parametrize("expression, source", [
    ("8 May 2023", "stated"), ("2023", "stated"), ("March 2025", "stated"), ("2026-05-08", "stated"),
    ("5/8/2023", "stated"), ("2023年5月8日", "stated"), ("yesterday", "resolved"), ("May 8", "resolved"),
    ("March", "resolved"), ("上週", "resolved"), ("this weekend", "resolved"), ("5月9日", "resolved"),
])
def test_absolute_dates_are_stated_relative_ones_resolved(expression, source):
    moment, tz, order = reference("fri")
    assert when_resolve(expression, reference=moment, tz=tz).source == source


REFUSED = [
    ("", "empty"), ("   ", "empty"), ("blorgday", "not understood"), ("next blursday", "'blursday'"),
    ("last blursday", "'blursday'"), ("tomorrow-ish", "not understood"), ("soon", "not understood"),
    ("a few days ago", "number"), ("two hours ago", "number"), ("in 99999 years", "supported years"),
    ("31/12/2026", "month/day/year"), ("13/13/2026", "month/day/year"), ("5/8/23", "in full"),
    ("Feb 29 2025", "not understood"), ("29 February 2023", "not understood"), ("March 32", "32"),
    ("the 8th", "not understood"), ("8 2023", "not understood"), ("Tuesday 8 May 2023", "Monday, not a Tuesday"),
    ("2026-13-45", "not understood"), ("9999-12-31", "out of range"), ("0001-01-01", "out of range"),
    ("末", "not understood"), ("十十天前", "number"), ("13月", "month 13"), ("2025年2月29日", "does not exist"),
    ("weekend evening", "single day"), ("May 8 23", "in full"), ("May 8 at 5", "am/pm"),
    ("8 May 2023 UTC", "time zone only goes with a time"), ("Thursday, May 8", "Friday, not a Thursday"),
    ("blah morning", "not understood"),
]


@pytest.mark.parametrize("expression, why", REFUSED)
def test_refuses_with_a_reason_never_a_guess(expression, why):
    moment, tz, order = reference("fri")
    with pytest.raises(UnresolvableTime) as refused:
        when_resolve(expression, reference=moment, tz=tz)
    assert why in refused.value.detail and refused.value.code == "unresolvable_time"
    assert refused.value.as_dict()["expression"] == expression


def test_refuses_when_the_result_or_the_reference_leaves_the_supported_years():
    tz = zoneinfo.ZoneInfo("UTC")
    with pytest.raises(UnresolvableTime):
        when_resolve("next year", reference=dt.datetime(9998, 6, 1, tzinfo=tz), tz=tz)
    with pytest.raises(UnresolvableTime):
        when_resolve("yesterday", reference=dt.datetime(1, 1, 1, tzinfo=tz), tz=tz)


def test_a_naive_reference_is_a_wall_time_in_the_zone():
    tz = zoneinfo.ZoneInfo("Asia/Taipei")
    got = when_resolve("today", reference=dt.datetime(2026, 5, 8, 23, 30), tz=tz)
    assert got.start == dt.datetime(2026, 5, 8, tzinfo=tz)
