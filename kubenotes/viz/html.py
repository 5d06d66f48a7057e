"""The HTML every chapter's tables are made of: :class:`Html` and one table builder, :func:`table`.

A viz function that returns a table returns an :class:`Html` (a ``str`` that
Jupyter renders as HTML when a cell ends with it). :func:`table` writes the
``<table>`` itself; its options cover the looks the chapters use (text or
HTML cells, a cell's own style, per-row styles and colours, right-aligned
number columns, with or without ``<thead>``/``<tbody>``), and the style
constants below are the shared defaults.

Notes
-----
There is no upstream counterpart: this is the notebooks' presentation layer.
Upstream's tables are kubectl's (``pkg/printers``) and the API server's
server-side Table (``meta.k8s.io/v1 Table``), modelled in
:mod:`kubenotes.apiserver.tables`.

References
----------
https://ipython.readthedocs.io/en/stable/config/integrating.html#rich-display (``_repr_html_``)
"""

from __future__ import annotations

import html
from typing import Any, Iterable, Sequence

__all__ = [
    "Html",
    "TABLE_CSS",
    "TH_CSS",
    "TH_BOTTOM_CSS",
    "TD_CSS",
    "CAPTION_CSS",
    "CAPTION_TIGHT_CSS",
    "escape",
    "namespaced_name",
    "table",
]


class Html(str):
    """A string of HTML that Jupyter renders as HTML when a cell ends with it (``_repr_html_``).

    Examples
    --------
    >>> h = Html("<b>hi</b>")
    >>> h == "<b>hi</b>", h._repr_html_()
    (True, '<b>hi</b>')
    """

    __slots__ = ()

    def _repr_html_(self) -> str:
        return str(self)


#: The ``<table>`` style of every chapter's tables.
TABLE_CSS = "border-collapse:collapse;font-size:12px;margin:4px 0"
#: A header cell.
TH_CSS = "padding:3px 8px;border-bottom:2px solid #888;text-align:left;background:#fafafa"
#: A header cell whose text sits at the bottom (tables with multi-line headers).
TH_BOTTOM_CSS = TH_CSS + ";vertical-align:bottom"
#: A body cell.
TD_CSS = "padding:3px 8px;border-bottom:1px solid #ddd;text-align:left;vertical-align:top"
#: A caption above the table.
CAPTION_CSS = "caption-side:top;text-align:left;font-weight:bold;padding:2px 0"
#: A caption above the table, without padding.
CAPTION_TIGHT_CSS = "caption-side:top;text-align:left;font-weight:bold"


def escape(x: Any, quote: bool = True) -> str:
    """``str(x)`` with ``&``, ``<``, ``>`` and quotes escaped, ready to put inside an element.

    Parameters
    ----------
    x : Any
    quote : bool
        Escape ``"`` and ``'`` too (False keeps them, for element text).

    Returns
    -------
    str

    Examples
    --------
    >>> escape('<a href="x">') , escape(3), escape('"1200m" < 1', quote=False)
    ('&lt;a href=&quot;x&quot;&gt;', '3', '"1200m" &lt; 1')
    """
    return html.escape(str(x), quote=quote)


def namespaced_name(obj: Any) -> str:
    """``namespace/name`` of a lightkube object, ``default`` when it has no namespace: how tables and graphs name a Pod.

    Parameters
    ----------
    obj : lightkube object
        Anything with ``metadata.namespace`` and ``metadata.name``.

    Returns
    -------
    str

    Examples
    --------
    >>> from kubenotes.scheduler.testing import make_pod
    >>> namespaced_name(make_pod("web"))
    'default/web'
    """
    md = obj.metadata
    return f"{md.namespace or 'default'}/{md.name}"


def table(headers: Sequence[Any], rows: Iterable[Sequence[Any]], caption: str | None = None,
          row_css: Sequence[str] | None = None, *, html_cells: bool = False, table_css: str = TABLE_CSS,
          th_css: str = TH_CSS, td_css: str = TD_CSS, css_class: str | None = "kubenotes-table",
          caption_css: str = CAPTION_CSS, escape_caption: bool = True, escape_headers: bool = True,
          quote: bool = True, sections: bool = True, tr_style: bool = False,
          row_colours: Sequence[str | None] | None = None, right_from: int | None = None,
          line_breaks: bool = False) -> Html:
    """An HTML table: a header row, then one row per item of ``rows``.

    Parameters
    ----------
    headers : sequence
        Column titles (escaped text unless ``escape_headers`` is False).
    rows : iterable of sequences
        One sequence of cells per row. Text cells (the default) are
        ``str()``-ed and escaped. With ``html_cells``, a cell is HTML as is,
        or a ``(html, css)`` tuple whose css is added to that cell's style.
    caption : str, optional
        A caption above the table (none when empty).
    row_css : sequence of str, optional
        A ``style`` per row (rows past its end get an empty one); given, every
        ``<tr>`` carries a ``style`` attribute.
    html_cells : bool
        Cells are HTML (see ``rows``).
    table_css, th_css, td_css, caption_css : str
        Styles of the table, header cells, body cells and caption.
    css_class : str or None
        The table's ``class`` (none when None).
    escape_caption, escape_headers : bool
        Escape the caption and headers (False: they are HTML).
    quote : bool
        Escape quotes too when escaping text.
    sections : bool
        Wrap the header row in ``<thead>`` and the rows in ``<tbody>``.
    tr_style : bool
        Give every ``<tr>`` a ``style`` attribute even without ``row_css``.
    row_colours : sequence of str or None, optional
        A text colour per row (None or missing: the default colour).
    right_from : int, optional
        Align the columns from this index on to the right (numbers).
    line_breaks : bool
        Show newlines of text cells as ``<br>``.

    Returns
    -------
    Html

    Raises
    ------
    ValueError
        When a ``(html, css)`` cell does not have two items.

    Notes
    -----
    Styles are inline so that a table looks the same in JupyterLab, in
    nbviewer and in an exported HTML file.

    Examples
    --------
    >>> table(["name", "cpu"], [["a<b", 250]])  # doctest: +NORMALIZE_WHITESPACE
    '<table class="kubenotes-table" style="border-collapse:collapse;font-size:12px;margin:4px 0"><thead><tr><th
    style="padding:3px 8px;border-bottom:2px solid #888;text-align:left;background:#fafafa">name</th><th
    style="padding:3px 8px;border-bottom:2px solid #888;text-align:left;background:#fafafa">cpu</th></tr></thead><tbody><tr><td
    style="padding:3px 8px;border-bottom:1px solid #ddd;text-align:left;vertical-align:top">a&lt;b</td><td
    style="padding:3px 8px;border-bottom:1px solid #ddd;text-align:left;vertical-align:top">250</td></tr></tbody></table>'
    >>> t = table(["x"], [[("<b>1</b>", "color:red")]], html_cells=True, td_css="padding:0")
    >>> t[t.index("<tbody>"):]
    '<tbody><tr><td style="padding:0;color:red"><b>1</b></td></tr></tbody></table>'
    """
    def esc(x: Any) -> str:
        return html.escape(str(x), quote=quote)

    def right(i: int) -> str:
        return ";text-align:right" if right_from is not None and i >= right_from else ""

    cls = f'class="{css_class}" ' if css_class else ""
    out = [f'<table {cls}style="{table_css}">']
    if caption:
        out.append(f'<caption style="{caption_css}">{esc(caption) if escape_caption else caption}</caption>')
    head = "".join(f'<th style="{th_css}{right(i)}">{esc(h) if escape_headers else h}</th>'
                   for i, h in enumerate(headers))
    out.append(f"<thead><tr>{head}</tr></thead><tbody>" if sections else f"<tr>{head}</tr>")
    for i, row in enumerate(rows):
        if tr_style or row_css is not None:
            css = row_css[i] if row_css is not None and i < len(row_css) else ""
            tr = f'<tr style="{css}">'
        else:
            tr = "<tr>"
        colour = row_colours[i] if row_colours and i < len(row_colours) else None
        base = td_css + (f";color:{colour}" if colour else "")
        tds = []
        for j, cell in enumerate(row):
            style = base + right(j)
            if not html_cells:
                text = esc(cell)
                tds.append(f'<td style="{style}">{text.replace(chr(10), "<br>") if line_breaks else text}</td>')
            elif isinstance(cell, tuple):
                if len(cell) != 2:
                    raise ValueError(f"a styled cell is (html, css), not {len(cell)} items")
                content, extra = cell
                tds.append(f'<td style="{style};{extra}">{content}</td>')
            else:
                tds.append(f'<td style="{style}">{cell}</td>')
        out.append(tr + "".join(tds) + "</tr>")
    out.append("</tbody></table>" if sections else "</table>")
    return Html("".join(out))
