"""Exact Kubernetes resource quantities, converted to integers at the edge.

Mirrors ``k8s.io/apimachinery/pkg/api/resource`` (quantity.go): parsing is
exact (lightkube's :func:`~lightkube.utils.quantity.parse_quantity` returns a
:class:`decimal.Decimal`), and the integer views round *up* as upstream's
``Quantity.Value()`` and ``Quantity.MilliValue()`` do.

:class:`Quantity` keeps what the integer views drop: the exact value and
the *format* a quantity was written in, so that the API server can quote it
back as upstream's ``Quantity.String()`` does (``requested:
requests.cpu=500m``, ``maximum memory usage per Container is 1Gi``): the
format is ``DecimalSI`` for ``500m`` or ``2``, ``BinarySI`` for ``1Gi``,
``DecimalExponent`` for ``1e3``; the number is canonicalized (``1024Mi``
prints ``1Gi``, ``0.5`` prints ``500m``), and a sum keeps the format of its
first non-zero term, as ``Quantity.Add`` does.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/api/resource/amount.go (AsCanonicalBytes)
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from lightkube.utils.quantity import parse_quantity as _lk_parse

from kubenotes.errors import InvalidQuantity

_UPPER_EXPONENT = re.compile(r"^([+-]?[0-9.]+)E(?=[+-]?[0-9]+$)")

__all__ = ["parse_quantity", "value", "milli_value", "milli_cpu", "memory_bytes", "format_quantity", "string_quantity_values",
           "Quantity", "DECIMAL_SI", "BINARY_SI", "DECIMAL_EXPONENT", "quantity_string", "quantity_suffix",
           "SUFFIX_MEANINGS", "suffix_meaning"]


def parse_quantity(q: object, field: str = "") -> Decimal:
    """Parse a quantity (``"100m"``, ``"1.5"``, ``"2Gi"``, ``"1e3"``, ``"500M"``, or a number).

    Parameters
    ----------
    q : str or int or float
        The quantity as it appears in a manifest.
    field : str, optional
        Field path named in the error.

    Returns
    -------
    decimal.Decimal
        The exact value in base units (cores, bytes, count).

    Raises
    ------
    InvalidQuantity
        When upstream's parser would reject ``q``.

    Examples
    --------
    >>> parse_quantity("100m"), parse_quantity("2Gi"), parse_quantity("1e3")
    (Decimal('0.100'), Decimal('2147483648.000'), Decimal('1000.000'))
    """
    if isinstance(q, bool) or q is None:
        raise InvalidQuantity(field, q)
    if isinstance(q, int):
        return Decimal(q)
    if isinstance(q, float):
        if not math.isfinite(q):
            raise InvalidQuantity(field, q)
        return Decimal(repr(q))
    if not isinstance(q, str):
        raise InvalidQuantity(field, q)
    d = _parse_str(q)
    if d is None:
        raise InvalidQuantity(field, q)
    return d


@functools.lru_cache(maxsize=4096)
def _parse_str(q: str) -> Decimal | None:
    """A string quantity's value, None when malformed (cached: a cluster repeats a few dozen quantities)."""
    s = q.strip()
    if s != q or not s or s.startswith("+-") or " " in s:
        return None
    s = _UPPER_EXPONENT.sub(r"\1e", s)  # upstream accepts both 1e3 and 1E3
    try:
        d = _lk_parse(s)
    except (ValueError, InvalidOperation, TypeError):
        return None
    if d is None or not d.is_finite():
        return None
    return d


@functools.lru_cache(maxsize=4096)
def string_quantity_values(q: str) -> tuple[int, int] | None:
    """``(value(q), milli_value(q))`` of a string quantity, None when malformed (cached, as :func:`_parse_str`).

    Examples
    --------
    >>> string_quantity_values("1.5"), string_quantity_values("lots")
    ((2, 1500), None)
    """
    d = _parse_str(q)
    if d is None:
        return None
    return int(math.ceil(d)), int(math.ceil(d * 1000))


# ``parseQuantityString``: a sign, digits with at most one point, then the suffix.
_NUMBER_THEN_SUFFIX = re.compile(r"^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(.*)$")
_EXPONENT_SUFFIX = re.compile(r"^[eE][+-]?[0-9]+$")
_SI_SUFFIXES = frozenset({"", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"})


def quantity_suffix(q: str) -> str | None:
    """The suffix of a quantity string, as ``parseQuantityString`` splits it from the number.

    Parameters
    ----------
    q : str
        A quantity as written, e.g. ``"2Gi"``, ``"100m"``, ``"1e3"``, ``"5"``.

    Returns
    -------
    str or None
        A binary suffix (``Ki`` ... ``Ei``), a decimal one (``n``, ``u``,
        ``m``, ``""``, ``k`` ... ``E``) or a decimal exponent (``e3``,
        ``E-2``); None when ``q`` is not a number followed by one of those.

    Raises
    ------
    TypeError
        When ``q`` is not a str.

    Notes
    -----
    Only the split: the number is not checked for range or precision
    (:func:`parse_quantity` does that).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go (parseQuantityString)
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/api/resource/suffix.go

    Examples
    --------
    >>> [quantity_suffix(q) for q in ("2Gi", "100m", "1.5", "1e3", "12Q")]
    ['Gi', 'm', '', 'e3', None]
    """
    m = _NUMBER_THEN_SUFFIX.match(q)
    if m is None:
        return None
    suffix = m.group(1)
    return suffix if suffix in _SI_SUFFIXES or _EXPONENT_SUFFIX.match(suffix) else None


#: What a suffix multiplies the number by (``suffix.go``'s binary and decimal families; ``n`` and ``u`` left out).
SUFFIX_MEANINGS = {
    "Ki": "binary suffix: ×2^10", "Mi": "binary suffix: ×2^20", "Gi": "binary suffix: ×2^30",
    "Ti": "binary suffix: ×2^40", "Pi": "binary suffix: ×2^50", "Ei": "binary suffix: ×2^60",
    "m": "decimal suffix milli: ×10^-3", "k": "decimal suffix: ×10^3", "M": "decimal suffix: ×10^6",
    "G": "decimal suffix: ×10^9", "T": "decimal suffix: ×10^12", "P": "decimal suffix: ×10^15",
    "E": "decimal suffix: ×10^18", "": "no suffix: base units (cores, bytes)",
}


def suffix_meaning(q: str) -> str:
    """What the suffix of a quantity means, from quantity.go's three suffix families.

    Parameters
    ----------
    q : str
        A quantity as written (surrounding blanks ignored).

    Returns
    -------
    str
        A :data:`SUFFIX_MEANINGS` entry, ``"decimal exponent: ×10^n"`` for
        ``e3``/``E-2``, or "" when ``q`` has no valid suffix (or ``n``/``u``).

    Raises
    ------
    AttributeError
        When ``q`` is not a str.

    See Also
    --------
    quantity_suffix

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/api/resource/suffix.go

    Examples
    --------
    >>> suffix_meaning("2Gi"), suffix_meaning(" 1e3"), suffix_meaning("12Q")
    ('binary suffix: ×2^30', 'decimal exponent: ×10^n', '')
    """
    suffix = quantity_suffix(q.strip())
    if suffix is None:
        return ""
    if suffix in SUFFIX_MEANINGS:
        return SUFFIX_MEANINGS[suffix]
    return "decimal exponent: ×10^n" if suffix[:1] in ("e", "E") else ""


def value(q: object, field: str = "") -> int:
    """Integer value rounded up, as ``Quantity.Value()``.

    Examples
    --------
    >>> value("1.5"), value("500M"), value("100m")
    (2, 500000000, 1)
    """
    if type(q) is str:
        got = string_quantity_values(q)
        if got is not None:
            return got[0]
    return int(math.ceil(parse_quantity(q, field)))


def milli_value(q: object, field: str = "") -> int:
    """Integer thousandths rounded up, as ``Quantity.MilliValue()``.

    Examples
    --------
    >>> milli_value("100m"), milli_value("1.5"), milli_value("0.0001")
    (100, 1500, 1)
    """
    if type(q) is str:
        got = string_quantity_values(q)
        if got is not None:
            return got[1]
    return int(math.ceil(parse_quantity(q, field) * 1000))


def milli_cpu(q: object, field: str = "") -> int:
    """CPU quantity as integer millicores (``"500m"`` -> 500, ``"2"`` -> 2000)."""
    return milli_value(q, field)


def memory_bytes(q: object, field: str = "") -> int:
    """Memory (or storage) quantity as integer bytes (``"1Gi"`` -> 1073741824)."""
    return value(q, field)


def format_quantity(amount: int, resource: str) -> str:
    """Format an internal integer back into a canonical manifest string.

    Parameters
    ----------
    amount : int
        Millicores for ``cpu``; base units for every other resource.
    resource : str
        Resource name (``cpu``, ``memory``, ``nvidia.com/gpu``...).

    Examples
    --------
    >>> format_quantity(1500, "cpu"), format_quantity(2000, "cpu"), format_quantity(1073741824, "memory")
    ('1500m', '2', '1Gi')
    """
    if resource == "cpu":
        return str(amount // 1000) if amount % 1000 == 0 else f"{amount}m"
    for suffix, mult in (("Ei", 2**60), ("Pi", 2**50), ("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
        if amount and amount % mult == 0:
            return f"{amount // mult}{suffix}"
    return str(amount)


# --- resource.Quantity: exact value and print format ---------------------------------------------------

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
