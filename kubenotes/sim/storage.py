"""Chapter 05.03's runs and queries: claim binding, a CSI volume's calls, claims that outlive pods, node failure.

Small functions over what the storage model already does, so that the
notebook only calls them: :func:`claim_binding` asks the PersistentVolume
controller's index (:class:`~kubenotes.controllers.volume.index.PersistentVolumeOrderedIndex`)
and the scheduler's matching (:func:`~kubenotes.api.storagehelpers.find_matching_volume`)
which of a fixed set of volumes a claim gets; the other functions run the
``data/storage`` scenario files exactly as ``python -m kubenotes simulate``
runs them and read the traces the components keep (CSI driver calls, the
kubelet's volume manager and CRI calls, the attach/detach controller's
operations, the scheduler's per-node Filter verdicts, Events).

Nothing here decides anything the model does not: the functions only select
and order what the components recorded.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/volume/persistentvolume/pv_controller.go (syncUnboundClaim)
kubernetes/kubernetes@v1.34.0 pkg/controller/volume/persistentvolume/index.go (findByClaim)
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/volumebinding/binder.go (FindPodVolumes)
kubernetes/kubernetes@v1.34.0 pkg/controller/volume/attachdetach/reconciler/reconciler.go
kubernetes/kubernetes@v1.34.0 pkg/volume/csi/csi_attacher.go, csi_mounter.go
https://kubernetes.io/docs/concepts/storage/persistent-volumes/
"""

from __future__ import annotations

import copy
from typing import Any, Mapping

from kubenotes.api.quantity import format_quantity
from kubenotes.api.storagehelpers import (
    ACCESS_MODE_SHORT,
    VOLUME_BINDING_WAIT_FOR_FIRST_CONSUMER,
    check_access_modes,
    find_matching_volume,
    get_persistent_volume_class,
    storage_capacity_bytes,
    storage_request_bytes,
)
from kubenotes.controllers.volume.index import PersistentVolumeOrderedIndex
from kubenotes.controllers.volume.persistentvolume import MSG_WAIT_FOR_FIRST_CONSUMER, WAIT_FOR_FIRST_CONSUMER

__all__ = [
    "BINDING_NODES", "binding_volumes", "claim_binding", "csi_volume_timeline", "simulate_csi_attach",
    "statefulset_claims", "simulate_statefulset_pod_deletion", "simulate_node_failure_rwo", "attach_timeline",
    "OUT_OF_SERVICE_TAINT", "simulate_claim_resize", "resize_timeline", "RESIZE_EVENTS",
    "simulate_storage_capacity", "capacity_timeline",
    "schedule_volume_filters", "storage_graph",
]

GI = 1 << 30
#: The two nodes of :func:`claim_binding`'s scheduler path, with the labels a local volume's node affinity reads.
BINDING_NODES = ("node-a", "node-b")
#: CRI calls that belong to one pod's syncPod (the PLEG's ListPodSandbox / ListContainers relists are left out).
_POD_CRI_CALLS = ("RunPodSandbox", "PullImage", "CreateContainer", "StartContainer", "StopContainer",
                  "StopPodSandbox", "RemovePodSandbox")


def _pv(name: str, gi: int, modes: list[str], storage_class: str, node: str | None = None) -> dict:
    spec: dict[str, Any] = {"capacity": {"storage": f"{gi}Gi"}, "accessModes": modes,
                            "storageClassName": storage_class, "persistentVolumeReclaimPolicy": "Retain"}
    if node:
        spec["local"] = {"path": "/mnt/disks/ssd1"}
        spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}]}]}}
    else:
        spec["nfs"] = {"server": "nfs.example.internal", "path": f"/exports/{name}"}
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name}, "spec": spec,
            "status": {"phase": "Available"}}


def binding_volumes() -> list[dict]:
    """The Available PersistentVolumes :func:`claim_binding` matches claims against.

    Nine volumes of two classes: NFS shares (``standard``, some also
    ``ReadWriteMany`` or ``ReadOnlyMany``), two local disks of class
    ``standard`` that only ``node-a`` or ``node-b`` can reach (node affinity
    on ``kubernetes.io/hostname``), and SSDs of class ``fast``, one of them
    ``ReadWriteOncePod``.

    Parameters
    ----------
    None

    Returns
    -------
    list of dict
        PersistentVolume objects with ``status.phase: Available``, in name order.

    Raises
    ------
    None

    Examples
    --------
    >>> [(v["metadata"]["name"], v["spec"]["capacity"]["storage"]) for v in binding_volumes()][:3]
    [('disk-10g', '10Gi'), ('disk-2g', '2Gi'), ('local-a-20g', '20Gi')]
    """
    vols = [
        _pv("nfs-1g", 1, ["ReadWriteOnce", "ReadWriteMany"], "standard"),
        _pv("nfs-5g", 5, ["ReadWriteOnce", "ReadWriteMany"], "standard"),
        _pv("nfs-ro-8g", 8, ["ReadOnlyMany"], "standard"),
        _pv("disk-2g", 2, ["ReadWriteOnce"], "standard"),
        _pv("disk-10g", 10, ["ReadWriteOnce"], "standard"),
        _pv("local-a-20g", 20, ["ReadWriteOnce"], "standard", "node-a"),
        _pv("local-b-50g", 50, ["ReadWriteOnce"], "standard", "node-b"),
        _pv("ssd-5g", 5, ["ReadWriteOnce"], "fast"),
        _pv("ssd-rwop-20g", 20, ["ReadWriteOncePod"], "fast"),
    ]
    return sorted(vols, key=lambda v: v["metadata"]["name"])


def _node(name: str) -> dict:
    return {"metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}}}


def claim_binding(request_gi: int = 3, access_mode: str = "ReadWriteOnce", storage_class: str = "standard",
                  binding_mode: str = "Immediate", volumes: list[dict] | None = None) -> dict[str, Any]:
    """Which volume a claim gets: from the PV controller at once, or from the scheduler per node.

    The claim asks for ``request_gi`` GiB with one access mode and a class
    whose ``volumeBindingMode`` is ``binding_mode``. With ``Immediate``, the
    PersistentVolume controller's ``findByClaim`` binds it at once: the
    smallest Available volume of its class holding the request among those
    offering its access modes (fewest modes first), wherever that volume
    lives. With ``WaitForFirstConsumer`` the controller only records
    ``WaitForFirstConsumer``, and the scheduler's VolumeBinding, for each node
    it considers, takes the smallest such volume that node can reach.

    Parameters
    ----------
    request_gi : int
        ``spec.resources.requests.storage`` in GiB.
    access_mode : {"ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"}
        The claim's one access mode.
    storage_class : str
        ``spec.storageClassName`` (``standard`` or ``fast`` match volumes).
    binding_mode : {"Immediate", "WaitForFirstConsumer"}
        The class's ``volumeBindingMode``.
    volumes : list of dict, optional
        The candidates; default :func:`binding_volumes`.

    Returns
    -------
    dict
        ``claim`` (the PersistentVolumeClaim), ``delayed`` (bool),
        ``controller`` (the volume name the PV controller binds, or None),
        ``event`` (``(reason, message)`` the controller records for a delayed
        claim, else None), ``nodes`` (node name -> volume name or None: the
        scheduler's choice per node, only when delayed) and ``rows`` (one dict
        per volume: ``name``, ``capacity``, ``modes``, ``class``, ``node``
        (the one node that reaches it, or ``"any"``) and ``verdict``).

    Raises
    ------
    ValueError
        For an access mode or binding mode v1.34 does not know.

    See Also
    --------
    kubenotes.api.storagehelpers.find_matching_volume

    Notes
    -----
    The verdict names the first check a volume fails in the order the model
    (and upstream's ``FindMatchingVolume``) applies them; the access modes are
    the index's preselection on the controller's path.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/volume/persistentvolume/index.go (findByClaim)
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/component-helpers/storage/volume/pv_helpers.go (FindMatchingVolume)

    Examples
    --------
    >>> claim_binding(3)["controller"]
    'disk-10g'
    >>> r = claim_binding(15, binding_mode="WaitForFirstConsumer")
    >>> r["controller"], r["nodes"]
    (None, {'node-a': 'local-a-20g', 'node-b': 'local-b-50g'})
    """
    if access_mode not in ACCESS_MODE_SHORT:
        raise ValueError(f"unknown access mode {access_mode!r}: one of {', '.join(ACCESS_MODE_SHORT)}")
    if binding_mode not in ("Immediate", VOLUME_BINDING_WAIT_FOR_FIRST_CONSUMER):
        raise ValueError(f"unknown volumeBindingMode {binding_mode!r}: Immediate or WaitForFirstConsumer")
    vols = copy.deepcopy(binding_volumes() if volumes is None else volumes)
    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
             "metadata": {"name": "data", "namespace": "default", "uid": "claim-uid"},
             "spec": {"accessModes": [access_mode], "storageClassName": storage_class,
                      "resources": {"requests": {"storage": f"{request_gi}Gi"}}}}
    delayed = binding_mode == VOLUME_BINDING_WAIT_FOR_FIRST_CONSUMER
    index = PersistentVolumeOrderedIndex()
    for v in vols:
        index.add(v)
    chosen = index.find_by_claim(claim, delay_binding=delayed)
    controller = chosen["metadata"]["name"] if chosen else None
    nodes: dict[str, str | None] = {}
    if delayed:
        of_class = [v for v in vols if get_persistent_volume_class(v) == storage_class]
        for n in BINDING_NODES:
            pv = find_matching_volume(claim, of_class, _node(n), (), True)
            nodes[n] = pv["metadata"]["name"] if pv else None
    picked = {controller, *nodes.values()} - {None}
    requested = storage_request_bytes(claim)
    rows = []
    for v in vols:
        name = v["metadata"]["name"]
        terms = ((v["spec"].get("nodeAffinity") or {}).get("required") or {}).get("nodeSelectorTerms") or []
        reach = terms[0]["matchExpressions"][0]["values"][0] if terms else "any"
        if get_persistent_volume_class(v) != storage_class:
            verdict = f"class {get_persistent_volume_class(v)}"
        elif not check_access_modes(claim, v):
            verdict = f"no {ACCESS_MODE_SHORT[access_mode]}"
        elif storage_capacity_bytes(v) < requested:
            verdict = "too small"
        elif name == controller:
            verdict = "bound by the PV controller"
        elif name in picked:
            verdict = "chosen on " + ", ".join(n for n, p in nodes.items() if p == name)
        elif controller and storage_capacity_bytes(v) < _capacity(vols, controller):
            verdict = "fits, but offers more access modes (searched later)"
        else:
            verdict = "fits, not the smallest"
        rows.append({"name": name, "capacity": v["spec"]["capacity"]["storage"],
                     "modes": ",".join(ACCESS_MODE_SHORT[m] for m in v["spec"]["accessModes"]),
                     "class": get_persistent_volume_class(v), "node": reach, "verdict": verdict})
    event = (WAIT_FOR_FIRST_CONSUMER, MSG_WAIT_FOR_FIRST_CONSUMER) if delayed else None
    return {"claim": claim, "delayed": delayed, "controller": controller, "event": event, "nodes": nodes,
            "rows": rows}


def _capacity(vols: list[dict], name: str) -> int:
    return next(storage_capacity_bytes(v) for v in vols if v["metadata"]["name"] == name)


def _run(name: str, until: float, *, kubelet: str | None = None, steps: Any = None) -> Any:
    """Run ``data/storage/<name>`` as ``simulate`` does (``steps`` replaces the scenario's steps)."""
    from kubenotes.sim.cluster import Cluster
    from kubenotes.sim.scenario import cluster_options, start_scenario
    from kubenotes.sim.scenarios import load_scenario_file

    objects, scenario = load_scenario_file(f"storage/{name}")
    if steps is not None:
        scenario = type(scenario)(scenario.name, tuple(steps), scenario.cluster)
    options = cluster_options([scenario], kubelet)
    c = Cluster(objects, **options)
    start_scenario(c, scenario)
    c.run(until=until)
    return c


#: The Events of a claim's resize (external-resizer, then the kubelet).
RESIZE_EVENTS = ("Resizing", "FileSystemResizeRequired", "VolumeResizeFailed", "VolumeResizeSuccessful",
                 "FileSystemResizeSuccessful")


def simulate_claim_resize(until_seconds: float = 95.0) -> Any:
    """Run ``data/storage/csi-provision.yaml`` with the kubelet model: a mounted claim grown from 1Gi to 2Gi at 20 s.

    Parameters
    ----------
    until_seconds : float
        Virtual seconds to run (the pod is deleted at 100 s).

    Returns
    -------
    kubenotes.sim.cluster.Cluster
        The stopped cluster.

    Raises
    ------
    ManifestError
        When the scenario file does not load.

    See Also
    --------
    resize_timeline

    Examples
    --------
    >>> c = simulate_claim_resize(30)
    >>> c.get("persistentvolumeclaims", "fast-data", "default")["status"]["allocatedResourceStatuses"]
    {'storage': 'NodeResizePending'}
    """
    return _run("csi-provision.yaml", until_seconds, kubelet="model")


def resize_timeline(cluster: Any, namespace: str = "default", claim: str = "fast-data"
                    ) -> list[tuple[float, str, str, str]]:
    """A claim's resize in order: its status as each writer left it, the resize Events, the expansion CSI calls.

    Parameters
    ----------
    cluster : Cluster
        A run cluster (:func:`simulate_claim_resize`).
    namespace, claim : str
        The PersistentVolumeClaim.

    Returns
    -------
    list of (float, str, str, str)
        ``(time, who, what, detail)``: ``claim`` rows (the writer; request, ``status.capacity``,
        ``allocatedResourceStatuses.storage`` and conditions, when one of them changed), ``Event <reason>`` rows
        for :data:`RESIZE_EVENTS` on the claim (the recorder's component), and the driver's
        ``ControllerExpandVolume`` / ``NodeExpandVolume`` calls (who ``CSI Controller`` or ``CSI Node <node>``).
        Writes and Events are in resourceVersion order; a CSI call, which has none, is placed right after the
        claim write of the same instant that marked the resize in progress.

    Raises
    ------
    ApiError
        410 Expired when the cluster's watch history no longer reaches its first writes
        (:func:`kubenotes.sim.history.object_history`).

    Examples
    --------
    >>> rows = resize_timeline(simulate_claim_resize(30))
    >>> [what for _, _, what, _ in rows if not what.startswith("claim")][:3]
    ['Event Resizing', 'ControllerExpandVolume', 'Event FileSystemResizeRequired']
    """
    from kubenotes.sim.csi import csi_calls
    from kubenotes.sim.history import object_history, resource_version

    writers = {str(a.resource_version): a.component for a in cluster.audit_log}
    rows: list[tuple[float, float, str, str, str]] = []
    last = None
    in_progress: dict[float, float] = {}  # time -> resourceVersion of the first "...InProgress" write then
    for rev in object_history(cluster, "persistentvolumeclaims", namespace):
        obj = rev.object
        if obj["metadata"].get("name") != claim or rev.type == "DELETED":
            continue
        st = obj.get("status") or {}
        resize = (st.get("allocatedResourceStatuses") or {}).get("storage", "")
        request = (((obj.get("spec") or {}).get("resources") or {}).get("requests") or {}).get("storage", "-")
        view = (str(request), (st.get("capacity") or {}).get("storage", "-"), resize,
                ",".join(c.get("type", "") for c in st.get("conditions") or ()))
        if view == last:
            continue
        last = view
        rv = resource_version(obj)
        if resize.endswith("InProgress"):
            in_progress.setdefault(rev.time, rv)
        rows.append((rev.time, rv, writers.get(str(rv), ""), "claim", "request {}, capacity {}, resize status {}, "
                     "conditions {}".format(*(v or "-" for v in view))))
    for a in cluster.audit_log:
        if a.kind == "Event" and a.verb == "create" and a.namespace == namespace and a.name.startswith(claim + "."):
            reason, _, message = a.detail.partition(": ")
            if reason in RESIZE_EVENTS:
                rows.append((a.time, int(a.resource_version), a.component, f"Event {reason}", message))
    for call in csi_calls(cluster):
        if call["method"] in ("ControllerExpandVolume", "NodeExpandVolume"):
            size = int((call["request"].get("capacity_range") or {}).get("required_bytes") or 0)
            who = "CSI Controller" if call["service"] == "Controller" else f"CSI Node {call['node']}"
            rows.append((call["time"], in_progress.get(call["time"], float("inf")) + 1.5, who, call["method"],
                         f"required_bytes {size} ({format_quantity(size, 'storage')})"
                         + ("" if call["code"] in ("OK", "") else f": {call['code']}")))
    rows.sort(key=lambda r: (r[0], r[1]))
    return [(round(t, 3), who, what, detail) for t, _, who, what, detail in rows]


def simulate_storage_capacity(until_seconds: float = 60.0) -> Any:
    """Run ``data/storage/storage-capacity.yaml``: capacity tracking fills node-1, sends a pod to node-2, stops a third.

    Parameters
    ----------
    until_seconds : float
        Virtual seconds to run (the last pod comes at 45 s).

    Returns
    -------
    kubenotes.sim.cluster.Cluster
        The stopped cluster.

    Raises
    ------
    ManifestError
        When the scenario file does not load.

    See Also
    --------
    capacity_timeline

    Examples
    --------
    >>> c = simulate_storage_capacity(30)
    >>> sorted((p["metadata"]["name"], p["spec"]["nodeName"]) for p in c.list("pods", "default"))
    [('app-a', 'node-1'), ('app-b', 'node-2')]
    """
    return _run("storage-capacity.yaml", until_seconds)


def capacity_timeline(cluster: Any, namespace: str = "default") -> list[tuple[float, str, str, str]]:
    """The CSIStorageCapacity objects as the capacity controller wrote them, with the pods' scheduling Events.

    Parameters
    ----------
    cluster : Cluster
        A run cluster (:func:`simulate_storage_capacity`).
    namespace : str
        The pods' namespace.

    Returns
    -------
    list of (float, str, str, str)
        ``(time, who, what, detail)`` in resourceVersion order: ``CSIStorageCapacity create|update|delete`` rows
        (who: the writer; detail: segment, class, ``capacity``, ``maximumVolumeSize``) and the Events
        ``FailedScheduling``, ``Scheduled`` and ``ProvisioningSucceeded`` (who: ``Pod/<name>`` or
        ``PersistentVolumeClaim/<name>``).

    Raises
    ------
    ApiError
        410 Expired when the cluster's watch history no longer reaches its first writes.

    Examples
    --------
    >>> rows = capacity_timeline(simulate_storage_capacity(5))
    >>> caps = [(what, d.split(" · ")[0][-6:]) for _, _, what, d in rows if what.startswith("CSIStorageCapacity")]
    >>> caps  # doctest: +NORMALIZE_WHITESPACE
    [('CSIStorageCapacity create', 'node-1'), ('CSIStorageCapacity create', 'node-2'),
     ('CSIStorageCapacity update', 'node-1')]
    """
    from kubenotes.sim.history import object_history, resource_version

    writers = {str(a.resource_version): a.component for a in cluster.audit_log}
    verbs = {"ADDED": "create", "MODIFIED": "update", "DELETED": "delete"}
    rows: list[tuple[float, int, str, str, str]] = []
    for rev in object_history(cluster, "csistoragecapacities"):
        obj = rev.object
        labels = (obj.get("nodeTopology") or {}).get("matchLabels") or {}
        segment = ",".join(f"{k}={v}" for k, v in sorted(labels.items())) or "(every node)"
        rows.append((rev.time, resource_version(obj), writers.get(str(resource_version(obj)), ""),
                     f"CSIStorageCapacity {verbs.get(rev.type, rev.type)}",
                     f"{segment} · {obj.get('storageClassName', '')}: capacity {obj.get('capacity', '-')}, "
                     f"maximumVolumeSize {obj.get('maximumVolumeSize', '-')}"))
    kinds = {"Scheduled": "Pod", "FailedScheduling": "Pod", "ProvisioningSucceeded": "PersistentVolumeClaim"}
    for a in cluster.audit_log:
        if a.kind == "Event" and a.verb == "create" and a.namespace == namespace:
            reason, _, message = a.detail.partition(": ")
            if reason in kinds:
                rows.append((a.time, int(a.resource_version), f"{kinds[reason]}/{a.name.rsplit('.', 1)[0]}",
                             f"Event {reason}", message))
    rows.sort(key=lambda r: (r[0], r[1]))
    return [(round(t, 3), who, what, detail) for t, _, who, what, detail in rows]


def simulate_csi_attach(until_seconds: float = 60.0) -> Any:
    """Run ``data/storage/csi-attach.yaml`` with the kubelet model: one pod's CSI volume attached, then detached.

    Parameters
    ----------
    until_seconds : float
        Virtual seconds to run (the pod is deleted at 30 s).

    Returns
    -------
    kubenotes.sim.cluster.Cluster
        The stopped cluster; its ``csi`` drivers hold the CSI call traces.

    Raises
    ------
    ManifestError
        When the scenario file does not load.

    See Also
    --------
    csi_volume_timeline

    Examples
    --------
    >>> c = simulate_csi_attach(25)
    >>> [p["status"]["phase"] for p in c.list("pods")]
    ['Running']
    """
    return _run("csi-attach.yaml", until_seconds)


def _last_pod(cluster: Any, namespace: str, pod: str) -> dict:
    """The pod as it is, or as it was last written when it is gone (the watch cache's history)."""
    from kubenotes.sim.history import object_history

    last = [r.object for r in object_history(cluster, "pods", namespace) if r.object["metadata"]["name"] == pod]
    if not last:
        raise KeyError(f'pod "{namespace}/{pod}" never existed in this run')
    return last[-1]


def csi_volume_timeline(cluster: Any, namespace: str, pod: str, node: str) -> list[tuple[float, str, str, str]]:
    """One pod's volume, call by call: scheduler, attach/detach controller, CSI driver, kubelet.

    Merges, in time order, what each component recorded about the pod and
    its CSI volumes: the Events ``Scheduled`` and ``SuccessfulAttachVolume``
    / ``FailedAttachVolume``; the attach/detach controller's ``AttachVolume``
    and ``DetachVolume``; every CSI call whose request names one of the pod's
    volume handles (``ControllerPublishVolume``, ``NodeStageVolume``,
    ``NodePublishVolume``, their reverses: whatever the driver was called
    with); the kubelet's volume manager operations on the pod's claim volumes
    (``VerifyControllerAttachedVolume``, ``MountVolume.MountDevice``,
    ``MountVolume.SetUp``, ``UnmountVolume.TearDown``; and
    ``WaitForAttachAndMount``); and the CRI calls of
    the pod's syncPod on its node (its sandbox, that sandbox's containers, and
    pulls of its images; the PLEG's relists are left out).

    Parameters
    ----------
    cluster : Cluster
        A finished run (:func:`simulate_csi_attach`).
    namespace, pod : str
        The pod.
    node : str
        The node it ran on (its kubelet's traces are read).

    Returns
    -------
    list of (float, str, str, str)
        ``(time, lane, call, detail)``; lanes are ``kube-scheduler``,
        ``attach/detach controller``, ``CSI Controller``, ``CSI Node``,
        ``kubelet volumes`` and ``kubelet CRI``.

    Raises
    ------
    KeyError
        When ``node`` has no kubelet in the cluster, or the pod never existed.

    Examples
    --------
    >>> rows = csi_volume_timeline(simulate_csi_attach(25), "default", "csi-app", "csi-node-1")
    >>> [call for _, lane, call, _ in rows if lane.startswith("CSI")]
    ['ControllerPublishVolume', 'NodeStageVolume', 'NodePublishVolume']
    """
    from kubenotes.sim.csi import csi_calls
    from kubenotes.sim.timelines import events_by_time

    kubelet = cluster.kubelets[node]
    key = f"{namespace}/{pod}"
    spec = _last_pod(cluster, namespace, pod)["spec"]
    by_volume = {v["name"]: v["persistentVolumeClaim"]["claimName"] for v in spec.get("volumes") or ()
                 if v.get("persistentVolumeClaim")}
    claims = set(by_volume.values())
    pvs = [v for v in cluster.list("persistentvolumes")
           if (v["spec"].get("claimRef") or {}).get("name") in claims
           and (v["spec"].get("claimRef") or {}).get("namespace") == namespace]
    handles = {(v["spec"].get("csi") or {}).get("volumeHandle") for v in pvs} - {None}
    pv_names = {v["metadata"]["name"] for v in pvs}
    rows: list[tuple[float, str, str, str]] = []
    for t, e in events_by_time(cluster, namespace, limit=None):
        io = e.get("involvedObject") or {}
        if io.get("kind") == "Pod" and io.get("name") == pod and e["reason"] in (
                "Scheduled", "SuccessfulAttachVolume", "FailedAttachVolume", "FailedMount"):
            lane = "kube-scheduler" if e["reason"] == "Scheduled" else "attach/detach controller"
            rows.append((t or 0.0, lane, f'Event {e["reason"]}', e["message"]))
    adc = cluster.controllers.get("attachdetach-controller")
    for t, op, pv, n, detail in getattr(adc, "operations", ()):
        if pv in pv_names and n == node:
            rows.append((t, "attach/detach controller", op, f"{pv} on {n}" + (f" ({detail})" if detail else "")))
    for call in csi_calls(cluster):
        req = call["request"] or {}
        if req.get("volume_id") in handles:
            where = req.get("node_id") or call["node"]
            rows.append((call["time"], f'CSI {call["service"]}', call["method"],
                         f'{req["volume_id"]} on {where}: {call["code"]}'))
    for t, op, pod_key, volume, outcome in kubelet.volume_manager.trace:
        if pod_key == key and (volume in by_volume or op == "WaitForAttachAndMount"):
            rows.append((t, "kubelet volumes", op, f"{volume}: {outcome}"))
    rows.extend(_pod_cri_rows(cluster, node, namespace, pod, spec))
    return sorted(rows, key=lambda r: r[0])


def _pod_cri_rows(cluster: Any, node: str, namespace: str, pod: str, spec: Mapping[str, Any]
                  ) -> list[tuple[float, str, str, str]]:
    """The CRI calls of this pod's syncPod on ``node``: its sandboxes, their containers, pulls of its images."""
    from kubenotes.sim.cli import cri_calls

    images = {c.get("image") for c in [*(spec.get("initContainers") or ()), *(spec.get("containers") or ())]}
    sandboxes: set[str] = set()
    containers: set[str] = set()
    rows = []
    for call in cri_calls(cluster):
        if call["node"] != node or call["method"] not in _POD_CRI_CALLS:
            continue
        req, resp = call["request"] or {}, call["response"] or {}
        if call["method"] == "RunPodSandbox":
            md = (req.get("config") or {}).get("metadata") or {}
            if (md.get("namespace"), md.get("name")) != (namespace, pod):
                continue
            sandboxes.add(resp.get("pod_sandbox_id", ""))
        elif call["method"] == "PullImage":
            if (req.get("image") or {}).get("image") not in images:
                continue
        elif call["method"] == "CreateContainer":
            if req.get("pod_sandbox_id") not in sandboxes:
                continue
            containers.add(resp.get("container_id", ""))
        elif req.get("pod_sandbox_id") not in sandboxes and req.get("container_id") not in containers:
            continue
        rows.append((call["time"], "kubelet CRI", call["method"], call["error"] or ""))
    return rows


def statefulset_claims(cluster: Any, namespace: str = "default", statefulset: str = "web") -> list[dict]:
    """The StatefulSet's pods and their claims: which volume each claim is bound to, which pod uses it.

    Parameters
    ----------
    cluster : Cluster
        A run cluster.
    namespace, statefulset : str
        The StatefulSet; its claims are named ``<template>-<set>-<ordinal>``.

    Returns
    -------
    list of dict
        One per claim of the set, by name: ``claim``, ``phase``, ``volume``,
        ``claim_uid`` and the pod of the same ordinal's ``pod``, ``pod_uid``
        (``""`` when absent) and ``node``.

    Raises
    ------
    KeyError
        When the StatefulSet does not exist.

    Examples
    --------
    >>> before, after = simulate_statefulset_pod_deletion(40, 45)
    >>> [(r["claim"], r["volume"]) for r in before]
    [('data-web-0', 'nfs-1g-a'), ('data-web-1', 'nfs-1g-b'), ('data-web-2', 'nfs-5g')]
    """
    sts = cluster.client.get("statefulsets", statefulset, namespace)
    templates = [t["metadata"]["name"] for t in sts["spec"].get("volumeClaimTemplates") or ()]
    pods = {p["metadata"]["name"]: p for p in cluster.list("pods", namespace)}
    out = []
    for c in sorted(cluster.list("persistentvolumeclaims", namespace), key=lambda c: c["metadata"]["name"]):
        name = c["metadata"]["name"]
        template = next((t for t in templates if name.startswith(f"{t}-{statefulset}-")), None)
        if template is None:
            continue
        pod = pods.get(name[len(template) + 1:]) or {}
        out.append({"claim": name, "phase": (c.get("status") or {}).get("phase", ""),
                    "volume": c["spec"].get("volumeName", ""), "claim_uid": c["metadata"].get("uid", ""),
                    "pod": name[len(template) + 1:], "pod_uid": (pod.get("metadata") or {}).get("uid", ""),
                    "node": (pod.get("spec") or {}).get("nodeName", "")})
    return out


def simulate_statefulset_pod_deletion(before_seconds: float = 55.0, after_seconds: float = 90.0
                                      ) -> tuple[list[dict], list[dict]]:
    """Run ``data/storage/statefulset.yaml`` (web-1 deleted at 60 s): the claims before and after.

    Parameters
    ----------
    before_seconds, after_seconds : float
        The two virtual times at which :func:`statefulset_claims` is read
        (the file deletes pod ``web-1`` at 60 s).

    Returns
    -------
    (list of dict, list of dict)
        :func:`statefulset_claims` at ``before_seconds`` and at ``after_seconds``.

    Raises
    ------
    ValueError
        When ``after_seconds`` is before ``before_seconds``.

    Examples
    --------
    >>> before, after = simulate_statefulset_pod_deletion()
    >>> b, a = before[1], after[1]
    >>> (a["claim_uid"] == b["claim_uid"], a["volume"], a["pod_uid"] != b["pod_uid"])
    (True, 'nfs-1g-b', True)
    """
    if after_seconds < before_seconds:
        raise ValueError(f"after_seconds {after_seconds} is before before_seconds {before_seconds}")
    c = _run("statefulset.yaml", before_seconds)
    before = statefulset_claims(c)
    c.run(until=after_seconds)
    return before, statefulset_claims(c)


#: The taint an administrator puts on a node known to be shut down (``v1.TaintNodeOutOfService``, GA in v1.28).
OUT_OF_SERVICE_TAINT = {"key": "node.kubernetes.io/out-of-service", "value": "nodeshutdown", "effect": "NoExecute"}


def simulate_node_failure_rwo(force_delete_at_seconds: float | None = 150.0,
                              out_of_service_at_seconds: float | None = None,
                              until_seconds: float = 660.0) -> Any:
    """Run ``data/storage/node-failure-rwo.yaml``: node-1 dies under a ReadWriteOnce CSI volume.

    Parameters
    ----------
    force_delete_at_seconds : float or None
        When the administrator force-deletes node-1's pods (``kubectl delete pod --field-selector
        spec.nodeName=node-1 --grace-period=0 --force``; the file says 150 s); None: never. The volume is
        force-detached :data:`~kubenotes.controllers.volume.attachdetach.MAX_WAIT_FOR_UNMOUNT_SECONDS` later.
    out_of_service_at_seconds : float or None
        When the administrator taints node-1 ``node.kubernetes.io/out-of-service`` (:data:`OUT_OF_SERVICE_TAINT`):
        the pod garbage collector deletes its pods and the volume is detached at once; None (the file): never.
    until_seconds : float
        Virtual seconds to run.

    Returns
    -------
    kubenotes.sim.cluster.Cluster
        The stopped cluster (its ``attachdetach-controller`` holds the operations).

    Raises
    ------
    ValueError
        When the delete or the taint would come before the node fails (60 s).

    See Also
    --------
    attach_timeline

    Examples
    --------
    >>> c = simulate_node_failure_rwo(None, None, 160)
    >>> sorted(va["spec"]["nodeName"] for va in c.list("volumeattachments"))
    ['node-1']
    """
    from kubenotes.sim.scenario import Step
    from kubenotes.sim.scenarios import load_scenario_file

    _, scenario = load_scenario_file("storage/node-failure-rwo.yaml")
    node_down, delete = scenario.steps
    steps = [node_down]
    for at, what in ((force_delete_at_seconds, "force delete"), (out_of_service_at_seconds, "out-of-service taint")):
        if at is not None and at <= node_down.at_seconds:
            raise ValueError(f"the {what} must come after the node fails ({node_down.at_seconds:g} s), not at {at:g} s")
    if force_delete_at_seconds is not None:
        steps.append(Step(float(force_delete_at_seconds), delete.action, delete.args))
    if out_of_service_at_seconds is not None:
        steps.append(Step(float(out_of_service_at_seconds), "patch", {
            "kind": "Node", "name": node_down.args["name"],
            "patch": {"spec": {"taints": [dict(OUT_OF_SERVICE_TAINT)]}}}))
    return _run("node-failure-rwo.yaml", until_seconds, steps=sorted(steps, key=lambda st: st.at_seconds))


def attach_timeline(cluster: Any, namespace: str = "default") -> list[tuple[float, str, str, str]]:
    """The node-failure story in order: node and pod Events, attach/detach operations.

    Parameters
    ----------
    cluster : Cluster
        A finished :func:`simulate_node_failure_rwo` run.
    namespace : str
        The pods' namespace.

    Returns
    -------
    list of (float, str, str, str)
        ``(time, who, what, detail)``: Events of the nodes and pods
        (``NodeNotReady``, ``Scheduled``, ``FailedAttachVolume`` (the
        Multi-Attach error), ``SuccessfulAttachVolume``, ``TaintManagerEviction``,
        ``Started``), the attach/detach controller's ``AttachVolume`` /
        ``DetachVolume`` (with ``force: ...`` when forced) and the pod deletions
        made with ``kubectl`` (who ``kubectl``, what ``delete Pod``).

    Raises
    ------
    KeyError
        When the cluster has no attach/detach controller.

    Examples
    --------
    >>> rows = attach_timeline(simulate_node_failure_rwo(None, None, 160))
    >>> [what for _, _, what, _ in rows if what.startswith("Event Failed")]
    ['Event FailedAttachVolume']
    """
    from kubenotes.sim.timelines import events_by_time

    keep = ("NodeNotReady", "Scheduled", "FailedAttachVolume", "SuccessfulAttachVolume", "TaintManagerEviction",
            "Started")
    rows = []
    for t, e in events_by_time(cluster, limit=None):
        io = e.get("involvedObject") or {}
        if e["reason"] in keep and (io.get("kind") == "Node" or e["metadata"].get("namespace") == namespace):
            if io.get("kind") == "Pod" and e["reason"] == "NodeNotReady":
                continue
            rows.append((t or 0.0, f'{io.get("kind")}/{io.get("name")}', f'Event {e["reason"]}', e["message"]))
    for t, op, pv, node, detail in cluster.controllers["attachdetach-controller"].operations:
        rows.append((t, "attach/detach controller", op, f"{pv} on {node}" + (f" ({detail})" if detail else "")))
    for a in cluster.audit_log:  # the administrator's (the scenario's) pod deletions
        if a.component == "kubectl" and a.verb == "delete" and a.kind == "Pod" and a.namespace == namespace:
            rows.append((a.time, "kubectl", "delete Pod", a.name + (f" ({a.detail})" if a.detail else "")))
    return sorted(rows, key=lambda r: r[0])


def schedule_volume_filters(until_seconds: float = 30.0) -> tuple[dict, list[dict]]:
    """Run ``data/storage/volume-filters.yaml`` with the scheduler's traces kept: the volume Filter verdicts.

    Parameters
    ----------
    until_seconds : float
        Virtual seconds to run.

    Returns
    -------
    (dict, list of dict)
        The last scheduling attempt's trace (``name``, ``nodeName``, ``filter``:
        node -> plugin -> ``"passed"`` or reason, as
        :func:`kubenotes.viz.scheduler.filter_table` reads it) and every
        attempt's trace in order.

    Raises
    ------
    IndexError
        When the scheduler made no attempt.

    Examples
    --------
    >>> last, attempts = schedule_volume_filters()
    >>> last["nodeName"], last["filter"]["node-d"]["NodeVolumeLimits"]
    ('node-a', 'node(s) exceed max volume count')
    """
    from kubenotes.sim.cluster import Cluster
    from kubenotes.sim.scenario import cluster_options, start_scenario
    from kubenotes.sim.scenarios import load_scenario_file

    objects, scenario = load_scenario_file("storage/volume-filters.yaml")
    c = Cluster(objects, scheduler_trace=True, **cluster_options([scenario]))
    start_scenario(c, scenario)
    c.run(until=until_seconds)
    attempts = [t.to_dict() for t in c.scheduler.traces]
    return attempts[-1], attempts


def storage_graph(cluster: Any, namespace: str, pod: str) -> Any:
    """The objects one pod's volume goes through, as a graph: pod, claim, volume, class, driver, attachment, node.

    Parameters
    ----------
    cluster : Cluster
        A run cluster (the pod still exists).
    namespace, pod : str
        The pod.

    Returns
    -------
    networkx.DiGraph
        Nodes ``"<Kind>/<name>"`` with ``kind`` and ``name`` attributes; an edge
        per reference, labelled with the field that holds it
        (``spec.volumes[].persistentVolumeClaim``, ``spec.volumeName``,
        ``spec.csi.driver``, ``spec.source.persistentVolumeName``,
        ``spec.nodeName`` ...).

    Raises
    ------
    KeyError
        When the pod does not exist.

    Examples
    --------
    >>> g = storage_graph(simulate_csi_attach(25), "default", "csi-app")
    >>> sorted(g.successors("PersistentVolume/pv-csi-data"))
    ['CSIDriver/hostpath.csi.k8s.io', 'StorageClass/csi-hostpath-sc']
    """
    import networkx as nx

    p = cluster.client.get("pods", pod, namespace)
    g = nx.DiGraph()

    def add(kind: str, name: str) -> str:
        nid = f"{kind}/{name}"
        g.add_node(nid, kind=kind, name=name)
        return nid

    pid = add("Pod", pod)
    if p["spec"].get("nodeName"):
        g.add_edge(pid, add("Node", p["spec"]["nodeName"]), label="spec.nodeName")
    for v in p["spec"].get("volumes") or ():
        claim_name = (v.get("persistentVolumeClaim") or {}).get("claimName")
        if not claim_name:
            continue
        cid = add("PersistentVolumeClaim", claim_name)
        g.add_edge(pid, cid, label="spec.volumes[].persistentVolumeClaim")
        claim = cluster.client.get("persistentvolumeclaims", claim_name, namespace)
        if not claim["spec"].get("volumeName"):
            continue
        pv = cluster.client.get("persistentvolumes", claim["spec"]["volumeName"])
        vid = add("PersistentVolume", pv["metadata"]["name"])
        g.add_edge(cid, vid, label="spec.volumeName")
        if get_persistent_volume_class(pv):
            g.add_edge(vid, add("StorageClass", get_persistent_volume_class(pv)), label="spec.storageClassName")
        driver = (pv["spec"].get("csi") or {}).get("driver")
        if driver:
            g.add_edge(vid, add("CSIDriver", driver), label="spec.csi.driver")
        for va in cluster.list("volumeattachments"):
            if (va["spec"].get("source") or {}).get("persistentVolumeName") == pv["metadata"]["name"]:
                aid = add("VolumeAttachment", va["metadata"]["name"])
                g.add_edge(aid, vid, label="spec.source.persistentVolumeName")
                g.add_edge(aid, add("Node", va["spec"]["nodeName"]), label="spec.nodeName")
    return g
