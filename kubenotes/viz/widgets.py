"""The one wiring pattern every chapter's widget uses: controls -> a library call -> a live output.

A chapter builds its controls (sliders, dropdowns, toggles) and passes a
callback that only calls the library and returns what to show (a matplotlib
Figure, an HTML/str table, any displayable). :func:`live_panel` runs the
callback once for the default state and again on every change.

The output widget carries the CSS class ``kubenotes-live-output`` and the
controls ``kubenotes-control``, which the browser tests use to move a slider
and check that the output changed.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import ipywidgets as widgets
import matplotlib.pyplot as plt
from IPython.display import HTML, display

__all__ = ["LIVE_OUTPUT_CLASS", "CONTROL_CLASS", "live_panel", "show"]

LIVE_OUTPUT_CLASS = "kubenotes-live-output"
CONTROL_CLASS = "kubenotes-control"


def show(result: Any) -> None:
    """Display a callback's result: Figures are shown then closed, strings rendered as HTML."""
    if result is None:
        return
    if isinstance(result, (list, tuple)):
        for r in result:
            show(r)
        return
    if isinstance(result, plt.Figure):
        display(result)
        plt.close(result)
    elif isinstance(result, str):
        display(HTML(result))
    else:
        display(result)


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
    return widgets.VBox([*rows, out])
