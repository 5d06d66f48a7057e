"""``python -m kubenotes simulate MANIFEST... [--until SECONDS] [--seed N] [--kubelet model|stand-in] [--instant|--realistic] [-o events|yaml|table|wide] [--etcd URL]``.

Runs a :class:`~kubenotes.sim.cluster.Cluster` from manifests (and any
``kind: Scenario`` documents among them) on the virtual clock, then prints:

* ``-o events``: one JSON object per line for every committed API write and
  every scenario action, in time order (``time``, ``component``, ``verb``,
  ``kind``, ``namespace``, ``name``, ``resourceVersion``, ``detail``);
  Kubernetes Events appear as writes of ``kind: Event`` whose detail is
  ``reason: message``; with the kubelet model (the default) each node's container runtime
  adds its actions (``"component": "cri/<node>"``, see :func:`node_events`);
* ``-o yaml``: the objects at ``--until`` as one ``kind: List``, shaped as
  ``kubectl get all,nodes,events -A -o yaml`` prints them;
* ``-o table``: ``kubectl get``-style tables per kind; ``-o wide`` adds their wide
  columns (a pod's IP and node, as ``kubectl get -o wide``);
* ``-o cri``: the CRI calls the kubelet model made to each node's container
  runtime, one JSON object per line in time order (``time``, ``node``,
  ``service``, ``method``, ``duration_seconds``, ``request``, ``response``,
  ``error``; see :func:`cri_calls`), what ``crictl`` and the runtime's debug
  log would show of a pod start.

Bad input (a manifest or a malformed scenario) is one line on stderr and exit 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Mapping

from kubenotes.apiserver.storage.options import add_etcd_flags, etcd_options
from kubenotes.features import add_feature_gates_flag

__all__ = ["register", "run", "node_events", "cri_calls", "YAML_RESOURCES"]

#: What ``kubectl get all,nodes,events -A`` lists, in its order.
YAML_RESOURCES = ("pods", "services", "daemonsets", "deployments", "replicasets", "statefulsets",
                  "horizontalpodautoscalers", "cronjobs", "jobs", "replicationcontrollers", "nodes", "events")


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``simulate`` subcommand."""
    p = subparsers.add_parser(
        "simulate", help="run the control plane on a virtual clock from manifests and a scenario",
        description="Run API server, controllers, scheduler and stand-in kubelets on a deterministic virtual "
                    "clock. A 'kind: Scenario' document (apiVersion kubenotes.io/v1) among the manifests "
                    "adds timed actions.")
    p.add_argument("manifests", nargs="+", metavar="MANIFEST", help="files, directories, or - for stdin")
    p.add_argument("--until", type=float, default=600.0, metavar="SECONDS",
                   help="virtual seconds to run (default 600)")
    p.add_argument("--seed", type=int, default=0, help="seed for uids, names and every component (default 0)")
    p.add_argument("-o", "--output", choices=("events", "yaml", "table", "wide", "cri"), default="events",
                   help="events (JSON lines), yaml (kind: List), table, wide (tables with kubectl's -o wide "
                        "columns: pod IPs and nodes), or cri (the kubelet model's CRI calls as JSON lines) "
                        "(default events)")
    p.add_argument("--kubelet", choices=("model", "stand-in"), default=None,
                   help="model (default, unless a scenario's spec.cluster.kubelet says otherwise: the kubelet over a CRI runtime: volumes, sandboxes, pulls, probes, "
                        "restarts; -o events adds its and the runtime's actions) or stand-in (hollow kubelets: "
                        "pods run 2 s after binding, for scale runs)")
    costs = p.add_mutually_exclusive_group()
    costs.add_argument("--instant", dest="costs", action="store_const", const="instant", default=None,
                       help="every API request takes zero virtual time, even if a scenario's "
                            "spec.cluster.requestCosts asks for costs (the default without one)")
    costs.add_argument("--realistic", dest="costs", action="store_const", const="realistic",
                       help="client-side rate limits at each component's upstream QPS/burst and each request's "
                            "latency (handler chain, etcd quorum round trip and fsync) on the virtual clock; "
                            "a scenario's spec.cluster.requestCosts refines them")
    add_feature_gates_flag(p)
    add_etcd_flags(p)
    p.set_defaults(func=_cmd)
    return p


def run(sources: list[Any], until: float = 600.0, seed: int = 0, kubelet: str | None = None,
        network: dict | None = None, feature_gates: Any = None, etcd: Mapping[str, Any] | None = None,
        costs: str | None = None) -> Any:
    """Load manifests and scenarios, run the cluster until ``until``; returns the Cluster.

    The scenarios' ``spec.cluster`` (:func:`~kubenotes.sim.scenario.cluster_options`)
    says which kubelet and controllers run and with which kube-controller-manager
    flags; ``kubelet`` (``--kubelet``) wins over it, and without either the
    kubelet model runs. ``network`` (e.g. ``{"mode": "ipip"}``) wins over the keys of
    the scenarios' ``spec.cluster.network`` (:func:`~kubenotes.sim.scenario.cluster_options`).
    ``feature_gates`` (``--feature-gates``) is the cluster's
    (:class:`~kubenotes.features.FeatureGate`, mapping, string or None).

    Parameters
    ----------
    sources : list of str, Path or YAML text
        What ``simulate`` is given: files, directories, ``-`` for stdin.
    until : float
        Virtual seconds to run (``--until``).
    seed : int
        Seeds uids, generated names and every component (``--seed``).
    kubelet : {"model", "stand-in"}, optional
        ``--kubelet``; wins over ``spec.cluster.kubelet``.
    network : dict, optional
        Keys of ``spec.cluster.network`` that win over the scenarios' (a notebook
        running one cluster in several Calico modes).
    feature_gates : FeatureGate, mapping, str or None
        ``--feature-gates``; None: v1.34's defaults.
    etcd : mapping, optional
        ``--etcd`` and ``--etcd-compaction-interval`` as Cluster keywords
        (:func:`kubenotes.apiserver.storage.options.etcd_options`); None: the embedded store.
    costs : {"instant", "realistic"}, optional
        ``--instant``: no request costs whatever the scenarios say;
        ``--realistic``: client rate limits and request latency
        (:class:`~kubenotes.sim.costs.RequestCosts`, refined by a scenario's
        ``spec.cluster.requestCosts``); None: as the scenarios say (instant without
        ``requestCosts``).

    Returns
    -------
    kubenotes.sim.cluster.Cluster
        Stopped at ``until``: its objects, audit log, kubelets and (with a
        ``network``) its Calico state ``cluster.network``.

    Raises
    ------
    ManifestError
        For bad input, before anything runs.
    kubenotes.cni.calico.dataplane.CalicoError
        A Node Calico cannot address (no IPv4 ``InternalIP``).

    See Also
    --------
    kubenotes.sim.network.cluster_packet_walk : a packet's walk over a run's state.

    Examples
    --------
    >>> from kubenotes.data import sample
    >>> c = run([sample("network", "calico.yaml")], until=60, network={"mode": "ipip"})
    >>> c.network.mode, [(p["metadata"]["name"], p["status"]["podIP"]) for p in c.list("pods")][:2]
    ('ipip', [('client', '192.168.41.129'), ('web-0-0', '192.168.41.130')])
    """
    from kubenotes.api.manifests import load_manifests
    from kubenotes.sim.cluster import Cluster
    from kubenotes.sim.scenario import cluster_options, parse_scenario, start_scenario

    m = load_manifests(*sources, defaults=False, feature_gates=feature_gates)
    scenarios = [parse_scenario(o.obj, o.source, o.doc) for o in m if o.kind == "Scenario"]
    objects = [o for o in m if not isinstance(o.obj, dict)]
    options = cluster_options(scenarios, kubelet, network)
    if costs == "instant":
        options.pop("request_costs", None)
    elif costs == "realistic" and "request_costs" not in options:
        from kubenotes.sim.costs import RequestCosts

        options["request_costs"] = RequestCosts()
    cluster = Cluster(objects, seed=seed, feature_gates=feature_gates, **options, **(etcd or {}))
    for s in scenarios:
        start_scenario(cluster, s)
    cluster.run(until=until)
    return cluster


def node_events(cluster: Any) -> list[dict]:
    """The API's committed writes merged, in time order, with the container runtimes' own actions.

    The kubelet's actions are API writes (``"component": "kubelet/<node>"``: pod
    status, the node's status and Lease, its Events ``Pulling``, ``Started``,
    ``Killing``, ``BackOff``...). With the kubelet model each node's CRI runtime
    adds what it did, which no API write shows (``"component": "cri/<node>"``,
    the verb the runtime's action: ``SandboxStarted``, ``ImagePulled``,
    ``ContainerStarted``, ``OOMKilled``...).
    """
    out = [e.to_dict() for e in cluster.audit_log]
    for node, kubelet in sorted(getattr(cluster, "kubelets", {}).items()):
        runtime = getattr(kubelet, "runtime", None)
        for ev in getattr(runtime, "events", None) or []:
            out.append({"time": ev["time"], "component": ev.get("component") or f"cri/{node}",
                        "verb": ev.get("event", ""), "kind": ev.get("kind", ""), "namespace": "",
                        "name": ev.get("id", ""), "resourceVersion": "", "detail": ev.get("message", "")})
    return sorted(out, key=lambda e: e["time"])  # stable: same-time entries keep their source order


def cri_calls(cluster: Any) -> list[dict]:
    """Every CRI call the kubelet models made to their nodes' runtimes, in time order (``-o cri``).

    Parameters
    ----------
    cluster : Cluster
        A finished run (:func:`run`).

    Returns
    -------
    list of dict
        ``time`` (virtual seconds the call began), ``node``, ``service``
        (``RuntimeService`` or ``ImageService``), ``method`` (as in
        ``api.proto``: ``RunPodSandbox``, ``PullImage``...),
        ``duration_seconds``, ``request`` and ``response`` (the messages as
        sent and answered) and ``error`` (the runtime's message, or None).
        Nodes served by the stand-in kubelet have no runtime and add nothing.

    Raises
    ------
    AttributeError
        When ``cluster`` has no ``kubelets``.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto

    Examples
    --------
    >>> from kubenotes.data import sample
    >>> calls = cri_calls(run([sample("kubelet", "pod-start.yaml")], until=5))
    >>> [c["method"] for c in calls if c["method"] in ("RunPodSandbox", "PullImage")][:2]
    ['RunPodSandbox', 'PullImage']
    """
    out = []
    for node, kubelet in sorted(cluster.kubelets.items()):
        for t in getattr(getattr(kubelet, "runtime", None), "trace", None) or ():
            out.append({"time": t["time"], "node": node, "service": t["service"], "method": t["method"],
                        "duration_seconds": t["duration_seconds"], "request": t["request"],
                        "response": t["response"], "error": t["error"]})
    return sorted(out, key=lambda c: c["time"])  # stable: one node's calls keep their order


def _cmd(args: argparse.Namespace) -> int:
    if args.until < 0:
        print(f"kubenotes simulate: --until must be >= 0, got {args.until}", file=sys.stderr)
        return 2
    etcd = etcd_options(args)
    if etcd:  # a wrong or unreachable --etcd is one line before any manifest is read
        from kubenotes.apiserver.storage.etcd3 import connect

        connect(etcd["etcd"]).session.close()
    cluster = run(args.manifests, args.until, args.seed, args.kubelet,
                  feature_gates=getattr(args, "feature_gates", None), etcd=etcd,
                  costs=getattr(args, "costs", None))
    out = sys.stdout
    if args.output == "events":
        for e in node_events(cluster):
            out.write(json.dumps(e, separators=(", ", ": ")) + "\n")
    elif args.output == "cri":
        for c in cri_calls(cluster):
            out.write(json.dumps(c, separators=(", ", ": "), default=str) + "\n")
    elif args.output == "yaml":
        from kubenotes.api.manifests import dump_manifests

        items = []
        for r in YAML_RESOURCES:
            items.extend(cluster.list(r))
        out.write(dump_manifests([{"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""},
                                   "items": items}]))
    else:
        from kubenotes.apiserver.tables import format_tables

        out.write(format_tables(cluster, YAML_RESOURCES, wide=args.output == "wide"))
    return 0
