"""``resource.Quantity`` as admission and quota print it: exact value, format, canonical string.

Quota admission and LimitRanger quote quantities back to the user
(``requested: requests.cpu=500m``, ``maximum memory usage per Container is
1Gi``). Upstream prints them with ``Quantity.String()``, which keeps the
*format* the quantity was written in (``DecimalSI`` for ``500m`` or ``2``,
``BinarySI`` for ``1Gi``, ``DecimalExponent`` for ``1e3``) and canonicalizes
the number (``1024Mi`` prints ``1Gi``, ``0.5`` prints ``500m``). A sum keeps
the format of its first non-zero term, as ``Quantity.Add`` does.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go (String, CanonicalizeBytes, Add)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/api/resource/amount.go (AsCanonicalBytes)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from kubenotes.api.quantity import parse_quantity

__all__ = ["Quantity", "DECIMAL_SI", "BINARY_SI", "DECIMAL_EXPONENT", "quantity_string"]

DECIMAL_SI = "DecimalSI"
BINARY_SI = "BinarySI"
DECIMAL_EXPONENT = "DecimalExponent"

_BINARY_SUFFIXES = ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
_DEC_SUFFIX = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}
_BIN_SUFFIX = {0: "", 1: "Ki", 2: "Mi", 3: "Gi", 4: "Ti", 5: "Pi", 6: "Ei"}
_NANO = Decimal("1e-9")


def _format_of(text: Any) -> str:
    if not isinstance(text, str):
        return DECIMAL_SI
    s = text.strip()
    if s.endswith(_BINARY_SUFFIXES):
        return BINARY_SI
    body = s.lstrip("+-")
    if "e" in body or "E" in body:
        return DECIMAL_EXPONENT
    return DECIMAL_SI


@dataclass(frozen=True)
class Quantity:
    """An exact quantity and the format it prints in (``resource.Quantity``).

    Attributes
    ----------
    value : decimal.Decimal
        Exact value in base units (cores, bytes, count), rounded up to nano units as upstream parses.
    format : str
        ``DecimalSI``, ``BinarySI`` or ``DecimalExponent``.

    Examples
    --------
    >>> [str(Quantity.parse(x)) for x in ("1024Mi", "0.5", "2000", "1e3")]
    ['1Gi', '500m', '2k', '1e3']
    >>> str(Quantity.parse("500m") + Quantity.parse("1")), str(Quantity.zero() + Quantity.parse("600Mi"))
    ('1500m', '600Mi')
    """

    value: Decimal
    format: str = DECIMAL_SI

    @classmethod
    def parse(cls, q: Any, field: str = "") -> "Quantity":
        """Parse a manifest quantity (``"500m"``, ``"1Gi"``, ``2``).

        Raises
        ------
        InvalidQuantity
            When upstream's parser would reject ``q``.
        """
        d = parse_quantity(q, field)
        # upstream keeps at most nano precision, rounding away from zero
        scaled = d / _NANO
        if scaled != scaled.to_integral_value():
            d = Decimal(math.ceil(scaled) if d > 0 else math.floor(scaled)) * _NANO
        return cls(d, _format_of(q))

    @classmethod
    def zero(cls, fmt: str = DECIMAL_SI) -> "Quantity":
        return cls(Decimal(0), fmt)

    @classmethod
    def of_int(cls, n: int) -> "Quantity":
        """``resource.NewQuantity(n, DecimalSI)``."""
        return cls(Decimal(n), DECIMAL_SI)

    def __add__(self, other: "Quantity") -> "Quantity":
        fmt = other.format if self.value == 0 else self.format
        return Quantity(self.value + other.value, fmt)

    def __sub__(self, other: "Quantity") -> "Quantity":
        fmt = other.format if self.value == 0 else self.format
        return Quantity(self.value - other.value, fmt)

    def cmp(self, other: "Quantity") -> int:
        return (self.value > other.value) - (self.value < other.value)

    def milli_value(self) -> int:
        """``MilliValue()``: thousandths, rounded up."""
        return int(math.ceil(self.value * 1000))

    def int_value(self) -> int:
        """``Value()``: rounded up to an integer."""
        return int(math.ceil(self.value))

    def sign(self) -> int:
        return (self.value > 0) - (self.value < 0)

    def __str__(self) -> str:
        return quantity_string(self)

    def __repr__(self) -> str:
        return f"Quantity({str(self)!r})"


def _decimal_parts(v: Decimal) -> tuple[int, int]:
    """Integer mantissa and base-10 exponent with trailing zeros removed."""
    sign, digits, exp = v.normalize().as_tuple()
    mant = int("".join(map(str, digits))) if digits else 0
    return (-mant if sign else mant), int(exp)


def quantity_string(q: Quantity) -> str:
    """``Quantity.String()``: the canonical form in the quantity's format.

    Examples
    --------
    >>> quantity_string(Quantity.parse("1536Mi")), quantity_string(Quantity.parse("100Mi") + Quantity.parse("0.5"))
    ('1536Mi', '104857600500m')
    >>> quantity_string(Quantity.parse("512")), quantity_string(Quantity.zero())
    ('512', '0')
    """
    v = q.value
    if v == 0:
        return "0"
    fmt = q.format
    if fmt == BINARY_SI:
        if -1024 < v < 1024 or v != v.to_integral_value():
            fmt = DECIMAL_SI
        else:
            n = int(v)
            e = 0
            while n % 1024 == 0 and e < 6:
                n //= 1024
                e += 1
            return f"{n}{_BIN_SUFFIX[e]}"
    mant, exp = _decimal_parts(v)
    shift = exp % 3
    if shift:
        mant *= 10 ** shift
        exp -= shift
    if fmt == DECIMAL_EXPONENT:
        return f"{mant}e{exp}" if exp else str(mant)
    if exp < -9:  # below nano: upstream rounds up to 1n at parse time, not reached
        return f"{mant}e{exp}"
    suffix = _DEC_SUFFIX.get(exp)
    if suffix is None:
        return f"{mant}e{exp}"
    return f"{mant}{suffix}"
