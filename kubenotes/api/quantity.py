"""Exact Kubernetes resource quantities, converted to integers at the edge.

Mirrors ``k8s.io/apimachinery/pkg/api/resource`` (quantity.go): parsing is
exact (lightkube's :func:`~lightkube.utils.quantity.parse_quantity` returns a
:class:`decimal.Decimal`), and the integer views round *up* as upstream's
``Quantity.Value()`` and ``Quantity.MilliValue()`` do.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go
"""

from __future__ import annotations

import functools
import math
import re
from decimal import Decimal, InvalidOperation

from lightkube.utils.quantity import parse_quantity as _lk_parse

from kubenotes.errors import InvalidQuantity

_UPPER_EXPONENT = re.compile(r"^([+-]?[0-9.]+)E(?=[+-]?[0-9]+$)")

__all__ = ["parse_quantity", "value", "milli_value", "milli_cpu", "memory_bytes", "format_quantity", "string_quantity_values"]


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
