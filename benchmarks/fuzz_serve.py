"""Fuzz ``kubenotes serve`` over HTTPS from its own OpenAPI documents and report what it answers.

Starts ``serve`` on a free loopback port (a small cluster: one node, the
controllers, the scheduler, the clock running at ``--time-scale``), loads
``/openapi/v3/<group-version>`` for core v1, apps/v1, batch/v1 and
rbac.authorization.k8s.io/v1 with schemathesis, and sends every operation
``--examples`` generated requests (valid and invalid bodies and query
parameters), operation after operation, until all are sent or ``--seconds``
pass. Reports:

* requests sent, wall seconds, requests per second;
* status classes (2xx, 4xx, 5xx) and the most frequent codes;
* every 5xx, with the request that caused it (none is the goal: issue #31);
* requests the client itself gave up on (Python's ``http.client`` refuses an answer with more than 100
  headers, as a body with hundreds of unknown fields gets one ``Warning`` header each under the default
  ``fieldValidation=Warn``).

As in ``tests/apiserver/test_fuzz_openapi.py``, watches and followed logs are
sent without ``watch``/``follow`` and namespaced paths use ``default``.

Usage: python benchmarks/fuzz_serve.py [--examples 25] [--seconds 600] [--time-scale 1] [--seed 31] [--json]
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time

DOCS = ("api/v1", "apis/apps/v1", "apis/batch/v1", "apis/rbac.authorization.k8s.io/v1")
TOKEN = "fuzz-serve-token"

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"},
        "status": {"capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"},
                   "allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"}}}


def _sender(op, examples: int, seed: int, deadline: float, session, auth: dict, codes: collections.Counter,
            server_errors: list[dict], client_errors: list[str]):
    """One operation's hypothesis test: ``examples`` generated requests, each answer counted."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed

    @hypothesis_seed(seed)
    @given(case=op.as_strategy())
    @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck),
              phases=[Phase.explicit, Phase.generate])
    def send(case):
        if time.monotonic() > deadline:
            return
        if case.query:
            case.query.pop("watch", None)
            case.query.pop("follow", None)
        if case.path_parameters and "namespace" in case.path_parameters:
            case.path_parameters["namespace"] = "default"
        try:
            r = case.call(session=session, headers=auth, timeout=30, verify=session.verify)
        except Exception as e:  # noqa: BLE001 - the client gave up (http.client takes at most 100 headers)
            codes["client error"] += 1
            client_errors.append(f"{op.method.upper()} {case.formatted_path}: {type(e).__name__}: {str(e)[:200]}")
            return
        codes[r.status_code] += 1
        if r.status_code >= 500:
            server_errors.append({"method": op.method.upper(), "path": case.formatted_path, "query": case.query,
                                  "body": str(case.body)[:300], "code": r.status_code, "answer": r.text[:300]})

    return send


def run(examples: int, seconds: float, time_scale: float, seed: int) -> dict:
    import requests
    import schemathesis

    from kubenotes.sim.cluster import Cluster
    from kubenotes.sim.serve import serve

    served = serve(Cluster([NODE]), port=0, time_scale=time_scale, token=TOKEN)
    auth = {"Authorization": f"Bearer {TOKEN}"}
    session = requests.Session()
    session.verify = served.ca_path
    codes: collections.Counter = collections.Counter()
    server_errors: list[dict] = []
    client_errors: list[str] = []
    deadline = time.monotonic() + seconds
    started = time.monotonic()
    operations = 0
    try:
        for doc in DOCS:
            schema = schemathesis.openapi.from_url(f"{served.url}/openapi/v3/{doc}", headers=auth,
                                                   verify=served.ca_path)
            for result in schema.get_all_operations():
                if time.monotonic() > deadline:
                    break
                op = result.ok()
                operations += 1

                _sender(op, examples, seed, deadline, session, auth, codes, server_errors, client_errors)()
    finally:
        served.stop()
    wall = time.monotonic() - started
    classes = collections.Counter()
    for code, n in codes.items():
        classes[f"{code // 100}xx" if isinstance(code, int) else code] += n
    total = sum(codes.values())
    return {"operations": operations, "requests": total, "wall_seconds": round(wall, 1),
            "requests_per_second": round(total / wall, 1) if wall else 0.0,
            "classes": dict(sorted(classes.items())), "top_codes": dict(codes.most_common(8)),
            "server_errors": server_errors, "client_errors": client_errors[:20]}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--examples", type=int, default=25, help="generated requests per operation (default 25)")
    p.add_argument("--seconds", type=float, default=600, help="wall-clock budget (default 600)")
    p.add_argument("--time-scale", type=float, default=1.0, help="virtual seconds per wall second (default 1)")
    p.add_argument("--seed", type=int, default=31, help="hypothesis seed (default 31)")
    p.add_argument("--json", action="store_true", help="print the report as one JSON document")
    a = p.parse_args(argv)
    report = run(a.examples, a.seconds, a.time_scale, a.seed)
    if a.json:
        print(json.dumps(report, indent=1))
    else:
        print(f"operations {report['operations']}, requests {report['requests']} in {report['wall_seconds']} s "
              f"({report['requests_per_second']}/s)")
        print("status classes:", ", ".join(f"{k} {v}" for k, v in report["classes"].items()))
        print("most frequent codes:", ", ".join(f"{k}: {v}" for k, v in report["top_codes"].items()))
        print(f"5xx: {len(report['server_errors'])}")
        for e in report["client_errors"]:
            print(f"  client error (not an answer): {e}")
        for e in report["server_errors"]:
            print(f"  {e['method']} {e['path']} {e['query']} {e['body'][:120]} -> {e['code']} {e['answer'][:200]}")
    return 1 if report["server_errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
