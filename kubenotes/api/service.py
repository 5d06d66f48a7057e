"""Service helpers over the API object: whether a Service has a cluster IP, and the EndpointSlice label naming it.

Mirrors ``IsServiceIPSet`` of ``k8s.io/kubernetes/pkg/apis/core/v1/helper``,
the predicate the Endpoints and EndpointSlice controllers, kube-proxy
(``ShouldSkipService``) and the kubelet's Service environment variables all
ask. It works on the Service as the API server stores it (a JSON-shaped dict).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/apis/core/v1/helper/helpers.go (IsServiceIPSet)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/api/discovery/v1/well_known_labels.go (LabelServiceName)
https://kubernetes.io/docs/concepts/services-networking/service/#type-clusterip
"""

from __future__ import annotations

from typing import Any, Mapping

__all__ = ["LABEL_SERVICE_NAME", "is_service_ip_set"]

#: ``discoveryv1.LabelServiceName``: the label an EndpointSlice carries naming its Service, which the EndpointSlice
#: controller sets and kube-proxy and cluster DNS read.
LABEL_SERVICE_NAME = "kubernetes.io/service-name"


def is_service_ip_set(service: Mapping[str, Any]) -> bool:
    """``IsServiceIPSet``: the Service's ``spec.clusterIP`` is neither empty nor ``None``.

    A headless Service (``clusterIP: None``), an ExternalName Service and a
    Service read from a manifest before the API server allocated its IP have
    no cluster IP.

    Parameters
    ----------
    service : dict
        A Service object.

    Returns
    -------
    bool

    Raises
    ------
    AttributeError
        When ``service`` (or its ``spec``) is not a mapping.

    See Also
    --------
    kubenotes.proxy.endpoints.proxy_state : skips Services without a cluster IP.

    Notes
    -----
    Upstream reads the typed ``Spec.ClusterIP``; here a missing ``spec`` counts as an empty one.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/apis/core/v1/helper/helpers.go (IsServiceIPSet)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/api/discovery/v1/well_known_labels.go (LabelServiceName)

    Examples
    --------
    >>> is_service_ip_set({"spec": {"clusterIP": "10.96.0.10"}})
    True
    >>> is_service_ip_set({"spec": {"clusterIP": "None"}}), is_service_ip_set({"spec": {}}), is_service_ip_set({})
    (False, False, False)
    """
    ip = (service.get("spec") or {}).get("clusterIP") or ""
    return ip not in ("", "None")
