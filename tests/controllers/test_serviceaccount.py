"""ServiceAccount controllers: ``default`` in every namespace, legacy token Secrets populated.

Cases ported from kubernetes/kubernetes@v1.34.0 pkg/controller/serviceaccount:

* serviceaccounts_controller_test.go ``TestServiceAccountCreation`` ("new active namespace missing
  serviceaccounts", "new active namespace with serviceaccounts" (nothing created), "new terminating
  namespace" (nothing created), "deleted serviceaccount in active namespace" (recreated));
* tokens_controller_test.go ``TestTokenCreation`` ("added token secret without token data" (populated),
  "added token secret with data" (unchanged), "added token secret without serviceaccount" (deleted),
  "deleted serviceaccount with token secrets" (secret deleted)).
"""

from __future__ import annotations

import base64
import json

from kubenotes.controllers.serviceaccount import (
    MODEL_ROOT_CA,
    SERVICE_ACCOUNT_NAME_KEY,
    SERVICE_ACCOUNT_UID_KEY,
)
from kubenotes.apiserver.load import SYSTEM_NAMESPACES
from kubenotes.sim.cluster import Cluster

SAC, TC = "serviceaccount-controller", "serviceaccount-token-controller"


def _cluster(objs: list[dict] | None = None) -> Cluster:
    c = Cluster(objs or [], seed=0, controllers=[SAC, TC], authorization=False, scheduler=False, kubelet="stand-in")
    c.run(until=1)
    return c


def _secret(name: str, sa: str, data: dict | None = None) -> dict:
    s = {"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/service-account-token",
         "metadata": {"name": name, "namespace": "default", "annotations": {SERVICE_ACCOUNT_NAME_KEY: sa}}}
    if data:
        s["data"] = data
    return s


def test_every_active_namespace_gets_a_default_service_account():
    c = _cluster([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}}])
    for ns in (*SYSTEM_NAMESPACES, "team"):
        assert c.get("serviceaccounts", "default", ns) is not None
    c.client.create("namespaces", {"metadata": {"name": "later"}})
    c.run(until=2)
    assert c.get("serviceaccounts", "default", "later") is not None


def test_existing_default_service_account_is_not_recreated():
    sa = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "default", "namespace": "team",
                                                                      "labels": {"mine": "yes"}}}
    c = _cluster([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}}, sa])
    assert c.get("serviceaccounts", "default", "team")["metadata"]["labels"] == {"mine": "yes"}
    assert not [e for e in c.audit_log if e.component == SAC and e.namespace == "team"]


def test_deleted_default_service_account_is_recreated():
    c = _cluster()
    uid = c.get("serviceaccounts", "default", "default")["metadata"]["uid"]
    c.client.delete("serviceaccounts", "default", "default")
    c.run(until=2)
    again = c.get("serviceaccounts", "default", "default")
    assert again is not None and again["metadata"]["uid"] != uid


def test_terminating_namespace_gets_none():
    c = Cluster([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}}], seed=0,
                controllers=[SAC], authorization=False, scheduler=False, kubelet="stand-in")
    c.client.delete("namespaces", "team")  # Terminating before the controller's first sync
    c.run(until=2)
    assert c.get("namespaces", "team")["status"]["phase"] == "Terminating"
    assert c.get("serviceaccounts", "default", "team") is None
    assert c.get("serviceaccounts", "default", "default") is not None


def test_token_secret_without_data_is_populated():
    c = _cluster()
    c.client.create("serviceaccounts", {"metadata": {"name": "builder"}}, "default")
    c.client.create("secrets", _secret("builder-token", "builder"), "default")
    c.run(until=2)
    s = c.get("secrets", "builder-token", "default")
    sa = c.get("serviceaccounts", "builder", "default")
    assert s["metadata"]["annotations"][SERVICE_ACCOUNT_UID_KEY] == sa["metadata"]["uid"]
    assert base64.b64decode(s["data"]["namespace"]).decode() == "default"
    assert base64.b64decode(s["data"]["ca.crt"]).decode() == MODEL_ROOT_CA
    token = base64.b64decode(s["data"]["token"]).decode()
    payload = token.split(".")[1]
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    assert claims["sub"] == "system:serviceaccount:default:builder"
    assert claims["kubernetes.io/serviceaccount/secret.name"] == "builder-token"
    assert "exp" not in claims  # legacy tokens do not expire


def test_token_secret_with_data_is_unchanged():
    c = _cluster()
    sa = c.client.create("serviceaccounts", {"metadata": {"name": "builder"}}, "default")
    data = {"token": base64.b64encode(b"abc").decode(), "ca.crt": base64.b64encode(MODEL_ROOT_CA.encode()).decode(),
            "namespace": base64.b64encode(b"default").decode()}
    sec = _secret("builder-token", "builder", data)
    sec["metadata"]["annotations"][SERVICE_ACCOUNT_UID_KEY] = sa["metadata"]["uid"]
    c.client.create("secrets", sec, "default")
    c.run(until=2)
    assert c.get("secrets", "builder-token", "default")["data"] == data
    assert not [e for e in c.audit_log if e.component == TC]


def test_token_secret_without_service_account_is_deleted():
    c = _cluster()
    c.client.create("secrets", _secret("ghost-token", "ghost"), "default")
    c.run(until=2)
    assert c.get("secrets", "ghost-token", "default") is None


def test_deleting_the_service_account_deletes_its_token_secret():
    c = _cluster()
    c.client.create("serviceaccounts", {"metadata": {"name": "builder"}}, "default")
    c.client.create("secrets", _secret("builder-token", "builder"), "default")
    c.client.create("secrets", {"metadata": {"name": "plain"}, "data": {}}, "default")
    c.run(until=2)
    c.client.delete("serviceaccounts", "builder", "default")
    c.run(until=3)
    assert c.get("secrets", "builder-token", "default") is None
    assert c.get("secrets", "plain", "default") is not None
