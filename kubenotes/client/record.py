"""Recording Kubernetes Events (``kubectl get events``), with upstream's naming and aggregation of repeats.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/tools/record/event.go (makeEvent, generateEvent)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/tools/record/events_cache.go (EventCorrelator: same event → count++)
"""

from __future__ import annotations

from typing import Any

__all__ = ["EventRecorder", "NORMAL", "WARNING", "object_reference"]

NORMAL, WARNING = "Normal", "Warning"


def object_reference(obj: dict) -> dict:
    """``ref.GetReference``: the ``involvedObject`` of an Event about ``obj``."""
    md = obj.get("metadata", {})
    ref = {"kind": obj.get("kind", ""), "apiVersion": obj.get("apiVersion", ""), "name": md.get("name", ""),
           "uid": md.get("uid", ""), "resourceVersion": md.get("resourceVersion", "")}
    if md.get("namespace"):
        ref["namespace"] = md["namespace"]
    return ref


#: Names tried for one new Event when other recorders took the earlier ones at the same virtual instant.
_NAME_ATTEMPTS = 64


class EventRecorder:
    """Writes ``core/v1`` Events through a client, as ``record.EventRecorder`` does.

    An Event is named ``<object name>.<hex of the virtual time in ns>``
    (upstream: ``%v.%x`` of the wall-clock ``UnixNano``) in the object's
    namespace (``default`` for cluster-scoped objects). The same event again
    (same object, type, reason, message and source) bumps ``count`` and
    ``lastTimestamp`` of the first one with a patch, as the EventCorrelator does.

    Parameters
    ----------
    client : Client
    component : str
        ``source.component`` / ``reportingComponent`` (``deployment-controller``).
    host : str
        ``source.host`` (a kubelet's node name).

    Notes
    -----
    Upstream also rate-limits events per object (a token bucket of 25, refilled
    every 5 minutes) and merges *similar* events with different messages after 10
    of them; neither is modelled. Failures to write an event are ignored, as upstream.
    """

    def __init__(self, client: Any, component: str, host: str = ""):
        self.client = client
        self.component = component
        self.host = host
        self._seen: dict[tuple, tuple[str, str, int]] = {}
        self._seq = 0

    def event(self, obj: dict, event_type: str, reason: str, message: str, field_path: str = "") -> dict | None:
        """Record one event about ``obj``; returns the Event written (or None when writing failed).

        ``field_path`` names the part of the object the event is about, as the
        kubelet's container events do (``spec.containers{nginx}``): it goes in
        ``involvedObject.fieldPath``, which ``kubectl describe`` shows under From.
        """
        from kubenotes.apiserver.status import ApiError

        ref = object_reference(obj)
        if field_path:
            ref = dict(ref, fieldPath=field_path)
        ns = ref.get("namespace") or "default"
        server = self.client.server
        now = server.timestamp()
        key = (ref.get("uid"), ref["kind"], ns, ref["name"], field_path, event_type, reason, message, self.component,
               self.host)
        seen = self._seen.get(key)
        try:
            if seen is not None:
                name, ens, count = seen
                count += 1
                out = self.client.patch("events", name, {"count": count, "lastTimestamp": now}, ens)
                self._seen[key] = (name, ens, count)
                return out
            self._seq += 1
            # upstream: wall-clock UnixNano; here the virtual clock from the server's epoch (+ a sequence
            # number, as two events of one instant must not collide)
            nanos = int(server.epoch.timestamp() * 1e9) + int(server.env.now * 1e9) + self._seq
            ev = {"apiVersion": "v1", "kind": "Event",
                  "metadata": {"name": f"{ref['name']}.{nanos:x}", "namespace": ns},
                  "involvedObject": ref, "reason": reason, "message": message, "type": event_type,
                  "source": {"component": self.component, **({"host": self.host} if self.host else {})},
                  "firstTimestamp": now, "lastTimestamp": now, "count": 1,
                  "reportingComponent": self.component, "reportingInstance": self.host or ""}
            for _ in range(_NAME_ATTEMPTS):
                try:
                    out = self.client.create("events", ev, ns)
                    break
                except ApiError as e:
                    # another recorder named an event of the same object at the same virtual nanosecond (upstream's
                    # wall-clock names practically never meet): the next nanosecond, as a later clock reading would
                    if e.code != 409 or e.reason != "AlreadyExists":
                        raise
                    nanos += 1
                    ev["metadata"]["name"] = f"{ref['name']}.{nanos:x}"
            else:
                return None
            self._seen[key] = (out["metadata"]["name"], ns, 1)
            return out
        except ApiError:
            return None
