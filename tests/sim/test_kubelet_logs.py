"""Container logs: the stand-in kubelet's modelled output and ``APIServer.pod_log`` (``kubectl logs``).

Ported cases:

* ``test_validate_container_log_status_upstream_cases``: pkg/kubelet/kubelet_pods_test.go
  TestValidateContainerLogStatus (each status, with and without ``previous``, and an unknown container);
* ``test_pod_log_options_are_validated``: pkg/apis/core/validation/validation_test.go
  TestValidatePodLogOptions (negative tailLines, limitBytes < 1, sinceSeconds < 1, both since options);
* ``test_container_must_be_named_when_the_pod_has_several``: pkg/registry/core/pod/strategy_test.go
  TestCheckLogLocation (no container with several, an unknown one, the only one by default).

The rest checks the model's own rule for what a container prints
(kubenotes.kubelet.logs.modelled_output) and the kubelet's ReadLogs options
(pkg/kubelet/kuberuntime/logs/logs.go: since, tail, limitBytes, timestamps, follow).
"""

from __future__ import annotations

import datetime as dt

import pytest

from kubenotes.apiserver.request import Attributes
from kubenotes.apiserver.resources import resource_for
from kubenotes.apiserver.server import parse_timestamp
from kubenotes.apiserver.status import ApiError
from kubenotes.sim.cluster import Cluster
from kubenotes.apiserver.clock import DEFAULT_EPOCH
from kubenotes.kubelet.logs import format_log_timestamp, modelled_output, validate_container_log_status

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                   "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}


def _pod(name: str, containers: list[dict], annotations: dict | None = None, restart: str = "Always") -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "annotations": annotations or {}},
            "spec": {"restartPolicy": restart, "containers": containers}}


def _log(c: Cluster, name: str, **opts) -> str:
    attrs = Attributes(c.client.user, "get", resource_for("pods"), "log", "default", name, False, "kubectl")
    reader = c.server.pod_log(attrs, opts)
    return "" if reader is None else reader.read()


def _error(c: Cluster, name: str, **opts) -> ApiError:
    with pytest.raises(ApiError) as e:
        _log(c, name, **opts)
    return e.value


# ------------------------------------------------------------------ what a container prints
@pytest.mark.parametrize("container, annotations, expected", [
    ({"command": ["echo", "hi"]}, None, [(0.0, "hi")]),
    ({"command": ["/bin/echo"], "args": ["a", "b"]}, None, [(0.0, "a b")]),
    ({"command": ["sh", "-c", "echo one && sleep 2\necho two; sleep 1m; printf 'x=%d\\n' 7"]}, None,
     [(0.0, "one"), (2.0, "two"), (62.0, "x=7")]),
    ({"command": ["sh", "-c", "echo -n a; echo b"]}, None, [(0.0, "ab")]),
    ({"command": ["sh", "-c", "echo up; sleep infinity; echo never"]}, None, [(0.0, "up")]),
    ({"command": ["sh", "-c", "echo $HOSTNAME"]}, None, []),
    ({"command": ["sh", "-c", "echo a | tr a b"]}, None, []),
    ({"command": ["sh", "-c", "echo before; nginx -g 'daemon off;'; echo after"]}, None, [(0.0, "before")]),
    ({"command": ["sh", "-c", "for i in 1 2; do echo $i; done"]}, None, []),
    ({"image": "nginx"}, None, []),  # the image's entrypoint: unknown, so nothing
    ({"args": ["echo", "hi"]}, None, []),  # args without command run the unknown entrypoint
    ({"name": "web", "image": "nginx"}, {"kubenotes.io/log": "a\nb", "kubenotes.io/log.web": "only web"},
     [(0.0, "only web")]),
    ({"name": "side", "command": ["echo", "ignored"]}, {"kubenotes.io/log": "scripted"}, [(0.0, "scripted")]),
])
def test_modelled_output(container, annotations, expected):
    assert modelled_output({"name": "c", **container}, annotations) == expected


# ------------------------------------------------------------------ upstream: validateContainerLogStatus
@pytest.mark.parametrize("status, ok, previous_ok", [
    ({"state": {"running": {}}, "containerID": "id://2", "lastState": {"terminated": {"containerID": "id://1"}}},
     True, True),
    ({"state": {"running": {}}, "containerID": "id://2"}, True, False),
    ({"state": {"terminated": {"containerID": "id://1"}}}, True, False),
    ({"state": {"terminated": {}}, "lastState": {"terminated": {}}}, False, False),
    ({"state": {"terminated": {}}, "lastState": {"terminated": {"containerID": "id://1"}}}, True, True),
    ({"state": {"waiting": {}}}, False, False),
    ({"state": {"waiting": {"reason": "ErrImagePull"}}}, False, False),
    ({"state": {"waiting": {"reason": "ErrImagePullBackOff"}}}, False, False),
])
def test_validate_container_log_status_upstream_cases(status, ok, previous_ok):
    st = {"containerStatuses": [{"name": "x", **status}]}
    for previous, want in ((False, ok), (True, previous_ok)):
        if want:
            assert validate_container_log_status("podName", st, "x", previous).startswith("id://")
        else:
            with pytest.raises(ApiError) as e:
                validate_container_log_status("podName", st, "x", previous)
            assert e.value.code == 400
    with pytest.raises(ApiError, match='container "blah" in pod "podName" is not available'):
        validate_container_log_status("podName", st, "blah", False)


def test_waiting_reasons_read_as_the_kubelet_words_them():
    st = {"containerStatuses": [{"name": "x", "state": {"waiting": {"reason": "ErrImagePull"}}}]}
    with pytest.raises(ApiError, match='container "x" in pod "p" is waiting to start: image can\'t be pulled'):
        validate_container_log_status("p", st, "x", False)
    st = {"containerStatuses": [{"name": "x", "state": {"running": {}}, "containerID": "id://1"}]}
    with pytest.raises(ApiError, match='previous terminated container "x" in pod "p" not found'):
        validate_container_log_status("p", st, "x", True)


# ------------------------------------------------------------------ through the API server
@pytest.fixture
def cluster():
    script = "echo hello; sleep 5; echo world; sleep 10; echo done"
    return Cluster([NODE, _pod("hello", [{"name": "c", "image": "busybox", "command": ["sh", "-c", script]}],
                               restart="Never"),
                    _pod("web-x", [{"name": "a", "image": "nginx"}, {"name": "b", "image": "busybox"}])],
                   controllers=[])


def _started(c: Cluster, pod: str, container: str = "c", run: int = -1) -> float:
    """When the kubelet model started the container (its log's first timestamp)."""
    k = c.kubelets["n1"]
    uid = c.get("pods", pod, "default")["metadata"]["uid"]
    return k.runs[uid][container][run].started_seconds


def test_a_pending_container_is_waiting_to_start(cluster):
    cluster.run(until=1)  # bound; the volume, the sandbox and the pull of busybox come first
    e = _error(cluster, "hello")
    assert (e.code, e.reason, str(e)) == (400, "BadRequest",
                                          'container "c" in pod "hello" is waiting to start: ContainerCreating')


def test_lines_appear_as_the_clock_passes_their_sleeps(cluster):
    cluster.run(until=3)
    assert 1 < _started(cluster, "hello") < 2  # mount 0.3 s, sandbox, pull of busybox, create, start
    assert _log(cluster, "hello") == "hello\n"
    cluster.run(until=7)
    assert _log(cluster, "hello") == "hello\nworld\n"
    cluster.run(until=30)
    assert _log(cluster, "hello") == "hello\nworld\ndone\n"


def test_tail_since_limit_and_timestamps(cluster):
    cluster.run(until=30)  # lines at t0, t0 + 5, t0 + 15 (t0 = the container's start, 1.73 s)
    t0 = _started(cluster, "hello")
    assert _log(cluster, "hello", tailLines=2) == "world\ndone\n"
    assert _log(cluster, "hello", tailLines=0) == ""
    assert _log(cluster, "hello", sinceSeconds=25) == "world\ndone\n"  # lines from t=5 on
    assert _log(cluster, "hello", sinceSeconds=14) == "done\n"
    assert _log(cluster, "hello", limitBytes=8) == "hello\nwo"
    first = _log(cluster, "hello", timestamps=True).splitlines()[0]
    assert first == format_log_timestamp(t0, DEFAULT_EPOCH) + " hello"
    assert first.startswith("2025-08-27T00:00:01.7")
    assert _log(cluster, "hello", sinceTime="2025-08-27T00:00:10Z") == "done\n"
    assert _log(cluster, "hello", sinceTime="2025-08-27T00:00:06.500000Z") == "world\ndone\n"


def test_timestamps_follow_the_cluster_epoch():
    c = Cluster([NODE, _pod("p", [{"name": "c", "image": "busybox", "command": ["echo", "hi"]}])], controllers=[],
                epoch="2030-01-01T12:00:00Z")
    c.run(until=5)
    t0 = _started(c, "p")
    epoch = dt.datetime(2030, 1, 1, 12, tzinfo=dt.timezone.utc)
    assert _log(c, "p", timestamps=True) == format_log_timestamp(t0, epoch) + " hi\n"
    assert c.get("pods", "p", "default")["metadata"]["creationTimestamp"] == "2030-01-01T12:00:00Z"


def test_container_must_be_named_when_the_pod_has_several(cluster):
    cluster.run(until=3)
    e = _error(cluster, "web-x")
    assert (e.code, str(e)) == (400, "a container name must be specified for pod web-x, choose one of: [a b]")
    assert str(_error(cluster, "web-x", container="z")) == "container z is not valid for pod web-x"
    assert _log(cluster, "web-x", container="b") == ""  # an image's own output is not invented
    assert _log(cluster, "hello", container="c") == "hello\n"  # the only container, named or not


def test_pod_log_options_are_validated(cluster):
    cases = [({"tailLines": -1}, "tailLines: Invalid value: -1: must be greater than or equal to 0"),
             ({"limitBytes": 0}, "limitBytes: Invalid value: 0: must be greater than 0"),
             ({"sinceSeconds": 0}, "sinceSeconds: Invalid value: 0: must be greater than 0"),
             ({"sinceSeconds": 5, "sinceTime": "2025-08-27T00:00:00Z"},
              ": Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified")]
    for opts, msg in cases:
        e = _error(cluster, "hello", **opts)
        assert (e.code, e.reason, str(e)) == (422, "Invalid", f'PodLogOptions "hello" is invalid: {msg}')


def test_missing_pod_unscheduled_pod_and_dead_node(cluster):
    assert _error(cluster, "nope").code == 404
    c = Cluster([NODE, _pod("p", [{"name": "c", "image": "busybox", "command": ["echo", "hi"]}])], controllers=[],
                scheduler=False)
    assert _log(c, "p") == ""  # no node yet: upstream answers an empty body
    cluster.run(until=3)
    cluster.node_down("n1")
    e = _error(cluster, "hello")
    assert e.code == 500 and "dial tcp n1:10250" in str(e)


def test_previous_log_after_a_restart_and_follow_ends_when_the_container_exits():
    job_pod = _pod("job-x", [{"name": "c", "image": "busybox", "command": ["sh", "-c", "echo run; sleep 2; echo bye"]}],
                   {"kubenotes.io/run-seconds": "1", "kubenotes.io/exit-code": "1"}, restart="OnFailure")
    c = Cluster([NODE, job_pod], controllers=[])
    c.run(until=2.5)  # started at t0 = 1.73, exits at t0 + 1 (before "bye" at t0 + 2)
    t0 = _started(c, "job-x")
    assert t0 < 2.5 < t0 + 1
    e = _error(c, "job-x", previous=True)
    assert str(e) == 'previous terminated container "c" in pod "job-x" not found'
    attrs = Attributes(c.client.user, "get", resource_for("pods"), "log", "default", "job-x", False, "kubectl")
    follow = c.server.pod_log(attrs, {"follow": True})
    assert follow.read() == "run\n" and not follow.done
    c.run(until=t0 + 2.2)  # exited at t0 + 1, seen by the PLEG's next relist: the follow ends
    assert follow.read() == "" and follow.done
    c.run(until=t0 + 3)  # the first restart comes at once (the back-off starts with the second)
    pod = c.get("pods", "job-x", "default")
    assert pod["status"]["containerStatuses"][0]["restartCount"] == 1
    assert _log(c, "job-x", previous=True) == "run\n"  # "bye" never printed: the container exited first
    assert _log(c, "job-x") == "run\n"
    start = parse_timestamp(pod["status"]["containerStatuses"][0]["state"]["running"]["startedAt"])
    assert _log(c, "job-x", timestamps=True).startswith(
        (dt.datetime(2025, 8, 27, tzinfo=dt.timezone.utc) + dt.timedelta(seconds=start)).strftime("%Y-%m-%dT%H:%M:%S"))


def test_rbac_guards_the_log_subresource(cluster):
    from kubenotes.apiserver.request import UserInfo

    cluster.run(until=3)
    nobody = UserInfo("jane", groups=("system:authenticated",))
    attrs = Attributes(nobody, "get", resource_for("pods"), "log", "default", "hello", False, "kubectl")
    with pytest.raises(ApiError) as e:
        cluster.server.pod_log(attrs, {})
    assert e.value.code == 403 and 'cannot get resource "pods/log"' in str(e.value)


def test_exec_attach_and_portforward_are_refused_with_a_reason(cluster):
    cluster.run(until=3)
    for sub, word in (("exec", "exec into"), ("attach", "attach to"), ("portforward", "forward ports of")):
        attrs = Attributes(cluster.client.user, "create", resource_for("pods"), sub, "default", "hello", False,
                           "kubectl")
        with pytest.raises(ApiError) as e:
            cluster.server.connect(attrs, "")
        assert e.value.code == 400 and f"kubenotes cannot {word}" in str(e.value)
        assert "runs no container processes" in str(e.value)
    attrs = Attributes(cluster.client.user, "create", resource_for("pods"), "exec", "default", "web-x", False,
                       "kubectl")
    with pytest.raises(ApiError, match=r"choose one of: \[a b\]"):
        cluster.server.connect(attrs, "")


def test_variables_the_model_knows_are_expanded():
    """$(VAR) in command/args is the kubelet's expansion (expansion.go); $VAR in sh -c is the shell's, from the
    container's environment as the kubelet made it (literal env, fieldRef, ConfigMaps and Secrets) and HOSTNAME
    (the pod name). Variables the model does not know (resourceFieldRef) and single-quoted $ stop the model."""
    c = Cluster([NODE, _pod("greeter", [{
        "name": "c", "image": "busybox",
        "env": [{"name": "GREETING", "value": "hello"}, {"name": "WHO", "value": "$(GREETING) world"},
                {"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}},
                {"name": "CPU", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu"}}}],
        "command": ["sh", "-c", "echo $GREETING from $HOSTNAME; echo ${WHO}; echo $(GREETING)x; echo on $NODE; "
                                "echo cpu $CPU; echo never"]}])])
    c.run(until=5)
    assert _log(c, "greeter") == "hello from greeter\nhello world\nhellox\non n1\n"
    assert modelled_output({"command": ["sh", "-c", "echo '$HOME'; echo b"]}, env={"HOME": "/root"}) == []
