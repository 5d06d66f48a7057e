"""Chapter 02.02's view of the wire: real ``kubectl`` commands and the HTTP requests each one sends.

:func:`kubectl_session` runs one command against a served cluster
(:meth:`Cluster.serve <kubenotes.sim.cluster.Cluster.serve>`) with the API
server's HTTP log on (:meth:`APIServer.trace_http
<kubenotes.apiserver.server.APIServer.trace_http>`), and returns a
:class:`KubectlResult`: what kubectl printed, its exit code, and every HTTP
request it caused with the API server's own record of each (verb, user,
handler-chain steps, the store write and the watchers its event went to).
:func:`requests_table` and :func:`kubectl_panel` lay them out beside
kubectl's output; :func:`sequence_figure` draws them as a sequence diagram
(kubectl → kube-apiserver → etcd → watchers).

:func:`kubectl_apply_hops` is :func:`~kubenotes.viz.controlplane.apply_hops`
with the write done by ``kubectl apply -f -`` over HTTP, so chapter 02.00's
component graph and hop table show the cascade a real command starts.
:func:`record_rollout` runs a rollout command and then moves the virtual clock
second by second, running ``kubectl get`` at each step;
:func:`rollout_panel` puts a clock slider over the recording.

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
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/cli-runtime/pkg/genericclioptions/config_flags.go (the discovery cache)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/rest/request.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/endpoints/handlers/ (get, create, patch, watch)
"""

from __future__ import annotations

import functools
import html
import json
import re
import shlex
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch

from kubenotes.viz.controlplane import _STORAGE, _deliveries, apply_hops, component_graph
from kubenotes.viz.graphs import detached_figure
from kubenotes.viz.scheduler import Html

__all__ = [
    "TABLE_ACCEPT",
    "HTTP_WATCHER",
    "FALLBACK_USER_AGENT",
    "FALLBACK_COMMANDS",
    "KUBECTL_MISSING_NOTE",
    "KubectlResult",
    "kubectl_available",
    "kubectl_session",
    "requests_table",
    "kubectl_panel",
    "summary_table",
    "sequence_figure",
    "kubectl_apply_hops",
    "record_rollout",
    "rollout_frame",
    "rollout_figure",
    "rollout_panel",
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
#: What a notebook shows when kubectl is not installed.
KUBECTL_MISSING_NOTE = (
    "kubectl not found: install it (e.g. `brew install kubectl`, `sudo snap install kubectl --classic`, or the "
    "binary from https://kubernetes.io/docs/tasks/tools/); the cells below send the requests it would send "
    "with httpx instead. What differs: no discovery or OpenAPI requests (kubectl caches them), and a short "
    "summary stands in for kubectl's own printing.")

_GREEN = "#2e7d32"
_RED = "#c62828"
_GREY = "#757575"
_BLUE = "#1565c0"
_ORANGE = "#ef6c00"
_TABLE_CSS = "border-collapse:collapse;font-size:11.5px;margin:4px 0"
_TH = "padding:3px 6px;border-bottom:2px solid #888;text-align:left;background:#fafafa;vertical-align:bottom"
_TD = "padding:3px 6px;border-bottom:1px solid #ddd;text-align:left;vertical-align:top"
_PRE = ("margin:0;padding:6px 8px;background:#263238;color:#eceff1;font-size:11.5px;line-height:1.35;"
        "border-radius:4px;white-space:pre;overflow-x:auto")


def _e(x: Any) -> str:
    return html.escape(str(x))


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
        out = []
        for r in self.requests:
            steps = r.get("steps", ())
            for i, s in enumerate(steps):
                if s["step"] != "storage":
                    continue
                m = _STORAGE.match(s["detail"])
                if m is None:
                    continue
                nxt = steps[i + 1] if i + 1 < len(steps) and steps[i + 1]["step"] == "watch" else None
                out.append({"type": m.group(1), "key": m.group(2), "resourceVersion": m.group(3),
                            "watchers": _deliveries(nxt["detail"]) if nxt else {}})
        return out

    def lines(self) -> list[str]:
        """``"METHOD URL -> CODE"`` per request: the shape of ``kubectl -v=6``'s log."""
        return [f"{e['method']} {e['url']} -> {e['code']}" for e in self.http]

    def _repr_html_(self) -> str:
        return str(kubectl_panel(self))


# ---------------------------------------------------------------------------
# running a command


def kubectl_available(kubectl: str | None = None) -> bool:
    """Whether a kubectl binary is installed (:func:`kubenotes.sim.serve.find_kubectl`), or ``kubectl`` exists.

    Examples
    --------
    >>> kubectl_available("/nonexistent/kubectl")
    False
    """
    import os

    from kubenotes.sim.serve import find_kubectl

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
    from kubenotes.sim.serve import find_kubectl

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
                got = _deliveries(s["detail"]).get(HTTP_WATCHER)
                store = steps[i - 1] if i else None
                m = _STORAGE.match(store["detail"]) if store and store["step"] == "storage" else None
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
        import ssl

        import httpx
        import yaml

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
        from kubenotes.apiserver.resources import resource_for

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
        from kubenotes.apiserver.resources import resource_for

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
        import yaml

        from kubenotes.apiserver.resources import resource_for_kind

        out: list[str] = []
        for obj in (d for d in yaml.safe_load_all(text) if d):
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
# tables and the panel


def _what(entry: Mapping[str, Any]) -> tuple[str, str]:
    """The API request column: ``verb resource ns/name`` and the user, or what the non-resource URL is."""
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


def _chain(rec: Mapping[str, Any]) -> str:
    """The handler chain of one request in one short HTML line."""
    parts = []
    mut = [s for s in rec.get("steps", ()) if s["step"].startswith("mutating admission: ")]
    val = [s for s in rec.get("steps", ()) if s["step"].startswith("validating admission: ")]
    for s in rec.get("steps", ()):
        if s["step"] == "authorization":
            ok = s["detail"].startswith("Allow")
            why = s["detail"].split(":", 1)[1].strip() if ":" in s["detail"] else ""
            parts.append(f'<span style="color:{_GREEN if ok else _RED}">authz {_e(s["detail"].split(":")[0])}'
                         f'</span>' + (f" <small>({_e(why[:60])})</small>" if why and ok else ""))
            break
    if mut:
        changed = [s["step"].split(": ", 1)[1] for s in mut if s["detail"] == "changed the object"]
        parts.append(f"{len(mut)} mutating" + (f" ({_e(', '.join(changed))} changed it)" if changed else ""))
    v = next((s["detail"] for s in rec.get("steps", ()) if s["step"] == "validation"), None)
    if v is not None:
        parts.append(f'validation <span style="color:{_GREEN if v == "valid" else _RED}">{_e(v)}</span>')
    if val:
        parts.append(f"{len(val)} validating")
    resp = next((s["detail"] for s in rec.get("steps", ()) if s["step"] == "response"), None)
    if resp:
        parts.append(f'<span style="color:{_RED}">{_e(resp)}</span>')
    return "; ".join(parts)


def requests_table(result: KubectlResult | Sequence[Mapping[str, Any]], *, caption: str | None = None) -> Html:
    """One row per HTTP request: method, URL, code, the API request, its handler chain, store write, watchers.

    Parameters
    ----------
    result : KubectlResult or sequence of dict
        A result, or HTTP log entries (:meth:`APIServer.trace_http`).
    caption : str, optional

    Returns
    -------
    Html
        Columns ``#``, ``method``, ``URL`` (path and query), ``code`` (green
        2xx, red otherwise), ``request`` (verb, resource, object and the user
        the API server authenticated), ``handler chain`` (authorization,
        admission plugins, validation, or the error), ``store write`` (event,
        etcd key, resourceVersion) and ``watch events`` (the watchers the
        event was queued for, or, for kubectl's own watch, the events it
        received). When the HTTP log records them (``accept``,
        ``content_type``), a Table ``Accept`` header and a write's
        ``Content-Type`` are shown under the URL.

    Examples
    --------
    >>> entry = {"time": 0.0, "method": "GET", "url": "/api?timeout=32s", "user_agent": "kubectl", "code": 200,
    ...          "watch": False, "requests": []}
    >>> t = requests_table([entry])
    >>> "discovery" in t and "/api?timeout=32s" in t
    True
    """
    entries = list(result.http if isinstance(result, KubectlResult) else result)
    events = list(result.watch_events) if isinstance(result, KubectlResult) else []
    headers = ["#", "method", "URL", "code", "request (user)", "handler chain", "store write", "watch events"]
    out = [f'<table class="kubenotes-table" style="{_TABLE_CSS}">']
    if caption:
        out.append(f'<caption style="caption-side:top;text-align:left;font-weight:bold;padding:2px 0">'
                   f'{_e(caption)}</caption>')
    out.append("<thead><tr>" + "".join(f'<th style="{_TH}">{_e(h)}</th>' for h in headers) + "</tr></thead><tbody>")
    for i, entry in enumerate(entries, 1):
        code = int(entry.get("code", 0))
        colour = _GREEN if 200 <= code < 300 else _RED
        what, user = _what(entry)
        recs = entry.get("requests") or ()
        chain = _chain(recs[0]) if recs else ""
        result_writes = KubectlResult("", 0, "", "", [entry]).writes
        store = "<br>".join(f"{_e(w['type'])} <code>{_e(w['key'])}</code> rv {_e(w['resourceVersion'])}"
                            for w in result_writes)
        if entry.get("watch"):
            shown = events[:8]
            watch = "<br>".join(f"{_e(ev['type'])} <code>{_e(ev['key'].rsplit('/', 1)[-1])}</code> "
                                f"rv {_e(ev['resourceVersion'])}" for ev in shown)
            if len(events) > len(shown):
                watch += f"<br>… {len(events) - len(shown)} more"
            watch = watch or "(stream open, no event)"
        else:
            watch = "<br>".join(", ".join(f"{_e(k)} ({_e(v)})" for k, v in w["watchers"].items()) or "no watcher"
                                for w in result_writes)
        url = re.sub(r"(hash=[0-9A-Fa-f]{8})[0-9A-Fa-f]+", r"\1…", entry["url"])
        accept = entry.get("accept")
        url_html = f"<code>{_e(url)}</code>"
        if accept and "as=Table" in accept:
            url_html += '<br><small style="color:#555">Accept: …as=Table…</small>'
        if entry.get("content_type") and entry["method"] in ("POST", "PUT", "PATCH"):
            url_html += f'<br><small style="color:#555">Content-Type: {_e(entry["content_type"])}</small>'
        cells = [(_e(i), "text-align:right"), (f"<b>{_e(entry['method'])}</b>" + (" (watch)" if entry.get("watch")
                                                                                   else ""), ""),
                 (url_html, "min-width:230px;max-width:360px;word-break:break-all"),
                 (f'<b style="color:{colour}">{code}</b>', ""),
                 (_e(what) + (f'<br><small style="color:#555">{_e(user)}</small>' if user else ""),
                  "min-width:120px"),
                 (chain, "min-width:140px;max-width:260px"), (store, "word-break:break-all;min-width:150px"),
                 (watch, "min-width:120px")]
        out.append("<tr>" + "".join(f'<td style="{_TD};{css}">{c}</td>' for c, css in cells) + "</tr>")
    out.append("</tbody></table>")
    return Html("".join(out))


def _terminal(result: KubectlResult, *, max_lines: int = 40) -> str:
    body = (result.stdout or "") + (result.stderr or "")
    lines = body.rstrip("\n").split("\n") if body.strip() else []
    if len(lines) > max_lines:
        lines = lines[:max_lines] + [f"… ({len(lines) - max_lines} more lines)"]
    shown = "\n".join(_e(x) for x in lines)
    if result.stderr.strip() and result.stdout.strip() == "":
        shown = f'<span style="color:#ff8a80">{shown}</span>'
    via = ("" if result.via == "kubectl"
           else '\n<span style="color:#ffd54f"># sent with httpx: kubectl is not installed</span>')
    return (f'<pre style="{_PRE}"><span style="color:#80cbc4">$ {_e(result.command)}</span>\n{shown}'
            f'\n<span style="color:#90a4ae"># exit code {result.returncode}</span>{via}</pre>')


def kubectl_panel(result: KubectlResult, *, max_lines: int = 40) -> Html:
    """kubectl's output (as a terminal would show it) beside the table of the HTTP requests it sent.

    Parameters
    ----------
    result : KubectlResult
    max_lines : int
        Lines of output shown (the rest is counted).

    Returns
    -------
    Html
        A two-column block (it wraps on narrow screens): the terminal on the
        left, :func:`requests_table` on the right, with a caption counting
        the requests and the virtual time.

    Examples
    --------
    >>> r = KubectlResult("kubectl version", 0, "Server Version: v1.33.0\\n", "",
    ...                   [{"time": 3.0, "method": "GET", "url": "/version?timeout=32s", "code": 200, "watch": False,
    ...                     "requests": []}])
    >>> p = kubectl_panel(r)
    >>> "$ kubectl version" in p and "the server&#x27;s version" in p
    True
    """
    n = len(result.http)
    caption = (f"{n} HTTP request{'s' if n != 1 else ''} at t={result.started_seconds:g} s "
               f"(virtual), {len(result.writes)} store write{'s' if len(result.writes) != 1 else ''}")
    return Html('<div style="display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start">'
                f'<div style="flex:0 1 430px;min-width:300px">{_terminal(result, max_lines=max_lines)}</div>'
                f'<div style="flex:1 1 520px;overflow-x:auto">{requests_table(result, caption=caption)}</div></div>')


def summary_table(results: Sequence[KubectlResult]) -> Html:
    """One row per command: the command, kubectl's exit code, its requests with their codes, what it printed.

    Parameters
    ----------
    results : sequence of KubectlResult

    Returns
    -------
    Html

    Examples
    --------
    >>> r = KubectlResult("kubectl get deploy nope", 1, "", 'Error from server (NotFound): nope\\n',
    ...                   [{"method": "GET", "url": "/apis/apps/v1/namespaces/default/deployments/nope",
    ...                     "code": 404, "requests": []}])
    >>> t = summary_table([r])
    >>> "404" in t and "Error from server (NotFound)" in t
    True
    """
    rows = []
    for r in results:
        reqs = "<br>".join(
            f'{_e(e["method"])} <code>{_e(_short_url(e["url"], 70))}</code> &rarr; '
            f'<b style="color:{_GREEN if 200 <= int(e["code"]) < 300 else _RED}">{_e(e["code"])}</b>'
            for e in r.http)
        said = (r.stderr.strip() or r.stdout.strip()).split("\n")[0]
        colour = _GREEN if r.returncode == 0 else _RED
        rows.append(f'<tr><td style="{_TD}"><code>{_e(r.command)}</code></td>'
                    f'<td style="{_TD};text-align:center"><b style="color:{colour}">{r.returncode}</b></td>'
                    f'<td style="{_TD}">{reqs}</td><td style="{_TD};max-width:480px">{_e(said)}</td></tr>')
    head = "".join(f'<th style="{_TH}">{h}</th>' for h in ("command", "exit", "requests", "kubectl printed"))
    return Html(f'<table class="kubenotes-table" style="{_TABLE_CSS}"><thead><tr>{head}</tr></thead>'
                f'<tbody>{"".join(rows)}</tbody></table>')


# ---------------------------------------------------------------------------
# the sequence diagram


def _short_url(url: str, limit: int = 52) -> str:
    path, _, query = url.partition("?")
    keep = [q for q in query.split("&") if q and not q.startswith(("timeout=", "hash="))]
    s = path + ("?" + "&".join(keep) if keep else "")
    return s if len(s) <= limit else s[:limit - 1] + "…"


def sequence_figure(result: KubectlResult, *, title: str | None = None, max_requests: int = 14) -> Figure:
    """A sequence diagram of one command: kubectl → kube-apiserver → etcd → the watchers of each write.

    Parameters
    ----------
    result : KubectlResult
    title : str, optional
        Default: the command.
    max_requests : int
        HTTP requests drawn (the first ones).

    Returns
    -------
    matplotlib.figure.Figure
        One lifeline per participant (``kubectl``, ``kube-apiserver``,
        ``etcd``, then each watcher an event was queued for, named as the
        API server names them: ``kube-controller-manager``,
        ``default-scheduler``, ``kubelet/<node>``...). Per HTTP request: the
        request (method and path), the handler chain's verdict beside the
        API server, the write to etcd with its resourceVersion, the event to
        each watcher (dashed) and the response with its code. For a watch,
        the events streamed back to kubectl follow its response.

    Examples
    --------
    >>> r = KubectlResult("kubectl get pods", 0, "", "", [{"time": 0.0, "method": "GET",
    ...     "url": "/api/v1/namespaces/default/pods?limit=500", "code": 200, "watch": False, "requests": [
    ...     {"verb": "list", "resource": "pods", "namespace": "default", "name": "", "user": "admin", "code": 200,
    ...      "steps": [{"step": "authorization", "detail": "Allow: "}]}]}])
    >>> [t.get_text() for t in sequence_figure(r).axes[0].texts][:3]
    ['kubectl', 'kube-apiserver', 'etcd']
    """
    entries = list(result.http[:max_requests])
    watchers: list[str] = []
    for e in entries:
        for w in KubectlResult("", 0, "", "", [e]).writes:
            for name in w["watchers"]:
                if name not in watchers and name != HTTP_WATCHER:
                    watchers.append(name)
    parts = ["kubectl", "kube-apiserver", "etcd", *watchers]
    x = {p: i * 3.1 for i, p in enumerate(parts)}
    # rows: request, [chain], [store], [events], response, [streamed events]
    rows: list[tuple] = []
    for e in entries:
        rows.append(("req", e))
        recs = e.get("requests") or ()
        if recs:
            rows.append(("chain", e))
        ws = KubectlResult("", 0, "", "", [e]).writes
        for w in ws:
            rows.append(("store", w))
            if any(k != HTTP_WATCHER for k in w["watchers"]):
                rows.append(("event", w))
        rows.append(("resp", e))
        if e.get("watch"):
            for ev in result.watch_events[:6]:
                rows.append(("stream", ev))
            if len(result.watch_events) > 6:
                rows.append(("more", len(result.watch_events) - 6))
    gap = 0.42
    height = max(2.5, 1.1 + gap * len(rows))
    width = max(9.0, 2.4 + 3.1 * (len(parts) - 1) + 1.4)
    scale = min(1.0, 13.0 / width)
    fig = detached_figure(width * scale, height * scale)
    ax = fig.add_axes((0.01, 0.01, 0.98, 0.98))
    top = 0.0
    for p in parts:
        ax.text(x[p], top, p, ha="center", va="center", fontsize=8.5, fontweight="bold",
                bbox=dict(boxstyle="round,pad=0.3", fc="#e3f2fd" if p != "etcd" else "#e8f5e9",
                          ec=_BLUE if p != "etcd" else _GREEN))
        ax.plot([x[p], x[p]], [top - 0.3, top - gap * (len(rows) + 1)], color="#bdbdbd", lw=1, ls="--", zorder=0)

    def arrow(a: str, b: str, y: float, label: str, colour: str, dashed: bool = False) -> None:
        ax.add_patch(FancyArrowPatch((x[a], y), (x[b], y), arrowstyle="-|>", mutation_scale=10, color=colour,
                                     lw=1.3, ls="--" if dashed else "-", shrinkA=2, shrinkB=2, zorder=3))
        ax.text((x[a] + x[b]) / 2, y + 0.06, label, ha="center", va="bottom", fontsize=6.8, color=colour,
                zorder=4, bbox=dict(boxstyle="round,pad=0.05", fc="white", ec="none", alpha=0.8))

    y = top - gap
    for kind, item in rows:
        y -= gap
        if kind == "req":
            label = f"{item['method']}{' (watch)' if item.get('watch') else ''} {_short_url(item['url'])}"
            arrow("kubectl", "kube-apiserver", y, label, "#37474f")
        elif kind == "chain":
            rec = item["requests"][0]
            text = _chain(rec)
            plain = html.unescape(re.sub(r"<[^>]+>", "", text))
            bad = any(s["step"] == "response" for s in rec.get("steps", ()))
            ax.text(x["kube-apiserver"] + 0.12, y + 0.08, plain[:95], ha="left", va="center", fontsize=6.4,
                    color=_RED if bad else "#455a64", zorder=4,
                    bbox=dict(boxstyle="round,pad=0.15", fc="#fff8e1" if not bad else "#ffebee", ec="none"))
        elif kind == "store":
            arrow("kube-apiserver", "etcd", y, f"{item['type']} {item['key']}  rv {item['resourceVersion']}", _GREEN)
        elif kind == "event":
            for wname, etype in item["watchers"].items():
                if wname == HTTP_WATCHER:
                    continue
                arrow("etcd", wname, y, f"watch: {etype}", _BLUE, dashed=True)
        elif kind == "resp":
            code = int(item.get("code", 0))
            arrow("kube-apiserver", "kubectl", y, f"{code}" + (" (event stream)" if item.get("watch") else ""),
                  _GREEN if 200 <= code < 300 else _RED, dashed=True)
        elif kind == "stream":
            arrow("kube-apiserver", "kubectl", y,
                  f"{item['type']} {item['key'].rsplit('/', 1)[-1]}  rv {item['resourceVersion']}", _ORANGE,
                  dashed=True)
        elif kind == "more":
            ax.text(x["kubectl"] + 1.5, y, f"… {item} more events", fontsize=6.8, color=_ORANGE, ha="center")
    ax.set_xlim(-1.3, x[parts[-1]] + 1.3)
    ax.set_ylim(y - gap, top + 0.45)
    ax.axis("off")
    ax.set_title(title if title is not None else result.command, fontsize=9.5, loc="left")
    return fig


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
        Default: :func:`~kubenotes.viz.controlplane.component_graph` of the cluster.
    fallback : bool, optional
        As for :func:`kubectl_session`.

    Returns
    -------
    tuple[KubectlResult, list[dict]]
        The command's result, and the hops of
        :func:`~kubenotes.viz.controlplane.apply_hops` (kubectl's POST through
        every stage of the handler chain, then each component's watch and
        write, the controllers' cascade down to the kubelets' status).

    Raises
    ------
    RuntimeError
        When kubectl reports an error (nothing to follow).

    Notes
    -----
    :func:`~kubenotes.viz.controlplane.apply_hops` is reused as is: it is
    handed a view of the cluster whose ``apply`` runs kubectl and whose
    ``run`` holds the served cluster's lock; kubectl's requests reach the
    trace as the component ``kubectl``, so they are followed stage by stage
    as an in-process apply is. kubectl's GET before the POST is a read and
    is not a hop.

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
    import yaml

    obj = yaml.safe_load(manifest)
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
        When the command fails.
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


def _bar(ready: int, desired: int, scale: int) -> str:
    cells = []
    for i in range(max(scale, desired, ready)):
        if i < ready:
            cells.append(f'<span style="color:{_GREEN}">■</span>')
        elif i < desired:
            cells.append(f'<span style="color:{_ORANGE}">■</span>')
        else:
            cells.append('<span style="color:#e0e0e0">■</span>')
    return "".join(cells)


def rollout_frame(recording: Mapping[str, Any], seconds: float) -> Html:
    """What the cluster looked like ``seconds`` after the rollout command: kubectl's view and the writes.

    Parameters
    ----------
    recording : dict
        From :func:`record_rollout`.
    seconds : float
        Seconds after the command (the last frame at or before it is shown).

    Returns
    -------
    Html
        Left: ``$ kubectl get ...`` and its output at that moment. Right: each
        ReplicaSet's pods as squares (green ready, orange desired but not
        ready), the pod count by state, and the writes the components made in
        the step that led here (component, verb, object, detail).

    Examples
    --------
    >>> rec = {"command": KubectlResult("kubectl scale deploy/web --replicas=2", 0, "", "", []),
    ...        "get": "kubectl get rs", "frames": [{"seconds": 0.0, "time": 5.0, "output": "NAME ...",
    ...        "replicasets": [{"name": "web-1", "desired": 2, "ready": 1, "revision": "1"}],
    ...        "pods": [], "writes": []}]}
    >>> "web-1" in rollout_frame(rec, 0) and "1/2 ready" in rollout_frame(rec, 0)
    True
    """
    frames = recording["frames"]
    frame = frames[0]
    for f in frames:
        if f["seconds"] <= seconds + 1e-9:
            frame = f
    scale = max((r["desired"] for f in frames for r in f["replicasets"]), default=1)
    rs_rows = []
    for r in frame["replicasets"]:
        rs_rows.append(f'<tr><td style="{_TD}"><code>{_e(r["name"])}</code> <small>rev {_e(r["revision"])}</small>'
                       f'</td><td style="{_TD};font-size:14px;letter-spacing:1px">'
                       f'{_bar(r["ready"], r["desired"], scale)}'
                       f'</td><td style="{_TD}">{r["ready"]}/{r["desired"]} ready</td></tr>')
    running = sum(1 for p in frame["pods"] if p["ready"] and not p["terminating"])
    pending = sum(1 for p in frame["pods"] if not p["ready"] and not p["terminating"])
    terminating = sum(1 for p in frame["pods"] if p["terminating"])
    counts = (f"<div style='margin:2px 0 6px 0'>pods: <b style='color:{_GREEN}'>{running} ready</b>, "
              f"<b style='color:{_ORANGE}'>{pending} not ready</b>, <b style='color:{_GREY}'>{terminating} "
              f"terminating</b></div>")
    wrows = []
    for a in frame["writes"][:14]:
        obj = f"{a.kind} {a.name}"
        wrows.append(f'<tr><td style="{_TD}">{a.time:g}</td><td style="{_TD}">{_e(a.component)}</td>'
                     f'<td style="{_TD}">{_e(a.verb)}</td><td style="{_TD}">{_e(obj)}</td>'
                     f'<td style="{_TD}">{_e(a.detail)}</td></tr>')
    if len(frame["writes"]) > 14:
        wrows.append(f'<tr><td colspan="5" style="{_TD}">… {len(frame["writes"]) - 14} more</td></tr>')
    if not wrows:
        wrows.append(f'<tr><td colspan="5" style="{_TD};color:{_GREY}">no write in this step</td></tr>')
    head = "".join(f'<th style="{_TH}">{h}</th>' for h in ("t (s)", "component", "verb", "object", "detail"))
    right = (f'<table style="{_TABLE_CSS}"><caption style="caption-side:top;text-align:left;font-weight:bold">'
             f'ReplicaSets at t={frame["time"]:g} s (+{frame["seconds"]:g} s)</caption>{"".join(rs_rows)}</table>'
             f'{counts}<table style="{_TABLE_CSS}"><caption style="caption-side:top;text-align:left;'
             f'font-weight:bold">writes in this step</caption><thead><tr>{head}</tr></thead>'
             f'<tbody>{"".join(wrows)}</tbody></table>')
    term = (f'<pre style="{_PRE}"><span style="color:#80cbc4">$ {_e(recording["get"])}</span>   '
            f'<span style="color:#90a4ae"># +{frame["seconds"]:g} s after {_e(recording["command"].command)}'
            f'</span>\n{_e(frame["output"].rstrip())}</pre>')
    return Html('<div style="display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start">'
                f'<div style="flex:0 1 560px;min-width:320px">{term}</div>'
                f'<div style="flex:1 1 420px">{right}</div></div>')


def rollout_figure(recording: Mapping[str, Any], *, title: str | None = None) -> Figure:
    """Ready and desired replicas of each ReplicaSet, and all pods, over the recorded seconds.

    Parameters
    ----------
    recording : dict
        From :func:`record_rollout`.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        Step lines: per ReplicaSet its ``spec.replicas`` (dashed) and ready
        pods (solid), and the number of pods that exist, terminating ones included (grey), against the
        seconds since the command.

    Examples
    --------
    >>> rec = {"command": KubectlResult("kubectl rollout restart deploy/web", 0, "", "", []), "get": "",
    ...        "frames": [{"seconds": float(s), "time": 5.0 + s, "output": "", "writes": [], "pods": [],
    ...                    "replicasets": [{"name": "web-1", "desired": 2 - s, "ready": 2 - s, "revision": "1"}]}
    ...                   for s in range(3)]}
    >>> [line.get_label() for line in rollout_figure(rec).axes[0].get_lines()][:2]
    ['web-1 desired', 'web-1 ready']
    """
    frames = recording["frames"]
    ts = [f["seconds"] for f in frames]
    names: list[str] = []
    for f in frames:
        for r in f["replicasets"]:
            if r["name"] not in names:
                names.append(r["name"])
    fig = detached_figure(8.0, 3.2)
    ax = fig.add_subplot()
    colours = ["#1e88e5", "#d84315", "#6a1b9a", "#2e7d32"]
    for i, name in enumerate(names):
        c = colours[i % len(colours)]
        desired = [next((r["desired"] for r in f["replicasets"] if r["name"] == name), 0) for f in frames]
        ready = [next((r["ready"] for r in f["replicasets"] if r["name"] == name), 0) for f in frames]
        ax.step(ts, desired, where="post", color=c, ls="--", lw=1.3, label=f"{name} desired")
        ax.step(ts, ready, where="post", color=c, lw=2.2, label=f"{name} ready")
    ax.step(ts, [len(f["pods"]) for f in frames], where="post", color="#9e9e9e", lw=1.2,
            label="pods (incl. terminating)")
    ax.set_xlabel("virtual seconds after the command")
    ax.set_ylabel("pods")
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7.5, loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False)
    ax.set_title(title if title is not None else recording["command"].command, fontsize=9.5, loc="left")
    fig.tight_layout()
    return fig


def rollout_panel(recording: Mapping[str, Any], *, start: int = 0) -> Any:
    """The chapter's widget: a clock slider over a recorded rollout, showing :func:`rollout_frame`.

    Parameters
    ----------
    recording : dict
        From :func:`record_rollout`.
    start : int
        The slider's first value (seconds after the command).

    Returns
    -------
    ipywidgets.VBox
        From :func:`kubenotes.viz.widgets.live_panel`. The clock moved when the
        recording was made (it only moves forward); the slider replays it, so
        the panel keeps working after the server is stopped.
    """
    import ipywidgets as widgets

    from kubenotes.viz.widgets import live_panel

    frames = recording["frames"]
    last = int(round(frames[-1]["seconds"]))

    @functools.lru_cache(maxsize=None)
    def frame(seconds: int) -> Html:
        return rollout_frame(recording, seconds)

    def update(seconds: int) -> Html:
        return frame(int(seconds))

    slider = widgets.IntSlider(value=start, min=0, max=last, step=1, description="clock: + seconds",
                               style={"description_width": "120px"}, layout=widgets.Layout(width="520px"),
                               continuous_update=False)
    return live_panel(update, {"seconds": slider})
