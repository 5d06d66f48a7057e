"""Tests for kubenotes.api.manifests: sources, Lists, accessors, round trips and one-line errors."""

from __future__ import annotations

import io
import json
import textwrap
from pathlib import Path

import pytest
import yaml

from kubenotes.api.manifests import (
    NON_API_KINDS,
    LoadedObject,
    Manifests,
    dump_manifests,
    load_manifests,
)
from kubenotes.errors import ManifestError, NotFound

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"


def y(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


POD = y("""
    apiVersion: v1
    kind: Pod
    metadata:
      name: web
    spec:
      containers:
      - name: nginx
        image: docker.io/library/nginx:1.27.3
        resources:
          requests: {cpu: 500m, memory: 256Mi}
""")
NODE = y("""
    apiVersion: v1
    kind: Node
    metadata:
      name: n1
      labels: {topology.kubernetes.io/zone: zone-a}
    status:
      allocatable: {cpu: 7910m, memory: 29027352Ki, pods: "110"}
      capacity: {cpu: "8", memory: 32863256Ki, pods: "110"}
""")


def error_of(*sources, defaults=False) -> str:
    with pytest.raises(ManifestError) as ei:
        load_manifests(*sources, defaults=defaults)
    msg = str(ei.value)
    assert "\n" not in msg
    return msg


# --------------------------------------------------------------------------- sources


def test_yaml_string_several_documents_and_empty_ones():
    m = load_manifests("---\n" + NODE + "---\n---\n# only a comment\n---\n" + POD, defaults=False)
    assert [(o.source, o.doc, o.kind, o.namespace, o.name) for o in m] == [
        ("<string>", 1, "Node", None, "n1"),
        ("<string>", 4, "Pod", "default", "web"),
    ]
    assert isinstance(m.objects[0], LoadedObject)
    assert m.objects[1].ref == "Pod default/web"
    assert m.objects[1].location == "<string> doc 4 Pod default/web"


def test_path_as_str_and_pathlike_keep_the_name_given(tmp_path, monkeypatch):
    (tmp_path / "pods.yaml").write_text(POD)
    monkeypatch.chdir(tmp_path)
    assert load_manifests("pods.yaml", defaults=False).objects[0].source == "pods.yaml"
    assert load_manifests(Path("pods.yaml"), defaults=False).objects[0].source == "pods.yaml"
    assert load_manifests(["./pods.yaml"], defaults=False).objects[0].source == "./pods.yaml"


def test_directory_recursive_sorted_and_only_manifest_suffixes(tmp_path):
    d = tmp_path / "m"
    (d / "sub").mkdir(parents=True)
    (d / "b.yml").write_text(POD)
    (d / "a.yaml").write_text(NODE)
    (d / "sub" / "c.json").write_text(json.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "x"}}))
    (d / "notes.txt").write_text("not: [yaml")
    (d / ".hidden.yaml").write_text("not: [yaml")
    m = load_manifests(str(d), defaults=False)
    assert [(Path(o.source).relative_to(d).as_posix(), o.kind) for o in m] == [
        ("a.yaml", "Node"), ("b.yml", "Pod"), ("sub/c.json", "Namespace")]
    assert m.objects[0].source == str(d / "a.yaml")


def test_stdin_dash(monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(POD))
    m = load_manifests("-", defaults=False)
    assert m.objects[0].source == "<stdin>" and m.objects[0].name == "web"


def test_file_objects(tmp_path):
    assert load_manifests(io.StringIO(NODE), defaults=False).objects[0].source == "<stream>"
    p = tmp_path / "n.yaml"
    p.write_text(NODE)
    with open(p) as f:
        assert load_manifests(f, defaults=False).objects[0].source == str(p)
    with open(p, "rb") as f:
        assert load_manifests(f, defaults=False).nodes[0].metadata.name == "n1"


def test_json_string_and_json_file(tmp_path):
    doc = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "web"}}
    assert load_manifests(json.dumps(doc), defaults=False).namespaces[0].metadata.name == "web"
    p = tmp_path / "ns.json"
    p.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [doc]}, indent=2))
    assert [o.ref for o in load_manifests(str(p), defaults=False)] == ["Namespace web"]


def test_kind_list_and_typed_lists_are_flattened_items_inherit_nothing():
    text = y("""
        apiVersion: v1
        kind: List
        metadata: {resourceVersion: ""}
        items:
        - apiVersion: v1
          kind: Pod
          metadata: {name: a}
          spec: {containers: [{name: c}]}
        - apiVersion: v1
          kind: Pod
          metadata: {name: b, namespace: other}
          spec: {containers: [{name: c}]}
        ---
        apiVersion: v1
        kind: NodeList
        items:
        - apiVersion: v1
          kind: Node
          metadata: {name: n1}
        ---
        apiVersion: v1
        kind: PodList
        items: []
    """)
    m = load_manifests(text, defaults=False)
    assert [(o.doc, o.ref) for o in m] == [(1, "Pod default/a"), (1, "Pod other/b"), (2, "Node n1")]


def test_unknown_source_type():
    with pytest.raises(TypeError):
        load_manifests(42)


def test_uses_libyaml_and_keeps_timestamps_as_strings():
    from kubenotes.api import yamlutil

    if yaml.__with_libyaml__:
        assert issubclass(yamlutil._Loader, yaml.CSafeLoader)
    m = load_manifests(y("""
        apiVersion: v1
        kind: Pod
        metadata:
          name: p
          creationTimestamp: 2025-09-01T08:00:00Z
          annotations: {deployed: 2025-09-01}
        spec: {containers: [{name: c}]}
    """), defaults=False)
    pod = m.pods[0]
    assert pod.metadata.annotations == {"deployed": "2025-09-01"}
    assert pod.metadata.creationTimestamp.year == 2025


def test_every_lightkube_kind_and_the_required_ones_load():
    kinds = {
        "v1": ["Pod", "Node", "Namespace", "Service", "Endpoints", "ReplicationController", "PriorityClass",
               "ResourceQuota", "LimitRange", "ServiceAccount", "Secret", "ConfigMap", "PersistentVolume",
               "PersistentVolumeClaim"],
        "apps/v1": ["ReplicaSet", "Deployment", "StatefulSet", "DaemonSet"],
        "batch/v1": ["Job", "CronJob"],
        "scheduling.k8s.io/v1": ["PriorityClass"],
        "storage.k8s.io/v1": ["StorageClass", "CSINode"],
        "policy/v1": ["PodDisruptionBudget"],
        "networking.k8s.io/v1": ["NetworkPolicy", "Ingress"],
        "rbac.authorization.k8s.io/v1": ["ClusterRole"],
        "coordination.k8s.io/v1": ["Lease"],
    }
    docs = []
    for api_version, names in kinds.items():
        for kind in names:
            if api_version == "v1" and kind == "PriorityClass":
                continue
            d = {"apiVersion": api_version, "kind": kind, "metadata": {"name": kind.lower()}}
            if kind == "StorageClass":
                d["provisioner"] = "pd.csi.storage.gke.io"
            if kind == "PriorityClass":
                d["value"] = 10
            if kind == "CSINode":
                d["spec"] = {"drivers": []}
            if kind in ("ReplicaSet", "Deployment", "StatefulSet", "DaemonSet"):
                d["spec"] = {"selector": {"matchLabels": {"app": "a"}},
                             "template": {"metadata": {"labels": {"app": "a"}}, "spec": {"containers": []}}}
            if kind == "Job":
                d["spec"] = {"template": {"spec": {"containers": []}}}
            if kind == "CronJob":
                d["spec"] = {"schedule": "@daily", "jobTemplate": {"spec": {"template": {"spec": {"containers": []}}}}}
            docs.append(d)
    m = load_manifests(yaml.safe_dump_all(docs), defaults=False)
    assert [o.kind for o in m] == [d["kind"] for d in docs]


def test_every_top_level_lightkube_resource_resolves():
    import importlib
    import pkgutil

    import lightkube.resources
    from lightkube.core.resource import GlobalResource, NamespacedResource

    from kubenotes.api.manifests import _resolve

    seen = 0
    for info in pkgutil.iter_modules(lightkube.resources.__path__):
        mod = importlib.import_module(f"lightkube.resources.{info.name}")
        for obj in vars(mod).values():
            api = getattr(obj, "_api_info", None)
            if (isinstance(obj, type) and issubclass(obj, (NamespacedResource, GlobalResource))
                    and api is not None and api.parent is None and obj.__module__ == mod.__name__):
                assert _resolve(api.resource.api_version, api.resource.kind) is obj
                seen += 1
    assert seen >= 90


def test_scheduler_configuration_is_a_plain_dict():
    assert ("kubescheduler.config.k8s.io/v1", "KubeSchedulerConfiguration") in NON_API_KINDS
    m = load_manifests(DATA / "scheduling" / "scheduler-config.yaml")
    (cfg,) = m.scheduler_configs
    assert isinstance(cfg, dict)
    assert cfg["profiles"][0]["pluginConfig"][0]["args"]["scoringStrategy"]["type"] == "MostAllocated"
    (o,) = m.objects
    assert (o.kind, o.namespace, o.name, o.doc) == ("KubeSchedulerConfiguration", None, "", 1)


# --------------------------------------------------------------------------- objects


def test_namespace_defaults_and_cluster_scoped_namespace_dropped():
    m = load_manifests(y("""
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: c}
        ---
        apiVersion: v1
        kind: Node
        metadata: {name: n1, namespace: ignored}
    """), defaults=False)
    cm, node = m.objects
    assert cm.namespace == "default" and cm.obj.metadata.namespace == "default"
    assert node.namespace is None and node.obj.metadata.namespace is None and node.ref == "Node n1"


def test_generate_name_gets_a_deterministic_suffix():
    text = "apiVersion: v1\nkind: Pod\nmetadata: {generateName: web-}\nspec: {containers: [{name: c}]}\n"
    a = load_manifests(text, defaults=False).pods[0].metadata.name
    b = load_manifests(text, defaults=False).pods[0].metadata.name
    assert a == b and a.startswith("web-") and len(a) == len("web-") + 5


def test_accessors_get_and_repr():
    m = load_manifests(NODE + "---\n" + POD, defaults=False)
    assert isinstance(m, Manifests) and len(m) == 2
    assert m.of_kind("Node") == m.nodes and m.pods[0].metadata.name == "web"
    assert m.priority_classes == [] and m.scheduler_configs == [] and m.namespaces == []
    assert m.get("Pod", "web") is m.pods[0]
    assert m.get("Pod", "web", "default") is m.pods[0]
    assert m.get("Node", "n1") is m.nodes[0]
    with pytest.raises(NotFound):
        m.get("Pod", "web", "other")
    assert repr(m) == "Manifests(Node=1, Pod=1)"


# --------------------------------------------------------------------------- defaults and admission


def test_defaults_and_priority_admission_applied_on_read():
    m = load_manifests(y("""
        apiVersion: scheduling.k8s.io/v1
        kind: PriorityClass
        metadata: {name: standard}
        value: 1000
        globalDefault: true
        ---
        apiVersion: scheduling.k8s.io/v1
        kind: PriorityClass
        metadata: {name: high}
        value: 1000000
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: plain}
        spec:
          containers:
          - name: c
            resources: {limits: {cpu: "1", memory: 1Gi}}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: urgent}
        spec:
          priorityClassName: high
          containers: [{name: c}]
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: node-agent}
        spec:
          priorityClassName: system-node-critical
          containers: [{name: c}]
    """))
    plain, urgent, agent = m.pods
    assert plain.spec.containers[0].resources.requests == {"cpu": "1", "memory": "1Gi"}
    assert plain.spec.schedulerName == "default-scheduler"
    assert plain.status.qosClass == "Guaranteed"
    assert (plain.spec.priorityClassName, plain.spec.priority) == ("standard", 1000)
    assert (urgent.spec.priority, urgent.spec.preemptionPolicy) == (1000000, "PreemptLowerPriority")
    assert agent.spec.priority == 2000001000


def test_defaults_false_leaves_objects_as_written():
    pod = load_manifests(POD, defaults=False).pods[0]
    assert pod.spec.priority is None and pod.spec.schedulerName is None and pod.status is None


def test_bound_pods_from_kubectl_pass_admission_unchanged():
    m = load_manifests(DATA / "cluster" / "priorityclasses.yaml", DATA / "cluster" / "running-pods.yaml")
    raw = yaml.safe_load((DATA / "cluster" / "running-pods.yaml").read_text())["items"]
    for pod, doc in zip(m.pods, raw):
        assert pod.spec.priority == doc["spec"]["priority"]
        assert pod.spec.priorityClassName == doc["spec"]["priorityClassName"]


# --------------------------------------------------------------------------- round trip


def test_dump_then_load_round_trips_the_sample_cluster():
    # the chapters' self-contained scenarios (kubenotes.data.SCENARIO_DIRS) are their own small clusters
    from kubenotes.data import sample_cluster_dirs

    m = load_manifests(*sample_cluster_dirs())
    text = dump_manifests(m)
    again = load_manifests(text)
    assert [o.obj.to_dict() if not isinstance(o.obj, dict) else o.obj for o in again] == \
           [o.obj.to_dict() if not isinstance(o.obj, dict) else o.obj for o in m]


def test_dump_accepts_objects_dicts_and_a_comment():
    m = load_manifests(POD, defaults=False)
    text = dump_manifests([m.objects[0], {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "x"}}],
                          comment="two objects\nfor a test")
    assert text.startswith("# two objects\n# for a test\napiVersion: v1\nkind: Pod\n")
    assert "\n---\n" in text
    assert dump_manifests(m.pods[0]) == dump_manifests([m.pods[0]])
    assert dump_manifests([]) == ""
    with pytest.raises(TypeError):
        dump_manifests([object()])


# --------------------------------------------------------------------------- errors: one line each

POD_WITH = "apiVersion: v1\nkind: Pod\nmetadata: {{name: web}}\nspec:\n  containers:\n  - name: nginx\n{extra}"

ERRORS = [
    pytest.param(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: web\n",
        "<string> doc 1: yaml: line 4, column 1: did not find expected ',' or '}'",
        id="yaml-syntax"),
    pytest.param(
        NODE + "---\nkind: Pod\n  bad: indent\n",
        "<string> doc 2: yaml: line 11, column 6: mapping values are not allowed in this context",
        id="yaml-syntax-second-doc"),
    pytest.param("apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {containers: [{name: a, image: \"x\\/y\"}]}\n",
                 "<string> doc 1: yaml: line 4, column 40: found unknown escape character", id="yaml-unknown-escape"),
    pytest.param("apiVersion: v1\nkind: Pod\nmetadata: {name: web}\n--- {spec: {}}\n",
                 "<string> doc 2: invalid Yaml document separator: {spec: {}}", id="yaml-text-after-separator"),
    pytest.param("- a\n- b\n", "<string> doc 1: expected a mapping with apiVersion and kind, got array",
                 id="not-a-mapping"),
    pytest.param("---\njust text\n", "<string> doc 1: expected a mapping with apiVersion and kind, got str",
                 id="scalar-document"),
    pytest.param("kind: Pod\nmetadata: {name: web}\n", "<string> doc 1 Pod web: apiVersion not set",
                 id="missing-apiVersion"),
    pytest.param("apiVersion: v1\nmetadata: {name: web}\n", "<string> doc 1: kind not set", id="missing-kind"),
    pytest.param("metadata: {name: web}\n", "<string> doc 1: apiVersion not set, kind not set", id="missing-both"),
    pytest.param("apiVersion: v1\nkind: 7\n", "<string> doc 1: kind: expected str, got int 7", id="kind-not-str"),
    pytest.param("apiVersion: v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\n",
                 '<string> doc 1 Deployment shop/web: no matches for kind "Deployment" in version "v1"',
                 id="kind-in-wrong-version"),
    pytest.param("apiVersion: apps/v1beta1\nkind: Deployment\nmetadata: {name: web}\n",
                 '<string> doc 1 Deployment web: no matches for kind "Deployment" in version "apps/v1beta1"',
                 id="unknown-apiVersion"),
    pytest.param("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n",
                 '<string> doc 1 Widget w: no matches for kind "Widget" in version "example.com/v1"',
                 id="unknown-kind"),
    pytest.param("apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n",
                 '<string> doc 1 KubeSchedulerConfiguration: no matches for kind "KubeSchedulerConfiguration" '
                 'in version "kubescheduler.config.k8s.io/v1beta3"',
                 id="removed-scheduler-config-version"),
    pytest.param("apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {priority: high, containers: []}\n",
                 '<string> doc 1 Pod default/web: spec.priority: expected int, got str "high"',
                 id="type-error-priority"),
    pytest.param(POD_WITH.format(extra="    ports:\n    - containerPort: '80'\n"),
                 '<string> doc 1 Pod default/web: spec.containers[0].ports[0].containerPort: expected int, got str "80"',
                 id="type-error-indexed"),
    pytest.param("apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {containers: {name: c}}\n",
                 "<string> doc 1 Pod default/web: spec.containers: expected array, got object",
                 id="type-error-container-kind"),
    pytest.param("apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {containers: [{image: nginx}]}\n",
                 "<string> doc 1 Pod default/web: spec.containers[0].name: Required value",
                 id="missing-required-field"),
    pytest.param(POD_WITH.format(extra="    resource: {requests: {cpu: 1}}\n"),
                 '<string> doc 1 Pod default/web: unknown field "spec.containers[0].resource"',
                 id="unknown-field"),
    pytest.param("apiVersion: v1\nkind: Pod\nmetadata: {name: web, labels: {version: 1.0}}\nspec: {containers: []}\n",
                 "<string> doc 1 Pod default/web: metadata.labels.version: expected str, got int 1",
                 id="label-not-string"),
    pytest.param("apiVersion: v1\nkind: Pod\nmetadata: {namespace: shop}\nspec: {containers: []}\n",
                 "<string> doc 1 Pod: metadata.name: Required value: name or generateName is required",
                 id="missing-name"),
    # quantities wherever a ResourceList appears
    pytest.param(POD_WITH.format(extra="    resources: {requests: {cpu: lots}}\n"),
                 '<string> doc 1 Pod default/web: spec.containers[0].resources.requests.cpu: invalid quantity "lots"',
                 id="qty-container-request"),
    pytest.param(POD_WITH.format(extra="    resources: {limits: {memory: 1GB}}\n"),
                 '<string> doc 1 Pod default/web: spec.containers[0].resources.limits.memory: invalid quantity "1GB"',
                 id="qty-container-limit"),
    pytest.param("apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: a}]\n"
                 "  initContainers:\n  - name: init\n    resources: {requests: {memory: 2 Gi}}\n",
                 '<string> doc 1 Pod default/web: spec.initContainers[0].resources.requests.memory: invalid quantity "2 Gi"',
                 id="qty-init-container"),
    pytest.param("apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {containers: [], overhead: {cpu: 250mm}}\n",
                 '<string> doc 1 Pod default/web: spec.overhead.cpu: invalid quantity "250mm"', id="qty-overhead"),
    pytest.param("apiVersion: v1\nkind: Pod\nmetadata: {name: web}\n"
                 "spec: {containers: [], resources: {limits: {cpu: two}}}\n",
                 '<string> doc 1 Pod default/web: spec.resources.limits.cpu: invalid quantity "two"',
                 id="qty-pod-level"),
    pytest.param("apiVersion: v1\nkind: Pod\nmetadata: {name: web}\n"
                 "spec: {containers: [], volumes: [{name: scratch, emptyDir: {sizeLimit: 1 Gi}}]}\n",
                 '<string> doc 1 Pod default/web: spec.volumes[0].emptyDir.sizeLimit: invalid quantity "1 Gi"',
                 id="qty-emptydir-size-limit"),
    pytest.param("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {capacity: {memory: 32G1}}\n",
                 '<string> doc 1 Node n1: status.capacity.memory: invalid quantity "32G1"', id="qty-node-capacity"),
    pytest.param("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {nvidia.com/gpu: four}}\n",
                 '<string> doc 1 Node n1: status.allocatable.nvidia.com/gpu: invalid quantity "four"',
                 id="qty-node-allocatable"),
    pytest.param("apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: q, namespace: ml}\n"
                 "spec: {hard: {requests.nvidia.com/gpu: eight}}\n",
                 '<string> doc 1 ResourceQuota ml/q: spec.hard.requests.nvidia.com/gpu: invalid quantity "eight"',
                 id="qty-resourcequota"),
    pytest.param("apiVersion: v1\nkind: LimitRange\nmetadata: {name: l}\n"
                 "spec: {limits: [{type: Container, defaultRequest: {cpu: half}}]}\n",
                 '<string> doc 1 LimitRange default/l: spec.limits[0].defaultRequest.cpu: invalid quantity "half"',
                 id="qty-limitrange"),
    pytest.param("apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\n"
                 "spec: {resources: {requests: {storage: 50 GiB}}}\n",
                 '<string> doc 1 PersistentVolumeClaim default/data: spec.resources.requests.storage: invalid quantity "50 GiB"',
                 id="qty-pvc"),
    pytest.param("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n"
                 "  selector: {matchLabels: {app: web}}\n  template:\n    spec:\n      containers:\n"
                 "      - name: nginx\n        resources: {requests: {cpu: 0.5cores}}\n",
                 '<string> doc 1 Deployment default/web: spec.template.spec.containers[0].resources.requests.cpu: '
                 'invalid quantity "0.5cores"',
                 id="qty-deployment-template"),
    pytest.param("apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: pg}\nspec:\n"
                 "  selector: {matchLabels: {app: pg}}\n  template: {spec: {containers: []}}\n"
                 "  volumeClaimTemplates:\n  - metadata: {name: data}\n    spec: {resources: {requests: {storage: big}}}\n",
                 '<string> doc 1 StatefulSet default/pg: spec.volumeClaimTemplates[0].spec.resources.requests.storage: '
                 'invalid quantity "big"',
                 id="qty-statefulset-claim-template"),
    pytest.param("apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: backup}\nspec:\n  schedule: '0 2 * * *'\n"
                 "  jobTemplate: {spec: {template: {spec: {containers: [{name: c, resources: {limits: {memory: -}}}]}}}}\n",
                 '<string> doc 1 CronJob default/backup: spec.jobTemplate.spec.template.spec.containers[0].resources.'
                 'limits.memory: invalid quantity "-"',
                 id="qty-cronjob-template"),
    # selectors
    pytest.param("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n"
                 "  selector: {matchExpressions: [{key: app, operator: In}]}\n  template: {spec: {containers: []}}\n",
                 "<string> doc 1 Deployment default/web: spec.selector.matchExpressions[0].values: Required value: "
                 "must be specified when `operator` is 'In' or 'NotIn'",
                 id="label-selector-values"),
    pytest.param("apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web}\nspec:\n"
                 "  minAvailable: 1\n  selector: {matchExpressions: [{key: app, operator: Equals, values: [web]}]}\n",
                 '<string> doc 1 PodDisruptionBudget default/web: spec.selector.matchExpressions[0].operator: '
                 'Invalid value: "Equals": not a valid selector operator',
                 id="label-selector-operator"),
    pytest.param("apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: []\n"
                 "  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
                 "[{matchExpressions: [{key: zone, operator: Equals, values: [a]}]}]}}}\n",
                 '<string> doc 1 Pod default/web: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.'
                 'nodeSelectorTerms[0].matchExpressions[0].operator: Unsupported value: "Equals": supported values: '
                 '"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"',
                 id="node-selector-operator"),
    # duplicates
    pytest.param("apiVersion: v1\nkind: Namespace\nmetadata: {name: web}\n---\n"
                 "apiVersion: v1\nkind: Namespace\nmetadata: {name: web}\n",
                 '<string> doc 2 Namespace web: namespaces "web" already exists (first in <string> doc 1)',
                 id="duplicate"),
    # List items
    pytest.param("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: a}\n- 3\n",
                 "<string> doc 1: items[1]: expected a mapping with apiVersion and kind, got int", id="list-item-scalar"),
    pytest.param("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  metadata: {name: a}\n",
                 "<string> doc 1: items[0]: kind not set", id="list-item-without-kind"),
    pytest.param("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n"
                 "  metadata: {name: a}\n  status: {allocatable: {cpu: x}}\n",
                 '<string> doc 1 Node a: status.allocatable.cpu: invalid quantity "x"', id="list-item-quantity"),
    pytest.param("apiVersion: v1\nkind: List\nitems: {a: 1}\n", "<string> doc 1: items: expected array, got object",
                 id="list-items-not-array"),
]


@pytest.mark.parametrize(("text", "expected"), ERRORS)
def test_error_lines(text, expected):
    assert error_of(text) == expected


def test_error_names_the_file_as_given_and_counts_documents(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("pods.yaml").write_text(
        "# comment\n---\n" + NODE + "---\n" + POD.replace("name: web", "name: api") + "---\n"
        + POD.replace("cpu: 500m", "cpu: lots"))
    assert error_of("pods.yaml") == \
        'pods.yaml doc 3 Pod default/web: spec.containers[0].resources.requests.cpu: invalid quantity "lots"'


def test_missing_file_and_directory_source_names(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert error_of("nope.yaml") == "nope.yaml: no such file"
    Path("d").mkdir()
    Path("d/bad.yaml").write_text("a: [1\n")
    assert error_of("d") == "d/bad.yaml doc 1: yaml: line 2, column 1: did not find expected ',' or ']'"


def test_json_syntax_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("x.json").write_text('{"apiVersion": "v1",\n "kind": }')
    assert error_of("x.json") == "x.json doc 1: json: line 2, column 10: Expecting value"


def test_duplicates_across_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("a.yaml").write_text(POD)
    Path("b.yaml").write_text("# again\n" + POD)
    assert error_of("a.yaml", "b.yaml") == 'b.yaml doc 1 Pod default/web: pods "web" already exists (first in a.yaml doc 1)'
    # same name in another namespace or another kind is fine
    load_manifests(POD, POD.replace("name: web", "name: web\n  namespace: other"), defaults=False)


def test_priority_admission_errors():
    unknown = POD.replace("containers:", "priorityClassName: gold\n  containers:")
    assert error_of(unknown, defaults=True) == \
        "<string> doc 1 Pod default/web: spec.priorityClassName: no PriorityClass with name gold was found"
    pc = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: gold}\nvalue: 100\n---\n"
    wrong = POD.replace("containers:", "priorityClassName: gold\n  priority: 5\n  containers:")
    assert error_of(pc + wrong, defaults=True) == (
        "<string> doc 2 Pod default/web: spec.priority: the integer value of priority (5) must not be provided "
        "in pod spec; priority admission controller computed 100 from the given PriorityClass name")
    # classes from any source count, whatever the order
    load_manifests(unknown, pc.replace("---\n", ""))


def test_nothing_is_half_loaded(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("good.yaml").write_text(POD)
    Path("bad.yaml").write_text("kind: [\n")
    with pytest.raises(ManifestError) as ei:
        load_manifests("good.yaml", "bad.yaml")
    assert ei.value.source == "bad.yaml" and ei.value.doc == 1 and ei.value.obj is None


def test_request_above_its_limit_is_rejected_as_the_api_server_does():
    doc = """apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers:
  - name: app
    image: nginx
    resources: {requests: {cpu: 1200m}, limits: {cpu: "1"}}
"""
    with pytest.raises(ManifestError) as e:
        load_manifests(doc)
    assert str(e.value) == ('<string> doc 1 Pod default/web: spec.containers[0].resources.requests[cpu]: '
                            'Invalid value: "1200m": must be less than or equal to cpu limit of 1')


def test_extended_resources_cannot_be_overcommitted():
    doc = """apiVersion: apps/v1
kind: Deployment
metadata: {name: train, namespace: ml}
spec:
  selector: {matchLabels: {app: train}}
  template:
    metadata: {labels: {app: train}}
    spec:
      containers:
      - name: t
        image: pytorch
        resources: {requests: {nvidia.com/gpu: 1}, limits: {nvidia.com/gpu: 2}}
"""
    with pytest.raises(ManifestError, match=r'spec\.template\.spec\.containers\[0\]\.resources\.requests\[nvidia\.com/gpu\]: '
                                            r'Invalid value: "1": must be equal to nvidia\.com/gpu limit of 2$'):
        load_manifests(doc)


def test_request_equal_or_below_its_limit_loads():
    doc = """apiVersion: v1
kind: Pod
metadata: {name: ok}
spec:
  containers:
  - {name: a, image: nginx, resources: {requests: {cpu: 500m, memory: 1Gi}, limits: {cpu: "1", memory: 1Gi}}}
"""
    assert [o.name for o in load_manifests(doc)] == ["ok"]
