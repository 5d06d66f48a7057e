"""Load balancing (负载均衡) over a Service's endpoints: seeded simulations of each proxy mode's choice.

kube-proxy does not balance requests; each mode picks an endpoint for every
new **connection**, the kernel (or the old userspace proxier) remembers the
choice for the connection's life, and the modes pick differently:

* **iptables**: the ``KUBE-SVC-*`` chain jumps to ``KUBE-SEP-*`` chain *i* of
  *n* with ``-m statistic --mode random --probability 1/(n−i)`` (the last one
  unconditionally), so each endpoint gets 1/n of the connections overall, at
  random (:func:`iptables_probabilities`, :func:`iptables_pick`).
* **IPVS** (``ipvs`` mode, scheduler ``rr`` by default): round robin over the
  real servers, strictly in turn; ``wrr`` honours weights (kube-proxy sets
  them all to 1) and ``lc`` picks the server with the fewest active
  connections.
* **userspace** (removed in v1.26): kube-proxy itself accepted the
  connection and chose with ``LoadBalancerRR``, round robin.
* **sessionAffinity: ClientIP** (``timeoutSeconds`` 10800 by default): a
  client's new connection goes to the endpoint it used within the timeout;
  iptables does it with ``-m recent --rcheck --seconds 10800 --reap``, IPVS
  with a persistent service (``-p 10800``), userspace with an affinity map.

:func:`simulate_connections` runs N connections (10,000 by default) and
returns the count per endpoint with a chi-square test of uniformity.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/proxy/iptables/proxier.go (writeServiceToEndpointRules, probability)
kubernetes/kubernetes@v1.34.0 pkg/proxy/ipvs/proxier.go (scheduler rr, persistence for ClientIP)
kubernetes/kubernetes@v1.26.0 pkg/proxy/userspace/roundrobin.go (LoadBalancerRR)
torvalds/linux@v6.12 net/netfilter/xt_statistic.c, xt_recent.c; net/netfilter/ipvs/ip_vs_rr.c, ip_vs_wrr.c, ip_vs_lc.c
"""

from __future__ import annotations

import functools
import math
import random
from dataclasses import dataclass, field
from typing import Sequence

__all__ = [
    "MODES",
    "DEFAULT_CONNECTIONS",
    "DEFAULT_CLIENT_IP_AFFINITY_SECONDS",
    "iptables_probabilities",
    "iptables_probability_strings",
    "iptables_pick",
    "chi_square",
    "chi_square_p_value",
    "BalanceResult",
    "simulate_connections",
]

#: Modes :func:`simulate_connections` knows: iptables random, IPVS rr / wrr / lc, the old userspace round robin.
MODES = ("iptables", "ipvs-rr", "ipvs-wrr", "ipvs-lc", "userspace")
DEFAULT_CONNECTIONS = 10_000
#: ``DefaultClientIPServiceAffinitySeconds`` (3 hours).
DEFAULT_CLIENT_IP_AFFINITY_SECONDS = 10800

_XT_STATISTIC_SCALE = 0x80000000  # libxt_statistic: probability * 2^31, compared with a 31-bit random number


def iptables_probabilities(n: int) -> list[float | None]:
    """The ``--probability`` of the jump to each of ``n`` endpoint chains (None: the last, unconditional jump).

    Endpoint *i* (from 0) is taken with 1/(n−i) of the connections that got
    that far, so with probability (1 − 1/n)···1/(n−i) = 1/n overall.

    Parameters
    ----------
    n : int
        Ready endpoints of the Service (its ``KUBE-SEP-*`` chains).

    Returns
    -------
    list of float or None
        ``n`` entries: ``1/(n−i)`` for the first ``n − 1`` jumps, then None
        (the last jump has no ``-m statistic`` match); ``[]`` for no endpoints.

    Raises
    ------
    TypeError
        When ``n`` is not an integer; nothing of its own (a negative ``n``
        gives ``[None]``).

    See Also
    --------
    simulate_connections : draws connections with these probabilities.

    Notes
    -----
    kube-proxy writes the probability with 10 decimal places
    (``--probability 0.3333333333``); the exact fractions are kept here.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/proxy/iptables/proxier.go (writeServiceToEndpointRules, probability)

    Examples
    --------
    >>> iptables_probabilities(3)
    [0.3333333333333333, 0.5, None]
    >>> iptables_probabilities(1), iptables_probabilities(0)
    ([None], [])
    """
    return [1.0 / (n - i) for i in range(n - 1)] + ([None] if n else [])


def iptables_probability_strings(n: int) -> list[str | None]:
    """The probabilities as kube-proxy writes them (``computeProbability``: ``%0.10f``).

    Examples
    --------
    >>> iptables_probability_strings(4)
    ['0.2500000000', '0.3333333333', '0.5000000000', None]
    """
    from kubenotes.proxy.iptables import compute_probability

    return [compute_probability(n - i) for i in range(n - 1)] + ([None] if n else [])


def iptables_pick(rng: random.Random, n: int) -> int:
    """Walk a ``KUBE-SVC-*`` chain once: the index of the endpoint chain the connection jumps to.

    Each statistic rule compares a 31-bit random number with
    ``round(probability · 2^31)`` of the 10-digit probability kube-proxy
    wrote, as the kernel's ``xt_statistic`` does.

    Examples
    --------
    >>> rng = random.Random(0)
    >>> sorted({iptables_pick(rng, 3) for _ in range(100)})
    [0, 1, 2]
    """
    return _pick_with(rng, _statistic_thresholds(n))


@functools.lru_cache(maxsize=64)
def _statistic_thresholds(n: int) -> tuple[int | None, ...]:
    """What each of the ``n`` rules of a ``KUBE-SVC-*`` chain compares the 31-bit random number with.

    ``round(probability · 2^31)`` of the printed probability of each statistic
    rule, None for the last rule (it has no statistic match). Computed once per
    ``n`` (a balance run walks the chain for every connection).

    Examples
    --------
    >>> _statistic_thresholds(2)
    (1073741824, None)
    """
    return tuple(None if p is None else round(_XT_STATISTIC_SCALE * float(p)) for p in iptables_probability_strings(n))


def _pick_with(rng: random.Random, thresholds: tuple[int | None, ...]) -> int:
    """:func:`iptables_pick` over thresholds from :func:`_statistic_thresholds` (the same draws, in the same order)."""
    for i, threshold in enumerate(thresholds):
        if threshold is None or rng.getrandbits(31) < threshold:
            return i
    raise ValueError("no endpoints")


def chi_square(observed: Sequence[int], expected_shares: Sequence[float] | None = None) -> float:
    """Pearson's chi-square statistic of counts against expected shares (uniform by default).

    Examples
    --------
    >>> chi_square([100, 100, 100]), chi_square([150, 100, 50])
    (0.0, 50.0)
    """
    total = sum(observed)
    shares = expected_shares or [1.0 / len(observed)] * len(observed)
    s = sum(shares)
    return float(sum((o - total * e / s) ** 2 / (total * e / s) for o, e in zip(observed, shares) if e > 0))


def _gamma_q(a: float, x: float) -> float:
    """Regularized upper incomplete gamma Q(a, x): a series below a+1, a continued fraction above."""
    if x <= 0:
        return 1.0
    lg = math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        ap = a
        for _ in range(1000):
            ap += 1
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(-x + a * math.log(x) - lg))
    b, c, d = x + 1 - a, 1e300, 1.0 / (x + 1 - a)
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1e-300 if abs(d) < 1e-300 else d
        c = b + an / c
        c = 1e-300 if abs(c) < 1e-300 else c
        d = 1.0 / d
        h *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return math.exp(-x + a * math.log(x) - lg) * h


def chi_square_p_value(statistic: float, degrees_of_freedom: int) -> float:
    """P(χ² ≥ statistic) for ``degrees_of_freedom``: near 1 looks uniform, below 0.05 rejects uniformity.

    Examples
    --------
    >>> round(chi_square_p_value(3.841, 1), 3), round(chi_square_p_value(5.991, 2), 3)
    (0.05, 0.05)
    """
    if degrees_of_freedom <= 0:
        return 1.0
    return _gamma_q(degrees_of_freedom / 2.0, statistic / 2.0)


@dataclass(frozen=True)
class BalanceResult:
    """Where the simulated connections went.

    Attributes
    ----------
    mode : str
    endpoints : tuple of str
        ``ip:port``, in the order the proxy lists them.
    counts : dict[str, int]
        Endpoint -> connections.
    connections : int
    chi_square : float
        Against the expected shares (1/n each, or the weights).
    p_value : float
        P(χ² ≥ chi_square) with n−1 degrees of freedom.
    session_affinity_timeout_seconds : int or None
    clients_per_endpoint : dict[str, int]
        Endpoint -> distinct client IPs it served.
    endpoints_per_client : dict[str, int]
        Client IP -> distinct endpoints it reached (1 for every client under ClientIP affinity).
    choices : tuple of int
        The endpoint index of each connection, in order.
    """

    mode: str
    endpoints: tuple[str, ...]
    counts: dict[str, int]
    connections: int
    chi_square: float
    p_value: float
    session_affinity_timeout_seconds: int | None = None
    clients_per_endpoint: dict[str, int] = field(default_factory=dict)
    endpoints_per_client: dict[str, int] = field(default_factory=dict)
    choices: tuple[int, ...] = ()

    @property
    def shares(self) -> dict[str, float]:
        """Endpoint -> fraction of the connections."""
        return {e: c / self.connections for e, c in self.counts.items()} if self.connections else {}


def _endpoint_list(endpoints: int | Sequence[str]) -> list[str]:
    if isinstance(endpoints, int):
        if endpoints < 1:
            raise ValueError(f"endpoints must be at least 1, not {endpoints}")
        return [f"10.244.{1 + i // 250}.{10 + i % 250}:8080" for i in range(endpoints)]
    eps = [str(e) for e in endpoints]
    if not eps:
        raise ValueError("endpoints must not be empty")
    return eps


class _WRR:
    """``ip_vs_wrr``: interleaved weighted round robin (current weight stepping down by the weights' gcd)."""

    def __init__(self, weights: Sequence[int]):
        self.weights = list(weights)
        self.mw = max(self.weights)
        self.di = math.gcd(*self.weights) if self.mw else 1
        self.cw = self.mw
        self.cl = -1  # the list head

    def pick(self) -> int:
        if self.mw <= 0:
            raise ValueError("no endpoint has a weight above 0")
        n = len(self.weights)
        while True:
            for i in range(self.cl + 1, n):
                if self.weights[i] >= self.cw:
                    self.cl = i
                    return i
            self.cl = -1
            self.cw -= self.di
            if self.cw <= 0:
                self.cw = self.mw


def simulate_connections(endpoints: int | Sequence[str], mode: str = "iptables", *,
                         connections: int = DEFAULT_CONNECTIONS, clients: int = 100,
                         session_affinity_timeout_seconds: int | None = None, seed: int = 0,
                         interval_seconds: float = 1.0, mean_duration_seconds: float = 30.0,
                         weights: Sequence[int] | None = None) -> BalanceResult:
    """Open ``connections`` connections to a Service and count where each mode sends them.

    Connections arrive one every ``interval_seconds`` from ``clients`` client
    IPs drawn at random; each lasts an exponentially distributed time (mean
    ``mean_duration_seconds``), which only ``ipvs-lc`` looks at.

    Parameters
    ----------
    endpoints : int or sequence of str
        The ready endpoints (``ip:port``) in the proxy's order, or how many to make up.
    mode : str
        One of :data:`MODES`.
    connections : int
    clients : int
        Distinct client IPs.
    session_affinity_timeout_seconds : int, optional
        ``sessionAffinityConfig.clientIP.timeoutSeconds`` for ``sessionAffinity:
        ClientIP`` (10800 by default upstream); None for no affinity.
    seed : int
    interval_seconds, mean_duration_seconds : float
    weights : sequence of int, optional
        IPVS real-server weights (``ipvs-wrr``; kube-proxy sets 1).

    Returns
    -------
    BalanceResult

    Raises
    ------
    ValueError
        An unknown mode, no endpoints, or weights of the wrong length.

    Notes
    -----
    Simplified: the iptables ``recent`` list and the IPVS persistence template
    are both "the client's last endpoint, valid while its last connection is
    younger than the timeout"; IPVS ``lc`` counts active connections only
    (upstream adds inactive ones at 1/256 of the weight); the userspace mode
    runs :class:`kubenotes.proxy.userspace.LoadBalancerRR` (which shuffles the
    endpoints once, seeded, and then takes them in turn).

    See Also
    --------
    iptables_probabilities

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/proxy/iptables/proxier.go (writeServiceToEndpointRules)
    kubernetes/kubernetes@v1.34.0 pkg/proxy/ipvs/proxier.go (scheduler, persistence for ClientIP)

    Examples
    --------
    >>> r = simulate_connections(3, "ipvs-rr", connections=9)
    >>> list(r.counts.values()), r.choices
    ([3, 3, 3], (0, 1, 2, 0, 1, 2, 0, 1, 2))
    >>> r = simulate_connections(3, "iptables", session_affinity_timeout_seconds=10800, clients=5)
    >>> set(r.endpoints_per_client.values())
    {1}
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    eps = _endpoint_list(endpoints)
    n = len(eps)
    w = list(weights) if weights is not None else [1] * n
    if len(w) != n:
        raise ValueError(f"weights has {len(w)} entries for {n} endpoints")
    rng = random.Random(seed)
    client_ips = [f"192.168.{i // 250}.{1 + i % 250}" for i in range(max(1, clients))]
    wrr = None
    if mode in ("ipvs-rr", "ipvs-wrr"):  # rr is wrr with every usable server at weight 1
        wrr = _WRR([1 if x > 0 else 0 for x in w] if mode == "ipvs-rr" else w)
    userspace = _userspace_balancer(eps, seed, session_affinity_timeout_seconds) if mode == "userspace" else None
    thresholds = _statistic_thresholds(n)
    ends: list[list[float]] = [[] for _ in range(n)]  # ipvs-lc: end times of each endpoint's connections
    last: dict[str, tuple[int, float]] = {}  # client -> (endpoint, time of its last new connection)
    choices: list[int] = []
    served: list[set[str]] = [set() for _ in range(n)]
    reached: dict[str, set[int]] = {}
    for k in range(connections):
        now = k * interval_seconds
        client = client_ips[rng.randrange(len(client_ips))]
        duration = rng.expovariate(1.0 / mean_duration_seconds) if mean_duration_seconds > 0 else 0.0
        # the userspace balancer keeps its own affinity map; the kernel modes' is modelled here
        sticky = last.get(client) if session_affinity_timeout_seconds is not None and userspace is None else None
        if sticky is not None and sticky[1] > now - session_affinity_timeout_seconds:
            i = sticky[0]
        elif mode == "iptables":
            i = _pick_with(rng, thresholds)
        elif wrr is not None:
            i = wrr.pick()
        elif mode == "ipvs-lc":
            active = [sum(1 for e in ends[j] if e > now) for j in range(n)]
            i = min((j for j in range(n) if w[j] > 0), key=lambda j: (active[j] * 256, j))
        else:
            assert userspace is not None
            i = eps.index(userspace(client, now))
        if mode == "ipvs-lc":
            ends[i] = [e for e in ends[i] if e > now] + [now + duration]
        last[client] = (i, now)
        choices.append(i)
        served[i].add(client)
        reached.setdefault(client, set()).add(i)
    counts = {e: 0 for e in eps}
    for i in choices:
        counts[eps[i]] += 1
    shares = [float(x) for x in w] if mode in ("ipvs-wrr", "ipvs-lc") and weights is not None else None
    stat = chi_square(list(counts.values()), shares) if connections else 0.0
    return BalanceResult(mode, tuple(eps), counts, connections, stat, chi_square_p_value(stat, n - 1),
                         session_affinity_timeout_seconds, {eps[j]: len(served[j]) for j in range(n)},
                         {c: len(s) for c, s in sorted(reached.items())}, tuple(choices))


def _userspace_balancer(eps: list[str], seed: int, session_affinity_timeout_seconds: int | None):
    """A ``client ip, now -> endpoint`` callable over :class:`kubenotes.proxy.userspace.LoadBalancerRR`.

    The balancer shuffles the endpoints once (seeded) and keeps its own
    ClientIP affinity map, as the userspace proxier did.
    """
    from kubenotes.proxy.endpoints import ServicePortName
    from kubenotes.proxy.userspace import LoadBalancerRR

    lb = LoadBalancerRR(rng=random.Random(seed))
    spn = ServicePortName("default", "web", "")
    if session_affinity_timeout_seconds is None:
        lb.new_service(spn, "None", 0)
    else:
        lb.new_service(spn, "ClientIP", session_affinity_timeout_seconds)
    lb.set_endpoints(spn, eps)
    ports = random.Random(seed + 1)

    def pick(client: str, now: float) -> str:
        return lb.next_endpoint(spn, f"{client}:{ports.randrange(32768, 61000)}", now_seconds=now)

    return pick
