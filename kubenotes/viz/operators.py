"""Figures, tables and the widget of chapter 03.02 (operators and CRDs), drawn from :mod:`kubenotes.sim.operators`.

Nothing here reconciles or decides: the mons, their nodes and states, the
quorum and the operator's log all come from a run of the Rook-style operator
(:func:`kubenotes.sim.operators.simulate_mon_failover`); the discovery rows
from :func:`kubenotes.sim.operators.api_resources`.

References
----------
rook/rook@v1.18.0 pkg/operator/ceph/cluster/mon/health.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/kubectl/pkg/cmd/apiresources/apiresources.go
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from matplotlib.figure import Figure

from kubenotes.sim.operators import MonFailoverRun
from kubenotes.viz.controllers import _clear_plotted, _legend_patches, _time_marks
from kubenotes.viz.graphs import detached_figure
from kubenotes.viz.html import Html, table
from kubenotes.viz.html import escape as _e

__all__ = ["api_resources_table", "mon_timeline_figure", "mon_log_table", "mon_failover_panel", "NO_NODE"]

_WIDTH_INCHES = 9.4  # 940 px at the inline backend's 100 dpi
_STATE_COLOURS = {"in quorum": "#2e7d32", "out of quorum": "#ef6c00", "not scheduled": "#9e9e9e"}


def api_resources_table(rows: Sequence[Mapping[str, Any]], caption: str | None = None) -> Html:
    """``kubectl api-resources`` as an HTML table (rows of :func:`kubenotes.sim.operators.api_resources`).

    Parameters
    ----------
    rows : sequence of mapping
        ``name``, ``shortNames``, ``apiVersion``, ``namespaced``, ``kind``.
    caption : str, optional

    Returns
    -------
    Html

    Raises
    ------
    KeyError
        When a row lacks one of the keys.

    Examples
    --------
    >>> t = api_resources_table([{"name": "websites", "shortNames": "ws", "apiVersion": "example.com/v1",
    ...                           "namespaced": True, "kind": "Website"}])
    >>> "NAMESPACED" in t and "websites" in t
    True
    """
    return table(["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"],
                 [[r["name"], r["shortNames"], r["apiVersion"], str(r["namespaced"]).lower(), r["kind"]]
                  for r in rows], caption)


def _segments(run: MonFailoverRun) -> list[tuple[str, str, float, float, str]]:
    """(mon, node, start, end, state): each mon's runs of one state, each sample held until the next."""
    times = sorted({s.t for s in run.samples})
    nxt = {t: (times[i + 1] if i + 1 < len(times) else t) for i, t in enumerate(times)}
    out: list[list[Any]] = []
    last: dict[str, list[Any]] = {}
    for s in run.samples:
        seg = last.get(s.mon)
        if seg is not None and seg[1] == s.node and seg[4] == s.state and seg[3] == s.t:
            seg[3] = nxt[s.t]
            continue
        seg = [s.mon, s.node, s.t, nxt[s.t], s.state]
        out.append(seg)
        last[s.mon] = seg
    return [tuple(x) for x in out]  # type: ignore[misc]


def mon_timeline_figure(run: MonFailoverRun, *, at_seconds: float | None = None,
                        figure: Figure | None = None) -> Figure:
    """Mons per node over virtual time: one bar per mon on its node's row, coloured by its state.

    Parameters
    ----------
    run : MonFailoverRun
    at_seconds : float, optional
        Draw a cursor there (the widget's clock).
    figure : Figure, optional
        A figure made by this function to draw into again (a widget's kept figure).

    Returns
    -------
    matplotlib.figure.Figure
        940 px wide at 100 dpi; nodes from top (``worker-1``) to bottom, the
        node failure and the failover marked.

    Raises
    ------
    ValueError
        When the run has no samples.

    Examples
    --------
    >>> from kubenotes.sim.operators import MonSample
    >>> run = MonFailoverRun(None, "worker-1", 60.0, (MonSample(0, "a", "worker-1", "in quorum"),
    ...                      MonSample(10, "a", "worker-1", "out of quorum")), ())
    >>> fig = mon_timeline_figure(run)
    >>> round(fig.get_size_inches()[0] * fig.dpi) <= 1000
    True
    """
    if not run.samples:
        raise ValueError("the run has no mon samples")
    nodes = sorted({s.node for s in run.samples}
                   | ({run.dead_node} if run.dead_node else set()))
    if figure is None:
        figure = detached_figure(_WIDTH_INCHES, 0.55 * len(nodes) + 1.3)
        figure.add_axes((0.09, 0.22, 0.72, 0.66))
    ax = figure.axes[0]
    _clear_plotted(ax)
    row = {n: i for i, n in enumerate(reversed(nodes))}
    end = max(s.t for s in run.samples)
    for mon, node, start, stop, state in _segments(run):
        y = row[node]
        ax.broken_barh([(start, max(stop - start, 1.0))], (y - 0.3, 0.6), color=_STATE_COLOURS[state], lw=0)
        if stop - start >= 0.06 * end:  # the name inside the bar, or left of a short one
            ax.text(start + 0.005 * end, y, f"mon {mon}", va="center", ha="left", fontsize=8, color="white")
        else:
            ax.text(start - 0.005 * end, y, f"mon {mon}", va="center", ha="right", fontsize=8, color="#1b5e20")
    if run.dead_node and run.down_at_seconds <= end:
        _time_marks(ax, [(run.down_at_seconds, f"{run.dead_node} stops")])
    failover = run.failover_seconds()
    if failover is not None:  # near the right edge: its label on the left of the line
        ax.axvline(failover, color="#c62828", lw=0.9, ls="--")
        ax.annotate("new mon in quorum", (failover, 1.0), xycoords=("data", "axes fraction"), xytext=(-3, -11),
                    textcoords="offset points", fontsize=8, color="#b71c1c", ha="right")
    if at_seconds is not None:
        ax.axvline(at_seconds, color="#1565c0", lw=1.6, gid="cursor")
    ax.set_yticks(range(len(nodes)), list(reversed(nodes)))
    ax.set_ylim(-0.6, len(nodes) - 0.2)
    ax.set_xlim(0, end)
    ax.set_xlabel("virtual time (s)")
    ax.grid(axis="x", alpha=0.25)
    q = run.quorum_at(end)
    ax.set_title(f"Rook mons per node (quorum at t={end:g}s: {','.join(q) or 'none'})", fontsize=10)
    _legend_patches(ax, [{"color": c, "label": k} for k, c in _STATE_COLOURS.items()],
                    loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return figure


def mon_log_table(run: MonFailoverRun, until_seconds: float | None = None, last: int = 6) -> Html:
    """The operator's last ``last`` log lines up to ``until_seconds`` (Rook's wording), as a table.

    Parameters
    ----------
    run : MonFailoverRun
    until_seconds : float, optional
        Only lines at or before this time (default: the whole run).
    last : int
        How many lines.

    Returns
    -------
    Html

    Raises
    ------
    None

    Examples
    --------
    >>> run = MonFailoverRun(None, "worker-1", 60.0, (), ((137.0, 'marking mon "a" out of quorum'),))
    >>> "marking mon" in mon_log_table(run)
    True
    """
    lines = [(t, line) for t, line in run.log if until_seconds is None or t <= until_seconds][-last:]
    return table(["t (s)", "rook-ceph-operator log"], [[f"{t:g}", line] for t, line in lines],
                 f"operator log up to t={until_seconds:g}s" if until_seconds is not None else "operator log")


def _mon_text(run: MonFailoverRun, at_seconds: int) -> list[Any]:
    """The quorum line and the log table under the timeline at ``at_seconds``."""
    q = run.quorum_at(at_seconds)
    mons = run.at(at_seconds)
    verdict = (f"quorum {','.join(q)}: {len(q)} of {len(mons)} mons"
               + (" (a majority: Ceph serves)" if 2 * len(q) > len(mons) else " (no majority: Ceph stops)")) \
        if mons else "no mons yet"
    return [Html(f"<p><b>t={at_seconds}s</b>: {_e(verdict)}</p>"), mon_log_table(run, at_seconds, last=4)]


#: The dropdown's entry for a run where no node dies.
NO_NODE = "none"


def mon_failover_panel(run: MonFailoverRun, at_seconds: int = 800, *,
                       rerun: Callable[[str], MonFailoverRun] | None = None, nodes: Sequence[str] = ()) -> Any:
    """The failover widget: a clock slider over a run (and which node dies); the cursor, the quorum and the log.

    Each run's timeline is drawn once; each clock position only moves its
    cursor (:class:`~kubenotes.viz.widgets.BlitPNG`). With ``rerun`` and
    ``nodes``, a dropdown picks the node that dies: the first choice of a
    node runs the simulation once (``rerun(node)``, a few seconds), later
    choices reuse it.

    Parameters
    ----------
    run : MonFailoverRun
        A finished run (:func:`kubenotes.sim.operators.simulate_mon_failover`); the slider only reads it.
    at_seconds : int
        Start of the slider (0 to the run's end, step 10 s).
    rerun : callable(node) -> MonFailoverRun, optional
        The same simulation with another node dying (``""``: none), e.g.
        ``functools.partial(simulate_mon_failover, down_at_seconds=60, seed=0)``.
    nodes : sequence of str
        The dropdown's nodes (with ``rerun``); :data:`NO_NODE` is added for a run where none dies.

    Returns
    -------
    ipywidgets.VBox

    Raises
    ------
    traitlets.TraitError
        When ``at_seconds`` is outside the run.

    Examples
    --------
    >>> import contextlib, io
    >>> from kubenotes.sim.operators import MonSample
    >>> run = MonFailoverRun(None, "worker-1", 60.0, (MonSample(0, "a", "worker-1", "in quorum"),
    ...                      MonSample(10, "a", "worker-1", "out of quorum")), ())
    >>> with contextlib.redirect_stdout(io.StringIO()):
    ...     p = mon_failover_panel(run, 0)
    >>> [c.description for c in p.children[0].children]
    ['virtual time t (s)']
    >>> calm = MonFailoverRun(None, "", 60.0, (MonSample(0, "a", "worker-1", "in quorum"),
    ...                       MonSample(10, "a", "worker-1", "in quorum")), ())
    >>> with contextlib.redirect_stdout(io.StringIO()):
    ...     p = mon_failover_panel(run, 0, rerun=lambda node: calm, nodes=["worker-1", "worker-2"])
    >>> [row.children[0].description for row in p.children[:2]], p.children[0].children[0].options
    (['node that dies', 'virtual time t (s)'], ('worker-1', 'worker-2', 'none'))
    >>> with contextlib.redirect_stdout(io.StringIO()):  # runs rerun("") once, then shows that run
    ...     p.children[0].children[0].value = "none"
    """
    from kubenotes.viz.controllers import _control
    from kubenotes.viz.widgets import BlitPNG, live_panel, memoise_update, png_display

    drawn: dict[str, tuple[MonFailoverRun, Figure, Any, Any]] = {}

    def _drawn(r: MonFailoverRun) -> tuple[MonFailoverRun, Figure, Any, Any]:
        fig = mon_timeline_figure(r, at_seconds=at_seconds)
        cursor = next(line for line in fig.axes[0].lines if line.get_gid() == "cursor")
        try:
            blit: Any = BlitPNG(fig, [cursor])
        except ValueError:  # a label reaching outside the figure: draw the whole figure each time instead
            blit = None
        return r, fig, cursor, blit

    drawn[run.dead_node or NO_NODE] = _drawn(run)
    end = int(max(s.t for s in run.samples))

    def update(at_seconds: int, dead_node: str = run.dead_node or NO_NODE) -> list[Any]:
        if dead_node not in drawn:
            assert rerun is not None
            drawn[dead_node] = _drawn(rerun("" if dead_node == NO_NODE else dead_node))
        r, fig, cursor, blit = drawn[dead_node]
        cursor.set_xdata([at_seconds, at_seconds])
        if blit is None:
            from IPython.core.pylabtools import print_figure

            return [png_display(print_figure(fig, "png", bbox_inches="tight")), *_mon_text(r, at_seconds)]
        return [png_display(blit.png()), *_mon_text(r, at_seconds)]

    controls: dict[str, Any] = {}
    if rerun is not None and nodes:
        options = [*dict.fromkeys(n for n in nodes if n), NO_NODE]
        first = run.dead_node or NO_NODE
        controls["dead_node"] = _control("node that dies", first if first in options else options[0], options,
                                         label_px=150, width_px=400)
    controls["at_seconds"] = _control("virtual time t (s)", at_seconds, 0, end, 10, label_px=150, width_px=760)
    return live_panel(memoise_update(update), controls, columns=1)
