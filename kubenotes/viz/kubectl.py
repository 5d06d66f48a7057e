"""Chapter 02.02's view of the wire: real ``kubectl`` commands and the HTTP requests each one sends.

:func:`kubenotes.sim.kubectl.kubectl_session` runs one command against a
served cluster and returns a :class:`~kubenotes.sim.kubectl.KubectlResult`:
what kubectl printed, its exit code, and every HTTP request it caused with the
API server's own record of each (verb, user, handler-chain steps, the store
write and the watchers its event went to). This module draws it:
:func:`requests_table` and :func:`kubectl_panel` lay them out beside
kubectl's output (a result shows as its panel in a notebook, through
:attr:`KubectlResult.html_view <kubenotes.sim.kubectl.KubectlResult.html_view>`);
:func:`sequence_figure` draws them as a sequence diagram
(kubectl → kube-apiserver → etcd → watchers).

:func:`~kubenotes.sim.kubectl.kubectl_apply_hops` is :func:`~kubenotes.sim.trace.apply_hops`
with the write done by ``kubectl apply -f -`` over HTTP, so chapter 02.00's
component graph and hop table show the cascade a real command starts.
:func:`~kubenotes.sim.kubectl.record_rollout` runs a rollout command and then moves the virtual clock
second by second, running ``kubectl get`` at each step;
:func:`rollout_panel` puts a clock slider over the recording.

When no kubectl is installed, :mod:`kubenotes.sim.kubectl` sends the same
requests with httpx, and :data:`KUBECTL_MISSING_NOTE` says so.

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
import re
from typing import Any, Mapping, Sequence

from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch

from kubenotes.sim.kubectl import (HTTP_WATCHER, KubectlResult, describe_request, http_writes, request_chain,
                                   rollout_state)
from kubenotes.viz.graphs import detached_figure
from kubenotes.viz.html import CAPTION_TIGHT_CSS, Html, table
from kubenotes.viz.html import escape as _e

__all__ = ["KUBECTL_MISSING_NOTE", "requests_table", "kubectl_panel", "summary_table", "sequence_figure",
           "rollout_frame", "rollout_figure", "rollout_panel"]

#: What a notebook shows when kubectl is not installed.
KUBECTL_MISSING_NOTE = (
    "kubectl not found: install it (e.g. `brew install kubectl`, `sudo snap install kubectl --classic`, or the "
    "binary from https://kubernetes.io/docs/tasks/tools/); the cells below send the requests it would send "
    "with httpx instead. What differs: no discovery or OpenAPI requests (kubectl caches them), and a short "
    "summary stands in for kubectl's own printing.")

_GREEN, _RED, _GREY, _BLUE, _ORANGE = "#2e7d32", "#c62828", "#757575", "#1565c0", "#ef6c00"
_PRE = ("margin:0;padding:6px 8px;background:#263238;color:#eceff1;font-size:11.5px;line-height:1.35;"
        "border-radius:4px;white-space:pre;overflow-x:auto")
# The chapter's tables: HTML cells (or ``(html, extra_css)``), a little smaller than the default.
_table = functools.partial(table, html_cells=True, table_css="border-collapse:collapse;font-size:11.5px;margin:4px 0",
                           th_css="padding:3px 6px;border-bottom:2px solid #888;text-align:left;background:#fafafa;"
                                  "vertical-align:bottom",
                           td_css="padding:3px 6px;border-bottom:1px solid #ddd;text-align:left;vertical-align:top")


def _c(text: Any, colour: str, tag: str = "b") -> str:
    """HTML ``text`` in ``colour`` (bold unless ``tag`` says otherwise)."""
    return f'<{tag} style="color:{colour}">{text}</{tag}>'


def _code_colour(code: Any) -> str:
    return _GREEN if 200 <= int(code) < 300 else _RED


def _small(text: str) -> str:
    return f'<br><small style="color:#555">{text}</small>'


def _pre(command: str, comment: str, body: str, tail: str = "") -> str:
    """A dark terminal block: ``$ command``, a grey comment, the output, then ``tail``."""
    return (f'<pre style="{_PRE}"><span style="color:#80cbc4">$ {_e(command)}</span>{comment}\n{body}{tail}</pre>')


def _side_by_side(term: str, right: str) -> str:
    """A terminal and a block beside it when both fit at full width, else the block under the terminal.

    Neither side shrinks below its content (``flex: 0 0 auto`` for the terminal, ``min-width: min-content``
    for the other), so in a ~1,000 px output column a wide kubectl output and the requests table stack
    instead of squeezing each other into scroll boxes that hide kubectl's AGE column and the table's
    handler chain.
    """
    return ('<div style="display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start;max-width:100%">'
            f'<div style="flex:0 0 auto;max-width:100%">{term}</div>'
            f'<div style="flex:1 1 420px;min-width:min-content;max-width:100%;overflow-x:auto">{right}</div></div>')


def _chain(rec: Mapping[str, Any]) -> str:
    """The handler chain of one request (:func:`~kubenotes.sim.kubectl.request_chain`) in one short HTML line."""
    c = request_chain(rec)
    a, v, parts = c["authorization"], c["validation"], []
    if a is not None:
        parts.append(_c(f"authz {_e(a['decision'])}", _GREEN if a["allowed"] else _RED, "span")
                     + (f" <small>({_e(a['reason'][:60])})</small>" if a["reason"] and a["allowed"] else ""))
    if c["mutating"]:
        changed = c["changed_by"]
        parts.append(f"{c['mutating']} mutating" + (f" ({_e(', '.join(changed))} changed it)" if changed else ""))
    if v is not None:
        parts.append(f"validation {_c(_e(v), _GREEN if v == 'valid' else _RED, 'span')}")
    if c["validating"]:
        parts.append(f"{c['validating']} validating")
    if c["response"]:
        parts.append(_c(_e(c["response"]), _RED, "span"))
    return "; ".join(parts)


def _event(ev: Mapping[str, Any], code: str = "") -> str:
    """A watch event as ``TYPE name rv N`` (the name in ``<code>`` when ``code`` is "html")."""
    name = ev["key"].rsplit("/", 1)[-1]
    if code == "html":
        return f"{_e(ev['type'])} <code>{_e(name)}</code> rv {_e(ev['resourceVersion'])}"
    return f"{ev['type']} {name}  rv {ev['resourceVersion']}"


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
    rows = []
    for i, entry in enumerate(entries, 1):
        what, user = describe_request(entry)
        recs, writes, watch = entry.get("requests") or (), http_writes(entry), entry.get("watch")
        store = "<br>".join(f"{_e(w['type'])} <code>{_e(w['key'])}</code> rv {_e(w['resourceVersion'])}"
                            for w in writes)
        if watch:
            seen = "<br>".join(_event(ev, "html") for ev in events[:8])
            seen = (seen + (f"<br>… {len(events) - 8} more" if len(events) > 8 else "")) or "(stream open, no event)"
        else:
            seen = "<br>".join(", ".join(f"{_e(k)} ({_e(v)})" for k, v in w["watchers"].items()) or "no watcher"
                               for w in writes)
        url = "<code>" + _e(re.sub(r"(hash=[0-9A-Fa-f]{8})[0-9A-Fa-f]+", r"\1…", entry["url"])) + "</code>"
        if "as=Table" in (entry.get("accept") or ""):
            url += _small("Accept: …as=Table…")
        if entry.get("content_type") and entry["method"] in ("POST", "PUT", "PATCH"):
            url += _small(f"Content-Type: {_e(entry['content_type'])}")
        code = int(entry.get("code", 0))
        rows.append([(_e(i), "text-align:right"), f"<b>{_e(entry['method'])}</b>" + (" (watch)" if watch else ""),
                     (url, "min-width:190px;max-width:320px;word-break:break-all"), _c(code, _code_colour(code)),
                     (_e(what) + (_small(_e(user)) if user else ""), "min-width:110px"),
                     (_chain(recs[0]) if recs else "", "min-width:130px;max-width:240px"),
                     (store, "word-break:break-all;min-width:130px"), (seen, "min-width:100px")])
    return _table(["#", "method", "URL", "code", "request (user)", "handler chain", "store write", "watch events"],
                  rows, caption)


def kubectl_panel(result: KubectlResult) -> Html:
    """kubectl's output (as a terminal would show it) beside the table of the HTTP requests it sent.

    Parameters
    ----------
    result : KubectlResult

    Returns
    -------
    Html
        A two-column block (it wraps on narrow screens): the terminal on the
        left (its first 40 lines; the rest is counted), :func:`requests_table` on the right, with a caption counting
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
    body = (result.stdout or "") + (result.stderr or "")
    lines = body.rstrip("\n").split("\n") if body.strip() else []
    if len(lines) > 40:
        lines = lines[:40] + [f"… ({len(lines) - 40} more lines)"]
    shown = "\n".join(_e(x) for x in lines)
    if result.stderr.strip() and not result.stdout.strip():
        shown = _c(shown, "#ff8a80", "span")
    tail = _c(f"# exit code {result.returncode}", "#90a4ae", "span")
    if result.via != "kubectl":
        tail += "\n" + _c("# sent with httpx: kubectl is not installed", "#ffd54f", "span")
    n, w = len(result.http), len(result.writes)
    caption = (f"{n} HTTP request{'s' if n != 1 else ''} at t={result.started_seconds:g} s "
               f"(virtual), {w} store write{'s' if w != 1 else ''}")
    return Html(_side_by_side(_pre(result.command, "", shown, "\n" + tail), requests_table(result, caption=caption)))


KubectlResult.html_view = kubectl_panel  # a result ending a notebook cell shows as its panel


def summary_table(results: Sequence[KubectlResult]) -> Html:
    """One row per command: the command, kubectl's exit code, its requests with their codes, what it printed.

    Parameters
    ----------
    results : sequence of KubectlResult

    Returns
    -------
    Html

    Raises
    ------
    AttributeError
        When an item is not a :class:`KubectlResult` (it has no ``http``).
    KeyError
        When an HTTP entry lacks ``method``, ``url`` or ``code``.

    See Also
    --------
    kubectl_panel, requests_table

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/rest/request.go

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
        reqs = "<br>".join(f'{_e(e["method"])} <code>{_e(_short_url(e["url"], 70))}</code> &rarr; '
                           f'{_c(_e(e["code"]), _code_colour(e["code"]))}' for e in r.http)
        said = (r.stderr.strip() or r.stdout.strip()).split("\n")[0]
        rows.append([f"<code>{_e(r.command)}</code>", (_c(r.returncode, _GREEN if r.returncode == 0 else _RED),
                     "text-align:center"), reqs, (_e(said), "max-width:480px")])
    return _table(("command", "exit", "requests", "kubectl printed"), rows)


# ---------------------------------------------------------------------------
# the sequence diagram


def _short_url(url: str, limit: int = 52) -> str:
    path, _, query = url.partition("?")
    keep = [q for q in query.split("&") if q and not q.startswith(("timeout=", "hash="))]
    s = path + ("?" + "&".join(keep) if keep else "")
    return s if len(s) <= limit else s[:limit - 1] + "…"


def sequence_figure(result: KubectlResult, *, title: str | None = None) -> Figure:
    """A sequence diagram of one command: kubectl → kube-apiserver → etcd → the watchers of each write.

    Parameters
    ----------
    result : KubectlResult
    title : str, optional
        Default: the command.

    Returns
    -------
    matplotlib.figure.Figure
        One lifeline per participant (``kubectl``, ``kube-apiserver``,
        ``etcd``, then each watcher an event was queued for, named as the
        API server names them: ``kube-controller-manager``,
        ``default-scheduler``, ``kubelet/<node>``...). Per HTTP request (the
        first 14): the
        request (method and path), the handler chain's verdict beside the
        API server, the write to etcd with its resourceVersion, the event to
        each watcher (dashed) and the response with its code. For a watch,
        the events streamed back to kubectl follow its response.

    Raises
    ------
    AttributeError
        When ``result`` is not a :class:`KubectlResult` (it has no ``http``).
    KeyError
        When an HTTP entry lacks ``method`` or ``url``.

    See Also
    --------
    requests_table, kubectl_panel

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/rest/request.go
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/server/config.go (DefaultBuildHandlerChain)

    Examples
    --------
    >>> r = KubectlResult("kubectl get pods", 0, "", "", [{"time": 0.0, "method": "GET",
    ...     "url": "/api/v1/namespaces/default/pods?limit=500", "code": 200, "watch": False, "requests": [
    ...     {"verb": "list", "resource": "pods", "namespace": "default", "name": "", "user": "admin", "code": 200,
    ...      "steps": [{"step": "authorization", "detail": "Allow: "}]}]}])
    >>> [t.get_text() for t in sequence_figure(r).axes[0].texts][:3]
    ['kubectl', 'kube-apiserver', 'etcd']
    """
    entries = list(result.http[:14])
    watchers = list(dict.fromkeys(n for e in entries for w in http_writes(e) for n in w["watchers"]
                                  if n != HTTP_WATCHER))
    parts = ["kubectl", "kube-apiserver", "etcd", *watchers]
    # One row per line of the diagram, top to bottom: its messages as (from, to, label, colour, style), style
    # True for a dashed arrow; from == to is a note beside that lifeline, style its background (None: none).
    rows: list[list[tuple]] = []
    for e in entries:
        rows.append([("kubectl", "kube-apiserver", f"{e['method']}{' (watch)' if e.get('watch') else ''} "
                      f"{_short_url(e['url'])}", "#37474f", False)])
        if e.get("requests"):
            rec = e["requests"][0]
            bad = any(s["step"] == "response" for s in rec.get("steps", ()))
            plain = html.unescape(re.sub(r"<[^>]+>", "", _chain(rec)))[:95]
            rows.append([("kube-apiserver", "kube-apiserver", plain, _RED if bad else "#455a64",
                          "#ffebee" if bad else "#fff8e1")])
        for w in http_writes(e):
            store = f"{w['type']} {w['key']}  rv {w['resourceVersion']}"
            rows.append([("kube-apiserver", "etcd", store, _GREEN, False)])
            events = [("etcd", n, f"watch: {t}", _BLUE, True) for n, t in w["watchers"].items() if n != HTTP_WATCHER]
            rows += [events] if events else []
        code = int(e.get("code", 0))
        rows.append([("kube-apiserver", "kubectl", f"{code}" + (" (event stream)" if e.get("watch") else ""),
                      _code_colour(code), True)])
        if e.get("watch"):
            rows += [[("kube-apiserver", "kubectl", _event(ev), _ORANGE, True)] for ev in result.watch_events[:6]]
            if len(result.watch_events) > 6:
                rows.append([("kubectl", "kubectl", f"… {len(result.watch_events) - 6} more events", _ORANGE, None)])
    gap, x = 0.42, {p: i * 2.55 for i, p in enumerate(parts)}
    width = max(9.0, 2.6 + 2.55 * (len(parts) - 1))
    scale = min(1.0, 9.6 / width)  # at most 9.6 in: 1,000 px at the inline backend's 100 dpi
    fig = detached_figure(width * scale, max(2.5, 1.1 + gap * len(rows)) * scale)
    ax = fig.add_axes((0.01, 0.01, 0.98, 0.98))
    for p in parts:
        ax.text(x[p], 0.0, p, ha="center", va="center", fontsize=8.5, fontweight="bold",
                bbox=dict(boxstyle="round,pad=0.3", fc="#e8f5e9" if p == "etcd" else "#e3f2fd",
                          ec=_GREEN if p == "etcd" else _BLUE))
        ax.plot([x[p], x[p]], [-0.3, -gap * (len(rows) + 1)], color="#bdbdbd", lw=1, ls="--", zorder=0)
    for i, row in enumerate(rows):
        y = -gap * (i + 2)
        for a, b, label, colour, style in row:
            if a == b:
                ax.text(x[a] + 0.12, y + 0.08, label, ha="left", va="center", fontsize=6.4, color=colour, zorder=4,
                        bbox=style and dict(boxstyle="round,pad=0.15", fc=style, ec="none"))
                continue
            ax.add_patch(FancyArrowPatch((x[a], y), (x[b], y), arrowstyle="-|>", mutation_scale=10, color=colour,
                                         lw=1.3, ls="--" if style else "-", shrinkA=2, shrinkB=2, zorder=3))
            ax.text((x[a] + x[b]) / 2, y + 0.06, label, ha="center", va="bottom", fontsize=6.8, color=colour,
                    zorder=4, bbox=dict(boxstyle="round,pad=0.05", fc="white", ec="none", alpha=0.8))
    ax.set_xlim(-1.3, x[parts[-1]] + 1.3)
    ax.set_ylim(-gap * (len(rows) + 2), 0.45)
    ax.axis("off")
    ax.set_title(title if title is not None else result.command, fontsize=9.5, loc="left")
    return fig


# ---------------------------------------------------------------------------
# a rollout, second by second


def _bar(ready: int, desired: int, scale: int) -> str:
    """A square per pod: green ready, orange desired but not ready, grey up to ``scale``."""
    return "".join(_c("■", _GREEN if i < ready else _ORANGE if i < desired else "#e0e0e0", "span")
                   for i in range(max(scale, desired, ready)))


def rollout_frame(recording: Mapping[str, Any], seconds: float) -> Html:
    """What the cluster looked like ``seconds`` after the rollout command: kubectl's view and the writes.

    Parameters
    ----------
    recording : dict
        From :func:`~kubenotes.sim.kubectl.record_rollout`.
    seconds : float
        Seconds after the command (the last frame at or before it is shown,
        counted by :func:`~kubenotes.sim.kubectl.rollout_state`).

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
    state = rollout_state(recording, seconds)
    frame, scale, writes = state["frame"], state["scale"], state["frame"]["writes"]
    sets = _table([], [[f'<code>{_e(r["name"])}</code> <small>rev {_e(r["revision"])}</small>',
                        (_bar(r["ready"], r["desired"], scale), "font-size:14px;letter-spacing:1px"),
                        f"{r['ready']}/{r['desired']} ready"] for r in frame["replicasets"]],
                  f'ReplicaSets at t={frame["time"]:g} s (+{frame["seconds"]:g} s)', caption_css=CAPTION_TIGHT_CSS,
                  sections=False)
    counts = ", ".join(_c(f"{state[key]} {key.replace('_', ' ')}", colour)
                       for key, colour in (("ready", _GREEN), ("not_ready", _ORANGE), ("terminating", _GREY)))
    rows = [[f"{a.time:g}", *(_e(v) for v in (a.component, a.verb, f"{a.kind} {a.name}", a.detail))]
            for a in writes[:14]]
    rows += [[(f"… {len(writes) - 14} more", "")]] if len(writes) > 14 else []
    rows = rows or [[(_c("no write in this step", _GREY, "span"), "")]]
    steps = _table(("t (s)", "component", "verb", "object", "detail"), rows, "writes in this step",
                   caption_css=CAPTION_TIGHT_CSS)
    term = _pre(recording["get"], "   " + _c(f"# +{frame['seconds']:g} s after {_e(recording['command'].command)}",
                                             "#90a4ae", "span"), _e(frame["output"].rstrip()))
    return Html(_side_by_side(term, f"{sets}<div style='margin:2px 0 6px 0'>pods: {counts}</div>{steps}"))


def rollout_figure(recording: Mapping[str, Any], *, title: str | None = None) -> Figure:
    """Ready and desired replicas of each ReplicaSet, and all pods, over the recorded seconds.

    Parameters
    ----------
    recording : dict
        From :func:`~kubenotes.sim.kubectl.record_rollout`.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        Step lines: per ReplicaSet its ``spec.replicas`` (dashed) and ready
        pods (solid), and the number of pods that exist, terminating ones included (grey), against the
        seconds since the command.

    Raises
    ------
    KeyError
        When ``recording`` lacks ``frames`` (or, without ``title``,
        ``command``), or a frame lacks ``seconds``, ``replicasets`` or ``pods``.

    See Also
    --------
    kubenotes.sim.kubectl.record_rollout, rollout_frame, rollout_panel

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/deployment/rolling.go

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
    fig = detached_figure(8.0, 3.2)
    ax = fig.add_subplot()
    names = dict.fromkeys(r["name"] for f in frames for r in f["replicasets"])
    for i, name in enumerate(names):
        c = ["#1e88e5", "#d84315", "#6a1b9a", "#2e7d32"][i % 4]
        for key, style in (("desired", dict(ls="--", lw=1.3)), ("ready", dict(lw=2.2))):
            ax.step(ts, [next((r[key] for r in f["replicasets"] if r["name"] == name), 0) for f in frames],
                    where="post", color=c, label=f"{name} {key}", **style)
    ax.step(ts, [len(f["pods"]) for f in frames], where="post", color="#9e9e9e", lw=1.2,
            label="pods (incl. terminating)")
    ax.set(xlabel="virtual seconds after the command", ylabel="pods")
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
        From :func:`~kubenotes.sim.kubectl.record_rollout`.
    start : int
        The slider's first value (seconds after the command).

    Returns
    -------
    ipywidgets.VBox
        From :func:`kubenotes.viz.widgets.live_panel`. The clock moved when the
        recording was made (it only moves forward); the slider replays it, so
        the panel keeps working after the server is stopped.

    Raises
    ------
    KeyError
        When ``recording`` lacks ``frames``, or a frame lacks what
        :func:`rollout_frame` reads.
    IndexError
        When ``recording["frames"]`` is empty.

    See Also
    --------
    kubenotes.sim.kubectl.record_rollout, rollout_frame, kubenotes.viz.widgets.live_panel

    Notes
    -----
    A ``start`` outside the recording is clamped by the slider to
    ``[0, last second]``. Errors of the first drawing are raised outside
    Jupyter; inside it the output widget shows their traceback instead.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/deployment/rolling.go

    Examples
    --------
    >>> import contextlib, io
    >>> rec = {"command": KubectlResult("kubectl scale deploy/web --replicas=2", 0, "", "", []),
    ...        "get": "kubectl get rs",
    ...        "frames": [{"seconds": float(s), "time": 5.0 + s, "output": "", "pods": [], "writes": [],
    ...                    "replicasets": [{"name": "web-1", "desired": 2, "ready": s, "revision": "1"}]}
    ...                   for s in range(3)]}
    >>> with contextlib.redirect_stdout(io.StringIO()):  # outside Jupyter the output widget prints
    ...     panel = rollout_panel(rec, start=1)
    >>> slider = panel.children[0].children[0]
    >>> slider.description, slider.value, slider.max
    ('clock: + seconds', 1, 2)
    """
    import ipywidgets as widgets

    from kubenotes.viz.widgets import int_slider, live_panel, memoise_update

    last = int(round(recording["frames"][-1]["seconds"]))
    slider = int_slider("clock: + seconds", start, 0, last, style={"description_width": "120px"},
                        layout=widgets.Layout(width="520px"))
    return live_panel(memoise_update(lambda seconds: rollout_frame(recording, int(seconds))), {"seconds": slider})
