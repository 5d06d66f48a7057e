"""The one wiring pattern every chapter's widget uses: controls -> a library call -> a live output.

A chapter builds its controls (sliders, dropdowns, toggles) and passes a
callback that only calls the library and returns what to show (a matplotlib
Figure, an HTML/str table, any displayable). :func:`live_panel` runs the
callback once for the default state and again on every change.

The output widget carries the CSS class ``kubenotes-live-output`` and the
controls ``kubenotes-control``, which the browser tests use to move a slider
and check that the output changed.

Speed (issue #11, "instant widgets"; ``benchmarks/widget_latency.py``
measures it): under Jupyter's inline backend a Figure is drawn once on an Agg
canvas and cut to the tight box (:func:`figure_png`) instead of the backend's
two passes, and :func:`memoise_update` lets a panel whose callback is a pure
function of its controls answer a state seen before at once. Once a panel is
drawn, :func:`settle_heap` takes the chapter's objects out of the garbage
collector's later passes, which otherwise scan them all inside a re-render.
"""

from __future__ import annotations

import base64
import gc
import io
import weakref
from typing import Any, Callable, Mapping

import ipywidgets as widgets
import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import HTML, display
from matplotlib.backend_bases import FigureCanvasBase
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.image import imsave

__all__ = ["LIVE_OUTPUT_CLASS", "CONTROL_CLASS", "live_panel", "memoise_update", "show", "figure_png", "settle_heap",
           "BlitPNG", "png_display", "int_slider"]

LIVE_OUTPUT_CLASS = "kubenotes-live-output"
CONTROL_CLASS = "kubenotes-control"


def _inline_png_defaults() -> bool:
    """True when Jupyter shows Figures as the inline backend's default PNG (``bbox_inches="tight"``)."""
    try:
        from IPython import get_ipython
        from matplotlib_inline.config import InlineBackend
    except ImportError:  # pragma: no cover - both come with ipykernel
        return False
    shell = get_ipython()
    if shell is None or not InlineBackend.initialized():
        return False
    cfg = InlineBackend.instance()
    png = shell.display_formatter.formatters["image/png"]
    return (cfg.figure_formats == {"png"} and cfg.print_figure_kwargs == {"bbox_inches": "tight"}
            and png.enabled and png.lookup_by_type(plt.Figure) is not None
            and mpl.rcParams["savefig.dpi"] == "figure" and mpl.rcParams["savefig.transparent"] is False
            and mpl.rcParams["savefig.facecolor"] == "auto" and mpl.rcParams["savefig.edgecolor"] == "auto"
            and mpl.rcParams["savefig.bbox"] is None)


def figure_png(fig: plt.Figure) -> bytes | None:
    """The PNG the inline backend shows for ``fig``, drawn in one pass instead of two.

    Jupyter's inline backend prints a Figure with ``bbox_inches="tight"``:
    one draw without rendering (layout and text extents) to find the tight
    box, then a second draw into a canvas of that box. Here the figure is
    drawn once on an Agg canvas (running its layout engine), and the pixels
    are cut to the same tight box padded by :rc:`savefig.pad_inches`, with
    the face colour where the box reaches past the figure. That takes about
    a fifth less time; the picture is the same up to a sub-pixel shift.

    Parameters
    ----------
    fig : matplotlib.figure.Figure

    Returns
    -------
    bytes or None
        PNG bytes; None when the tight box holds artists outside the figure
        (the two-pass print is then the faithful one), when the figure is
        empty or when it belongs to an interactive backend whose canvas is not Agg.

    Examples
    --------
    >>> from kubenotes.viz.graphs import detached_figure
    >>> fig = detached_figure(3, 2)
    >>> fig.set_layout_engine("constrained")
    >>> _ = fig.add_subplot().plot([0, 1], [0, 1])
    >>> figure_png(fig)[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
    True
    """
    canvas = _agg_canvas(fig)
    if canvas is None or (not fig.axes and not fig.lines):
        return None
    canvas.draw()
    crop = _tight_crop(fig, canvas)
    if crop is None:
        return None
    return _crop_png(np.asarray(canvas.buffer_rgba()), crop)


def _agg_canvas(fig: plt.Figure) -> FigureCanvasAgg | None:
    """``fig``'s Agg canvas (one is attached to a closed pyplot figure); None for another backend's canvas."""
    canvas = fig.canvas
    if type(canvas) is FigureCanvasBase:  # a closed pyplot figure: print_figure would switch to Agg as well
        canvas = FigureCanvasAgg(fig)
    return canvas if isinstance(canvas, FigureCanvasAgg) else None


def _tight_crop(fig: plt.Figure, canvas: FigureCanvasAgg) -> tuple[int, int, int, int, np.ndarray] | None:
    """Where the inline backend's tight, padded box lies in the drawn canvas: (row0, col0, height, width, face RGBA).

    None when the tight box reaches outside the figure (only the two-pass print is faithful then).
    """
    renderer = canvas.get_renderer()
    dpi = fig.dpi
    tight = fig.get_tightbbox(renderer)
    width_px, height_px = fig.bbox.width, fig.bbox.height
    if tight.x0 * dpi < -0.5 or tight.y0 * dpi < -0.5 or tight.x1 * dpi > width_px + 0.5 or tight.y1 * dpi > height_px + 0.5:
        return None
    box = tight.padded(mpl.rcParams["savefig.pad_inches"])
    out_w, out_h = int(box.width * dpi), int(box.height * dpi)  # as the printed canvas: truncated
    # The printed canvas puts the box's lower-left corner at its origin (Agg counts rows from the top).
    col0 = int(round(box.x0 * dpi))
    row0 = int(round(height_px - box.y0 * dpi)) - out_h
    face = (np.array(mpl.colors.to_rgba(fig.get_facecolor())) * 255).round().astype(np.uint8)
    return row0, col0, out_h, out_w, face


def _crop_png(pixels: np.ndarray, crop: tuple[int, int, int, int, np.ndarray]) -> bytes:
    """The PNG of ``pixels`` (RGBA rows from the top) cut to ``crop``, face colour where it reaches past them."""
    row0, col0, out_h, out_w, face = crop
    out = np.empty((out_h, out_w, 4), dtype=np.uint8)
    out[:] = face
    src_r0, src_c0 = max(row0, 0), max(col0, 0)
    src_r1, src_c1 = min(row0 + out_h, pixels.shape[0]), min(col0 + out_w, pixels.shape[1])
    out[src_r0 - row0:src_r1 - row0, src_c0 - col0:src_c1 - col0] = pixels[src_r0:src_r1, src_c0:src_c1]
    buf = io.BytesIO()
    imsave(buf, out, format="png")  # as Agg's print_png: Pillow, matplotlib's PNG metadata
    return buf.getvalue()


class BlitPNG:
    """PNGs of a Figure in which only a few artists change: the rest is drawn once (blitting).

    The changing artists are marked ``animated`` (left out of a full draw)
    and out of the layout; the figure is drawn once without them and its
    pixels kept. :meth:`png` then puts those pixels back, draws only the
    changing artists in their current state on top, and cuts the tight box
    as :func:`figure_png` does.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        Built completely, changing artists included.
    artists : sequence of matplotlib.artist.Artist
        The artists a caller will change between PNGs.

    Raises
    ------
    ValueError
        When the figure has no Agg canvas or its tight box reaches outside it.

    Notes
    -----
    The changing artists are drawn after everything else, so where one
    crosses an artist drawn above it in a full draw (an axis spine), it is
    now on top; the picture is otherwise the full draw's.

    Examples
    --------
    >>> from kubenotes.viz.graphs import detached_figure
    >>> fig = detached_figure(3, 2)
    >>> fig.set_layout_engine("constrained")
    >>> ax = fig.add_subplot()
    >>> _ = ax.plot([0, 1], [0, 1])
    >>> marker = ax.axvline(0.2, ls="--")
    >>> blit = BlitPNG(fig, [marker])
    >>> first = blit.png(); marker.set_xdata([0.7, 0.7]); second = blit.png()
    >>> first[:8] == b"\\x89PNG\\r\\n\\x1a\\n", first != second
    (True, True)
    """

    def __init__(self, fig: plt.Figure, artists: Any):
        canvas = _agg_canvas(fig)
        if canvas is None:
            raise ValueError("BlitPNG needs a Figure drawn with Agg")
        self.figure, self.artists, self._canvas = fig, list(artists), canvas
        for a in self.artists:
            a.set_animated(True)
            a.set_in_layout(False)
        self.redraw()

    def redraw(self) -> None:
        """Draw the figure again without the changing artists (after some other artist changed).

        Raises
        ------
        ValueError
            When the figure's tight box reaches outside it.
        """
        canvas, fig = self._canvas, self.figure
        canvas.draw()
        crop = _tight_crop(fig, canvas)
        if crop is None:
            raise ValueError("the figure's tight box reaches outside it")
        self._crop = crop
        self._background = canvas.copy_from_bbox(fig.bbox)

    def png(self) -> bytes:
        """The figure with the changing artists as they are now, as PNG bytes."""
        canvas = self._canvas
        canvas.restore_region(self._background)
        for a in self.artists:
            self.figure.draw_artist(a)
        return _crop_png(np.asarray(canvas.buffer_rgba()), self._crop)


def png_display(png: bytes) -> Any:
    """A displayable showing ``png`` as a notebook shows a Figure (``image/png``), e.g. from :meth:`BlitPNG.png`."""
    return _Rendered({"image/png": base64.b64encode(png).decode("ascii"), "text/plain": "<Figure>"})


# Figure -> its PNG (base64) as last drawn; reused while matplotlib has not marked the figure stale.
_PNG_OF: "weakref.WeakKeyDictionary[plt.Figure, str]" = weakref.WeakKeyDictionary()


class _Rendered:
    """A Figure already turned into the MIME bundle the notebook shows (kept by :func:`memoise_update`)."""

    def __init__(self, bundle: dict[str, Any]) -> None:
        self.bundle = bundle

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return self.bundle


def _figure_bundle(fig: plt.Figure) -> dict[str, Any] | None:
    """What the inline backend shows for ``fig``, drawn once (:func:`figure_png`); None outside the inline backend.

    A Figure displayed again with no artist changed since (matplotlib's
    ``stale`` flag, which any setter raises) gets the PNG drawn last time.
    """
    if not _inline_png_defaults():
        return None
    data = _PNG_OF.get(fig) if not fig.stale else None
    if data is None:
        png = figure_png(fig)
        if png is None:  # artists outside the figure: the backend's own two-pass print
            from IPython import get_ipython

            bundle, _metadata = get_ipython().display_formatter.format(fig)
            data = bundle.get("image/png")
            if not isinstance(data, str):
                return bundle
        else:
            data = base64.b64encode(png).decode("ascii")
        _PNG_OF[fig] = data
        # Measuring the tight box may raise the flag without changing anything; any later
        # artist change raises it again (its stale callback propagates to the figure).
        fig.stale = False
    return {"image/png": data, "text/plain": repr(fig)}


def _display_figure(fig: plt.Figure) -> None:
    """Display ``fig`` as the inline backend would, rendering it once when that is equivalent."""
    bundle = _figure_bundle(fig)
    if bundle is None:
        display(fig)
    else:
        display(bundle, raw=True)


def _rendered(result: Any) -> Any:
    """``result`` with each Figure replaced by its shown bundle (and closed), for keeping in a memo."""
    if isinstance(result, (list, tuple)):
        return [_rendered(r) for r in result]
    if isinstance(result, plt.Figure):
        bundle = _figure_bundle(result)
        if bundle is not None:
            plt.close(result)
            return _Rendered(bundle)
    return result


def show(result: Any) -> None:
    """Display a callback's result: Figures are shown then closed, strings rendered as HTML."""
    if result is None:
        return
    if isinstance(result, (list, tuple)):
        for r in result:
            show(r)
        return
    if isinstance(result, plt.Figure):
        _display_figure(result)
        plt.close(result)
    elif isinstance(result, str):
        display(HTML(result))
    else:
        display(result)


def memoise_update(update: Callable[..., Any], maxsize: int = 32) -> Callable[..., Any]:
    """``update`` remembering its last ``maxsize`` results by the control values.

    For a panel whose callback is a pure function of its controls (and of
    inputs fixed when the panel was built): moving a slider back to a value
    seen before shows the kept result again at once. In Jupyter a Figure is
    kept as the PNG shown (not as the Figure), which keeps the memo small.

    Parameters
    ----------
    update : callable(**values) -> displayable
    maxsize : int
        Results kept (least recently used dropped first).

    Returns
    -------
    callable(**values) -> displayable
        Calls ``update`` for values not seen (or not hashable); the result is
        for :func:`show` (Figures may come back as their rendered PNG).

    Examples
    --------
    >>> calls = []
    >>> f = memoise_update(lambda n: calls.append(n) or [n])
    >>> f(n=1) is f(n=1), calls
    (True, [1])
    """
    from collections import OrderedDict

    memo: OrderedDict[Any, Any] = OrderedDict()

    def memoised(**values: Any) -> Any:
        try:
            key = tuple(sorted(values.items()))
            hash(key)
        except TypeError:
            return update(**values)
        if key in memo:
            memo.move_to_end(key)
            return memo[key]
        result = memo[key] = _rendered(update(**values))
        if len(memo) > maxsize:
            memo.popitem(last=False)
        return result

    return memoised


def int_slider(description: str, value: int, lo: int, hi: int, step: int = 1, *,
               style: Mapping[str, str] | None = None, layout: widgets.Layout | None = None) -> widgets.IntSlider:
    """An integer slider that reports its value when released, as every chapter's controls do.

    ``continuous_update=False``: a panel reruns its callback once per move,
    not for every value the handle passes over.

    Parameters
    ----------
    description : str
        The label left of the slider.
    value, lo, hi, step : int
        Start value, range and step.
    style : mapping of str to str, optional
        The slider's style (e.g. ``{"description_width": "initial"}``).
    layout : ipywidgets.Layout, optional
        Its layout (e.g. a fixed width).

    Returns
    -------
    ipywidgets.IntSlider

    Raises
    ------
    traitlets.TraitError
        When a value is not an integer.

    Examples
    --------
    >>> s = int_slider("pods", 110, 10, 400, 10)
    >>> s.value, s.max, s.continuous_update
    (110, 400, False)
    """
    extra: dict[str, Any] = {}
    if style is not None:
        extra["style"] = style
    if layout is not None:
        extra["layout"] = layout
    return widgets.IntSlider(value=value, min=lo, max=hi, step=step, description=description, continuous_update=False,
                             **extra)


def live_panel(update: Callable[..., Any], controls: Mapping[str, widgets.Widget], *, columns: int = 2) -> widgets.VBox:
    """Wire ``controls`` to ``update`` and return the panel to display.

    Parameters
    ----------
    update : callable(**values) -> displayable
        Called with each control's current ``value`` under its key; it should
        only call kubenotes and return what to show.
    controls : mapping of str to ipywidgets.ValueWidget
        Keyword name -> control, in display order.
    columns : int
        Controls per row.

    Returns
    -------
    ipywidgets.VBox
        Controls on top, the live output below; already rendered once.
    """
    out = widgets.Output()
    out.add_class(LIVE_OUTPUT_CLASS)
    for c in controls.values():
        c.add_class(CONTROL_CLASS)

    def refresh(_change: Any = None) -> None:
        values = {k: c.value for k, c in controls.items()}
        with out:
            out.clear_output(wait=True)
            show(update(**values))

    for c in controls.values():
        c.observe(refresh, names="value")
    items = list(controls.values())
    rows = [widgets.HBox(items[i:i + columns]) for i in range(0, len(items), columns)]
    refresh()
    settle_heap()
    return widgets.VBox([*rows, out])


def settle_heap() -> None:
    """Collect garbage once, then keep everything alive now out of later collections (``gc.freeze``).

    A chapter holds large model state (a cluster's store, a trace's replays)
    built before its panels. Each full collection of Python's cyclic garbage
    collector scans all of it, and one landing inside a re-render cost up to
    0.3 s there (``benchmarks/widget_latency.py``, "gc max"). Frozen objects
    are still freed by reference counting; only reference cycles among them
    that become garbage wait, and the next call (the next panel) unfreezes,
    collects them and freezes again, so they cannot pile up over a session.
    """
    gc.unfreeze()
    gc.collect()
    gc.freeze()
