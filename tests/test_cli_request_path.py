"""``validate``, ``schedule`` and ``serve`` load through one request path, so they give the same verdict on the same input.

Each case runs the commands in-process on the same files: ``kubenotes validate`` (exit status and stderr),
``kubenotes serve`` (its loader: the served cluster starts, or the command's ManifestError line) and
``kubenotes schedule`` (refused: exit status 2 and the same line as validate; accepted: 0 or 1, whether every pod
was bound). The files are every manifest under ``data/`` and small manifests that exercise each admission plugin and
validation the issue names.
"""

from __future__ import annotations

import contextlib
import io
import threading
from pathlib import Path

import pytest

from kubenotes.cli import build_parser, main
from kubenotes.errors import KubenotesError

ROOT = Path(__file__).resolve().parents[1]
DATA = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "data").glob("*/*.yaml"))

NS = "apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n---\n"
LIMITS = NS + """apiVersion: v1
kind: LimitRange
metadata: {name: limits, namespace: team}
spec:
  limits:
  - type: Container
    max: {cpu: "1"}
    default: {cpu: 500m}
    defaultRequest: {cpu: 250m}
---
"""


def _pod(extra_spec: str = "", name: str = "web", ns: str = "team", container: str = "") -> str:
    return (f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: {ns}}}\nspec:\n{extra_spec}"
            f"  containers:\n  - name: c\n    image: nginx\n{container}")


CASES = {
    "good-pod": NS + _pod(),
    "limitrange-default": LIMITS + _pod(),
    "limitrange-max": LIMITS + _pod(container="    resources: {limits: {cpu: '2'}}\n"),
    "missing-namespace": _pod(ns="nowhere"),
    "missing-service-account": NS + _pod("  serviceAccountName: robot\n"),
    "missing-priority-class": NS + _pod("  priorityClassName: gold\n"),
    "upper-case-name": NS + _pod(name="Web"),
    "mount-without-volume": NS + _pod(container="    volumeMounts: [{name: data, mountPath: /data}]\n"),
    "bad-toleration-operator": NS + _pod("  tolerations: [{key: k, operator: Gt, value: '1'}]\n"),
    "secret-not-base64": NS + "apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: team}\n"
                              "data: {password: hunter2}\n",
    "ipv6-service": NS + "apiVersion: v1\nkind: Service\nmetadata: {name: v6, namespace: team}\n"
                         "spec: {ipFamilies: [IPv6], ports: [{port: 80}]}\n",
    "pod-level-gpu": NS + _pod("  resources: {limits: {nvidia.com/gpu: '1'}}\n"),
    "quota-same-input": NS + """apiVersion: v1
kind: ResourceQuota
metadata: {name: q, namespace: team}
spec: {hard: {pods: "0"}}
---
""" + _pod(),
}


def _validate(paths: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        rc = main(["validate", *paths])
    return rc, err.getvalue().strip()


def _serve(paths: list[str], tmp_path: Path) -> tuple[int, str]:
    from kubenotes.sim import serve_cli

    args = build_parser(load=["serve"]).parse_args(
        ["serve", *paths, "--port", "0", "--time-scale", "0", "--kubeconfig", str(tmp_path / "kubeconfig")])
    stop = threading.Event()
    stop.set()  # stop as soon as the cluster is served: only the loading is compared
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            rc = serve_cli.run(args, stop=stop)
    except KubenotesError as e:  # what main() prints with exit status 2
        return 2, str(e)
    return rc, ""


def _schedule(paths: list[str]) -> tuple[int, str]:
    """``kubenotes schedule``'s verdict as validate's: (0, "") when the input loads (whatever was bound), else (2, line)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        rc = main(["schedule", *paths])
    lines = [ln for ln in err.getvalue().splitlines() if not ln.startswith("warning: ")]
    return (0, "") if rc in (0, 1) else (rc, "\n".join(lines).strip())


def _same_verdict(paths: list[str], tmp_path: Path) -> tuple[int, str]:
    v = _validate(paths)
    s = _serve(paths, tmp_path)
    assert v == s, f"validate {v} != serve {s}"
    return v


@pytest.mark.parametrize("name", sorted(CASES))
def test_validate_and_serve_agree_on_written_manifests(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("in.yaml").write_text(CASES[name])
    rc, err = _same_verdict(["in.yaml"], tmp_path)
    assert (rc == 0) == (name in ("good-pod", "limitrange-default", "quota-same-input")), err


def test_written_manifests_are_refused_with_upstream_texts(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    expected = {
        "limitrange-max": "in.yaml doc 3 Pod team/web: pods \"web\" is forbidden: maximum cpu usage per Container "
                          "is 1, but limit is 2",
        "missing-namespace": 'in.yaml doc 1 Pod nowhere/web: namespaces "nowhere" not found',
        "missing-service-account": 'in.yaml doc 2 Pod team/web: pods "web" is forbidden: error looking up service '
                                   'account team/robot: serviceaccount "robot" not found',
        "missing-priority-class": 'in.yaml doc 2 Pod team/web: pods "web" is forbidden: no PriorityClass with name '
                                  'gold was found',
        "mount-without-volume": 'in.yaml doc 2 Pod team/web: Pod "web" is invalid: '
                                'spec.containers[0].volumeMounts[0].name: Not found: "data"',
        "secret-not-base64": 'in.yaml doc 2 Secret team/s: Secret in version "v1" cannot be handled as a Secret: '
                             'illegal base64 data at input byte 4',
        "ipv6-service": 'in.yaml doc 2 Service team/v6: Service "v6" is invalid: spec.ipFamilies[0]: Invalid value: '
                        '"IPv6": not configured on this cluster',
        "pod-level-gpu": 'in.yaml doc 2 Pod team/web: Pod "web" is invalid: spec.resources.limits[nvidia.com/gpu]: '
                         'Unsupported value: "nvidia.com/gpu": supported values: "cpu", "memory"',
    }
    for name, text in expected.items():
        Path("in.yaml").write_text(CASES[name])
        assert _validate(["in.yaml"]) == (2, text)


def test_validate_applies_limit_range_defaults(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    Path("in.yaml").write_text(CASES["limitrange-default"])
    assert main(["validate", "in.yaml"]) == 0
    assert "in.yaml doc 3 Pod team/web: requests cpu=250m, qos Burstable, priority 0, pending" in \
        capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("paths", [["data/cluster"], ["data/cluster", "data/scheduling"], *([p] for p in DATA)],
                         ids=lambda p: "+".join(p))
def test_validate_and_serve_agree_on_data(paths, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    _same_verdict(paths, tmp_path)


@pytest.mark.parametrize("name", sorted(CASES))
def test_validate_and_schedule_agree_on_written_manifests(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("in.yaml").write_text(CASES[name])
    assert _schedule(["in.yaml"]) == _validate(["in.yaml"])


@pytest.mark.parametrize("paths", [["data/cluster", "data/scheduling"], ["data/cluster", "data/storage"]],
                         ids=lambda p: "+".join(p))
def test_validate_and_schedule_agree_on_data(paths, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert _schedule(paths) == _validate(paths)


def test_schedule_refuses_what_the_api_server_refuses_and_applies_its_defaults(tmp_path, monkeypatch, capsys):
    # the LimitRange of the same input: a container above its max is refused with LimitRanger's words (exit 2, as
    # validate); one without requests gets the LimitRange's defaultRequest, which the scheduler then counts
    monkeypatch.chdir(tmp_path)
    node = ("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
            "status: {allocatable: {cpu: '1', memory: 1Gi, pods: '10'}}\n---\n")
    Path("max.yaml").write_text(node + CASES["limitrange-max"])
    assert _schedule(["max.yaml"]) == (2, 'max.yaml doc 4 Pod team/web: pods "web" is forbidden: maximum cpu usage '
                                          'per Container is 1, but limit is 2')
    Path("default.yaml").write_text(node + CASES["limitrange-default"] + "---\n" + _pod(name="web2") + "---\n"
                                    + _pod(name="web3") + "---\n" + _pod(name="web4") + "---\n" + _pod(name="web5"))
    capsys.readouterr()
    assert main(["schedule", "default.yaml"]) == 1  # 250m each: four fit in one CPU, the fifth does not
    out = capsys.readouterr().out
    assert out.count(" n1 ") == 4 and "0/1 nodes are available: 1 Insufficient cpu." in out


def test_the_schedule_samples_load_with_the_cluster(monkeypatch, tmp_path):
    # data/scheduling/unschedulable.yaml asks for more than batch's LimitRange allows per container, so its pod
    # lives in `default`: the API server accepts every sample with the cluster, and both commands load the pair
    monkeypatch.chdir(ROOT)
    assert _same_verdict(["data/cluster", "data/scheduling"], tmp_path) == (0, "")


def test_a_quota_limits_from_its_first_sync_as_upstream():
    # At time zero no controller has run: the quota of the same input has no status.hard, and upstream's
    # ResourceQuota admission lets the pod in (validate and serve agree, above). Once the quota controller has
    # synced it, the next pod is refused with upstream's message.
    from kubenotes.apiserver.status import ApiError
    from kubenotes.sim.cluster import Cluster

    c = Cluster.from_manifests(CASES["quota-same-input"], controllers=["resourcequota-controller"],
                               scheduler=False, kubelet="stand-in")
    assert c.get("pods", "web", "team") is not None
    assert "hard" not in (c.get("resourcequotas", "q", "team").get("status") or {})
    c.run(until=5)
    assert c.get("resourcequotas", "q", "team")["status"]["hard"] == {"pods": "0"}
    with pytest.raises(ApiError) as e:
        c.client.create("pods", {"metadata": {"name": "late"}, "spec": {"containers": [{"name": "c", "image": "x"}]}},
                        "team")
    assert str(e.value) == ('pods "late" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, '
                            'limited: pods=0')
