"""``kind: Scenario``: timed actions against a running cluster (what a person would type, at given times).

A Scenario is a kubenotes document, not a Kubernetes object::

    apiVersion: kubenotes.io/v1
    kind: Scenario
    metadata: {name: rollout}
    spec:
      steps:
      - at: 30
        setImage: {kind: Deployment, namespace: default, name: web, container: nginx, image: "nginx:1.28"}
      - at: 120
        nodeDown: {name: worker-a-1}

Each step has ``at`` (virtual seconds) and exactly one action: ``apply`` (an
inline object, created or merge-patched), ``delete`` ({kind, namespace,
name}, or a ``fieldSelector``/``labelSelector`` instead of the name; ``gracePeriodSeconds``
and ``force`` as ``kubectl delete --grace-period=0 --force``: without ``force`` a grace
period of 0 becomes 1, ``force`` alone means 0), ``scale`` ({kind, namespace, name, replicas}), ``setImage`` ({kind,
namespace, name, container, image}), ``patch`` ({kind, namespace, name,
patch}), ``nodeDown`` / ``nodeUp`` ({name}) and ``metric`` ({kind:
HorizontalPodAutoscaler, namespace, name, value}). Actions go through the API
as the client ``kubectl`` would; a refused one is logged (component
``scenario``, verb ``failed``) and the run goes on, as a script of kubectl
commands would.

Four actions act on the node side and need the kubelet model
(``Cluster(kubelet="model")``, ``simulate --kubelet model``):
``containerExit`` ({namespace, name, container, exitCode}: the process
ends), ``probe`` ({namespace, name, container, probe: liveness|readiness|
startup, result: success|failure, output}: from now on that probe answers
so), ``usage`` ({namespace, name, container, memoryBytes, cpuMillis,
diskBytes}: the container's usage; above its memory limit the runtime
OOM-kills it) and ``staticPod`` ({node, object}: a manifest written to that
node's static pod directory). ``systemUsage`` ({node, memoryBytes,
diskBytes}) sets what runs outside pods on that node's kubelet model (the
OS, the kubelet, the runtime): the node's stats count it, as cAdvisor's root
cgroup does, so it lowers ``memory.available`` and ``nodefs.available``.

``rollingUpdate`` ({kind: ReplicationController, namespace, name, object,
updatePeriodSeconds}) is ``kubectl rolling-update NAME -f OBJECT
--update-period=...s`` (removed in kubectl 1.18): the client itself, not a
controller, scales the new ReplicationController ``object`` up and ``name``
down one pod at a time (:func:`kubenotes.controllers.replication.rolling_update`);
each line kubectl prints is logged (component ``scenario``, verb
``rollingUpdate``), and a timeout or a refused write ends it with a
``failed`` line.

``spec.cluster`` (optional) says how ``simulate`` builds the cluster, so the
file runs unchanged from the command line: ``kubelet`` (``model`` or
``stand-in``; ``--kubelet`` on the command line wins), ``podStartupSeconds``
(the stand-in kubelet's binding -> Running and Ready delay, default 2),
``controllers`` (the controller names to run, as kube-controller-manager's
``--controllers``; default all), ``controllerManager`` (kube-controller-manager
flags by upstream name, e.g. ``{node-monitor-grace-period: 50}``),
``kubeletConfiguration`` (the kubelet model's KubeletConfiguration fields by
upstream name: ``evictionHard``, ``evictionSoft``,
``evictionSoftGracePeriod``, ``evictionMinimumReclaim`` (signal -> value
maps), ``evictionMaxPodGracePeriod`` (seconds),
``evictionPressureTransitionPeriod`` and ``imageMinimumGCAge`` (Go
durations, ``"5m"``), ``imageGCHighThresholdPercent`` and
``imageGCLowThresholdPercent``; see :data:`KUBELET_CONFIGURATION_FIELDS`) and
``network`` (the pod network a network add-on installs, e.g. ``{plugin: calico,
mode: vxlan, ipPool: {cidr: 192.168.0.0/16, blockSize: 26}}``; needs the kubelet
model; see :func:`kubenotes.sim.network.parse_network`). Without ``network``
each node's kubelet model networks pods with a bridge on the Node's podCIDR.
``requestCosts`` says how long API requests take: ``instant`` (zero virtual
time, for a file whose point is the order of events), ``realistic`` (each
component's upstream client QPS/burst and the documented request latency), or
a mapping of ``latency`` and per-component ``clients`` QPS/burst refining the
realistic defaults (``{}`` is ``realistic``; see
:func:`kubenotes.sim.costs.parse_request_costs`). Without it a file runs
realistic (:data:`kubenotes.sim.costs.DEFAULT_REQUEST_COSTS`), under
``simulate`` and in a chapter's helper alike; ``simulate --instant`` or
``--realistic`` wins over the file.
``operators`` (names from :data:`kubenotes.operators.OPERATORS`, e.g. ``[rook-ceph-operator]``) runs those
operators beside the controllers (``Cluster(extra_controllers=...)``).

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/kubectl/pkg/cmd/{apply,delete,scale,set/set_image,patch}
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Generator

from kubenotes.apiserver.server import AuditEntry
from kubenotes.apiserver.status import ApiError
from kubenotes.errors import ManifestError

__all__ = ["SCENARIO_API_VERSION", "ACTIONS", "CLUSTER_FIELDS", "KUBELET_CONFIGURATION_FIELDS", "PROBE_KINDS",
           "PROBE_RESULTS", "Step", "Scenario", "parse_scenario", "start_scenario", "cluster_options",
           "kubelet_configuration"]

SCENARIO_API_VERSION = "kubenotes.io/v1"

#: Action name -> required keys (besides ``at``).
ACTIONS: dict[str, tuple[str, ...]] = {
    "apply": (),
    "delete": ("kind",),  # and name or fieldSelector/labelSelector
    "scale": ("kind", "name", "replicas"),
    "setImage": ("kind", "name", "container", "image"),
    "patch": ("kind", "name", "patch"),
    "nodeDown": ("name",),
    "nodeUp": ("name",),
    "metric": ("kind", "name", "value"),
    "containerExit": ("name", "container", "exitCode"),
    "probe": ("name", "container", "probe", "result"),
    "usage": ("name", "container"),
    "staticPod": ("node", "object"),
    "rollingUpdate": ("kind", "name", "object"),
    "systemUsage": ("node",),
}

#: Fields of ``spec.cluster``: how the cluster a scenario runs on is built.
CLUSTER_FIELDS = ("kubelet", "podStartupSeconds", "controllers", "controllerManager", "kubeletConfiguration",
                  "network", "requestCosts", "operators")

#: ``spec.cluster.kubeletConfiguration`` fields (upstream KubeletConfiguration names) ->
#: :class:`~kubenotes.kubelet.kubelet.KubeletConfiguration` attribute and kind of value.
KUBELET_CONFIGURATION_FIELDS: dict[str, tuple[str, str]] = {
    "evictionHard": ("eviction_hard", "map"),
    "evictionSoft": ("eviction_soft", "map"),
    "evictionSoftGracePeriod": ("eviction_soft_grace_period", "map"),
    "evictionMinimumReclaim": ("eviction_minimum_reclaim", "map"),
    "evictionMaxPodGracePeriod": ("eviction_max_pod_grace_period_seconds", "int"),
    "evictionPressureTransitionPeriod": ("eviction_pressure_transition_period_seconds", "duration"),
    "imageGCHighThresholdPercent": ("image_gc_high_threshold_percent", "int"),
    "imageGCLowThresholdPercent": ("image_gc_low_threshold_percent", "int"),
    "imageMinimumGCAge": ("image_minimum_gc_age_seconds", "duration"),
}

#: Probe kinds and results a ``probe`` step may name.
PROBE_KINDS, PROBE_RESULTS = ("liveness", "readiness", "startup"), ("success", "failure")


@dataclass(frozen=True)
class Step:
    """One timed action.

    Attributes
    ----------
    at_seconds : float
    action : str
        A key of :data:`ACTIONS`.
    args : dict
    """

    at_seconds: float
    action: str
    args: dict


@dataclass(frozen=True)
class Scenario:
    """A named list of steps, in time order (stable for equal times).

    Attributes
    ----------
    name : str
    steps : tuple of Step
    cluster : dict
        ``spec.cluster`` as written (keys of :data:`CLUSTER_FIELDS`); see :func:`cluster_options`.
    """

    name: str
    steps: tuple[Step, ...]
    cluster: dict = field(default_factory=dict)


def parse_scenario(doc: dict, source: str = "<string>", doc_number: int | None = None) -> Scenario:
    """Check and read a ``kind: Scenario`` document.

    Raises
    ------
    ManifestError
        One line naming the file, document, ``Scenario <name>`` and the field,
        e.g. ``s.yaml doc 2 Scenario rollout: spec.steps[1].scale.replicas: Required value``.

    Examples
    --------
    >>> s = parse_scenario({"apiVersion": "kubenotes.io/v1", "kind": "Scenario", "metadata": {"name": "s"},
    ...                     "spec": {"steps": [{"at": 5, "nodeDown": {"name": "n1"}}]}})
    >>> s.steps[0]
    Step(at_seconds=5.0, action='nodeDown', args={'name': 'n1'})
    >>> parse_scenario({"kind": "Scenario", "metadata": {"name": "s"}, "spec": {"steps": [{"at": 5}]}})
    Traceback (most recent call last):
    ...
    kubenotes.errors.ManifestError: <string> Scenario s: spec.steps[0]: Required value: one action of apply, delete, scale, setImage, patch, nodeDown, nodeUp, metric, containerExit, probe, usage, staticPod, rollingUpdate, systemUsage
    """
    name = str((doc.get("metadata") or {}).get("name") or "")
    ref = f"Scenario {name}" if name else "Scenario"

    def fail(field: str, msg: str) -> ManifestError:
        return ManifestError(source, doc_number, ref, f"{field}: {msg}")

    spec = doc.get("spec")
    if not isinstance(spec, dict):
        raise fail("spec", "Required value")
    cluster = _parse_cluster(spec.get("cluster"), fail)
    steps = spec.get("steps")
    if not isinstance(steps, list):
        raise fail("spec.steps", "Required value: a list of steps")
    out = []
    for i, st in enumerate(steps):
        path = f"spec.steps[{i}]"
        if not isinstance(st, dict):
            raise fail(path, f"Invalid value: expected a mapping, got {type(st).__name__}")
        at = st.get("at")
        if isinstance(at, bool) or not isinstance(at, (int, float)):
            raise fail(f"{path}.at", "Required value: seconds (a number)")
        if at < 0:
            raise fail(f"{path}.at", f"Invalid value: {at}: must be greater than or equal to 0")
        unknown = [k for k in st if k != "at" and k not in ACTIONS]
        if unknown:
            raise fail(f"{path}.{unknown[0]}", f'Unsupported value: "{unknown[0]}": supported values: '
                       + ", ".join(f'"{a}"' for a in ACTIONS))
        actions = [k for k in st if k in ACTIONS]
        if len(actions) != 1:
            msg = ("Required value: one action of " if not actions else "Invalid value: more than one action of ")
            raise fail(path, msg + ", ".join(ACTIONS))
        action = actions[0]
        args = st[action]
        if not isinstance(args, dict):
            raise fail(f"{path}.{action}", f"Invalid value: expected a mapping, got {type(args).__name__}")
        for k in ACTIONS[action]:
            if k not in args:
                raise fail(f"{path}.{action}.{k}", "Required value")
        if action == "delete":
            _check_delete(args, f"{path}.delete", fail)
        if action == "apply":
            for k in ("apiVersion", "kind"):
                if not args.get(k):
                    raise fail(f"{path}.apply.{k}", "Required value")
            if not (args.get("metadata") or {}).get("name"):
                raise fail(f"{path}.apply.metadata.name", "Required value")
        if action == "scale":
            r = args["replicas"]
            if isinstance(r, bool) or not isinstance(r, int) or r < 0:
                raise fail(f"{path}.scale.replicas", f"Invalid value: {r!r}: must be a whole number >= 0")
        if action == "metric" and (isinstance(args["value"], bool) or not isinstance(args["value"], (int, float))):
            raise fail(f"{path}.metric.value", f"Invalid value: {args['value']!r}: must be a number")
        if action == "containerExit" and (isinstance(args["exitCode"], bool) or not isinstance(args["exitCode"], int)):
            raise fail(f"{path}.containerExit.exitCode", f"Invalid value: {args['exitCode']!r}: must be an integer")
        if action == "probe":
            for k, allowed in (("probe", PROBE_KINDS), ("result", PROBE_RESULTS)):
                if args[k] not in allowed:
                    raise fail(f"{path}.probe.{k}", f'Unsupported value: "{args[k]}": supported values: '
                               + ", ".join(f'"{v}"' for v in allowed))
        if action == "usage":
            for k in ("memoryBytes", "cpuMillis", "diskBytes"):
                v = args.get(k)
                if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
                    raise fail(f"{path}.usage.{k}", f"Invalid value: {v!r}: must be a whole number >= 0")
        if action == "systemUsage":
            for k in ("memoryBytes", "diskBytes"):
                v = args.get(k)
                if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
                    raise fail(f"{path}.systemUsage.{k}", f"Invalid value: {v!r}: must be a whole number >= 0")
        if action == "staticPod" and not (isinstance(args["object"], dict)
                                          and (args["object"].get("metadata") or {}).get("name")):
            raise fail(f"{path}.staticPod.object.metadata.name", "Required value")
        if action == "rollingUpdate":
            if args["kind"] != "ReplicationController":
                raise fail(f"{path}.rollingUpdate.kind", f'Unsupported value: "{args["kind"]}": supported values: '
                           '"ReplicationController"')
            obj = args["object"]
            if not (isinstance(obj, dict) and (obj.get("metadata") or {}).get("name")):
                raise fail(f"{path}.rollingUpdate.object.metadata.name", "Required value")
            if obj.get("kind") != "ReplicationController":
                raise fail(f"{path}.rollingUpdate.object.kind", f'Unsupported value: "{obj.get("kind")}": '
                           'supported values: "ReplicationController"')
            period = args.get("updatePeriodSeconds", 60)
            if isinstance(period, bool) or not isinstance(period, (int, float)) or period < 0:
                raise fail(f"{path}.rollingUpdate.updatePeriodSeconds",
                           f"Invalid value: {period!r}: must be a number >= 0")
        if action == "patch" and not isinstance(args["patch"], dict):
            raise fail(f"{path}.patch.patch", "Invalid value: expected a mapping (a JSON merge patch)")
        if action in ("delete", "scale", "setImage", "patch", "metric"):
            from kubenotes.apiserver.resources import resource_for

            try:
                resource_for(str(args["kind"]))
            except ApiError:
                raise fail(f"{path}.{action}.kind", f'Unsupported value: "{args["kind"]}"') from None
        out.append(Step(float(at), action, dict(args)))
    order = sorted(range(len(out)), key=lambda j: (out[j].at_seconds, j))
    return Scenario(name, tuple(out[j] for j in order), cluster)


def _check_delete(args: dict, path: str, fail: Any) -> None:
    """``delete``: a name or a selector; ``gracePeriodSeconds`` a whole number >= 0, ``force`` a boolean."""
    if not args.get("name") and not (args.get("fieldSelector") or args.get("labelSelector")):
        raise fail(f"{path}.name", "Required value: a name, or fieldSelector/labelSelector")
    grace = args.get("gracePeriodSeconds")
    if grace is not None and (isinstance(grace, bool) or not isinstance(grace, int) or grace < 0):
        raise fail(f"{path}.gracePeriodSeconds", f"Invalid value: {grace!r}: must be a whole number >= 0")
    if not isinstance(args.get("force", False), bool):
        raise fail(f"{path}.force", f"Invalid value: {args['force']!r}: must be true or false")


def _delete_grace_period(args: dict) -> int | None:
    """kubectl delete's grace period: ``--grace-period=0`` without ``--force`` becomes 1; ``--force`` alone 0."""
    grace, force = args.get("gracePeriodSeconds"), bool(args.get("force"))
    if grace == 0 and not force:
        return 1
    return 0 if force and grace is None else grace


def _parse_cluster(cluster: Any, fail: Any) -> dict:
    """Check ``spec.cluster``; ``fail(field, message)`` makes the one-line error."""
    if cluster is None:
        return {}
    if not isinstance(cluster, dict):
        raise fail("spec.cluster", f"Invalid value: expected a mapping, got {type(cluster).__name__}")
    for k, v in cluster.items():
        f = f"spec.cluster.{k}"
        if k not in CLUSTER_FIELDS:
            raise fail(f, f'Unsupported value: "{k}": supported values: ' + ", ".join(f'"{c}"' for c in CLUSTER_FIELDS))
        if k == "kubelet" and v not in ("model", "stand-in"):
            raise fail(f, f'Unsupported value: "{v}": supported values: "model", "stand-in"')
        if k == "podStartupSeconds" and (isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0):
            raise fail(f, f"Invalid value: {v!r}: must be a number >= 0")
        if k == "controllers":
            from kubenotes.controllers import CONTROLLERS

            if not isinstance(v, list):
                raise fail(f, "Invalid value: expected a list of controller names")
            for i, name in enumerate(v):
                if name not in CONTROLLERS:
                    raise fail(f"{f}[{i}]", f'Unsupported value: "{name}": not a controller of kubenotes.controllers')
        if k == "operators":
            from kubenotes.operators import OPERATORS

            if not isinstance(v, list):
                raise fail(f, "Invalid value: expected a list of operator names")
            for i, name in enumerate(v):
                if name not in OPERATORS:
                    raise fail(f"{f}[{i}]", f'Unsupported value: "{name}": not an operator of kubenotes.operators')
        if k == "controllerManager" and not isinstance(v, dict):
            raise fail(f, "Invalid value: expected a mapping of kube-controller-manager flags")
        if k == "kubeletConfiguration":
            kubelet_configuration(v, lambda field, msg: fail(f"{f}{field}", msg))
        if k == "network":
            from kubenotes.sim.network import parse_network

            parse_network(v, fail, f)
        if k == "requestCosts":
            from kubenotes.sim.costs import parse_request_costs

            parse_request_costs(v, fail, f)
    if "network" in cluster and cluster.get("kubelet") == "stand-in":
        raise fail("spec.cluster.network", 'Invalid value: a pod network needs the kubelet model, not "stand-in"')
    return dict(cluster)


def kubelet_configuration(fields: Any, fail: Any = None) -> Any:
    """A :class:`~kubenotes.kubelet.kubelet.KubeletConfiguration` from ``spec.cluster.kubeletConfiguration``.

    Parameters
    ----------
    fields : dict
        KubeletConfiguration fields by upstream name (:data:`KUBELET_CONFIGURATION_FIELDS`):
        eviction maps as the kubelet's config file writes them (``{"memory.available": "100Mi"}``),
        durations as Go durations (``"5m"``), the rest as integers.
    fail : callable, optional
        ``fail(field_suffix, message) -> Exception`` to raise (default: a
        :class:`~kubenotes.errors.ManifestError` without a source).

    Returns
    -------
    KubeletConfiguration
        The defaults with these fields set.

    Raises
    ------
    ManifestError
        One line naming the field: an unknown field, a value of the wrong
        kind, or an eviction threshold the kubelet rejects (upstream's
        message, e.g. ``unsupported eviction signal memory.free``).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/kubelet/config/v1beta1/types.go (KubeletConfiguration)
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/eviction/helpers.go (ParseThresholdConfig)

    Examples
    --------
    >>> cfg = kubelet_configuration({"evictionSoft": {"memory.available": "1Gi"},
    ...                              "evictionSoftGracePeriod": {"memory.available": "1m"},
    ...                              "evictionPressureTransitionPeriod": "5m"})
    >>> cfg.eviction_soft, cfg.eviction_pressure_transition_period_seconds
    ({'memory.available': '1Gi'}, 300.0)
    >>> kubelet_configuration({"evictionHard": {"memory.free": "1Gi"}})
    Traceback (most recent call last):
    ...
    kubenotes.errors.ManifestError: kubeletConfiguration.evictionHard: Invalid value: unsupported eviction signal memory.free
    """
    import dataclasses

    from kubenotes.kubelet.eviction import EvictionConfigError, parse_duration_seconds, parse_threshold_config
    from kubenotes.kubelet.kubelet import KubeletConfiguration

    if fail is None:
        def fail(field: str, msg: str) -> ManifestError:
            return ManifestError("", None, None, f"kubeletConfiguration{field}: {msg}")
    if not isinstance(fields, dict):
        raise fail("", "Invalid value: expected a mapping of KubeletConfiguration fields")
    values: dict[str, Any] = {}
    for name, v in fields.items():
        if name not in KUBELET_CONFIGURATION_FIELDS:
            raise fail(f".{name}", f'Unsupported value: "{name}": supported values: '
                       + ", ".join(f'"{n}"' for n in KUBELET_CONFIGURATION_FIELDS))
        attr, kind = KUBELET_CONFIGURATION_FIELDS[name]
        if kind == "map":
            if not isinstance(v, dict) or not all(isinstance(x, str) for x in v.values()):
                raise fail(f".{name}", "Invalid value: expected a mapping of signal to string")
            values[attr] = dict(v)
        elif kind == "int":
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise fail(f".{name}", f"Invalid value: {v!r}: must be a whole number >= 0")
            values[attr] = v
        else:
            try:
                seconds = parse_duration_seconds(str(v))
            except EvictionConfigError as e:
                raise fail(f".{name}", f"Invalid value: {e}") from None
            values[attr] = seconds
    try:
        parse_threshold_config(eviction_hard=values.get("eviction_hard"), eviction_soft=values.get("eviction_soft"),
                               eviction_soft_grace_period=values.get("eviction_soft_grace_period"),
                               eviction_minimum_reclaim=values.get("eviction_minimum_reclaim"))
    except (EvictionConfigError, ValueError) as e:
        where = next((n for n in ("evictionHard", "evictionSoft", "evictionSoftGracePeriod", "evictionMinimumReclaim")
                      if n in fields), "")
        raise fail(f".{where}", f"Invalid value: {e}") from None
    return dataclasses.replace(KubeletConfiguration(), **values)


def cluster_options(scenarios: Any, kubelet: str | None = None, network: dict | None = None) -> dict:
    """:class:`~kubenotes.sim.cluster.Cluster` keyword arguments from the scenarios' ``spec.cluster``.

    Parameters
    ----------
    scenarios : iterable of Scenario
        Later scenarios' fields win over earlier ones'.
    kubelet : {"model", "stand-in"}, optional
        The command line's ``--kubelet``; wins over ``spec.cluster.kubelet``.
    network : dict, optional
        Keys of ``spec.cluster.network`` that win over the scenarios' (e.g. ``{"mode": "ipip"}``);
        with no scenario network, a whole ``spec.cluster.network``.

    Returns
    -------
    dict
        ``kubelet`` (always; ``"model"`` by default), and when a scenario sets them
        ``kubelet_options`` (a :class:`~kubenotes.sim.kubelet.KubeletOptions` with
        ``pod_startup_seconds``, stand-in kubelet only; a
        :class:`~kubenotes.kubelet.kubelet.KubeletConfiguration` from
        ``kubeletConfiguration``, kubelet model only), ``controllers``, ``options``, ``network`` and
        ``extra_controllers`` (the ``operators``' classes by name); ``request_costs`` (a
        :class:`~kubenotes.sim.costs.RequestCosts`) unless ``requestCosts`` is ``instant``: a file
        that states no mode runs realistic.

    Raises
    ------
    kubenotes.errors.ManifestError
        ``network`` makes an invalid ``spec.cluster.network``, or a network is asked for
        with the stand-in kubelet.

    Examples
    --------
    >>> s = parse_scenario({"kind": "Scenario", "metadata": {"name": "s"}, "spec": {
    ...     "cluster": {"kubelet": "stand-in", "controllerManager": {"node-monitor-grace-period": 50},
    ...                 "requestCosts": "instant"}, "steps": []}})
    >>> cluster_options([s])
    {'kubelet': 'stand-in', 'options': {'node-monitor-grace-period': 50}}
    >>> cluster_options([s], kubelet="model")
    {'kubelet': 'model', 'options': {'node-monitor-grace-period': 50}}
    >>> sorted(cluster_options([]))  # no scenario, or none that states a mode: realistic
    ['kubelet', 'request_costs']
    """
    merged: dict = {}
    for s in scenarios:
        merged.update(s.cluster)
    out: dict[str, Any] = {"kubelet": kubelet or merged.get("kubelet") or "model"}
    if "podStartupSeconds" in merged and out["kubelet"] == "stand-in":
        from kubenotes.sim.kubelet import KubeletOptions

        out["kubelet_options"] = KubeletOptions(pod_startup_seconds=float(merged["podStartupSeconds"]))
    if "kubeletConfiguration" in merged and out["kubelet"] == "model":
        out["kubelet_options"] = kubelet_configuration(merged["kubeletConfiguration"])
    if "controllers" in merged:
        out["controllers"] = list(merged["controllers"])
    if "controllerManager" in merged:
        out["options"] = dict(merged["controllerManager"])
    if "operators" in merged:
        from kubenotes.operators import OPERATORS

        out["extra_controllers"] = {name: OPERATORS[name] for name in merged["operators"]}
    from kubenotes.sim.costs import DEFAULT_REQUEST_COSTS, parse_request_costs

    costs = parse_request_costs(merged.get("requestCosts", DEFAULT_REQUEST_COSTS))
    if costs is not None:  # realistic (the default) or refined; absent: instant
        out["request_costs"] = costs
    if network or "network" in merged:
        from kubenotes.sim.network import parse_network

        def fail(f: str, msg: str) -> ManifestError:
            return ManifestError("", None, None, f"{f}: {msg}")

        base, over = dict(merged.get("network") or {}), dict(network or {})
        if "ipPool" in base and "ipPool" in over:
            over["ipPool"] = {**base["ipPool"], **over["ipPool"]}
        out["network"] = parse_network({**base, **over}, fail)
        if out["kubelet"] == "stand-in":
            raise fail("--kubelet stand-in", "Invalid value: spec.cluster.network needs the kubelet model")
    return out


def _set_image(obj: dict, container: str, image: str) -> dict:
    spec = obj.get("spec") or {}
    pod_spec = spec if "containers" in spec else ((spec.get("template") or {}).get("spec")
                                                  or ((spec.get("jobTemplate") or {}).get("spec") or {})
                                                  .get("template", {}).get("spec") or {})
    for key in ("initContainers", "containers"):
        for c in pod_spec.get(key) or []:
            if c.get("name") == container:
                c["image"] = image
                return obj
    from kubenotes.apiserver.status import new_not_found

    raise new_not_found("", "containers", container)


def run_step(cluster: Any, step: Step) -> None:
    """Carry out one step now (errors are logged, not raised)."""
    from kubenotes.apiserver.resources import resource_for

    a = step.args
    c = cluster.client
    try:
        if step.action == "apply":
            cluster.apply(a)
        elif step.action == "nodeDown":
            cluster.node_down(a["name"])
            _log(cluster, "nodeDown", "Node", "", a["name"], "kubelet stops heartbeats")
        elif step.action == "nodeUp":
            cluster.node_up(a["name"])
            _log(cluster, "nodeUp", "Node", "", a["name"], "kubelet resumes")
        elif step.action in ("containerExit", "probe", "usage", "staticPod", "systemUsage"):
            _node_step(cluster, step)
        elif step.action == "rollingUpdate":
            cluster.env.process(_rolling_update(cluster, step))
        elif step.action == "metric":
            cluster.metrics[(a.get("namespace") or "default", a["name"])] = float(a["value"])
            _log(cluster, "metric", str(a["kind"]), a.get("namespace") or "default", a["name"], f"value={a['value']}")
        else:
            ri = resource_for(str(a["kind"]))
            ns = a.get("namespace") or ("default" if ri.namespaced else None)
            if step.action == "delete":
                names = [a["name"]] if a.get("name") else [
                    o["metadata"]["name"] for o in c.list(ri.resource, ns, label_selector=a.get("labelSelector", ""),
                                                          field_selector=a.get("fieldSelector", ""))["items"]]
                for name in names:
                    c.delete(ri.resource, name, ns, propagation_policy=a.get("propagationPolicy"),
                             grace_period_seconds=_delete_grace_period(a))
            elif step.action == "scale":
                c.scale(ri.resource, a["name"], int(a["replicas"]), ns)
            elif step.action == "patch":
                c.patch(ri.resource, a["name"], a["patch"], ns)
            elif step.action == "setImage":
                obj = c.get(ri.resource, a["name"], ns)
                c.update(ri.resource, _set_image(obj, a["container"], a["image"]), ns)
    except (ApiError, KeyError) as e:
        kind = str(a.get("kind", "Node" if step.action.startswith("node") else ""))
        _log(cluster, "failed", kind, a.get("namespace", "") or "", str(a.get("name") or
                                                                       (a.get("metadata") or {}).get("name", "")),
             f"{step.action}: {e}")


def _node_step(cluster: Any, step: Step) -> None:
    """``containerExit``, ``probe``, ``usage``, ``staticPod``, ``systemUsage``: through the kubelet model of the pod's node."""
    a = step.args
    if step.action == "systemUsage":
        kubelet = cluster.kubelets.get(a["node"])
        if kubelet is None or not hasattr(kubelet, "set_system_usage"):
            raise KeyError(f'node "{a["node"]}" runs no kubelet model (Cluster(kubelet="model"))')
        kubelet.set_system_usage(memory_bytes=a.get("memoryBytes"), disk_bytes=a.get("diskBytes"))
        _log(cluster, "systemUsage", "Node", "", a["node"],
             ", ".join(f"{k}={a[k]}" for k in ("memoryBytes", "diskBytes") if a.get(k) is not None))
        return
    if step.action == "staticPod":
        kubelet = cluster.kubelets.get(a["node"])
        if kubelet is None or not hasattr(kubelet, "write_static_pod_manifest"):
            raise KeyError(f'node "{a["node"]}" runs no kubelet model (Cluster(kubelet="model"))')
        name = a["object"]["metadata"]["name"]
        kubelet.write_static_pod_manifest(f"{name}.yaml", a["object"])
        _log(cluster, "staticPod", "Pod", "", name, f"manifest written on {a['node']}")
        return
    ns = a.get("namespace") or "default"
    pod = cluster.get("pods", a["name"], ns)
    node = ((pod or {}).get("spec") or {}).get("nodeName")
    kubelet = cluster.kubelets.get(node) if node else None
    if pod is None or kubelet is None or not hasattr(kubelet, "probe_overrides"):
        raise KeyError(f'pod {ns}/{a["name"]} is not running on a kubelet model (Cluster(kubelet="model"))')
    if step.action == "probe":
        from kubenotes.kubelet.prober import LIVENESS, READINESS, STARTUP

        kind = {"liveness": LIVENESS, "readiness": READINESS, "startup": STARTUP}[a["probe"]]
        kubelet.probe_overrides[(pod["metadata"]["uid"], a["container"], kind)] = (
            a["result"], str(a.get("output") or ""))
        _log(cluster, "probe", "Pod", ns, a["name"], f"{a['container']} {a['probe']} -> {a['result']}")
        return
    cid = kubelet.running_container_id(ns, a["name"], a["container"])
    if cid is None:
        raise KeyError(f'container "{a["container"]}" of pod {ns}/{a["name"]} is not running')
    if step.action == "containerExit":
        kubelet.runtime.exit_container(cid, int(a["exitCode"]))
        _log(cluster, "containerExit", "Pod", ns, a["name"], f"{a['container']} exit {a['exitCode']}")
    else:
        kubelet.runtime.set_container_usage(cid, memory_bytes=a.get("memoryBytes"), milli_cpu=a.get("cpuMillis"),
                                            disk_bytes=a.get("diskBytes"))
        _log(cluster, "usage", "Pod", ns, a["name"],
             ", ".join(f"{k}={a[k]}" for k in ("memoryBytes", "cpuMillis", "diskBytes") if a.get(k) is not None))


class _PrintedLines(list):
    """What ``kubectl rolling-update`` prints: each line kept and logged as the scenario's ``rollingUpdate``."""

    def __init__(self, cluster: Any, namespace: str, name: str):
        super().__init__()
        self.cluster, self.namespace, self.name = cluster, namespace, name

    def append(self, line: str) -> None:
        super().append(line)
        _log(self.cluster, "rollingUpdate", "ReplicationController", self.namespace, self.name, line)


def _rolling_update(cluster: Any, step: Step) -> Generator:
    """``rollingUpdate``: kubectl's client-side loop as a process; a timeout or a refused write is logged."""
    from kubenotes.controllers.replication import RollingUpdateTimeout, rolling_update

    a = step.args
    ns = a.get("namespace") or "default"
    lines = _PrintedLines(cluster, ns, a["name"])
    try:
        yield from rolling_update(cluster.client, cluster.env, ns, a["name"], copy.deepcopy(a["object"]),
                                  float(a.get("updatePeriodSeconds", 60)), out=lines)
    except (ApiError, RollingUpdateTimeout) as e:
        _log(cluster, "failed", "ReplicationController", ns, a["name"], f"rollingUpdate: {e}")


def _log(cluster: Any, verb: str, kind: str, namespace: str, name: str, detail: str) -> None:
    cluster.server.audit_log.append(AuditEntry(float(cluster.env.now), "scenario", verb, kind, namespace, name, "",
                                               detail))


def start_scenario(cluster: Any, scenario: Scenario) -> None:
    """Run ``scenario``'s steps as a SimPy process on ``cluster``'s clock."""

    def proc() -> Generator:
        for st in scenario.steps:
            if st.at_seconds > cluster.env.now:
                yield cluster.env.timeout(st.at_seconds - cluster.env.now)
            run_step(cluster, st)

    cluster.env.process(proc())
