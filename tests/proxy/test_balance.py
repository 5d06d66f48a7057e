"""Seeded load-balancing simulations (kubenotes.proxy.balance).

Ported cases:

* ``test_probability_strings`` follows kubernetes/kubernetes@v1.34.0
  pkg/proxy/iptables/proxier_test.go expected dumps (``--probability
  0.3333333333`` then ``0.5000000000`` for three endpoints, none on the last).
* ``test_wrr_sequence_from_lvs`` is the Linux Virtual Server documentation's
  Weighted Round-Robin example (weights 4, 3, 2 give ``AABABCABC``), which
  net/netfilter/ipvs/ip_vs_wrr.c implements.
* ``test_round_robin_*`` follow kubernetes/kubernetes@v1.26.0
  pkg/proxy/userspace/roundrobin_test.go ``TestLoadBalanceWorksWithMultipleEndpoints``
  (endpoints in turn) and ``TestStickyLoadBalanceWorksWithMultipleEndpoints``
  (a client keeps its endpoint).
"""

from __future__ import annotations

import random

import pytest

from kubenotes.proxy.balance import (
    DEFAULT_CLIENT_IP_AFFINITY_SECONDS,
    MODES,
    chi_square,
    chi_square_p_value,
    iptables_pick,
    iptables_probabilities,
    iptables_probability_strings,
    simulate_connections,
)


def test_probability_strings():
    assert iptables_probability_strings(3) == ["0.3333333333", "0.5000000000", None]
    assert iptables_probability_strings(1) == [None]
    assert iptables_probabilities(2) == [0.5, None]


@pytest.mark.parametrize("n", [1, 2, 3, 7])
def test_chain_gives_each_endpoint_one_nth(n):
    # product of "not taken before" and "taken here" is 1/n for every endpoint
    probs = iptables_probabilities(n)
    reach, overall = 1.0, []
    for p in probs:
        p = 1.0 if p is None else p
        overall.append(reach * p)
        reach *= 1 - p
    assert overall == pytest.approx([1.0 / n] * n)


def test_iptables_pick_frequencies():
    rng = random.Random(1)
    counts = [0, 0, 0, 0]
    for _ in range(40_000):
        counts[iptables_pick(rng, 4)] += 1
    assert all(abs(c - 10_000) < 400 for c in counts)


def test_iptables_random_is_uniform_but_not_exact():
    r = simulate_connections(3, "iptables", seed=0)
    assert sum(r.counts.values()) == 10_000 and r.connections == 10_000
    assert len(set(r.counts.values())) > 1            # random: not exactly 3334/3333/3333
    assert r.p_value > 0.01 and r.chi_square < 9.21     # ... but consistent with uniform (df 2, 1 %)
    assert simulate_connections(3, "iptables", seed=0) == r    # seeded
    assert simulate_connections(3, "iptables", seed=1).counts != r.counts


def test_round_robin_endpoints_in_turn():
    for mode in ("ipvs-rr", "ipvs-wrr"):
        r = simulate_connections(["a:1", "b:1", "c:1"], mode, connections=7)
        assert r.choices == (0, 1, 2, 0, 1, 2, 0), mode
        assert r.counts == {"a:1": 3, "b:1": 2, "c:1": 2}
    # LoadBalancerRR shuffles the endpoints once (seeded), then takes them in turn
    u = simulate_connections(["a:1", "b:1", "c:1"], "userspace", connections=9, seed=5)
    assert sorted(u.choices[:3]) == [0, 1, 2] and u.choices[3:6] == u.choices[:3] == u.choices[6:]
    assert set(u.counts.values()) == {3}


def test_userspace_affinity_is_the_load_balancers():
    r = simulate_connections(3, "userspace", clients=10, session_affinity_timeout_seconds=10800, seed=2)
    assert set(r.endpoints_per_client.values()) == {1}
    short = simulate_connections(3, "userspace", clients=1, connections=6, interval_seconds=100,
                                 session_affinity_timeout_seconds=50)
    assert sorted(short.choices[:3]) == [0, 1, 2]          # affinity expired before every connection


def test_round_robin_exactly_uniform():
    r = simulate_connections(4, "ipvs-rr")
    assert set(r.counts.values()) == {2500} and r.chi_square == 0.0 and r.p_value == 1.0


def test_wrr_sequence_from_lvs():
    r = simulate_connections(["A", "B", "C"], "ipvs-wrr", weights=[4, 3, 2], connections=9)
    assert "".join("ABC"[i] for i in r.choices) == "AABABCABC"
    big = simulate_connections(["A", "B", "C"], "ipvs-wrr", weights=[4, 3, 2], connections=9000)
    assert big.counts == {"A": 4000, "B": 3000, "C": 2000} and big.chi_square == 0.0


def test_wrr_zero_weight_never_chosen():
    r = simulate_connections(["A", "B"], "ipvs-wrr", weights=[0, 1], connections=10)
    assert r.counts == {"A": 0, "B": 10}


def test_least_connection_prefers_idle_servers():
    # long connections, arriving faster than they end: lc keeps the active counts level
    r = simulate_connections(3, "ipvs-lc", connections=3000, mean_duration_seconds=50.0, seed=3)
    assert r.choices[:3] == (0, 1, 2)
    assert max(r.counts.values()) - min(r.counts.values()) < 300
    # with no overlap every server is idle and the first one always wins
    idle = simulate_connections(3, "ipvs-lc", connections=50, mean_duration_seconds=0.0)
    assert idle.counts[idle.endpoints[0]] == 50


def test_client_ip_affinity_sticks_each_client():
    r = simulate_connections(3, "iptables", session_affinity_timeout_seconds=DEFAULT_CLIENT_IP_AFFINITY_SECONDS,
                             clients=20, seed=4)
    assert set(r.endpoints_per_client.values()) == {1}
    assert sum(r.clients_per_endpoint.values()) == 20
    assert r.p_value < 1e-6        # 20 sticky clients: far from uniform per connection
    rr = simulate_connections(3, "ipvs-rr", session_affinity_timeout_seconds=10800, clients=20, seed=4)
    assert set(rr.endpoints_per_client.values()) == {1}
    no_affinity = simulate_connections(3, "iptables", clients=20, seed=4)
    assert max(no_affinity.endpoints_per_client.values()) == 3


def test_affinity_expires_after_timeout():
    # one client, a connection every 100 s, a 50 s timeout: affinity never applies, round robin continues
    r = simulate_connections(3, "ipvs-rr", clients=1, connections=6, interval_seconds=100,
                             session_affinity_timeout_seconds=50)
    assert r.choices == (0, 1, 2, 0, 1, 2)
    kept = simulate_connections(3, "ipvs-rr", clients=1, connections=6, interval_seconds=100,
                                session_affinity_timeout_seconds=150)
    assert kept.choices == (0,) * 6


def test_chi_square_and_p_value():
    assert chi_square([10, 10]) == 0.0 and chi_square([20, 0]) == 20.0
    assert chi_square([40, 20], [2, 1]) == 0.0
    assert chi_square_p_value(0.0, 2) == 1.0
    assert chi_square_p_value(9.210, 2) == pytest.approx(0.01, abs=1e-4)
    assert chi_square_p_value(100.0, 3) < 1e-20
    assert chi_square_p_value(30.0, 30) == pytest.approx(0.4657, abs=1e-3)


def test_bad_input():
    with pytest.raises(ValueError, match="mode must be one of"):
        simulate_connections(3, "maglev")
    with pytest.raises(ValueError, match="at least 1"):
        simulate_connections(0)
    with pytest.raises(ValueError, match="weights has 2 entries for 3 endpoints"):
        simulate_connections(3, "ipvs-wrr", weights=[1, 2])
    assert set(MODES) == {"iptables", "ipvs-rr", "ipvs-wrr", "ipvs-lc", "userspace"}


def _pick_from_strings(rng: random.Random, n: int) -> int:
    """The chain walk from the printed probabilities, one rule at a time (what the thresholds precompute)."""
    for i, p in enumerate(iptables_probability_strings(n)):
        if p is None or rng.getrandbits(31) < round(0x80000000 * float(p)):
            return i
    raise ValueError("no endpoints")


@pytest.mark.parametrize("n", [1, 2, 3, 7, 10])
def test_precomputed_thresholds_pick_as_the_printed_probabilities(n):
    a, b = random.Random(5), random.Random(5)
    assert [iptables_pick(a, n) for _ in range(2000)] == [_pick_from_strings(b, n) for _ in range(2000)]
    # the whole run: every connection's endpoint as a walk over the printed strings gives it
    rng = random.Random(3)
    clients = [f"192.168.0.{1 + i}" for i in range(20)]
    expected = []
    for _ in range(500):
        rng.randrange(len(clients))
        rng.expovariate(1.0 / 30.0)
        expected.append(_pick_from_strings(rng, n))
    assert simulate_connections(n, "iptables", connections=500, clients=20, seed=3).choices == tuple(expected)
