"""``kubectl`` against a served cluster: run one command and collect the HTTP requests it caused.

:func:`kubectl_session` runs one command against a served cluster
(:meth:`Cluster.serve <kubenotes.sim.cluster.Cluster.serve>`) with the API
server's HTTP log on (:meth:`APIServer.trace_http
<kubenotes.apiserver.server.APIServer.trace_http>`), and returns a
:class:`KubectlResult`: what kubectl printed, its exit code, and every HTTP
request it caused with the API server's own record of each (verb, user,
handler-chain steps, the store write and the watchers its event went to).
Chapter 02.02 draws these with :mod:`kubenotes.viz.kubectl`.

:func:`kubectl_apply_hops` is :func:`~kubenotes.sim.trace.apply_hops` with the
write done by ``kubectl apply -f -`` over HTTP, so chapter 02.00's component
graph and hop table show the cascade a real command starts;
:func:`record_rollout` runs a rollout command and then moves the virtual clock
step by step, running ``kubectl get`` at each step.

When no kubectl is installed, the same requests are sent with httpx (which
lightkube brings): the commands the chapter uses are translated into their
REST requests, and a short text stands in for kubectl's output (see
:data:`FALLBACK_COMMANDS` and the Notes of :func:`kubectl_session`).

Notes
-----
There is no upstream counterpart: this is what ``kubectl -v=8`` (the request
log of client-go's ``rest`` package) and the API server's audit log tell
together, read from the model's own records. Nothing here is measured on the
wall clock except the real kubectl's process, which runs in real time while
the model's clock only moves when told to.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/kubectl/pkg/cmd/get/get.go (``transformRequests``, ``watch``)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/kubectl/pkg/cmd/apply/apply.go (GET, then create or patch)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/kubectl/pkg/cmd/scale/scale.go (PATCH of the scale subresource)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/kubectl/pkg/cmd/set/set_image.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/kubectl/pkg/cmd/rollout/rollout_restart.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/rest/request.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/endpoints/handlers/ (get, create, patch, watch)
"""

from __future__ import annotations

import json
import os
import shlex
import ssl
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Mapping, Sequence

import httpx
import yaml

from kubenotes.api.yamlutil import load as load_yaml, load_documents
from kubenotes.apiserver.resources import resource_for, resource_for_kind
from kubenotes.sim.history import STORAGE_STEP, watch_deliveries
from kubenotes.sim.serve import find_kubectl
from kubenotes.sim.trace import apply_hops, component_graph

__all__ = [
    "TABLE_ACCEPT",
    "HTTP_WATCHER",
    "FALLBACK_USER_AGENT",
    "FALLBACK_COMMANDS",
    "KubectlResult",
    "kubectl_available",
    "kubectl_session",
    "kubectl_apply_hops",
    "record_rollout",
    "http_writes",
    "describe_request",
    "request_chain",
    "rollout_state",
]

#: The Accept header of ``kubectl get`` (``transformRequests`` in get.go): a server-side Table, else plain JSON.
TABLE_ACCEPT = ("application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,"
                "application/json")
#: The name the store gives a watch opened over HTTP by kubectl (``<component> (http watch)``).
HTTP_WATCHER = "kubectl (http watch)"
#: The fallback's User-Agent; it starts with ``kubectl`` so the API server files its requests under kubectl.
FALLBACK_USER_AGENT = "kubectl-kubenotes-fallback/v1.33 (httpx)"
#: The commands the httpx fallback can translate (anything else raises ValueError when kubectl is missing).
FALLBACK_COMMANDS = ("get TYPE[,TYPE...] [NAME] [-l SELECTOR] [-w]", "apply -f -", "scale TYPE/NAME --replicas=N",
                     "set image TYPE/NAME CONTAINER=IMAGE", "patch TYPE NAME --type=json|merge|strategic -p PATCH",
                     "rollout restart TYPE/NAME", "auth can-i VERB TYPE", "create token SERVICEACCOUNT",
                     "create configmap NAME", "create namespace NAME")


# ---------------------------------------------------------------------------
# the result of one command


@dataclass
class KubectlResult:
    """One command's output and the HTTP requests it caused.

    Attributes
    ----------
    command : str
        As typed, starting with ``kubectl``.
    returncode : int
        kubectl's exit code (0 success, 1 an error).
    stdout, stderr : str
    http : list[dict]
        The entries of :meth:`APIServer.trace_http` the command caused, in
        order: ``time`` (virtual seconds), ``method``, ``url``, ``user_agent``,
        ``code``, ``watch`` and ``requests`` (the API server's request
        records: ``verb``, ``resource``, ``namespace``, ``name``, ``user``,
        ``code`` and ``steps``).
    via : str
        ``"kubectl"`` (the real binary) or ``"httpx"`` (the fallback).
    started_seconds : float
        The virtual clock when the command started.
    watch_events : list[dict]
        For a watch: each event the API server queued for kubectl's watch while
        it was open, ``{"type", "key", "resourceVersion"}`` (``key`` as in etcd).
    """

    command: str
    returncode: int
    stdout: str
    stderr: str
    http: list[dict]
    via: str = "kubectl"
    started_seconds: float = 0.0
    watch_events: list[dict] = field(default_factory=list)

    #: How a notebook draws a result: :mod:`kubenotes.viz.kubectl` sets its ``kubectl_panel`` here when imported
    #: (the model does not import its drawing layer).
    html_view: ClassVar[Callable[["KubectlResult"], Any] | None] = None

    @property
    def requests(self) -> list[dict]:
        """Every API request record of every HTTP request, in order (discovery and OpenAPI have none)."""
        return [r for e in self.http for r in e.get("requests", ())]

    @property
    def codes(self) -> list[int]:
        """The HTTP status of each request, in order."""
        return [int(e.get("code", 0)) for e in self.http]

    @property
    def writes(self) -> list[dict]:
        """The store writes the command made: ``{"type", "key", "resourceVersion", "watchers"}`` each.

        ``watchers`` maps each watcher the event was queued for to the event
        type it saw (``{"kube-controller-manager": "ADDED"}``).
        """
        return [w for e in self.http for w in http_writes(e)]

    def lines(self) -> list[str]:
        """``"METHOD URL -> CODE"`` per request: the shape of ``kubectl -v=6``'s log."""
        return [f"{e['method']} {e['url']} -> {e['code']}" for e in self.http]

    def _repr_html_(self) -> str | None:
        """The result drawn by :attr:`html_view` (None, so plain text, until a drawing module sets it)."""
        view = KubectlResult.html_view
        return None if view is None else str(view(self))


# ---------------------------------------------------------------------------
# running a command


def kubectl_available(kubectl: str | None = None) -> bool:
    """Whether a kubectl binary is installed (:func:`kubenotes.sim.serve.find_kubectl`), or ``kubectl`` exists.

    Examples
    --------
    >>> kubectl_available("/nonexistent/kubectl")
    False
    """
    if kubectl is not None:
        return os.path.exists(kubectl) and os.access(kubectl, os.X_OK)
    return find_kubectl() is not None


def _split(command: str | Sequence[str]) -> list[str]:
    args = shlex.split(command) if isinstance(command, str) else [str(a) for a in command]
    if args and args[0] == "kubectl":
        args = args[1:]
    if not args:
        raise ValueError("empty kubectl command")
    return args


def _masked(arg: str) -> str:
    """``--token=eyJhbGciOiJSUzI1NiIs...`` -> ``--token=eyJhbGciOi…`` (a bearer token is long and secret)."""
    if arg.startswith("--token=") and len(arg) > 8 + 16:
        return arg[:8 + 10] + "…"
    return shlex.quote(arg)


def _is_watch(args: Sequence[str]) -> bool:
    return any(a in ("-w", "--watch", "--watch-only") or a.startswith("--watch=") for a in args)


def _watch_open(entries: Sequence[Mapping[str, Any]]) -> bool:
    """Whether a watch request has reached the API server's store.

    Its request record is made in the same locked call that registers the
    watcher, so once the record exists, the next holder of the lock (the clock)
    runs with the watcher in place and its events are recorded as delivered.
    """
    return any(e.get("watch") and e.get("requests") for e in entries)


def _wait_for(pred: Callable[[], bool], timeout_seconds: float = 10.0) -> bool:
    """Poll ``pred`` (wall clock: a real process is being waited for, not the model)."""
    end = time.monotonic() + timeout_seconds
    pause = threading.Event()
    while time.monotonic() < end:
        if pred():
            return True
        pause.wait(0.02)
    return bool(pred())


def kubectl_session(served: Any, command: str | Sequence[str], *, input: str | None = None,
                    during: Callable[[], Any] | None = None, kubectl: str | None = None,
                    fallback: bool | None = None, timeout_seconds: float = 60.0) -> KubectlResult:
    """Run one kubectl command against a served cluster and collect the HTTP requests it sent.

    Parameters
    ----------
    served : ServedCluster
        From :meth:`Cluster.serve <kubenotes.sim.cluster.Cluster.serve>`.
    command : str or sequence of str
        ``"kubectl get pods -n web"`` (the leading ``kubectl`` is optional;
        split as a shell would).
    input : str, optional
        Standard input (the manifest of ``apply -f -``).
    during : callable, optional
        For a watch (``-w``): called once kubectl's watch request has arrived,
        typically ``lambda: served.run_for(10)``; kubectl prints the events it
        causes. A watch without ``--request-timeout`` gets
        ``--request-timeout=2s`` (wall seconds), so that kubectl returns.
    kubectl : str, optional
        The binary (default :func:`kubenotes.sim.serve.find_kubectl`).
    fallback : bool, optional
        True: send the requests with httpx even if kubectl is installed;
        None (default): only when it is not.
    timeout_seconds : float
        Wall seconds before kubectl is killed.

    Returns
    -------
    KubectlResult

    Raises
    ------
    ValueError
        For an empty command, or (fallback only) a command outside
        :data:`FALLBACK_COMMANDS`.
    FileNotFoundError
        With ``fallback=False`` when no kubectl is installed.
    subprocess.TimeoutExpired
        When kubectl runs longer than ``timeout_seconds``.

    Notes
    -----
    ``watch_events`` are the events queued for any HTTP watch opened by a
    kubectl (the store names it :data:`HTTP_WATCHER`) while the command ran,
    so a second ``kubectl get -w`` in a terminal would add its own. The
    HTTP log (:meth:`APIServer.trace_http`) is switched on and left on,
    so the requests of the cluster's own components keep being recorded in
    ``request_trace`` too. The httpx fallback sends the requests the real
    kubectl sends for the same command (same methods, paths, query parameters,
    Accept header for ``get``, patch types), except: no discovery (``/api``,
    ``/apis``) or OpenAPI requests, ``apply`` of an existing object sends a
    JSON merge patch of the whole manifest (kubectl computes a three-way
    strategic merge patch from its last-applied annotation), ``rollout
    restart`` stamps the virtual time instead of the wall time, a watch asks
    the server to close it after 2 wall seconds (``timeoutSeconds=2``) rather
    than timing out on the client, kubectl's printing is imitated only for
    Tables (priority-0 columns) and one-line confirmations, and every error is
    printed as ``Error from server (Reason): message`` (kubectl prints some
    as ``error: failed to create ...: message``).

    Examples
    --------
    >>> from kubenotes.sim.cluster import Cluster
    >>> served = Cluster(controllers=[], scheduler=False).serve(port=0, time_scale=0)
    >>> r = kubectl_session(served, "kubectl get namespaces", fallback=True)
    >>> r.returncode, r.lines()[0].split("?")[0], r.stdout.split()[:3]
    (0, 'GET /api/v1/namespaces', ['NAME', 'STATUS', 'AGE'])
    >>> served.stop()
    """
    args = _split(command)
    server = served.cluster.server
    log = server.trace_http()
    trace = server.request_trace
    h0, r0 = len(log), len(trace)
    started = served.now
    exe = kubectl or find_kubectl()
    use_fallback = fallback if fallback is not None else exe is None
    watch = _is_watch(args)
    if watch and not any(a.startswith("--request-timeout") for a in args):
        args = [*args, "--request-timeout=2s"]
    text = "kubectl " + " ".join(_masked(a) for a in args)
    if use_fallback:
        rc, out, err = _Fallback(served).run(args, input=input, during=during)
        via = "httpx"
    else:
        if watch and during is not None:
            box: dict[str, Any] = {}

            def run() -> None:
                try:
                    box["proc"] = served.kubectl(*args, input=input, timeout=timeout_seconds, kubectl=exe)
                except BaseException as exc:  # noqa: BLE001 - reported below
                    box["error"] = exc

            th = threading.Thread(target=run, name="kubenotes-kubectl-watch", daemon=True)
            th.start()
            _wait_for(lambda: _watch_open(log[h0:]) or not th.is_alive())
            during()
            th.join(timeout_seconds)
            if "error" in box:
                raise box["error"]
            proc = box["proc"]
        else:
            proc = served.kubectl(*args, input=input, timeout=timeout_seconds, kubectl=exe)
            if during is not None:
                during()
        rc, out, err = proc.returncode, proc.stdout, proc.stderr
        via = "kubectl"
    entries = list(log[h0:])
    events = []
    if watch:
        for rec in trace[r0:]:
            steps = rec.get("steps", ())
            for i, s in enumerate(steps):
                if s["step"] != "watch":
                    continue
                got = watch_deliveries(s["detail"]).get(HTTP_WATCHER)
                store = steps[i - 1] if i else None
                m = STORAGE_STEP.match(store["detail"]) if store and store["step"] == "storage" else None
                if got and m:
                    events.append({"type": got, "key": m.group(2), "resourceVersion": m.group(3)})
    return KubectlResult(text, rc, out, err, entries, via, started, events)


# ---------------------------------------------------------------------------
# the fallback: the same REST requests, with httpx


def _path(ri: Any, namespace: str | None, name: str = "", sub: str = "") -> str:
    base = f"/apis/{ri.group}/{ri.version}" if ri.group else f"/api/{ri.version}"
    if ri.namespaced and namespace:
        base += f"/namespaces/{namespace}"
    base += f"/{ri.resource}"
    if name:
        base += f"/{name}"
    if sub:
        base += f"/{sub}"
    return base


def _kind_name(ri: Any, name: str) -> str:
    """``deployment.apps/web``, ``configmap/x``: how kubectl names an object in its messages."""
    kind = ri.kind.lower() + (f".{ri.group}" if ri.group else "")
    return f"{kind}/{name}"


def _columns(rows: Sequence[Sequence[str]]) -> str:
    """kubectl's tabwriter: columns padded to the widest cell plus 3 spaces, the last one not padded."""
    if not rows:
        return ""
    widths = [max(len(r[i]) for r in rows if i < len(r)) for i in range(max(len(r) for r in rows))]
    out = []
    for r in rows:
        cells = [c.ljust(widths[i] + 3) if i < len(r) - 1 else c for i, c in enumerate(r)]
        out.append("".join(cells).rstrip())
    return "\n".join(out) + "\n"


class _Fallback:
    """Translate one kubectl command into its REST requests and send them with httpx."""

    def __init__(self, served: Any):
        with open(served.kubeconfig_path) as f:
            cfg = yaml.safe_load(f)
        self.admin_token = cfg["users"][0]["user"]["token"]
        self.default_namespace = cfg["contexts"][0]["context"].get("namespace") or "default"
        self.served = served
        self.tls = ssl.create_default_context(cafile=served.ca_path)
        self.httpx = httpx

    # -- plumbing
    def _client(self, token: str) -> Any:
        return self.httpx.Client(base_url=self.served.url, verify=self.tls, timeout=30.0,
                                 headers={"Authorization": f"Bearer {token}", "User-Agent": FALLBACK_USER_AGENT})

    @staticmethod
    def _parse(args: Sequence[str]) -> tuple[list[str], dict[str, str]]:
        short = {"-n": "namespace", "-l": "selector", "-f": "filename", "-p": "patch", "-o": "output"}
        valued = {"namespace", "selector", "filename", "patch", "output", "type", "replicas", "token",
                  "request-timeout"}
        pos: list[str] = []
        opts: dict[str, str] = {}
        it = iter(args)
        for a in it:
            if a in ("-w", "--watch"):
                opts["watch"] = "true"
            elif a in ("-A", "--all-namespaces"):
                opts["all-namespaces"] = "true"
            elif a in short:
                opts[short[a]] = next(it, "")
            elif a.startswith("--"):
                key, eq, val = a[2:].partition("=")
                if not eq and key in valued:
                    val = next(it, "")
                opts[key] = val if (eq or key in valued) else "true"
            else:
                pos.append(a)
        return pos, opts

    @staticmethod
    def _error(resp: Any) -> str:
        if resp.status_code == 401:
            return "error: You must be logged in to the server (Unauthorized)\n"
        try:
            st = resp.json()
        except ValueError:
            return f"error: the server answered {resp.status_code}\n"
        return f"Error from server ({st.get('reason', '')}): {st.get('message', '')}\n"

    def _table(self, table: Mapping[str, Any], prefix: str = "", header: bool = True) -> list[list[str]]:
        """Rows of a Table's priority-0 columns (a watch's later Tables carry no column definitions: reuse)."""
        if table.get("columnDefinitions"):
            self._cols = [i for i, c in enumerate(table["columnDefinitions"]) if c.get("priority", 0) == 0]
        cols = getattr(self, "_cols", [])
        rows = [[table["columnDefinitions"][i]["name"].upper() for i in cols]] if header and cols else []
        for row in table.get("rows", ()):
            cells = ["" if row["cells"][i] is None else str(row["cells"][i]) for i in cols]
            if prefix and cells:
                cells[0] = prefix + cells[0]
            rows.append(cells)
        return rows

    # -- commands
    def run(self, args: Sequence[str], *, input: str | None = None,
            during: Callable[[], Any] | None = None) -> tuple[int, str, str]:
        pos, opts = self._parse(args)
        ns = opts.get("namespace") or self.default_namespace
        token = opts.get("token") or self.admin_token
        self.token = token
        verb = pos[0] if pos else ""
        with self._client(token) as c:
            if verb == "get" and len(pos) >= 2:
                return self._get(c, pos, opts, ns, during)
            if verb == "apply" and opts.get("filename") == "-":
                return self._apply(c, input or "", ns)
            if verb in ("scale", "set", "rollout", "patch") and len(pos) >= 2:
                target = pos[2] if verb in ("set", "rollout") and len(pos) > 2 else pos[1]
                if verb == "patch" and "/" not in target and len(pos) >= 3:
                    target = f"{pos[1]}/{pos[2]}"
                kind, _, name = target.partition("/")
                ri = resource_for(kind)
                got = c.get(_path(ri, ns, name))
                if got.status_code >= 400:
                    return 1, "", self._error(got)
                if verb == "scale":
                    resp = c.patch(_path(ri, ns, name, "scale"), content=json.dumps(
                        {"spec": {"replicas": int(opts["replicas"])}}),
                        headers={"Content-Type": "application/merge-patch+json"})
                    done = "scaled"
                elif verb == "set" and len(pos) >= 4 and pos[1] == "image":
                    container, _, image = pos[3].partition("=")
                    body = {"spec": {"template": {"spec": {"containers": [{"image": image, "name": container}]}}}}
                    resp = c.patch(_path(ri, ns, name), content=json.dumps(body),
                                   params={"fieldManager": "kubectl-set"},
                                   headers={"Content-Type": "application/strategic-merge-patch+json"})
                    done = "image updated"
                elif verb == "rollout" and pos[1] == "restart":
                    stamp = self.served.cluster.server.timestamp()
                    body = {"spec": {"template": {"metadata": {"annotations": {
                        "kubectl.kubernetes.io/restartedAt": stamp}}}}}
                    resp = c.patch(_path(ri, ns, name), content=json.dumps(body),
                                   params={"fieldManager": "kubectl-rollout"},
                                   headers={"Content-Type": "application/strategic-merge-patch+json"})
                    done = "restarted"
                elif verb == "patch":
                    media = {"json": "application/json-patch+json", "merge": "application/merge-patch+json",
                             "strategic": "application/strategic-merge-patch+json"}[opts.get("type", "strategic")]
                    resp = c.patch(_path(ri, ns, name), content=opts.get("patch", ""),
                                   params={"fieldManager": "kubectl-patch"}, headers={"Content-Type": media})
                    done = "patched"
                else:
                    raise ValueError(self._unsupported(args))
                if resp.status_code >= 400:
                    return 1, "", self._error(resp)
                return 0, f"{_kind_name(ri, name)} {done}\n", ""
            if verb == "auth" and len(pos) >= 4 and pos[1] == "can-i":
                ri = resource_for(pos[3])
                body = {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
                        "spec": {"resourceAttributes": {"namespace": ns if ri.namespaced else "", "verb": pos[2],
                                                        "group": ri.group, "resource": ri.resource}}}
                resp = c.post("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", json=body)
                if resp.status_code >= 400:
                    return 1, "", self._error(resp)
                allowed = bool(resp.json().get("status", {}).get("allowed"))
                return (0, "yes\n", "") if allowed else (1, "no\n", "")
            if verb == "create" and len(pos) >= 3 and pos[1] in ("token", "configmap", "namespace", "ns", "cm"):
                if pos[1] == "token":
                    resp = c.post(_path(resource_for("serviceaccounts"), ns, pos[2], "token"),
                                  json={"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {}})
                    if resp.status_code >= 400:
                        return 1, "", self._error(resp)
                    return 0, resp.json()["status"]["token"] + "\n", ""
                ri = resource_for("configmaps" if pos[1] in ("configmap", "cm") else "namespaces")
                resp = c.post(_path(ri, ns), json={"apiVersion": "v1", "kind": ri.kind, "metadata": {"name": pos[2]}},
                              params={"fieldManager": "kubectl-create", "fieldValidation": "Strict"})
                if resp.status_code >= 400:
                    return 1, "", self._error(resp)
                return 0, f"{_kind_name(ri, pos[2])} created\n", ""
        raise ValueError(self._unsupported(args))

    @staticmethod
    def _unsupported(args: Sequence[str]) -> str:
        return ("kubectl is not installed and the fallback cannot translate `kubectl " + " ".join(args)
                + "`; it knows: " + "; ".join(FALLBACK_COMMANDS))

    def _get(self, c: Any, pos: list[str], opts: dict[str, str], ns: str,
             during: Callable[[], Any] | None) -> tuple[int, str, str]:
        kinds = pos[1].split(",")
        name = pos[2] if len(pos) > 2 else ""
        headers = {"Accept": TABLE_ACCEPT}
        everywhere = opts.get("all-namespaces") == "true"
        blocks: list[str] = []
        for k in kinds:
            ri = resource_for(k)
            params: dict[str, str] = {}
            if not name:
                params["limit"] = "500"
            if opts.get("selector"):
                params["labelSelector"] = opts["selector"]
            resp = c.get(_path(ri, None if everywhere else ns, name), params=params, headers=headers)
            if resp.status_code >= 400:
                return 1, "\n".join(blocks), self._error(resp)
            table = resp.json()
            prefix = f"{ri.kind.lower()}{'.' + ri.group if ri.group else ''}/" if len(kinds) > 1 else ""
            if not table.get("rows") and not opts.get("watch"):
                continue
            rows = self._table(table, prefix)
            params["_rv"] = (table.get("metadata") or {}).get("resourceVersion", "")
            if opts.get("watch"):
                rows.extend(self._watch(ri, None if everywhere else ns, name, params, prefix, during))
            blocks.append(_columns(rows))
        if not blocks:
            where = "" if everywhere else f" in {ns} namespace"
            return 0, "", f"No resources found{where}.\n"
        return 0, "\n".join(blocks), ""

    def _watch(self, ri: Any, ns: str | None, name: str, params: Mapping[str, str], prefix: str,
               during: Callable[[], Any] | None) -> list[list[str]]:
        """WATCH from the list's resourceVersion on a thread, run ``during`` once it is open, collect its rows."""
        rv = params.get("_rv", "")
        wparams = {k: v for k, v in params.items() if k not in ("limit", "_rv")}
        wparams.update({"watch": "true", "resourceVersion": rv, "timeoutSeconds": "2"})
        rows: list[list[str]] = []
        log = self.served.cluster.server.http_log
        n0 = len(log) if log is not None else 0

        def read() -> None:
            with self._client(self.token) as c, c.stream("GET", _path(ri, ns, name), params=wparams,
                                                          headers={"Accept": TABLE_ACCEPT}) as stream:
                for line in stream.iter_lines():
                    if line.strip():
                        obj = json.loads(line).get("object") or {}
                        if obj.get("kind") == "Table":
                            rows.extend(r for r in self._table(obj, prefix, header=False) if r)

        th = threading.Thread(target=read, name="kubenotes-fallback-watch", daemon=True)
        th.start()
        _wait_for(lambda: (log is not None and _watch_open(log[n0:])) or not th.is_alive())
        if during is not None:
            during()
        th.join(30.0)
        return rows

    def _apply(self, c: Any, text: str, ns: str) -> tuple[int, str, str]:
        out: list[str] = []
        for obj in (d for _, d in load_documents(text) if d):  # as kubectl reads YAML
            ri = resource_for_kind(obj["kind"], obj.get("apiVersion"))
            md = obj.setdefault("metadata", {})
            name = md["name"]
            where = md.get("namespace") or ns
            if ri.namespaced:
                md.setdefault("namespace", where)
            last = json.dumps(obj, separators=(",", ":"), sort_keys=True) + "\n"
            got = c.get(_path(ri, where, name))
            if got.status_code == 404:
                md.setdefault("annotations", {})["kubectl.kubernetes.io/last-applied-configuration"] = last
                resp = c.post(_path(ri, where), json=obj,
                              params={"fieldManager": "kubectl-client-side-apply", "fieldValidation": "Strict"})
                done = "created"
            elif got.status_code >= 400:
                return 1, "".join(out), self._error(got)
            else:
                md.setdefault("annotations", {})["kubectl.kubernetes.io/last-applied-configuration"] = last
                resp = c.patch(_path(ri, where, name), content=json.dumps(obj),
                               params={"fieldManager": "kubectl-client-side-apply", "fieldValidation": "Strict"},
                               headers={"Content-Type": "application/merge-patch+json"})
                done = "configured"
            if resp.status_code >= 400:
                return 1, "".join(out), self._error(resp)
            out.append(f"{_kind_name(ri, name)} {done}\n")
        return 0, "".join(out), ""


# ---------------------------------------------------------------------------
# apply through kubectl, hop by hop


class _AppliedByKubectl:
    """A Cluster whose ``apply`` is ``kubectl apply -f -`` over HTTP and whose ``run`` takes the served lock."""

    def __init__(self, served: Any, manifest: str, fallback: bool | None):
        self._served = served
        self._manifest = manifest
        self._fallback = fallback
        self.result: KubectlResult | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._served.cluster, name)

    def apply(self, obj: Any) -> None:
        self.result = kubectl_session(self._served, "kubectl apply -f -", input=self._manifest,
                                      fallback=self._fallback)
        if self.result.returncode != 0:
            raise RuntimeError(f"kubectl apply failed: {self.result.stderr.strip()}")

    def run(self, until: float) -> None:
        with self._served.lock:
            self._served.cluster.run(until=until)


def kubectl_apply_hops(served: Any, manifest: str, until_seconds: float, *, graph: Any = None,
                       fallback: bool | None = None) -> tuple[KubectlResult, list[dict]]:
    """``kubectl apply -f -`` of ``manifest``, then the clock to ``until_seconds``: the command and its hops.

    Parameters
    ----------
    served : ServedCluster
    manifest : str
        One object's YAML (what ``kubectl apply -f`` reads).
    until_seconds : float
        Virtual time to run to (absolute).
    graph : networkx.DiGraph, optional
        Default: :func:`~kubenotes.sim.trace.component_graph` of the cluster.
    fallback : bool, optional
        As for :func:`kubectl_session`.

    Returns
    -------
    tuple[KubectlResult, list[dict]]
        The command's result, and the hops of
        :func:`~kubenotes.sim.trace.apply_hops` (kubectl's POST through
        every stage of the handler chain, then each component's watch and
        write, the controllers' cascade down to the kubelets' status).

    Raises
    ------
    RuntimeError
        When kubectl reports an error (nothing to follow).

    See Also
    --------
    kubenotes.sim.trace.apply_hops, kubenotes.viz.controlplane.hops_table,
    kubenotes.viz.kubectl.sequence_figure

    Notes
    -----
    :func:`~kubenotes.sim.trace.apply_hops` is reused as is: it is
    handed a view of the cluster whose ``apply`` runs kubectl and whose
    ``run`` holds the served cluster's lock; kubectl's requests reach the
    trace as the component ``kubectl``, so they are followed stage by stage
    as an in-process apply is. kubectl's GET before the POST is a read and
    is not a hop.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/kubectl/pkg/cmd/apply/apply.go

    Examples
    --------
    >>> from kubenotes.sim.cluster import Cluster
    >>> c = Cluster.from_manifests('''
    ... apiVersion: v1
    ... kind: Node
    ... metadata: {name: n1}
    ... status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
    ... ''', controllers=[])
    >>> c.run(until=1)
    >>> served = c.serve(port=0, time_scale=0)
    >>> pod = "{apiVersion: v1, kind: Pod, metadata: {name: web}, spec: {containers: [{name: c, image: nginx}]}}"
    >>> r, hops = kubectl_apply_hops(served, pod, until_seconds=5, fallback=True)
    >>> r.stdout, [h["to"] for h in hops[:2]], hops[7]["what"]
    ('pod/web created\\n', ['authentication', 'authorization'], 'create pods/binding default/web (node=n1)')
    >>> served.stop()
    """
    obj = load_yaml(manifest)
    view = _AppliedByKubectl(served, manifest, fallback)
    g = graph if graph is not None else component_graph(served.cluster)
    hops = apply_hops(view, obj, until_seconds, graph=g)
    assert view.result is not None
    return view.result, hops


# ---------------------------------------------------------------------------
# a rollout, second by second


def record_rollout(served: Any, command: str, *, namespace: str, selector: str, seconds: int = 12,
                   step_seconds: float = 1.0, get: str = "deploy,rs,pods",
                   fallback: bool | None = None) -> dict:
    """Run a rollout command, then move the clock step by step, with ``kubectl get`` after each step.

    Parameters
    ----------
    served : ServedCluster
        Its clock should be paused (``time_scale=0``) so that each step is exact.
    command : str
        The command that starts the rollout (``kubectl set image deploy/web nginx=nginx:1.28``).
    namespace, selector : str
        What ``kubectl get`` shows (``-n``, ``-l``).
    seconds : int
        Steps recorded after the command.
    step_seconds : float
        Virtual seconds per step.
    get : str
        The resource types of ``kubectl get``.
    fallback : bool, optional
        As for :func:`kubectl_session`.

    Returns
    -------
    dict
        ``command`` (the :class:`KubectlResult`), ``get`` (the get command
        run), ``frames``: one per step from 0 (right after the command), each
        ``{"seconds", "time", "output", "replicasets", "pods", "writes"}``:
        ``seconds`` since the command, ``time`` the virtual clock, ``output``
        kubectl's printout, ``replicasets`` ``[{"name", "desired", "ready",
        "revision"}]``, ``pods`` ``[{"name", "replicaset", "phase", "ready",
        "terminating"}]``, and ``writes`` the store writes committed during
        the step (AuditEntry, without Events and Leases).

    Raises
    ------
    RuntimeError
        When the command fails (non-zero exit code).
    ValueError
        With the httpx fallback, for a command it does not imitate (see
        :data:`kubenotes.sim.kubectl.FALLBACK_COMMANDS`).

    See Also
    --------
    kubectl_session, rollout_state, kubenotes.viz.kubectl.rollout_frame, kubenotes.viz.kubectl.rollout_figure,
    kubenotes.viz.kubectl.rollout_panel

    Notes
    -----
    With the clock paused (``time_scale=0``) the model's time moves only in
    ``served.run_for``, so each frame is exactly ``step_seconds`` after the
    last; ``kubectl get`` is run once per frame, where a user would watch
    with ``kubectl rollout status`` or ``kubectl get -w``.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/deployment/rolling.go
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/kubectl/pkg/cmd/get/get.go

    Examples
    --------
    >>> from kubenotes.sim.cluster import Cluster
    >>> c = Cluster.from_manifests('''
    ... apiVersion: apps/v1
    ... kind: ReplicaSet
    ... metadata: {name: web, labels: {app: web}}
    ... spec:
    ...   replicas: 1
    ...   selector: {matchLabels: {app: web}}
    ...   template:
    ...     metadata: {labels: {app: web}}
    ...     spec: {containers: [{name: nginx, image: "nginx:1.27"}]}
    ... ''', controllers=["replicaset-controller"], scheduler=False)
    >>> c.run(until=1)
    >>> served = c.serve(port=0, time_scale=0)
    >>> rec = record_rollout(served, "kubectl scale rs/web --replicas=2", namespace="default", selector="app=web",
    ...                      seconds=1, get="rs", fallback=True)
    >>> rec["command"].stdout, rec["get"]
    ('replicaset.apps/web scaled\\n', 'kubectl get rs -n default -l app=web')
    >>> [(f["seconds"], f["replicasets"][0]["desired"], len(f["pods"])) for f in rec["frames"]]
    [(0.0, 2, 1), (1.0, 2, 2)]
    >>> served.stop()
    """
    cluster = served.cluster
    with served.lock:
        audit_at = len(cluster.audit_log)
    first = kubectl_session(served, command, fallback=fallback)
    if first.returncode != 0:
        raise RuntimeError(f"{command} failed: {first.stderr.strip()}")
    get_cmd = f"kubectl get {get} -n {namespace} -l {selector}"
    frames: list[dict] = []
    t0 = first.started_seconds
    for k in range(seconds + 1):
        if k:
            served.run_for(step_seconds)
        shown = kubectl_session(served, get_cmd, fallback=fallback)
        with served.lock:
            rss = cluster.list("replicasets", namespace, label_selector=selector)
            pods = cluster.list("pods", namespace, label_selector=selector)
            writes = [a for a in cluster.audit_log[audit_at:] if a.kind not in ("Event", "Lease")]
            audit_at = len(cluster.audit_log)
            now = float(cluster.env.now)
        frames.append({
            "seconds": round(now - t0, 6), "time": now, "output": shown.stdout or shown.stderr,
            "replicasets": [{"name": r["metadata"]["name"], "desired": int(r["spec"].get("replicas") or 0),
                             "ready": int(r.get("status", {}).get("readyReplicas") or 0),
                             "revision": (r["metadata"].get("annotations") or {}).get(
                                 "deployment.kubernetes.io/revision", "")}
                            for r in sorted(rss, key=lambda r: r["metadata"].get("creationTimestamp", ""))],
            "pods": [{"name": p["metadata"]["name"],
                      "replicaset": next((o["name"] for o in p["metadata"].get("ownerReferences") or ()), ""),
                      "phase": p.get("status", {}).get("phase", ""),
                      "ready": any(c.get("type") == "Ready" and c.get("status") == "True"
                                   for c in p.get("status", {}).get("conditions") or ()),
                      "terminating": bool(p["metadata"].get("deletionTimestamp"))} for p in pods],
            "writes": writes,
        })
    return {"command": first, "get": get_cmd, "frames": frames}


def http_writes(entry: Mapping[str, Any]) -> list[dict]:
    """The store writes one HTTP request made: ``{"type", "key", "resourceVersion", "watchers"}`` each.

    Parameters
    ----------
    entry : dict
        One HTTP log entry (an item of :attr:`KubectlResult.http`); its
        ``requests``' ``storage`` steps are read, with the ``watch`` step that
        follows each.

    Returns
    -------
    list of dict
        In order. ``watchers`` maps each watcher the event was queued for to
        the event type it saw (``{"kube-controller-manager": "ADDED"}``).

    Raises
    ------
    KeyError
        When a step has no ``step`` or no ``detail``.

    See Also
    --------
    KubectlResult.writes : the same over every request of a command.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go (dispatchEvent)

    Examples
    --------
    >>> http_writes({"requests": [{"steps": [
    ...     {"step": "storage", "detail": "ADDED /registry/pods/default/web at resourceVersion 7"},
    ...     {"step": "watch", "detail": "kube-scheduler (ADDED)"}]}]})
    [{'type': 'ADDED', 'key': '/registry/pods/default/web', 'resourceVersion': '7', 'watchers': {'kube-scheduler': 'ADDED'}}]
    """
    out = []
    for r in entry.get("requests", ()):
        steps = r.get("steps", ())
        for i, s in enumerate(steps):
            if s["step"] != "storage":
                continue
            m = STORAGE_STEP.match(s["detail"])
            if m is None:
                continue
            nxt = steps[i + 1] if i + 1 < len(steps) and steps[i + 1]["step"] == "watch" else None
            out.append({"type": m.group(1), "key": m.group(2), "resourceVersion": m.group(3),
                        "watchers": watch_deliveries(nxt["detail"]) if nxt else {}})
    return out


def describe_request(entry: Mapping[str, Any]) -> tuple[str, str]:
    """What one HTTP request of kubectl asked for: ``verb resource namespace/name`` and the user, or what the URL is.

    Parameters
    ----------
    entry : dict
        One HTTP log entry (:meth:`APIServer.trace_http
        <kubenotes.apiserver.server.APIServer.trace_http>`, an item of
        :attr:`KubectlResult.http`): ``url`` and ``requests`` (the API
        server's records of the API request it became, if any).

    Returns
    -------
    tuple of (str, str)
        For an API request: ``"get deployments default/web"`` (``in NS`` for
        a collection) and the user the API server authenticated. For a
        non-resource URL: what kubectl fetched it for (discovery, the OpenAPI
        schema, the server's version) and ``""``.

    Raises
    ------
    KeyError
        When an entry without API requests has no ``url``, or an API request
        has no ``verb`` or ``resource``.

    See Also
    --------
    request_chain, kubenotes.viz.kubectl.requests_table

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/discovery/discovery_client.go (/api, /apis)
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/kubectl/pkg/cmd/apply/apply.go (the OpenAPI schema for field validation)

    Examples
    --------
    >>> describe_request({"url": "/apis/apps/v1?timeout=32s", "requests": []})
    ('discovery: which groups, versions and resources exist', '')
    >>> describe_request({"url": "/api/v1/namespaces/default/pods", "requests": [
    ...     {"verb": "list", "resource": "pods", "namespace": "default", "user": "kubernetes-admin"}]})
    ('list pods in default', 'kubernetes-admin')
    """
    recs = entry.get("requests") or ()
    if not recs:
        path = entry["url"].split("?")[0]
        if path.startswith("/openapi"):
            return "OpenAPI schema (for apply's field validation)", ""
        if path in ("/api", "/apis", "/api/v1") or (path.startswith("/apis/") and path.count("/") <= 3):
            return "discovery: which groups, versions and resources exist", ""
        if path == "/version":
            return "the server's version", ""
        return "(no API request)", ""
    r = recs[0]
    target = r.get("name") or ""
    if r.get("namespace"):
        target = f"{r['namespace']}/{target}" if target else f"in {r['namespace']}"
    verb = r["verb"]
    return f"{verb} {r['resource']} {target}".strip(), str(r.get("user", ""))


def request_chain(rec: Mapping[str, Any]) -> dict[str, Any]:
    """One request's way through kube-apiserver's handler chain, in a few numbers: authorization, admission, validation.

    Parameters
    ----------
    rec : dict
        One record of :meth:`APIServer.trace_requests
        <kubenotes.apiserver.server.APIServer.trace_requests>` (its ``steps``:
        ``{"step", "detail"}`` in order).

    Returns
    -------
    dict
        ``authorization``: None when the record has no authorization step,
        else ``{"allowed", "decision", "reason"}`` of the first one (the
        decision before the first ``:`` of its detail, the reason after it);
        ``mutating`` and ``validating``: how many admission plugins of each
        kind ran; ``changed_by``: the mutating plugins that changed the object;
        ``validation``: the validation step's detail (``valid`` or the
        errors), None without one; ``response``: the detail of a refused
        request's response step (the Status message), else None.

    Raises
    ------
    KeyError
        When a step has no ``step`` or no ``detail``.

    See Also
    --------
    describe_request, kubenotes.viz.kubectl.requests_table

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/server/config.go (DefaultBuildHandlerChain)
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/admission/chain.go

    Examples
    --------
    >>> c = request_chain({"steps": [{"step": "authorization", "detail": "Allow: RBAC: allowed by ClusterRoleBinding"},
    ...     {"step": "mutating admission: ServiceAccount", "detail": "changed the object"},
    ...     {"step": "mutating admission: DefaultTolerationSeconds", "detail": "no change"},
    ...     {"step": "validation", "detail": "valid"}]})
    >>> c["authorization"], c["mutating"], c["changed_by"], c["validation"], c["response"]
    ({'allowed': True, 'decision': 'Allow', 'reason': 'RBAC: allowed by ClusterRoleBinding'}, 2, ['ServiceAccount'], 'valid', None)
    """
    steps = list(rec.get("steps", ()))
    mut = [s for s in steps if s["step"].startswith("mutating admission: ")]
    authz = next((s["detail"] for s in steps if s["step"] == "authorization"), None)
    return {
        "authorization": None if authz is None else {
            "allowed": authz.startswith("Allow"), "decision": authz.split(":")[0],
            "reason": authz.split(":", 1)[1].strip() if ":" in authz else ""},
        "mutating": len(mut),
        "changed_by": [s["step"].split(": ", 1)[1] for s in mut if s["detail"] == "changed the object"],
        "validation": next((s["detail"] for s in steps if s["step"] == "validation"), None),
        "validating": sum(1 for s in steps if s["step"].startswith("validating admission: ")),
        "response": next((s["detail"] for s in steps if s["step"] == "response"), None),
    }


def rollout_state(recording: Mapping[str, Any], seconds: float) -> dict[str, Any]:
    """A recorded rollout ``seconds`` after its command: the frame shown then, and its pods counted by state.

    Parameters
    ----------
    recording : dict
        From :func:`record_rollout`.
    seconds : float
        Seconds after the command; the last frame at or before it is taken
        (the first frame when ``seconds`` is before every frame).

    Returns
    -------
    dict
        ``frame`` (one of ``recording["frames"]``), ``scale`` (the largest
        ``desired`` of any ReplicaSet in any frame, 1 when no frame has
        one: how many places a bar of pods needs), and the frame's pods: ``ready`` (ready and
        not terminating), ``not_ready`` (neither) and ``terminating``.

    Raises
    ------
    KeyError
        When ``recording`` lacks ``frames``, or a frame lacks ``seconds``,
        ``replicasets`` or ``pods``.
    IndexError
        When ``recording["frames"]`` is empty.

    See Also
    --------
    record_rollout, kubenotes.viz.kubectl.rollout_frame

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/deployment/rolling.go

    Examples
    --------
    >>> rec = {"frames": [{"seconds": float(s), "replicasets": [{"name": "web-1", "desired": 2, "ready": s}],
    ...                    "pods": [{"ready": s > 0, "terminating": False}, {"ready": False, "terminating": s > 1}]}
    ...                   for s in range(3)]}
    >>> st = rollout_state(rec, 1.5)
    >>> st["frame"]["seconds"], st["scale"], st["ready"], st["not_ready"], st["terminating"]
    (1.0, 2, 1, 1, 0)
    """
    frames = recording["frames"]
    frame = frames[0]
    for f in frames:
        if f["seconds"] <= seconds + 1e-9:
            frame = f
    pods = frame["pods"]
    return {
        "frame": frame,
        "scale": max((r["desired"] for f in frames for r in f["replicasets"]), default=1),
        "ready": sum(1 for p in pods if p["ready"] and not p["terminating"]),
        "not_ready": sum(1 for p in pods if not p["ready"] and not p["terminating"]),
        "terminating": sum(1 for p in pods if p["terminating"]),
    }
