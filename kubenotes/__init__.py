"""kubenotes: models of the Kubernetes control plane and node components, faithful to upstream, for learning in Jupyter.

The library mirrors upstream's component boundaries and names (kube-scheduler
v1.34): ``kubenotes.api`` reads manifests the way the API server does,
``kubenotes.scheduler`` is the scheduling framework with upstream's plugins,
``kubenotes.replay`` replays a production GPU trace, ``kubenotes.viz`` draws
the notebooks' graphs and widgets.
"""

__version__ = "0.1.0"

#: The Kubernetes release whose source the models follow.
KUBERNETES_VERSION = "v1.34"

__all__ = ["__version__", "KUBERNETES_VERSION"]
