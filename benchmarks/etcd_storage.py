"""Writes per second through the model's API server: the embedded store vs a real etcd.

Issue #27 asks for "writes/s of the in-memory store vs real etcd through the
model's API server", side by side in one run. For each backend this creates
``--objects`` ConfigMaps through :meth:`APIServer.client` (authentication,
admission, validation, the store), then updates each once and deletes each
once, and reports, per phase, writes per second and the latency of one
write (p50/p99, ms). Backends: ``memory`` (the default store) and real etcd
3.4 members started on loopback by :class:`kubenotes.etcd.members.EtcdCluster`
(``--members 1 3``: each size is one run; 3 members make every write a quorum
round trip). Each etcd write is one HTTP request to the v3 JSON gateway
(a txn), which fsyncs etcd's WAL before it answers.

Usage: python benchmarks/etcd_storage.py [--objects 500] [--members 1 3]
"""

from __future__ import annotations

import argparse
import statistics
import time


def _bench(storage, objects: int) -> dict[str, dict[str, float]]:
    from kubenotes.apiserver.server import APIServer

    api = APIServer(storage=storage)
    c = api.client("kubectl")
    c.create("namespaces", {"metadata": {"name": "bench"}})
    out: dict[str, dict[str, float]] = {}

    def phase(name, fn):
        lat = []
        t0 = time.perf_counter()
        for i in range(objects):
            t = time.perf_counter()
            fn(i)
            lat.append(time.perf_counter() - t)
        wall = time.perf_counter() - t0
        lat.sort()
        out[name] = {"writes_per_second": objects / wall, "p50_ms": 1000 * statistics.median(lat),
                     "p99_ms": 1000 * lat[min(len(lat) - 1, int(0.99 * len(lat)))]}

    phase("create", lambda i: c.create("configmaps", {"metadata": {"name": f"cm-{i}"}, "data": {"k": "v"}}, "bench"))

    def update(i):
        cm = c.get("configmaps", f"cm-{i}", "bench")
        cm["data"] = {"k": "w"}
        c.update("configmaps", cm)

    phase("get+update", update)
    phase("delete", lambda i: c.delete("configmaps", f"cm-{i}", "bench"))
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--objects", type=int, default=500)
    p.add_argument("--members", type=int, nargs="*", default=[1, 3])
    args = p.parse_args(argv)
    from kubenotes.apiserver.storage.etcd3 import EtcdStorage
    from kubenotes.etcd.members import EtcdCluster

    rows = [("memory", _bench(None, args.objects))]
    for n in args.members:
        with EtcdCluster(n) as cluster:
            storage = EtcdStorage(cluster.leader().client_url)
            rows.append((f"etcd x{n}", _bench(storage, args.objects)))
            storage.close()
    print(f"{args.objects} ConfigMaps through the model's API server (writes/s, one write's latency p50/p99 ms)")
    print(f"{'backend':<10} {'create':>22} {'get+update':>22} {'delete':>22}")
    for name, r in rows:
        cells = [f"{r[k]['writes_per_second']:8.0f}/s {r[k]['p50_ms']:5.2f}/{r[k]['p99_ms']:5.2f}"
                 for k in ("create", "get+update", "delete")]
        print(f"{name:<10} " + " ".join(f"{c:>22}" for c in cells))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
