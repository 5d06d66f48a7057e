"""The ``DefaultTolerationSeconds`` admission plugin: pods tolerate not-ready and unreachable nodes for 300 s.

Every pod that does not already tolerate ``node.kubernetes.io/not-ready``
(resp. ``unreachable``) with effect ``NoExecute`` gets
``{key, operator: Exists, effect: NoExecute, tolerationSeconds: 300}``. A
toleration with an empty key or an empty effect counts as tolerating. This
is why the taint manager evicts pods five minutes after their node goes
``NotReady``.

References
----------
kubernetes/kubernetes@v1.34.0 plugin/pkg/admission/defaulttolerationseconds/admission.go
"""

from __future__ import annotations

from typing import Any

from kubenotes.apiserver.admission.interfaces import CREATE, UPDATE, Plugin
from kubenotes.apiserver.request import Attributes

__all__ = ["NAME", "DefaultTolerationSeconds", "TAINT_NODE_NOT_READY", "TAINT_NODE_UNREACHABLE",
           "DEFAULT_NOT_READY_TOLERATION_SECONDS", "DEFAULT_UNREACHABLE_TOLERATION_SECONDS"]

NAME = "DefaultTolerationSeconds"
TAINT_NODE_NOT_READY = "node.kubernetes.io/not-ready"
TAINT_NODE_UNREACHABLE = "node.kubernetes.io/unreachable"
#: ``--default-not-ready-toleration-seconds``.
DEFAULT_NOT_READY_TOLERATION_SECONDS = 300
#: ``--default-unreachable-toleration-seconds``.
DEFAULT_UNREACHABLE_TOLERATION_SECONDS = 300


def _tolerates(tolerations: list, key: str) -> bool:
    return any((t.get("key") in (key, "", None)) and (t.get("effect") in ("NoExecute", "", None))
               for t in tolerations)


class DefaultTolerationSeconds(Plugin):
    """Add the default ``NoExecute`` tolerations to pods (mutating; CREATE and UPDATE).

    Parameters
    ----------
    not_ready_toleration_seconds, unreachable_toleration_seconds : int
        The two kube-apiserver flags.

    Examples
    --------
    >>> from kubenotes.apiserver.request import UserInfo
    >>> from kubenotes.apiserver.resources import resource_for
    >>> pod = {"spec": {"tolerations": [{"key": "node.kubernetes.io/unreachable", "operator": "Exists",
    ...                                  "effect": "NoExecute", "tolerationSeconds": 60}]}}
    >>> DefaultTolerationSeconds().admit(Attributes(UserInfo("u"), "create", resource_for("pods")), pod, None, None)
    >>> [(t["key"], t["tolerationSeconds"]) for t in pod["spec"]["tolerations"]]
    [('node.kubernetes.io/unreachable', 60), ('node.kubernetes.io/not-ready', 300)]
    """

    name = NAME
    operations = frozenset({CREATE, UPDATE})

    def __init__(self, not_ready_toleration_seconds: int = DEFAULT_NOT_READY_TOLERATION_SECONDS,
                 unreachable_toleration_seconds: int = DEFAULT_UNREACHABLE_TOLERATION_SECONDS):
        self.not_ready_toleration_seconds = not_ready_toleration_seconds
        self.unreachable_toleration_seconds = unreachable_toleration_seconds

    def admit(self, attrs: Attributes, obj: dict | None, old: dict | None, reader: Any) -> None:
        ri = attrs.resource
        if ri.group != "" or ri.resource != "pods" or attrs.subresource or obj is None:
            return
        spec = obj.setdefault("spec", {})
        tolerations = list(spec.get("tolerations") or [])
        added = []
        if not _tolerates(tolerations, TAINT_NODE_NOT_READY):
            added.append({"key": TAINT_NODE_NOT_READY, "operator": "Exists", "effect": "NoExecute",
                          "tolerationSeconds": self.not_ready_toleration_seconds})
        if not _tolerates(tolerations, TAINT_NODE_UNREACHABLE):
            added.append({"key": TAINT_NODE_UNREACHABLE, "operator": "Exists", "effect": "NoExecute",
                          "tolerationSeconds": self.unreachable_toleration_seconds})
        if added:
            spec["tolerations"] = tolerations + added
