"""The kubelet's HTTPS API on port 10250: its paths, how it authorizes a caller, and what ``kubectl`` reaches through it.

The API server does not reach a node over SSH (that was the GCE-only "SSH
tunneler" behind kube-apiserver's ``--ssh-user``/``--ssh-keyfile``,
deprecated in v1.9 and removed in v1.22). It dials the kubelet's HTTPS
port, 10250, with its kubelet client certificate. Three ``kubectl``
commands go that way: ``logs`` (``pods/log`` → ``/containerLogs/...``),
``exec`` (``pods/exec`` → ``/exec/...``) and ``port-forward``
(``pods/portforward`` → ``/portForward/...``). For the last two the kubelet
asks the runtime over the CRI (``Exec``, ``PortForward``) for a URL on the
runtime's streaming server and proxies the upgraded connection to it.
``kubectl top`` goes elsewhere: to ``metrics.k8s.io``, served by
metrics-server, which scrapes each kubelet's ``/metrics/resource``.

This module has the kubelet side of those hops as pure functions
(:func:`request_attributes`, the paths the API server builds) and
:func:`node_api_hops`, which sends one command's request through the model
and returns each hop with what the model recorded for it, or says that the
model does not implement it.

Notes
-----
The model's kubelet serves no port: the API server calls it in-process
(``APIServer.kubelet_client``), so the kubelet's own authentication and
authorization (a ``SubjectAccessReview`` per request in ``Webhook`` mode) is
not run; :func:`request_attributes` says what it would ask. The model runs
no container processes, so ``exec`` and ``port-forward`` stop at the API
server with a 400 (``NO_PROCESSES_MESSAGE``); the runtime model has no
``Exec``/``PortForward`` and no streaming server. Logs are the kubelet
model's record of what the container printed
(:func:`kubenotes.kubelet.logs.modelled_output`), not a file. No
metrics-server and no ``metrics.k8s.io``: the HorizontalPodAutoscaler
controller reads the value a scenario's ``metric`` step sets. The
``/stats/summary`` the model builds feeds only its eviction manager.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/kubelet/server/server.go (InstallDefaultHandlers, InstallDebuggingHandlers: /containerLogs, /exec, /portForward, /stats, /metrics/resource)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/server/auth.go (GetRequestAttributes)
kubernetes/kubernetes@v1.34.0 pkg/registry/core/pod/strategy.go (LogLocation, ExecLocation, PortForwardLocation)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto (Exec, PortForward, ContainerStatus.log_path)
https://kubernetes.io/docs/concepts/architecture/control-plane-node-communication/
https://kubernetes.io/docs/reference/access-authn-authz/kubelet-authn-authz/
https://github.com/kubernetes/kubernetes/pull/54433 (--ssh-user/--ssh-keyfile deprecated, v1.9)
https://github.com/kubernetes/kubernetes/pull/102297 (removed, CHANGELOG-1.22: "Use the apiserver network proxy instead")
https://github.com/kubernetes/enhancements/tree/master/keps/sig-api-machinery/1281-network-proxy (Konnectivity)
https://github.com/kubernetes/enhancements/tree/master/keps/sig-node/1558-streaming-proxy-redirects
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from kubenotes.apiserver.request import Attributes, UserInfo
from kubenotes.apiserver.resources import resource_for
from kubenotes.apiserver.status import ApiError
from kubenotes.errors import KubenotesError
from kubenotes.kubelet.node_status import KUBELET_PORT

__all__ = [
    "COMMANDS", "KUBELET_PORT", "SSH_TUNNEL_FLAGS", "container_logs_path", "exec_path", "node_api_hops",
    "port_forward_path", "request_attributes",
]

#: The commands :func:`node_api_hops` follows.
COMMANDS = ("logs", "exec", "port-forward", "top")

#: kube-apiserver's SSH tunneler flags: deprecated in v1.9 (kubernetes#54433), removed in v1.22 (kubernetes#102297).
SSH_TUNNEL_FLAGS = ("--ssh-user", "--ssh-keyfile")

# pkg/kubelet/server/server.go's path constants, as auth.go matches them (isSubpath trims a trailing slash).
_STATS_PATH, _METRICS_PATH, _LOGS_PATH, _CHECKPOINT_PATH = "/stats/", "/metrics", "/logs/", "/checkpoint"
_PODS_PATH, _RUNNING_PODS_PATH, _HEALTHZ_PATH, _CONFIGZ_PATH = "/pods", "/runningpods/", "/healthz", "/configz"

_HTTP_VERBS = {"POST": "create", "GET": "get", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}


def _is_subpath(subpath: str, path: str) -> bool:
    path = path.rstrip("/")
    return subpath == path or (subpath.startswith(path) and subpath[len(path)] == "/")


def request_attributes(method: str, path: str, node_name: str, *, fine_grained: bool = True) -> list[dict[str, str]]:
    """What the kubelet asks its authorizer for a request to its API (``GetRequestAttributes``).

    The resource is always the kubelet's own Node; the subresource comes from
    the path: ``/stats/*`` is ``nodes/stats``, ``/metrics*`` ``nodes/metrics``,
    ``/logs/*`` ``nodes/log``, ``/checkpoint*`` ``nodes/checkpoint``, anything
    else (``/containerLogs``, ``/exec``, ``/portForward``...) ``nodes/proxy``.
    With ``KubeletFineGrainedAuthz`` (beta, on by default in v1.34)
    ``/pods``, ``/runningpods/``, ``/healthz`` and ``/configz`` are first
    checked as ``nodes/pods``, ``nodes/healthz`` or ``nodes/configz`` and fall
    back to ``nodes/proxy``: the request is allowed when any one is.

    Parameters
    ----------
    method : str
        The HTTP method (``GET``, ``POST``...); it gives the verb.
    path : str
        The URL path, without the query.
    node_name : str
        The kubelet's node: the ``name`` checked.
    fine_grained : bool
        The ``KubeletFineGrainedAuthz`` gate.

    Returns
    -------
    list of dict
        One attribute record per subresource tried, in order: ``verb``,
        ``resource`` (``nodes``), ``subresource``, ``name``.

    Raises
    ------
    KubenotesError
        For an HTTP method the kubelet gives no verb, or a path not starting with ``/``.

    Notes
    -----
    The model leaves out ``/statusz``; its kubelet runs none of this (see the module docstring).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/server/auth.go (GetRequestAttributes, isSubpath)

    Examples
    --------
    >>> [a["subresource"] for a in request_attributes("POST", "/exec/default/web/web", "worker-1")]
    ['proxy']
    >>> request_attributes("GET", "/stats/summary", "worker-1")[0]
    {'verb': 'get', 'resource': 'nodes', 'subresource': 'stats', 'name': 'worker-1'}
    >>> [a["subresource"] for a in request_attributes("GET", "/pods", "worker-1")]
    ['pods', 'proxy']
    >>> [a["subresource"] for a in request_attributes("GET", "/metrics/resource", "worker-1")]
    ['metrics']
    """
    verb = _HTTP_VERBS.get(method.upper())
    if verb is None:
        raise KubenotesError(f"kubelet API: HTTP method {method!r} has no verb (want one of {sorted(_HTTP_VERBS)})")
    if not path.startswith("/"):
        raise KubenotesError(f"kubelet API: path {path!r} must start with /")
    subresources: list[str] = []
    if fine_grained:
        for prefix, sub in ((_PODS_PATH, "pods"), (_HEALTHZ_PATH, "healthz"), (_CONFIGZ_PATH, "configz"),
                            (_RUNNING_PODS_PATH, "pods")):
            if _is_subpath(path, prefix):
                subresources.append(sub)
                break
    for prefix, sub in ((_STATS_PATH, "stats"), (_METRICS_PATH, "metrics"), (_LOGS_PATH, "log"),
                        (_CHECKPOINT_PATH, "checkpoint")):
        if _is_subpath(path, prefix):
            subresources.append(sub)
            break
    else:
        subresources.append("proxy")
    return [{"verb": verb, "resource": "nodes", "subresource": s, "name": node_name} for s in subresources]


def container_logs_path(namespace: str, name: str, container: str, options: dict | None = None) -> str:
    """The kubelet URL path (and query) the API server proxies ``pods/log`` to (``LogLocation``).

    Parameters
    ----------
    namespace, name, container : str
    options : dict, optional
        ``PodLogOptions`` by upstream name; the set ones become the query
        (``follow``, ``previous``, ``timestamps`` as ``true``; the numbers as given).

    Returns
    -------
    str

    Raises
    ------
    KubenotesError
        For an empty namespace, name or container (upstream has picked the container by then).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/registry/core/pod/strategy.go (LogLocation)

    Examples
    --------
    >>> container_logs_path("default", "web", "web")
    '/containerLogs/default/web/web'
    >>> container_logs_path("default", "web", "web", {"tailLines": 10, "follow": True})
    '/containerLogs/default/web/web?follow=true&tailLines=10'
    """
    _require(namespace=namespace, name=name, container=container)
    query = {}
    for key in ("follow", "previous", "timestamps", "sinceSeconds", "sinceTime", "tailLines", "limitBytes"):
        value = (options or {}).get(key)
        if value is True:
            query[key] = "true"
        elif value not in (None, False, ""):
            query[key] = str(value)
    return f"/containerLogs/{namespace}/{name}/{container}" + (f"?{urlencode(sorted(query.items()))}" if query else "")


def exec_path(namespace: str, name: str, container: str, command: list[str] | tuple[str, ...],
              *, stdin: bool = True, tty: bool = True) -> str:
    """The kubelet URL path the API server proxies ``pods/exec`` to (``ExecLocation``, ``streamParams``).

    Parameters
    ----------
    namespace, name, container : str
    command : sequence of str
        The command, one ``command`` parameter per word.
    stdin, tty : bool
        ``kubectl exec -i``/``-t``: ``input=1``, ``tty=1``; stdout is always asked
        (``output=1``), stderr only without a tty (``error=1``: a terminal has one stream).

    Returns
    -------
    str

    Raises
    ------
    KubenotesError
        For an empty namespace, name, container or command.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/registry/core/pod/strategy.go (ExecLocation, streamLocation, streamParams)

    Examples
    --------
    >>> exec_path("default", "web", "web", ["sh"])
    '/exec/default/web/web?command=sh&input=1&output=1&tty=1'
    >>> exec_path("default", "web", "web", ["ls", "/"], stdin=False, tty=False)
    '/exec/default/web/web?command=ls&command=%2F&error=1&output=1'
    """
    _require(namespace=namespace, name=name, container=container)
    if not command:
        raise KubenotesError("exec: a command is required")
    query = [("command", w) for w in command]
    if not tty:
        query.append(("error", "1"))
    if stdin:
        query.append(("input", "1"))
    query.append(("output", "1"))
    if tty:
        query.append(("tty", "1"))
    return f"/exec/{namespace}/{name}/{container}?{urlencode(query)}"


def port_forward_path(namespace: str, name: str) -> str:
    """The kubelet URL path the API server proxies ``pods/portforward`` to (``PortForwardLocation``).

    The ports travel inside the upgraded connection (each stream names its
    port), so the path names only the pod.

    Parameters
    ----------
    namespace, name : str

    Returns
    -------
    str

    Raises
    ------
    KubenotesError
        For an empty namespace or name.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/registry/core/pod/strategy.go (PortForwardLocation)

    Examples
    --------
    >>> port_forward_path("default", "web")
    '/portForward/default/web'
    """
    _require(namespace=namespace, name=name)
    return f"/portForward/{namespace}/{name}"


def _require(**values: str) -> None:
    for key, value in values.items():
        if not value:
            raise KubenotesError(f"kubelet API path: {key} is empty")


def _hop(source: str, target: str, request: str, authorized_as: str, modelled: bool, record: str) -> dict[str, Any]:
    return {"from": source, "to": target, "request": request, "authorized as": authorized_as,
            "modelled": modelled, "record": record}


def _steps(trace: list[dict]) -> dict[str, str]:
    """The last traced request's steps: step name -> detail."""
    return {s["step"]: s["detail"] for s in (trace[-1]["steps"] if trace else [])}


def _container_record(kubelet: Any, pod: dict, container: str) -> Any:
    """The runtime's record of the container's current run (or None)."""
    for st in (pod.get("status") or {}).get("containerStatuses") or []:
        if st.get("name") == container and st.get("containerID"):
            return kubelet.runtime.containers.get(st["containerID"].split("://", 1)[-1])
    return None


def node_api_hops(server: Any, kubelet: Any, command: str, namespace: str, name: str, container: str = "",
                  *, user: UserInfo | None = None, exec_command: tuple[str, ...] = ("sh",),
                  port: int = 80) -> list[dict[str, Any]]:
    """One ``kubectl`` command's hops from the API server to the container, with the model's record of each.

    The request is sent through the model: the API server authorizes it and
    answers as it does for ``kubectl`` (``APIServer.pod_log`` for ``logs``,
    ``APIServer.connect`` for ``exec`` and ``port-forward``), with its
    request trace on; the kubelet and runtime models supply the container's
    ID, its log path and what it printed. A hop the model does not implement
    is listed with upstream's request and ``modelled`` False.

    Parameters
    ----------
    server : APIServer
        The model's API server (``cluster.server``).
    kubelet : Kubelet
        The kubelet model of the pod's node.
    command : str
        One of :data:`COMMANDS`: ``logs``, ``exec``, ``port-forward``, ``top``.
    namespace, name : str
        The pod.
    container : str
        The container ("" for the pod's only one).
    user : UserInfo, optional
        Who runs kubectl (default ``kubernetes-admin`` in ``system:masters``).
    exec_command : tuple of str
        The command ``kubectl exec -it POD -- ...`` runs.
    port : int
        The pod port ``kubectl port-forward POD LOCAL:port`` reaches.

    Returns
    -------
    list of dict
        One per hop, in order: ``from``, ``to``, ``request``, ``authorized as``,
        ``modelled`` (bool), ``record`` (the model's record, its answer, or
        why it has none). The first hop is always ``kubectl`` → ``kube-apiserver``.

    Raises
    ------
    KubenotesError
        For an unknown command, or a pod that does not exist or has no node.

    Notes
    -----
    A 403 or 400 from the API server ends the chain there: the hops after it
    are not listed. The model's API server authorizes ``exec`` and
    ``port-forward`` as ``create``, as for kubectl's SPDY ``POST``; in v1.34
    kubectl opens them as a WebSocket ``GET``, which upstream authorizes as
    ``get`` until ``AuthorizePodWebsocketUpgradeCreatePermission`` (beta in
    v1.35) checks ``create`` too.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/registry/core/pod/rest/log.go (LogREST.Get)
    kubernetes/kubernetes@v1.34.0 pkg/registry/core/pod/rest/subresources.go (ExecREST, PortForwardREST)
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/server/server.go (getContainerLogs, getExec, getPortForward)
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/kuberuntime/kuberuntime_container.go (GetContainerLogs: ContainerStatus's log_path)
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/server/stats/summary.go, pkg/kubelet/server/stats/prometheus_resource_metrics.go

    Examples
    --------
    >>> from kubenotes.sim.scenarios import simulate_pod_start
    >>> run = simulate_pod_start(until_seconds=12)
    >>> hops = node_api_hops(run.cluster.server, run.kubelet, "logs", "default", "web", "web")
    >>> [(h["to"], h["modelled"]) for h in hops][:3]
    [('kube-apiserver', True), ('kubelet :10250', True), ('container runtime (CRI)', True)]
    """
    if command not in COMMANDS:
        raise KubenotesError(f"node_api_hops: unknown command {command!r} (want one of {', '.join(COMMANDS)})")
    pods = resource_for("pods")
    pod = server.store.get(pods, namespace, name)
    if pod is None:
        raise KubenotesError(f"node_api_hops: pod {namespace}/{name} not found")
    node = (pod.get("spec") or {}).get("nodeName") or ""
    if not node:
        raise KubenotesError(f"node_api_hops: pod {namespace}/{name} has no node yet")
    user = user or UserInfo("kubernetes-admin", groups=("system:masters", "system:authenticated"))
    pod_url = f"/api/v1/namespaces/{namespace}/pods/{name}"
    kubelet_url = f"https://{node}:{KUBELET_PORT}"
    if command == "top":
        return _top_hops(kubelet, pod, node)
    sub = {"logs": "log", "exec": "exec", "port-forward": "portforward"}[command]
    verb = "get" if command == "logs" else "create"
    attrs = Attributes(user, verb, pods, sub, namespace, name, False, "kubectl")
    was_tracing = server.request_trace is not None
    trace = server.trace_requests(True)
    mark = len(trace)
    answer, error = None, None
    try:
        if command == "logs":
            answer = server.pod_log(attrs, {"container": container} if container else {})
        else:
            server.connect(attrs, container)
    except ApiError as e:
        error = e
    finally:
        steps = _steps(trace[mark:])
        if not was_tracing:  # leave a run's tracing as it was (scenario runs are memoised and shared)
            server.trace_requests(False)
    query = f"?container={container}" if container else ""
    if command == "logs":
        request = f"GET {pod_url}/log{query}"
    elif command == "exec":
        request = f"POST {pod_url}/exec?{urlencode([('command', w) for w in exec_command])}" + \
                  (f"&container={container}" if container else "") + "&stdin=true&stdout=true&tty=true"
    else:
        request = f"POST {pod_url}/portforward (port {port} in the stream headers)"
    refused = error is not None and "runs no container processes" in str(error)
    first = "authorization: " + steps.get("authorization", "").rstrip(": ")
    if error is not None and not refused:
        return [_hop("kubectl", "kube-apiserver", request, f"{verb} pods/{sub}", True,
                     f"{first}; answered {error.code}: {error}")]
    hops = [_hop("kubectl", "kube-apiserver", request, f"{verb} pods/{sub}", True,
                 f"{first}" + ("; then the model answers 400: it runs no container processes" if refused else ""))]
    container = container or (pod["spec"]["containers"][0]["name"] if len(pod["spec"]["containers"]) == 1 else "")
    record = _container_record(kubelet, pod, container)
    if command == "logs":
        path = container_logs_path(namespace, name, container)
        auth = request_attributes("GET", path.split("?")[0], node)
        text = answer.read() if answer is not None else ""
        lines = [ln for ln in text.splitlines() if ln]
        hops.append(_hop("kube-apiserver", "kubelet :10250", f"GET {kubelet_url}{path}",
                         _nodes_attrs(auth), True,
                         steps.get("kubelet", "") + " (in-process: the model's kubelet serves no port and "
                         "authorizes nothing itself)"))
        hops.append(_hop("kubelet :10250", "container runtime (CRI)",
                         f"ContainerStatus {record.id[:13] if record else '?'} → log_path", "–", True,
                         f"log_path {record.log_path}" if record else "no container record"))
        hops.append(_hop("container runtime (CRI)", "container", "the shim writes stdout/stderr to log_path; "
                         "the kubelet reads the file itself (no streaming server)", "–", True,
                         f"{len(lines)} line(s) printed, the first: {lines[0]!r}" if lines else "nothing printed yet"))
        return hops
    sandbox = next((s for s in kubelet.runtime.sandboxes.values()
                    if s.metadata.get("uid") == pod["metadata"].get("uid")), None)
    if command == "exec":
        path = exec_path(namespace, name, container, list(exec_command))
        cri = (f"Exec {{container_id: {record.id[:13] if record else '?'}…, cmd: {list(exec_command)}, tty: true, "
               "stdin: true} → {url}")
        target = "the process, in the container's namespaces and cgroup (runc exec)"
    else:
        path = port_forward_path(namespace, name)
        cri = f"PortForward {{pod_sandbox_id: {sandbox.id[:13] if sandbox else '?'}…, port: [{port}]}} → {{url}}"
        target = f"localhost:{port} inside the pod's network namespace ({sandbox.netns if sandbox else '?'})"
    auth = request_attributes("POST", path.split("?")[0], node)
    not_modelled = "not modelled: the model stops at the API server"
    hops.append(_hop("kube-apiserver", "kubelet :10250", f"POST {kubelet_url}{path} (upgraded: SPDY or WebSocket)",
                     _nodes_attrs(auth), False, not_modelled))
    hops.append(_hop("kubelet :10250", "container runtime (CRI)", cri, "–", False,
                     "not modelled: the runtime model has no Exec/PortForward"))
    hops.append(_hop("kubelet :10250", "streaming server", "the kubelet proxies the upgraded stream to {url} "
                     "(no redirect since v1.20)", "–", False, "not modelled: no streaming server"))
    hops.append(_hop("streaming server", "container", target, "–", False,
                     "not modelled: no container processes" if command == "exec" else
                     "not modelled: no sockets in the pod"))
    return hops


def _nodes_attrs(attrs: list[dict[str, str]]) -> str:
    return " or ".join(f"{a['verb']} nodes/{a['subresource']}" for a in attrs)


def _top_hops(kubelet: Any, pod: dict, node: str) -> list[dict[str, Any]]:
    """``kubectl top pod``: metrics.k8s.io, metrics-server, the kubelet's resource metrics."""
    md = pod["metadata"]
    ns, name = md.get("namespace", "default"), md["name"]
    summary = kubelet.eviction_manager.adapter.summary(float(kubelet.env.now))
    stats = next((p for p in summary["pods"] if p["podRef"].get("uid") == md.get("uid")), None)
    working_set = sum(c["memory"]["workingSetBytes"] for c in stats["containers"]) if stats else None
    metrics = "/metrics/resource"
    return [
        _hop("kubectl", "kube-apiserver", f"GET /apis/metrics.k8s.io/v1beta1/namespaces/{ns}/pods/{name}",
             "get pods.metrics.k8s.io", False, "not served: the model's API server has no metrics.k8s.io "
             "(kubectl top says: error: Metrics API not available)"),
        _hop("kube-apiserver", "metrics-server", "the aggregator proxies the APIService v1beta1.metrics.k8s.io",
             "–", False, "not modelled: no aggregation layer, no metrics-server"),
        _hop("metrics-server", "kubelet :10250", f"GET https://{node}:{KUBELET_PORT}{metrics} (every node, each "
             "--metric-resolution)", _nodes_attrs(request_attributes("GET", metrics, node)), False,
             "not modelled; the HPA controller reads a scenario's metric step instead"),
        _hop("kubelet :10250", "cAdvisor / CRI stats", "the stats provider: cgroup usage per container, which "
             "/metrics/resource and /stats/summary both serve", "–", True,
             f"the model's /stats/summary ({_nodes_attrs(request_attributes('GET', '/stats/summary', node))}; "
             f"its eviction manager's input): pod {name} working set {working_set} bytes" if stats else
             f"the model's /stats/summary has no stats for {name} (not running)"),
    ]
