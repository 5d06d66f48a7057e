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
name}), ``scale`` ({kind, namespace, name, replicas}), ``setImage`` ({kind,
namespace, name, container, image}), ``patch`` ({kind, namespace, name,
patch}), ``nodeDown`` / ``nodeUp`` ({name}) and ``metric`` ({kind:
HorizontalPodAutoscaler, namespace, name, value}). Actions go through the API
as the client ``kubectl`` would; a refused one is logged (component
``scenario``, verb ``failed``) and the run goes on, as a script of kubectl
commands would.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/kubectl/pkg/cmd/{apply,delete,scale,set/set_image,patch}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generator

from kubenotes.apiserver.server import AuditEntry
from kubenotes.apiserver.status import ApiError
from kubenotes.errors import ManifestError

__all__ = ["SCENARIO_API_VERSION", "ACTIONS", "Step", "Scenario", "parse_scenario", "start_scenario"]

SCENARIO_API_VERSION = "kubenotes.io/v1"

#: Action name -> required keys (besides ``at``).
ACTIONS: dict[str, tuple[str, ...]] = {
    "apply": (),
    "delete": ("kind", "name"),
    "scale": ("kind", "name", "replicas"),
    "setImage": ("kind", "name", "container", "image"),
    "patch": ("kind", "name", "patch"),
    "nodeDown": ("name",),
    "nodeUp": ("name",),
    "metric": ("kind", "name", "value"),
}


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
    """A named list of steps, in time order (stable for equal times)."""

    name: str
    steps: tuple[Step, ...]


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
    kubenotes.errors.ManifestError: <string> Scenario s: spec.steps[0]: Required value: one action of apply, delete, scale, setImage, patch, nodeDown, nodeUp, metric
    """
    name = str((doc.get("metadata") or {}).get("name") or "")
    ref = f"Scenario {name}" if name else "Scenario"

    def fail(field: str, msg: str) -> ManifestError:
        return ManifestError(source, doc_number, ref, f"{field}: {msg}")

    spec = doc.get("spec")
    if not isinstance(spec, dict):
        raise fail("spec", "Required value")
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
    return Scenario(name, tuple(out[j] for j in order))


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
        elif step.action == "metric":
            cluster.metrics[(a.get("namespace") or "default", a["name"])] = float(a["value"])
            _log(cluster, "metric", str(a["kind"]), a.get("namespace") or "default", a["name"], f"value={a['value']}")
        else:
            ri = resource_for(str(a["kind"]))
            ns = a.get("namespace") or ("default" if ri.namespaced else None)
            if step.action == "delete":
                c.delete(ri.resource, a["name"], ns, propagation_policy=a.get("propagationPolicy"))
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
