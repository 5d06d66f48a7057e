"""NodeLabel (legacy): require or prefer the presence/absence of node label keys.

Mirrors ``pkg/scheduler/framework/plugins/nodelabel/node_label.go`` (v1.21), the
plugin behind the legacy ``CheckNodeLabelPresence`` predicate and the
``LabelPreference`` custom priority. Filter requires every ``presentLabels`` key
on the node and no ``absentLabels`` key (values are ignored). Score averages 100
per satisfied ``presentLabelsPreference`` / ``absentLabelsPreference`` key.

Removed upstream in v1.23 together with the Policy API; use NodeAffinity
(``Exists`` / ``DoesNotExist``) instead. kubenotes keeps it for teaching.

References
----------
kubernetes/kubernetes@v1.21.0 pkg/scheduler/framework/plugins/nodelabel/node_label.go
kubernetes/kubernetes@v1.21.0 pkg/scheduler/apis/config/validation/validation_pluginargs.go (ValidateNodeLabelArgs)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from kubenotes.errors import ConfigError
from kubenotes.scheduler.framework.interface import MAX_NODE_SCORE, Code, Status
from kubenotes.scheduler.plugins.names import NODE_LABEL as NAME

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.cycle_state import CycleState
    from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo

__all__ = ["NAME", "ERR_REASON_PRESENCE_VIOLATED", "NodeLabel", "validate_args", "new"]

#: Filter reason when a required label is missing or a forbidden one present.
ERR_REASON_PRESENCE_VIOLATED = "node(s) didn't have the requested labels"

_ARG_KEYS = ("presentLabels", "absentLabels", "presentLabelsPreference", "absentLabelsPreference")


class NodeLabel:
    """Filter and score nodes on the presence of label keys.

    Parameters
    ----------
    present_labels, absent_labels : list[str]
        Keys that must / must not be on the node (Filter).
    present_labels_preference, absent_labels_preference : list[str]
        Keys that should / should not be on the node (Score).

    See Also
    --------
    kubenotes.scheduler.plugins.nodeaffinity : its replacement (``Exists`` / ``DoesNotExist``).

    Notes
    -----
    Upstream divides by the number of preference keys and would panic when there
    are none; kubenotes scores 0 in that case.

    References
    ----------
    kubernetes/kubernetes@v1.21.0 pkg/scheduler/framework/plugins/nodelabel/node_label.go

    Examples
    --------
    >>> from kubenotes.scheduler.framework.node_info import NodeInfo
    >>> from kubenotes.scheduler.testing import make_node
    >>> pl = NodeLabel(present_labels=["gpu"], present_labels_preference=["ssd", "fast"])
    >>> ni = NodeInfo(make_node("n1", labels={"gpu": "1", "ssd": ""}))
    >>> pl.filter(None, None, ni).is_success(), pl.score(None, None, ni)[0]
    (True, 50)
    """

    def __init__(self, present_labels: list[str] | None = None, absent_labels: list[str] | None = None,
                 present_labels_preference: list[str] | None = None, absent_labels_preference: list[str] | None = None):
        self.present_labels = list(present_labels or ())
        self.absent_labels = list(absent_labels or ())
        self.present_labels_preference = list(present_labels_preference or ())
        self.absent_labels_preference = list(absent_labels_preference or ())

    def name(self) -> str:
        """``NodeLabel``."""
        return NAME

    def filter(self, state: "CycleState", pod: "PodInfo", node_info: "NodeInfo") -> Status:
        """UnschedulableAndUnresolvable unless all present keys exist and no absent key does."""
        if node_info.node is None:
            return Status.error("node not found")
        labels = node_info.labels
        ok = all(k in labels for k in self.present_labels) and not any(k in labels for k in self.absent_labels)
        if ok:
            return Status()
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [ERR_REASON_PRESENCE_VIOLATED])

    def score(self, state: "CycleState", pod: "PodInfo", node_info: "NodeInfo") -> tuple[int, Status]:
        """Average of 100 per satisfied preference key (integer division)."""
        if node_info.node is None:
            return 0, Status.error(f'getting node "{node_info.name}" from Snapshot: node is nil: true')
        labels = node_info.labels
        n = len(self.present_labels_preference) + len(self.absent_labels_preference)
        if n == 0:
            return 0, Status()
        total = sum(MAX_NODE_SCORE for k in self.present_labels_preference if k in labels)
        total += sum(MAX_NODE_SCORE for k in self.absent_labels_preference if k not in labels)
        return total // n, Status()

    def score_extensions(self) -> None:
        return None


def _conflicts(present: list[str], absent: list[str], present_path: str, absent_path: str) -> list[str]:
    index = {label: i for i, label in enumerate(present)}
    return [f'{present_path}[{index[label]}]: Invalid value: "{label}": conflict with {absent_path}[{i}]'
            for i, label in enumerate(absent) if label in index]


def validate_args(args: Mapping[str, list[str]]) -> list[str]:
    """Field errors of ``NodeLabelArgs`` (``ValidateNodeLabelArgs``): a key both present and absent.

    Examples
    --------
    >>> validate_args({"presentLabels": ["a", "b"], "absentLabels": ["b"]})
    ['presentLabels[1]: Invalid value: "b": conflict with absentLabels[0]']
    """
    return (_conflicts(list(args.get("presentLabels") or ()), list(args.get("absentLabels") or ()), "presentLabels", "absentLabels")
            + _conflicts(list(args.get("presentLabelsPreference") or ()), list(args.get("absentLabelsPreference") or ()),
                         "presentLabelsPreference", "absentLabelsPreference"))


def new(args: Mapping[str, Any] | None, handle: Any) -> NodeLabel:
    """Build NodeLabel from raw ``NodeLabelArgs`` (camelCase keys, all default to empty lists).

    Raises
    ------
    ConfigError
        On unknown keys, non-list values, or conflicting keys (upstream message).

    Examples
    --------
    >>> new({"presentLabels": ["zone"], "absentLabels": ["zone"]}, None)
    Traceback (most recent call last):
    ...
    kubenotes.errors.ConfigError: presentLabels[0]: Invalid value: "zone": conflict with absentLabels[0]
    """
    args = dict(args or {})
    unknown = sorted(set(args) - set(_ARG_KEYS) - {"apiVersion", "kind"})
    if unknown:
        raise ConfigError(f'NodeLabelArgs: unknown field "{unknown[0]}"')
    for k in _ARG_KEYS:
        v = args.get(k)
        if v is not None and (isinstance(v, (str, bytes)) or not all(isinstance(x, str) for x in v)):
            raise ConfigError(f"NodeLabelArgs.{k}: expected a list of strings, got {v!r}")
    errs = validate_args(args)
    if errs:
        raise ConfigError(errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]")
    return NodeLabel(args.get("presentLabels"), args.get("absentLabels"),
                     args.get("presentLabelsPreference"), args.get("absentLabelsPreference"))
