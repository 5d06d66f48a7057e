"""VolumeBinding: PersistentVolumeClaims, bound or bound at scheduling time (``volume_binding.go``).

Mirrors ``pkg/scheduler/framework/plugins/volumebinding/volume_binding.go``:

* **PreFilter** -- Skip for a pod without claims; a missing or deleted claim,
  or a claim Lost with its PV, is UnschedulableAndUnresolvable; unbound
  ``Immediate`` claims give ``pod has unbound immediate
  PersistentVolumeClaims``; bound local PVs narrow the nodes (PreFilterResult);
* **Filter** -- the binder's FindPodVolumes per node; its conflict reasons
  (``node(s) had volume node affinity conflict``, ``node(s) didn't find
  available persistent volumes to bind``, ``node(s) did not have enough free
  storage``...) are UnschedulableAndUnresolvable;
* **PreScore/Score** -- only with the StorageCapacityScoring feature gate
  (alpha, off by default in v1.34): the shape over static bindings' or
  provisioned classes' utilization;
* **Reserve/Unreserve** -- assume / revert in the binder's caches;
* **PreBind** -- write the PV claimRefs and the claims'
  ``volume.kubernetes.io/selected-node``, then wait (polling each second, at
  most ``bindTimeoutSeconds``, 600 by default) for the PV controller.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/volumebinding/volume_binding.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/apis/config/v1/defaults.go (SetDefaults_VolumeBindingArgs)
KEP-1845 / KEP-4049 (capacity scoring), https://kubernetes.io/docs/concepts/storage/storage-capacity/
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from kubenotes.errors import ConfigError, NotFound
from kubenotes.scheduler.framework.interface import Code, PreFilterResult, Status
from kubenotes.scheduler.plugins.names import VOLUME_BINDING as NAME
from kubenotes.scheduler.plugins.volumebinding import binder as b
from kubenotes.scheduler.plugins.volumebinding.scorer import (
    StorageResource,
    build_scorer_function,
    shape_from_args,
)

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.cycle_state import CycleState
    from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo

__all__ = ["NAME", "STATE_KEY", "DEFAULT_BIND_TIMEOUT_SECONDS", "ERR_REASON_UNBOUND_IMMEDIATE", "StateData",
           "VolumeBinding", "new"]

STATE_KEY = NAME
#: ``VolumeBindingArgs.bindTimeoutSeconds`` default.
DEFAULT_BIND_TIMEOUT_SECONDS = 600
#: PreFilter reason for claims the PV controller must bind first.
ERR_REASON_UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"
#: PreBind's poll interval (``wait.PollUntilContextTimeout(ctx, time.Second, ...)``).
POLL_INTERVAL_SECONDS = 1.0
_STORAGE_CAPACITY_SCORING = "StorageCapacityScoring"


@dataclass(slots=True)
class StateData:
    """The cycle state (upstream ``stateData``); shared, not copied, by ``clone``.

    Attributes
    ----------
    all_bound : bool
        Set by Reserve: nothing to write at PreBind.
    pod_volumes_by_node : dict[str, PodVolumes]
        What Filter found per feasible node.
    pod_volume_claims : PodVolumeClaims or None
    has_static_bindings : bool
    """

    all_bound: bool = False
    pod_volumes_by_node: dict[str, b.PodVolumes] = field(default_factory=dict)
    pod_volume_claims: b.PodVolumeClaims | None = None
    has_static_bindings: bool = False

    def clone(self) -> "StateData":
        return self


class VolumeBinding:
    """The VolumeBinding plugin.

    Parameters
    ----------
    handle : Framework
        ``objects`` (claims, PVs, StorageClasses, CSINodes, CSIDrivers,
        CSIStorageCapacities); optional ``volume_client`` (``update(resource,
        obj) -> dict``) for PreBind's writes, ``volume_bind_waiter`` (see
        :meth:`pre_bind`), ``feature_gates`` (``enabled(name)``).
    bind_timeout_seconds : float
    scorer : callable or None
        ``class -> StorageResource`` -> score; None disables Score.
    storage_capacity_scoring : bool
        The StorageCapacityScoring gate.

    Notes
    -----
    Without a ``volume_client`` (the offline ``schedule`` command: no API
    server, no PV controller) PreBind keeps the assumed bindings in the
    binder's caches and succeeds, as DefaultBinder succeeds without a binder.
    With a client but no ``volume_bind_waiter``, PreBind checks the bindings
    once and fails with ``binding volumes: context deadline exceeded`` when
    they are incomplete (nothing can complete them during a synchronous
    binding cycle). Queueing hints and the PreBindPreFlight extension are not
    modelled.

    See Also
    --------
    kubenotes.scheduler.plugins.volumebinding.binder.VolumeBinder : claim matching, assume cache, API writes.
    kubenotes.scheduler.plugins.volumezone.VolumeZone : zone labels of bound PVs.
    kubenotes.scheduler.plugins.nodevolumelimits.CSILimits : CSI attach limits.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/volumebinding/volume_binding.go

    Examples
    --------
    A WaitForFirstConsumer claim and a local PV on ``n2``: only ``n2`` passes Filter.

    >>> from types import SimpleNamespace
    >>> from lightkube.codecs import from_dict
    >>> from kubenotes.scheduler.framework.cycle_state import CycleState
    >>> from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo
    >>> from kubenotes.scheduler.snapshot import ClusterObjects
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> sc = from_dict({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "local"},
    ...                 "provisioner": "kubernetes.io/no-provisioner", "volumeBindingMode": "WaitForFirstConsumer"})
    >>> pvc = from_dict({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
    ...                  "metadata": {"name": "data", "namespace": "default"},
    ...                  "spec": {"storageClassName": "local", "resources": {"requests": {"storage": "1Gi"}}}})
    >>> pv = from_dict({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv-n2"},
    ...                 "spec": {"storageClassName": "local", "capacity": {"storage": "5Gi"}, "nodeAffinity": {
    ...                     "required": {"nodeSelectorTerms": [{"matchExpressions": [
    ...                         {"key": "kubernetes.io/hostname", "operator": "In", "values": ["n2"]}]}]}}},
    ...                 "status": {"phase": "Available"}})
    >>> pl = new(None, SimpleNamespace(objects=ClusterObjects(persistent_volume_claims=[pvc],
    ...                                                       persistent_volumes=[pv], storage_classes=[sc])))
    >>> pod = PodInfo(make_pod("db", volumes=[{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]))
    >>> state = CycleState()
    >>> pl.pre_filter(state, pod, [])[1].is_success()
    True
    >>> for name in ("n1", "n2"):
    ...     n = make_node(name)
    ...     n.metadata.labels = {"kubernetes.io/hostname": name}
    ...     print(name, pl.filter(state, pod, NodeInfo(n)).reasons)
    n1 ["node(s) didn't find available persistent volumes to bind"]
    n2 []
    """

    def __init__(self, handle: Any, bind_timeout_seconds: float = DEFAULT_BIND_TIMEOUT_SECONDS,
                 scorer: Callable[[dict[str, StorageResource]], int] | None = None,
                 storage_capacity_scoring: bool = False):
        self.handle = handle
        self.binder = b.VolumeBinder(handle, bind_timeout_seconds)
        self.scorer = scorer
        self.storage_capacity_scoring = storage_capacity_scoring

    def name(self) -> str:
        """``VolumeBinding``."""
        return NAME

    # ------------------------------------------------------------ PreFilter
    def _pod_has_pvcs(self, pod: "PodInfo") -> tuple[bool, str | None]:
        """(has claims, error text) (``podHasPVCs``)."""
        has = False
        for name, ephemeral in self.binder.pod_claims(pod):
            has = True
            pvc = self.binder.pvc_cache.get(f"{pod.namespace}/{name}")
            if pvc is None:
                return has, f'persistentvolumeclaim "{name}" not found'
            md = pvc.get("metadata") or {}
            if md.get("deletionTimestamp"):
                return has, f'persistentvolumeclaim "{md.get("name")}" is being deleted'
            if ephemeral:
                err = self.binder.volume_is_for_pod(pod, pvc)
                if err:
                    return has, err
            if (pvc.get("status") or {}).get("phase") == "Lost":
                return has, (f'persistentvolumeclaim "{md.get("name")}" bound to non-existent persistentvolume '
                             f'"{(pvc.get("spec") or {}).get("volumeName") or ""}"')
        return has, None

    def pre_filter(self, state: "CycleState", pod: "PodInfo", nodes: list["NodeInfo"]
                   ) -> tuple[PreFilterResult | None, Status]:
        """Sort the pod's claims; reject unbound Immediate ones; narrow to local PVs' nodes."""
        if not self.binder.pod_claims(pod):  # no claim-backed volume: nothing to look up
            state.write(STATE_KEY, StateData())
            return None, Status.skip()
        self.binder.listers.refresh()
        has, err = self._pod_has_pvcs(pod)
        if err is not None:
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [err])
        if not has:
            state.write(STATE_KEY, StateData())
            return None, Status.skip()
        try:
            claims = self.binder.get_pod_volume_claims(pod)
        except b.VolumeBindingError as e:
            return None, Status.error(str(e))
        if claims.unbound_claims_immediate:
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [ERR_REASON_UNBOUND_IMMEDIATE])
        eligible = self.binder.get_eligible_nodes(claims.bound_claims)
        state.write(STATE_KEY, StateData(pod_volume_claims=b.PodVolumeClaims(
            claims.bound_claims, [], claims.unbound_claims_delay_binding, claims.unbound_volumes_delay_binding)))
        return (PreFilterResult(eligible) if eligible is not None else None), Status()

    def pre_filter_extensions(self) -> None:
        """None: the state does not depend on other pods."""
        return None

    @staticmethod
    def _state(state: "CycleState") -> StateData | Status:
        try:
            return state.read(STATE_KEY)
        except NotFound:
            return Status.error(f'reading "{STATE_KEY}" from cycle state: not found')

    # ------------------------------------------------------------ Filter
    def filter(self, state: "CycleState", pod: "PodInfo", node_info: "NodeInfo") -> Status:
        """Run FindPodVolumes for the node and remember its result."""
        s = self._state(state)
        if isinstance(s, Status):
            return s
        if s.pod_volume_claims is None:
            return Status()
        try:
            pod_volumes, reasons = self.binder.find_pod_volumes(pod, s.pod_volume_claims, node_info)
        except b.VolumeBindingError as e:
            return Status.error(str(e))
        if reasons:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, reasons)
        s.pod_volumes_by_node[node_info.name] = pod_volumes
        s.has_static_bindings = s.has_static_bindings or bool(pod_volumes.static_bindings)
        return Status()

    # ------------------------------------------------------------ Score
    def pre_score(self, state: "CycleState", pod: "PodInfo", nodes: list["NodeInfo"]) -> Status:
        """Skip unless a scorer is configured and there is something to score."""
        if self.scorer is None:
            return Status.skip()
        s = self._state(state)
        if isinstance(s, Status):
            return s
        if s.has_static_bindings or self.storage_capacity_scoring:
            return Status()
        return Status.skip()

    def score(self, state: "CycleState", pod: "PodInfo", node_info: "NodeInfo") -> tuple[int, Status]:
        """Utilization of each storage class through the shape, averaged over classes."""
        if self.scorer is None:
            return 0, Status()
        s = self._state(state)
        if isinstance(s, Status):
            return 0, s
        pv = s.pod_volumes_by_node.get(node_info.name)
        if pv is None:
            return 0, Status()
        classes: dict[str, StorageResource] = {}
        if pv.static_bindings or not self.storage_capacity_scoring:
            for sb in pv.static_bindings or ():
                r = classes.setdefault(sb.storage_class_name(), StorageResource())
                req, cap = sb.storage_resource()
                r.requested += req
                r.capacity += cap
        else:
            from kubenotes.api import storagehelpers as sh
            from kubenotes.api.quantity import value

            for p in pv.dynamic_provisions or ():
                if p.node_capacity is None:
                    continue
                r = classes.setdefault((p.pvc.get("spec") or {}).get("storageClassName") or "", StorageResource())
                r.capacity = value(p.node_capacity.get("capacity") or 0)  # not +=: one pool per class
                r.requested += sh.storage_request_bytes(p.pvc)
        return self.scorer(classes), Status()

    def score_extensions(self) -> None:
        """None: scores are already in [0, 100]."""
        return None

    # ------------------------------------------------------------ Reserve
    def reserve(self, state: "CycleState", pod: "PodInfo", node_name: str) -> Status:
        """Assume the node's bindings in the binder's caches."""
        s = self._state(state)
        if isinstance(s, Status):
            return s
        pv = s.pod_volumes_by_node.get(node_name)
        if pv is None:
            s.all_bound = True  # the pod has no claims
            return Status()
        try:
            s.all_bound = self.binder.assume_pod_volumes(pod, node_name, pv)
        except b.VolumeBindingError as e:
            return Status.error(str(e))
        return Status()

    def unreserve(self, state: "CycleState", pod: "PodInfo", node_name: str) -> None:
        """Revert the assumptions made by Reserve."""
        s = self._state(state)
        if isinstance(s, Status):
            return None
        pv = s.pod_volumes_by_node.get(node_name)
        if pv is not None:
            self.binder.revert_assumed_pod_volumes(pv)
        return None

    # ------------------------------------------------------------ PreBind
    def pre_bind(self, state: "CycleState", pod: "PodInfo", node_name: str) -> Status:
        """Write the bindings and wait for the PV controller to complete them.

        With ``handle.volume_bind_waiter`` (the running cluster), the wait is
        handed to it: ``waiter(pod, node_name, check, timeout_seconds,
        interval_seconds, state)`` where ``check()`` returns True when done and raises
        :class:`~kubenotes.scheduler.plugins.volumebinding.binder.VolumeBindingError`
        when waiting is pointless; the waiter delays the pod's Bind and, on a
        failure or a timeout, fails the binding cycle with
        ``running PreBind plugin "VolumeBinding": binding volumes: <error>``.
        """
        s = self._state(state)
        if isinstance(s, Status):
            return s
        if s.all_bound:
            return Status()
        pv = s.pod_volumes_by_node.get(node_name)
        if pv is None:
            return Status.error(f'no pod volumes found for node "{node_name}"')
        client = getattr(self.handle, "volume_client", None)
        if client is None:
            return Status()  # no API server: the assumed bindings stand (see Notes)
        try:
            self.binder.bind_api_update(pod, pv, client)
        except b.VolumeBindingError as e:
            return Status.error(str(e))
        labels = self._node_labels(node_name)

        def check() -> bool:
            self.binder.listers.refresh()
            lister = getattr(self.handle, "pod_lister", None)
            exists = lister is None or lister.get(pod.namespace, pod.name) is not None
            return self.binder.check_bindings(pod, node_name, pv, labels, exists)

        waiter = getattr(self.handle, "volume_bind_waiter", None)
        if waiter is not None:
            waiter(pod, node_name, check, self.binder.bind_timeout_seconds, POLL_INTERVAL_SECONDS, state)
            return Status()
        try:
            done = check()
        except b.VolumeBindingError as e:
            return Status.error(f"binding volumes: {e}")
        return Status() if done else Status.error("binding volumes: context deadline exceeded")

    def _node_labels(self, node_name: str) -> dict[str, str]:
        snap = getattr(self.handle, "snapshot", None)
        ni = snap.get(node_name) if snap is not None else None
        return dict(ni.labels) if ni is not None else {}


def new(args: Any, handle: Any) -> VolumeBinding:
    """Build VolumeBinding from ``VolumeBindingArgs`` (``New``).

    Parameters
    ----------
    args : dict or None
        ``bindTimeoutSeconds`` (default 600) and, with StorageCapacityScoring,
        ``shape`` (default ``[{0, 10}, {100, 0}]``).
    handle : Framework or None
        ``handle.feature_gates.enabled("StorageCapacityScoring")`` turns Score on.

    Raises
    ------
    ConfigError
        For a negative ``bindTimeoutSeconds``.

    Examples
    --------
    >>> new({"bindTimeoutSeconds": 30}, None).binder.bind_timeout_seconds
    30
    """
    a = dict(args or {})
    timeout = a.get("bindTimeoutSeconds")
    timeout = DEFAULT_BIND_TIMEOUT_SECONDS if timeout is None else timeout
    if timeout < 0:
        raise ConfigError(f"bindTimeoutSeconds: Invalid value: {timeout}: invalid BindTimeoutSeconds, should not be a "
                          "negative value")
    gates = getattr(handle, "feature_gates", None)
    scoring = bool(gates is not None and gates.enabled(_STORAGE_CAPACITY_SCORING))
    scorer = build_scorer_function(shape_from_args(a.get("shape"))) if scoring else None
    return VolumeBinding(handle, timeout, scorer, scoring)
