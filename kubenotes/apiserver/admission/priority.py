"""The ``Priority`` admission plugin: resolve a pod's ``priorityClassName`` to ``spec.priority``.

On pod CREATE (mutating phase): no class name means the ``globalDefault``
class (its name is recorded) or priority 0 and ``PreemptLowerPriority``; a
named class must exist (403 ``no PriorityClass with name X was found``); a
pod that already carries a different ``spec.priority`` or
``spec.preemptionPolicy`` is refused. On pod UPDATE the stored priority and
preemption policy are kept when the update omits them. On PriorityClass
CREATE/UPDATE (validating phase) a second ``globalDefault`` class is refused.

The lookup reuses :func:`kubenotes.api.priority.resolve_priority`, which
the manifest loader's offline admission also uses; the two system classes
always exist, as the API server creates them at start-up.

References
----------
kubernetes/kubernetes@v1.34.0 plugin/pkg/admission/priority/admission.go
"""

from __future__ import annotations

from typing import Any

from kubenotes.api.priority import default_priority_class, priority_classes_by_name, resolve_priority
from kubenotes.apiserver.admission.interfaces import CREATE, DELETE, UPDATE, Plugin, forbidden
from kubenotes.apiserver.request import Attributes
from kubenotes.errors import FieldError

__all__ = ["NAME", "Priority", "NOT_FOUND_MESSAGE", "PRIORITY_MISMATCH_MESSAGE", "POLICY_MISMATCH_MESSAGE",
           "DUPLICATE_DEFAULT_MESSAGE"]

NAME = "Priority"
NOT_FOUND_MESSAGE = "no PriorityClass with name {name} was found"
PRIORITY_MISMATCH_MESSAGE = ("the integer value of priority ({given}) must not be provided in pod spec; priority "
                             "admission controller computed {computed} from the given PriorityClass name")
POLICY_MISMATCH_MESSAGE = ("the string value of PreemptionPolicy ({given}) must not be provided in pod spec; "
                           "priority admission controller computed {computed} from the given PriorityClass name")
DUPLICATE_DEFAULT_MESSAGE = "PriorityClass {name} is already marked as default. Only one default can exist"


class Priority(Plugin):
    """Resolve pod priority from PriorityClasses; allow one default class.

    Examples
    --------
    >>> from kubenotes.apiserver.request import UserInfo
    >>> from kubenotes.apiserver.resources import resource_for
    >>> class Reader:
    ...     def list(self, resource, namespace=None):
    ...         return [{"metadata": {"name": "batch-low"}, "value": -10, "preemptionPolicy": "Never"}]
    >>> pod = {"metadata": {"name": "p"}, "spec": {"priorityClassName": "batch-low"}}
    >>> Priority().admit(Attributes(UserInfo("u"), "create", resource_for("pods")), pod, None, Reader())
    >>> pod["spec"]["priority"], pod["spec"]["preemptionPolicy"]
    (-10, 'Never')
    """

    name = NAME
    operations = frozenset({CREATE, UPDATE, DELETE})

    def admit(self, attrs: Attributes, obj: dict | None, old: dict | None, reader: Any) -> None:
        ri = attrs.resource
        if attrs.subresource or ri.group != "" or ri.resource != "pods" or obj is None:
            return
        spec = obj.setdefault("spec", {})
        if attrs.operation == UPDATE:
            ospec = (old or {}).get("spec") or {}
            if spec.get("priority") is None and ospec.get("priority") is not None:
                spec["priority"] = ospec["priority"]
            if spec.get("preemptionPolicy") is None and ospec.get("preemptionPolicy") is not None:
                spec["preemptionPolicy"] = ospec["preemptionPolicy"]
            return
        if attrs.operation != CREATE:
            return
        try:
            name, priority, policy = resolve_priority(spec.get("priorityClassName"), self._by_name(reader),
                                                      include_system_classes=False)
        except FieldError:
            raise forbidden(attrs, obj, NOT_FOUND_MESSAGE.format(name=spec.get("priorityClassName"))) from None
        given = spec.get("priority")
        if given is not None and int(given) != priority:
            raise forbidden(attrs, obj, PRIORITY_MISMATCH_MESSAGE.format(given=int(given), computed=priority))
        spec["priority"] = priority
        given_policy = spec.get("preemptionPolicy")
        if given_policy is not None and given_policy != policy:
            raise forbidden(attrs, obj, POLICY_MISMATCH_MESSAGE.format(given=given_policy, computed=policy))
        spec["preemptionPolicy"] = policy
        if not spec.get("priorityClassName") and name:
            spec["priorityClassName"] = name

    def _by_name(self, reader: Any) -> dict[str, Any]:
        """Name -> class of the stored PriorityClasses and the system ones, made again when a class changes.

        The key is the stored objects themselves (a change stores a new object; the memory holds the old ones,
        so their ids are not reused meanwhile).
        """
        classes = reader.list("priorityclasses")
        key = tuple(map(id, classes))
        memo = self.__dict__.get("_classes")
        if memo is None or memo[0] != key:
            memo = self._classes = (key, priority_classes_by_name(classes), classes)
        return memo[1]

    def validate(self, attrs: Attributes, obj: dict | None, old: dict | None, reader: Any) -> None:
        ri = attrs.resource
        if attrs.subresource or ri.resource != "priorityclasses" or attrs.operation not in (CREATE, UPDATE):
            return
        if obj is None or not obj.get("globalDefault"):
            return
        dpc = default_priority_class(reader.list("priorityclasses"))
        if dpc is None:
            return
        dname = dpc["metadata"]["name"]
        if attrs.operation == CREATE or dname != (obj.get("metadata") or {}).get("name"):
            raise forbidden(attrs, obj, DUPLICATE_DEFAULT_MESSAGE.format(name=dname))
