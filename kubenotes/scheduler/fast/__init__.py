"""The fast path of the in-tree scheduler plugins, kept apart from the plugins.

kubenotes only: upstream runs each plugin's per-node code in 16 goroutines
(``pkg/scheduler/framework/parallelize``); kubenotes' untraced scheduler asks
for whole batches of nodes instead (:mod:`kubenotes.scheduler.batch`). The
plugin modules under :mod:`kubenotes.scheduler.plugins` read like upstream's
files; what lets a plugin answer for many nodes at once lives here, one module
per plugin package, and :mod:`kubenotes.scheduler.fast.registry` maps each
plugin's ``NAME`` to its :class:`~kubenotes.scheduler.fast.forms.FastForms`:

* batch forms over :class:`~kubenotes.scheduler.arrays.SnapshotArrays`
  (``filter_batch``, ``filter_status_key_batch``, ``score_batch``,
  ``score_batch_uniform``, ``normalize_score_batch``), each computing exactly
  what the plugin's per-node method computes, usually by calling it once per
  class of identical nodes;
* the memo keys under which those results are kept between cycles;
* what the batch path and preemption's dry run may rely on
  (``filter_ignores_node_pods``, ``filter_reads_pod_spec``, ...).

A fast form reads the plugin's args and state from the plugin instance and
calls its per-node methods; it never copies their logic. Plugins without
fast forms (out-of-tree ones) keep the per-node path.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/parallelize/parallelism.go
"""
