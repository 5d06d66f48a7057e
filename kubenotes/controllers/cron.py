"""Cron schedules as the CronJob controller reads them: robfig/cron v3's standard parser.

The CronJob controller parses ``spec.schedule`` with ``cron.ParseStandard``
from ``github.com/robfig/cron/v3`` (v3.0.1): five fields (minute, hour,
day of month, month, day of week), the descriptors ``@yearly``,
``@annually``, ``@monthly``, ``@weekly``, ``@daily``, ``@midnight``,
``@hourly`` and ``@every <duration>``, and an optional ``TZ=<zone>`` or
``CRON_TZ=<zone>`` prefix. This module re-implements that parser and the
``Next`` computation of its two schedule kinds (``SpecSchedule`` and
``ConstantDelaySchedule``), with robfig's error messages.

Field syntax (per field, comma-separated ranges): ``*`` or ``?`` (every
value), ``N``, ``N-M``, ``*/S``, ``N/S`` (``N``-max step ``S``),
``N-M/S``; months ``jan``..``dec`` and weekdays ``sun``..``sat`` by
name (case-insensitive). Day of month and day of week are ORed unless either
is ``*``/``?``, then ANDed, as classic cron.

References
----------
robfig/cron@v3.0.1 parser.go (Parse, normalizeFields, getRange, parseDescriptor)
robfig/cron@v3.0.1 spec.go (SpecSchedule.Next, dayMatches)
robfig/cron@v3.0.1 constantdelay.go (Every, ConstantDelaySchedule.Next)
kubernetes/kubernetes@v1.34.0 pkg/controller/cronjob/cronjob_controllerv2.go (formatSchedule: TZ handling)
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass
from typing import Mapping

from kubenotes.api.duration import parse_go_duration as _parse_go_duration
from kubenotes.errors import KubenotesError

__all__ = ["CronError", "SpecSchedule", "ConstantDelaySchedule", "parse_standard", "parse_go_duration",
           "STAR_BIT"]

#: robfig's ``starBit``: the top bit marks a field written as ``*``/``?`` (matters for day matching).
STAR_BIT = 1 << 63

_UTC = _dt.timezone.utc


class CronError(KubenotesError, ValueError):
    """A schedule robfig/cron rejects; ``str()`` is robfig's error text."""


@dataclass(frozen=True)
class _Bounds:
    min: int
    max: int
    names: Mapping[str, int] | None = None


_SECONDS = _Bounds(0, 59)
_MINUTES = _Bounds(0, 59)
_HOURS = _Bounds(0, 23)
_DOM = _Bounds(1, 31)
_MONTHS = _Bounds(1, 12, {m: i + 1 for i, m in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"))})
_DOW = _Bounds(0, 6, {d: i for i, d in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))})


def _bits(lo: int, hi: int, step: int) -> int:
    out = 0
    for i in range(lo, hi + 1, step):
        out |= 1 << i
    return out


def _all(r: _Bounds) -> int:
    return _bits(r.min, r.max, 1) | STAR_BIT


def _go_atoi(expr: str) -> int:
    if not re.fullmatch(r"[+-]?[0-9]+", expr):
        raise CronError(f'failed to parse int from {expr}: strconv.Atoi: parsing "{expr}": invalid syntax')
    num = int(expr)
    if num < 0:
        raise CronError(f"negative number ({num}) not allowed: {expr}")
    return num


def _int_or_name(expr: str, names: Mapping[str, int] | None) -> int:
    if names is not None and expr.lower() in names:
        return names[expr.lower()]
    return _go_atoi(expr)


def _get_range(expr: str, r: _Bounds) -> int:
    range_and_step = expr.split("/")
    low_and_high = range_and_step[0].split("-")
    single = len(low_and_high) == 1
    extra = 0
    if low_and_high[0] in ("*", "?"):
        start, end, extra = r.min, r.max, STAR_BIT
    else:
        start = _int_or_name(low_and_high[0], r.names)
        if len(low_and_high) == 1:
            end = start
        elif len(low_and_high) == 2:
            end = _int_or_name(low_and_high[1], r.names)
        else:
            raise CronError(f"too many hyphens: {expr}")
    if len(range_and_step) == 1:
        step = 1
    elif len(range_and_step) == 2:
        step = _go_atoi(range_and_step[1])
        if single:  # "N/step" means "N-max/step"
            end = r.max
        if step > 1:
            extra = 0
    else:
        raise CronError(f"too many slashes: {expr}")
    if start < r.min:
        raise CronError(f"beginning of range ({start}) below minimum ({r.min}): {expr}")
    if end > r.max:
        raise CronError(f"end of range ({end}) above maximum ({r.max}): {expr}")
    if start > end:
        raise CronError(f"beginning of range ({start}) beyond end of range ({end}): {expr}")
    if step == 0:
        raise CronError(f"step of range should be a positive number: {expr}")
    return _bits(start, end, step) | extra


def _get_field(field: str, r: _Bounds) -> int:
    bits = 0
    for expr in (p for p in field.split(",") if p):
        bits |= _get_range(expr, r)
    return bits


def parse_go_duration(text: str) -> float:
    """Go's ``time.ParseDuration`` in seconds (``"1h30m"`` -> 5400.0): :func:`kubenotes.api.duration.parse_go_duration`.

    Raises
    ------
    CronError
        ``time: invalid duration "x"`` (or ``missing unit``) as Go words it.

    Examples
    --------
    >>> parse_go_duration("1h30m"), parse_go_duration("1.5s"), parse_go_duration("-2m")
    (5400.0, 1.5, -120.0)
    """
    try:
        return _parse_go_duration(text)
    except ValueError as e:
        raise CronError(str(e)) from None


def _location(name: str) -> _dt.tzinfo:
    if name in ("", "UTC", "Local"):
        return _UTC  # kube-controller-manager runs in UTC in the model ("Local" is UTC)
    try:
        from zoneinfo import ZoneInfo

        return ZoneInfo(name)
    except Exception:
        raise CronError(f"provided bad location {name}: unknown time zone {name}") from None


@dataclass(frozen=True)
class SpecSchedule:
    """A crontab schedule as bit sets per field (robfig's ``SpecSchedule``).

    Attributes
    ----------
    second, minute, hour, dom, month, dow : int
        Bit ``i`` set when value ``i`` matches; :data:`STAR_BIT` when written as ``*``.
    location : tzinfo
        ``TZ=``/``CRON_TZ=`` zone (UTC otherwise).
    """

    second: int
    minute: int
    hour: int
    dom: int
    month: int
    dow: int
    location: _dt.tzinfo = _UTC

    def _day_matches(self, t: _dt.datetime) -> bool:
        dom_match = bool((1 << t.day) & self.dom)
        dow_match = bool((1 << ((t.weekday() + 1) % 7)) & self.dow)  # Go: Sunday == 0
        if self.dom & STAR_BIT or self.dow & STAR_BIT:
            return dom_match and dow_match
        return dom_match or dow_match

    def next(self, t: _dt.datetime) -> _dt.datetime | None:
        """The first activation strictly after ``t`` (``SpecSchedule.Next``); None if none within 5 years.

        Parameters
        ----------
        t : datetime
            Timezone-aware.

        Notes
        -----
        Wall-clock arithmetic in the schedule's zone; Go's normalisation of
        local times that a DST change skips is not reproduced (the model runs
        in UTC unless a schedule names a zone).

        Examples
        --------
        >>> import datetime as dt
        >>> parse_standard("30 6-16/4 * * 1-5").next(dt.datetime(2016, 5, 19, 10, 0, tzinfo=dt.timezone.utc))
        datetime.datetime(2016, 5, 19, 10, 30, tzinfo=datetime.timezone.utc)
        """
        orig = t.tzinfo
        loc = self.location
        t = t.astimezone(loc)
        t = t.replace(microsecond=0) + _dt.timedelta(seconds=1)
        added = False
        year_limit = t.year + 5
        while True:  # WRAP
            if t.year > year_limit:
                return None
            wrapped = False
            while not (1 << t.month) & self.month:
                if not added:
                    added = True
                    t = t.replace(day=1, hour=0, minute=0, second=0)
                t = (t.replace(month=t.month + 1) if t.month < 12 else t.replace(year=t.year + 1, month=1))
                if t.month == 1:
                    wrapped = True
                    break
            if wrapped:
                continue
            while not self._day_matches(t):
                if not added:
                    added = True
                    t = t.replace(hour=0, minute=0, second=0)
                t = (t.replace(tzinfo=None) + _dt.timedelta(days=1)).replace(tzinfo=loc)
                if t.day == 1:
                    wrapped = True
                    break
            if wrapped:
                continue
            while not (1 << t.hour) & self.hour:
                if not added:
                    added = True
                    t = t.replace(minute=0, second=0)
                t = (t.astimezone(_UTC) + _dt.timedelta(hours=1)).astimezone(loc)
                if t.hour == 0:
                    wrapped = True
                    break
            if wrapped:
                continue
            while not (1 << t.minute) & self.minute:
                if not added:
                    added = True
                    t = t.replace(second=0)
                t = t + _dt.timedelta(minutes=1)
                if t.minute == 0:
                    wrapped = True
                    break
            if wrapped:
                continue
            while not (1 << t.second) & self.second:
                added = True
                t = t + _dt.timedelta(seconds=1)
                if t.second == 0:
                    wrapped = True
                    break
            if wrapped:
                continue
            return t.astimezone(orig) if orig is not None else t


@dataclass(frozen=True)
class ConstantDelaySchedule:
    """``@every <duration>`` (robfig's ``ConstantDelaySchedule``): whole seconds, at least 1.

    Examples
    --------
    >>> import datetime as dt
    >>> parse_standard("@every 90s").next(dt.datetime(2025, 8, 27, 0, 0, 0, 500000, tzinfo=dt.timezone.utc))
    datetime.datetime(2025, 8, 27, 0, 1, 30, tzinfo=datetime.timezone.utc)
    """

    delay_seconds: int

    def next(self, t: _dt.datetime) -> _dt.datetime:
        """``t`` plus the delay, rounded down to the second."""
        return t.replace(microsecond=0) + _dt.timedelta(seconds=self.delay_seconds)


def _descriptor(spec: str, loc: _dt.tzinfo) -> SpecSchedule | ConstantDelaySchedule:
    one = lambda r: 1 << r.min  # noqa: E731
    table = {
        "@yearly": (one(_MONTHS), one(_DOM), one(_HOURS), _all(_DOW)),
        "@annually": (one(_MONTHS), one(_DOM), one(_HOURS), _all(_DOW)),
        "@monthly": (_all(_MONTHS), one(_DOM), one(_HOURS), _all(_DOW)),
        "@weekly": (_all(_MONTHS), _all(_DOM), one(_HOURS), one(_DOW)),
        "@daily": (_all(_MONTHS), _all(_DOM), one(_HOURS), _all(_DOW)),
        "@midnight": (_all(_MONTHS), _all(_DOM), one(_HOURS), _all(_DOW)),
        "@hourly": (_all(_MONTHS), _all(_DOM), _all(_HOURS), _all(_DOW)),
    }
    if spec in table:
        month, dom, hour, dow = table[spec]
        return SpecSchedule(one(_SECONDS), one(_MINUTES), hour, dom, month, dow, loc)
    every = "@every "
    if spec.startswith(every):
        try:
            seconds = parse_go_duration(spec[len(every):])
        except CronError as e:
            raise CronError(f"failed to parse duration {spec}: {e}") from None
        return ConstantDelaySchedule(max(int(seconds), 1))
    raise CronError(f"unrecognized descriptor: {spec}")


def _go_fields(fields: list[str]) -> str:
    return "[" + " ".join(fields) + "]"


def parse_standard(spec: str) -> SpecSchedule | ConstantDelaySchedule:
    """Parse a schedule as ``cron.ParseStandard`` does (5 fields or a descriptor, optional ``TZ=``).

    Parameters
    ----------
    spec : str
        ``"*/5 * * * *"``, ``"@hourly"``, ``"TZ=Europe/Paris 0 9 * * 1-5"``...

    Returns
    -------
    SpecSchedule or ConstantDelaySchedule

    Raises
    ------
    CronError
        With robfig's message, e.g. ``expected exactly 5 fields, found 6: [0 * * * * *]``,
        ``end of range (60) above maximum (59): 60``, ``unrecognized descriptor: @often``.

    Notes
    -----
    ``TZ=`` without a following space makes robfig v3.0.1 slice out of
    range and panic; here it is an error. Time zones load from the system
    database (``zoneinfo``).

    Examples
    --------
    >>> s = parse_standard("0 * * * *")
    >>> s.minute, s.hour == (((1 << 24) - 1) | STAR_BIT)
    (1, True)
    >>> parse_standard("* * * *")
    Traceback (most recent call last):
    ...
    kubenotes.controllers.cron.CronError: expected exactly 5 fields, found 4: [* * * *]
    """
    if not spec:
        raise CronError("empty spec string")
    loc: _dt.tzinfo = _UTC
    if spec.startswith("TZ=") or spec.startswith("CRON_TZ="):
        i = spec.find(" ")
        eq = spec.find("=")
        if i < 0:
            raise CronError(f"provided bad location {spec[eq + 1:]}: missing schedule after the time zone")
        loc = _location(spec[eq + 1:i])
        spec = spec[i:].strip()
    if spec.startswith("@"):
        return _descriptor(spec, loc)
    fields = spec.split()
    if len(fields) != 5:
        raise CronError(f"expected exactly 5 fields, found {len(fields)}: {_go_fields(fields)}")
    minute = _get_field(fields[0], _MINUTES)
    hour = _get_field(fields[1], _HOURS)
    dom = _get_field(fields[2], _DOM)
    month = _get_field(fields[3], _MONTHS)
    dow = _get_field(fields[4], _DOW)
    return SpecSchedule(1 << 0, minute, hour, dom, month, dow, loc)
