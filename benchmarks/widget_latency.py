"""How fast every chapter's live panel re-renders when a learner moves a control.

For each chapter (``notebooks/*.ipynb``) a child process runs the code cells
headless, in order, in an IPython shell whose working directory is the
notebook's folder (as nbval's kernel does), with the kernel's own matplotlib
set-up (``%matplotlib inline``: every displayed Figure is rendered to PNG on an
Agg canvas with ``bbox_inches="tight"``, which is what the browser receives).

Right after the cell that builds a live panel
(:func:`kubenotes.viz.widgets.live_panel`, or any ipywidgets control with a
``value`` observer), each of its controls is driven the way a slider is: its
``value`` is set to other values in its range, up the range and back down
(revisiting values, as dragging does), then back to where it started, so the
rest of the notebook runs unchanged. Each assignment runs the observer
synchronously; its wall time (library call, display, PNG rendering) is one
re-render. The table also gives the median CPU time of the process (which
other load on the machine does not inflate) and the median over the states of
the panel shown for the first time ("new med": a panel that memoises its
results answers a revisited state at once, a new one not), and the longest
time the cyclic garbage collector took within one re-render ("gc max": a
full collection in a kernel holding the whole chapter's objects). The first draw is the time of the ``live_panel`` call (building the
controls and rendering the default state once).

The table per chapter gives, per control, the first draw, the median, p95 and
maximum of the re-renders; the closing list names the controls over the budget
of issue #11 (median 100 ms, p95 250 ms).

Usage::

    python benchmarks/widget_latency.py [--chapter 03.00 --chapter qos] [--steps 6]
                                        [--json out.json] [--compare before.json]

``--chapter`` keeps chapters whose file name contains the text (repeatable);
``--steps`` is the number of distinct values a slider visits on the way up;
``--json`` writes the raw figures; ``--compare`` prints a before/after table
against an earlier ``--json`` file.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
BUDGET_MEDIAN_MS = 100.0
BUDGET_P95_MS = 250.0


# --------------------------------------------------------------------------- child: one chapter


def _percentile(samples: list[float], q: float) -> float:
    """Linear-interpolated percentile (as numpy's default) of a non-empty list."""
    xs = sorted(samples)
    if len(xs) == 1:
        return xs[0]
    pos = (len(xs) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def _slider_values(w: Any, steps: int) -> list[Any]:
    """Up to ``steps`` values spread over a slider's range, snapped to its step, without the current one."""
    lo, hi, step, cur = w.min, w.max, w.step or 1, w.value
    n_values = int(round((hi - lo) / step)) + 1
    k = min(steps + 1, n_values)
    picks = []
    for i in range(k):
        v = lo + round((hi - lo) * i / max(k - 1, 1) / step) * step
        v = type(cur)(v) if isinstance(cur, int) else float(v)
        v = min(max(v, lo), hi)
        if v != cur and v not in picks:
            picks.append(v)
    return picks


def _drive_sequence(w: Any, steps: int) -> list[Any] | None:
    """The values a learner would set on control ``w``, ending at its current value; None if not drivable."""
    import ipywidgets as widgets

    cur = w.value
    if isinstance(w, (widgets.IntSlider, widgets.FloatSlider, widgets.BoundedIntText, widgets.BoundedFloatText)):
        up = _slider_values(w, steps)
        if not up:
            return None
        return up + up[::-1][1:] + [cur]
    if isinstance(w, (widgets.SelectMultiple, widgets.SelectionRangeSlider)) and hasattr(w, "options"):
        if isinstance(w, widgets.SelectionRangeSlider):
            return None
        labels = list(w.value)
        opts = [o[1] if isinstance(o, tuple) else o for o in w.options]
        seq = []
        for o in opts:
            nxt = tuple(x for x in labels if x != o) if o in labels else tuple(labels) + (o,)
            if nxt:
                seq.append(nxt)
        return (seq + seq[::-1] + [tuple(cur)]) if seq else None
    if hasattr(w, "options") and isinstance(w, widgets.widget_selection._Selection):
        opts = [o[1] if isinstance(o, tuple) else o for o in w.options]
        others = [o for o in opts if o != cur]
        if not others:
            return None
        return others + [cur] + others + [cur]
    if isinstance(w, (widgets.Checkbox, widgets.ToggleButton)):
        return [not cur, cur, not cur, cur, not cur, cur]
    return None


class _Publisher:
    """Display publisher that formats every object (so Figures become PNGs) and keeps only counts."""

    def __init__(self) -> None:
        self.outputs = 0
        self.pngs = 0

    def publish(self, data, metadata=None, source=None, *, transient=None, update=False, **kw) -> None:  # noqa: D401
        self.outputs += 1
        if "image/png" in data:
            self.pngs += 1

    def clear_output(self, wait: bool = False) -> None:
        pass

    # IPython calls these on its display publisher.
    def set_parent(self, *a, **k) -> None:
        pass

    @property
    def is_publishing(self) -> bool:
        return False


def _run_chapter(nb_path: Path, steps: int) -> dict[str, Any]:
    """Run one notebook's cells, drive each live panel as it appears; return the figures."""
    os.environ.pop("MPLBACKEND", None)
    os.chdir(nb_path.parent)
    sys.path.insert(0, str(nb_path.parent))
    import nbformat
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shell.enable_gui = lambda gui=None: None  # a terminal-less shell has no GUI loop; inline needs none
    shell.enable_matplotlib("inline")
    pub = _Publisher()
    shell.display_pub = pub
    shell.displayhook.write_format_data = lambda *a, **k: None  # cell results: formatted, then dropped

    import ipywidgets as widgets
    from ipywidgets.widgets import widget as widget_mod
    import kubenotes.viz.widgets as kw_widgets

    panels: list[dict[str, Any]] = []  # {"name", "first_draw_ms", "controls": {key: widget}}
    original = kw_widgets.live_panel

    def recording_live_panel(update, controls, **kwargs):
        frame, caller = sys._getframe(1), "live_panel"
        while frame is not None:  # the public builder, e.g. scale_panel (not a private helper like _panel)
            name = frame.f_code.co_name
            if not name.startswith("_") and not name.startswith("<"):
                caller = name
                break
            frame = frame.f_back
        t0 = time.perf_counter()
        box = original(update, controls, **kwargs)
        panels.append({"name": caller, "first_draw_ms": (time.perf_counter() - t0) * 1e3,
                       "controls": dict(controls), "driven": False})
        return box

    kw_widgets.live_panel = recording_live_panel

    nb = nbformat.read(nb_path, as_version=4)
    rows: list[dict[str, Any]] = []
    errors: list[str] = []
    seen_widgets: set[str] = set(widget_mod._instances)
    t_cells = time.perf_counter()

    def observed(w: Any) -> bool:
        notifiers = getattr(w, "_trait_notifiers", {}).get("value", {})
        return bool(notifiers.get("change") or notifiers.get("All"))

    import gc

    gc_ms = [0.0]  # time spent in the cyclic garbage collector, summed
    gc_start = [0.0]

    def on_gc(phase: str, info: dict) -> None:
        if phase == "start":
            gc_start[0] = time.perf_counter()
        else:
            gc_ms[0] += (time.perf_counter() - gc_start[0]) * 1e3

    gc.callbacks.append(on_gc)

    def state_of(controls: dict[str, Any]) -> Any:
        try:
            key = tuple((k, c.value) for k, c in controls.items())
            hash(key)
            return key
        except TypeError:
            return None

    def drive(name: str, key: str, w: Any, first_draw_ms: float | None, cell: int,
              controls: dict[str, Any], seen: set) -> None:
        seq = _drive_sequence(w, steps)
        row = {"panel": name, "control": key, "kind": type(w).__name__, "cell": cell,
               "first_draw_ms": first_draw_ms, "samples_ms": [], "cpu_ms": [], "gc_ms": [], "new": [],
               "error": None}
        if seq is None:
            row["error"] = "not drivable"
            rows.append(row)
            return
        pngs_before = pub.pngs
        for v in seq:
            g0, c0, t0 = gc_ms[0], time.process_time(), time.perf_counter()
            try:
                w.value = v
            except Exception as exc:  # the panel's own failure is a finding, not a crash of the benchmark
                row["error"] = f"{type(exc).__name__}: {exc}"
                break
            row["samples_ms"].append((time.perf_counter() - t0) * 1e3)
            row["cpu_ms"].append((time.process_time() - c0) * 1e3)
            row["gc_ms"].append(gc_ms[0] - g0)
            state = state_of(controls)  # a state of the whole panel not shown before, or a revisit
            row["new"].append(state is None or state not in seen)
            seen.add(state)
        row["figure"] = pub.pngs > pngs_before
        rows.append(row)

    for cell_no, cell in enumerate(c for c in nb.cells if c.cell_type == "code"):
        n_panels = len(panels)
        result = shell.run_cell(cell.source, store_history=False, silent=False)
        if not result.success:
            err = result.error_in_exec or result.error_before_exec
            errors.append(f"cell {cell_no}: {type(err).__name__}: {err}")
        panel_widget_ids = set()
        for p in panels[n_panels:]:
            seen = {state_of(p["controls"])}
            for key, w in p["controls"].items():
                panel_widget_ids.add(w.model_id)
            for key, w in p["controls"].items():
                drive(p["name"], key, w, p["first_draw_ms"], cell_no, p["controls"], seen)
        # Any other control with a value observer (not built through live_panel).
        for wid, w in list(widget_mod._instances.items()):
            if wid in seen_widgets or wid in panel_widget_ids:
                continue
            seen_widgets.add(wid)
            if isinstance(w, widgets.ValueWidget) and not isinstance(w, widgets.Output) and observed(w):
                drive("(observer)", getattr(w, "description", "") or type(w).__name__, w, None, cell_no,
                      {"value": w}, {state_of({"value": w})})
        seen_widgets.update(widget_mod._instances)
    return {"chapter": nb_path.stem, "rows": rows, "errors": errors,
            "run_seconds": time.perf_counter() - t_cells}


# --------------------------------------------------------------------------- parent: all chapters


def _summarise(row: dict[str, Any]) -> dict[str, Any]:
    s = row["samples_ms"]
    out = dict(row)
    out["n"] = len(s)
    out["median_ms"] = statistics.median(s) if s else None
    out["p95_ms"] = _percentile(s, 95) if s else None
    out["max_ms"] = max(s) if s else None
    out["cpu_median_ms"] = statistics.median(row["cpu_ms"]) if row.get("cpu_ms") else None
    fresh = [x for x, new in zip(s, row.get("new", ())) if new]
    out["new_median_ms"] = statistics.median(fresh) if fresh else None
    out["n_new"] = len(fresh)
    out["gc_max_ms"] = max(row["gc_ms"]) if row.get("gc_ms") else None
    out["over_budget"] = bool(s) and (out["median_ms"] > BUDGET_MEDIAN_MS or out["p95_ms"] > BUDGET_P95_MS)
    return out


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:7.1f}"


def _label(r: dict[str, Any]) -> str:
    return f"{r['panel']}.{r['control']}"


def _print_chapter(res: dict[str, Any]) -> None:
    print(f"\n== {res['chapter']}  (cells ran in {res['run_seconds']:.1f} s)")
    for e in res["errors"]:
        print(f"   ERROR {e}")
    if not res["rows"]:
        print("   no live panels")
        return
    print(f"   {'control':44s} {'kind':12s} {'n':>3s} {'first ms':>8s} {'median':>7s} {'p95':>7s} {'max':>7s} {'cpu med':>7s} {'new med':>7s} {'gc max':>7s}  fig")
    for r in map(_summarise, res["rows"]):
        flag = "  OVER" if r["over_budget"] else ""
        note = f"  ({r['error']})" if r["error"] else ""
        fig = "png" if r.get("figure") else "   "
        print(f"   {_label(r):44s} {r['kind']:12s} {r['n']:3d} {_fmt(r['first_draw_ms']):>8s} "
              f"{_fmt(r['median_ms'])} {_fmt(r['p95_ms'])} {_fmt(r['max_ms'])} {_fmt(r['cpu_median_ms'])} "
              f"{_fmt(r['new_median_ms'])} {_fmt(r['gc_max_ms'])}  {fig}{flag}{note}")


def _compare(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> None:
    def index(results):
        return {(res["chapter"], _label(r)): _summarise(r) for res in results for r in res["rows"]}

    b, a = index(before), index(after)
    print("\n== before -> after (ms)")
    print(f"   {'chapter':30s} {'control':40s} {'first':>15s} {'median':>15s} {'p95':>15s} {'cpu median':>15s} "
          f"{'new median':>15s}")
    for key in sorted(set(b) | set(a)):
        rb, ra = b.get(key, {}), a.get(key, {})

        def pair(field):
            return f"{_fmt(rb.get(field)).strip()}->{_fmt(ra.get(field)).strip()}"

        print(f"   {key[0]:30s} {key[1]:40s} {pair('first_draw_ms'):>15s} {pair('median_ms'):>15s} {pair('p95_ms'):>15s} {pair('cpu_median_ms'):>15s} "
              f"{pair('new_median_ms'):>15s}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--chapter", action="append", default=[],
                    help="keep chapters whose file name contains this text (repeatable)")
    ap.add_argument("--steps", type=int, default=6, help="distinct values per slider on the way up (default 6)")
    ap.add_argument("--json", type=Path, help="write the raw figures here")
    ap.add_argument("--compare", type=Path, help="print before/after against this earlier --json file")
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.child:
        res = _run_chapter(args.child.resolve(), args.steps)
        sys.stdout.write("\n@@RESULT@@" + json.dumps(res) + "\n")
        return 0

    chapters = sorted(NOTEBOOKS.glob("*.ipynb"))
    if args.chapter:
        chapters = [p for p in chapters if any(c in p.name for c in args.chapter)]
    if not chapters:
        print("no chapter matches", args.chapter, file=sys.stderr)
        return 2
    results = []
    t0 = time.perf_counter()
    for nb in chapters:
        env = dict(os.environ)
        env.pop("MPLBACKEND", None)
        proc = subprocess.run([sys.executable, __file__, "--child", str(nb), "--steps", str(args.steps)],
                              capture_output=True, text=True, env=env, cwd=nb.parent)
        marker = proc.stdout.rfind("@@RESULT@@")
        if proc.returncode != 0 or marker < 0:
            res = {"chapter": nb.stem, "rows": [], "run_seconds": 0.0,
                   "errors": [f"child failed (rc {proc.returncode}): {proc.stderr.strip()[-800:]}"]}
        else:
            res = json.loads(proc.stdout[marker + len("@@RESULT@@"):])
        results.append(res)
        _print_chapter(res)

    over = [(res["chapter"], s) for res in results for s in map(_summarise, res["rows"]) if s["over_budget"]]
    print(f"\n== over budget (median > {BUDGET_MEDIAN_MS:.0f} ms or p95 > {BUDGET_P95_MS:.0f} ms): {len(over)}")
    for chapter, s in sorted(over, key=lambda x: -x[1]["median_ms"]):
        print(f"   {chapter:34s} {_label(s):44s} median {s['median_ms']:.0f} ms, p95 {s['p95_ms']:.0f} ms")
    errors = [(res["chapter"], e) for res in results for e in res["errors"]]
    for chapter, e in errors:
        print(f"   ERROR in {chapter}: {e}")
    print(f"\n{len(chapters)} chapter(s) in {time.perf_counter() - t0:.0f} s")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    if args.compare:
        _compare(json.loads(args.compare.read_text()), results)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
