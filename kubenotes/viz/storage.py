"""Tables, figures and the widget of the storage and CSI chapter (05.03).

Nothing here decides anything: which volume a claim gets comes from
:func:`kubenotes.sim.storage.claim_binding` (the PersistentVolume controller's
index and the scheduler's ``FindMatchingVolume``), the CSI call timeline from
:func:`~kubenotes.sim.storage.csi_volume_timeline` (the traces of the CSI
driver model, the attach/detach controller and the kubelet), the StatefulSet's
claims from :func:`~kubenotes.sim.storage.statefulset_claims`, the node
failure from :func:`~kubenotes.sim.storage.attach_timeline`, and the object
graph from :func:`~kubenotes.sim.storage.storage_graph`. This module shows them:

* :func:`binding_table` / :func:`binding_panel`: a claim's size, access mode,
  class and binding mode -> the volume it gets (now, or per node);
* :func:`csi_timeline_table` and :func:`csi_sequence_figure`: one pod's volume
  call by call, lane by lane;
* :func:`claims_table`: a StatefulSet's claims before and after a pod's deletion;
* :func:`attach_timeline_table`: a node failure with a ReadWriteOnce volume;
* :func:`storage_graph_figure`: pod -> claim -> volume -> class, driver,
  VolumeAttachment -> node.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/volume/persistentvolume/pv_controller.go
kubernetes/kubernetes@v1.34.0 pkg/controller/volume/attachdetach/attach_detach_controller.go
kubernetes/kubernetes@v1.34.0 pkg/volume/csi/csi_attacher.go
https://kubernetes.io/docs/concepts/storage/persistent-volumes/
"""

from __future__ import annotations

import functools
from typing import Any, Iterable, Mapping, Sequence

import ipywidgets as widgets
import networkx as nx
from matplotlib.figure import Figure

from kubenotes.sim.storage import claim_binding
from kubenotes.viz.graphs import detached_figure
from kubenotes.viz.html import CAPTION_TIGHT_CSS, Html, escape, table
from kubenotes.viz.widgets import int_slider, live_panel, memoise_update

__all__ = [
    "LANES",
    "binding_table",
    "binding_view",
    "binding_panel",
    "csi_timeline_table",
    "csi_sequence_figure",
    "claims_table",
    "attach_timeline_table",
    "storage_graph_figure",
]

#: The timeline's lanes, left to right (a lane not listed here is added after them).
LANES = ("kube-scheduler", "attach/detach controller", "CSI Controller", "CSI Node", "kubelet volumes", "kubelet CRI")
_LANE_COLOURS = {"kube-scheduler": "#6a1b9a", "attach/detach controller": "#1565c0", "CSI Controller": "#2e7d32",
                 "CSI Node": "#558b2f", "kubelet volumes": "#ef6c00", "kubelet CRI": "#757575"}
_KIND_COLOURS = {"Pod": "#bbdefb", "PersistentVolumeClaim": "#c8e6c9", "PersistentVolume": "#a5d6a7",
                 "StorageClass": "#fff9c4", "CSIDriver": "#ffe0b2", "VolumeAttachment": "#f8bbd0", "Node": "#e0e0e0"}
_KIND_PLACE = {"Pod": (0.0, 1.0), "PersistentVolumeClaim": (1.9, 1.0), "PersistentVolume": (3.5, 1.0),
               "StorageClass": (4.9, 1.5), "CSIDriver": (4.9, 0.5), "VolumeAttachment": (3.5, 0.0),
               "Node": (0.0, 0.0)}
_GOOD, _BAD, _MAYBE = "#e8f5e9", "#ffebee", "#fffde7"

_table = functools.partial(table, caption_css=CAPTION_TIGHT_CSS)


def _backgrounds(colours: Sequence[str | None]) -> list[str]:
    return [f"background:{c}" if c else "" for c in colours]


def binding_table(result: Mapping[str, Any]) -> Html:
    """:func:`~kubenotes.sim.storage.claim_binding`'s answer: the outcome, then one row per volume.

    Parameters
    ----------
    result : mapping
        What :func:`~kubenotes.sim.storage.claim_binding` returns.

    Returns
    -------
    Html
        A line saying who binds which volume (or the ``WaitForFirstConsumer``
        Event and the scheduler's choice per node), then the volumes with
        capacity, access modes, class, the node that reaches them and the
        verdict; chosen rows green, rejected rows red.

    Raises
    ------
    KeyError
        When ``result`` lacks a key :func:`~kubenotes.sim.storage.claim_binding` returns.

    Examples
    --------
    >>> from kubenotes.sim.storage import claim_binding
    >>> t = binding_table(claim_binding(3))
    >>> "PV controller binds it to <b>disk-10g</b>" in t, t.count("too small")
    (True, 2)
    """
    claim = result["claim"]["spec"]
    ask = f'{claim["resources"]["requests"]["storage"]} {claim["accessModes"][0]} of class {claim["storageClassName"]}'
    if not result["delayed"]:
        who = (f'PV controller binds it to <b>{escape(result["controller"])}</b> at once'
               if result["controller"] else "no volume matches: the claim stays <b>Pending</b>")
    else:
        reason, message = result["event"]
        per_node = "; ".join(f"{escape(n)} → <b>{escape(v or 'none: node filtered out')}</b>"
                             for n, v in result["nodes"].items())
        who = f"PV controller: Normal {escape(reason)} “{escape(message)}”. Scheduler's VolumeBinding: {per_node}"
    colours = []
    for r in result["rows"]:
        v = r["verdict"]
        colours.append(_GOOD if v.startswith(("bound", "chosen")) else _MAYBE if v.startswith("fits") else _BAD)
    body = _table(["volume", "capacity", "modes", "class", "reachable from", "verdict"],
                  [[r["name"], r["capacity"], r["modes"], r["class"], r["node"], r["verdict"]] for r in result["rows"]],
                  caption=f"Claim: {ask}", row_css=_backgrounds(colours))
    return Html(f'<div style="margin:4px 0">{who}</div>{body}')


def binding_view(request_gi: int, access_mode: str, storage_class: str, binding_mode: str) -> Html:
    """The :func:`binding_panel` callback: :func:`~kubenotes.sim.storage.claim_binding`, drawn as :func:`binding_table`.

    Parameters
    ----------
    request_gi : int
        The claim's storage request, GiB.
    access_mode, storage_class, binding_mode : str
        As for :func:`~kubenotes.sim.storage.claim_binding`.

    Returns
    -------
    Html

    Raises
    ------
    ValueError
        For an unknown access mode or binding mode.

    Examples
    --------
    >>> "local-a-20g" in binding_view(15, "ReadWriteOnce", "standard", "WaitForFirstConsumer")
    True
    """
    return binding_table(claim_binding(request_gi, access_mode, storage_class, binding_mode))


def binding_panel(request_gi: int = 3, access_mode: str = "ReadWriteOnce", storage_class: str = "standard",
                  binding_mode: str = "Immediate") -> widgets.VBox:
    """A slider for the claim's size and menus for its access mode, class and binding mode.

    Parameters
    ----------
    request_gi : int
        Initial request, GiB (slider 1 to 60).
    access_mode : str
        Initial access mode (``ReadWriteOnce``, ``ReadOnlyMany``, ``ReadWriteMany``, ``ReadWriteOncePod``).
    storage_class : str
        Initial class (``standard`` or ``fast``).
    binding_mode : str
        Initial ``volumeBindingMode`` (``Immediate`` or ``WaitForFirstConsumer``).

    Returns
    -------
    ipywidgets.VBox
        The controls (two a row), then the live :func:`binding_view`.

    Raises
    ------
    traitlets.TraitError
        An initial value is not among the options.

    Examples
    --------
    >>> import contextlib, io
    >>> with contextlib.redirect_stdout(io.StringIO()):  # outside Jupyter the output widget prints
    ...     panel = binding_panel()
    >>> [c.description for c in panel.children[0].children]
    ['request (Gi)', 'accessModes']
    """
    style = {"description_width": "110px"}
    controls = {
        "request_gi": int_slider("request (Gi)", request_gi, 1, 60, 1, style=style,
                                 layout=widgets.Layout(width="420px")),
        "access_mode": widgets.Dropdown(options=["ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany",
                                                 "ReadWriteOncePod"], value=access_mode, description="accessModes",
                                        style=style, layout=widgets.Layout(width="330px")),
        "storage_class": widgets.Dropdown(options=["standard", "fast"], value=storage_class,
                                          description="storageClass", style=style,
                                          layout=widgets.Layout(width="330px")),
        "binding_mode": widgets.Dropdown(options=["Immediate", "WaitForFirstConsumer"], value=binding_mode,
                                         description="bindingMode", style=style,
                                         layout=widgets.Layout(width="330px")),
    }
    return live_panel(memoise_update(binding_view), controls)


def csi_timeline_table(rows: Iterable[Sequence[Any]], caption: str | None = None) -> Html:
    """:func:`~kubenotes.sim.storage.csi_volume_timeline`'s rows as a table.

    Parameters
    ----------
    rows : iterable of (float, str, str, str)
        ``(time, lane, call, detail)``.
    caption : str, optional

    Returns
    -------
    Html
        Time (s, 3 decimals), component, call, detail; the call coloured by lane.

    Raises
    ------
    ValueError
        When a row does not have four items.

    Examples
    --------
    >>> t = csi_timeline_table([(0.0, "CSI Controller", "ControllerPublishVolume", "vol on n1: OK")])
    >>> "ControllerPublishVolume" in t and "0.000" in t
    True
    """
    out, colours = [], []
    for t, lane, call, detail in rows:
        out.append([f"{t:.3f}", lane, call, detail])
        colours.append(None)
    return _table(["time (s)", "component", "call", "detail"], out, caption=caption, row_css=_backgrounds(colours))


def csi_sequence_figure(rows: Sequence[Sequence[Any]], *, title: str | None = None) -> Figure:
    """One pod's volume as a sequence chart: a column per component, a row per call, top to bottom in time.

    Several calls share a virtual instant (the model's API calls take no
    time), so rows are in order, not to scale: each is labelled with its time.

    Parameters
    ----------
    rows : sequence of (float, str, str, str)
        :func:`~kubenotes.sim.storage.csi_volume_timeline`'s rows.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        At most 9.6 inches wide (under 1,000 px inline).

    Raises
    ------
    ValueError
        When a row does not have four items.

    Examples
    --------
    >>> fig = csi_sequence_figure([(0.0, "CSI Controller", "ControllerPublishVolume", ""),
    ...                            (0.3, "kubelet CRI", "RunPodSandbox", "")])
    >>> [t.get_text() for t in fig.axes[0].get_xticklabels()][2]
    'CSI Controller'
    """
    lanes = list(LANES) + sorted({r[1] for r in rows} - set(LANES))
    n = max(len(rows), 1)
    fig = detached_figure(9.6, 0.8 + 0.27 * n)
    ax = fig.add_subplot()
    for i, lane in enumerate(lanes):
        ax.axvline(i, color="#e0e0e0", lw=1, zorder=0)
    for j, (t, lane, call, _detail) in enumerate(rows):
        x = lanes.index(lane)
        colour = _LANE_COLOURS.get(lane, "#37474f")
        ax.plot([x], [j], "o", color=colour, ms=5)
        ax.text(x + 0.08, j, f"{call}  {t:.2f} s", va="center", fontsize=7.5, color=colour)
    ax.set_xticks(range(len(lanes)))
    ax.set_xticklabels(lanes, fontsize=8)
    ax.xaxis.tick_top()
    ax.set_xlim(-0.3, len(lanes) - 0.1)
    ax.set_ylim(n - 0.5, -0.7)
    ax.set_yticks([])
    for s in ("left", "right", "bottom"):
        ax.spines[s].set_visible(False)
    ax.set_title(title or "One pod's CSI volume, call by call (rows in order, labelled with virtual time)",
                 fontsize=10, pad=22)
    fig.tight_layout()
    return fig


def claims_table(before: Sequence[Mapping[str, Any]], after: Sequence[Mapping[str, Any]],
                 caption: str | None = None) -> Html:
    """A StatefulSet's claims at two moments: same claim, same volume, new pod uid.

    Parameters
    ----------
    before, after : sequence of mapping
        :func:`~kubenotes.sim.storage.statefulset_claims` at two times.
    caption : str, optional

    Returns
    -------
    Html
        One row per claim: its phase and volume, the claim's uid and the
        pod's uid before and after; a row whose pod uid changed is
        highlighted (the pod was recreated, the claim kept).

    Raises
    ------
    KeyError
        When a row lacks ``claim``, ``volume``, ``claim_uid`` or ``pod_uid``.

    Examples
    --------
    >>> b = [{"claim": "data-web-0", "phase": "Bound", "volume": "v", "claim_uid": "c1", "pod": "web-0",
    ...       "pod_uid": "p1", "node": "n"}]
    >>> a = [dict(b[0], pod_uid="p2")]
    >>> "recreated" in claims_table(b, a)
    True
    """
    by_claim = {r["claim"]: r for r in after}
    rows, colours = [], []
    for r in before:
        a = by_claim.get(r["claim"], {})
        same_claim = a.get("claim_uid") == r["claim_uid"]
        recreated = a.get("pod_uid") and a.get("pod_uid") != r["pod_uid"]
        rows.append([r["claim"], a.get("phase", "gone"), f'{r["volume"]} → {a.get("volume", "")}',
                     "kept" if same_claim else "new", r["pod"], f'{r["pod_uid"][:8]} → {a.get("pod_uid", "")[:8]}',
                     "recreated" if recreated else "same", a.get("node", "")])
        colours.append(_MAYBE if recreated else None)
    return _table(["claim", "phase", "volume", "claim uid", "pod", "pod uid", "pod", "node"], rows,
                  caption=caption, row_css=_backgrounds(colours))


def attach_timeline_table(rows: Iterable[Sequence[Any]], caption: str | None = None) -> Html:
    """:func:`~kubenotes.sim.storage.attach_timeline`'s (or ``resize_timeline``'s) rows: who did what, when.

    Parameters
    ----------
    rows : iterable of (float, str, str, str)
        ``(time, who, what, detail)``.
    caption : str, optional

    Returns
    -------
    Html
        Warnings (the Multi-Attach error, a forced detach) in red; attachments, starts and a finished
        file system resize in green.

    Raises
    ------
    ValueError
        When a row does not have four items.

    Examples
    --------
    >>> t = attach_timeline_table([(80.0, "Pod/db-x", "Event FailedAttachVolume", 'Multi-Attach error for volume "pv-db"')])
    >>> "Multi-Attach" in t and "80" in t
    True
    """
    out, colours = [], []
    for t, who, what, detail in rows:
        out.append([f"{t:g}", who, what, detail])
        colours.append(_BAD if ("Failed" in what or "force" in detail or "NotReady" in what) else
                       _GOOD if what in ("AttachVolume", "Event SuccessfulAttachVolume", "Event Started",
                                         "Event FileSystemResizeSuccessful") else None)
    return _table(["time (s)", "who", "what", "detail"], out, caption=caption, row_css=_backgrounds(colours))


def _box_reach(text: str, dx: float, dy: float) -> float:
    """Points from a label box's centre to its edge in the direction ``(dx, dy)`` (8 pt text, 0.4 em pad)."""
    import math

    lines = text.split("\n")
    half_w = 2.3 * max(len(x) for x in lines) + 4.0
    half_h = 5.0 * len(lines) + 4.0
    norm = math.hypot(dx, dy) or 1.0
    cos, sin = abs(dx) / norm, abs(dy) / norm
    return min(half_w / cos if cos else math.inf, half_h / sin if sin else math.inf)


def storage_graph_figure(g: nx.DiGraph, *, title: str | None = None) -> Figure:
    """:func:`~kubenotes.sim.storage.storage_graph` drawn with a fixed layout: one column per layer of objects.

    Pod and Node on the left, then the claim, the volume (with its
    VolumeAttachment below it), then the StorageClass and CSIDriver; edges
    are labelled with the field that holds the reference.

    Parameters
    ----------
    g : networkx.DiGraph
        Nodes with a ``kind`` attribute; edges with a ``label``.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        9.6 x 4 inches.

    Raises
    ------
    KeyError
        When a node has no ``kind``.

    Examples
    --------
    >>> g = nx.DiGraph()
    >>> g.add_node("Pod/p", kind="Pod", name="p"); g.add_node("Node/n", kind="Node", name="n")
    >>> g.add_edge("Pod/p", "Node/n", label="spec.nodeName")
    >>> sorted(" ".join(t.get_text().split()) for t in storage_graph_figure(g).axes[0].texts if t.get_text())
    ['Node n', 'Pod p', 'spec.nodeName']
    """
    pos: dict[str, tuple[float, float]] = {}
    seen: dict[str, int] = {}
    for nid in sorted(g.nodes):
        kind = g.nodes[nid]["kind"]
        x, y = _KIND_PLACE.get(kind, (4.9, -0.5))
        k = seen.get(kind, 0)
        seen[kind] = k + 1
        pos[nid] = (x, y - 0.35 * k)
    fig = detached_figure(9.6, 4.0)
    ax = fig.add_subplot()
    boxes = {}
    for nid, (x, y) in pos.items():
        kind, name = g.nodes[nid]["kind"], g.nodes[nid].get("name", nid)
        label = f"{kind}\n{name if len(name) <= 26 else name[:12] + '…' + name[-10:]}"
        boxes[nid] = ax.text(x, y, label, ha="center", va="center", fontsize=8, zorder=3,
                             bbox={"boxstyle": "round,pad=0.4", "fc": _KIND_COLOURS.get(kind, "#eeeeee"),
                                   "ec": "#546e7a"})
    ys = [y for _, y in pos.values()] or [0.0]
    y_lo, y_hi = min(ys) - 0.4, max(ys) + 0.4
    pt_x, pt_y = 9.6 * 72 / 6.1, 3.4 * 72 / (y_hi - y_lo)  # points per data unit (approximate: axes ~ figure)
    for a, b, data in g.edges(data=True):
        (xa, ya), (xb, yb) = pos[a], pos[b]
        dx, dy = (xb - xa) * pt_x, (yb - ya) * pt_y
        ax.annotate("", xy=(xb, yb), xytext=(xa, ya), zorder=2,
                    arrowprops={"arrowstyle": "-|>", "color": "#607d8b",
                                "shrinkA": _box_reach(boxes[a].get_text(), dx, dy) + 3,
                                "shrinkB": _box_reach(boxes[b].get_text(), dx, dy) + 3})
        (xa, ya), (xb, yb) = pos[a], pos[b]
        label = str(data.get("label", ""))
        if len(label) > 22 and "]." in label:
            label = label.replace("].", "].\n", 1)
        ax.text((xa + xb) / 2, (ya + yb) / 2 + (0.2 if ya == yb else 0.0), label, ha="center",
                va="bottom" if ya == yb else "center", fontsize=7, color="#37474f", zorder=4,
                bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.85})
    ax.set_xlim(-0.5, 5.6)
    ax.set_ylim(y_lo, y_hi)
    ax.axis("off")
    ax.set_title(title or "The objects behind one pod's volume (arrows: the field that refers)", fontsize=10)
    return fig
