"""apiextensions-apiserver: CustomResourceDefinitions served live by the model's API server.

:mod:`~kubenotes.apiserver.apiextensions.registry` keeps what each CRD
serves and runs the custom resource strategy, :mod:`.schema` validates,
defaults and prunes custom resources against their structural schema,
:mod:`.validation` checks the CRDs themselves and :mod:`.tableconvertor`
prints ``additionalPrinterColumns``.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiextensions-apiserver/
https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/
"""

from __future__ import annotations

from kubenotes.apiserver.apiextensions.registry import (CLEANUP_FINALIZER, CustomResourceDefinitions,
                                                        CustomResourceInfo, is_crd)

__all__ = ["CustomResourceDefinitions", "CustomResourceInfo", "CLEANUP_FINALIZER", "is_crd"]
