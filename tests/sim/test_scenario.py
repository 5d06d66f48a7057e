"""``kind: Scenario`` documents: parsing, one-line errors naming file, document, object and field."""

from __future__ import annotations

import pytest

from kubenotes.api.manifests import load_manifests
from kubenotes.errors import ManifestError
from kubenotes.sim.scenario import parse_scenario

HEAD = "apiVersion: kubenotes.io/v1\nkind: Scenario\nmetadata: {name: s}\n"


def _parse(text: str):
    m = load_manifests(text, defaults=False)
    (o,) = [o for o in m if o.kind == "Scenario"]
    return parse_scenario(o.obj, o.source, o.doc)


def test_steps_are_sorted_by_time_and_keep_their_order_for_equal_times():
    s = _parse(HEAD + """spec:
  steps:
  - {at: 30, scale: {kind: Deployment, namespace: web, name: web, replicas: 6}}
  - {at: 10, nodeDown: {name: n1}}
  - {at: 30, nodeUp: {name: n1}}
""")
    assert [(st.at_seconds, st.action) for st in s.steps] == [(10.0, "nodeDown"), (30.0, "scale"), (30.0, "nodeUp")]


@pytest.mark.parametrize("steps, message", [
    ("[{at: 5}]", "spec.steps[0]: Required value: one action of apply, delete, scale, setImage, patch, "
                  "nodeDown, nodeUp, metric, containerExit, probe, usage, staticPod"),
    ("[{at: -1, nodeUp: {name: n}}]", "spec.steps[0].at: Invalid value: -1: must be greater than or equal to 0"),
    ("[{at: x, nodeUp: {name: n}}]", "spec.steps[0].at: Required value: seconds (a number)"),
    ("[{at: 1, reboot: {name: n}}]", 'spec.steps[0].reboot: Unsupported value: "reboot": supported values: '
                                      '"apply", "delete", "scale", "setImage", "patch", "nodeDown", "nodeUp", "metric", '
                                      '"containerExit", "probe", "usage", "staticPod"'),
    ("[{at: 1, probe: {name: p, container: c, probe: sniff, result: failure}}]",
     'spec.steps[0].probe.probe: Unsupported value: "sniff": supported values: "liveness", "readiness", "startup"'),
    ("[{at: 1, containerExit: {name: p, container: c, exitCode: x}}]",
     "spec.steps[0].containerExit.exitCode: Invalid value: 'x': must be an integer"),
    ("[{at: 1, scale: {kind: Deployment, name: web}}]", "spec.steps[0].scale.replicas: Required value"),
    ("[{at: 1, scale: {kind: Deployment, name: web, replicas: -2}}]",
     "spec.steps[0].scale.replicas: Invalid value: -2: must be a whole number >= 0"),
    ("[{at: 1, delete: {kind: Widget, name: w}}]", 'spec.steps[0].delete.kind: Unsupported value: "Widget"'),
    ("[{at: 1, nodeUp: {name: a}, nodeDown: {name: a}}]",
     "spec.steps[0]: Invalid value: more than one action of apply, delete, scale, setImage, patch, nodeDown, "
     "nodeUp, metric, containerExit, probe, usage, staticPod"),
])
def test_a_malformed_scenario_is_one_line_naming_the_field(steps, message):
    with pytest.raises(ManifestError) as e:
        _parse(HEAD + f"spec:\n  steps: {steps}\n")
    assert str(e.value) == f"<string> doc 1 Scenario s: {message}"
