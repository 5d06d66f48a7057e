"""``python -m kubenotes simulate MANIFEST... [--until SECONDS] [--seed N] [--kubelet model|stand-in] [--instant|--realistic] [-o events|yaml|table|wide] [--kinds R,...] [--etcd URL]``.

Runs a :class:`~kubenotes.sim.cluster.Cluster` from manifests (and any
``kind: Scenario`` documents among them) on the virtual clock, then prints:

* ``-o events``: one JSON object per line for every committed API write and
  every scenario action, in time order (``time``, ``component``, ``verb``,
  ``kind``, ``namespace``, ``name``, ``resourceVersion``, ``detail``);
  Kubernetes Events appear as writes of ``kind: Event`` whose detail is
  ``reason: message``; with the kubelet model (the default) each node's container runtime
  adds its actions (``"component": "cri/<node>"``, see :func:`node_events`);
* ``-o yaml``: every object at ``--until`` as one ``kind: List``, shaped as
  ``kubectl get all,nodes,events,... -A -o yaml`` prints them: first the
  ``kubectl get all,nodes,events`` set, then every other listable resource
  in discovery order (ConfigMaps, Leases, PersistentVolumeClaims,
  PodDisruptionBudgets, RBAC...; see :func:`output_resources`);
* ``-o table``: ``kubectl get``-style tables per kind, for the same resources; ``-o wide`` adds their wide
  columns (a pod's IP and node, as ``kubectl get -o wide``);
* ``--kinds pods,pdb,cm`` narrows ``-o yaml``/``table``/``wide`` (and ``-o events``: the writes of
  those kinds) to those resources, in that order; each is a name ``kubectl get`` accepts
  (plural, singular, kind, short name, ``resource.group``), and ``all`` is the
  ``kubectl get all`` set;
* ``-o cri``: the CRI calls the kubelet model made to each node's container
  runtime, one JSON object per line in time order (``time``, ``node``,
  ``service``, ``method``, ``duration_seconds``, ``request``, ``response``,
  ``error``; see :func:`cri_calls`), what ``crictl`` and the runtime's debug
  log would show of a pod start;
* ``-o csi``: the CSI calls made to the cluster's CSI driver models (the
  external-attacher's ``ControllerPublishVolume``..., node-driver-registrar's
  ``NodeGetInfo``), one JSON object per line in time order (see
  :func:`kubenotes.sim.csi.csi_calls`).

API requests take realistic time by default: each component's client waits for
its upstream QPS/burst token bucket, and each request takes the API server's
handler chain plus, for a write, etcd's quorum round trip and fsync
(:mod:`kubenotes.sim.costs`). A scenario's ``spec.cluster.requestCosts`` states
its file's mode (``instant``, ``realistic``, or a mapping refining the
realistic defaults); ``--instant`` (zero virtual time per request, for when only
the order of events matters) and ``--realistic`` win over the files.

Bad input (a manifest or a malformed scenario) is one line on stderr and exit 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Mapping

from kubenotes.apiserver.status import ApiError
from kubenotes.apiserver.storage.options import add_etcd_flags, etcd_options
from kubenotes.features import add_feature_gates_flag

__all__ = ["register", "run", "build", "node_events", "cri_calls", "output_resources", "YAML_RESOURCES", "GET_ALL"]

#: What ``kubectl get all`` lists (the ``all`` category), in its order.
GET_ALL = ("pods", "services", "daemonsets", "deployments", "replicasets", "statefulsets",
           "horizontalpodautoscalers", "cronjobs", "jobs", "replicationcontrollers")
#: What ``kubectl get all,nodes,events -A`` lists, in its order: the head of ``-o yaml``/``table``.
YAML_RESOURCES = GET_ALL + ("nodes", "events")
#: Listable but not state: ComponentStatus is a live probe of the control plane's components
#: (upstream's componentstatus REST stores nothing).
_NOT_STATE = ("componentstatuses",)


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
    p.add_argument("-o", "--output", choices=("events", "yaml", "table", "wide", "cri", "csi"), default="events",
                   help="events (JSON lines), yaml (kind: List), table, wide (tables with kubectl's -o wide "
                        "columns: pod IPs and nodes), cri (the kubelet model's CRI calls as JSON lines) or csi "
                        "(the CSI driver models' calls as JSON lines) (default events)")
    p.add_argument("--kubelet", choices=("model", "stand-in"), default=None,
                   help="model (default, unless a scenario's spec.cluster.kubelet says otherwise: the kubelet over a CRI runtime: volumes, sandboxes, pulls, probes, "
                        "restarts; -o events adds its and the runtime's actions) or stand-in (hollow kubelets: "
                        "pods run 2 s after binding, for scale runs)")
    p.add_argument("--kinds", default=None, metavar="R,...",
                   help="only these resources, in this order (names as kubectl get takes them: pods,pdb,cm,"
                        "leases.coordination.k8s.io; 'all' is kubectl get all's set); for -o yaml, table, wide "
                        "and events (default: every listable resource, the kubectl get all,nodes,events set first)")
    costs = p.add_mutually_exclusive_group()
    costs.add_argument("--instant", dest="costs", action="store_const", const="instant", default=None,
                       help="every API request takes zero virtual time, whatever the scenarios' "
                            "spec.cluster.requestCosts says (for when only the order of events matters)")
    costs.add_argument("--realistic", dest="costs", action="store_const", const="realistic",
                       help="client-side rate limits at each component's upstream QPS/burst and each request's "
                            "latency (handler chain, etcd quorum round trip and fsync) on the virtual clock, even "
                            "if a scenario says 'requestCosts: instant'; a requestCosts mapping refines them. "
                            "Default: as the scenarios' spec.cluster.requestCosts says, realistic without it")
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
        ``spec.cluster.requestCosts`` mapping) even where a scenario says
        ``instant``; None: as the scenarios' ``spec.cluster.requestCosts`` says,
        realistic without it (:data:`~kubenotes.sim.costs.DEFAULT_REQUEST_COSTS`).

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
    cluster = build(sources, seed, kubelet, network, feature_gates, costs=costs, **(etcd or {}))
    cluster.run(until=until)
    return cluster


def build(sources: list[Any], seed: int = 0, kubelet: str | None = None, network: dict | None = None,
          feature_gates: Any = None, costs: str | None = None, **cluster_kwargs: Any) -> Any:
    """A cluster from manifests, with their ``kind: Scenario`` documents started on its clock (not yet run).

    What ``simulate`` runs to ``--until`` and ``serve`` runs on its wall-paced
    clock: the scenarios' ``spec.cluster`` picks the kubelet, controllers and
    flags (:func:`~kubenotes.sim.scenario.cluster_options`), and each scenario's
    steps happen at their ``at`` on the cluster's virtual clock, however it is advanced.

    Parameters
    ----------
    sources, seed, kubelet, network, feature_gates, costs
        As for :func:`run`.
    **cluster_kwargs
        More :class:`~kubenotes.sim.cluster.Cluster` keywords (``epoch`` for ``serve``).

    Returns
    -------
    kubenotes.sim.cluster.Cluster
        At virtual time 0; ``cluster.scenarios`` lists the parsed scenarios.

    Raises
    ------
    ManifestError
        For bad input, before anything runs.

    Examples
    --------
    >>> from kubenotes.data import sample
    >>> c = build([sample("controllers", "scale.yaml")])
    >>> c.now, [s.name for s in c.scenarios]
    (0.0, ['replicaset-scale'])
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
    cluster = Cluster(objects, seed=seed, feature_gates=feature_gates, **options, **cluster_kwargs)
    cluster.scenarios = scenarios
    for s in scenarios:
        start_scenario(cluster, s)
    return cluster


def output_resources(kinds: str | None = None) -> tuple[str, ...]:
    """The resources ``-o yaml``/``table`` print, in order: every listable one, or those ``--kinds`` names.

    Parameters
    ----------
    kinds : str, optional
        ``--kinds``: comma-separated names as ``kubectl get`` accepts them
        (``pods``, ``pod``, ``po``, ``Pod``, ``leases.coordination.k8s.io``);
        ``all`` is :data:`GET_ALL`. Repeats are printed once. None: :data:`YAML_RESOURCES`,
        then every other resource with the ``list`` verb in discovery order
        (ComponentStatus left out: a live probe, not stored state).

    Returns
    -------
    tuple of str
        Plural resource names, for ``cluster.list``.

    Raises
    ------
    ApiError
        400 for a name no resource has (kubectl's ``the server doesn't have a
        resource type "x"``), or a resource that cannot be listed.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/kubectl/pkg/cmd/get/get.go (several resources, ``all``)

    Examples
    --------
    >>> output_resources("pdb,cm,pod,po")
    ('poddisruptionbudgets', 'configmaps', 'pods')
    >>> output_resources()[:3], "leases" in output_resources(), "componentstatuses" in output_resources()
    (('pods', 'services', 'daemonsets'), True, False)
    """
    from kubenotes.apiserver.resources import RESOURCES, resource_for
    from kubenotes.apiserver.status import new_bad_request

    if kinds is None:
        rest = [r.resource for r in RESOURCES if "list" in r.verbs and r.resource not in YAML_RESOURCES
                and r.resource not in _NOT_STATE]
        return YAML_RESOURCES + tuple(rest)
    out: list[str] = []
    for name in (k.strip() for k in kinds.split(",")):
        if not name:
            continue
        names = GET_ALL if name == "all" else (resource_for(name).resource,)
        for r in names:
            if "list" not in resource_for(r).verbs:
                raise new_bad_request(f'resource type "{name}" cannot be listed')
            if r not in out:
                out.append(r)
    if not out:
        raise new_bad_request("--kinds names no resource")
    return tuple(out)


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
    kinds = getattr(args, "kinds", None)
    if kinds is not None and args.output in ("cri", "csi"):
        print(f"kubenotes simulate: --kinds applies to -o yaml, table, wide and events, not {args.output}",
              file=sys.stderr)
        return 2
    try:
        resources = output_resources(kinds)
    except ApiError as e:
        print(f"kubenotes simulate: --kinds {kinds}: {e}", file=sys.stderr)
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
        from kubenotes.apiserver.resources import resource_for

        wanted = None if kinds is None else {resource_for(r).kind for r in resources}
        for e in node_events(cluster):
            if wanted is None or e["kind"] in wanted:
                out.write(json.dumps(e, separators=(", ", ": ")) + "\n")
    elif args.output == "cri":
        for c in cri_calls(cluster):
            out.write(json.dumps(c, separators=(", ", ": "), default=str) + "\n")
    elif args.output == "csi":
        from kubenotes.sim.csi import csi_calls

        for c in csi_calls(cluster):
            out.write(json.dumps(c, separators=(", ", ": "), default=str) + "\n")
    elif args.output == "yaml":
        from kubenotes.api.manifests import dump_manifests

        items = []
        for r in resources:
            items.extend(cluster.list(r))
        out.write(dump_manifests([{"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""},
                                   "items": items}]))
    else:
        from kubenotes.apiserver.tables import format_tables

        out.write(format_tables(cluster, resources, wide=args.output == "wide"))
    return 0
