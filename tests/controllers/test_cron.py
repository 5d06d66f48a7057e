"""Tests for the robfig/cron standard parser the CronJob controller uses.

Ported from robfig/cron@v3.0.1: parser_test.go ``TestRange`` (test_range), ``TestField``
(test_field), ``TestAll`` (test_all_bits), ``TestBits`` (test_bits), ``TestStandardSpecSchedule``
and the standard-parser rows of ``TestParseScheduleErrors`` (test_standard_errors), and
spec_test.go ``TestActivation`` (test_activation, all rows: they are 5-field) and ``TestNext``
(test_next: the rows whose seconds field is ``0``, written as 5 fields, plus the impossible-date
rows; the DST rows need the 6-field parser and Go's local-time normalisation and are left out).
"""

from __future__ import annotations

import datetime as dt

import pytest

from kubenotes.controllers.cron import (
    STAR_BIT,
    ConstantDelaySchedule,
    CronError,
    SpecSchedule,
    _Bounds,
    _get_field,
    _get_range,
    _all,
    _bits,
    _MINUTES,
    _HOURS,
    _DOM,
    _MONTHS,
    _DOW,
    parse_go_duration,
    parse_standard,
)

UTC = dt.timezone.utc


@pytest.mark.parametrize("expr,lo,hi,expected,err", [
    ("5", 0, 7, 1 << 5, ""),
    ("0", 0, 7, 1 << 0, ""),
    ("7", 0, 7, 1 << 7, ""),
    ("5-5", 0, 7, 1 << 5, ""),
    ("5-6", 0, 7, 1 << 5 | 1 << 6, ""),
    ("5-7", 0, 7, 1 << 5 | 1 << 6 | 1 << 7, ""),
    ("5-6/2", 0, 7, 1 << 5, ""),
    ("5-7/2", 0, 7, 1 << 5 | 1 << 7, ""),
    ("5-7/1", 0, 7, 1 << 5 | 1 << 6 | 1 << 7, ""),
    ("*", 1, 3, 1 << 1 | 1 << 2 | 1 << 3 | STAR_BIT, ""),
    ("*/2", 1, 3, 1 << 1 | 1 << 3, ""),
    ("5--5", 0, 0, 0, "too many hyphens"),
    ("jan-x", 0, 0, 0, "failed to parse int from"),
    ("2-x", 1, 5, 0, "failed to parse int from"),
    ("*/-12", 0, 0, 0, "negative number"),
    ("*//2", 0, 0, 0, "too many slashes"),
    ("1", 3, 5, 0, "below minimum"),
    ("6", 3, 5, 0, "above maximum"),
    ("5-3", 3, 5, 0, "beyond end of range"),
    ("*/0", 0, 0, 0, "should be a positive number"),
])
def test_range(expr, lo, hi, expected, err):
    if err:
        with pytest.raises(CronError, match=err):
            _get_range(expr, _Bounds(lo, hi))
    else:
        assert _get_range(expr, _Bounds(lo, hi)) == expected


@pytest.mark.parametrize("expr,lo,hi,expected", [
    ("5", 1, 7, 1 << 5),
    ("5,6", 1, 7, 1 << 5 | 1 << 6),
    ("5,6,7", 1, 7, 1 << 5 | 1 << 6 | 1 << 7),
    ("1,5-7/2,3", 1, 7, 1 << 1 | 1 << 5 | 1 << 7 | 1 << 3),
])
def test_field(expr, lo, hi, expected):
    assert _get_field(expr, _Bounds(lo, hi)) == expected


@pytest.mark.parametrize("bounds,expected", [
    (_MINUTES, 0xfffffffffffffff), (_HOURS, 0xffffff), (_DOM, 0xfffffffe), (_MONTHS, 0x1ffe), (_DOW, 0x7f)])
def test_all_bits(bounds, expected):
    assert _all(bounds) == expected | STAR_BIT


@pytest.mark.parametrize("lo,hi,step,expected", [(0, 0, 1, 0x1), (1, 1, 1, 0x2), (1, 5, 2, 0x2a), (1, 4, 2, 0xa)])
def test_bits(lo, hi, step, expected):
    assert _bits(lo, hi, step) == expected


def test_standard_spec_schedule():
    assert parse_standard("5 * * * *") == SpecSchedule(1, 1 << 5, _all(_HOURS), _all(_DOM), _all(_MONTHS),
                                                       _all(_DOW))
    assert parse_standard("@every 5m") == ConstantDelaySchedule(300)


@pytest.mark.parametrize("expr,err", [
    ("5 j * * *", "failed to parse int from"),
    ("* * * *", "expected exactly 5 fields"),
    ("* * * * * *", "expected exactly 5 fields, found 6: [* * * * * *]"),
    ("@every Xm", "failed to parse duration"),
    ("@unrecognized", "unrecognized descriptor"),
    ("", "empty spec string"),
    ("TZ=Nowhere/Land * * * * *", "provided bad location Nowhere/Land"),
])
def test_standard_errors(expr, err):
    with pytest.raises(CronError) as e:
        parse_standard(expr)
    assert err in str(e.value)


def _go_time(text: str) -> dt.datetime:
    for fmt in ("%a %b %d %H:%M %Y", "%a %b %d %H:%M:%S %Y"):
        try:
            return dt.datetime.strptime(text, fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    raise ValueError(text)


def _active(t: dt.datetime, spec: str) -> bool:
    """robfig's test: the schedule activates at t when Next(t - 1s) == t."""
    return parse_standard(spec).next(t - dt.timedelta(seconds=1)) == t


@pytest.mark.parametrize("time,spec,expected", [
    ("Mon Jul 9 15:00 2012", "0/15 * * * *", True),
    ("Mon Jul 9 15:45 2012", "0/15 * * * *", True),
    ("Mon Jul 9 15:40 2012", "0/15 * * * *", False),
    ("Mon Jul 9 15:05 2012", "5/15 * * * *", True),
    ("Mon Jul 9 15:20 2012", "5/15 * * * *", True),
    ("Mon Jul 9 15:50 2012", "5/15 * * * *", True),
    ("Sun Jul 15 15:00 2012", "0/15 * * Jul *", True),
    ("Sun Jul 15 15:00 2012", "0/15 * * Jun *", False),
    ("Sun Jul 15 08:30 2012", "30 08 ? Jul Sun", True),
    ("Sun Jul 15 08:30 2012", "30 08 15 Jul ?", True),
    ("Mon Jul 16 08:30 2012", "30 08 ? Jul Sun", False),
    ("Mon Jul 16 08:30 2012", "30 08 15 Jul ?", False),
    ("Mon Jul 9 15:00 2012", "@hourly", True),
    ("Mon Jul 9 15:04 2012", "@hourly", False),
    ("Mon Jul 9 15:00 2012", "@daily", False),
    ("Mon Jul 9 00:00 2012", "@daily", True),
    ("Mon Jul 9 00:00 2012", "@weekly", False),
    ("Sun Jul 8 00:00 2012", "@weekly", True),
    ("Sun Jul 8 01:00 2012", "@weekly", False),
    ("Sun Jul 8 00:00 2012", "@monthly", False),
    ("Sun Jul 1 00:00 2012", "@monthly", True),
    ("Sun Jul 15 00:00 2012", "* * 1,15 * Sun", True),
    ("Fri Jun 15 00:00 2012", "* * 1,15 * Sun", True),
    ("Wed Aug 1 00:00 2012", "* * 1,15 * Sun", True),
    ("Sun Jul 15 00:00 2012", "* * */10 * Sun", True),
    ("Sun Jul 15 00:00 2012", "* * * * Mon", False),
    ("Mon Jul 9 00:00 2012", "* * 1,15 * *", False),
    ("Sun Jul 15 00:00 2012", "* * 1,15 * *", True),
    ("Sun Jul 15 00:00 2012", "* * */2 * Sun", True),
])
def test_activation(time, spec, expected):
    assert _active(_go_time(time), spec) is expected


@pytest.mark.parametrize("time,spec,expected", [
    ("Mon Jul 9 14:45 2012", "0/15 * * * *", "Mon Jul 9 15:00 2012"),
    ("Mon Jul 9 14:59 2012", "0/15 * * * *", "Mon Jul 9 15:00 2012"),
    ("Mon Jul 9 14:59:59 2012", "0/15 * * * *", "Mon Jul 9 15:00 2012"),
    ("Mon Jul 9 15:45 2012", "20-35/15 * * * *", "Mon Jul 9 16:20 2012"),
    ("Mon Jul 9 23:46 2012", "*/15 * * * *", "Tue Jul 10 00:00 2012"),
    ("Mon Jul 9 23:45 2012", "20-35/15 * * * *", "Tue Jul 10 00:20 2012"),
    ("Mon Jul 9 23:35 2012", "0 0 9 Apr-Oct ?", "Thu Aug 9 00:00 2012"),
    ("Mon Jul 9 23:35 2012", "0 0 */5 Apr,Aug,Oct Mon", "Tue Aug 1 00:00 2012"),
    ("Mon Jul 9 23:35 2012", "0 0 */5 Oct Mon", "Mon Oct 1 00:00 2012"),
    ("Mon Jul 9 23:35 2012", "0 0 * Feb Mon", "Mon Feb 4 00:00 2013"),
    ("Mon Jul 9 23:35 2012", "0 0 * Feb Mon/2", "Fri Feb 1 00:00 2013"),
    ("Mon Dec 31 23:59:45 2012", "* * * * *", "Tue Jan 1 00:00:00 2013"),
    ("Mon Jul 9 23:35 2012", "0 0 29 Feb ?", "Mon Feb 29 00:00 2016"),
    ("Mon Jul 9 23:35 2012", "0 0 30 Feb ?", ""),
    ("Mon Jul 9 23:35 2012", "0 0 31 Apr ?", ""),
])
def test_next(time, spec, expected):
    got = parse_standard(spec).next(_go_time(time))
    assert got == (_go_time(expected) if expected else None)


def test_time_zone_prefix_fires_at_local_wall_clock():
    sched = parse_standard("CRON_TZ=Asia/Tokyo 0 9 * * *")
    nxt = sched.next(dt.datetime(2025, 8, 27, 0, 30, tzinfo=UTC))  # 09:30 in Tokyo: next is tomorrow 09:00 JST
    assert nxt == dt.datetime(2025, 8, 28, 0, 0, tzinfo=UTC)
    assert parse_standard("TZ=UTC 0 9 * * *").next(dt.datetime(2025, 8, 27, tzinfo=UTC)).hour == 9


def test_every_rounds_to_whole_seconds_and_at_least_one():
    assert parse_standard("@every 1500ms") == ConstantDelaySchedule(1)
    assert parse_standard("@every 1h30m") == ConstantDelaySchedule(5400)
    assert parse_standard("@every 10ms") == ConstantDelaySchedule(1)


def test_descriptors_table():
    t = dt.datetime(2025, 8, 27, 10, 15, tzinfo=UTC)  # a Wednesday
    assert parse_standard("@hourly").next(t) == dt.datetime(2025, 8, 27, 11, tzinfo=UTC)
    assert parse_standard("@midnight").next(t) == dt.datetime(2025, 8, 28, tzinfo=UTC)
    assert parse_standard("@weekly").next(t) == dt.datetime(2025, 8, 31, tzinfo=UTC)
    assert parse_standard("@monthly").next(t) == dt.datetime(2025, 9, 1, tzinfo=UTC)
    assert parse_standard("@yearly").next(t) == parse_standard("@annually").next(t) == \
        dt.datetime(2026, 1, 1, tzinfo=UTC)


def test_go_duration_errors():
    with pytest.raises(CronError, match='time: invalid duration "x"'):
        parse_go_duration("x")
    with pytest.raises(CronError, match="missing unit"):
        parse_go_duration("10")
