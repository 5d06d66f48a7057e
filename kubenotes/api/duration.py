"""Go durations as component configuration files write them (``metav1.Duration``: ``"5s"``, ``"1m30s"``).

Mirrors Go's ``time.ParseDuration``, which ``metav1.Duration`` uses to decode
its JSON string (``k8s.io/apimachinery/pkg/apis/meta/v1/duration.go``).

References
----------
https://pkg.go.dev/time#ParseDuration
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/duration.go
"""

from __future__ import annotations

import re

__all__ = ["parse_go_duration"]

_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_NUMBER = re.compile(r"[0-9]*(?:\.[0-9]*)?")
_UNIT = re.compile(r"[^0-9.]*")


def parse_go_duration(text: str) -> float:
    """Seconds of a Go duration string (``time.ParseDuration``).

    Parameters
    ----------
    text : str
        A sequence of decimal numbers, each with an optional fraction and a
        unit (``ns``, ``us``/``µs``, ``ms``, ``s``, ``m``, ``h``), with an
        optional sign: ``"300ms"``, ``"-1.5h"``, ``"2h45m"``; ``"0"`` alone
        needs no unit.

    Returns
    -------
    float
        Seconds.

    Raises
    ------
    ValueError
        With Go's message: ``time: invalid duration "x"``, ``time: missing
        unit in duration "1"`` or ``time: unknown unit "d" in duration "1d"``.

    Notes
    -----
    Go keeps nanoseconds in an int64 and reports an overflow; a float has no
    such limit here.

    Examples
    --------
    >>> parse_go_duration("1m30s"), parse_go_duration("300ms"), parse_go_duration("-1.5h"), parse_go_duration("0")
    (90.0, 0.3, -5400.0, 0.0)
    >>> parse_go_duration("5")
    Traceback (most recent call last):
    ...
    ValueError: time: missing unit in duration "5"
    """
    quoted = '"' + text + '"'
    s = text
    sign = 1.0
    if s[:1] in ("+", "-"):
        sign = -1.0 if s[0] == "-" else 1.0
        s = s[1:]
    if s == "0":
        return 0.0
    if not s:
        raise ValueError(f"time: invalid duration {quoted}")
    total = 0.0
    pos = 0
    while pos < len(s):
        num = _NUMBER.match(s, pos).group(0)
        if num in ("", "."):
            raise ValueError(f"time: invalid duration {quoted}")
        pos += len(num)
        unit = _UNIT.match(s, pos).group(0)
        if not unit:
            raise ValueError(f"time: missing unit in duration {quoted}")
        if unit not in _UNITS:
            raise ValueError(f'time: unknown unit "{unit}" in duration {quoted}')
        pos += len(unit)
        total += float(num) * _UNITS[unit]
    return sign * total
