"""``kubenotes schedule``: run kube-scheduler's loop over manifests and print what it decided.

``python -m kubenotes schedule MANIFEST [MANIFEST ...] [--config FILE] [--seed N] [-o table|summary|json|kss] [--top N]``

* MANIFEST is a YAML/JSON file (several documents allowed), a directory, or
  ``-`` for stdin. Nodes, Pods and the objects plugins read (Services,
  PDBs, PriorityClasses, and for the volume plugins PersistentVolumeClaims,
  PersistentVolumes, StorageClasses, CSINodes, CSIDrivers,
  CSIStorageCapacities and VolumeAttachments...) are loaded through the API
  server's request path, as ``validate``, ``simulate`` and ``serve`` load them
  (:func:`kubenotes.apiserver.load.load_through_api_server`: decoding, field validation,
  defaulting, dropping of disabled fields, the default admission chain with
  NamespaceLifecycle, LimitRanger, ServiceAccount, Priority and ResourceQuota,
  validation). An object the API server refuses is bad input: one line naming
  the file, document and object, then the API server's words, exit status 2,
  as ``validate``. A pod created from a manifest gets its ``creationTimestamp``
  from the API server (time zero), as ``kubectl apply -f`` does; the objects
  of a ``kubectl get -o yaml`` dump (they carry a ``uid``) are restored as
  they were.
* No API server or PV controller runs: VolumeBinding's choices (a PV's
  ``claimRef``, a claim's ``volume.kubernetes.io/selected-node``) are
  assumed for the pods scheduled after, and its PreBind does not wait.
* Pods with ``spec.nodeName`` are running. The others are pending and, when
  their ``schedulerName`` is the profile's, scheduled in queue order, each
  placement assumed before the next pod. A pod bound to a node that is not in
  the input is ignored with a warning on stderr.
* The KubeSchedulerConfiguration comes from ``--config`` or from a MANIFEST
  document; the first profile is used.

Output (``-o``):

``table`` (default)
    One row per scheduling attempt: NAMESPACE NAME NODE PRIORITY QOS MESSAGE.
``summary``
    For large inputs (a 150,000-pod cluster): pods scheduled, unschedulable
    and gated, preemptions, the unschedulable pods counted by FailedScheduling
    reason, and the ``--top`` nodes that received the most pods.
``json``
    ``{"pods": [...]}``, one record per attempt in the order made (a
    preempting pod appears again when retried), then one per pod held back by
    scheduling gates; see :meth:`kubenotes.scheduler.schedule_one.AttemptTrace.to_dict`.
``kss``
    The pods as multi-document YAML carrying kube-scheduler-simulator's
    annotations (``kube-scheduler-simulator.sigs.k8s.io/filter-result`` ...).

``table`` and ``summary`` need no per-plugin results, so they run the
untraced scheduler (``trace=False``: batch Filter/Score over numpy arrays,
see :mod:`kubenotes.scheduler.batch`), which makes the same decisions and
writes the same messages; ``json`` and ``kss`` run the traced one.

Exit status: 0 when every pending pod of the profile was bound, 1 when some
was not, 2 for bad input (invalid manifest or configuration: upstream's
one-line message on stderr).

References
----------
kubernetes/kubernetes@v1.34.0 cmd/kube-scheduler/app/server.go
https://github.com/kubernetes-sigs/kube-scheduler-simulator (simulator/docs/debuggable-scheduler.md)
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import Any, Iterable, TextIO

import yaml

from kubenotes.errors import ConfigError
from kubenotes.features import add_feature_gates_flag
from kubenotes.gcpolicy import exit_without_teardown, no_gc_passes

__all__ = [
    "ANNOTATION_PREFIX",
    "register",
    "run_schedule",
    "format_table",
    "format_summary",
    "FAST_OUTPUTS",
    "to_json",
    "to_kss_documents",
]

#: Prefix of kube-scheduler-simulator's result annotations.
ANNOTATION_PREFIX = "kube-scheduler-simulator.sigs.k8s.io/"
#: Output formats that need no per-plugin trace: the command runs the untraced (batch) scheduler for them.
FAST_OUTPUTS = frozenset({"table", "summary"})


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``schedule`` subcommand to ``kubenotes``.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction

    Returns
    -------
    argparse.ArgumentParser
        The ``schedule`` parser, with ``func`` set.
    """
    p = subparsers.add_parser(
        "schedule",
        help="run the scheduler on a cluster and pending pods from manifests",
        description="Schedule the pending pods of the manifests with kube-scheduler v1.34's algorithm "
                    "(default profile, or the KubeSchedulerConfiguration given) and print each attempt.",
    )
    p.add_argument("manifests", nargs="+", metavar="MANIFEST", help="YAML/JSON file, directory, or - for stdin")
    p.add_argument("--config", metavar="FILE", help="KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1)")
    p.add_argument("--seed", type=int, default=0, metavar="N", help="seed of the tie-breaking random source (default 0)")
    p.add_argument("-o", "--output", choices=("table", "summary", "json", "kss"), default="table",
                   help="output format (default table; summary for large clusters)")
    p.add_argument("--top", type=int, default=10, metavar="N", help="nodes listed by -o summary (default 10)")
    add_feature_gates_flag(p)
    p.set_defaults(func=_cmd_schedule)
    return p


def _warn(msg: str) -> None:
    print(f"warning: {msg}", file=sys.stderr)


def run_schedule(sources: Iterable[Any], *, config_file: str | None = None, seed: int = 0,
                 warn: Any = _warn, trace: bool = True, feature_gates: Any = None) -> tuple[Any, list[Any]]:
    """Load manifests and configuration, then run the scheduler to completion.

    Parameters
    ----------
    sources : iterable
        Manifest sources for :func:`kubenotes.api.manifests.load_manifests`.
    config_file : str, optional
        Path of a KubeSchedulerConfiguration (wins over one in the manifests).
    seed : int
    warn : callable(str)
    trace : bool
        Build per-node, per-plugin results (``json``/``kss``). False runs the
        untraced scheduler: same bindings, nominations, victims and messages,
        without the ``filter``/``score`` maps.
    feature_gates : FeatureGate, mapping, str or None
        ``--feature-gates``: the API server's gates (fields of disabled gates
        dropped or refused as it does).

    Returns
    -------
    (Scheduler, list[AttemptTrace])
        The scheduler after the run and every attempt, then the gated pods' traces.

    Raises
    ------
    ManifestError
        Bad manifest, or an object the API server refuses (file, document, object, then its message).
    ConfigError
        Invalid configuration, with upstream's validation message.

    Notes
    -----
    The cyclic garbage collector does not run meanwhile (:func:`kubenotes.gcpolicy.no_gc_passes`).
    """
    from kubenotes.api.manifests import load_manifests
    from kubenotes.apiserver.load import load_through_api_server

    with no_gc_passes():
        m = load_through_api_server(load_manifests(*sources, defaults=False, feature_gates=feature_gates),
                                    feature_gates=feature_gates)
        return _run_schedule(m, config_file, seed, warn, trace)


def _run_schedule(m: Any, config_file: str | None, seed: int, warn: Any, trace: bool) -> tuple[Any, list[Any]]:
    from kubenotes.scheduler.config import load_config, load_config_file
    from kubenotes.scheduler.schedule_one import new_scheduler
    from kubenotes.scheduler.snapshot import cluster_objects_from_manifests

    if config_file is not None:
        cfg = load_config_file(config_file)
    elif m.scheduler_configs:
        if len(m.scheduler_configs) > 1:
            warn(f"{len(m.scheduler_configs)} KubeSchedulerConfiguration documents given; using the first")
        cfg = load_config(m.scheduler_configs[0])
    else:
        cfg = None
    if cfg is not None and len(cfg.profiles) > 1:
        warn(f"{len(cfg.profiles)} profiles configured; scheduling pods of the first ({cfg.profiles[0].scheduler_name})")
    try:
        sched = new_scheduler(m.nodes, m.pods, config=cfg, objects=cluster_objects_from_manifests(m), seed=seed, warn=warn,
                              trace=trace)
    except ConfigError as e:
        name = cfg.profiles[0].scheduler_name if cfg is not None else "default-scheduler"
        raise ConfigError(f"initializing profiles: creating profile for scheduler name {name}: {e}") from None
    traces = sched.run()
    traces.extend(sched.gated_traces())
    return sched, traces


def to_json(traces: Iterable[Any]) -> str:
    """``{"pods": [record, ...]}`` with 2-space indentation.

    Each record has exactly the keys ``namespace``, ``name``, ``nodeName``,
    ``qosClass``, ``priority``, ``filter``, ``score``, ``finalScore``,
    ``totalScore``, ``message``, ``nominatedNodeName`` and ``victims``.
    """
    return json.dumps({"pods": [t.to_dict() for t in traces]}, indent=2)


def format_table(traces: Iterable[Any]) -> str:
    """kubectl-style columns: NAMESPACE NAME NODE PRIORITY QOS MESSAGE (``<none>`` for empty).

    Examples
    --------
    >>> from kubenotes.scheduler.schedule_one import AttemptTrace
    >>> print(format_table([AttemptTrace("default", "web", "n1", "BestEffort", 0)]))
    NAMESPACE   NAME   NODE   PRIORITY   QOS          MESSAGE
    default     web    n1     0          BestEffort   <none>
    """
    rows = [("NAMESPACE", "NAME", "NODE", "PRIORITY", "QOS", "MESSAGE")]
    for t in traces:
        rows.append((t.namespace, t.name, t.node_name or "<none>", str(t.priority), t.qos_class or "<none>",
                     (t.message or "<none>").replace("\n", " ")))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    lines = []
    for r in rows:
        lines.append("   ".join(c.ljust(w) for c, w in zip(r, widths)) + "   " + r[-1])
    return "\n".join(lines)


_REASONS = re.compile(r"^0/\d+ nodes are available: (.*?)\.(?: |$)")
_COUNTED = re.compile(r"^\d+ ")


def _reasons(message: str) -> list[str]:
    """The Filter reasons of a FailedScheduling message without their node counts (else the message itself)."""
    m = _REASONS.match(message)
    if m is None:
        return [message]
    return [_COUNTED.sub("", r) for r in m.group(1).split(", ")]


def format_summary(traces: Iterable[Any], top: int = 10) -> str:
    """Totals of a scheduling run for a large cluster: outcomes, reasons, and the busiest nodes.

    Parameters
    ----------
    traces : iterable of AttemptTrace
        Every attempt in order, then the gated pods' traces (as :func:`run_schedule` returns).
    top : int
        How many nodes to list, by pods bound to them in this run (ties by name).

    Returns
    -------
    str
        Three kubectl-style blocks: the outcome counts, the unschedulable
        pods per FailedScheduling reason (a pod counts once under each reason
        its last message gives, without the node counts), and the nodes.

    Examples
    --------
    >>> from kubenotes.scheduler.schedule_one import AttemptTrace
    >>> ts = [AttemptTrace("default", "a", "n1", "BestEffort", 0, attempt=1),
    ...       AttemptTrace("default", "b", None, "BestEffort", 0, attempt=1,
    ...                    message="0/2 nodes are available: 1 Insufficient cpu, 1 node(s) were unschedulable. "
    ...                            "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.")]
    >>> print(format_summary(ts))
    PODS   SCHEDULED   UNSCHEDULABLE   GATED   ATTEMPTS   PREEMPTING   VICTIMS
    2      1           1               0       2          0            0
    <BLANKLINE>
    UNSCHEDULABLE   REASON
    1               Insufficient cpu
    1               node(s) were unschedulable
    <BLANKLINE>
    NODE   PODS
    n1     1
    """
    final: dict[str, Any] = {}
    attempts = preempting = victims = 0
    for t in traces:
        final[t.key] = t
        if t.attempt:
            attempts += 1
        if t.victims:
            preempting += 1
            victims += len(t.victims)
    scheduled = gated = 0
    by_reason: dict[str, int] = {}
    per_node: dict[str, int] = {}
    for t in final.values():
        if t.node_name:
            scheduled += 1
            per_node[t.node_name] = per_node.get(t.node_name, 0) + 1
        elif not t.attempt:
            gated += 1
        else:
            for r in dict.fromkeys(_reasons(t.message or "<none>")):
                by_reason[r] = by_reason.get(r, 0) + 1
    blocks = [_columns([("PODS", "SCHEDULED", "UNSCHEDULABLE", "GATED", "ATTEMPTS", "PREEMPTING", "VICTIMS"),
                        tuple(str(v) for v in (len(final), scheduled, len(final) - scheduled - gated, gated,
                                                attempts, preempting, victims))])]
    if by_reason:
        rows = sorted(by_reason.items(), key=lambda kv: (-kv[1], kv[0]))
        blocks.append(_columns([("UNSCHEDULABLE", "REASON")] + [(str(c), r) for r, c in rows]))
    if per_node and top > 0:
        rows = sorted(per_node.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
        blocks.append(_columns([("NODE", "PODS")] + [(n, str(c)) for n, c in rows]))
    return "\n\n".join(blocks)


def _columns(rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    return "\n".join("   ".join(c.ljust(w) for c, w in zip(r, widths)) + "   " + r[-1] for r in rows)


def _str_scores(d: dict[str, dict[str, int]]) -> dict[str, dict[str, str]]:
    return {n: {p: str(v) for p, v in ps.items()} for n, ps in d.items()}


def _annotations(t: Any) -> dict[str, str]:
    a = ANNOTATION_PREFIX
    dump = lambda v: json.dumps(v, separators=(",", ":"), sort_keys=True)  # noqa: E731
    return {
        a + "prefilter-result-status": dump(t.pre_filter_status),
        a + "prefilter-result": dump(t.pre_filter_result),
        a + "filter-result": dump(t.filter),
        a + "postfilter-result": dump(t.post_filter),
        a + "prescore-result": dump(t.pre_score),
        a + "score-result": dump(_str_scores(t.score)),
        a + "finalscore-result": dump(_str_scores(t.final_score)),
        a + "reserve-result": dump(t.reserve),
        a + "permit-result": dump(t.permit),
        a + "permit-result-timeout": dump(t.permit_timeout),
        a + "prebind-result": dump(t.pre_bind),
        a + "bind-result": dump(t.bind),
        a + "selected-node": t.node_name or "",
    }


def to_kss_documents(sched: Any, traces: Iterable[Any]) -> list[dict[str, Any]]:
    """The attempted pods as manifests with kube-scheduler-simulator's annotations.

    One document per pod, in the order of its first attempt: the latest
    attempt's results as annotations (values are JSON strings; scores are
    strings), every attempt in ``result-history``, ``spec.nodeName`` when
    bound, ``status.nominatedNodeName`` when nominated, and a ``PodScheduled``
    condition.
    """
    by_pod: dict[str, list[Any]] = {}
    for t in traces:
        by_pod.setdefault(t.key, []).append(t)
    docs = []
    for key, ts in by_pod.items():
        pi = sched.pod_lister.pods.get(key)
        if pi is None:  # deleted by preemption after being bound
            continue
        d = pi.pod.to_dict()
        last = ts[-1]
        anns = dict((d.get("metadata") or {}).get("annotations") or {})
        history = [_annotations(t) for t in ts if t.attempt > 0]
        anns.update(_annotations(last))
        anns[ANNOTATION_PREFIX + "result-history"] = json.dumps(history, separators=(",", ":"))
        d.setdefault("metadata", {})["annotations"] = anns
        if last.node_name:
            d.setdefault("spec", {})["nodeName"] = last.node_name
            cond = {"type": "PodScheduled", "status": "True"}
        else:
            cond = {"type": "PodScheduled", "status": "False", "reason": "Unschedulable" if last.attempt else "SchedulingGated"}
            if last.message:
                cond["message"] = last.message
        status = d.setdefault("status", {})
        status["conditions"] = [c for c in status.get("conditions") or [] if c.get("type") != "PodScheduled"] + [cond]
        if last.nominated_node_name:
            status["nominatedNodeName"] = last.nominated_node_name
        docs.append(d)
    return docs


def _write(out: TextIO, text: str) -> None:
    out.write(text)
    if not text.endswith("\n"):
        out.write("\n")


def _cmd_schedule(args: argparse.Namespace) -> int:
    # The whole cluster stays in memory to the end: no collector passes over it while the output is written,
    # and no freeing of it when the program ends.
    exit_without_teardown()
    with no_gc_passes():
        return _schedule_and_write(args)


def _schedule_and_write(args: argparse.Namespace) -> int:
    sched, traces = run_schedule(args.manifests, config_file=args.config, seed=args.seed,
                                 trace=args.output not in FAST_OUTPUTS,
                                 feature_gates=getattr(args, "feature_gates", None))
    if args.output == "summary":
        _write(sys.stdout, format_summary(traces, getattr(args, "top", 10)))
    elif args.output == "json":
        _write(sys.stdout, to_json(traces))
    elif args.output == "kss":
        _write(sys.stdout, yaml.safe_dump_all(to_kss_documents(sched, traces), sort_keys=False, default_flow_style=False))
    else:
        _write(sys.stdout, format_table(traces))
    final: dict[str, Any] = {}
    for t in traces:
        final[t.key] = t
    return 0 if all(t.node_name for t in final.values()) else 1
