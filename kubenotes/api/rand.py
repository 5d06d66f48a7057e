"""Random name suffixes as apimachinery's ``util/rand`` makes them (seeded here).

Upstream leaves out vowels and the digits 0, 1 and 3 so that generated names
(``web-7c9d8``, ``kube-api-access-x2k4z``) never spell words or look alike.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/util/rand/rand.go (alphanums, String)
"""

from __future__ import annotations

import random

__all__ = ["ALPHANUMS", "random_string"]

#: The 27 characters of generated names (``rand.alphanums``).
ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"


def random_string(n: int, rng: random.Random) -> str:
    """``rand.String(n)`` from a seeded generator.

    Examples
    --------
    >>> s = random_string(5, random.Random(0)); len(s), set(s) <= set(ALPHANUMS)
    (5, True)
    """
    return "".join(rng.choice(ALPHANUMS) for _ in range(n))
