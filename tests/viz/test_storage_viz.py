"""The storage chapter's views (kubenotes.viz.storage): binding table and widget, CSI chart, claims, graph."""

from __future__ import annotations

import contextlib
import io

import matplotlib

matplotlib.use("Agg")

import networkx as nx  # noqa: E402

from kubenotes.sim.storage import claim_binding  # noqa: E402
from kubenotes.viz.graphs import MAX_INLINE_WIDTH_PX, inline_png_size  # noqa: E402
from kubenotes.viz.storage import (  # noqa: E402
    attach_timeline_table,
    binding_panel,
    binding_table,
    claims_table,
    csi_sequence_figure,
    csi_timeline_table,
    storage_graph_figure,
)
from kubenotes.viz.widgets import sweep_controls  # noqa: E402


def test_binding_table_says_who_binds_and_colours_the_rows():
    t = binding_table(claim_binding(3))
    assert "PV controller binds it to <b>disk-10g</b> at once" in t
    assert t.count("#e8f5e9") == 1  # one chosen row
    t = binding_table(claim_binding(15, binding_mode="WaitForFirstConsumer"))
    assert "WaitForFirstConsumer" in t and "node-a → <b>local-a-20g</b>" in t
    assert "stays <b>Pending</b>" in binding_table(claim_binding(60))


def test_binding_panel_every_control_at_every_position_renders_and_changes():
    with contextlib.redirect_stdout(io.StringIO()):
        panel = binding_panel()
        report = sweep_controls([panel._kubenotes_panel], leave="start")
    assert report["errors"] == [] and report["raw_markup"] == [] and report["unchanged"] == []
    slider = panel.children[0].children[0]
    assert (slider.min, slider.max) == (1, 60)


def test_csi_sequence_figure_draws_any_lane_and_fits_inline():
    rows = [(0.0, "kube-scheduler", "Event Scheduled", ""), (0.0, "CSI Controller", "ControllerPublishVolume", ""),
            (0.2, "CSI Node", "NodeStageVolume", ""), (0.3, "CSI Node", "NodePublishVolume", ""),
            (0.4, "CSI Identity", "Probe", ""), (0.5, "kubelet CRI", "RunPodSandbox", "")]
    fig = csi_sequence_figure(rows)
    ax = fig.axes[0]
    lanes = [t.get_text() for t in ax.get_xticklabels()]
    assert lanes[-1] == "CSI Identity" and "CSI Node" in lanes  # a lane not listed is added, not dropped
    assert sum("NodeStageVolume" in t.get_text() for t in ax.texts) == 1
    assert inline_png_size(fig)[0] <= MAX_INLINE_WIDTH_PX


def test_tables():
    assert "ControllerPublishVolume" in csi_timeline_table([(0.0, "CSI Controller", "ControllerPublishVolume", "x")])
    row = {"claim": "data-web-1", "phase": "Bound", "volume": "v", "claim_uid": "c", "pod": "web-1",
           "pod_uid": "p1", "node": "n"}
    assert "recreated" in claims_table([row], [dict(row, pod_uid="p2")])
    assert "recreated" not in claims_table([row], [row])
    t = attach_timeline_table([(80.0, "Pod/x", "Event FailedAttachVolume", "Multi-Attach error"),
                               (90.0, "attach/detach controller", "AttachVolume", "v on n")])
    assert t.count("#ffebee") == 1 and t.count("#e8f5e9") == 1


def test_storage_graph_figure_has_a_box_per_object_and_fits_inline():
    g = nx.DiGraph()
    for nid in ("Pod/p", "PersistentVolumeClaim/c", "PersistentVolume/v", "VolumeAttachment/csi-" + "a" * 64,
                "Node/n"):
        g.add_node(nid, kind=nid.split("/")[0], name=nid.split("/")[1])
    g.add_edge("Pod/p", "PersistentVolumeClaim/c", label="spec.volumes[].persistentVolumeClaim")
    g.add_edge("PersistentVolumeClaim/c", "PersistentVolume/v", label="spec.volumeName")
    fig = storage_graph_figure(g)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "VolumeAttachment\ncsi-aaaaaaaa…aaaaaaaaaa" in texts  # long names shortened
    assert "spec.volumes[].\npersistentVolumeClaim" in texts
    assert inline_png_size(fig)[0] <= MAX_INLINE_WIDTH_PX
