"""kubenotes.viz.widgets: slider widths, the panel registry and the control sweep the browser tests run."""

import contextlib
import io

import ipywidgets as w
import pytest

from kubenotes.viz.html import Html
from kubenotes.viz.widgets import (MIN_TRACK_PX, _LABEL_MARGIN_PX, _SLIDER_CHROME_PX, fit_slider, int_slider,
                                   live_panel, panels, raw_markup, sweep_controls)


@pytest.fixture(autouse=True)
def no_widgets():
    """Every test starts with no widget open (panels of other tests would be swept too)."""
    w.Widget.close_all()
    yield
    w.Widget.close_all()


def track_px(slider):
    """The track ipywidgets' CSS leaves: width - label (+ margin) - readout and margins (fixed px here)."""
    label = float(slider.style.description_width[:-2]) if slider.style.description_width else 80.0
    return float(slider.layout.width[:-2]) - label - _LABEL_MARGIN_PX - _SLIDER_CHROME_PX


def quiet(f, *a, **k):
    with contextlib.redirect_stdout(io.StringIO()):  # outside a kernel the output widget prints
        return f(*a, **k)


@pytest.mark.parametrize("style", [{}, {"description_width": "170px"}, {"description_width": "235px"}])
def test_fit_slider_leaves_a_track_of_at_least_150_px(style):
    s = fit_slider(w.IntSlider(description="node memory (Gi)", style=style))
    assert track_px(s) >= MIN_TRACK_PX
    assert track_px(s) < MIN_TRACK_PX + 1


def test_fit_slider_counts_a_natural_width_label_by_its_characters():
    a = fit_slider(w.IntSlider(description="x" * 30, style={"description_width": "initial"}))
    b = fit_slider(w.IntSlider(description="x" * 40, style={"description_width": "initial"}))
    assert float(b.layout.width[:-2]) - float(a.layout.width[:-2]) == pytest.approx(10 * 8, abs=1)
    assert float(a.layout.width[:-2]) >= 30 * 8 + MIN_TRACK_PX


def test_fit_slider_keeps_wide_sliders_other_units_and_other_widgets():
    assert fit_slider(w.IntSlider(layout=w.Layout(width="600px"))).layout.width == "600px"
    assert fit_slider(w.IntSlider(layout=w.Layout(width="90%"))).layout.width == "90%"
    assert fit_slider(w.IntSlider(orientation="vertical")).layout.width is None
    assert fit_slider(w.Dropdown(options=["a"])).layout.width is None


def test_int_slider_is_long_enough_by_default():
    assert track_px(int_slider("pods", 110, 10, 400, 10)) >= MIN_TRACK_PX
    narrow = int_slider("x", 1, 0, 4, style={"description_width": "200px"}, layout=w.Layout(width="300px"))
    assert track_px(narrow) >= MIN_TRACK_PX


def test_live_panel_widens_short_sliders_and_wraps_its_rows():
    s = w.IntSlider(value=1, min=0, max=3, description="evictionSoft (Mi, 0=off)", style={"description_width": "170px"})
    box = quiet(live_panel, lambda n: f"<b>{n}</b>", {"n": s})
    assert track_px(s) >= MIN_TRACK_PX
    assert box.children[0].layout.flex_flow == "row wrap"


def build_panel():
    """A panel like a chapter's: the grace period matters only with a soft threshold (05.02's memory panel)."""
    seen = []

    def view(memory_gi, grace_s, soft_mi, mode, audit):
        seen.append((memory_gi, grace_s, soft_mi, mode, audit))
        if memory_gi == 0:
            raise ValueError("node memory must be positive")
        if mode == "tuple":
            return {"before": Html("<table><tr><td>a</td></tr></table>")}  # shown as text/plain
        return Html(f"<p>{memory_gi} {soft_mi} {grace_s if soft_mi else '-'} {mode}</p>")

    controls = {"memory_gi": int_slider("node memory (Gi)", 8, 0, 64),
                "grace_s": int_slider("grace (s)", 60, 0, 300, 30),  # swept while evictionSoft is still off
                "soft_mi": int_slider("evictionSoft (Mi, 0=off)", 0, 0, 2048, 128),
                "mode": w.Dropdown(options=["html", "tuple", "other"], value="html"),
                "audit": w.Checkbox(value=False, description="audit")}
    def panel():
        return live_panel(view, controls)

    return quiet(panel), controls, seen


def test_sweep_moves_each_control_to_min_max_middle_every_option_and_both_states():
    _box, controls, seen = build_panel()
    quiet(sweep_controls, panels()[-1:], leave="start")
    assert {v[0] for v in seen} >= {0, 64, 32}
    assert {v[1] for v in seen} >= {0, 300, 150}
    assert {v[3] for v in seen} == {"html", "tuple", "other"}
    assert {v[4] for v in seen} == {False, True}
    assert {k: c.value for k, c in controls.items()} == {"memory_gi": 8, "grace_s": 60, "soft_mi": 0, "mode": "html",
                                                         "audit": False}


def test_sweep_reports_errors_raw_markup_and_dead_controls_by_panel_control_and_value():
    build_panel()
    report = quiet(sweep_controls, panels()[-1:], leave="start")
    assert report["errors"] == ["panel: memory_gi=0: ValueError: node memory must be positive"]
    assert report["raised_at"][report["errors"][0]].startswith(" (at viz/test_widgets.py:")  # where, for a CI finding
    assert [r.split(": text/plain")[0] for r in report["raw_markup"]] == ["panel: mode='tuple'"]
    # grace_s changes nothing in its turn (evictionSoft off), but does once every control is at its maximum
    assert report["unchanged"] == ["panel: audit: the output is the same for each of [False, True]"]
    assert report["panels"][0]["name"] == "panel" and report["moves"] > 10


def test_sweep_leaves_controls_at_their_maximum():
    _box, controls, _seen = build_panel()
    quiet(sweep_controls, panels()[-1:])
    assert [c.value for c in controls.values()] == [64, 300, 2048, "other", True]


def test_sweep_moves_plain_ipywidgets_with_observers_and_reports_their_errors():
    s = w.IntSlider(value=2, min=0, max=4, description="plain")

    def on_change(change):
        if change["new"] == 0:
            raise ZeroDivisionError("1/0")

    s.observe(on_change, names="value")
    w.IntSlider(value=1, min=0, max=3)  # no observer: not moved
    w.Dropdown(options=["a", "b"])  # only the class's own observers: not moved
    report = sweep_controls()
    assert report["other_controls"] == 1
    assert report["errors"] == ["IntSlider 'plain'=0: ZeroDivisionError: 1/0"]
    assert s.value == 2


def test_panels_lists_open_panels_only():
    box, _controls, _seen = build_panel()
    assert len(panels()) == 1
    box.close()
    panels()[0].out.close()
    assert panels() == []


def test_sweep_rejects_an_unknown_leave():
    with pytest.raises(ValueError, match='leave must be "max" or "start"'):
        sweep_controls(leave="min")


def test_raw_markup_only_in_plain_text_only_outputs():
    assert raw_markup({"text/plain": "(<div>a</div>, 1)"}) == "<div"
    assert raw_markup({"text/plain": "<svg ..."}) == "<svg"
    assert raw_markup({"text/plain": "<table>", "text/html": "<table>"}) is None
    assert raw_markup({"text/plain": "a < b"}) is None


def test_sweep_retries_a_dead_control_from_the_panels_initial_state():
    # As 05.02's node memory: it matters only for a Burstable container, which the initial state is (request <
    # limit) and the all-maximum state is not (request == limit, Guaranteed).
    def view(request_mi, limit_mi, node_gi):
        burstable = 0 < request_mi < limit_mi
        return Html(f"<p>{round(1000 - 1000 * request_mi / (node_gi * 1024)) if burstable else -997}</p>")

    controls = {"request_mi": int_slider("request", 256, 0, 1024, 64),
                "limit_mi": int_slider("limit", 512, 0, 1024, 64),
                "node_gi": int_slider("node", 8, 1, 64, 1)}
    quiet(live_panel, view, controls)
    report = quiet(sweep_controls, panels()[-1:])
    assert report["unchanged"] == [] and report["errors"] == []
    assert [c.value for c in controls.values()] == [1024, 1024, 64]  # left at the maximum all the same


def test_redraws_from_two_threads_never_overlap():
    # JupyterLab sends widget comm messages to a kernel subshell (commsOverSubshells: perCommTarget), which
    # ipykernel 7 runs on its own thread while the main shell runs a cell: two redraws could run at once on
    # one kept Figure (CI: 02.00's sweep, "'NoneType' object has no attribute 'dpi'").
    import threading
    import time

    from kubenotes.viz.widgets import live_panel

    inside, overlaps = [], []

    def update(n):
        if inside:
            overlaps.append(n)
        inside.append(n)
        time.sleep(0.02)
        inside.pop()
        return Html(f"<b>{n}</b>")

    slider = w.IntSlider(value=0, min=0, max=100)
    with contextlib.redirect_stdout(io.StringIO()):
        live_panel(update, {"n": slider})
        threads = [threading.Thread(target=setattr, args=(slider, "value", v)) for v in range(1, 7)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert overlaps == []
