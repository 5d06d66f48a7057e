"""The one wiring pattern every chapter's widget uses: controls -> a library call -> a live output.

A chapter builds its controls (sliders, dropdowns, toggles) and passes a
callback that only calls the library and returns what to show (a matplotlib
Figure, an HTML/str table, any displayable). :func:`live_panel` runs the
callback once for the default state and again on every change.

The output widget carries the CSS class ``kubenotes-live-output`` and the
controls ``kubenotes-control``, which the browser tests use to move a slider
and check that the output changed. Every slider of a panel gets a track of at
least :data:`MIN_TRACK_PX` (:func:`fit_slider`). Each panel is registered
(:func:`panels`), so that :func:`sweep_controls`, run in a chapter's kernel by
the browser tests, can move every control to its minimum, middle and maximum
(every option, both states) and check what each state shows: no traceback,
no markup shown as plain text, and an output that changes.

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
import hashlib
import io
import json
import sys
import threading
import time
import weakref
from pathlib import Path
from typing import Any, Callable, Mapping

import ipywidgets as widgets
import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
import traitlets
from IPython.display import HTML, display
from matplotlib.backend_bases import FigureCanvasBase
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.image import imsave

__all__ = ["LIVE_OUTPUT_CLASS", "CONTROL_CLASS", "MIN_TRACK_PX", "live_panel", "memoise_update", "show", "figure_png",
           "settle_heap", "BlitPNG", "png_display", "int_slider", "fit_slider", "sweep_controls", "panels", "raw_markup",
           "RAW_MARKUP"]

LIVE_OUTPUT_CLASS = "kubenotes-live-output"
CONTROL_CLASS = "kubenotes-control"
#: The shortest slider track a panel gets (px): long enough to aim at a value with a mouse.
MIN_TRACK_PX = 150


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
    not for every value the handle passes over. The slider is made wide
    enough for a track of at least :data:`MIN_TRACK_PX` (:func:`fit_slider`).

    Parameters
    ----------
    description : str
        The label left of the slider.
    value, lo, hi, step : int
        Start value, range and step.
    style : mapping of str to str, optional
        The slider's style (e.g. ``{"description_width": "initial"}``).
    layout : ipywidgets.Layout, optional
        Its layout (e.g. a fixed width); a width in px too narrow for the
        track is widened.

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
    >>> s.value, s.max, s.continuous_update, s.layout.width
    (110, 400, False, '326px')
    """
    extra: dict[str, Any] = {}
    if style is not None:
        extra["style"] = style
    if layout is not None:
        extra["layout"] = layout
    return fit_slider(widgets.IntSlider(value=value, min=lo, max=hi, step=step, description=description,
                                        continuous_update=False, **extra))


# How ipywidgets 8 lays out a horizontal slider in JupyterLab (its CSS; tests/browser measures the
# tracks in Chromium): the widget is 300 px wide unless its layout says otherwise; the description
# label is 80 px (style.description_width) plus an 8 px margin; the readout (at least 69 px, with
# its margin) and the track's margins take 88 px more.
_SLIDER_WIDTH_PX = 300
_LABEL_PX = 80
_LABEL_MARGIN_PX = 8
_SLIDER_CHROME_PX = 88
#: Width allowed per character of a description at its natural width ("initial"): 13 px text measured 6.5-8 px.
_CHAR_PX = 8.0


def _px(css: Any) -> float | None:
    """``"120px"`` -> 120.0; None for anything else (unset, %, em, auto)."""
    if isinstance(css, str) and css.endswith("px"):
        try:
            return float(css[:-2])
        except ValueError:
            return None
    return None


def fit_slider(slider: widgets.Widget, min_track_px: int = MIN_TRACK_PX) -> widgets.Widget:
    """Widen a horizontal slider so that its track is at least ``min_track_px`` long.

    The track is what is left of the slider's width after its description
    label and readout. A slider whose width is unset (ipywidgets' 300 px) or
    set in px gets ``layout.width`` raised to what the label, the readout and
    the track need; a label at its natural width (``"initial"``) is counted
    at 8 px per character. A width in other units, a vertical
    slider or any other widget is left as it is.

    Parameters
    ----------
    slider : ipywidgets.Widget
        Usually an ``IntSlider``/``FloatSlider``/``SelectionSlider``/range slider.
    min_track_px : int
        The shortest track wanted.

    Returns
    -------
    ipywidgets.Widget
        ``slider`` itself (its layout possibly changed; a layout shared with
        other widgets widens them too).

    Notes
    -----
    The geometry is ipywidgets 8's JupyterLab CSS; the browser tests measure
    every track and fail below :data:`MIN_TRACK_PX`.

    Examples
    --------
    >>> import ipywidgets as w
    >>> s = fit_slider(w.IntSlider(description="memory (Gi)", style={"description_width": "170px"}))
    >>> s.layout.width
    '416px'
    >>> fit_slider(w.IntSlider(layout=w.Layout(width="600px"))).layout.width
    '600px'
    """
    if "slider" not in type(slider).__name__.lower() or getattr(slider, "orientation", "horizontal") != "horizontal":
        return slider
    width = _SLIDER_WIDTH_PX if slider.layout.width is None else _px(slider.layout.width)
    described = getattr(slider, "description", "") != ""
    label_css = getattr(getattr(slider, "style", None), "description_width", "") or ""
    if not described:
        label = 0.0
    elif label_css == "":
        label = _LABEL_PX + _LABEL_MARGIN_PX
    elif label_css == "initial":
        label = len(slider.description) * _CHAR_PX + _LABEL_MARGIN_PX
    else:
        px = _px(label_css)
        label = None if px is None else px + _LABEL_MARGIN_PX
    if width is None or label is None:
        return slider
    needed = int(-(-(label + _SLIDER_CHROME_PX + min_track_px) // 1))
    if width < needed:
        slider.layout.width = f"{needed}px"
    return slider


class _Panel:
    """A live panel built in this kernel (:func:`live_panel`), kept for :func:`sweep_controls`.

    ``last`` is what its latest refresh showed while ``recording``: the
    control values, the error raised (or None) and the MIME bundles shown.
    """

    def __init__(self, name: str, controls: Mapping[str, widgets.Widget], out: widgets.Output,
                 refresh: Callable[..., None]) -> None:
        self.name, self.controls, self.out, self.refresh = name, dict(controls), out, refresh
        self.recording = False
        self.last: dict[str, Any] | None = None


# The panels built in this kernel, oldest first; weak, so a panel nothing holds any more drops out.
_PANELS: "list[weakref.ref[_Panel]]" = []


def panels() -> list[_Panel]:
    """The live panels built in this kernel (by :func:`live_panel`) and still open, oldest first."""
    alive = [p for p in (r() for r in _PANELS) if p is not None and p.out.comm is not None]
    _PANELS[:] = [weakref.ref(p) for p in alive]
    return alive


def _caller_name() -> str:
    """The first public function outside this module on the stack: the chapter's ``*_panel`` that built a panel."""
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_name
        if frame.f_code.co_filename != __file__ and not name.startswith("_"):
            return "panel" if name.startswith("<") else name
        frame = frame.f_back
    return "panel"


#: Held while a panel redraws. ipykernel 7 can handle a widget's comm messages on a subshell thread
#: while the main shell runs a cell (the browser test's sweep; a learner's slider during Run All), so
#: two redraws could run at once; matplotlib is not thread-safe, and a panel that keeps one Figure
#: between redraws (02.00's hop pictures) had one thread remove the artists another was drawing
#: ("'NoneType' object has no attribute 'dpi'" in CI). Reentrant: an update may move a control.
_DRAWING = threading.RLock()


def _raised_at(e: BaseException) -> str:
    """Where ``e`` was raised: `` (at file:line in name <- kubenotes file:line in name)``.

    The innermost frame, and the innermost one inside kubenotes when that is
    another: a sweep finding seen only in a browser run can then be traced
    without a debugger.

    Examples
    --------
    >>> try:
    ...     {}["x"]
    ... except KeyError as e:
    ...     _raised_at(e).startswith(" (at ")
    True
    """
    import traceback

    frames = traceback.extract_tb(e.__traceback__)
    if not frames:
        return ""

    def name(f: traceback.FrameSummary) -> str:
        return f"{'/'.join(Path(f.filename).parts[-2:])}:{f.lineno} in {f.name}"

    ours = [f for f in frames if "kubenotes" in Path(f.filename).parts]
    where = name(frames[-1])
    if ours and ours[-1] is not frames[-1]:
        where += f" <- {name(ours[-1])}"
    return f" (at {where})"


def live_panel(update: Callable[..., Any], controls: Mapping[str, widgets.Widget], *, columns: int = 2) -> widgets.VBox:
    """Wire ``controls`` to ``update`` and return the panel to display.

    Every slider is widened to a track of at least :data:`MIN_TRACK_PX`
    (:func:`fit_slider`); a row of controls wraps when it is wider than the
    output column. The panel is registered for :func:`sweep_controls`.

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

    Examples
    --------
    >>> import contextlib, io
    >>> s = int_slider("n", 1, 0, 4)
    >>> with contextlib.redirect_stdout(io.StringIO()):  # outside Jupyter the output widget prints
    ...     box = live_panel(lambda n: f"<b>{n}</b>", {"n": s})
    >>> panels()[-1].name, panels()[-1].controls["n"] is s
    ('panel', True)
    """
    out = widgets.Output()
    out.add_class(LIVE_OUTPUT_CLASS)
    for c in controls.values():
        c.add_class(CONTROL_CLASS)
        fit_slider(c)

    def refresh(_change: Any = None) -> None:
        with _DRAWING:  # one redraw at a time, whichever thread the change arrives on (see _DRAWING)
            _refresh()

    def _refresh() -> None:
        values = {k: c.value for k, c in controls.items()}
        with out:
            out.clear_output(wait=True)
            if not panel.recording:
                show(update(**values))
                return
            panel.last = {"values": values, "error": None, "shown": []}
            try:
                result = update(**values)
                panel.last["shown"] = _bundles(result)
                show(result)
            except Exception as e:
                panel.last["error"] = f"{type(e).__name__}: {e}"
                panel.last["raised_at"] = _raised_at(e)
                raise

    panel = _Panel(_caller_name(), controls, out, refresh)
    _PANELS.append(weakref.ref(panel))
    for c in controls.values():
        c.observe(refresh, names="value")
    items = list(controls.values())
    rows = [widgets.HBox(items[i:i + columns], layout=widgets.Layout(flex_flow="row wrap"))
            for i in range(0, len(items), columns)]
    refresh()
    settle_heap()
    box = widgets.VBox([*rows, out])
    box._kubenotes_panel = panel  # the registry is weak: the panel lives as long as its box
    return box


#: What a text/plain output must not hold: markup that was meant to be rendered.
RAW_MARKUP = ("<table", "<div", "<svg")


def _format(obj: Any) -> dict[str, Any]:
    """``obj``'s MIME bundle as IPython's display formatter makes it (the kernel's when there is one)."""
    from IPython import get_ipython
    from IPython.core.formatters import DisplayFormatter

    shell = get_ipython()
    formatter = shell.display_formatter if shell is not None else DisplayFormatter()
    data, _metadata = formatter.format(obj)
    return data


def _bundles(result: Any) -> list[dict[str, Any]]:
    """The MIME bundles :func:`show` displays for ``result``, one per displayed item."""
    if result is None:
        return []
    if isinstance(result, (list, tuple)):
        return [b for r in result for b in _bundles(r)]
    if isinstance(result, plt.Figure):
        bundle = _figure_bundle(result)
        if bundle is None:  # outside the inline backend: the picture itself, for comparing states
            png = figure_png(result)
            bundle = {"image/png": base64.b64encode(png).decode("ascii") if png else "", "text/plain": repr(result)}
        return [bundle]
    if isinstance(result, _Rendered):
        return [result.bundle]
    if isinstance(result, str):
        return [{"text/html": str(result), "text/plain": "<IPython.core.display.HTML object>"}]
    return [_format(result)]


def raw_markup(bundle: Mapping[str, Any]) -> str | None:
    """The markup a plain-text-only output shows as text (``<table``, ``<div``, ``<svg``), or None.

    Parameters
    ----------
    bundle : mapping of MIME type to data

    Returns
    -------
    str or None
        The first raw tag found when ``text/plain`` is the bundle's only
        type; None otherwise.

    Examples
    --------
    >>> raw_markup({"text/plain": "('<table>', '<table>')"}), raw_markup({"text/plain": "x", "text/html": "<table>"})
    ('<table', None)
    """
    if set(bundle) - {"text/plain"}:
        return None
    text = str(bundle.get("text/plain", ""))
    return next((tag for tag in RAW_MARKUP if tag in text), None)


def _digest(bundles: list[dict[str, Any]]) -> str:
    """A fingerprint of what was shown, to tell whether a move changed the output."""
    return hashlib.sha1(json.dumps(bundles, sort_keys=True, default=str).encode()).hexdigest()


def _moves(c: widgets.Widget) -> list[Any]:
    """The values a sweep gives a control, in order, the last being its maximum.

    A slider's minimum, middle and maximum; every option of a dropdown (or
    toggle buttons, radio buttons); a selection slider's first, middle and
    last option; one option then all of a multiple selection; both states of
    a checkbox (checked last). Empty for a control a sweep does not move
    (text fields, buttons, a disabled control).
    """
    from ipywidgets.widgets.widget_selection import _MultipleSelection, _Selection

    if getattr(c, "disabled", False):
        return []
    if isinstance(c, _MultipleSelection):
        opts = list(c._options_values)
        return [] if not opts else [(opts[0],), (opts[-1],), tuple(opts)]
    if isinstance(c, _Selection):
        opts = list(c._options_values)
        if isinstance(c, widgets.SelectionSlider):
            return [opts[0], opts[len(opts) // 2], opts[-1]] if opts else []
        return opts
    if isinstance(getattr(c, "value", None), bool):
        return [False, True]
    if isinstance(c, widgets.FloatLogSlider):
        return [c.base ** c.min, c.base ** ((c.min + c.max) / 2), c.base ** c.max]
    if hasattr(c, "min") and hasattr(c, "max") and hasattr(c, "value"):
        lo, hi, step = c.min, c.max, getattr(c, "step", None) or 1
        mid = lo + round((hi - lo) / 2 / step) * step
        if isinstance(lo, int) and isinstance(hi, int):
            mid = int(mid)
        if isinstance(c.value, tuple):  # a range slider
            return [(lo, mid), (mid, hi), (lo, hi)]
        return [lo, mid, hi]
    return []


def sweep_controls(only: "list[_Panel] | None" = None, *, leave: str = "max") -> dict[str, Any]:
    """Move every control of every panel built in this kernel and check each output shown.

    For each panel of :func:`panels`, each control in turn goes to its
    minimum, middle and maximum value (a slider), to every option (a
    dropdown, toggle buttons), or to both states (a checkbox), and stays at
    the last (its maximum). Each move runs the panel's callback through the
    control's own observer, so the page shows every state as a learner
    moving the control would see it. A move fails when the callback raises,
    or when what it shows is markup displayed as plain text
    (:func:`raw_markup`). A control whose moves all show the same output in
    its turn, again once every control is at its maximum, and again from the
    panel's initial state (the others back where they started), is reported
    as unchanged.

    Controls not built by :func:`live_panel` (plain ipywidgets with value
    observers, found in ipywidgets' registry of widgets) are moved the same
    way; for them only an exception raised by an observer is seen.

    Parameters
    ----------
    only : list of panels, optional
        Sweep these panels (from :func:`panels`) and no other control;
        default: every panel and every other control.
    leave : {"max", "start"}
        Leave every control at its maximum (last option, checked), where the
        sweep ends; or move each back where it started (checked too).

    Returns
    -------
    dict
        ``panels`` (name, controls, moves, seconds per panel), ``moves``,
        ``seconds``, ``other_controls`` (plain ipywidgets moved), and the
        problems, one string each naming panel, control and value:
        ``errors``, ``raw_markup``, ``unchanged``; ``raised_at`` maps an
        error from a panel's update to where it was raised (file:line).

    Raises
    ------
    ValueError
        When ``leave`` is neither "max" nor "start".

    Examples
    --------
    >>> import contextlib, io
    >>> from kubenotes.viz.html import Html
    >>> def view(n, bold):
    ...     if n == 0:
    ...         raise ValueError("n must be positive")
    ...     return Html(f"<b>{n}</b>") if bold else (Html("<i>x</i>"), Html("<i>y</i>"))
    >>> with contextlib.redirect_stdout(io.StringIO()):
    ...     _ = live_panel(view, {"n": int_slider("n", 2, 0, 4), "bold": widgets.Checkbox(value=True)})
    ...     report = sweep_controls(panels()[-1:], leave="start")
    >>> report["errors"][-1], report["unchanged"]
    ('panel: n=0: ValueError: n must be positive', [])
    """
    if leave not in ("max", "start"):
        raise ValueError(f'leave must be "max" or "start", not {leave!r}')
    started = time.perf_counter()
    report: dict[str, Any] = {"panels": [], "moves": 0, "errors": [], "raised_at": {}, "raw_markup": [],
                              "unchanged": [], "other_controls": 0}
    swept: set[int] = set()
    for panel in panels() if only is None else only:
        t0 = time.perf_counter()
        moves = _sweep_panel(panel, report, leave)
        swept.update(id(c) for c in panel.controls.values())
        report["moves"] += moves
        report["panels"].append({"name": panel.name, "controls": len(panel.controls), "moves": moves,
                                 "seconds": round(time.perf_counter() - t0, 3)})
    if only is None:
        report["other_controls"] = _sweep_other_controls(swept, report)
    report["seconds"] = round(time.perf_counter() - started, 3)
    return report


def _sweep_panel(panel: _Panel, report: dict[str, Any], leave: str) -> int:
    """Sweep one panel's controls (see :func:`sweep_controls`); the number of moves made."""
    moves = 0

    def move(key: str, c: widgets.Widget, value: Any) -> str | None:
        """Set one control, check what the panel shows; the digest shown, None when nothing was rendered."""
        nonlocal moves
        if c.value == value:  # no observer fires: what the panel shows now is this value's output
            if panel.last is None:
                panel.refresh()
                return check(f"{panel.name}: {key}={value!r}", panel.last)
            return digest_of(panel.last)
        moves += 1
        panel.last = None
        where = f"{panel.name}: {key}={value!r}"
        try:
            c.value = value
        except Exception as e:  # outside a kernel the Output widget lets the callback's error through
            if panel.last is None or panel.last["error"] is None:
                report["errors"].append(f"{where}: {type(e).__name__}: {e}")
                return None
        return check(where, panel.last)

    def check(where: str, last: dict[str, Any] | None) -> str | None:
        if last is None:
            return None
        if last["error"] is not None:
            report["errors"].append(f"{where}: {last['error']}")
            report["raised_at"][report["errors"][-1]] = last.get("raised_at", "")
            return None
        for b in last["shown"]:
            tag = raw_markup(b)
            if tag is not None:
                report["raw_markup"].append(f"{where}: text/plain output holds {tag}: {str(b['text/plain'])[:80]}")
        return _digest(last["shown"])

    def digest_of(last: dict[str, Any] | None) -> str | None:
        return None if last is None or last["error"] is not None else _digest(last["shown"])

    def sweep(key: str, c: widgets.Widget) -> bool:
        """Move ``c`` through its values; True when they show at least two outputs or a move failed."""
        errors_before = len(report["errors"])
        seen = {move(key, c, v) for v in _moves(c)}
        return len(seen - {None}) >= 2 or len(report["errors"]) > errors_before

    panel.recording = True
    panel.last = None
    try:
        start = {k: c.value for k, c in panel.controls.items()}
        dead = [key for key, c in panel.controls.items() if _moves(c) and not sweep(key, c)]
        # Every control is at its maximum now: a control that changed nothing gets a second try here, and a
        # third from the panel's initial state (05.02's node memory matters only for a Burstable container,
        # which the initial state is and the all-maximum state is not).
        dead = [key for key in dead if not sweep(key, panel.controls[key])]
        if dead:
            for key, c in panel.controls.items():
                move(key, c, start[key])
            for key in dead:
                if not sweep(key, panel.controls[key]):
                    report["unchanged"].append(
                        f"{panel.name}: {key}: the output is the same for each of {_moves(panel.controls[key])!r}")
                move(key, panel.controls[key], start[key])
            if leave != "start":
                for key, c in panel.controls.items():
                    if _moves(c):
                        move(key, c, _moves(c)[-1])
        if leave == "start":
            for key, c in panel.controls.items():
                move(key, c, start[key])
    finally:
        panel.recording = False
    return moves


def _sweep_other_controls(swept: set[int], report: dict[str, Any]) -> int:
    """Move the controls with value observers that no live panel owns; the number moved."""
    from ipywidgets.widgets.widget import _instances

    count = 0
    for w in list(_instances.values()):
        if id(w) in swept or not isinstance(w, widgets.ValueWidget) or isinstance(w, widgets.Output):
            continue
        # A chapter's observers, not the widget class's own (@observe handlers, e.g. a Dropdown's index sync).
        observers = [h for h in w._trait_notifiers.get("value", {}).get("change", [])
                     if not isinstance(h, traitlets.EventHandler)]
        values = _moves(w)
        if not observers or not values:
            continue
        count += 1
        start = w.value
        for v in [*values, start]:
            try:
                w.value = v
            except Exception as e:
                report["errors"].append(f"{type(w).__name__} {getattr(w, 'description', '')!r}={v!r}: "
                                        f"{type(e).__name__}: {e}")
    return count


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
