"""The framework runtime: a plugin ``Registry`` and the ``Framework`` that runs a profile's plugins.

Mirrors ``pkg/scheduler/framework/runtime`` (``frameworkImpl`` in
``framework.go``, ``Registry`` in ``registry.go``) and the ``NodeToStatus``
map of ``pkg/scheduler/framework/interface.go``. A :class:`Framework` is built
from one (defaulted) :class:`~kubenotes.scheduler.config.KubeSchedulerProfile`:
it instantiates every enabled plugin once, expands ``multiPoint``, orders the
plugins per extension point, keeps the Score weights, and offers one
``run_*`` method per extension point. It is also the ``Handle`` handed to
every plugin factory.

Notes
-----
Upstream runs Filter and Score over nodes in parallel (16 goroutines); kubenotes
runs them one node after the other, which gives the same results because
plugins only read shared state. Metrics, logging, the waiting-pods map of
Permit and the asynchronous API dispatcher are left out: a Permit ``Wait`` is
treated as an immediate approval.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/runtime/framework.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/runtime/registry.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/interface.go
KEP-624 (scheduling framework), KEP-2891 (multiPoint)
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

from kubenotes.errors import AlreadyExists, ConfigError, NotFound
from kubenotes.scheduler.framework.cycle_state import CycleState
from kubenotes.scheduler.framework.interface import (
    MAX_NODE_SCORE,
    MAX_TOTAL_SCORE,
    MIN_NODE_SCORE,
    Code,
    NodeScore,
    PostFilterResult,
    PreFilterResult,
    Status,
)

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo

__all__ = [
    "EXTENSION_POINTS",
    "PluginFactory",
    "Registry",
    "NodeToStatus",
    "PluginScore",
    "NodePluginScores",
    "Framework",
]

#: ``new(args, handle) -> plugin``: ``args`` is the raw ``pluginConfig`` mapping (camelCase) or None.
PluginFactory = Callable[[Any, Any], Any]

# Extension point -> (method the plugin must define, upstream interface name).
# Order is getExtensionPoints() of framework.go; error messages follow it.
_EXTENSION_POINTS: tuple[tuple[str, str, str], ...] = (
    ("PreFilter", "pre_filter", "PreFilterPlugin"),
    ("Filter", "filter", "FilterPlugin"),
    ("PostFilter", "post_filter", "PostFilterPlugin"),
    ("Reserve", "reserve", "ReservePlugin"),
    ("PreScore", "pre_score", "PreScorePlugin"),
    ("Score", "score", "ScorePlugin"),
    ("PreBind", "pre_bind", "PreBindPlugin"),
    ("Bind", "bind", "BindPlugin"),
    ("PostBind", "post_bind", "PostBindPlugin"),
    ("Permit", "permit", "PermitPlugin"),
    ("PreEnqueue", "pre_enqueue", "PreEnqueuePlugin"),
    ("QueueSort", "less", "QueueSortPlugin"),
)

#: Extension point names in the order the framework wires them.
EXTENSION_POINTS: tuple[str, ...] = tuple(e[0] for e in _EXTENSION_POINTS)

#: Longest Permit wait upstream allows (``maxTimeout``), seconds.
MAX_PERMIT_TIMEOUT_SECONDS = 15 * 60


class Registry(dict):
    """All available plugins: name -> factory (``runtime.Registry``).

    Examples
    --------
    >>> r = Registry()
    >>> r.register("Foo", lambda args, handle: None)
    >>> r.register("Foo", lambda args, handle: None)
    Traceback (most recent call last):
    ...
    kubenotes.errors.AlreadyExists: a plugin named Foo already exists
    >>> sorted(r)
    ['Foo']

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/runtime/registry.go
    """

    def register(self, name: str, factory: PluginFactory) -> None:
        """Add ``factory`` under ``name``.

        Raises
        ------
        AlreadyExists
            When ``name`` is already registered (upstream: ``a plugin named X already exists``).
        """
        if name in self:
            raise AlreadyExists(f"a plugin named {name} already exists")
        self[name] = factory

    def unregister(self, name: str) -> None:
        """Remove ``name``.

        Raises
        ------
        NotFound
            When ``name`` is not registered (``no plugin named X exists``).
        """
        if name not in self:
            raise NotFound(f"no plugin named {name} exists")
        del self[name]

    def merge(self, other: Mapping[str, PluginFactory]) -> None:
        """Register every entry of ``other``.

        Raises
        ------
        AlreadyExists
            On the first name present in both.
        """
        for name, factory in other.items():
            self.register(name, factory)


class NodeToStatus(dict):
    """Statuses of the nodes where the pod did not fit (``framework.NodeToStatus``).

    A ``dict`` node name -> :class:`Status` for the nodes that were evaluated
    and rejected, plus :attr:`absent_nodes_status` for every node not in the
    map (by default ``UnschedulableAndUnresolvable`` with no reason: nodes
    excluded by a PreFilterResult, or all nodes when PreFilter rejected the pod).

    ``len()`` counts only explicit nodes, like upstream's ``Len()``.

    Examples
    --------
    >>> m = NodeToStatus()
    >>> m["n1"] = Status.unschedulable("Insufficient cpu")
    >>> m.status_of("n1").reasons, str(m.status_of("n2").code), len(m)
    (['Insufficient cpu'], 'UnschedulableAndUnresolvable', 1)
    """

    def __init__(self, *args: Any, absent_nodes_status: Status | None = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.absent_nodes_status = absent_nodes_status or Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)

    def status_of(self, node_name: str) -> Status:
        """Status of ``node_name``: explicit, or the absent-nodes status (``Get``)."""
        s = dict.get(self, node_name)
        return s if s is not None else self.absent_nodes_status

    def set_absent_nodes_status(self, status: Status) -> None:
        """Status every node absent from the map gets (``SetAbsentNodesStatus``)."""
        self.absent_nodes_status = status

    def nodes_for_status_code(self, node_infos: Iterable["NodeInfo"], code: Code) -> list["NodeInfo"]:
        """Nodes (in ``node_infos`` order) whose status has ``code``, absent ones included (``NodesForStatusCode``)."""
        out = []
        absent_match = self.absent_nodes_status.code == code
        for ni in node_infos:
            s = dict.get(self, ni.name)
            if s is None:
                if absent_match:
                    out.append(ni)
            elif s.code == code:
                out.append(ni)
        return out


@dataclass(slots=True)
class PluginScore:
    """One plugin's weighted score of a node (``framework.PluginScore``)."""

    name: str
    score: int


@dataclass(slots=True)
class NodePluginScores:
    """All plugins' weighted scores of one node and their sum (``framework.NodePluginScores``)."""

    name: str
    scores: list[PluginScore] = field(default_factory=list)
    total_score: int = 0


def _defines(plugin: Any, method: str) -> bool:
    return callable(getattr(plugin, method, None))


def _status(s: Any) -> Status:
    return Status() if s is None else s


class Framework:
    """Runs a profile's plugins at each extension point (``frameworkImpl``), and is their ``Handle``.

    Parameters
    ----------
    registry : Registry
        Name -> factory; only plugins the profile enables are instantiated, once.
    profile : KubeSchedulerProfile, optional
        A defaulted profile (see :func:`kubenotes.scheduler.config.load_config`):
        ``scheduler_name``, ``percentage_of_nodes_to_score``, ``plugins`` (per
        extension point ``enabled``/``disabled`` lists, ``multi_point``) and
        ``plugin_config``. ``None`` builds an empty framework.
    snapshot : Snapshot, optional
        The node snapshot plugins read (``SnapshotSharedLister``).
    objects : ClusterObjects, optional
        Other API objects (services, PVCs, PDBs...).
    rng : random.Random, optional
        The scheduler's seeded random source (upstream: the global ``math/rand``).
    nominator : PodNominator, optional
        Nominated pods per node (from the scheduling queue).
    binder : callable(PodInfo, str) -> None, optional
        Called by DefaultBinder to create the ``pods/binding`` subresource.
    pod_deleter : callable(PodInfo) -> None, optional
        Deletes a pod (preemption victims); see :meth:`delete_pod`.
    pod_lister : object, optional
        ``get(namespace, name) -> PodInfo | None`` and ``list() -> list[PodInfo]`` over all pods.

    Attributes
    ----------
    profile_name : str
    percentage_of_nodes_to_score : int or None
        The profile's value (None: use the global one).
    score_plugin_weight : dict[str, int]
        Score plugin -> weight.
    plugins_map : dict[str, object]
        Every instantiated plugin by name.
    extenders : list
        The scheduler's extenders (``Handle.Extenders``), set by the
        scheduler; preemption calls those that support it.

    Raises
    ------
    ConfigError
        With upstream's NewFramework message: ``PreFilterPlugin "Foo" does not exist``,
        ``plugin "X" does not extend FilterPlugin plugin``, ``plugin "X" already registered as "FilterPlugin"``,
        ``only one queue sort plugin required for profile with scheduler name "s", but got 0``,
        ``at least one bind plugin is needed for profile with scheduler name "s"``,
        ``repeated config for plugin X``, ``initializing plugin "X": <err>``.

    Notes
    -----
    Which extension points a plugin implements is decided by the methods it
    defines (``filter``, ``score``...), as Go decides by interface satisfaction.
    A Permit ``Wait`` is not simulated (there is no clock in a scheduling
    cycle): the waiting pod is treated as allowed.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/runtime/framework.go

    Examples
    --------
    >>> class Always:
    ...     def name(self): return "Always"
    ...     def filter(self, state, pod, node_info): return Status()
    ...     def less(self, a, b): return False
    ...     def bind(self, state, pod, node_name): return Status()
    >>> from kubenotes.scheduler.config import KubeSchedulerProfile, Plugins, PluginSet, Plugin
    >>> prof = KubeSchedulerProfile(plugins=Plugins(multi_point=PluginSet(enabled=[Plugin("Always")])))
    >>> fw = Framework(Registry(Always=lambda args, h: Always()), prof)
    >>> fw.list_plugins()
    {'Filter': ['Always'], 'Bind': ['Always'], 'QueueSort': ['Always']}
    """

    def __init__(
        self,
        registry: Mapping[str, PluginFactory],
        profile: Any = None,
        *,
        snapshot: Any = None,
        objects: Any = None,
        rng: random.Random | None = None,
        nominator: Any = None,
        binder: Callable[["PodInfo", str], None] | None = None,
        pod_deleter: Callable[["PodInfo"], None] | None = None,
        pod_lister: Any = None,
    ):
        self.registry = registry
        self.snapshot = snapshot
        self.objects = objects
        self.rng = rng if rng is not None else random.Random(0)
        self.nominator = nominator
        self.binder = binder
        self.pod_deleter = pod_deleter
        self.pod_lister = pod_lister
        self.extenders: list[Any] = []
        self.profile = profile
        self.profile_name = ""
        self.percentage_of_nodes_to_score: int | None = None
        self.score_plugin_weight: dict[str, int] = {}
        self.plugins_map: dict[str, Any] = {}
        self.pre_enqueue_plugins: list[Any] = []
        self.queue_sort_plugins: list[Any] = []
        self.pre_filter_plugins: list[Any] = []
        self.filter_plugins: list[Any] = []
        self.post_filter_plugins: list[Any] = []
        self.pre_score_plugins: list[Any] = []
        self.score_plugins: list[Any] = []
        self.reserve_plugins: list[Any] = []
        self.permit_plugins: list[Any] = []
        self.pre_bind_plugins: list[Any] = []
        self.bind_plugins: list[Any] = []
        self.post_bind_plugins: list[Any] = []
        self._filter_calls: list[tuple[str, Any]] = []
        if profile is None:
            return
        self.profile_name = profile.scheduler_name
        self.percentage_of_nodes_to_score = profile.percentage_of_nodes_to_score
        if profile.plugins is None:
            return
        self._build(profile)

    # ------------------------------------------------------------------ build
    def _slices(self) -> dict[str, list[Any]]:
        return {
            "PreFilter": self.pre_filter_plugins,
            "Filter": self.filter_plugins,
            "PostFilter": self.post_filter_plugins,
            "Reserve": self.reserve_plugins,
            "PreScore": self.pre_score_plugins,
            "Score": self.score_plugins,
            "PreBind": self.pre_bind_plugins,
            "Bind": self.bind_plugins,
            "PostBind": self.post_bind_plugins,
            "Permit": self.permit_plugins,
            "PreEnqueue": self.pre_enqueue_plugins,
            "QueueSort": self.queue_sort_plugins,
        }

    def _build(self, profile: Any) -> None:
        plugins = profile.plugins
        needed: set[str] = set()
        for ext, _, _ in _EXTENSION_POINTS:
            needed.update(p.name for p in plugins.plugin_set(ext).enabled)
        needed.update(p.name for p in plugins.multi_point.enabled)

        plugin_config: dict[str, Any] = {}
        for pc in profile.plugin_config:
            if pc.name in plugin_config:
                raise ConfigError(f"repeated config for plugin {pc.name}")
            plugin_config[pc.name] = pc.args

        for name, factory in self.registry.items():
            if name not in needed:
                continue
            try:
                p = factory(plugin_config.get(name), self)
            except ConfigError as e:
                raise ConfigError(f"initializing plugin {_q(name)}: {e}") from e
            self.plugins_map[name] = p

        slices = self._slices()
        for ext, method, iface in _EXTENSION_POINTS:
            seen: set[str] = set()
            for ep in plugins.plugin_set(ext).enabled:
                pg = self.plugins_map.get(ep.name)
                if pg is None:
                    raise ConfigError(f"{iface} {_q(ep.name)} does not exist")
                if not _defines(pg, method):
                    raise ConfigError(f"plugin {_q(ep.name)} does not extend {iface} plugin")
                if ep.name in seen:
                    raise ConfigError(f"plugin {_q(ep.name)} already registered as {_q(iface)}")
                seen.add(ep.name)
                slices[ext].append(pg)

        if plugins.multi_point.enabled:
            self._expand_multi_point(plugins, slices)

        if len(self.queue_sort_plugins) != 1:
            raise ConfigError(
                f"only one queue sort plugin required for profile with scheduler name {_q(profile.scheduler_name)}, "
                f"but got {len(self.queue_sort_plugins)}"
            )
        if not self.bind_plugins:
            raise ConfigError(f"at least one bind plugin is needed for profile with scheduler name {_q(profile.scheduler_name)}")

        total = 0
        for e in list(plugins.score.enabled) + list(plugins.multi_point.enabled):
            pg = self.plugins_map.get(e.name)
            if pg is None or not _defines(pg, "score"):
                continue
            if e.name in self.score_plugin_weight:
                continue
            w = int(e.weight or 0) or 1
            self.score_plugin_weight[e.name] = w
            if w * MAX_NODE_SCORE > MAX_TOTAL_SCORE - total:
                raise ConfigError("total score of Score plugins could overflow")
            total += w * MAX_NODE_SCORE
        for pl in self.score_plugins:
            if self.score_plugin_weight.get(pl.name(), 0) == 0:
                raise ConfigError(f"score plugin {_q(pl.name())} is not configured with weight")

    def _expand_multi_point(self, plugins: Any, slices: dict[str, list[Any]]) -> None:
        for ext, method, iface in _EXTENSION_POINTS:
            ps = plugins.plugin_set(ext)
            enabled = [p.name for p in ps.enabled]
            disabled = {p.name for p in ps.disabled}
            if "*" in disabled:
                continue
            multi: list[str] = []
            overrides: set[str] = set()
            for ep in plugins.multi_point.enabled:
                pg = self.plugins_map.get(ep.name)
                if pg is None:
                    raise ConfigError(f"{iface} {_q(ep.name)} does not exist")
                if not _defines(pg, method):
                    continue
                if ep.name in disabled:
                    continue
                if ep.name in enabled:
                    overrides.add(ep.name)
                    continue
                if ep.name in multi:
                    raise ConfigError(f"plugin {_q(ep.name)} already registered as {_q(iface)}")
                multi.append(ep.name)
            # Order: explicit overrides (in extension-point order), then multiPoint, then the rest.
            order = [n for n in enabled if n in overrides] + multi + [n for n in enabled if n not in overrides]
            slices[ext][:] = [self.plugins_map[n] for n in order]

    # --------------------------------------------------------------- queries
    def list_plugins(self) -> dict[str, list[str]]:
        """Extension point -> plugin names in run order (``ListPlugins``), empty points left out."""
        out: dict[str, list[str]] = {}
        for ext, lst in self._slices().items():
            if lst:
                out[ext] = [p.name() for p in lst]
        return out

    def has_filter_plugins(self) -> bool:
        """At least one Filter plugin."""
        return bool(self.filter_plugins)

    def has_post_filter_plugins(self) -> bool:
        """At least one PostFilter plugin."""
        return bool(self.post_filter_plugins)

    def has_score_plugins(self) -> bool:
        """At least one Score plugin."""
        return bool(self.score_plugins)

    def queue_sort_func(self) -> Callable[[Any, Any], bool]:
        """The QueueSort plugin's ``less`` (``QueueSortFunc``)."""
        if not self.queue_sort_plugins:
            return lambda a, b: False
        return self.queue_sort_plugins[0].less

    def queue_sort_key(self) -> Callable[[Any], Any] | None:
        """The QueueSort plugin's ``sort_key`` (kubenotes only), when it has one.

        A key ``k`` with ``less(a, b) == (k(a) < k(b))`` lets the queue
        compare tuples instead of calling ``less``; None otherwise.
        """
        if not self.queue_sort_plugins:
            return None
        return getattr(self.queue_sort_plugins[0], "sort_key", None)

    # ------------------------------------------------------------ PreEnqueue
    def run_pre_enqueue_plugins(self, pod: "PodInfo") -> Status:
        """Run PreEnqueue plugins until one does not succeed (the queue's ``runPreEnqueuePlugins``).

        Returns
        -------
        Status
            Success, or the first rejection with its ``plugin`` set.
        """
        for pl in self.pre_enqueue_plugins:
            s = _status(pl.pre_enqueue(pod))
            if not s.is_success():
                s.plugin = pl.name()
                return s
        return Status()

    # ------------------------------------------------------------- PreFilter
    def run_pre_filter_plugins(
        self, state: CycleState, pod: "PodInfo", record: dict[str, Any] | None = None
    ) -> tuple[PreFilterResult | None, Status, set[str]]:
        """Run PreFilter plugins and merge their PreFilterResults (``RunPreFilterPlugins``).

        Parameters
        ----------
        state : CycleState
            ``state.skip_filter_plugins`` is set to the plugins that returned Skip.
        pod : PodInfo
        record : dict[str, tuple[PreFilterResult | None, Status]], optional
            Filled with plugin -> (result, status) returned, for the trace.

        Returns
        -------
        result : PreFilterResult or None
            Intersection of the plugins' node sets (None: all nodes).
        status : Status
            Success; Unschedulable (all plugins ran); UnschedulableAndUnresolvable
            (stopped early, or the merged node set is empty: ``node(s) didn't satisfy
            plugin X`` / ``node(s) didn't satisfy plugin(s) [X Y] simultaneously``);
            or Error (``running PreFilter plugin "X": <msg>``).
        plugins_with_nodes : set[str]
            Plugins that narrowed the node set.
        """
        skip: set[str] = set()
        nodes = self.snapshot.list() if self.snapshot is not None else []
        result: PreFilterResult | None = None
        plugins_with_nodes: set[str] = set()
        return_status = Status()
        try:
            for pl in self.pre_filter_plugins:
                name = pl.name()
                r, s = pl.pre_filter(state, pod, nodes)
                s = _status(s)
                if record is not None:
                    record[name] = (r, s)
                if s.is_skip():
                    skip.add(name)
                    continue
                if not s.is_success():
                    s.plugin = name
                    if s.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                        return None, s, set()
                    if s.code == Code.UNSCHEDULABLE:
                        return_status = s
                        continue
                    return None, Status(Code.ERROR, [f"running PreFilter plugin {_q(name)}: {s.message()}"], name), set()
                if r is not None and not r.all_nodes():
                    plugins_with_nodes.add(name)
                result = r if result is None else result.merge(r)
                if result is not None and not result.all_nodes() and not result.node_names:
                    names = sorted(plugins_with_nodes)
                    if len(names) == 1:
                        msg = f"node(s) didn't satisfy plugin {names[0]}"
                    else:
                        msg = f"node(s) didn't satisfy plugin(s) [{' '.join(names)}] simultaneously"
                    return result, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [msg]), plugins_with_nodes
            return result, return_status, plugins_with_nodes
        finally:
            state.skip_filter_plugins = skip

    def run_pre_filter_extension_add_pod(
        self, state: CycleState, pod_to_schedule: "PodInfo", pod_to_add: "PodInfo", node_info: "NodeInfo"
    ) -> Status:
        """Tell PreFilter plugins a pod was added to ``node_info`` (``RunPreFilterExtensionAddPod``).

        Returns
        -------
        Status
            Success, or Error ``running AddPod on PreFilter plugin "X": <msg>``.
        """
        for pl in self.pre_filter_plugins:
            ext = pl.pre_filter_extensions()
            if ext is None or pl.name() in state.skip_filter_plugins:
                continue
            s = _status(ext.add_pod(state, pod_to_schedule, pod_to_add, node_info))
            if not s.is_success():
                return Status(Code.ERROR, [f"running AddPod on PreFilter plugin {_q(pl.name())}: {s.message()}"])
        return Status()

    def run_pre_filter_extension_remove_pod(
        self, state: CycleState, pod_to_schedule: "PodInfo", pod_to_remove: "PodInfo", node_info: "NodeInfo"
    ) -> Status:
        """Tell PreFilter plugins a pod was removed from ``node_info`` (``RunPreFilterExtensionRemovePod``).

        Returns
        -------
        Status
            Success, or Error ``running RemovePod on PreFilter plugin "X": <msg>``.
        """
        for pl in self.pre_filter_plugins:
            ext = pl.pre_filter_extensions()
            if ext is None or pl.name() in state.skip_filter_plugins:
                continue
            s = _status(ext.remove_pod(state, pod_to_schedule, pod_to_remove, node_info))
            if not s.is_success():
                return Status(Code.ERROR, [f"running RemovePod on PreFilter plugin {_q(pl.name())}: {s.message()}"])
        return Status()

    # ---------------------------------------------------------------- Filter
    def run_filter_plugins(
        self, state: CycleState, pod: "PodInfo", node_info: "NodeInfo", record: dict[str, str] | None = None
    ) -> Status:
        """Run Filter plugins on one node, stopping at the first that does not pass (``RunFilterPlugins``).

        Parameters
        ----------
        state : CycleState
            Plugins in ``state.skip_filter_plugins`` are not run.
        pod : PodInfo
        node_info : NodeInfo
        record : dict[str, str], optional
            Filled with plugin -> ``"passed"`` or the status message, in run order.

        Returns
        -------
        Status
            Success, the rejecting plugin's status (``plugin`` set), or Error
            ``running "X" filter plugin: <msg>`` for any other code.
        """
        skip = state.skip_filter_plugins
        calls = self._filter_calls
        if len(calls) != len(self.filter_plugins):
            calls = self._filter_calls = [(pl.name(), pl.filter) for pl in self.filter_plugins]
        for name, filter_fn in calls:
            if skip and name in skip:
                continue
            s = filter_fn(state, pod, node_info)
            if s is None or s.code == Code.SUCCESS:
                if record is not None:
                    record[name] = "passed"
                continue
            if not s.is_rejected():
                s = Status(Code.ERROR, [f"running {_q(name)} filter plugin: {s.message()}"])
            s.plugin = name
            if record is not None:
                record[name] = s.message()
            return s
        return Status()

    def run_filter_plugins_with_nominated_pods(
        self, state: CycleState, pod: "PodInfo", node_info: "NodeInfo", record: dict[str, str] | None = None
    ) -> Status:
        """Run Filter plugins as if equal/higher-priority pods nominated to the node were running on it.

        When such pods exist, the filters run twice: with them added (to a
        cloned CycleState and NodeInfo) and, if that passes, without them; the
        pod must pass both (``RunFilterPluginsWithNominatedPods``).

        Parameters
        ----------
        state : CycleState
        pod : PodInfo
        node_info : NodeInfo
        record : dict[str, str], optional
            Filled with the last pass's per-plugin results.

        Returns
        -------
        Status
        """
        nom = self.nominator
        if nom is None or getattr(nom, "nominated_pods", True) == {}:
            # Fast path: nobody is nominated anywhere.
            if record is not None:
                record.clear()
            return self.run_filter_plugins(state, pod, node_info, record)
        status = Status()
        pods_added = False
        for i in range(2):
            state_to_use, info_to_use = state, node_info
            if i == 0:
                pods_added, state_to_use, info_to_use, err = self._add_ge_nominated_pods(pod, state, node_info)
                if err is not None:
                    return err
            elif not pods_added or not status.is_success():
                break
            rec = None
            if record is not None:
                rec = {}
            status = self.run_filter_plugins(state_to_use, pod, info_to_use, rec)
            if record is not None:
                record.clear()
                record.update(rec)
            if not status.is_success() and not status.is_rejected():
                return status
        return status

    def ge_nominated_pods(self, pod: "PodInfo", node_name: str) -> list["PodInfo"]:
        """Pods nominated to ``node_name`` that :meth:`run_filter_plugins_with_nominated_pods` adds for ``pod``.

        Those with a priority at least the pod's, other than the pod itself
        (``addGENominatedPods``), in the nominator's order.
        """
        if self.nominator is None:
            return []
        return [pi for pi in self.nominator.nominated_pods_for_node(node_name) or ()
                if pi.priority >= pod.priority and pi.uid != pod.uid]

    def _add_ge_nominated_pods(self, pod: "PodInfo", state: CycleState, node_info: "NodeInfo"):
        nominated = self.ge_nominated_pods(pod, node_info.name)
        if not nominated:
            return False, state, node_info, None
        info_out = node_info.clone()
        state_out = state.clone()
        for pi in nominated:
            info_out.add_pod(pi)
            s = self.run_pre_filter_extension_add_pod(state_out, pod, pi, info_out)
            if not s.is_success():
                return False, state, node_info, Status(Code.ERROR, s.reasons)
        return True, state_out, info_out, None

    # ------------------------------------------------------------ PostFilter
    def run_post_filter_plugins(
        self, state: CycleState, pod: "PodInfo", filtered_node_status_map: NodeToStatus,
        record: dict[str, Any] | None = None,
    ) -> tuple[PostFilterResult | None, Status]:
        """Run PostFilter plugins until one succeeds or fails hard (``RunPostFilterPlugins``).

        ``record``, when given, is filled with plugin -> (result, status).

        Returns
        -------
        result : PostFilterResult or None
            The succeeding plugin's result, or the last non-noop one.
        status : Status
            Success; UnschedulableAndUnresolvable or Error from one plugin; else
            Unschedulable carrying every plugin's reasons (the message is
            ``", "``-joined, e.g. ``"no new claims to deallocate, preemption: 0/3 nodes are available: ..."``).
        """
        result = None
        reasons: list[str] = []
        rejector = ""
        for pl in self.post_filter_plugins:
            r, s = pl.post_filter(state, pod, filtered_node_status_map)
            s = _status(s)
            if record is not None:
                record[pl.name()] = (r, s)
            if s.is_success():
                return r, s
            if s.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                s.plugin = pl.name()
                return r, s
            if not s.is_rejected():
                return None, Status(Code.ERROR, list(s.reasons), pl.name())
            if r is not None and r.nominating_info is not None and r.nominating_info.mode != "ModeNoop":
                result = r
            reasons.extend(s.reasons)
            if not rejector:
                rejector = pl.name()
        return result, Status(Code.UNSCHEDULABLE, reasons, rejector)

    # -------------------------------------------------------------- PreScore
    def run_pre_score_plugins(
        self, state: CycleState, pod: "PodInfo", nodes: list["NodeInfo"], record: dict[str, str] | None = None
    ) -> Status:
        """Run PreScore plugins over the feasible nodes (``RunPreScorePlugins``).

        ``record``, when given, gets plugin -> ``"success"`` or the status message.

        ``state.skip_score_plugins`` is set to the plugins that returned Skip.

        Returns
        -------
        Status
            Success or Error ``running PreScore plugin "X": <msg>``.
        """
        skip: set[str] = set()
        try:
            for pl in self.pre_score_plugins:
                s = _status(pl.pre_score(state, pod, nodes))
                if record is not None:
                    record[pl.name()] = "success" if s.is_success() else s.message()
                if s.is_skip():
                    skip.add(pl.name())
                    continue
                if not s.is_success():
                    return Status(Code.ERROR, [f"running PreScore plugin {_q(pl.name())}: {s.message()}"])
            return Status()
        finally:
            state.skip_score_plugins = skip

    # ----------------------------------------------------------------- Score
    def run_score_plugins(
        self,
        state: CycleState,
        pod: "PodInfo",
        nodes: list["NodeInfo"],
        raw: dict[str, dict[str, int]] | None = None,
        *,
        with_plugin_scores: bool = True,
    ) -> tuple[list[NodePluginScores] | None, Status]:
        """Score, NormalizeScore and weight every feasible node (``RunScorePlugins``).

        Parameters
        ----------
        state : CycleState
            Plugins in ``state.skip_score_plugins`` are not run.
        pod : PodInfo
        nodes : list[NodeInfo]
        raw : dict[str, dict[str, int]], optional
            Filled with node -> plugin -> score as returned by ``score`` (before NormalizeScore).
        with_plugin_scores : bool
            False leaves ``NodePluginScores.scores`` empty (only totals; faster).

        Returns
        -------
        scores : list[NodePluginScores] or None
            In ``nodes`` order: per plugin ``normalized * weight``, and their total.
        status : Status
            Success, or Error: ``running Score plugins: plugin "X" failed with: <msg>``,
            ``running Normalize on Score plugins: ...``, or
            ``applying score defaultWeights on Score plugins: plugin "X" returns an invalid score 101,
            it should in the range of [0, 100] after normalizing``.
        """
        skip = state.skip_score_plugins
        plugins = [pl for pl in self.score_plugins if pl.name() not in skip]
        per_plugin: list[list[NodeScore]] = []
        for pl in plugins:
            name = pl.name()
            score_fn = pl.score
            lst = []
            append = lst.append
            for ni in nodes:
                sc, s = score_fn(state, pod, ni)
                if s is not None and s.code != Code.SUCCESS:
                    return None, Status(Code.ERROR, [f"running Score plugins: plugin {_q(name)} failed with: {s.message()}"])
                append(NodeScore(ni.name, int(sc)))
            per_plugin.append(lst)
        if raw is not None:
            for ni in nodes:
                raw.setdefault(ni.name, {})
            for pl, lst in zip(plugins, per_plugin):
                name = pl.name()
                for ns in lst:
                    raw[ns.name][name] = ns.score
        for pl, lst in zip(plugins, per_plugin):
            ext = pl.score_extensions()
            if ext is None:
                continue
            s = _status(ext.normalize_score(state, pod, lst))
            if not s.is_success():
                return None, Status(Code.ERROR, [f"running Normalize on Score plugins: plugin {_q(pl.name())} failed with: {s.message()}"])
        out = []
        weights = [self.score_plugin_weight[pl.name()] for pl in plugins]
        names = [pl.name() for pl in plugins]
        for j, lst in enumerate(per_plugin):
            for ns in lst:
                score = ns.score
                if score > MAX_NODE_SCORE or score < MIN_NODE_SCORE:
                    return None, Status(Code.ERROR, [
                        "applying score defaultWeights on Score plugins: "
                        f"plugin {_q(names[j])} returns an invalid score {score}, it should in the range of "
                        f"[{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing"
                    ])
        for idx, ni in enumerate(nodes):
            if with_plugin_scores:
                pss = [PluginScore(names[j], lst[idx].score * weights[j]) for j, lst in enumerate(per_plugin)]
                out.append(NodePluginScores(ni.name, pss, sum(ps.score for ps in pss)))
            else:
                out.append(NodePluginScores(ni.name, [], sum(lst[idx].score * weights[j] for j, lst in enumerate(per_plugin))))
        return out, Status()

    # --------------------------------------------------------------- Reserve
    def run_reserve_plugins_reserve(self, state: CycleState, pod: "PodInfo", node_name: str,
                                    record: dict[str, str] | None = None) -> Status:
        """Run Reserve plugins in order, stopping at the first failure (``RunReservePluginsReserve``).

        ``record``, when given, is filled with plugin -> ``"success"`` or the status message.

        Returns
        -------
        Status
            Success, a rejection (``plugin`` set) or Error ``running Reserve plugin "X": <msg>``.
        """
        for pl in self.reserve_plugins:
            s = _status(pl.reserve(state, pod, node_name))
            if record is not None:
                record[pl.name()] = "success" if s.is_success() else s.message()
            if not s.is_success():
                if s.is_rejected():
                    s.plugin = pl.name()
                    return s
                return Status(Code.ERROR, [f"running Reserve plugin {_q(pl.name())}: {s.message()}"])
        return Status()

    def run_reserve_plugins_unreserve(self, state: CycleState, pod: "PodInfo", node_name: str) -> None:
        """Run Unreserve of every Reserve plugin in reverse order (``RunReservePluginsUnreserve``)."""
        for pl in reversed(self.reserve_plugins):
            pl.unreserve(state, pod, node_name)

    # ---------------------------------------------------------------- Permit
    def run_permit_plugins(self, state: CycleState, pod: "PodInfo", node_name: str,
                           record: dict[str, str] | None = None, timeouts: dict[str, str] | None = None) -> Status:
        """Run Permit plugins (``RunPermitPlugins``).

        ``record`` gets plugin -> ``"success"``, ``"wait"`` or the message;
        ``timeouts`` gets plugin -> wait timeout (Go duration string, capped at 15m).

        Returns
        -------
        Status
            Success; a rejection (``plugin`` set); Error ``running Permit plugin "X": <msg>``;
            or Wait ``one or more plugins asked to wait and no plugin rejected pod "name"``.
        """
        waiting = False
        for pl in self.permit_plugins:
            s, timeout_seconds = pl.permit(state, pod, node_name)
            s = _status(s)
            if record is not None:
                record[pl.name()] = "success" if s.is_success() else ("wait" if s.is_wait() else s.message())
            if timeouts is not None and s.is_wait():
                timeouts[pl.name()] = _go_duration(min(float(timeout_seconds or 0), MAX_PERMIT_TIMEOUT_SECONDS))
            if s.is_success():
                continue
            if s.is_rejected():
                s.plugin = pl.name()
                return s
            if s.is_wait():
                waiting = True
                continue
            return Status(Code.ERROR, [f"running Permit plugin {_q(pl.name())}: {s.message()}"], pl.name())
        if waiting:
            return Status(Code.WAIT, [f"one or more plugins asked to wait and no plugin rejected pod {_q(pod.name)}"])
        return Status()

    # ------------------------------------------------------------ PreBind..
    def run_pre_bind_plugins(self, state: CycleState, pod: "PodInfo", node_name: str,
                             record: dict[str, str] | None = None) -> Status:
        """Run PreBind plugins (``RunPreBindPlugins``); ``record`` as for Reserve.

        Returns
        -------
        Status
            Success, a rejection, or Error ``running PreBind plugin "X": <msg>``.
        """
        for pl in self.pre_bind_plugins:
            s = _status(pl.pre_bind(state, pod, node_name))
            if record is not None:
                record[pl.name()] = "success" if s.is_success() else s.message()
            if not s.is_success():
                if s.is_rejected():
                    s.plugin = pl.name()
                    return s
                return Status(Code.ERROR, [f"running PreBind plugin {_q(pl.name())}: {s.message()}"])
        return Status()

    def run_bind_plugins(self, state: CycleState, pod: "PodInfo", node_name: str,
                         record: dict[str, str] | None = None) -> Status:
        """Run Bind plugins until one does not Skip (``RunBindPlugins``); ``record`` as for Reserve.

        Returns
        -------
        Status
            Success; Skip when every plugin skipped; a rejection; or Error ``running Bind plugin "X": <msg>``.
        """
        if not self.bind_plugins:
            return Status(Code.SKIP)
        status = Status(Code.SKIP)
        for pl in self.bind_plugins:
            status = _status(pl.bind(state, pod, node_name))
            if record is not None:
                record[pl.name()] = "success" if status.is_success() else status.message()
            if status.is_skip():
                continue
            if not status.is_success():
                if status.is_rejected():
                    status.plugin = pl.name()
                    return status
                return Status(Code.ERROR, [f"running Bind plugin {_q(pl.name())}: {status.message()}"])
            return status
        return status

    def run_post_bind_plugins(self, state: CycleState, pod: "PodInfo", node_name: str) -> None:
        """Run PostBind plugins (``RunPostBindPlugins``)."""
        for pl in self.post_bind_plugins:
            pl.post_bind(state, pod, node_name)

    # ---------------------------------------------------------------- Handle
    def nominated_pods_for_node(self, node_name: str) -> list["PodInfo"]:
        """Pods nominated to ``node_name`` (``PodNominator.NominatedPodsForNode``)."""
        if self.nominator is None:
            return []
        return self.nominator.nominated_pods_for_node(node_name)

    def delete_pod(self, pod: "PodInfo") -> None:
        """Delete ``pod`` (a preemption victim) through the scheduler's deleter.

        Raises
        ------
        NotFound
            When no deleter was configured.
        """
        if self.pod_deleter is None:
            raise NotFound("no pod deleter configured on this framework")
        self.pod_deleter(pod)

    def __repr__(self) -> str:
        return f"Framework({self.profile_name!r}, plugins={sorted(self.plugins_map)})"


def _go_duration(seconds: float) -> str:
    """Go's ``time.Duration.String()`` for whole or fractional seconds (``15m0s``, ``1.5s``)."""
    if seconds == 0:
        return "0s"
    total = float(seconds)
    h, rem = divmod(total, 3600)
    m, sec = divmod(rem, 60)
    sec_s = f"{sec:.9f}".rstrip("0").rstrip(".") + "s"
    if h:
        return f"{int(h)}h{int(m)}m{sec_s}"
    if m:
        return f"{int(m)}m{sec_s}"
    return sec_s


def _q(s: str) -> str:
    """Go's ``%q`` for plain strings."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
