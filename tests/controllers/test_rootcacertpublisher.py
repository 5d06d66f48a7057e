"""The root CA publisher: ``kube-root-ca.crt`` in every namespace, recreated and restored.

Cases ported from kubernetes/kubernetes@v1.34.0
pkg/controller/certificates/rootcacertpublisher/publisher_test.go ``TestConfigMapCreation``:
"create new namesapce" (create), "delete other configmap" (no action), "delete ca configmap" (create),
"update ca configmap with adding field" (update), "update ca configmap with modifying field" (update),
"update with other configmap" (no action), "update namespace with terminating state" (no action).
"""

from __future__ import annotations

from kubenotes.controllers.rootcacertpublisher import (
    DESCRIPTION,
    DESCRIPTION_ANNOTATION,
    NAME,
    ROOT_CA_CERT_CONFIG_MAP_NAME,
    Publisher,
)
from kubenotes.controllers.serviceaccount import MODEL_ROOT_CA
from kubenotes.apiserver.load import SYSTEM_NAMESPACES
from kubenotes.sim.cluster import Cluster

CM = ROOT_CA_CERT_CONFIG_MAP_NAME


def _cluster(objs: list[dict] | None = None, options: dict | None = None) -> Cluster:
    c = Cluster(objs or [], seed=0, controllers=[], extra_controllers={NAME: Publisher}, options=options,
                authorization=False, scheduler=False)
    c.run(until=1)
    return c


def _writes(c: Cluster, verb: str, since: float = 0.0) -> list:
    return [e for e in c.audit_log if e.component == NAME and e.verb == verb and e.kind == "ConfigMap"
            and e.time >= since]


def test_every_namespace_gets_the_ca_config_map_with_the_upstream_description():
    c = _cluster([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}}])
    for ns in (*SYSTEM_NAMESPACES, "team"):
        cm = c.get("configmaps", CM, ns)
        assert cm is not None, ns
        assert cm["data"] == {"ca.crt": MODEL_ROOT_CA}
        assert cm["metadata"]["annotations"][DESCRIPTION_ANNOTATION] == DESCRIPTION
    assert DESCRIPTION.startswith("Contains a CA bundle that can be used to verify the kube-apiserver")
    assert DESCRIPTION.endswith("No other usage is guaranteed across distributions of Kubernetes clusters.")


def test_create_new_namespace():
    c = _cluster()
    c.client.create("namespaces", {"metadata": {"name": "new"}})
    c.run(until=2)
    assert c.get("configmaps", CM, "new")["data"] == {"ca.crt": MODEL_ROOT_CA}


def test_root_ca_file_option_sets_the_bundle():
    c = _cluster(options={"root-ca-file": "fake-root-ca"})
    assert c.get("configmaps", CM, "default")["data"] == {"ca.crt": "fake-root-ca"}


def test_delete_ca_configmap_recreates_it():
    c = _cluster()
    uid = c.get("configmaps", CM, "default")["metadata"]["uid"]
    c.client.delete("configmaps", CM, "default")
    c.run(until=2)
    again = c.get("configmaps", CM, "default")
    assert again is not None and again["metadata"]["uid"] != uid
    assert again["data"] == {"ca.crt": MODEL_ROOT_CA}


def test_delete_other_configmap_does_nothing():
    c = _cluster()
    c.client.create("configmaps", {"metadata": {"name": "other"}, "data": {"aa": "bb"}}, "default")
    c.run(until=2)
    c.client.delete("configmaps", "other", "default")
    c.run(until=3)
    assert c.get("configmaps", "other", "default") is None
    assert not _writes(c, "create", since=1.5)
    assert not _writes(c, "update")


def test_update_ca_configmap_with_adding_field_is_restored():
    c = _cluster()
    cm = c.get("configmaps", CM, "default")
    cm["data"]["test"] = "test"
    c.client.update("configmaps", cm, "default")
    c.run(until=2)
    assert c.get("configmaps", CM, "default")["data"] == {"ca.crt": MODEL_ROOT_CA}
    assert len(_writes(c, "update")) == 1


def test_update_ca_configmap_with_modifying_field_and_annotation_is_restored():
    c = _cluster()
    cm = c.get("configmaps", CM, "default")
    cm["data"]["ca.crt"] = "abc"
    cm["metadata"]["annotations"] = {"mine": "yes"}
    c.client.update("configmaps", cm, "default")
    c.run(until=2)
    got = c.get("configmaps", CM, "default")
    assert got["data"] == {"ca.crt": MODEL_ROOT_CA}
    assert got["metadata"]["annotations"] == {"mine": "yes", DESCRIPTION_ANNOTATION: DESCRIPTION}


def test_update_with_other_configmap_does_nothing():
    c = _cluster()
    c.client.create("configmaps", {"metadata": {"name": "other"}}, "default")
    c.run(until=2)
    other = c.get("configmaps", "other", "default")
    other["data"] = {"aa": "bb"}
    c.client.update("configmaps", other, "default")
    c.run(until=3)
    assert not _writes(c, "update")
    assert c.get("configmaps", "other", "default")["data"] == {"aa": "bb"}


def test_terminating_namespace_gets_none():
    c = Cluster([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}}], seed=0,
                controllers=[], extra_controllers={NAME: Publisher}, authorization=False, scheduler=False)
    c.client.delete("namespaces", "team")  # Terminating before the controller's first sync
    c.run(until=2)
    assert c.get("namespaces", "team")["status"]["phase"] == "Terminating"
    assert c.get("configmaps", CM, "team") is None
    assert c.get("configmaps", CM, "default") is not None
    assert not c.controllers[NAME].errors  # a NamespaceTerminating create is not retried
