"""The ``kubenotes`` command line: ``validate``, ``schedule``, ``replay``, ``simulate``, ``serve``, ``kube-proxy``, ``packet``, ``etcd``, ``calico``.

``validate`` lives here. Other subcommands live next to the component they
drive and register themselves: each module listed in :data:`SUBCOMMANDS` (by
a small function here that imports it) exposes ``register(subparsers)``, which
adds one parser and sets ``func`` with ``set_defaults(func=...)``;
``func(args)`` returns the exit status (``None`` means 0). A subcommand's
module is imported only when that subcommand runs, so that ``--help`` and
``validate`` do not pay for the simulator's imports. Errors kubenotes raises
on purpose (:class:`~kubenotes.errors.KubenotesError`) are printed as their
one-line message on stderr with exit status 2, never as a traceback.

Exit statuses: 0 success, 1 the command ran and found a problem (e.g. a pod
that cannot be scheduled; subcommands decide), 2 bad input or usage, 130
interrupted (Ctrl-C).

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/kubectl/pkg/cmd/util/helpers.go (CheckErr: one line on stderr, no stack)
"""

from __future__ import annotations

import argparse
import os
import sys
from types import SimpleNamespace
from typing import Any, Callable, Iterable, Sequence

from kubenotes.errors import KubenotesError
from kubenotes.features import add_feature_gates_flag

__all__ = ["PROG", "SUBCOMMANDS", "EXIT_OK", "EXIT_FOUND", "EXIT_USAGE", "EXIT_INTERRUPTED",
           "build_parser", "register", "summarize", "main"]

PROG = "kubenotes"
EXIT_OK = 0
EXIT_FOUND = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


def _register_schedule(subparsers: Any) -> None:
    from kubenotes.scheduler.cli import register as register_schedule

    register_schedule(subparsers)


def _register_replay(subparsers: Any) -> None:
    from kubenotes.replay.cli import register as register_replay

    register_replay(subparsers)


def _register_simulate(subparsers: Any) -> None:
    from kubenotes.sim.cli import register as register_simulate

    register_simulate(subparsers)


def _register_serve(subparsers: Any) -> None:
    from kubenotes.sim.serve_cli import register as register_serve

    register_serve(subparsers)


def _register_kube_proxy(subparsers: Any) -> None:
    from kubenotes.sim.proxy_cli import register as register_kube_proxy

    register_kube_proxy(subparsers)


def _register_packet(subparsers: Any) -> None:
    from kubenotes.sim.packet_cli import register as register_packet

    register_packet(subparsers)


def _register_etcd(subparsers: Any) -> None:
    from kubenotes.etcd.members import register as register_etcd

    register_etcd(subparsers)


def _register_calico(subparsers: Any) -> None:
    from kubenotes.cni.calico.cli import register as register_calico

    register_calico(subparsers)


#: Subcommands registered from other modules: ``(name, register(subparsers), one-line help)``; each
#: ``register`` imports its module (``kubenotes.scheduler.cli``...) when called.
SUBCOMMANDS: tuple[tuple[str, Callable[[Any], None], str], ...] = (
    ("schedule", _register_schedule, "run the scheduler on a cluster and pending pods from manifests"),
    ("replay", _register_replay, "replay a recorded trace of pods through the simulated cluster"),
    ("simulate", _register_simulate, "run the control plane on a virtual clock from manifests and a scenario"),
    ("serve", _register_serve, "serve a simulated cluster on 127.0.0.1 for the real kubectl"),
    ("kube-proxy", _register_kube_proxy, "print the rules kube-proxy programs on a node (iptables, ipvs or nftables)"),
    ("packet", _register_packet, "walk a packet between pods or to a Service through Calico's dataplane"),
    ("etcd", _register_etcd, "start local etcd members on loopback (Debian's etcd-server) until Ctrl-C"),
    ("calico", _register_calico, "print what Calico's Felix programs for NetworkPolicy (iptables text)"),
)
_EXTERNAL = frozenset(name for name, _, _ in SUBCOMMANDS)


# ---------------------------------------------------------------------------
# validate


def _fmt_resources(rl: dict[str, int]) -> str:
    from kubenotes.api.quantity import format_quantity

    if not rl:
        return "none"
    order = {"cpu": 0, "memory": 1, "ephemeral-storage": 2, "pods": 3}
    return " ".join(f"{k}={format_quantity(v, k)}" for k, v in sorted(rl.items(), key=lambda kv: (order.get(kv[0], 9), kv[0])))


def _template_requests(template: Any) -> str:
    from kubenotes.api.resources import pod_requests

    if template is None or template.spec is None:
        return "none"
    return _fmt_resources(pod_requests(SimpleNamespace(spec=template.spec)))


def _qos(pod: Any) -> str:
    from kubenotes.api.qos import pod_qos_class

    return str(pod_qos_class(pod))


def _summary_pod(pod: Any) -> str:
    from kubenotes.api.resources import pod_requests

    spec = pod.spec
    parts = [f"requests {_fmt_resources(pod_requests(pod))}"]
    qos = _qos(pod)
    if qos:
        parts.append(f"qos {qos}")
    prio = f"priority {spec.priority if spec.priority is not None else 0}"
    if spec.priorityClassName:
        prio += f" ({spec.priorityClassName})"
    parts.append(prio)
    parts.append(f"node {spec.nodeName}" if spec.nodeName else "pending")
    return ", ".join(parts)


def _summary_node(node: Any) -> str:
    from kubenotes.api.resources import resource_list

    md, st = node.metadata, node.status
    labels = md.labels or {}
    parts = []
    zone = labels.get("topology.kubernetes.io/zone")
    if zone:
        parts.append(f"zone {zone}")
    alloc = resource_list(st.allocatable if st is not None else None, "status.allocatable")
    alloc = {k: v for k, v in alloc.items() if v or k in ("cpu", "memory", "pods")}
    parts.append(f"allocatable {_fmt_resources(alloc)}")
    taints = node.spec.taints if node.spec is not None else None
    if taints:
        parts.append("taints " + " ".join(
            f"{t.key}{'=' + t.value if t.value else ''}:{t.effect}" for t in taints))
    if node.spec is not None and node.spec.unschedulable:
        parts.append("unschedulable")
    return ", ".join(parts)


def _summary_workload(obj: Any) -> str:
    spec = obj.spec
    parts = []
    if getattr(spec, "replicas", None) is not None:
        parts.append(f"replicas {spec.replicas}")
    parts.append(f"pod requests {_template_requests(spec.template)}")
    return ", ".join(parts)


def _summary_job(job: Any) -> str:
    s = job.spec
    parts = []
    if s.completions is not None:
        parts.append(f"completions {s.completions}")
    if s.parallelism is not None:
        parts.append(f"parallelism {s.parallelism}")
    parts.append(f"pod requests {_template_requests(s.template)}")
    return ", ".join(parts)


def _summary_cronjob(cj: Any) -> str:
    s = cj.spec
    return f"schedule {s.schedule!r}, pod requests {_template_requests(s.jobTemplate.spec.template)}"


def _summary_priority_class(pc: Any) -> str:
    parts = [f"value {pc.value}"]
    if pc.globalDefault:
        parts.append("globalDefault")
    if pc.preemptionPolicy:
        parts.append(f"preemptionPolicy {pc.preemptionPolicy}")
    return ", ".join(parts)


def _summary_namespace(ns: Any) -> str:
    labels = ns.metadata.labels or {}
    return "labels " + (",".join(f"{k}={v}" for k, v in labels.items()) if labels else "none")


def _summary_service(svc: Any) -> str:
    s = svc.spec
    ports = " ".join(f"{p.port}/{p.protocol or 'TCP'}" for p in s.ports or ())
    sel = ",".join(f"{k}={v}" for k, v in (s.selector or {}).items())
    parts = [f"type {s.type or 'ClusterIP'}"]
    if s.clusterIP == "None":
        parts.append("headless")
    if ports:
        parts.append(f"ports {ports}")
    parts.append(f"selector {sel or 'none'}")
    return ", ".join(parts)


def _summary_pvc(pvc: Any) -> str:
    from kubenotes.api.resources import resource_list

    s = pvc.spec
    req = resource_list(s.resources.requests if s.resources is not None else None, "spec.resources.requests")
    parts = [f"requests {_fmt_resources(req)}"]
    if s.storageClassName:
        parts.append(f"storageClass {s.storageClassName}")
    if s.volumeName:
        parts.append(f"volume {s.volumeName}")
    return ", ".join(parts)


def _summary_pdb(pdb: Any) -> str:
    s = pdb.spec
    if s.minAvailable is not None:
        return f"minAvailable {s.minAvailable}"
    if s.maxUnavailable is not None:
        return f"maxUnavailable {s.maxUnavailable}"
    return ""


def _summary_network_policy(np: Any) -> str:
    s = np.spec
    sel = s.podSelector
    labels = ",".join(f"{k}={v}" for k, v in ((sel.matchLabels if sel is not None else None) or {}).items())
    if sel is not None and sel.matchExpressions:
        labels = (labels + "," if labels else "") + f"{len(sel.matchExpressions)} expression(s)"
    parts = [f"podSelector {labels or '<all pods>'}"]
    if s.policyTypes:
        parts.append("policyTypes " + ",".join(s.policyTypes))
    parts.append(f"{len(s.ingress or ())} ingress, {len(s.egress or ())} egress rule(s)")
    return ", ".join(parts)


def _summary_scenario(doc: dict) -> str:
    steps = (doc.get("spec") or {}).get("steps") or []
    if not steps:
        return "no steps"
    last = max(float(st.get("at", 0)) for st in steps)
    actions = sorted({k for st in steps for k in st if k != "at"})
    return f"{len(steps)} step(s) until {last:g} s: {', '.join(actions)}"


def _summary_scheduler_config(cfg: dict) -> str:
    profiles = cfg.get("profiles") or [{}]
    names = [str((p or {}).get("schedulerName") or "default-scheduler") for p in profiles]
    return "profiles " + " ".join(names)


_SUMMARIES: dict[str, Callable[[Any], str]] = {
    "Pod": _summary_pod,
    "Node": _summary_node,
    "Deployment": _summary_workload,
    "ReplicaSet": _summary_workload,
    "ReplicationController": _summary_workload,
    "StatefulSet": _summary_workload,
    "DaemonSet": _summary_workload,
    "Job": _summary_job,
    "CronJob": _summary_cronjob,
    "PriorityClass": _summary_priority_class,
    "Namespace": _summary_namespace,
    "Service": _summary_service,
    "PersistentVolumeClaim": _summary_pvc,
    "PodDisruptionBudget": _summary_pdb,
    "NetworkPolicy": _summary_network_policy,
    "KubeSchedulerConfiguration": _summary_scheduler_config,
    "Scenario": _summary_scenario,
}


def summarize(loaded: Any) -> str:
    """One line describing a loaded object, as ``kubenotes validate`` prints it.

    Parameters
    ----------
    loaded : kubenotes.api.manifests.LoadedObject

    Returns
    -------
    str
        ``source doc N Kind namespace/name`` followed, for kinds with a
        summary, by ``: `` and the summary (a Node's allocatable resources, a
        Pod's effective requests, QoS class and priority...).

    Raises
    ------
    FieldError
        When a quantity in the object is malformed (the loader has already
        rejected those, so only for hand-built objects).

    Examples
    --------
    >>> from kubenotes.api.manifests import load_manifests
    >>> m = load_manifests('''apiVersion: scheduling.k8s.io/v1
    ... kind: PriorityClass
    ... metadata: {name: high-priority}
    ... value: 1000000
    ... ''', defaults=False)
    >>> summarize(m.objects[0])
    '<string> doc 1 PriorityClass high-priority: value 1000000'
    """
    fn = _SUMMARIES.get(loaded.kind)
    text = fn(loaded.obj) if fn is not None else ""
    return f"{loaded.location}: {text}" if text else loaded.location


def _cmd_validate(args: argparse.Namespace) -> int:
    from kubenotes.api.manifests import load_manifests

    m = load_manifests(*args.paths, defaults=False, feature_gates=args.feature_gates)
    if not args.no_defaults:
        from kubenotes.apiserver.load import load_through_api_server

        m = load_through_api_server(m, feature_gates=args.feature_gates)
    if any(o.kind == "Scenario" for o in m):
        from kubenotes.sim.scenario import parse_scenario

        for o in m:  # a malformed scenario is bad input like any manifest (ManifestError, exit 2)
            if o.kind == "Scenario":
                parse_scenario(o.obj, o.source, o.doc)
    if not args.quiet:
        for o in m:
            print(summarize(o))
    counts: dict[str, int] = {}
    for o in m:
        counts[o.kind] = counts.get(o.kind, 0) + 1
    detail = ", ".join(f"{n} {k}" for k, n in counts.items())
    print(f"{len(m)} objects valid" + (f" ({detail})" if detail else ""))
    return EXIT_OK


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``validate`` subcommand.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        From ``ArgumentParser.add_subparsers``.

    Returns
    -------
    argparse.ArgumentParser
        The ``validate`` parser (``func`` set to the command).
    """
    p = subparsers.add_parser(
        "validate",
        help="load manifests as the API server would and print one line per object",
        description="Load Kubernetes manifests (files, directories, or - for stdin) through the API "
                    "server's request path as simulate and serve do (defaulting, admission: "
                    "NamespaceLifecycle, LimitRanger, ServiceAccount, Priority, DefaultTolerationSeconds, "
                    "DefaultStorageClass, PersistentVolumeClaimResize, DefaultIngressClass, ResourceQuota; validation), and print one line per object as stored. Exit status 2 "
                    "and a one-line error on stderr when an object would be rejected.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="YAML/JSON file, directory, or - for stdin")
    p.add_argument("--no-defaults", action="store_true",
                   help="only decode and check the manifests (no API server: no defaulting, admission or validation)")
    p.add_argument("-q", "--quiet", action="store_true", help="print only the final count")
    add_feature_gates_flag(p)
    p.set_defaults(func=_cmd_validate)
    return p


# ---------------------------------------------------------------------------
# parser and main


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("kubenotes")
    except Exception:
        return "unknown"


def _register_stub(subparsers: Any, name: str, help_text: str) -> None:
    """List a subcommand in ``--help`` without importing its module (it is imported when used)."""
    p = subparsers.add_parser(name, help=help_text, add_help=False)
    p.add_argument("rest", nargs=argparse.REMAINDER)


def build_parser(load: Iterable[str] | None = None) -> argparse.ArgumentParser:
    """The ``kubenotes`` argument parser with every subcommand registered.

    Parameters
    ----------
    load : iterable of str, optional
        Names of the :data:`SUBCOMMANDS` whose modules are imported and
        registered for real; the others only appear in ``--help``. Default:
        all of them. :func:`main` imports just the one being run, so that
        ``kubenotes validate`` does not pay for the simulator's imports.

    Returns
    -------
    argparse.ArgumentParser

    Examples
    --------
    >>> sorted(build_parser(load=())._subparsers._group_actions[0].choices)
    ['calico', 'etcd', 'kube-proxy', 'packet', 'replay', 'schedule', 'serve', 'simulate', 'validate']
    """
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Models of Kubernetes internals (v1.34) driven from real manifests.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    register(sub)
    wanted = None if load is None else set(load)
    for name, register_subcommand, help_text in SUBCOMMANDS:
        if wanted is None or name in wanted:
            register_subcommand(sub)
        else:
            _register_stub(sub, name, help_text)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments without the program name (default ``sys.argv[1:]``).

    Returns
    -------
    int
        0 success, 1 a finding reported by a subcommand, 2 bad input or usage
        (the one-line error is on stderr), 130 interrupted.
    """
    try:
        argv = list(sys.argv[1:] if argv is None else argv)
        command = argv[0] if argv else None
        parser = build_parser(load=[command] if command in _EXTERNAL else ())
        args = parser.parse_args(argv)
        func = getattr(args, "func", None)
        if func is None:
            parser.print_help(sys.stderr)
            return EXIT_USAGE
        rc = func(args)
        sys.stdout.flush()
        return EXIT_OK if rc is None else int(rc)
    except KubenotesError as e:
        print(str(e), file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # Output closed early (``kubenotes validate ... | head``): exit quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_FOUND
    except OSError as e:
        name = e.filename if e.filename is not None else PROG
        print(f"{name}: {(e.strerror or str(e)).lower()}", file=sys.stderr)
        return EXIT_USAGE
