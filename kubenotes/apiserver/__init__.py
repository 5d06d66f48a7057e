"""The model's kube-apiserver: storage with resourceVersions and watches, the request path, Status errors.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver
"""

__all__: list[str] = []
