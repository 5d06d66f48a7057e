"""client-go's EventRecorder: Event names, the correlator's count bump, and recorders that meet at one instant."""

from __future__ import annotations

from kubenotes.apiserver.server import APIServer
from kubenotes.client.record import EventRecorder


def _pod(api: APIServer) -> dict:
    return api.client().create("pods", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
                                        "spec": {"containers": [{"name": "c", "image": "nginx"}]}}, "default")


def test_two_recorders_at_one_instant_both_write_their_events():
    # each recorder numbers its own events; two of them about one object at one virtual instant used to pick the
    # same name, and the second Event was lost (409 swallowed)
    api = APIServer()
    pod = _pod(api)
    a, b = EventRecorder(api.client(), "kubelet", "n1"), EventRecorder(api.client(), "default-scheduler")
    first = a.event(pod, "Normal", "Pulled", "image pulled")
    second = b.event(pod, "Normal", "Scheduled", "assigned default/web to n1")
    assert first is not None and second is not None
    assert first["metadata"]["name"] != second["metadata"]["name"]
    assert all(e["metadata"]["name"].startswith("web.") for e in (first, second))
    reasons = sorted(e["reason"] for e in api.client().list("events", "default")["items"])
    assert reasons == ["Pulled", "Scheduled"]


def test_the_same_event_again_bumps_count_instead_of_a_new_object():
    api = APIServer()
    pod = _pod(api)
    r = EventRecorder(api.client(), "kubelet", "n1")
    r.event(pod, "Warning", "BackOff", "Back-off restarting failed container")
    again = r.event(pod, "Warning", "BackOff", "Back-off restarting failed container")
    items = api.client().list("events", "default")["items"]
    assert len(items) == 1 and again["count"] == 2 and items[0]["count"] == 2
    assert items[0]["source"] == {"component": "kubelet", "host": "n1"}
