"""Pod priority: PriorityClasses, system classes and the Priority admission plugin.

Mirrors the API server's ``Priority`` admission plugin, which resolves
``spec.priorityClassName`` to ``spec.priority`` and ``spec.preemptionPolicy``
when a pod is created, and the constants and built-in classes of
``pkg/apis/scheduling``. Rules (v1.34):

* no class name: use the ``globalDefault`` class (the lowest value if several
  are marked default, as can happen in a race), and record its name;
  without one, priority 0 and ``PreemptLowerPriority``;
* an unknown class name is rejected;
* a pod that already carries ``spec.priority`` (or ``spec.preemptionPolicy``)
  different from the resolved value is rejected.

The two system classes (``system-node-critical``, ``system-cluster-critical``)
always exist, as the API server creates them at start-up.

References
----------
kubernetes/kubernetes@v1.34.0 plugin/pkg/admission/priority/admission.go
kubernetes/kubernetes@v1.34.0 pkg/apis/scheduling/types.go
kubernetes/kubernetes@v1.34.0 pkg/apis/scheduling/helpers.go
kubernetes/kubernetes@v1.34.0 pkg/apis/scheduling/v1/defaults.go
https://kubernetes.io/docs/concepts/scheduling-eviction/pod-priority-preemption/
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Iterable

from lightkube.models.meta_v1 import ObjectMeta
from lightkube.resources.scheduling_v1 import PriorityClass

from kubenotes.errors import FieldError, KubenotesError

__all__ = [
    "DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS",
    "HIGHEST_USER_DEFINABLE_PRIORITY",
    "SYSTEM_CRITICAL_PRIORITY",
    "SYSTEM_PRIORITY_CLASS_PREFIX",
    "SYSTEM_CLUSTER_CRITICAL",
    "SYSTEM_NODE_CRITICAL",
    "PREEMPT_LOWER_PRIORITY",
    "PREEMPT_NEVER",
    "system_priority_classes",
    "priority_class_value",
    "priority_class_preemption_policy",
    "default_priority_class",
    "default_priority",
    "resolve_priority",
    "priority_classes_by_name",
    "apply_priority_admission",
    "admit_pods",
    "pod_priority",
]

#: Priority of a pod without a class when no class is ``globalDefault``.
DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS = 0
#: Largest value a user-defined PriorityClass may have (one billion).
HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
#: Start of the range reserved for system-critical pods (two billion).
SYSTEM_CRITICAL_PRIORITY = 2 * HIGHEST_USER_DEFINABLE_PRIORITY
#: Prefix reserved for system class names.
SYSTEM_PRIORITY_CLASS_PREFIX = "system-"
#: Class for cluster-critical pods that may move to another node (value 2000000000).
SYSTEM_CLUSTER_CRITICAL = SYSTEM_PRIORITY_CLASS_PREFIX + "cluster-critical"
#: Class for node-critical pods that must stay on their node (value 2000001000).
SYSTEM_NODE_CRITICAL = SYSTEM_PRIORITY_CLASS_PREFIX + "node-critical"
#: ``v1.PreemptLowerPriority``: the default preemption policy.
PREEMPT_LOWER_PRIORITY = "PreemptLowerPriority"
#: ``v1.PreemptNever``: the pod waits instead of preempting.
PREEMPT_NEVER = "Never"

_SYSTEM_CLASSES = (
    (SYSTEM_NODE_CRITICAL, SYSTEM_CRITICAL_PRIORITY + 1000,
     "Used for system critical pods that must not be moved from their current node."),
    (SYSTEM_CLUSTER_CRITICAL, SYSTEM_CRITICAL_PRIORITY,
     "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary."),
)


def system_priority_classes() -> list[PriorityClass]:
    """The built-in PriorityClasses the API server creates at start-up (``SystemPriorityClasses``).

    Returns
    -------
    list[lightkube.resources.scheduling_v1.PriorityClass]
        Fresh objects (safe to modify), ``system-node-critical`` first.

    Examples
    --------
    >>> [(pc.metadata.name, pc.value) for pc in system_priority_classes()]
    [('system-node-critical', 2000001000), ('system-cluster-critical', 2000000000)]
    """
    return [
        PriorityClass(metadata=ObjectMeta(name=name), value=value, description=desc,
                      preemptionPolicy=PREEMPT_LOWER_PRIORITY)
        for name, value, desc in _SYSTEM_CLASSES
    ]


def _get(obj: Any, name: str) -> Any:
    if type(obj) is dict or isinstance(obj, Mapping):  # a stored object: no ABC check
        return obj.get(name)
    return getattr(obj, name, None)


def _name(pc: Any) -> str:
    return _get(_get(pc, "metadata"), "name") or ""


def priority_class_value(pc: Any) -> int:
    """``value`` of a PriorityClass (lightkube model or dict); missing counts as 0."""
    return int(_get(pc, "value") or 0)


def priority_class_preemption_policy(pc: Any) -> str:
    """``preemptionPolicy`` of a PriorityClass after API defaulting (``PreemptLowerPriority`` when unset)."""
    return _get(pc, "preemptionPolicy") or PREEMPT_LOWER_PRIORITY


def priority_classes_by_name(priority_classes: Iterable[Any] | Mapping[str, Any] | None,
                             include_system_classes: bool = True) -> dict[str, Any]:
    """Name -> PriorityClass, as the functions below look classes up; build it once for many pods.

    Parameters
    ----------
    priority_classes : iterable of PriorityClass (or dict), or mapping name -> PriorityClass
    include_system_classes : bool
        See :func:`resolve_priority`; pass the result on with
        ``include_system_classes=False``.

    Examples
    --------
    >>> sorted(priority_classes_by_name([{"metadata": {"name": "high"}, "value": 1000}]))
    ['high', 'system-cluster-critical', 'system-node-critical']
    """
    return _by_name(priority_classes, include_system_classes)


_SYSTEM_BY_NAME: dict[str, Any] = {}


def _system_classes_by_name() -> dict[str, Any]:
    """The system classes, built once: the lookups below only read them (one pod admitted = one lookup)."""
    if not _SYSTEM_BY_NAME:
        _SYSTEM_BY_NAME.update((pc.metadata.name, pc) for pc in system_priority_classes())
    return _SYSTEM_BY_NAME


def _by_name(priority_classes: Iterable[Any] | Mapping[str, Any] | None, include_system: bool) -> dict[str, Any]:
    if not include_system and type(priority_classes) is dict:
        return priority_classes  # already name -> class (as documented for mappings)
    classes: dict[str, Any] = {}
    if include_system:
        classes.update(_system_classes_by_name())
    if isinstance(priority_classes, Mapping):
        items = priority_classes.values()
    else:
        items = priority_classes or ()
    for pc in items:
        classes[_name(pc)] = pc
    return classes


def default_priority_class(priority_classes: Iterable[Any] | Mapping[str, Any] | None) -> Any | None:
    """The ``globalDefault`` class, or ``None`` (``getDefaultPriorityClass``).

    When several classes are marked default (possible after a race), the one
    with the lowest value wins; ties keep the first in iteration order.

    Parameters
    ----------
    priority_classes : iterable of PriorityClass (or dict), or mapping name -> PriorityClass

    Examples
    --------
    >>> pcs = [{"metadata": {"name": "d2"}, "value": 2000, "globalDefault": True},
    ...        {"metadata": {"name": "d1"}, "value": 1000, "globalDefault": True}]
    >>> default_priority_class(pcs)["metadata"]["name"]
    'd1'
    """
    best = None
    for pc in _by_name(priority_classes, False).values():
        if _get(pc, "globalDefault") and (best is None or priority_class_value(best) > priority_class_value(pc)):
            best = pc
    return best


def default_priority(priority_classes: Iterable[Any] | Mapping[str, Any] | None) -> tuple[str, int, str]:
    """Name, value and preemption policy a class-less pod gets (``getDefaultPriority``).

    Returns
    -------
    tuple[str, int, str]
        ``("", 0, "PreemptLowerPriority")`` when no class is ``globalDefault``.

    Examples
    --------
    >>> default_priority([])
    ('', 0, 'PreemptLowerPriority')
    """
    pc = default_priority_class(priority_classes)
    if pc is None:
        return "", DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS, PREEMPT_LOWER_PRIORITY
    return _name(pc), priority_class_value(pc), priority_class_preemption_policy(pc)


def resolve_priority(
    priority_class_name: str | None,
    priority_classes: Iterable[Any] | Mapping[str, Any] | None,
    *,
    include_system_classes: bool = True,
) -> tuple[str, int, str]:
    """Resolve a class name to ``(class name, priority, preemption policy)``.

    Parameters
    ----------
    priority_class_name : str or None
        A pod's ``spec.priorityClassName``; empty means "use the default".
    priority_classes : iterable of PriorityClass (or dict), or mapping name -> PriorityClass
        The cluster's PriorityClasses.
    include_system_classes : bool
        Add the two system classes (unless ``priority_classes`` has a class
        of the same name), as a real API server always has them.

    Returns
    -------
    tuple[str, int, str]

    Raises
    ------
    FieldError
        ``spec.priorityClassName: no PriorityClass with name X was found``.

    Examples
    --------
    >>> resolve_priority("system-node-critical", [])
    ('system-node-critical', 2000001000, 'PreemptLowerPriority')
    """
    classes = _by_name(priority_classes, include_system_classes)
    if not priority_class_name:
        return default_priority(classes)
    pc = classes.get(priority_class_name)
    if pc is None:
        raise FieldError("spec.priorityClassName", f"no PriorityClass with name {priority_class_name} was found")
    return priority_class_name, priority_class_value(pc), priority_class_preemption_policy(pc)


def apply_priority_admission(
    pod: Any,
    priority_classes: Iterable[Any] | Mapping[str, Any] | None = (),
    *,
    include_system_classes: bool = True,
) -> None:
    """Run the Priority admission plugin on a pod being created, in place.

    Sets ``spec.priorityClassName`` (to the default class's name when it was
    empty), ``spec.priority`` and ``spec.preemptionPolicy``.

    Parameters
    ----------
    pod : lightkube.resources.core_v1.Pod
        The pod; modified only when admission succeeds.
    priority_classes : iterable of PriorityClass (or dict), or mapping name -> PriorityClass
        The cluster's PriorityClasses.
    include_system_classes : bool
        See :func:`resolve_priority`.

    Raises
    ------
    FieldError
        ``spec.priorityClassName`` when the class does not exist;
        ``spec.priority`` with upstream's message ``the integer value of
        priority (P) must not be provided in pod spec; priority admission
        controller computed C from the given PriorityClass name`` when the
        pod already sets a different priority; ``spec.preemptionPolicy``
        likewise for a conflicting preemption policy.

    Notes
    -----
    Only the create path is modelled; on update upstream merely keeps the
    old pod's priority and preemption policy. Upstream wraps these messages
    in a 403 Forbidden for the pod.

    See Also
    --------
    resolve_priority : the lookup alone, without touching the pod.
    kubenotes.api.defaults.apply_defaults : API defaulting, which runs before admission.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 plugin/pkg/admission/priority/admission.go (admitPod)

    Examples
    --------
    >>> from lightkube.resources.core_v1 import Pod
    >>> pcs = [{"metadata": {"name": "high"}, "value": 1000, "preemptionPolicy": "Never"}]
    >>> pod = Pod.from_dict({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}],
    ...                      "priorityClassName": "high"}})
    >>> apply_priority_admission(pod, pcs)
    >>> pod.spec.priority, pod.spec.preemptionPolicy
    (1000, 'Never')
    >>> pod = Pod.from_dict({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}], "priority": 7}})
    >>> apply_priority_admission(pod, pcs)
    Traceback (most recent call last):
    ...
    kubenotes.errors.FieldError: spec.priority: the integer value of priority (7) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name
    """
    spec = pod.spec
    name, priority, policy = resolve_priority(
        spec.priorityClassName, priority_classes, include_system_classes=include_system_classes)
    if spec.priority is not None and int(spec.priority) != priority:
        raise FieldError(
            "spec.priority",
            f"the integer value of priority ({int(spec.priority)}) must not be provided in pod spec; "
            f"priority admission controller computed {priority} from the given PriorityClass name",
        )
    if spec.preemptionPolicy is not None and spec.preemptionPolicy != policy:
        raise FieldError(
            "spec.preemptionPolicy",
            f"the string value of PreemptionPolicy ({spec.preemptionPolicy}) must not be provided in pod spec; "
            f"priority admission controller computed {policy} from the given PriorityClass name",
        )
    spec.priorityClassName = name or None
    spec.priority = priority
    spec.preemptionPolicy = policy


def admit_pods(
    pods: Iterable[Any],
    priority_classes: Iterable[Any] | Mapping[str, Any] | None = (),
    *,
    include_system_classes: bool = True,
) -> list[Any]:
    """Each pod through the Priority admission plugin, on a copy: the admitted pod, or why admission rejected it.

    Parameters
    ----------
    pods : iterable of lightkube.resources.core_v1.Pod
        As written (e.g. ``load_manifests(..., defaults=False)``); not modified.
    priority_classes : iterable of PriorityClass (or dict), or mapping name -> PriorityClass
        The cluster's PriorityClasses.
    include_system_classes : bool
        See :func:`resolve_priority`.

    Returns
    -------
    list
        One entry per pod, in order: a copy of the pod with
        ``spec.priorityClassName``, ``spec.priority`` and
        ``spec.preemptionPolicy`` as admission set them, or the
        :class:`~kubenotes.errors.KubenotesError` (a ``FieldError`` with
        upstream's message) admission rejected it with.

    Raises
    ------
    AttributeError
        When an item of ``pods`` is not a lightkube Pod (e.g. a plain dict).

    See Also
    --------
    apply_priority_admission : the plugin run on each copy.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 plugin/pkg/admission/priority/admission.go (admitPod)

    Examples
    --------
    >>> from lightkube.resources.core_v1 import Pod
    >>> ok, bad = admit_pods([Pod.from_dict({"metadata": {"name": "a"}, "spec": {"containers": [{"name": "c"}]}}),
    ...                       Pod.from_dict({"metadata": {"name": "b"}, "spec": {"containers": [{"name": "c"}],
    ...                                                                       "priorityClassName": "nope"}})])
    >>> ok.spec.priority, str(bad)
    (0, 'spec.priorityClassName: no PriorityClass with name nope was found')
    """
    classes = list(priority_classes.values()) if isinstance(priority_classes, Mapping) else list(priority_classes or ())
    out: list[Any] = []
    for pod in pods:
        work = copy.deepcopy(pod)
        try:
            apply_priority_admission(work, classes, include_system_classes=include_system_classes)
        except KubenotesError as e:
            out.append(e)
        else:
            out.append(work)
    return out


def pod_priority(pod: Any) -> int:
    """``spec.priority``, or 0 when unset (``corev1helpers.PodPriority``).

    Examples
    --------
    >>> from lightkube.resources.core_v1 import Pod
    >>> pod_priority(Pod.from_dict({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}]}}))
    0
    """
    p = pod.spec.priority if pod.spec is not None else None
    return int(p) if p is not None else 0
