"""Felix's NetworkPolicy rules at scale: K NetworkPolicies over P pods behind S Services, as Felix renders them.

Builds ``--namespaces`` Namespaces (label ``team``), ``--pods`` pods spread
over them and over ``--nodes`` nodes (labels ``app=app-<k>`` and, for one pod
in four, ``role=client``), ``--services`` ClusterIP Services each selecting
one app (their endpoints are the app's pods) and ``--policies``
NetworkPolicies, each selecting one app of its namespace: ingress from
``role=client`` pods of the namespace on a port range, from pods of the
namespaces with a ``team`` label on a named port, and from an ``ipBlock``
with one ``except``; one policy in four also has egress to a ``namespaceSelector``
on TCP and UDP 53. Then times:

* ``PolicySet``: compiling the policies into Felix's rule model;
* ``felix_rules(node)``: one node's filter table and the IP sets (what one Felix renders);
* ``felix_rules(all)``: every pod's endpoint chains at once (the whole cluster's rules);
* ``iptables_restore``/``ipset_restore``: the texts, with size in bytes and lines;
* ``iptables-restore --test``: the real binary on one node's text, with its IP sets
  created by netlink in a throwaway network namespace (``--no-restore`` skips it);
* nftables mode (``nftablesMode: Enabled``): the same rules re-spelt as the ``ip calico``
  table (``nft_rules_from_felix``), the ``nft -f`` text's size, and the real ``nft -c -f``
  on it in a throwaway network namespace (also skipped by ``--no-restore``);
* ``evaluate``: 10,000 flow verdicts (both ends) from the same rule model;
* with ``--services``, kube-proxy's ``iptables_save`` for the same cluster, for scale.

Reports wall and CPU seconds per step (and, for ``iptables-restore`` and ``nft -c``, the
child's CPU user+sys), rule and chain counts, and the peak RSS;
``--restore-all`` also feeds every pod's rules at once to ``iptables-restore --test`` and ``nft -c``.

Usage: python benchmarks/policy_rules.py [--pods 10000] [--policies 1000] [--services 1000] [--nodes 100]
[--restore-all]
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import time

_SLICE_SIZE = 100


def _ip(k: int, first: int) -> str:
    return f"{first}.{(k >> 16) & 255}.{(k >> 8) & 255}.{k & 255}"


def objects(pods: int, policies: int, services: int, namespaces: int, nodes: int) -> list[dict]:
    """Namespaces, Nodes, Pods (with status.podIP), Services with EndpointSlices, NetworkPolicies."""
    apps_per_ns = max(1, pods // namespaces // 10)  # about 10 pods an app
    objs: list[dict] = [{"kind": "Namespace", "metadata": {"name": f"ns-{n:03d}", "labels": {"team": f"t{n % 10}"}}}
                        for n in range(namespaces)]
    objs += [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"node-{i}"},
              "spec": {"podCIDR": f"10.{i >> 8}.{i & 255}.0/24"},
              "status": {"addresses": [{"type": "InternalIP", "address": _ip(i + 1, 192)}]}} for i in range(nodes)]
    by_app: dict[tuple[str, str], list[str]] = {}
    for k in range(pods):
        ns, app = f"ns-{k % namespaces:03d}", f"app-{(k // namespaces) % apps_per_ns}"
        labels = {"app": app} | ({"role": "client"} if k % 4 == 0 else {})
        ip = _ip(k + 1, 10)
        by_app.setdefault((ns, app), []).append(ip)
        objs.append({"apiVersion": "v1", "kind": "Pod",
                     "metadata": {"name": f"pod-{k:05d}", "namespace": ns, "labels": labels},
                     "spec": {"nodeName": f"node-{(k + k // namespaces) % nodes}", "containers": [
                         {"name": "c", "ports": [{"name": "http", "containerPort": 8080},
                                                 {"name": "metrics", "containerPort": 9090}]}]},
                     "status": {"podIP": ip}})
    keys = sorted(by_app)
    for i in range(services):
        ns, app = keys[i % len(keys)]
        name = f"svc-{i:05d}"
        objs.append({"apiVersion": "v1", "kind": "Service", "metadata": {"namespace": ns, "name": name},
                     "spec": {"type": "ClusterIP", "clusterIP": _ip(i, 172), "clusterIPs": [_ip(i, 172)],
                              "selector": {"app": app},
                              "ports": [{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP"}]}})
        ips = by_app[(ns, app)]
        for s in range(0, len(ips), _SLICE_SIZE):
            objs.append({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                         "metadata": {"namespace": ns, "name": f"{name}-{s // _SLICE_SIZE}",
                                      "labels": {"kubernetes.io/service-name": name}}, "addressType": "IPv4",
                         "endpoints": [{"addresses": [a], "conditions": {"ready": True}}
                                       for a in ips[s:s + _SLICE_SIZE]],
                         "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}]})
    for i in range(policies):
        ns, app = keys[i % len(keys)]
        spec: dict = {"podSelector": {"matchLabels": {"app": app}}, "policyTypes": ["Ingress"], "ingress": [
            {"from": [{"podSelector": {"matchLabels": {"role": "client"}}}],
             "ports": [{"port": 8000 + i % 50, "endPort": 8100}]},
            {"from": [{"namespaceSelector": {"matchExpressions": [{"key": "team", "operator": "Exists"}]},
                       "podSelector": {"matchLabels": {"app": f"app-{(i + 1) % apps_per_ns}"}}}],
             "ports": [{"port": "metrics"}]},
            {"from": [{"ipBlock": {"cidr": "172.16.0.0/12", "except": [f"172.16.{i % 256}.0/24"]}}]}]}
        if i % 4 == 0:
            spec["policyTypes"].append("Egress")
            spec["egress"] = [{"to": [{"namespaceSelector": {"matchLabels": {"team": f"t{i % 10}"}}}],
                               "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]}]
        objs.append({"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
                     "metadata": {"namespace": ns, "name": f"np-{i:04d}"}, "spec": spec})
    return objs


_CPU: list[float] = []  # CPU seconds of each _timed call, in order (wall clock is inflated on a loaded machine)


def _timed(fn):
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    _CPU.append(time.process_time() - c0)
    return out, time.perf_counter() - t0


def _child_timed(name: str, fn) -> tuple:
    """A row for a step that runs a child process: wall, return code, the child's CPU user+sys."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r, t = _timed(fn)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return (name, t, r.returncode, None, f"CPU {cpu:.2f} s" + ("" if r.returncode == 0 else f": {r.stderr.strip()[:200]}"))


def run(pods: int, policies: int, services: int, namespaces: int, nodes: int, restore: bool = True,
        restore_all: bool = False, flows: int = 10000) -> list[tuple]:
    from kubenotes.cni.calico.iptables import check_iptables_restore, felix_rules
    from kubenotes.cni.calico.nftables import check_nft, nft_rules_from_felix
    from kubenotes.cni.calico.policy import EGRESS, INGRESS, Endpoint, PolicySet

    objs = objects(pods, policies, services, namespaces, nodes)
    rows: list[tuple] = []
    _CPU.clear()
    ps, t = _timed(lambda: PolicySet(objs))
    rows.append(("PolicySet (compile)", t, None, None, f"{len(ps)} policies"))
    one, t = _timed(lambda: felix_rules(objs, "node-0", policies=ps))
    rows.append(("felix_rules(node-0)", t, one.rule_count, len(one.chains),
                 f"{len(one.ipsets)} ipsets, {sum(len(m) for _, m in one.ipsets.values())} members"))
    text, t = _timed(one.iptables_restore)
    rows.append(("  iptables_restore text", t, len(text.encode()), text.count("\n"), "bytes, lines"))
    sets, t = _timed(one.ipset_restore)
    rows.append(("  ipset_restore text", t, len(sets.encode()), sets.count("\n"), "bytes, lines"))
    if restore:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        r, t = _timed(lambda: check_iptables_restore(one))
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        rows.append(("  iptables-restore --test", t, r.returncode, None,
                     f"CPU {cpu:.2f} s" + ("" if r.returncode == 0 else f": {r.stderr.strip()[:200]}")))
    nft_one, t = _timed(lambda: nft_rules_from_felix(one, ps))
    rows.append(("nftables: nft_rules_from_felix(node-0)", t, nft_one.rule_count, len(nft_one.chains) + 1,
                 f"{len(nft_one.sets)} sets, {sum(len(m) for m in nft_one.maps.values())} vmap elements"))
    nft_text, t = _timed(nft_one.nft_transaction)
    rows.append(("  nft -f text", t, len(nft_text.encode()), nft_text.count("\n"), "bytes, lines"))
    if restore:
        rows.append(_child_timed("  nft -c -f", lambda: check_nft(nft_one)))
    every, t = _timed(lambda: felix_rules(objs, None, policies=ps))
    rows.append(("felix_rules(all pods)", t, every.rule_count, len(every.chains), f"{len(every.ipsets)} ipsets"))
    text_all, t = _timed(every.iptables_restore)
    rows.append(("  iptables_restore text", t, len(text_all.encode()), text_all.count("\n"), "bytes, lines"))
    nft_every, t = _timed(lambda: nft_rules_from_felix(every, ps))
    rows.append(("nftables: nft_rules_from_felix(all)", t, nft_every.rule_count, len(nft_every.chains) + 1,
                 f"{len(nft_every.sets)} sets"))
    nft_all_text, t = _timed(nft_every.nft_transaction)
    rows.append(("  nft -f text", t, len(nft_all_text.encode()), nft_all_text.count("\n"), "bytes, lines"))
    eps = [Endpoint.from_pod(o, o["status"]["podIP"]) for o in objs if o["kind"] == "Pod"]
    rng = random.Random(0)
    sample = [(rng.choice(eps), rng.choice(eps), rng.choice(("TCP", "UDP")), rng.choice((53, 8050, 8080, 9090)))
              for _ in range(flows)]
    allowed, t = _timed(lambda: sum(ps.evaluate(s, d, p, n, EGRESS).allowed and ps.evaluate(s, d, p, n, INGRESS).allowed
                                    for s, d, p, n in sample))
    rows.append((f"evaluate {flows:,} flows", t, allowed, None, "allowed (both ends)"))
    if services:
        from kubenotes.proxy.endpoints import proxy_state
        from kubenotes.proxy.iptables import iptables_save

        state, t1 = _timed(lambda: proxy_state(objs, "node-0"))
        kp, t2 = _timed(lambda: iptables_save(state))
        rows.append(("kube-proxy iptables_save(node-0)", t1 + t2, len(kp.encode()), kp.count("\n"), "bytes, lines"))
        _CPU[-2:] = [_CPU[-2] + _CPU[-1]]
    if restore_all:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        r, t = _timed(lambda: check_iptables_restore(every))
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        rows.append(("iptables-restore --test (all pods)", t, r.returncode, None,
                     f"CPU {cpu:.2f} s" + ("" if r.returncode == 0 else f": {r.stderr.strip()[:200]}")))
        rows.append(_child_timed("nft -c -f (all pods)", lambda: check_nft(nft_every)))
    return [row[:1] + (row[1], cpu) + row[2:] for row, cpu in zip(rows, _CPU)]


def format_rows(rows: list[tuple]) -> str:
    out = [f"{'step':40} {'wall s':>8} {'CPU s':>7} {'count/size':>12} {'chains/lines':>12}  note"]
    for name, t, cpu, a, b, note in rows:
        out.append(f"{name:40} {t:8.3f} {cpu:7.3f} {'' if a is None else a:>12} {'' if b is None else b:>12}  {note}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out.append(f"peak RSS {peak / 1024:.0f} MiB")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pods", type=int, default=10000, help="number of pods (default 10000)")
    p.add_argument("--policies", type=int, default=1000, help="number of NetworkPolicies (default 1000)")
    p.add_argument("--services", type=int, default=1000, help="number of Services (default 1000; 0: no kube-proxy)")
    p.add_argument("--namespaces", type=int, default=100, help="number of namespaces (default 100)")
    p.add_argument("--nodes", type=int, default=100, help="number of nodes (default 100)")
    p.add_argument("--no-restore", action="store_true", help="skip the real iptables-restore --test and nft -c")
    p.add_argument("--restore-all", action="store_true",
                   help="also run iptables-restore --test and nft -c on every pod's rules at once (slow)")
    args = p.parse_args(argv)
    t0 = time.process_time()
    rows = run(args.pods, args.policies, args.services, args.namespaces, args.nodes, not args.no_restore,
               args.restore_all)
    print(format_rows(rows))
    print(f"CPU (this process) {time.process_time() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
