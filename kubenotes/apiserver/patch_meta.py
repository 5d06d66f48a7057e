"""Patch metadata of the built-in Kubernetes types: how each list and map field merges.

For every definition reachable from the kinds kubenotes serves
(:data:`kubenotes.apiserver.resources.SERVED_RESOURCES`, their list kinds, their
subresources' kinds, and ``Status``, ``DeleteOptions``, ``WatchEvent``),
:data:`DEFINITIONS` records the fields that carry upstream's list and patch
extensions, as upstream's OpenAPI document has them:

- ``x-kubernetes-patch-strategy``: ``merge``, ``retainKeys``,
  ``merge,retainKeys`` or ``replace`` (from the Go struct tag ``patchStrategy``);
- ``x-kubernetes-patch-merge-key``: the key a merging list of maps merges by
  (``containers`` by ``name``, ``ports`` by ``containerPort``);
- ``x-kubernetes-list-type`` (``atomic``, ``set``, ``map``) and
  ``x-kubernetes-list-map-keys``, which server-side apply reads;

plus, for fields whose type leads (directly, through list items, or through
map values) to a definition with such fields, that definition's name, so a
lookup can walk from ``Deployment`` down to ``Container.env``. These are API
facts, generated, not written by hand.

How :data:`DEFINITIONS` is generated
------------------------------------
``python tools/gen_patch_meta.py SWAGGER_JSON --write`` rewrites :data:`DEFINITIONS` and
:data:`KINDS` (the block from the comment before ``DEFINITIONS`` to the end of ``KINDS``; the rest
of this module is written by hand); ``--check`` only compares. ``SWAGGER_JSON`` is
``api/openapi-spec/swagger.json`` of Kubernetes ``release-1.34`` (the copy
kubernetes-client/python@v34.1.0 keeps as ``kubernetes/swagger.json.unprocessed``; sha256
``f0cb7a8eaad46df1883eeb494771d310609c859649aff668bba3d238ffcb1a6e``); no installed package ships
it, so ``tests/apiserver/test_generated.py`` compares against it only when
``KUBENOTES_SWAGGER_JSON`` names a copy. The script walks the definition refs (not lightkube's
models) from the roots: the definitions of every served kind, its list kind and its subresources'
kinds, and meta/v1 ``Status``, ``DeleteOptions`` and ``WatchEvent``. Of the 363 reachable
definitions, 203 have metadata (396 fields): a field has a row when it carries one of the four
extensions, or when its type (its items', its map values') is a definition that has rows.

Notes
-----
The server applies a strategic merge patch with the metadata of the Go
struct tags (``PatchMetaFromStruct``); the OpenAPI extensions are generated
from the same tags, so the two agree. Custom resources have no patch
metadata (upstream refuses a strategic merge patch for them); a kind this
table does not know gets a lookup that has no metadata anywhere.

References
----------
kubernetes/kubernetes@v1.34.0 api/openapi-spec/swagger.json
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/util/strategicpatch/meta.go (LookupPatchMeta)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/api/core/v1/types.go (patchStrategy / patchMergeKey tags)
https://kubernetes.io/docs/reference/using-api/server-side-apply/#merge-strategy
"""

from __future__ import annotations

from typing import NamedTuple

from kubenotes.apiserver.patch import PatchMeta

__all__ = [
    "FieldPatchMeta",
    "DEFINITIONS",
    "KINDS",
    "PatchMetaFromDefinitions",
    "definition_for",
    "meta_for",
    "field_extensions",
    "list_info_for",
]


class FieldPatchMeta(NamedTuple):
    """One field's list and patch extensions, and the definition its value (or its items) has.

    Attributes
    ----------
    patch_strategy : str or None
        ``x-kubernetes-patch-strategy`` (``"merge"``, ``"retainKeys"``, ``"merge,retainKeys"``, ``"replace"``).
    patch_merge_key : str or None
        ``x-kubernetes-patch-merge-key``.
    list_type : str or None
        ``x-kubernetes-list-type`` (``"atomic"``, ``"set"``, ``"map"``).
    list_map_keys : tuple[str, ...] or None
        ``x-kubernetes-list-map-keys``.
    definition : str or None
        Definition name of the field's type (of its items for a list, of its
        values for a map), kept only when that definition has metadata itself.
    """

    patch_strategy: str | None
    patch_merge_key: str | None
    list_type: str | None
    list_map_keys: tuple[str, ...] | None
    definition: str | None


_f = FieldPatchMeta

#: definition -> field -> :class:`FieldPatchMeta` (generated; see the module docstring).
DEFINITIONS: dict[str, dict[str, FieldPatchMeta]] = {
    "io.k8s.api.admissionregistration.v1.MatchResources": {
        "excludeResourceRules": _f(None, None, "atomic", None, "io.k8s.api.admissionregistration.v1.NamedRuleWithOperations"),
        "namespaceSelector": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"),
        "objectSelector": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"),
        "resourceRules": _f(None, None, "atomic", None, "io.k8s.api.admissionregistration.v1.NamedRuleWithOperations"),
    },
    "io.k8s.api.admissionregistration.v1.MutatingWebhook": {
        "admissionReviewVersions": _f(None, None, "atomic", None, None),
        "matchConditions": _f("merge", "name", "map", ("name",), None),
        "namespaceSelector": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"),
        "objectSelector": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"),
        "rules": _f(None, None, "atomic", None, "io.k8s.api.admissionregistration.v1.RuleWithOperations"),
    },
    "io.k8s.api.admissionregistration.v1.MutatingWebhookConfiguration": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "webhooks": _f("merge", "name", "map", ("name",), "io.k8s.api.admissionregistration.v1.MutatingWebhook"),
    },
    "io.k8s.api.admissionregistration.v1.MutatingWebhookConfigurationList": {
        "items": _f(None, None, None, None, "io.k8s.api.admissionregistration.v1.MutatingWebhookConfiguration"),
    },
    "io.k8s.api.admissionregistration.v1.NamedRuleWithOperations": {
        "apiGroups": _f(None, None, "atomic", None, None),
        "apiVersions": _f(None, None, "atomic", None, None),
        "operations": _f(None, None, "atomic", None, None),
        "resourceNames": _f(None, None, "atomic", None, None),
        "resources": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.admissionregistration.v1.ParamRef": {
        "selector": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"),
    },
    "io.k8s.api.admissionregistration.v1.RuleWithOperations": {
        "apiGroups": _f(None, None, "atomic", None, None),
        "apiVersions": _f(None, None, "atomic", None, None),
        "operations": _f(None, None, "atomic", None, None),
        "resources": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.admissionregistration.v1.TypeChecking": {
        "expressionWarnings": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicy": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicySpec"),
        "status": _f(None, None, None, None, "io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyStatus"),
    },
    "io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyBinding": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyBindingSpec"),
    },
    "io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyBindingList": {
        "items": _f(None, None, None, None, "io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyBinding"),
    },
    "io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyBindingSpec": {
        "matchResources": _f(None, None, None, None, "io.k8s.api.admissionregistration.v1.MatchResources"),
        "paramRef": _f(None, None, None, None, "io.k8s.api.admissionregistration.v1.ParamRef"),
        "validationActions": _f(None, None, "set", None, None),
    },
    "io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyList": {
        "items": _f(None, None, None, None, "io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicy"),
    },
    "io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicySpec": {
        "auditAnnotations": _f(None, None, "atomic", None, None),
        "matchConditions": _f("merge", "name", "map", ("name",), None),
        "matchConstraints": _f(None, None, None, None, "io.k8s.api.admissionregistration.v1.MatchResources"),
        "validations": _f(None, None, "atomic", None, None),
        "variables": _f("merge", "name", "map", ("name",), None),
    },
    "io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyStatus": {
        "conditions": _f(None, None, "map", ("type",), None),
        "typeChecking": _f(None, None, None, None, "io.k8s.api.admissionregistration.v1.TypeChecking"),
    },
    "io.k8s.api.admissionregistration.v1.ValidatingWebhook": {
        "admissionReviewVersions": _f(None, None, "atomic", None, None),
        "matchConditions": _f("merge", "name", "map", ("name",), None),
        "namespaceSelector": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"),
        "objectSelector": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"),
        "rules": _f(None, None, "atomic", None, "io.k8s.api.admissionregistration.v1.RuleWithOperations"),
    },
    "io.k8s.api.admissionregistration.v1.ValidatingWebhookConfiguration": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "webhooks": _f("merge", "name", "map", ("name",), "io.k8s.api.admissionregistration.v1.ValidatingWebhook"),
    },
    "io.k8s.api.admissionregistration.v1.ValidatingWebhookConfigurationList": {
        "items": _f(None, None, None, None, "io.k8s.api.admissionregistration.v1.ValidatingWebhookConfiguration"),
    },
    "io.k8s.api.apps.v1.ControllerRevision": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
    },
    "io.k8s.api.apps.v1.ControllerRevisionList": {
        "items": _f(None, None, None, None, "io.k8s.api.apps.v1.ControllerRevision"),
    },
    "io.k8s.api.apps.v1.DaemonSet": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.apps.v1.DaemonSetSpec"),
        "status": _f(None, None, None, None, "io.k8s.api.apps.v1.DaemonSetStatus"),
    },
    "io.k8s.api.apps.v1.DaemonSetList": {
        "items": _f(None, None, None, None, "io.k8s.api.apps.v1.DaemonSet"),
    },
    "io.k8s.api.apps.v1.DaemonSetSpec": {
        "selector": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"),
        "template": _f(None, None, None, None, "io.k8s.api.core.v1.PodTemplateSpec"),
    },
    "io.k8s.api.apps.v1.DaemonSetStatus": {
        "conditions": _f("merge", "type", "map", ("type",), None),
    },
    "io.k8s.api.apps.v1.Deployment": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.apps.v1.DeploymentSpec"),
        "status": _f(None, None, None, None, "io.k8s.api.apps.v1.DeploymentStatus"),
    },
    "io.k8s.api.apps.v1.DeploymentList": {
        "items": _f(None, None, None, None, "io.k8s.api.apps.v1.Deployment"),
    },
    "io.k8s.api.apps.v1.DeploymentSpec": {
        "selector": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"),
        "strategy": _f("retainKeys", None, None, None, None),
        "template": _f(None, None, None, None, "io.k8s.api.core.v1.PodTemplateSpec"),
    },
    "io.k8s.api.apps.v1.DeploymentStatus": {
        "conditions": _f("merge", "type", "map", ("type",), None),
    },
    "io.k8s.api.apps.v1.ReplicaSet": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.apps.v1.ReplicaSetSpec"),
        "status": _f(None, None, None, None, "io.k8s.api.apps.v1.ReplicaSetStatus"),
    },
    "io.k8s.api.apps.v1.ReplicaSetList": {
        "items": _f(None, None, None, None, "io.k8s.api.apps.v1.ReplicaSet"),
    },
    "io.k8s.api.apps.v1.ReplicaSetSpec": {
        "selector": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"),
        "template": _f(None, None, None, None, "io.k8s.api.core.v1.PodTemplateSpec"),
    },
    "io.k8s.api.apps.v1.ReplicaSetStatus": {
        "conditions": _f("merge", "type", "map", ("type",), None),
    },
    "io.k8s.api.apps.v1.StatefulSet": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.apps.v1.StatefulSetSpec"),
        "status": _f(None, None, None, None, "io.k8s.api.apps.v1.StatefulSetStatus"),
    },
    "io.k8s.api.apps.v1.StatefulSetList": {
        "items": _f(None, None, None, None, "io.k8s.api.apps.v1.StatefulSet"),
    },
    "io.k8s.api.apps.v1.StatefulSetSpec": {
        "selector": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"),
        "template": _f(None, None, None, None, "io.k8s.api.core.v1.PodTemplateSpec"),
        "volumeClaimTemplates": _f(None, None, "atomic", None, "io.k8s.api.core.v1.PersistentVolumeClaim"),
    },
    "io.k8s.api.apps.v1.StatefulSetStatus": {
        "conditions": _f("merge", "type", "map", ("type",), None),
    },
    "io.k8s.api.authentication.v1.SelfSubjectReview": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "status": _f(None, None, None, None, "io.k8s.api.authentication.v1.SelfSubjectReviewStatus"),
    },
    "io.k8s.api.authentication.v1.SelfSubjectReviewStatus": {
        "userInfo": _f(None, None, None, None, "io.k8s.api.authentication.v1.UserInfo"),
    },
    "io.k8s.api.authentication.v1.TokenRequest": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.authentication.v1.TokenRequestSpec"),
    },
    "io.k8s.api.authentication.v1.TokenRequestSpec": {
        "audiences": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.authentication.v1.TokenReview": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.authentication.v1.TokenReviewSpec"),
        "status": _f(None, None, None, None, "io.k8s.api.authentication.v1.TokenReviewStatus"),
    },
    "io.k8s.api.authentication.v1.TokenReviewSpec": {
        "audiences": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.authentication.v1.TokenReviewStatus": {
        "audiences": _f(None, None, "atomic", None, None),
        "user": _f(None, None, None, None, "io.k8s.api.authentication.v1.UserInfo"),
    },
    "io.k8s.api.authentication.v1.UserInfo": {
        "groups": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.authorization.v1.FieldSelectorAttributes": {
        "requirements": _f(None, None, "atomic", None, "io.k8s.apimachinery.pkg.apis.meta.v1.FieldSelectorRequirement"),
    },
    "io.k8s.api.authorization.v1.LabelSelectorAttributes": {
        "requirements": _f(None, None, "atomic", None, "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement"),
    },
    "io.k8s.api.authorization.v1.LocalSubjectAccessReview": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.authorization.v1.SubjectAccessReviewSpec"),
    },
    "io.k8s.api.authorization.v1.NonResourceRule": {
        "nonResourceURLs": _f(None, None, "atomic", None, None),
        "verbs": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.authorization.v1.ResourceAttributes": {
        "fieldSelector": _f(None, None, None, None, "io.k8s.api.authorization.v1.FieldSelectorAttributes"),
        "labelSelector": _f(None, None, None, None, "io.k8s.api.authorization.v1.LabelSelectorAttributes"),
    },
    "io.k8s.api.authorization.v1.ResourceRule": {
        "apiGroups": _f(None, None, "atomic", None, None),
        "resourceNames": _f(None, None, "atomic", None, None),
        "resources": _f(None, None, "atomic", None, None),
        "verbs": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.authorization.v1.SelfSubjectAccessReview": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.authorization.v1.SelfSubjectAccessReviewSpec"),
    },
    "io.k8s.api.authorization.v1.SelfSubjectAccessReviewSpec": {
        "resourceAttributes": _f(None, None, None, None, "io.k8s.api.authorization.v1.ResourceAttributes"),
    },
    "io.k8s.api.authorization.v1.SelfSubjectRulesReview": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "status": _f(None, None, None, None, "io.k8s.api.authorization.v1.SubjectRulesReviewStatus"),
    },
    "io.k8s.api.authorization.v1.SubjectAccessReview": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.authorization.v1.SubjectAccessReviewSpec"),
    },
    "io.k8s.api.authorization.v1.SubjectAccessReviewSpec": {
        "groups": _f(None, None, "atomic", None, None),
        "resourceAttributes": _f(None, None, None, None, "io.k8s.api.authorization.v1.ResourceAttributes"),
    },
    "io.k8s.api.authorization.v1.SubjectRulesReviewStatus": {
        "nonResourceRules": _f(None, None, "atomic", None, "io.k8s.api.authorization.v1.NonResourceRule"),
        "resourceRules": _f(None, None, "atomic", None, "io.k8s.api.authorization.v1.ResourceRule"),
    },
    "io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
    },
    "io.k8s.api.autoscaling.v1.HorizontalPodAutoscalerList": {
        "items": _f(None, None, None, None, "io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler"),
    },
    "io.k8s.api.autoscaling.v1.Scale": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
    },
    "io.k8s.api.autoscaling.v2.ExternalMetricSource": {
        "metric": _f(None, None, None, None, "io.k8s.api.autoscaling.v2.MetricIdentifier"),
    },
    "io.k8s.api.autoscaling.v2.ExternalMetricStatus": {
        "metric": _f(None, None, None, None, "io.k8s.api.autoscaling.v2.MetricIdentifier"),
    },
    "io.k8s.api.autoscaling.v2.HPAScalingRules": {
        "policies": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerSpec"),
        "status": _f(None, None, None, None, "io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerStatus"),
    },
    "io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerBehavior": {
        "scaleDown": _f(None, None, None, None, "io.k8s.api.autoscaling.v2.HPAScalingRules"),
        "scaleUp": _f(None, None, None, None, "io.k8s.api.autoscaling.v2.HPAScalingRules"),
    },
    "io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerList": {
        "items": _f(None, None, None, None, "io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler"),
    },
    "io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerSpec": {
        "behavior": _f(None, None, None, None, "io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerBehavior"),
        "metrics": _f(None, None, "atomic", None, "io.k8s.api.autoscaling.v2.MetricSpec"),
    },
    "io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerStatus": {
        "conditions": _f("merge", "type", "map", ("type",), None),
        "currentMetrics": _f(None, None, "atomic", None, "io.k8s.api.autoscaling.v2.MetricStatus"),
    },
    "io.k8s.api.autoscaling.v2.MetricIdentifier": {
        "selector": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"),
    },
    "io.k8s.api.autoscaling.v2.MetricSpec": {
        "external": _f(None, None, None, None, "io.k8s.api.autoscaling.v2.ExternalMetricSource"),
        "object": _f(None, None, None, None, "io.k8s.api.autoscaling.v2.ObjectMetricSource"),
        "pods": _f(None, None, None, None, "io.k8s.api.autoscaling.v2.PodsMetricSource"),
    },
    "io.k8s.api.autoscaling.v2.MetricStatus": {
        "external": _f(None, None, None, None, "io.k8s.api.autoscaling.v2.ExternalMetricStatus"),
        "object": _f(None, None, None, None, "io.k8s.api.autoscaling.v2.ObjectMetricStatus"),
        "pods": _f(None, None, None, None, "io.k8s.api.autoscaling.v2.PodsMetricStatus"),
    },
    "io.k8s.api.autoscaling.v2.ObjectMetricSource": {
        "metric": _f(None, None, None, None, "io.k8s.api.autoscaling.v2.MetricIdentifier"),
    },
    "io.k8s.api.autoscaling.v2.ObjectMetricStatus": {
        "metric": _f(None, None, None, None, "io.k8s.api.autoscaling.v2.MetricIdentifier"),
    },
    "io.k8s.api.autoscaling.v2.PodsMetricSource": {
        "metric": _f(None, None, None, None, "io.k8s.api.autoscaling.v2.MetricIdentifier"),
    },
    "io.k8s.api.autoscaling.v2.PodsMetricStatus": {
        "metric": _f(None, None, None, None, "io.k8s.api.autoscaling.v2.MetricIdentifier"),
    },
    "io.k8s.api.batch.v1.CronJob": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.batch.v1.CronJobSpec"),
        "status": _f(None, None, None, None, "io.k8s.api.batch.v1.CronJobStatus"),
    },
    "io.k8s.api.batch.v1.CronJobList": {
        "items": _f(None, None, None, None, "io.k8s.api.batch.v1.CronJob"),
    },
    "io.k8s.api.batch.v1.CronJobSpec": {
        "jobTemplate": _f(None, None, None, None, "io.k8s.api.batch.v1.JobTemplateSpec"),
    },
    "io.k8s.api.batch.v1.CronJobStatus": {
        "active": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.batch.v1.Job": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.batch.v1.JobSpec"),
        "status": _f(None, None, None, None, "io.k8s.api.batch.v1.JobStatus"),
    },
    "io.k8s.api.batch.v1.JobList": {
        "items": _f(None, None, None, None, "io.k8s.api.batch.v1.Job"),
    },
    "io.k8s.api.batch.v1.JobSpec": {
        "podFailurePolicy": _f(None, None, None, None, "io.k8s.api.batch.v1.PodFailurePolicy"),
        "selector": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"),
        "successPolicy": _f(None, None, None, None, "io.k8s.api.batch.v1.SuccessPolicy"),
        "template": _f(None, None, None, None, "io.k8s.api.core.v1.PodTemplateSpec"),
    },
    "io.k8s.api.batch.v1.JobStatus": {
        "conditions": _f("merge", "type", "atomic", None, None),
        "uncountedTerminatedPods": _f(None, None, None, None, "io.k8s.api.batch.v1.UncountedTerminatedPods"),
    },
    "io.k8s.api.batch.v1.JobTemplateSpec": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.batch.v1.JobSpec"),
    },
    "io.k8s.api.batch.v1.PodFailurePolicy": {
        "rules": _f(None, None, "atomic", None, "io.k8s.api.batch.v1.PodFailurePolicyRule"),
    },
    "io.k8s.api.batch.v1.PodFailurePolicyOnExitCodesRequirement": {
        "values": _f(None, None, "set", None, None),
    },
    "io.k8s.api.batch.v1.PodFailurePolicyRule": {
        "onExitCodes": _f(None, None, None, None, "io.k8s.api.batch.v1.PodFailurePolicyOnExitCodesRequirement"),
        "onPodConditions": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.batch.v1.SuccessPolicy": {
        "rules": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.batch.v1.UncountedTerminatedPods": {
        "failed": _f(None, None, "set", None, None),
        "succeeded": _f(None, None, "set", None, None),
    },
    "io.k8s.api.certificates.v1.CertificateSigningRequest": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.certificates.v1.CertificateSigningRequestSpec"),
        "status": _f(None, None, None, None, "io.k8s.api.certificates.v1.CertificateSigningRequestStatus"),
    },
    "io.k8s.api.certificates.v1.CertificateSigningRequestList": {
        "items": _f(None, None, None, None, "io.k8s.api.certificates.v1.CertificateSigningRequest"),
    },
    "io.k8s.api.certificates.v1.CertificateSigningRequestSpec": {
        "groups": _f(None, None, "atomic", None, None),
        "request": _f(None, None, "atomic", None, None),
        "usages": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.certificates.v1.CertificateSigningRequestStatus": {
        "certificate": _f(None, None, "atomic", None, None),
        "conditions": _f(None, None, "map", ("type",), None),
    },
    "io.k8s.api.coordination.v1.Lease": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
    },
    "io.k8s.api.coordination.v1.LeaseList": {
        "items": _f(None, None, None, None, "io.k8s.api.coordination.v1.Lease"),
    },
    "io.k8s.api.core.v1.Affinity": {
        "nodeAffinity": _f(None, None, None, None, "io.k8s.api.core.v1.NodeAffinity"),
        "podAffinity": _f(None, None, None, None, "io.k8s.api.core.v1.PodAffinity"),
        "podAntiAffinity": _f(None, None, None, None, "io.k8s.api.core.v1.PodAntiAffinity"),
    },
    "io.k8s.api.core.v1.Binding": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
    },
    "io.k8s.api.core.v1.Capabilities": {
        "add": _f(None, None, "atomic", None, None),
        "drop": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.core.v1.CephFSPersistentVolumeSource": {
        "monitors": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.core.v1.CephFSVolumeSource": {
        "monitors": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.core.v1.ClusterTrustBundleProjection": {
        "labelSelector": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"),
    },
    "io.k8s.api.core.v1.ComponentStatus": {
        "conditions": _f("merge", "type", "map", ("type",), None),
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
    },
    "io.k8s.api.core.v1.ComponentStatusList": {
        "items": _f(None, None, None, None, "io.k8s.api.core.v1.ComponentStatus"),
    },
    "io.k8s.api.core.v1.ConfigMap": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
    },
    "io.k8s.api.core.v1.ConfigMapList": {
        "items": _f(None, None, None, None, "io.k8s.api.core.v1.ConfigMap"),
    },
    "io.k8s.api.core.v1.ConfigMapProjection": {
        "items": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.core.v1.ConfigMapVolumeSource": {
        "items": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.core.v1.Container": {
        "args": _f(None, None, "atomic", None, None),
        "command": _f(None, None, "atomic", None, None),
        "env": _f("merge", "name", "map", ("name",), None),
        "envFrom": _f(None, None, "atomic", None, None),
        "lifecycle": _f(None, None, None, None, "io.k8s.api.core.v1.Lifecycle"),
        "livenessProbe": _f(None, None, None, None, "io.k8s.api.core.v1.Probe"),
        "ports": _f("merge", "containerPort", "map", ("containerPort", "protocol"), None),
        "readinessProbe": _f(None, None, None, None, "io.k8s.api.core.v1.Probe"),
        "resizePolicy": _f(None, None, "atomic", None, None),
        "resources": _f(None, None, None, None, "io.k8s.api.core.v1.ResourceRequirements"),
        "restartPolicyRules": _f(None, None, "atomic", None, "io.k8s.api.core.v1.ContainerRestartRule"),
        "securityContext": _f(None, None, None, None, "io.k8s.api.core.v1.SecurityContext"),
        "startupProbe": _f(None, None, None, None, "io.k8s.api.core.v1.Probe"),
        "volumeDevices": _f("merge", "devicePath", "map", ("devicePath",), None),
        "volumeMounts": _f("merge", "mountPath", "map", ("mountPath",), None),
    },
    "io.k8s.api.core.v1.ContainerImage": {
        "names": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.core.v1.ContainerRestartRule": {
        "exitCodes": _f(None, None, None, None, "io.k8s.api.core.v1.ContainerRestartRuleOnExitCodes"),
    },
    "io.k8s.api.core.v1.ContainerRestartRuleOnExitCodes": {
        "values": _f(None, None, "set", None, None),
    },
    "io.k8s.api.core.v1.ContainerStatus": {
        "allocatedResourcesStatus": _f("merge", "name", "map", ("name",), "io.k8s.api.core.v1.ResourceStatus"),
        "resources": _f(None, None, None, None, "io.k8s.api.core.v1.ResourceRequirements"),
        "user": _f(None, None, None, None, "io.k8s.api.core.v1.ContainerUser"),
        "volumeMounts": _f("merge", "mountPath", "map", ("mountPath",), None),
    },
    "io.k8s.api.core.v1.ContainerUser": {
        "linux": _f(None, None, None, None, "io.k8s.api.core.v1.LinuxContainerUser"),
    },
    "io.k8s.api.core.v1.DownwardAPIProjection": {
        "items": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.core.v1.DownwardAPIVolumeSource": {
        "items": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.core.v1.EndpointSubset": {
        "addresses": _f(None, None, "atomic", None, None),
        "notReadyAddresses": _f(None, None, "atomic", None, None),
        "ports": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.core.v1.Endpoints": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "subsets": _f(None, None, "atomic", None, "io.k8s.api.core.v1.EndpointSubset"),
    },
    "io.k8s.api.core.v1.EndpointsList": {
        "items": _f(None, None, None, None, "io.k8s.api.core.v1.Endpoints"),
    },
    "io.k8s.api.core.v1.EphemeralContainer": {
        "args": _f(None, None, "atomic", None, None),
        "command": _f(None, None, "atomic", None, None),
        "env": _f("merge", "name", "map", ("name",), None),
        "envFrom": _f(None, None, "atomic", None, None),
        "lifecycle": _f(None, None, None, None, "io.k8s.api.core.v1.Lifecycle"),
        "livenessProbe": _f(None, None, None, None, "io.k8s.api.core.v1.Probe"),
        "ports": _f("merge", "containerPort", "map", ("containerPort", "protocol"), None),
        "readinessProbe": _f(None, None, None, None, "io.k8s.api.core.v1.Probe"),
        "resizePolicy": _f(None, None, "atomic", None, None),
        "resources": _f(None, None, None, None, "io.k8s.api.core.v1.ResourceRequirements"),
        "restartPolicyRules": _f(None, None, "atomic", None, "io.k8s.api.core.v1.ContainerRestartRule"),
        "securityContext": _f(None, None, None, None, "io.k8s.api.core.v1.SecurityContext"),
        "startupProbe": _f(None, None, None, None, "io.k8s.api.core.v1.Probe"),
        "volumeDevices": _f("merge", "devicePath", "map", ("devicePath",), None),
        "volumeMounts": _f("merge", "mountPath", "map", ("mountPath",), None),
    },
    "io.k8s.api.core.v1.EphemeralVolumeSource": {
        "volumeClaimTemplate": _f(None, None, None, None, "io.k8s.api.core.v1.PersistentVolumeClaimTemplate"),
    },
    "io.k8s.api.core.v1.Event": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
    },
    "io.k8s.api.core.v1.EventList": {
        "items": _f(None, None, None, None, "io.k8s.api.core.v1.Event"),
    },
    "io.k8s.api.core.v1.ExecAction": {
        "command": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.core.v1.FCVolumeSource": {
        "targetWWNs": _f(None, None, "atomic", None, None),
        "wwids": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.core.v1.HTTPGetAction": {
        "httpHeaders": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.core.v1.HostAlias": {
        "hostnames": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.core.v1.ISCSIPersistentVolumeSource": {
        "portals": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.core.v1.ISCSIVolumeSource": {
        "portals": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.core.v1.Lifecycle": {
        "postStart": _f(None, None, None, None, "io.k8s.api.core.v1.LifecycleHandler"),
        "preStop": _f(None, None, None, None, "io.k8s.api.core.v1.LifecycleHandler"),
    },
    "io.k8s.api.core.v1.LifecycleHandler": {
        "exec": _f(None, None, None, None, "io.k8s.api.core.v1.ExecAction"),
        "httpGet": _f(None, None, None, None, "io.k8s.api.core.v1.HTTPGetAction"),
    },
    "io.k8s.api.core.v1.LimitRange": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.core.v1.LimitRangeSpec"),
    },
    "io.k8s.api.core.v1.LimitRangeList": {
        "items": _f(None, None, None, None, "io.k8s.api.core.v1.LimitRange"),
    },
    "io.k8s.api.core.v1.LimitRangeSpec": {
        "limits": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.core.v1.LinuxContainerUser": {
        "supplementalGroups": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.core.v1.LoadBalancerIngress": {
        "ports": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.core.v1.LoadBalancerStatus": {
        "ingress": _f(None, None, "atomic", None, "io.k8s.api.core.v1.LoadBalancerIngress"),
    },
    "io.k8s.api.core.v1.Namespace": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.core.v1.NamespaceSpec"),
        "status": _f(None, None, None, None, "io.k8s.api.core.v1.NamespaceStatus"),
    },
    "io.k8s.api.core.v1.NamespaceList": {
        "items": _f(None, None, None, None, "io.k8s.api.core.v1.Namespace"),
    },
    "io.k8s.api.core.v1.NamespaceSpec": {
        "finalizers": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.core.v1.NamespaceStatus": {
        "conditions": _f("merge", "type", "map", ("type",), None),
    },
    "io.k8s.api.core.v1.Node": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.core.v1.NodeSpec"),
        "status": _f(None, None, None, None, "io.k8s.api.core.v1.NodeStatus"),
    },
    "io.k8s.api.core.v1.NodeAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": _f(None, None, "atomic", None, "io.k8s.api.core.v1.PreferredSchedulingTerm"),
        "requiredDuringSchedulingIgnoredDuringExecution": _f(None, None, None, None, "io.k8s.api.core.v1.NodeSelector"),
    },
    "io.k8s.api.core.v1.NodeList": {
        "items": _f(None, None, None, None, "io.k8s.api.core.v1.Node"),
    },
    "io.k8s.api.core.v1.NodeSelector": {
        "nodeSelectorTerms": _f(None, None, "atomic", None, "io.k8s.api.core.v1.NodeSelectorTerm"),
    },
    "io.k8s.api.core.v1.NodeSelectorRequirement": {
        "values": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.core.v1.NodeSelectorTerm": {
        "matchExpressions": _f(None, None, "atomic", None, "io.k8s.api.core.v1.NodeSelectorRequirement"),
        "matchFields": _f(None, None, "atomic", None, "io.k8s.api.core.v1.NodeSelectorRequirement"),
    },
    "io.k8s.api.core.v1.NodeSpec": {
        "podCIDRs": _f("merge", None, "set", None, None),
        "taints": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.core.v1.NodeStatus": {
        "addresses": _f("merge", "type", "map", ("type",), None),
        "conditions": _f("merge", "type", "map", ("type",), None),
        "images": _f(None, None, "atomic", None, "io.k8s.api.core.v1.ContainerImage"),
        "runtimeHandlers": _f(None, None, "atomic", None, None),
        "volumesAttached": _f(None, None, "atomic", None, None),
        "volumesInUse": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.core.v1.PersistentVolume": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.core.v1.PersistentVolumeSpec"),
    },
    "io.k8s.api.core.v1.PersistentVolumeClaim": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.core.v1.PersistentVolumeClaimSpec"),
        "status": _f(None, None, None, None, "io.k8s.api.core.v1.PersistentVolumeClaimStatus"),
    },
    "io.k8s.api.core.v1.PersistentVolumeClaimList": {
        "items": _f(None, None, None, None, "io.k8s.api.core.v1.PersistentVolumeClaim"),
    },
    "io.k8s.api.core.v1.PersistentVolumeClaimSpec": {
        "accessModes": _f(None, None, "atomic", None, None),
        "selector": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"),
    },
    "io.k8s.api.core.v1.PersistentVolumeClaimStatus": {
        "accessModes": _f(None, None, "atomic", None, None),
        "conditions": _f("merge", "type", "map", ("type",), None),
    },
    "io.k8s.api.core.v1.PersistentVolumeClaimTemplate": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.core.v1.PersistentVolumeClaimSpec"),
    },
    "io.k8s.api.core.v1.PersistentVolumeList": {
        "items": _f(None, None, None, None, "io.k8s.api.core.v1.PersistentVolume"),
    },
    "io.k8s.api.core.v1.PersistentVolumeSpec": {
        "accessModes": _f(None, None, "atomic", None, None),
        "cephfs": _f(None, None, None, None, "io.k8s.api.core.v1.CephFSPersistentVolumeSource"),
        "fc": _f(None, None, None, None, "io.k8s.api.core.v1.FCVolumeSource"),
        "iscsi": _f(None, None, None, None, "io.k8s.api.core.v1.ISCSIPersistentVolumeSource"),
        "mountOptions": _f(None, None, "atomic", None, None),
        "nodeAffinity": _f(None, None, None, None, "io.k8s.api.core.v1.VolumeNodeAffinity"),
        "rbd": _f(None, None, None, None, "io.k8s.api.core.v1.RBDPersistentVolumeSource"),
    },
    "io.k8s.api.core.v1.Pod": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.core.v1.PodSpec"),
        "status": _f(None, None, None, None, "io.k8s.api.core.v1.PodStatus"),
    },
    "io.k8s.api.core.v1.PodAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": _f(None, None, "atomic", None, "io.k8s.api.core.v1.WeightedPodAffinityTerm"),
        "requiredDuringSchedulingIgnoredDuringExecution": _f(None, None, "atomic", None, "io.k8s.api.core.v1.PodAffinityTerm"),
    },
    "io.k8s.api.core.v1.PodAffinityTerm": {
        "labelSelector": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"),
        "matchLabelKeys": _f(None, None, "atomic", None, None),
        "mismatchLabelKeys": _f(None, None, "atomic", None, None),
        "namespaceSelector": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"),
        "namespaces": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.core.v1.PodAntiAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": _f(None, None, "atomic", None, "io.k8s.api.core.v1.WeightedPodAffinityTerm"),
        "requiredDuringSchedulingIgnoredDuringExecution": _f(None, None, "atomic", None, "io.k8s.api.core.v1.PodAffinityTerm"),
    },
    "io.k8s.api.core.v1.PodDNSConfig": {
        "nameservers": _f(None, None, "atomic", None, None),
        "options": _f(None, None, "atomic", None, None),
        "searches": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.core.v1.PodExtendedResourceClaimStatus": {
        "requestMappings": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.core.v1.PodList": {
        "items": _f(None, None, None, None, "io.k8s.api.core.v1.Pod"),
    },
    "io.k8s.api.core.v1.PodSecurityContext": {
        "supplementalGroups": _f(None, None, "atomic", None, None),
        "sysctls": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.core.v1.PodSpec": {
        "affinity": _f(None, None, None, None, "io.k8s.api.core.v1.Affinity"),
        "containers": _f("merge", "name", "map", ("name",), "io.k8s.api.core.v1.Container"),
        "dnsConfig": _f(None, None, None, None, "io.k8s.api.core.v1.PodDNSConfig"),
        "ephemeralContainers": _f("merge", "name", "map", ("name",), "io.k8s.api.core.v1.EphemeralContainer"),
        "hostAliases": _f("merge", "ip", "map", ("ip",), "io.k8s.api.core.v1.HostAlias"),
        "imagePullSecrets": _f("merge", "name", "map", ("name",), None),
        "initContainers": _f("merge", "name", "map", ("name",), "io.k8s.api.core.v1.Container"),
        "readinessGates": _f(None, None, "atomic", None, None),
        "resourceClaims": _f("merge,retainKeys", "name", "map", ("name",), None),
        "resources": _f(None, None, None, None, "io.k8s.api.core.v1.ResourceRequirements"),
        "schedulingGates": _f("merge", "name", "map", ("name",), None),
        "securityContext": _f(None, None, None, None, "io.k8s.api.core.v1.PodSecurityContext"),
        "tolerations": _f(None, None, "atomic", None, None),
        "topologySpreadConstraints": _f("merge", "topologyKey", "map", ("topologyKey", "whenUnsatisfiable"), "io.k8s.api.core.v1.TopologySpreadConstraint"),
        "volumes": _f("merge,retainKeys", "name", "map", ("name",), "io.k8s.api.core.v1.Volume"),
    },
    "io.k8s.api.core.v1.PodStatus": {
        "conditions": _f("merge", "type", "map", ("type",), None),
        "containerStatuses": _f(None, None, "atomic", None, "io.k8s.api.core.v1.ContainerStatus"),
        "ephemeralContainerStatuses": _f(None, None, "atomic", None, "io.k8s.api.core.v1.ContainerStatus"),
        "extendedResourceClaimStatus": _f(None, None, None, None, "io.k8s.api.core.v1.PodExtendedResourceClaimStatus"),
        "hostIPs": _f("merge", "ip", "atomic", None, None),
        "initContainerStatuses": _f(None, None, "atomic", None, "io.k8s.api.core.v1.ContainerStatus"),
        "podIPs": _f("merge", "ip", "map", ("ip",), None),
        "resourceClaimStatuses": _f("merge,retainKeys", "name", "map", ("name",), None),
    },
    "io.k8s.api.core.v1.PodTemplate": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "template": _f(None, None, None, None, "io.k8s.api.core.v1.PodTemplateSpec"),
    },
    "io.k8s.api.core.v1.PodTemplateList": {
        "items": _f(None, None, None, None, "io.k8s.api.core.v1.PodTemplate"),
    },
    "io.k8s.api.core.v1.PodTemplateSpec": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.core.v1.PodSpec"),
    },
    "io.k8s.api.core.v1.PreferredSchedulingTerm": {
        "preference": _f(None, None, None, None, "io.k8s.api.core.v1.NodeSelectorTerm"),
    },
    "io.k8s.api.core.v1.Probe": {
        "exec": _f(None, None, None, None, "io.k8s.api.core.v1.ExecAction"),
        "httpGet": _f(None, None, None, None, "io.k8s.api.core.v1.HTTPGetAction"),
    },
    "io.k8s.api.core.v1.ProjectedVolumeSource": {
        "sources": _f(None, None, "atomic", None, "io.k8s.api.core.v1.VolumeProjection"),
    },
    "io.k8s.api.core.v1.RBDPersistentVolumeSource": {
        "monitors": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.core.v1.RBDVolumeSource": {
        "monitors": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.core.v1.ReplicationController": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.core.v1.ReplicationControllerSpec"),
        "status": _f(None, None, None, None, "io.k8s.api.core.v1.ReplicationControllerStatus"),
    },
    "io.k8s.api.core.v1.ReplicationControllerList": {
        "items": _f(None, None, None, None, "io.k8s.api.core.v1.ReplicationController"),
    },
    "io.k8s.api.core.v1.ReplicationControllerSpec": {
        "template": _f(None, None, None, None, "io.k8s.api.core.v1.PodTemplateSpec"),
    },
    "io.k8s.api.core.v1.ReplicationControllerStatus": {
        "conditions": _f("merge", "type", "map", ("type",), None),
    },
    "io.k8s.api.core.v1.ResourceQuota": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.core.v1.ResourceQuotaSpec"),
    },
    "io.k8s.api.core.v1.ResourceQuotaList": {
        "items": _f(None, None, None, None, "io.k8s.api.core.v1.ResourceQuota"),
    },
    "io.k8s.api.core.v1.ResourceQuotaSpec": {
        "scopeSelector": _f(None, None, None, None, "io.k8s.api.core.v1.ScopeSelector"),
        "scopes": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.core.v1.ResourceRequirements": {
        "claims": _f(None, None, "map", ("name",), None),
    },
    "io.k8s.api.core.v1.ResourceStatus": {
        "resources": _f(None, None, "map", ("resourceID",), None),
    },
    "io.k8s.api.core.v1.ScopeSelector": {
        "matchExpressions": _f(None, None, "atomic", None, "io.k8s.api.core.v1.ScopedResourceSelectorRequirement"),
    },
    "io.k8s.api.core.v1.ScopedResourceSelectorRequirement": {
        "values": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.core.v1.Secret": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
    },
    "io.k8s.api.core.v1.SecretList": {
        "items": _f(None, None, None, None, "io.k8s.api.core.v1.Secret"),
    },
    "io.k8s.api.core.v1.SecretProjection": {
        "items": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.core.v1.SecretVolumeSource": {
        "items": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.core.v1.SecurityContext": {
        "capabilities": _f(None, None, None, None, "io.k8s.api.core.v1.Capabilities"),
    },
    "io.k8s.api.core.v1.Service": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.core.v1.ServiceSpec"),
        "status": _f(None, None, None, None, "io.k8s.api.core.v1.ServiceStatus"),
    },
    "io.k8s.api.core.v1.ServiceAccount": {
        "imagePullSecrets": _f(None, None, "atomic", None, None),
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "secrets": _f("merge", "name", "map", ("name",), None),
    },
    "io.k8s.api.core.v1.ServiceAccountList": {
        "items": _f(None, None, None, None, "io.k8s.api.core.v1.ServiceAccount"),
    },
    "io.k8s.api.core.v1.ServiceList": {
        "items": _f(None, None, None, None, "io.k8s.api.core.v1.Service"),
    },
    "io.k8s.api.core.v1.ServiceSpec": {
        "clusterIPs": _f(None, None, "atomic", None, None),
        "externalIPs": _f(None, None, "atomic", None, None),
        "ipFamilies": _f(None, None, "atomic", None, None),
        "loadBalancerSourceRanges": _f(None, None, "atomic", None, None),
        "ports": _f("merge", "port", "map", ("port", "protocol"), None),
    },
    "io.k8s.api.core.v1.ServiceStatus": {
        "conditions": _f("merge", "type", "map", ("type",), None),
        "loadBalancer": _f(None, None, None, None, "io.k8s.api.core.v1.LoadBalancerStatus"),
    },
    "io.k8s.api.core.v1.TopologySelectorLabelRequirement": {
        "values": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.core.v1.TopologySelectorTerm": {
        "matchLabelExpressions": _f(None, None, "atomic", None, "io.k8s.api.core.v1.TopologySelectorLabelRequirement"),
    },
    "io.k8s.api.core.v1.TopologySpreadConstraint": {
        "labelSelector": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"),
        "matchLabelKeys": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.core.v1.Volume": {
        "cephfs": _f(None, None, None, None, "io.k8s.api.core.v1.CephFSVolumeSource"),
        "configMap": _f(None, None, None, None, "io.k8s.api.core.v1.ConfigMapVolumeSource"),
        "downwardAPI": _f(None, None, None, None, "io.k8s.api.core.v1.DownwardAPIVolumeSource"),
        "ephemeral": _f(None, None, None, None, "io.k8s.api.core.v1.EphemeralVolumeSource"),
        "fc": _f(None, None, None, None, "io.k8s.api.core.v1.FCVolumeSource"),
        "iscsi": _f(None, None, None, None, "io.k8s.api.core.v1.ISCSIVolumeSource"),
        "projected": _f(None, None, None, None, "io.k8s.api.core.v1.ProjectedVolumeSource"),
        "rbd": _f(None, None, None, None, "io.k8s.api.core.v1.RBDVolumeSource"),
        "secret": _f(None, None, None, None, "io.k8s.api.core.v1.SecretVolumeSource"),
    },
    "io.k8s.api.core.v1.VolumeNodeAffinity": {
        "required": _f(None, None, None, None, "io.k8s.api.core.v1.NodeSelector"),
    },
    "io.k8s.api.core.v1.VolumeProjection": {
        "clusterTrustBundle": _f(None, None, None, None, "io.k8s.api.core.v1.ClusterTrustBundleProjection"),
        "configMap": _f(None, None, None, None, "io.k8s.api.core.v1.ConfigMapProjection"),
        "downwardAPI": _f(None, None, None, None, "io.k8s.api.core.v1.DownwardAPIProjection"),
        "secret": _f(None, None, None, None, "io.k8s.api.core.v1.SecretProjection"),
    },
    "io.k8s.api.core.v1.WeightedPodAffinityTerm": {
        "podAffinityTerm": _f(None, None, None, None, "io.k8s.api.core.v1.PodAffinityTerm"),
    },
    "io.k8s.api.discovery.v1.Endpoint": {
        "addresses": _f(None, None, "set", None, None),
        "hints": _f(None, None, None, None, "io.k8s.api.discovery.v1.EndpointHints"),
    },
    "io.k8s.api.discovery.v1.EndpointHints": {
        "forNodes": _f(None, None, "atomic", None, None),
        "forZones": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.discovery.v1.EndpointSlice": {
        "endpoints": _f(None, None, "atomic", None, "io.k8s.api.discovery.v1.Endpoint"),
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "ports": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.discovery.v1.EndpointSliceList": {
        "items": _f(None, None, None, None, "io.k8s.api.discovery.v1.EndpointSlice"),
    },
    "io.k8s.api.events.v1.Event": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
    },
    "io.k8s.api.events.v1.EventList": {
        "items": _f(None, None, None, None, "io.k8s.api.events.v1.Event"),
    },
    "io.k8s.api.flowcontrol.v1.FlowSchema": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.flowcontrol.v1.FlowSchemaSpec"),
        "status": _f(None, None, None, None, "io.k8s.api.flowcontrol.v1.FlowSchemaStatus"),
    },
    "io.k8s.api.flowcontrol.v1.FlowSchemaList": {
        "items": _f(None, None, None, None, "io.k8s.api.flowcontrol.v1.FlowSchema"),
    },
    "io.k8s.api.flowcontrol.v1.FlowSchemaSpec": {
        "rules": _f(None, None, "atomic", None, "io.k8s.api.flowcontrol.v1.PolicyRulesWithSubjects"),
    },
    "io.k8s.api.flowcontrol.v1.FlowSchemaStatus": {
        "conditions": _f("merge", "type", "map", ("type",), None),
    },
    "io.k8s.api.flowcontrol.v1.NonResourcePolicyRule": {
        "nonResourceURLs": _f(None, None, "set", None, None),
        "verbs": _f(None, None, "set", None, None),
    },
    "io.k8s.api.flowcontrol.v1.PolicyRulesWithSubjects": {
        "nonResourceRules": _f(None, None, "atomic", None, "io.k8s.api.flowcontrol.v1.NonResourcePolicyRule"),
        "resourceRules": _f(None, None, "atomic", None, "io.k8s.api.flowcontrol.v1.ResourcePolicyRule"),
        "subjects": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.flowcontrol.v1.PriorityLevelConfiguration": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "status": _f(None, None, None, None, "io.k8s.api.flowcontrol.v1.PriorityLevelConfigurationStatus"),
    },
    "io.k8s.api.flowcontrol.v1.PriorityLevelConfigurationList": {
        "items": _f(None, None, None, None, "io.k8s.api.flowcontrol.v1.PriorityLevelConfiguration"),
    },
    "io.k8s.api.flowcontrol.v1.PriorityLevelConfigurationStatus": {
        "conditions": _f("merge", "type", "map", ("type",), None),
    },
    "io.k8s.api.flowcontrol.v1.ResourcePolicyRule": {
        "apiGroups": _f(None, None, "set", None, None),
        "namespaces": _f(None, None, "set", None, None),
        "resources": _f(None, None, "set", None, None),
        "verbs": _f(None, None, "set", None, None),
    },
    "io.k8s.api.networking.v1.HTTPIngressRuleValue": {
        "paths": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.networking.v1.IPAddress": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
    },
    "io.k8s.api.networking.v1.IPAddressList": {
        "items": _f(None, None, None, None, "io.k8s.api.networking.v1.IPAddress"),
    },
    "io.k8s.api.networking.v1.IPBlock": {
        "except": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.networking.v1.Ingress": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.networking.v1.IngressSpec"),
        "status": _f(None, None, None, None, "io.k8s.api.networking.v1.IngressStatus"),
    },
    "io.k8s.api.networking.v1.IngressClass": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
    },
    "io.k8s.api.networking.v1.IngressClassList": {
        "items": _f(None, None, None, None, "io.k8s.api.networking.v1.IngressClass"),
    },
    "io.k8s.api.networking.v1.IngressList": {
        "items": _f(None, None, None, None, "io.k8s.api.networking.v1.Ingress"),
    },
    "io.k8s.api.networking.v1.IngressLoadBalancerIngress": {
        "ports": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.networking.v1.IngressLoadBalancerStatus": {
        "ingress": _f(None, None, "atomic", None, "io.k8s.api.networking.v1.IngressLoadBalancerIngress"),
    },
    "io.k8s.api.networking.v1.IngressRule": {
        "http": _f(None, None, None, None, "io.k8s.api.networking.v1.HTTPIngressRuleValue"),
    },
    "io.k8s.api.networking.v1.IngressSpec": {
        "rules": _f(None, None, "atomic", None, "io.k8s.api.networking.v1.IngressRule"),
        "tls": _f(None, None, "atomic", None, "io.k8s.api.networking.v1.IngressTLS"),
    },
    "io.k8s.api.networking.v1.IngressStatus": {
        "loadBalancer": _f(None, None, None, None, "io.k8s.api.networking.v1.IngressLoadBalancerStatus"),
    },
    "io.k8s.api.networking.v1.IngressTLS": {
        "hosts": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.networking.v1.NetworkPolicy": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.networking.v1.NetworkPolicySpec"),
    },
    "io.k8s.api.networking.v1.NetworkPolicyEgressRule": {
        "ports": _f(None, None, "atomic", None, None),
        "to": _f(None, None, "atomic", None, "io.k8s.api.networking.v1.NetworkPolicyPeer"),
    },
    "io.k8s.api.networking.v1.NetworkPolicyIngressRule": {
        "from": _f(None, None, "atomic", None, "io.k8s.api.networking.v1.NetworkPolicyPeer"),
        "ports": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.networking.v1.NetworkPolicyList": {
        "items": _f(None, None, None, None, "io.k8s.api.networking.v1.NetworkPolicy"),
    },
    "io.k8s.api.networking.v1.NetworkPolicyPeer": {
        "ipBlock": _f(None, None, None, None, "io.k8s.api.networking.v1.IPBlock"),
        "namespaceSelector": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"),
        "podSelector": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"),
    },
    "io.k8s.api.networking.v1.NetworkPolicySpec": {
        "egress": _f(None, None, "atomic", None, "io.k8s.api.networking.v1.NetworkPolicyEgressRule"),
        "ingress": _f(None, None, "atomic", None, "io.k8s.api.networking.v1.NetworkPolicyIngressRule"),
        "podSelector": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"),
        "policyTypes": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.networking.v1.ServiceCIDR": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.networking.v1.ServiceCIDRSpec"),
        "status": _f(None, None, None, None, "io.k8s.api.networking.v1.ServiceCIDRStatus"),
    },
    "io.k8s.api.networking.v1.ServiceCIDRList": {
        "items": _f(None, None, None, None, "io.k8s.api.networking.v1.ServiceCIDR"),
    },
    "io.k8s.api.networking.v1.ServiceCIDRSpec": {
        "cidrs": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.networking.v1.ServiceCIDRStatus": {
        "conditions": _f("merge", "type", "map", ("type",), None),
    },
    "io.k8s.api.node.v1.RuntimeClass": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "scheduling": _f(None, None, None, None, "io.k8s.api.node.v1.Scheduling"),
    },
    "io.k8s.api.node.v1.RuntimeClassList": {
        "items": _f(None, None, None, None, "io.k8s.api.node.v1.RuntimeClass"),
    },
    "io.k8s.api.node.v1.Scheduling": {
        "tolerations": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.policy.v1.Eviction": {
        "deleteOptions": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"),
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
    },
    "io.k8s.api.policy.v1.PodDisruptionBudget": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.policy.v1.PodDisruptionBudgetSpec"),
        "status": _f(None, None, None, None, "io.k8s.api.policy.v1.PodDisruptionBudgetStatus"),
    },
    "io.k8s.api.policy.v1.PodDisruptionBudgetList": {
        "items": _f(None, None, None, None, "io.k8s.api.policy.v1.PodDisruptionBudget"),
    },
    "io.k8s.api.policy.v1.PodDisruptionBudgetSpec": {
        "selector": _f("replace", None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"),
    },
    "io.k8s.api.policy.v1.PodDisruptionBudgetStatus": {
        "conditions": _f("merge", "type", "map", ("type",), None),
    },
    "io.k8s.api.rbac.v1.AggregationRule": {
        "clusterRoleSelectors": _f(None, None, "atomic", None, "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"),
    },
    "io.k8s.api.rbac.v1.ClusterRole": {
        "aggregationRule": _f(None, None, None, None, "io.k8s.api.rbac.v1.AggregationRule"),
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "rules": _f(None, None, "atomic", None, "io.k8s.api.rbac.v1.PolicyRule"),
    },
    "io.k8s.api.rbac.v1.ClusterRoleBinding": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "subjects": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.rbac.v1.ClusterRoleBindingList": {
        "items": _f(None, None, None, None, "io.k8s.api.rbac.v1.ClusterRoleBinding"),
    },
    "io.k8s.api.rbac.v1.ClusterRoleList": {
        "items": _f(None, None, None, None, "io.k8s.api.rbac.v1.ClusterRole"),
    },
    "io.k8s.api.rbac.v1.PolicyRule": {
        "apiGroups": _f(None, None, "atomic", None, None),
        "nonResourceURLs": _f(None, None, "atomic", None, None),
        "resourceNames": _f(None, None, "atomic", None, None),
        "resources": _f(None, None, "atomic", None, None),
        "verbs": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.rbac.v1.Role": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "rules": _f(None, None, "atomic", None, "io.k8s.api.rbac.v1.PolicyRule"),
    },
    "io.k8s.api.rbac.v1.RoleBinding": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "subjects": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.rbac.v1.RoleBindingList": {
        "items": _f(None, None, None, None, "io.k8s.api.rbac.v1.RoleBinding"),
    },
    "io.k8s.api.rbac.v1.RoleList": {
        "items": _f(None, None, None, None, "io.k8s.api.rbac.v1.Role"),
    },
    "io.k8s.api.resource.v1.AllocatedDeviceStatus": {
        "conditions": _f(None, None, "map", ("type",), None),
        "networkData": _f(None, None, None, None, "io.k8s.api.resource.v1.NetworkDeviceData"),
    },
    "io.k8s.api.resource.v1.AllocationResult": {
        "devices": _f(None, None, None, None, "io.k8s.api.resource.v1.DeviceAllocationResult"),
        "nodeSelector": _f(None, None, None, None, "io.k8s.api.core.v1.NodeSelector"),
    },
    "io.k8s.api.resource.v1.CapacityRequestPolicy": {
        "validValues": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.resource.v1.Device": {
        "bindingConditions": _f(None, None, "atomic", None, None),
        "bindingFailureConditions": _f(None, None, "atomic", None, None),
        "capacity": _f(None, None, None, None, "io.k8s.api.resource.v1.DeviceCapacity"),
        "consumesCounters": _f(None, None, "atomic", None, None),
        "nodeSelector": _f(None, None, None, None, "io.k8s.api.core.v1.NodeSelector"),
        "taints": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.resource.v1.DeviceAllocationConfiguration": {
        "requests": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.resource.v1.DeviceAllocationResult": {
        "config": _f(None, None, "atomic", None, "io.k8s.api.resource.v1.DeviceAllocationConfiguration"),
        "results": _f(None, None, "atomic", None, "io.k8s.api.resource.v1.DeviceRequestAllocationResult"),
    },
    "io.k8s.api.resource.v1.DeviceCapacity": {
        "requestPolicy": _f(None, None, None, None, "io.k8s.api.resource.v1.CapacityRequestPolicy"),
    },
    "io.k8s.api.resource.v1.DeviceClaim": {
        "config": _f(None, None, "atomic", None, "io.k8s.api.resource.v1.DeviceClaimConfiguration"),
        "constraints": _f(None, None, "atomic", None, "io.k8s.api.resource.v1.DeviceConstraint"),
        "requests": _f(None, None, "atomic", None, "io.k8s.api.resource.v1.DeviceRequest"),
    },
    "io.k8s.api.resource.v1.DeviceClaimConfiguration": {
        "requests": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.resource.v1.DeviceClass": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.resource.v1.DeviceClassSpec"),
    },
    "io.k8s.api.resource.v1.DeviceClassList": {
        "items": _f(None, None, None, None, "io.k8s.api.resource.v1.DeviceClass"),
    },
    "io.k8s.api.resource.v1.DeviceClassSpec": {
        "config": _f(None, None, "atomic", None, None),
        "selectors": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.resource.v1.DeviceConstraint": {
        "requests": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.resource.v1.DeviceRequest": {
        "exactly": _f(None, None, None, None, "io.k8s.api.resource.v1.ExactDeviceRequest"),
        "firstAvailable": _f(None, None, "atomic", None, "io.k8s.api.resource.v1.DeviceSubRequest"),
    },
    "io.k8s.api.resource.v1.DeviceRequestAllocationResult": {
        "bindingConditions": _f(None, None, "atomic", None, None),
        "bindingFailureConditions": _f(None, None, "atomic", None, None),
        "tolerations": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.resource.v1.DeviceSubRequest": {
        "selectors": _f(None, None, "atomic", None, None),
        "tolerations": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.resource.v1.ExactDeviceRequest": {
        "selectors": _f(None, None, "atomic", None, None),
        "tolerations": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.resource.v1.NetworkDeviceData": {
        "ips": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.resource.v1.ResourceClaim": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.resource.v1.ResourceClaimSpec"),
        "status": _f(None, None, None, None, "io.k8s.api.resource.v1.ResourceClaimStatus"),
    },
    "io.k8s.api.resource.v1.ResourceClaimList": {
        "items": _f(None, None, None, None, "io.k8s.api.resource.v1.ResourceClaim"),
    },
    "io.k8s.api.resource.v1.ResourceClaimSpec": {
        "devices": _f(None, None, None, None, "io.k8s.api.resource.v1.DeviceClaim"),
    },
    "io.k8s.api.resource.v1.ResourceClaimStatus": {
        "allocation": _f(None, None, None, None, "io.k8s.api.resource.v1.AllocationResult"),
        "devices": _f(None, None, "map", ("driver", "device", "pool", "shareID"), "io.k8s.api.resource.v1.AllocatedDeviceStatus"),
        "reservedFor": _f("merge", "uid", "map", ("uid",), None),
    },
    "io.k8s.api.resource.v1.ResourceClaimTemplate": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.resource.v1.ResourceClaimTemplateSpec"),
    },
    "io.k8s.api.resource.v1.ResourceClaimTemplateList": {
        "items": _f(None, None, None, None, "io.k8s.api.resource.v1.ResourceClaimTemplate"),
    },
    "io.k8s.api.resource.v1.ResourceClaimTemplateSpec": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.resource.v1.ResourceClaimSpec"),
    },
    "io.k8s.api.resource.v1.ResourceSlice": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.resource.v1.ResourceSliceSpec"),
    },
    "io.k8s.api.resource.v1.ResourceSliceList": {
        "items": _f(None, None, None, None, "io.k8s.api.resource.v1.ResourceSlice"),
    },
    "io.k8s.api.resource.v1.ResourceSliceSpec": {
        "devices": _f(None, None, "atomic", None, "io.k8s.api.resource.v1.Device"),
        "nodeSelector": _f(None, None, None, None, "io.k8s.api.core.v1.NodeSelector"),
        "sharedCounters": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.scheduling.v1.PriorityClass": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
    },
    "io.k8s.api.scheduling.v1.PriorityClassList": {
        "items": _f(None, None, None, None, "io.k8s.api.scheduling.v1.PriorityClass"),
    },
    "io.k8s.api.storage.v1.CSIDriver": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.storage.v1.CSIDriverSpec"),
    },
    "io.k8s.api.storage.v1.CSIDriverList": {
        "items": _f(None, None, None, None, "io.k8s.api.storage.v1.CSIDriver"),
    },
    "io.k8s.api.storage.v1.CSIDriverSpec": {
        "tokenRequests": _f(None, None, "atomic", None, None),
        "volumeLifecycleModes": _f(None, None, "set", None, None),
    },
    "io.k8s.api.storage.v1.CSINode": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.storage.v1.CSINodeSpec"),
    },
    "io.k8s.api.storage.v1.CSINodeDriver": {
        "topologyKeys": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.storage.v1.CSINodeList": {
        "items": _f(None, None, None, None, "io.k8s.api.storage.v1.CSINode"),
    },
    "io.k8s.api.storage.v1.CSINodeSpec": {
        "drivers": _f("merge", "name", "map", ("name",), "io.k8s.api.storage.v1.CSINodeDriver"),
    },
    "io.k8s.api.storage.v1.CSIStorageCapacity": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "nodeTopology": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"),
    },
    "io.k8s.api.storage.v1.CSIStorageCapacityList": {
        "items": _f(None, None, None, None, "io.k8s.api.storage.v1.CSIStorageCapacity"),
    },
    "io.k8s.api.storage.v1.StorageClass": {
        "allowedTopologies": _f(None, None, "atomic", None, "io.k8s.api.core.v1.TopologySelectorTerm"),
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "mountOptions": _f(None, None, "atomic", None, None),
    },
    "io.k8s.api.storage.v1.StorageClassList": {
        "items": _f(None, None, None, None, "io.k8s.api.storage.v1.StorageClass"),
    },
    "io.k8s.api.storage.v1.VolumeAttachment": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.api.storage.v1.VolumeAttachmentSpec"),
    },
    "io.k8s.api.storage.v1.VolumeAttachmentList": {
        "items": _f(None, None, None, None, "io.k8s.api.storage.v1.VolumeAttachment"),
    },
    "io.k8s.api.storage.v1.VolumeAttachmentSource": {
        "inlineVolumeSpec": _f(None, None, None, None, "io.k8s.api.core.v1.PersistentVolumeSpec"),
    },
    "io.k8s.api.storage.v1.VolumeAttachmentSpec": {
        "source": _f(None, None, None, None, "io.k8s.api.storage.v1.VolumeAttachmentSource"),
    },
    "io.k8s.api.storage.v1.VolumeAttributesClass": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
    },
    "io.k8s.api.storage.v1.VolumeAttributesClassList": {
        "items": _f(None, None, None, None, "io.k8s.api.storage.v1.VolumeAttributesClass"),
    },
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceConversion": {
        "webhook": _f(None, None, None, None, "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.WebhookConversion"),
    },
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionSpec"),
        "status": _f(None, None, None, None, "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionStatus"),
    },
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionList": {
        "items": _f(None, None, None, None, "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition"),
    },
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionNames": {
        "categories": _f(None, None, "atomic", None, None),
        "shortNames": _f(None, None, "atomic", None, None),
    },
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionSpec": {
        "conversion": _f(None, None, None, None, "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceConversion"),
        "names": _f(None, None, None, None, "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionNames"),
        "versions": _f(None, None, "atomic", None, "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionVersion"),
    },
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionStatus": {
        "acceptedNames": _f(None, None, None, None, "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionNames"),
        "conditions": _f(None, None, "map", ("type",), None),
        "storedVersions": _f(None, None, "atomic", None, None),
    },
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionVersion": {
        "additionalPrinterColumns": _f(None, None, "atomic", None, None),
        "schema": _f(None, None, None, None, "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceValidation"),
        "selectableFields": _f(None, None, "atomic", None, None),
    },
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceValidation": {
        "openAPIV3Schema": _f(None, None, None, None, "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps"),
    },
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps": {
        "allOf": _f(None, None, "atomic", None, "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps"),
        "anyOf": _f(None, None, "atomic", None, "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps"),
        "definitions": _f(None, None, None, None, "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps"),
        "enum": _f(None, None, "atomic", None, None),
        "not": _f(None, None, None, None, "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps"),
        "oneOf": _f(None, None, "atomic", None, "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps"),
        "patternProperties": _f(None, None, None, None, "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps"),
        "properties": _f(None, None, None, None, "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps"),
        "required": _f(None, None, "atomic", None, None),
        "x-kubernetes-list-map-keys": _f(None, None, "atomic", None, None),
        "x-kubernetes-validations": _f("merge", "rule", "map", ("rule",), None),
    },
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.WebhookConversion": {
        "conversionReviewVersions": _f(None, None, "atomic", None, None),
    },
    "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions": {
        "dryRun": _f(None, None, "atomic", None, None),
    },
    "io.k8s.apimachinery.pkg.apis.meta.v1.FieldSelectorRequirement": {
        "values": _f(None, None, "atomic", None, None),
    },
    "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector": {
        "matchExpressions": _f(None, None, "atomic", None, "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement"),
    },
    "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement": {
        "values": _f(None, None, "atomic", None, None),
    },
    "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": {
        "finalizers": _f("merge", None, "set", None, None),
        "managedFields": _f(None, None, "atomic", None, None),
        "ownerReferences": _f("merge", "uid", "map", ("uid",), None),
    },
    "io.k8s.apimachinery.pkg.apis.meta.v1.Status": {
        "details": _f(None, None, "atomic", None, "io.k8s.apimachinery.pkg.apis.meta.v1.StatusDetails"),
    },
    "io.k8s.apimachinery.pkg.apis.meta.v1.StatusDetails": {
        "causes": _f(None, None, "atomic", None, None),
    },
    "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService": {
        "metadata": _f(None, None, None, None, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        "spec": _f(None, None, None, None, "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIServiceSpec"),
        "status": _f(None, None, None, None, "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIServiceStatus"),
    },
    "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIServiceList": {
        "items": _f(None, None, None, None, "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService"),
    },
    "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIServiceSpec": {
        "caBundle": _f(None, None, "atomic", None, None),
    },
    "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIServiceStatus": {
        "conditions": _f("merge", "type", "map", ("type",), None),
    },
}

#: ``(apiVersion, kind)`` -> definition name, for every kind served, its list kind and its subresources' kinds.
KINDS: dict[tuple[str, str], str] = {
    ("admission.k8s.io/v1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("admission.k8s.io/v1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("admission.k8s.io/v1beta1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("admission.k8s.io/v1beta1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("admissionregistration.k8s.io/v1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration"): "io.k8s.api.admissionregistration.v1.MutatingWebhookConfiguration",
    ("admissionregistration.k8s.io/v1", "MutatingWebhookConfigurationList"): "io.k8s.api.admissionregistration.v1.MutatingWebhookConfigurationList",
    ("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy"): "io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicy",
    ("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBinding"): "io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyBinding",
    ("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBindingList"): "io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyBindingList",
    ("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyList"): "io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyList",
    ("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration"): "io.k8s.api.admissionregistration.v1.ValidatingWebhookConfiguration",
    ("admissionregistration.k8s.io/v1", "ValidatingWebhookConfigurationList"): "io.k8s.api.admissionregistration.v1.ValidatingWebhookConfigurationList",
    ("admissionregistration.k8s.io/v1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("admissionregistration.k8s.io/v1alpha1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("admissionregistration.k8s.io/v1alpha1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("admissionregistration.k8s.io/v1beta1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("admissionregistration.k8s.io/v1beta1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("apiextensions.k8s.io/v1", "CustomResourceDefinition"): "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition",
    ("apiextensions.k8s.io/v1", "CustomResourceDefinitionList"): "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionList",
    ("apiextensions.k8s.io/v1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("apiextensions.k8s.io/v1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("apiextensions.k8s.io/v1beta1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("apiextensions.k8s.io/v1beta1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("apiregistration.k8s.io/v1", "APIService"): "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService",
    ("apiregistration.k8s.io/v1", "APIServiceList"): "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIServiceList",
    ("apiregistration.k8s.io/v1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("apiregistration.k8s.io/v1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("apiregistration.k8s.io/v1beta1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("apiregistration.k8s.io/v1beta1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("apps/v1", "ControllerRevision"): "io.k8s.api.apps.v1.ControllerRevision",
    ("apps/v1", "ControllerRevisionList"): "io.k8s.api.apps.v1.ControllerRevisionList",
    ("apps/v1", "DaemonSet"): "io.k8s.api.apps.v1.DaemonSet",
    ("apps/v1", "DaemonSetList"): "io.k8s.api.apps.v1.DaemonSetList",
    ("apps/v1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("apps/v1", "Deployment"): "io.k8s.api.apps.v1.Deployment",
    ("apps/v1", "DeploymentList"): "io.k8s.api.apps.v1.DeploymentList",
    ("apps/v1", "ReplicaSet"): "io.k8s.api.apps.v1.ReplicaSet",
    ("apps/v1", "ReplicaSetList"): "io.k8s.api.apps.v1.ReplicaSetList",
    ("apps/v1", "StatefulSet"): "io.k8s.api.apps.v1.StatefulSet",
    ("apps/v1", "StatefulSetList"): "io.k8s.api.apps.v1.StatefulSetList",
    ("apps/v1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("apps/v1beta1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("apps/v1beta1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("apps/v1beta2", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("apps/v1beta2", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("authentication.k8s.io/v1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("authentication.k8s.io/v1", "SelfSubjectReview"): "io.k8s.api.authentication.v1.SelfSubjectReview",
    ("authentication.k8s.io/v1", "TokenRequest"): "io.k8s.api.authentication.v1.TokenRequest",
    ("authentication.k8s.io/v1", "TokenReview"): "io.k8s.api.authentication.v1.TokenReview",
    ("authentication.k8s.io/v1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("authentication.k8s.io/v1alpha1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("authentication.k8s.io/v1alpha1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("authentication.k8s.io/v1beta1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("authentication.k8s.io/v1beta1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("authorization.k8s.io/v1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("authorization.k8s.io/v1", "LocalSubjectAccessReview"): "io.k8s.api.authorization.v1.LocalSubjectAccessReview",
    ("authorization.k8s.io/v1", "SelfSubjectAccessReview"): "io.k8s.api.authorization.v1.SelfSubjectAccessReview",
    ("authorization.k8s.io/v1", "SelfSubjectRulesReview"): "io.k8s.api.authorization.v1.SelfSubjectRulesReview",
    ("authorization.k8s.io/v1", "SubjectAccessReview"): "io.k8s.api.authorization.v1.SubjectAccessReview",
    ("authorization.k8s.io/v1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("authorization.k8s.io/v1beta1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("authorization.k8s.io/v1beta1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("autoscaling/v1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("autoscaling/v1", "HorizontalPodAutoscaler"): "io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler",
    ("autoscaling/v1", "HorizontalPodAutoscalerList"): "io.k8s.api.autoscaling.v1.HorizontalPodAutoscalerList",
    ("autoscaling/v1", "Scale"): "io.k8s.api.autoscaling.v1.Scale",
    ("autoscaling/v1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("autoscaling/v2", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("autoscaling/v2", "HorizontalPodAutoscaler"): "io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler",
    ("autoscaling/v2", "HorizontalPodAutoscalerList"): "io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerList",
    ("autoscaling/v2", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("autoscaling/v2beta1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("autoscaling/v2beta1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("autoscaling/v2beta2", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("autoscaling/v2beta2", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("batch/v1", "CronJob"): "io.k8s.api.batch.v1.CronJob",
    ("batch/v1", "CronJobList"): "io.k8s.api.batch.v1.CronJobList",
    ("batch/v1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("batch/v1", "Job"): "io.k8s.api.batch.v1.Job",
    ("batch/v1", "JobList"): "io.k8s.api.batch.v1.JobList",
    ("batch/v1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("batch/v1beta1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("batch/v1beta1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("certificates.k8s.io/v1", "CertificateSigningRequest"): "io.k8s.api.certificates.v1.CertificateSigningRequest",
    ("certificates.k8s.io/v1", "CertificateSigningRequestList"): "io.k8s.api.certificates.v1.CertificateSigningRequestList",
    ("certificates.k8s.io/v1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("certificates.k8s.io/v1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("certificates.k8s.io/v1alpha1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("certificates.k8s.io/v1alpha1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("certificates.k8s.io/v1beta1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("certificates.k8s.io/v1beta1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("coordination.k8s.io/v1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("coordination.k8s.io/v1", "Lease"): "io.k8s.api.coordination.v1.Lease",
    ("coordination.k8s.io/v1", "LeaseList"): "io.k8s.api.coordination.v1.LeaseList",
    ("coordination.k8s.io/v1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("coordination.k8s.io/v1alpha2", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("coordination.k8s.io/v1alpha2", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("coordination.k8s.io/v1beta1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("coordination.k8s.io/v1beta1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("discovery.k8s.io/v1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("discovery.k8s.io/v1", "EndpointSlice"): "io.k8s.api.discovery.v1.EndpointSlice",
    ("discovery.k8s.io/v1", "EndpointSliceList"): "io.k8s.api.discovery.v1.EndpointSliceList",
    ("discovery.k8s.io/v1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("discovery.k8s.io/v1beta1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("discovery.k8s.io/v1beta1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("events.k8s.io/v1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("events.k8s.io/v1", "Event"): "io.k8s.api.events.v1.Event",
    ("events.k8s.io/v1", "EventList"): "io.k8s.api.events.v1.EventList",
    ("events.k8s.io/v1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("events.k8s.io/v1beta1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("events.k8s.io/v1beta1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("extensions/v1beta1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("extensions/v1beta1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("flowcontrol.apiserver.k8s.io/v1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("flowcontrol.apiserver.k8s.io/v1", "FlowSchema"): "io.k8s.api.flowcontrol.v1.FlowSchema",
    ("flowcontrol.apiserver.k8s.io/v1", "FlowSchemaList"): "io.k8s.api.flowcontrol.v1.FlowSchemaList",
    ("flowcontrol.apiserver.k8s.io/v1", "PriorityLevelConfiguration"): "io.k8s.api.flowcontrol.v1.PriorityLevelConfiguration",
    ("flowcontrol.apiserver.k8s.io/v1", "PriorityLevelConfigurationList"): "io.k8s.api.flowcontrol.v1.PriorityLevelConfigurationList",
    ("flowcontrol.apiserver.k8s.io/v1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("flowcontrol.apiserver.k8s.io/v1beta1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("flowcontrol.apiserver.k8s.io/v1beta1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("flowcontrol.apiserver.k8s.io/v1beta2", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("flowcontrol.apiserver.k8s.io/v1beta2", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("flowcontrol.apiserver.k8s.io/v1beta3", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("flowcontrol.apiserver.k8s.io/v1beta3", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("imagepolicy.k8s.io/v1alpha1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("imagepolicy.k8s.io/v1alpha1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("internal.apiserver.k8s.io/v1alpha1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("internal.apiserver.k8s.io/v1alpha1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("networking.k8s.io/v1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("networking.k8s.io/v1", "IPAddress"): "io.k8s.api.networking.v1.IPAddress",
    ("networking.k8s.io/v1", "IPAddressList"): "io.k8s.api.networking.v1.IPAddressList",
    ("networking.k8s.io/v1", "Ingress"): "io.k8s.api.networking.v1.Ingress",
    ("networking.k8s.io/v1", "IngressClass"): "io.k8s.api.networking.v1.IngressClass",
    ("networking.k8s.io/v1", "IngressClassList"): "io.k8s.api.networking.v1.IngressClassList",
    ("networking.k8s.io/v1", "IngressList"): "io.k8s.api.networking.v1.IngressList",
    ("networking.k8s.io/v1", "NetworkPolicy"): "io.k8s.api.networking.v1.NetworkPolicy",
    ("networking.k8s.io/v1", "NetworkPolicyList"): "io.k8s.api.networking.v1.NetworkPolicyList",
    ("networking.k8s.io/v1", "ServiceCIDR"): "io.k8s.api.networking.v1.ServiceCIDR",
    ("networking.k8s.io/v1", "ServiceCIDRList"): "io.k8s.api.networking.v1.ServiceCIDRList",
    ("networking.k8s.io/v1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("networking.k8s.io/v1beta1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("networking.k8s.io/v1beta1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("node.k8s.io/v1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("node.k8s.io/v1", "RuntimeClass"): "io.k8s.api.node.v1.RuntimeClass",
    ("node.k8s.io/v1", "RuntimeClassList"): "io.k8s.api.node.v1.RuntimeClassList",
    ("node.k8s.io/v1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("node.k8s.io/v1alpha1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("node.k8s.io/v1alpha1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("node.k8s.io/v1beta1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("node.k8s.io/v1beta1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("policy/v1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("policy/v1", "Eviction"): "io.k8s.api.policy.v1.Eviction",
    ("policy/v1", "PodDisruptionBudget"): "io.k8s.api.policy.v1.PodDisruptionBudget",
    ("policy/v1", "PodDisruptionBudgetList"): "io.k8s.api.policy.v1.PodDisruptionBudgetList",
    ("policy/v1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("policy/v1beta1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("policy/v1beta1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("rbac.authorization.k8s.io/v1", "ClusterRole"): "io.k8s.api.rbac.v1.ClusterRole",
    ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"): "io.k8s.api.rbac.v1.ClusterRoleBinding",
    ("rbac.authorization.k8s.io/v1", "ClusterRoleBindingList"): "io.k8s.api.rbac.v1.ClusterRoleBindingList",
    ("rbac.authorization.k8s.io/v1", "ClusterRoleList"): "io.k8s.api.rbac.v1.ClusterRoleList",
    ("rbac.authorization.k8s.io/v1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("rbac.authorization.k8s.io/v1", "Role"): "io.k8s.api.rbac.v1.Role",
    ("rbac.authorization.k8s.io/v1", "RoleBinding"): "io.k8s.api.rbac.v1.RoleBinding",
    ("rbac.authorization.k8s.io/v1", "RoleBindingList"): "io.k8s.api.rbac.v1.RoleBindingList",
    ("rbac.authorization.k8s.io/v1", "RoleList"): "io.k8s.api.rbac.v1.RoleList",
    ("rbac.authorization.k8s.io/v1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("rbac.authorization.k8s.io/v1alpha1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("rbac.authorization.k8s.io/v1alpha1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("rbac.authorization.k8s.io/v1beta1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("rbac.authorization.k8s.io/v1beta1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("resource.k8s.io/v1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("resource.k8s.io/v1", "DeviceClass"): "io.k8s.api.resource.v1.DeviceClass",
    ("resource.k8s.io/v1", "DeviceClassList"): "io.k8s.api.resource.v1.DeviceClassList",
    ("resource.k8s.io/v1", "ResourceClaim"): "io.k8s.api.resource.v1.ResourceClaim",
    ("resource.k8s.io/v1", "ResourceClaimList"): "io.k8s.api.resource.v1.ResourceClaimList",
    ("resource.k8s.io/v1", "ResourceClaimTemplate"): "io.k8s.api.resource.v1.ResourceClaimTemplate",
    ("resource.k8s.io/v1", "ResourceClaimTemplateList"): "io.k8s.api.resource.v1.ResourceClaimTemplateList",
    ("resource.k8s.io/v1", "ResourceSlice"): "io.k8s.api.resource.v1.ResourceSlice",
    ("resource.k8s.io/v1", "ResourceSliceList"): "io.k8s.api.resource.v1.ResourceSliceList",
    ("resource.k8s.io/v1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("resource.k8s.io/v1alpha3", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("resource.k8s.io/v1alpha3", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("resource.k8s.io/v1beta1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("resource.k8s.io/v1beta1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("resource.k8s.io/v1beta2", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("resource.k8s.io/v1beta2", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("scheduling.k8s.io/v1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("scheduling.k8s.io/v1", "PriorityClass"): "io.k8s.api.scheduling.v1.PriorityClass",
    ("scheduling.k8s.io/v1", "PriorityClassList"): "io.k8s.api.scheduling.v1.PriorityClassList",
    ("scheduling.k8s.io/v1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("scheduling.k8s.io/v1alpha1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("scheduling.k8s.io/v1alpha1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("scheduling.k8s.io/v1beta1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("scheduling.k8s.io/v1beta1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("storage.k8s.io/v1", "CSIDriver"): "io.k8s.api.storage.v1.CSIDriver",
    ("storage.k8s.io/v1", "CSIDriverList"): "io.k8s.api.storage.v1.CSIDriverList",
    ("storage.k8s.io/v1", "CSINode"): "io.k8s.api.storage.v1.CSINode",
    ("storage.k8s.io/v1", "CSINodeList"): "io.k8s.api.storage.v1.CSINodeList",
    ("storage.k8s.io/v1", "CSIStorageCapacity"): "io.k8s.api.storage.v1.CSIStorageCapacity",
    ("storage.k8s.io/v1", "CSIStorageCapacityList"): "io.k8s.api.storage.v1.CSIStorageCapacityList",
    ("storage.k8s.io/v1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("storage.k8s.io/v1", "StorageClass"): "io.k8s.api.storage.v1.StorageClass",
    ("storage.k8s.io/v1", "StorageClassList"): "io.k8s.api.storage.v1.StorageClassList",
    ("storage.k8s.io/v1", "VolumeAttachment"): "io.k8s.api.storage.v1.VolumeAttachment",
    ("storage.k8s.io/v1", "VolumeAttachmentList"): "io.k8s.api.storage.v1.VolumeAttachmentList",
    ("storage.k8s.io/v1", "VolumeAttributesClass"): "io.k8s.api.storage.v1.VolumeAttributesClass",
    ("storage.k8s.io/v1", "VolumeAttributesClassList"): "io.k8s.api.storage.v1.VolumeAttributesClassList",
    ("storage.k8s.io/v1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("storage.k8s.io/v1alpha1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("storage.k8s.io/v1alpha1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("storage.k8s.io/v1beta1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("storage.k8s.io/v1beta1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("storagemigration.k8s.io/v1alpha1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("storagemigration.k8s.io/v1alpha1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    ("v1", "Binding"): "io.k8s.api.core.v1.Binding",
    ("v1", "ComponentStatus"): "io.k8s.api.core.v1.ComponentStatus",
    ("v1", "ComponentStatusList"): "io.k8s.api.core.v1.ComponentStatusList",
    ("v1", "ConfigMap"): "io.k8s.api.core.v1.ConfigMap",
    ("v1", "ConfigMapList"): "io.k8s.api.core.v1.ConfigMapList",
    ("v1", "DeleteOptions"): "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ("v1", "Endpoints"): "io.k8s.api.core.v1.Endpoints",
    ("v1", "EndpointsList"): "io.k8s.api.core.v1.EndpointsList",
    ("v1", "Event"): "io.k8s.api.core.v1.Event",
    ("v1", "EventList"): "io.k8s.api.core.v1.EventList",
    ("v1", "LimitRange"): "io.k8s.api.core.v1.LimitRange",
    ("v1", "LimitRangeList"): "io.k8s.api.core.v1.LimitRangeList",
    ("v1", "Namespace"): "io.k8s.api.core.v1.Namespace",
    ("v1", "NamespaceList"): "io.k8s.api.core.v1.NamespaceList",
    ("v1", "Node"): "io.k8s.api.core.v1.Node",
    ("v1", "NodeList"): "io.k8s.api.core.v1.NodeList",
    ("v1", "PersistentVolume"): "io.k8s.api.core.v1.PersistentVolume",
    ("v1", "PersistentVolumeClaim"): "io.k8s.api.core.v1.PersistentVolumeClaim",
    ("v1", "PersistentVolumeClaimList"): "io.k8s.api.core.v1.PersistentVolumeClaimList",
    ("v1", "PersistentVolumeList"): "io.k8s.api.core.v1.PersistentVolumeList",
    ("v1", "Pod"): "io.k8s.api.core.v1.Pod",
    ("v1", "PodList"): "io.k8s.api.core.v1.PodList",
    ("v1", "PodTemplate"): "io.k8s.api.core.v1.PodTemplate",
    ("v1", "PodTemplateList"): "io.k8s.api.core.v1.PodTemplateList",
    ("v1", "ReplicationController"): "io.k8s.api.core.v1.ReplicationController",
    ("v1", "ReplicationControllerList"): "io.k8s.api.core.v1.ReplicationControllerList",
    ("v1", "ResourceQuota"): "io.k8s.api.core.v1.ResourceQuota",
    ("v1", "ResourceQuotaList"): "io.k8s.api.core.v1.ResourceQuotaList",
    ("v1", "Secret"): "io.k8s.api.core.v1.Secret",
    ("v1", "SecretList"): "io.k8s.api.core.v1.SecretList",
    ("v1", "Service"): "io.k8s.api.core.v1.Service",
    ("v1", "ServiceAccount"): "io.k8s.api.core.v1.ServiceAccount",
    ("v1", "ServiceAccountList"): "io.k8s.api.core.v1.ServiceAccountList",
    ("v1", "ServiceList"): "io.k8s.api.core.v1.ServiceList",
    ("v1", "Status"): "io.k8s.apimachinery.pkg.apis.meta.v1.Status",
    ("v1", "WatchEvent"): "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
}


def definition_for(api_version: str, kind: str) -> str | None:
    """Upstream's definition name of a served kind, ``None`` when not served.

    Examples
    --------
    >>> definition_for("apps/v1", "Deployment"), definition_for("v1", "Pod")
    ('io.k8s.api.apps.v1.Deployment', 'io.k8s.api.core.v1.Pod')
    >>> definition_for("example.com/v1", "Widget") is None
    True
    """
    return KINDS.get((api_version, kind))


class PatchMetaFromDefinitions:
    """A :class:`kubenotes.apiserver.patch.LookupPatchMeta` over :data:`DEFINITIONS` (upstream's struct-tag lookup).

    Parameters
    ----------
    definition : str or None
        Where we are (``"io.k8s.api.core.v1.PodSpec"``); ``None`` for a type
        without patch metadata (a map of strings, a scalar, an unknown kind).

    Examples
    --------
    >>> spec, pm = PatchMetaFromDefinitions("io.k8s.api.apps.v1.Deployment").lookup_patch_metadata_for_struct("spec")
    >>> spec.lookup_patch_metadata_for_struct("strategy")[1]
    PatchMeta(patch_strategies=('retainKeys',), patch_merge_key='')
    >>> pod_spec = spec.lookup_patch_metadata_for_struct("template")[0].lookup_patch_metadata_for_struct("spec")[0]
    >>> container, pm = pod_spec.lookup_patch_metadata_for_slice("containers")
    >>> container.name(), pm
    ('Container', PatchMeta(patch_strategies=('merge',), patch_merge_key='name'))
    """

    def __init__(self, definition: str | None) -> None:
        self.definition = definition

    def _lookup(self, key: str) -> tuple["PatchMetaFromDefinitions", PatchMeta]:
        f = DEFINITIONS.get(self.definition or "", {}).get(key)
        if f is None:
            return PatchMetaFromDefinitions(None), PatchMeta()
        strategies = tuple(f.patch_strategy.split(",")) if f.patch_strategy else ()
        return PatchMetaFromDefinitions(f.definition), PatchMeta(strategies, f.patch_merge_key or "")

    def lookup_patch_metadata_for_struct(self, key: str) -> tuple["PatchMetaFromDefinitions", PatchMeta]:
        """The field's type and patch metadata (a map's values, for a map field)."""
        return self._lookup(key)

    def lookup_patch_metadata_for_slice(self, key: str) -> tuple["PatchMetaFromDefinitions", PatchMeta]:
        """The list field's item type and the field's patch metadata."""
        return self._lookup(key)

    def name(self) -> str:
        """The Go type name (``Container``), ``"struct"`` when unknown."""
        return self.definition.rpartition(".")[2] if self.definition else "struct"


def meta_for(api_version: str, kind: str) -> PatchMetaFromDefinitions:
    """The patch metadata lookup at the root of a kind, for :func:`kubenotes.apiserver.patch.strategic_merge_patch`.

    Examples
    --------
    >>> meta = meta_for("v1", "Pod")
    >>> meta.lookup_patch_metadata_for_struct("metadata")[0].lookup_patch_metadata_for_slice("finalizers")[1]
    PatchMeta(patch_strategies=('merge',), patch_merge_key='')
    """
    return PatchMetaFromDefinitions(definition_for(api_version, kind))


_EXTENSIONS = ("x-kubernetes-patch-strategy", "x-kubernetes-patch-merge-key", "x-kubernetes-list-type",
               "x-kubernetes-list-map-keys")


def field_extensions(definition: str, field: str) -> dict:
    """The OpenAPI extensions upstream puts on ``definition``'s property ``field`` (``{}`` when none).

    Examples
    --------
    >>> field_extensions("io.k8s.api.core.v1.Container", "ports")  # doctest: +NORMALIZE_WHITESPACE
    {'x-kubernetes-list-map-keys': ['containerPort', 'protocol'], 'x-kubernetes-list-type': 'map',
     'x-kubernetes-patch-merge-key': 'containerPort', 'x-kubernetes-patch-strategy': 'merge'}
    >>> field_extensions("io.k8s.api.core.v1.PodSpec", "tolerations")
    {'x-kubernetes-list-type': 'atomic'}
    """
    f = DEFINITIONS.get(definition, {}).get(field)
    if f is None:
        return {}
    values = (f.patch_strategy, f.patch_merge_key, f.list_type, list(f.list_map_keys) if f.list_map_keys else None)
    return {k: v for k, v in sorted(zip(_EXTENSIONS, values)) if v is not None}


def list_info_for(api_version: str, kind: str, field_path: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """``(x-kubernetes-list-type, x-kubernetes-list-map-keys)`` of the list at a field-name path of a kind.

    The path names fields only (no list indices or keys), from the object's
    root. A list without a declared list type is ``("atomic", ())``, as
    server-side apply treats it.

    Examples
    --------
    >>> list_info_for("apps/v1", "Deployment", ("spec", "template", "spec", "containers"))
    ('map', ('name',))
    >>> list_info_for("v1", "Pod", ("metadata", "finalizers")), list_info_for("v1", "Node", ("spec", "taints"))
    (('set', ()), ('atomic', ()))
    """
    definition = definition_for(api_version, kind)
    f = None
    for name in field_path:
        f = DEFINITIONS.get(definition or "", {}).get(name)
        if f is None:
            return "atomic", ()
        definition = f.definition
    if f is None or not f.list_type:
        return "atomic", ()
    return f.list_type, tuple(f.list_map_keys or ())
