"""kubenotes.api.duration.parse_go_duration against Go's time.ParseDuration table (go/src/time/time_test.go)."""

from __future__ import annotations

import pytest

from kubenotes.api.duration import parse_go_duration


@pytest.mark.parametrize("text, seconds", [
    ("0", 0.0), ("5s", 5.0), ("30s", 30.0), ("1478s", 1478.0), ("-5s", -5.0), ("+5s", 5.0), ("-0", 0.0),
    ("+0", 0.0), ("5.0s", 5.0), ("5.6s", 5.6), ("5.s", 5.0), (".5s", 0.5), ("1.004s", 1.004), ("10ns", 1e-8),
    ("11us", 11e-6), ("12µs", 12e-6), ("12μs", 12e-6), ("13ms", 0.013), ("15m", 900.0), ("16h", 57600.0),
    ("3h30m", 12600.0), ("10.5s4m", 250.5), ("-2m3.4s", -123.4), ("1h2m3s4ms5us6ns", 3723.004005006),
    ("39h9m14.425s", 140954.425),
])
def test_parse_go_duration(text, seconds):
    assert parse_go_duration(text) == pytest.approx(seconds, rel=1e-12)


@pytest.mark.parametrize("text, message", [
    ("", 'time: invalid duration ""'), ("3", 'time: missing unit in duration "3"'), ("-", 'time: invalid duration "-"'),
    ("s", 'time: invalid duration "s"'), (".", 'time: invalid duration "."'), ("-.", 'time: invalid duration "-."'),
    (".s", 'time: invalid duration ".s"'), ("+.s", 'time: invalid duration "+.s"'),
    ("1d", 'time: unknown unit "d" in duration "1d"'), ("1h5", 'time: missing unit in duration "1h5"'),
])
def test_parse_go_duration_errors(text, message):
    with pytest.raises(ValueError) as e:
        parse_go_duration(text)
    assert str(e.value) == message
