"""Server-side printing: the ``meta.k8s.io/v1`` Table a real API server returns for ``kubectl get``.

Each resource has upstream's column definitions (``pkg/printers/internalversion/printers.go``)
and a row function computing the cells from an object and the virtual clock:
pods ``NAME READY STATUS RESTARTS AGE`` (wide: ``IP NODE NOMINATED NODE READINESS GATES``),
deployments ``NAME READY UP-TO-DATE AVAILABLE AGE``, nodes ``NAME STATUS ROLES AGE VERSION``, and so on.
:func:`format_table` renders a Table as kubectl's human-readable printer does
(columns separated by three spaces, upper-case headers, ``<none>`` for empty values).

Every served resource has its columns, the kinds only stored included (Ingress
``NAME CLASS HOSTS ADDRESS PORTS AGE``, CertificateSigningRequest ``NAME AGE
SIGNERNAME REQUESTOR REQUESTEDDURATION CONDITION``, ResourceClaim ``NAME STATE
AGE``...); a served version other than the storage one (events.k8s.io/v1
Events, autoscaling/v1 HPAs) prints as the object it is stored as, as upstream
prints the internal version.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/printers/internalversion/printers.go
kubernetes/kube-aggregator@v0.34.0 pkg/registry/apiservice/etcd/etcd.go (APIService columns)
kubernetes/apiextensions-apiserver@v0.34.0 pkg/registry/customresourcedefinition/etcd.go (default table: Name, Created At)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/util/duration/duration.go (HumanDuration)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/cli-runtime/pkg/printers/tableprinter.go
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from kubenotes.api.storagehelpers import (
    get_access_modes_as_string,
    get_persistent_volume_class,
    get_persistent_volume_claim_class,
    is_default_annotation,
)
from kubenotes.apiserver.conversion import convert
from kubenotes.apiserver.resources import SERVED_RESOURCES, storage_resource

__all__ = ["human_duration", "table_for", "partial_object_metadata", "format_table", "format_tables", "COLUMNS",
           "pod_status_reason"]


def human_duration(seconds: float) -> str:
    """``duration.HumanDuration``: the AGE column's text.

    Examples
    --------
    >>> [human_duration(s) for s in (5, 119, 150, 600, 3 * 3600 + 60, 30 * 3600, 9 * 86400)]
    ['5s', '119s', '2m30s', '10m', '3h1m', '30h', '9d']
    """
    s = int(seconds)
    if s < -1:
        return "<invalid>"
    if s < 0:
        return "0s"
    if s < 120:
        return f"{s}s"
    minutes = s // 60
    if minutes < 10:
        sec = s % 60
        return f"{minutes}m" if sec == 0 else f"{minutes}m{sec}s"
    if minutes < 180:
        return f"{minutes}m"
    hours = s // 3600
    if hours < 8:
        m = minutes % 60
        return f"{hours}h" if m == 0 else f"{hours}h{m}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        h = hours % 24
        return f"{hours // 24}d" if h == 0 else f"{hours // 24}d{h}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        dy = (hours // 24) % 365
        return f"{hours // 24 // 365}y" if dy == 0 else f"{hours // 24 // 365}y{dy}d"
    return f"{hours // 24 // 365}y"


def _age(obj: dict, now: float, key: str = "creationTimestamp") -> str:
    from kubenotes.apiserver.server import parse_timestamp

    ts = (obj.get("metadata") or {}).get(key)
    if not ts:
        return "<unknown>"
    return human_duration(now - parse_timestamp(ts))


def _since(ts: str | None, now: float) -> str:
    """AGE-like text since ``ts``, a metav1 Time or MicroTime (``2025-08-27T00:00:05.123456Z``)."""
    from kubenotes.apiserver.server import parse_timestamp

    if not ts:
        return "<unknown>"
    whole, dot, rest = ts.partition(".")
    fraction = 0.0
    if dot:  # MicroTime (eventTime, lastObservedTime): whole seconds plus a fraction
        digits = rest.rstrip("Z")
        fraction = float("0." + digits) if digits.isdigit() else 0.0
        ts = whole + "Z"
    return human_duration(now - parse_timestamp(ts) - fraction)


def _md(o: dict) -> dict:
    return o.get("metadata") or {}


def _pod_summary(pod: dict) -> tuple[int, int, str, int, str | None]:
    """``printPod``'s walk over a pod's container statuses.

    Returns
    -------
    tuple
        ``(ready, total, reason, restarts, last_restart)``: the READY
        numerator and denominator, the STATUS text, the RESTARTS count and the
        latest ``lastState.terminated.finishedAt`` among the counted containers
        (``None`` if none).
    """
    st = pod.get("status") or {}
    spec = pod.get("spec") or {}
    init_specs = {c.get("name"): c for c in spec.get("initContainers") or []}
    n_init = len(spec.get("initContainers") or [])

    def restartable(name: str | None) -> bool:
        return (init_specs.get(name) or {}).get("restartPolicy") == "Always"

    def finished(cs: dict) -> str | None:
        return ((cs.get("lastState") or {}).get("terminated") or {}).get("finishedAt")

    def later(a: str | None, b: str | None) -> str | None:
        return b if b and (a is None or b > a) else a

    total = len(spec.get("containers") or []) + sum(1 for c in init_specs.values()
                                                    if c.get("restartPolicy") == "Always")
    ready = 0
    restarts = 0
    last: str | None = None
    sidecar_restarts = 0
    sidecar_last: str | None = None
    reason = st.get("phase") or "Pending"  # the API server sets Pending at create; objects built in code may not
    if st.get("reason"):
        reason = st["reason"]
    for c in st.get("conditions") or []:
        if c.get("type") == "PodScheduled" and c.get("reason") == "SchedulingGated":
            reason = "SchedulingGated"

    initializing = False
    for i, cs in enumerate(st.get("initContainerStatuses") or []):
        restarts += int(cs.get("restartCount", 0))
        last = later(last, finished(cs))
        if restartable(cs.get("name")):
            sidecar_restarts += int(cs.get("restartCount", 0))
            sidecar_last = later(sidecar_last, finished(cs))
        state = cs.get("state") or {}
        term, wait = state.get("terminated"), state.get("waiting")
        if term and term.get("exitCode", 0) == 0:
            continue
        if restartable(cs.get("name")) and cs.get("started"):
            if cs.get("ready"):
                ready += 1
            continue
        if term:
            if term.get("reason"):
                reason = "Init:" + term["reason"]
            elif term.get("signal"):
                reason = f"Init:Signal:{term['signal']}"
            else:
                reason = f"Init:ExitCode:{term.get('exitCode', 0)}"
        elif wait and wait.get("reason") and wait["reason"] != "PodInitializing":
            reason = "Init:" + wait["reason"]
        else:
            reason = f"Init:{i}/{n_init}"
        initializing = True
        break

    initialized = any(c.get("type") == "Initialized" and c.get("status") == "True"
                      for c in st.get("conditions") or [])
    if not initializing or initialized:
        restarts, last = sidecar_restarts, sidecar_last
        has_running = False
        for cs in reversed(st.get("containerStatuses") or []):
            restarts += int(cs.get("restartCount", 0))
            last = later(last, finished(cs))
            state = cs.get("state") or {}
            wait, term = state.get("waiting"), state.get("terminated")
            if wait and wait.get("reason"):
                reason = wait["reason"]
            elif term and term.get("reason"):
                reason = term["reason"]
            elif term:
                reason = f"Signal:{term['signal']}" if term.get("signal") else f"ExitCode:{term.get('exitCode', 0)}"
            elif cs.get("ready") and state.get("running") is not None:
                has_running = True
                ready += 1
        if reason == "Completed" and has_running:
            pod_ready = any(c.get("type") == "Ready" and c.get("status") == "True"
                            for c in st.get("conditions") or [])
            reason = "Running" if pod_ready else "NotReady"

    if _md(pod).get("deletionTimestamp") and st.get("reason") == "NodeLost":
        reason = "Unknown"
    elif _md(pod).get("deletionTimestamp") and st.get("phase") not in ("Succeeded", "Failed"):
        reason = "Terminating"
    return ready, total, reason, restarts, last


def pod_status_reason(pod: dict) -> str:
    """The STATUS column of a pod (``printPod``): Running, Pending, ContainerCreating, CrashLoopBackOff,
    Completed, Error, Init:0/1, Terminating, Unknown...

    The pod's phase (or ``status.reason``), overridden by the first init
    container that has not finished (``Init:...``), else by the main
    containers' waiting or terminated reasons (the first container wins), and
    by ``Terminating`` for a pod being deleted that has not finished
    (``Unknown`` if its node was lost).

    Notes
    -----
    Reads the pod as stored; what each reason means is up to the kubelet model.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/printers/internalversion/printers.go (printPod)

    Examples
    --------
    >>> pod_status_reason({"metadata": {}, "status": {"phase": "Running", "containerStatuses": [
    ...     {"ready": True, "state": {"running": {}}}]}})
    'Running'
    >>> pod_status_reason({"metadata": {"deletionTimestamp": "x"}, "status": {"phase": "Running"}})
    'Terminating'
    >>> pod_status_reason({"metadata": {"deletionTimestamp": "x"}, "status": {"phase": "Succeeded",
    ...     "containerStatuses": [{"state": {"terminated": {"exitCode": 0, "reason": "Completed"}}}]}})
    'Completed'
    """
    return _pod_summary(pod)[2]


def _pod_row(pod: dict, now: float) -> list:
    st = pod.get("status") or {}
    spec = pod.get("spec") or {}
    ready, total, reason, restarts, last = _pod_summary(pod)
    restarts_text = f"{restarts} ({_since(last, now)} ago)" if restarts and last else str(restarts)
    gates = spec.get("readinessGates") or []
    if gates:
        true = {c.get("type") for c in st.get("conditions") or [] if c.get("status") == "True"}
        gates_text = f"{sum(1 for g in gates if g.get('conditionType') in true)}/{len(gates)}"
    else:
        gates_text = "<none>"
    return [_md(pod)["name"], f"{ready}/{total}", reason, restarts_text, _age(pod, now),
            st.get("podIP") or "<none>", spec.get("nodeName") or "<none>", st.get("nominatedNodeName") or "<none>",
            gates_text]


def _node_row(node: dict, now: float) -> list:
    st, spec, md = node.get("status") or {}, node.get("spec") or {}, _md(node)
    conds = {c.get("type"): c.get("status") for c in st.get("conditions") or []}
    ready = conds.get("Ready")
    status = ["Ready" if ready == "True" else "NotReady" if ready == "False" else "Unknown"]
    if spec.get("unschedulable"):
        status.append("SchedulingDisabled")
    labels = md.get("labels") or {}
    roles = sorted({k[len("node-role.kubernetes.io/"):] for k in labels if k.startswith("node-role.kubernetes.io/")
                    and k[len("node-role.kubernetes.io/"):]} | ({labels["kubernetes.io/role"]}
                                                                 if labels.get("kubernetes.io/role") else set()))
    info = st.get("nodeInfo") or {}
    internal = next((a.get("address") for a in st.get("addresses") or [] if a.get("type") == "InternalIP"), None)
    external = next((a.get("address") for a in st.get("addresses") or [] if a.get("type") == "ExternalIP"), None)
    return [md["name"], ",".join(status), ",".join(roles) or "<none>", _age(node, now),
            info.get("kubeletVersion", ""), internal or "<none>", external or "<none>",
            info.get("osImage") or "<unknown>", info.get("kernelVersion") or "<unknown>",
            info.get("containerRuntimeVersion") or "<unknown>"]


def _selector_text(sel: dict | None) -> str:
    if not sel:
        return "<none>"
    parts = [f"{k}={v}" for k, v in sorted((sel.get("matchLabels") or {}).items())]
    for e in sel.get("matchExpressions") or []:
        op = e.get("operator")
        vals = ",".join(sorted(e.get("values") or []))
        if op == "In":
            parts.append(f"{e['key']} in ({vals})")
        elif op == "NotIn":
            parts.append(f"{e['key']} notin ({vals})")
        elif op == "Exists":
            parts.append(e["key"])
        else:
            parts.append(f"!{e['key']}")
    return ",".join(parts) or "<none>"


def _containers_images(tmpl_spec: dict) -> tuple[str, str]:
    cs = tmpl_spec.get("containers") or []
    return ",".join(c.get("name", "") for c in cs), ",".join(c.get("image", "") for c in cs)


def _deploy_row(d: dict, now: float) -> list:
    spec, st = d.get("spec") or {}, d.get("status") or {}
    names, images = _containers_images(((spec.get("template") or {}).get("spec")) or {})
    return [_md(d)["name"], f"{st.get('readyReplicas', 0)}/{spec.get('replicas', 1)}", st.get("updatedReplicas", 0),
            st.get("availableReplicas", 0), _age(d, now), names, images, _selector_text(spec.get("selector"))]


def _rs_row(r: dict, now: float) -> list:
    spec, st = r.get("spec") or {}, r.get("status") or {}
    names, images = _containers_images(((spec.get("template") or {}).get("spec")) or {})
    sel = spec.get("selector")
    if r.get("kind") == "ReplicationController":
        sel = {"matchLabels": sel or {}}
    return [_md(r)["name"], spec.get("replicas", 1), st.get("replicas", 0), st.get("readyReplicas", 0),
            _age(r, now), names, images, _selector_text(sel)]


def _svc_row(s: dict, now: float) -> list:
    spec = s.get("spec") or {}
    ports = []
    for p in spec.get("ports") or []:
        txt = f"{p.get('port')}"
        if p.get("nodePort"):
            txt += f":{p['nodePort']}"
        ports.append(f"{txt}/{p.get('protocol', 'TCP')}")
    ext = spec.get("externalIPs") or [i.get("ip") or i.get("hostname") for i in
                                       ((s.get("status") or {}).get("loadBalancer") or {}).get("ingress") or []]
    ext_text = ",".join(ext) if ext else ("<pending>" if spec.get("type") == "LoadBalancer" else "<none>")
    if spec.get("type") == "ExternalName":
        ext_text = spec.get("externalName", "<none>")
    sel = spec.get("selector")
    return [_md(s)["name"], spec.get("type", "ClusterIP"), spec.get("clusterIP") or "<none>", ext_text,
            ",".join(ports) or "<none>", _age(s, now),
            ",".join(f"{k}={v}" for k, v in sorted(sel.items())) if sel else "<none>"]


def _ds_row(d: dict, now: float) -> list:
    spec, st = d.get("spec") or {}, d.get("status") or {}
    tspec = ((spec.get("template") or {}).get("spec")) or {}
    ns = tspec.get("nodeSelector") or {}
    names, images = _containers_images(tspec)
    return [_md(d)["name"], st.get("desiredNumberScheduled", 0), st.get("currentNumberScheduled", 0),
            st.get("numberReady", 0), st.get("updatedNumberScheduled", 0), st.get("numberAvailable", 0),
            ",".join(f"{k}={v}" for k, v in sorted(ns.items())) or "<none>", _age(d, now), names, images,
            _selector_text(spec.get("selector"))]


def _sts_row(s: dict, now: float) -> list:
    spec, st = s.get("spec") or {}, s.get("status") or {}
    names, images = _containers_images(((spec.get("template") or {}).get("spec")) or {})
    return [_md(s)["name"], f"{st.get('readyReplicas', 0)}/{spec.get('replicas', 1)}", _age(s, now), names, images]


def _job_status(j: dict) -> str:
    """``printJob``'s STATUS: the first of Complete, Failed, Terminating, Suspended, FailureTarget,
    SuccessCriteriaMet that holds, else Running (pkg/printers/internalversion/printers.go, v1.34)."""
    first: dict = {}  # hasJobCondition: the first condition of a type decides
    for c in (j.get("status") or {}).get("conditions") or []:
        first.setdefault(c.get("type"), c.get("status"))
    true = {t for t, status in first.items() if status == "True"}
    for ctype in ("Complete", "Failed"):
        if ctype in true:
            return ctype
    if (j.get("metadata") or {}).get("deletionTimestamp"):
        return "Terminating"
    for ctype in ("Suspended", "FailureTarget", "SuccessCriteriaMet"):
        if ctype in true:
            return ctype
    return "Running"


def _job_row(j: dict, now: float) -> list:
    from kubenotes.apiserver.server import parse_timestamp

    spec, st = j.get("spec") or {}, j.get("status") or {}
    completions = spec.get("completions")
    comp = f"{st.get('succeeded', 0)}/{completions}" if completions is not None else \
        f"{st.get('succeeded', 0)}/1 of {spec.get('parallelism', 1)}"
    start, end = st.get("startTime"), st.get("completionTime")
    if not start:
        dur = ""
    elif end:
        dur = human_duration(parse_timestamp(end) - parse_timestamp(start))
    else:
        dur = human_duration(now - parse_timestamp(start))
    names, images = _containers_images(((spec.get("template") or {}).get("spec")) or {})
    return [_md(j)["name"], _job_status(j), comp, dur, _age(j, now), names, images,
            _selector_text(spec.get("selector"))]


def _cj_row(c: dict, now: float) -> list:
    spec, st = c.get("spec") or {}, c.get("status") or {}
    last = st.get("lastScheduleTime")
    return [_md(c)["name"], spec.get("schedule", ""), spec.get("timeZone") or "<none>",
            "True" if spec.get("suspend") else "False", len(st.get("active") or []),
            _since(last, now) if last else "<none>", _age(c, now)]


def _hpa_row(h: dict, now: float) -> list:
    spec, st = h.get("spec") or {}, h.get("status") or {}
    ref = spec.get("scaleTargetRef") or {}
    targets = []
    current = {m.get("resource", {}).get("name"): m for m in st.get("currentMetrics") or []}
    for m in spec.get("metrics") or []:
        if m.get("type") == "Resource":
            r = m.get("resource") or {}
            tgt = (r.get("target") or {}).get("averageUtilization")
            cur = ((current.get(r.get("name")) or {}).get("resource") or {}).get("current", {}).get(
                "averageUtilization")
            targets.append(f"{r.get('name')}: {'<unknown>' if cur is None else str(cur) + '%'}/{tgt}%")
    return [_md(h)["name"], f"{ref.get('kind')}/{ref.get('name')}", ", ".join(targets) or "<none>",
            spec.get("minReplicas", 1), spec.get("maxReplicas", 0), st.get("currentReplicas", 0), _age(h, now)]


def _ns_row(n: dict, now: float) -> list:
    return [_md(n)["name"], (n.get("status") or {}).get("phase", ""), _age(n, now)]


def _event_source(e: dict) -> str:
    """``formatEventSource``: ``component[, host]``, falling back to the reporting controller/instance."""
    src = e.get("source") or {}
    component = src.get("component") or e.get("reportingComponent") or ""
    instance = src.get("host") or e.get("reportingInstance") or ""
    return f"{component}, {instance}" if instance else component


def _event_row(e: dict, now: float) -> list:
    io = e.get("involvedObject") or {}
    first = _since(e.get("firstTimestamp"), now) if e.get("firstTimestamp") else _since(e.get("eventTime"), now)
    last = _since(e.get("lastTimestamp"), now) if e.get("lastTimestamp") else first
    count = e.get("count") or 0
    if e.get("series"):
        last = _since(e["series"].get("lastObservedTime"), now)
        count = e["series"].get("count", 0)
    elif count == 0:
        count = 1  # singleton events of the events.k8s.io API carry no count
    kind = (io.get("kind") or "").lower()
    target = f"{kind}/{io['name']}" if io.get("name") else kind
    return [last, e.get("type", ""), e.get("reason", ""), target, io.get("fieldPath", ""), _event_source(e),
            (e.get("message") or "").strip(), first, count, _md(e).get("name", "")]


def _ep_row(e: dict, now: float) -> list:
    addrs = []
    for s in e.get("subsets") or []:
        for a in s.get("addresses") or []:
            for p in s.get("ports") or [{"port": None}]:
                addrs.append(f"{a.get('ip')}:{p.get('port')}" if p.get("port") is not None else a.get("ip"))
    text = ",".join(addrs[:3]) + (f" + {len(addrs) - 3} more..." if len(addrs) > 3 else "")
    return [_md(e)["name"], text or "<none>", _age(e, now)]


def _lease_row(le: dict, now: float) -> list:
    return [_md(le)["name"], (le.get("spec") or {}).get("holderIdentity") or "", _age(le, now)]


def _pdb_row(p: dict, now: float) -> list:
    spec, st = p.get("spec") or {}, p.get("status") or {}
    return [_md(p)["name"], spec.get("minAvailable", "N/A") if "minAvailable" in spec else "N/A",
            spec.get("maxUnavailable", "N/A") if "maxUnavailable" in spec else "N/A",
            st.get("disruptionsAllowed", 0), _age(p, now)]


def _quota_row(q: dict, now: float) -> list:
    st = q.get("status") or {}
    hard, used = st.get("hard") or {}, st.get("used") or {}
    req = ", ".join(f"{k}: {used.get(k, '0')}/{v}" for k, v in sorted(hard.items()) if not k.startswith("limits."))
    lim = ", ".join(f"{k}: {used.get(k, '0')}/{v}" for k, v in sorted(hard.items()) if k.startswith("limits."))
    return [_md(q)["name"], _age(q, now), req, lim]


def _cm_row(c: dict, now: float) -> list:
    return [_md(c)["name"], len(c.get("data") or {}) + len(c.get("binaryData") or {}), _age(c, now)]


def _secret_row(s: dict, now: float) -> list:
    return [_md(s)["name"], s.get("type", "Opaque"), len(s.get("data") or {}), _age(s, now)]


def _sa_row(s: dict, now: float) -> list:
    return [_md(s)["name"], len(s.get("secrets") or []), _age(s, now)]


def _pc_row(p: dict, now: float) -> list:
    return [_md(p)["name"], p.get("value", 0), "true" if p.get("globalDefault") else "false",
            p.get("preemptionPolicy", "PreemptLowerPriority"), _age(p, now)]


def _slice_row(s: dict, now: float) -> list:
    ports = ",".join(str(p.get("port")) for p in s.get("ports") or []) or "<unset>"
    addrs = [a for e in s.get("endpoints") or [] for a in e.get("addresses") or []]
    text = ",".join(addrs[:3]) + (f" + {len(addrs) - 3} more..." if len(addrs) > 3 else "")
    return [_md(s)["name"], s.get("addressType", ""), ports, text or "<unset>", _age(s, now)]


def _created_at(o: dict) -> str:
    """The ``CREATED AT`` cell: ``creationTimestamp`` in RFC 3339, UTC (``Format(time.RFC3339)``)."""
    return _md(o).get("creationTimestamp") or ""


def _created_at_row(o: dict, now: float) -> list:
    return [_md(o)["name"], _created_at(o)]


def _owner_name(o: dict) -> str:
    """``formatResourceName`` of the controller owner with its kind: ``daemonset.apps/agent`` or ``<none>``."""
    ref = next((r for r in _md(o).get("ownerReferences") or [] if r.get("controller")), None)
    if ref is None:
        return "<none>"
    api_version = ref.get("apiVersion") or ""
    group = api_version.split("/")[0] if "/" in api_version else ""
    kind = (ref.get("kind") or "").lower()
    return f"{kind}.{group}/{ref.get('name', '')}" if group else f"{kind}/{ref.get('name', '')}"


def _controller_revision_row(r: dict, now: float) -> list:
    return [_md(r)["name"], _owner_name(r), r.get("revision", 0), _age(r, now)]


def _binding_row(b: dict, now: float) -> list:
    ref = b.get("roleRef") or {}
    users, groups, sas = [], [], []
    for s in b.get("subjects") or []:
        kind = s.get("kind")
        if kind == "User":
            users.append(s.get("name", ""))
        elif kind == "Group":
            groups.append(s.get("name", ""))
        elif kind == "ServiceAccount":
            sas.append(f"{s['namespace']}/{s.get('name', '')}" if s.get("namespace") else s.get("name", ""))
    return [_md(b)["name"], f"{ref.get('kind', '')}/{ref.get('name', '')}", _age(b, now), ", ".join(users),
            ", ".join(groups), ", ".join(sas)]


def _pvc_row(c: dict, now: float) -> list:
    spec, st, md = c.get("spec") or {}, c.get("status") or {}, _md(c)
    phase = "Terminating" if md.get("deletionTimestamp") else st.get("phase", "")
    capacity, modes = "", ""
    if spec.get("volumeName"):
        modes = get_access_modes_as_string(st.get("accessModes"))
        capacity = (st.get("capacity") or {}).get("storage", "0")  # a zero Quantity prints "0"
    vac = st.get("currentVolumeAttributesClassName") or "<unset>"
    return [md["name"], phase, spec.get("volumeName", ""), capacity, modes, get_persistent_volume_claim_class(c), vac,
            _age(c, now), spec.get("volumeMode") or "<unset>"]


def _pv_row(v: dict, now: float) -> list:
    spec, st, md = v.get("spec") or {}, v.get("status") or {}, _md(v)
    ref = spec.get("claimRef") or {}
    claim = f"{ref.get('namespace', '')}/{ref.get('name', '')}" if ref else ""
    phase = "Terminating" if md.get("deletionTimestamp") else st.get("phase", "")
    return [md["name"], (spec.get("capacity") or {}).get("storage", "0"),
            get_access_modes_as_string(spec.get("accessModes")),
            spec.get("persistentVolumeReclaimPolicy", ""), phase, claim, get_persistent_volume_class(v),
            spec.get("volumeAttributesClassName") or "<unset>", st.get("reason", ""), _age(v, now),
            spec.get("volumeMode") or "<unset>"]


def _storage_class_row(s: dict, now: float) -> list:
    md = _md(s)
    name = f"{md['name']} (default)" if is_default_annotation(s) else md["name"]
    return [name, s.get("provisioner", ""), s.get("reclaimPolicy") or "Delete",
            s.get("volumeBindingMode") or "Immediate", "true" if s.get("allowVolumeExpansion") else "false",
            _age(s, now)]


def _name_age_row(o: dict, now: float) -> list:
    return [_md(o)["name"], _age(o, now)]


# ---------------------------------------------------------------- the kinds only stored (printers.go, v1.34)
def _name_value_age_row(value: Callable[[dict], Any]) -> Callable[[dict, float], list]:
    def row(o: dict, now: float) -> list:
        return [_md(o)["name"], value(o), _age(o, now)]
    return row


def _pod_template_row(t: dict, now: float) -> list:
    tmpl = t.get("template") or {}
    names, images = _containers_images(tmpl.get("spec") or {})
    labels = (tmpl.get("metadata") or {}).get("labels") or {}
    return [_md(t)["name"], names, images, ",".join(f"{k}={v}" for k, v in sorted(labels.items())) or "<none>"]


def _component_status_row(c: dict, now: float) -> list:
    for cond in c.get("conditions") or []:
        if cond.get("type") == "Healthy":
            return [_md(c)["name"], "Healthy" if cond.get("status") == "True" else "Unhealthy",
                    cond.get("message", ""), cond.get("error", "")]
    return [_md(c)["name"], "Unknown", "", ""]


def _ingress_row(i: dict, now: float) -> list:
    spec = i.get("spec") or {}
    rules = spec.get("rules") or []
    hosts = [r["host"] for r in rules[:3] if r.get("host")]  # formatHosts: at most 3, then "+ N more..."
    text = ",".join(hosts) or "*"
    if len(rules) > 3:
        text += f" + {len(rules) - 3} more..."
    lb = [a.get("ip") or a.get("hostname") or "" for a in
          ((i.get("status") or {}).get("loadBalancer") or {}).get("ingress") or []]
    return [_md(i)["name"], spec.get("ingressClassName") or "<none>", text, ",".join(a for a in lb if a),
            "80, 443" if spec.get("tls") else "80", _age(i, now)]


def _ingress_class_row(c: dict, now: float) -> list:
    spec = c.get("spec") or {}
    params = spec.get("parameters")
    text = "<none>"
    if params:
        text = params.get("kind", "") + (f".{params['apiGroup']}" if params.get("apiGroup") else "")
        text += f"/{params.get('name', '')}"
    return [_md(c)["name"], spec.get("controller", ""), text, _age(c, now)]


def _ip_address_row(a: dict, now: float) -> list:
    ref = (a.get("spec") or {}).get("parentRef")
    text = "<none>"
    if ref:
        text = (f"{ref.get('resource', '')}.{ref['group']}" if ref.get("group") else ref.get("resource", "")).lower()
        if ref.get("namespace"):
            text += f"/{ref['namespace']}"
        text += f"/{ref.get('name', '')}"
    return [_md(a)["name"], text]


def _csr_condition(c: dict) -> str:
    """``extractCSRStatus``: Approved, Denied or Pending, then ``,Failed`` and ``,Issued``."""
    st = c.get("status") or {}
    types = {cond.get("type") for cond in st.get("conditions") or []}
    text = "Denied" if "Denied" in types else "Approved" if "Approved" in types else "Pending"
    if "Failed" in types:
        text += ",Failed"
    if st.get("certificate"):
        text += ",Issued"
    return text


def _csr_row(c: dict, now: float) -> list:
    spec = c.get("spec") or {}
    seconds = spec.get("expirationSeconds")
    return [_md(c)["name"], _age(c, now), spec.get("signerName") or "<none>", spec.get("username", ""),
            human_duration(seconds) if seconds is not None else "<none>", _csr_condition(c)]


def _flow_schema_row(f: dict, now: float) -> list:
    spec = f.get("spec") or {}
    dangling = next((c.get("status", "?") for c in (f.get("status") or {}).get("conditions") or []
                     if c.get("type") == "Dangling"), "?")
    return [_md(f)["name"], (spec.get("priorityLevelConfiguration") or {}).get("name", ""),
            spec.get("matchingPrecedence", 0), (spec.get("distinguisherMethod") or {}).get("type") or "<none>",
            _age(f, now), dangling]


def _priority_level_row(p: dict, now: float) -> list:
    spec = p.get("spec") or {}
    limited = spec.get("limited")
    ncs = queues = hand = qll = "<none>"
    if limited is not None:
        ncs = limited.get("nominalConcurrencyShares", 0)
        queuing = (limited.get("limitResponse") or {}).get("queuing")
        if queuing is not None:
            queues, hand, qll = queuing.get("queues", 0), queuing.get("handSize", 0), queuing.get("queueLengthLimit", 0)
    return [_md(p)["name"], spec.get("type", ""), ncs, queues, hand, qll, _age(p, now)]


def _vap_row(v: dict, now: float) -> list:
    spec = v.get("spec") or {}
    kind = spec.get("paramKind")
    return [_md(v)["name"], len(spec.get("validations") or []),
            f"{kind.get('apiVersion', '')}/{kind.get('kind', '')}" if kind else "<unset>", _age(v, now)]


def _vap_binding_row(b: dict, now: float) -> list:
    spec = b.get("spec") or {}
    ref = spec.get("paramRef")
    text = "<unset>"
    if ref and ref.get("name"):
        text = f"{ref.get('namespace') or '*'}/{ref['name']}"
    elif ref and ref.get("selector") is not None:
        text = _selector_text(ref["selector"])
    return [_md(b)["name"], spec.get("policyName", ""), text, _age(b, now)]


def _webhooks_row(w: dict, now: float) -> list:
    return [_md(w)["name"], len(w.get("webhooks") or []), _age(w, now)]


def _resource_claim_row(c: dict, now: float) -> list:
    md, st = _md(c), c.get("status") or {}
    states = ["deleted"] if md.get("deletionTimestamp") else []
    if st.get("allocation") is None:
        if not md.get("deletionTimestamp"):
            states.append("pending")
    else:
        states.append("allocated")
        if st.get("reservedFor"):
            states.append("reserved")
        elif md.get("deletionTimestamp") or md.get("finalizers"):
            states.append("deallocating")
    return [md["name"], ",".join(states), _age(c, now)]


def _resource_slice_row(r: dict, now: float) -> list:
    spec = r.get("spec") or {}
    return [_md(r)["name"], spec.get("nodeName") or "<none>", spec.get("driver", ""),
            (spec.get("pool") or {}).get("name", ""), _age(r, now)]


def _csi_driver_row(d: dict, now: float) -> list:
    spec = d.get("spec") or {}
    tokens = ",".join(t.get("audience", "") for t in spec.get("tokenRequests") or []) or "<unset>"
    return [_md(d)["name"], spec.get("attachRequired", True), spec.get("podInfoOnMount", False),
            spec.get("storageCapacity", False), tokens, spec.get("requiresRepublish", False),
            ",".join(spec.get("volumeLifecycleModes") or []) or "<none>", _age(d, now)]


def _volume_attachment_row(v: dict, now: float) -> list:
    spec = v.get("spec") or {}
    return [_md(v)["name"], spec.get("attacher", ""), (spec.get("source") or {}).get("persistentVolumeName", ""),
            spec.get("nodeName", ""), bool((v.get("status") or {}).get("attached")), _age(v, now)]


def _api_service_row(a: dict, now: float) -> list:
    svc = (a.get("spec") or {}).get("service")
    available = next((c for c in (a.get("status") or {}).get("conditions") or [] if c.get("type") == "Available"),
                     None)
    status = "Unknown"
    if available is not None:
        status = available.get("status", "Unknown")
        if status != "True" and available.get("reason"):
            status = f"{status} ({available['reason']})"
    return [_md(a)["name"], f"{svc.get('namespace', '')}/{svc.get('name', '')}" if svc else "Local", status,
            _age(a, now)]


_C = tuple[str, ...]
#: resource -> (columns, wide-only column count, row function).
COLUMNS: dict[str, tuple[_C, int, Callable[[dict, float], list]]] = {
    "pods": (("Name", "Ready", "Status", "Restarts", "Age", "IP", "Node", "Nominated Node", "Readiness Gates"), 4,
             _pod_row),
    "nodes": (("Name", "Status", "Roles", "Age", "Version", "Internal-IP", "External-IP", "OS-Image",
               "Kernel-Version", "Container-Runtime"), 5, _node_row),
    "deployments": (("Name", "Ready", "Up-to-date", "Available", "Age", "Containers", "Images", "Selector"), 3,
                    _deploy_row),
    "replicasets": (("Name", "Desired", "Current", "Ready", "Age", "Containers", "Images", "Selector"), 3, _rs_row),
    "replicationcontrollers": (("Name", "Desired", "Current", "Ready", "Age", "Containers", "Images", "Selector"), 3,
                               _rs_row),
    "services": (("Name", "Type", "Cluster-IP", "External-IP", "Port(s)", "Age", "Selector"), 1, _svc_row),
    "daemonsets": (("Name", "Desired", "Current", "Ready", "Up-to-date", "Available", "Node Selector", "Age",
                    "Containers", "Images", "Selector"), 3, _ds_row),
    "statefulsets": (("Name", "Ready", "Age", "Containers", "Images"), 2, _sts_row),
    "jobs": (("Name", "Status", "Completions", "Duration", "Age", "Containers", "Images", "Selector"), 3, _job_row),
    "cronjobs": (("Name", "Schedule", "Timezone", "Suspend", "Active", "Last Schedule", "Age"), 0, _cj_row),
    "horizontalpodautoscalers": (("Name", "Reference", "Targets", "MinPods", "MaxPods", "Replicas", "Age"), 0,
                                 _hpa_row),
    "namespaces": (("Name", "Status", "Age"), 0, _ns_row),
    "events": (("Last Seen", "Type", "Reason", "Object", "Subobject", "Source", "Message", "First Seen", "Count",
                "Name"), 0, _event_row),
    "endpoints": (("Name", "Endpoints", "Age"), 0, _ep_row),
    "endpointslices": (("Name", "AddressType", "Ports", "Endpoints", "Age"), 0, _slice_row),
    "leases": (("Name", "Holder", "Age"), 0, _lease_row),
    "poddisruptionbudgets": (("Name", "Min Available", "Max Unavailable", "Allowed Disruptions", "Age"), 0, _pdb_row),
    "resourcequotas": (("Name", "Age", "Request", "Limit"), 0, _quota_row),
    "configmaps": (("Name", "Data", "Age"), 0, _cm_row),
    "secrets": (("Name", "Type", "Data", "Age"), 0, _secret_row),
    "serviceaccounts": (("Name", "Secrets", "Age"), 0, _sa_row),
    "priorityclasses": (("Name", "Value", "Global-Default", "Preemption-Policy", "Age"), 0, _pc_row),
    "controllerrevisions": (("Name", "Controller", "Revision", "Age"), 0, _controller_revision_row),
    "roles": (("Name", "Created At"), 0, _created_at_row),
    "clusterroles": (("Name", "Created At"), 0, _created_at_row),
    "limitranges": (("Name", "Created At"), 0, _created_at_row),
    "rolebindings": (("Name", "Role", "Age", "Users", "Groups", "ServiceAccounts"), 3, _binding_row),
    "clusterrolebindings": (("Name", "Role", "Age", "Users", "Groups", "ServiceAccounts"), 3, _binding_row),
    "persistentvolumeclaims": (("Name", "Status", "Volume", "Capacity", "Access Modes", "StorageClass",
                                "VolumeAttributesClass", "Age", "VolumeMode"), 1, _pvc_row),
    "persistentvolumes": (("Name", "Capacity", "Access Modes", "Reclaim Policy", "Status", "Claim", "StorageClass",
                           "VolumeAttributesClass", "Reason", "Age", "VolumeMode"), 1, _pv_row),
    "storageclasses": (("Name", "Provisioner", "ReclaimPolicy", "VolumeBindingMode", "AllowVolumeExpansion",
                        "Age"), 0, _storage_class_row),
    "podtemplates": (("Name", "Containers", "Images", "Pod Labels"), 0, _pod_template_row),
    "componentstatuses": (("Name", "Status", "Message", "Error"), 0, _component_status_row),
    "mutatingwebhookconfigurations": (("Name", "Webhooks", "Age"), 0, _webhooks_row),
    "validatingwebhookconfigurations": (("Name", "Webhooks", "Age"), 0, _webhooks_row),
    "validatingadmissionpolicies": (("Name", "Validations", "ParamKind", "Age"), 0, _vap_row),
    "validatingadmissionpolicybindings": (("Name", "PolicyName", "ParamRef", "Age"), 0, _vap_binding_row),
    "customresourcedefinitions": (("Name", "Created At"), 0, _created_at_row),
    "apiservices": (("Name", "Service", "Available", "Age"), 0, _api_service_row),
    "certificatesigningrequests": (("Name", "Age", "SignerName", "Requestor", "RequestedDuration", "Condition"), 0,
                                   _csr_row),
    "flowschemas": (("Name", "PriorityLevel", "MatchingPrecedence", "DistinguisherMethod", "Age", "MissingPL"), 0,
                    _flow_schema_row),
    "prioritylevelconfigurations": (("Name", "Type", "NominalConcurrencyShares", "Queues", "HandSize",
                                     "QueueLengthLimit", "Age"), 0, _priority_level_row),
    "ingresses": (("Name", "Class", "Hosts", "Address", "Ports", "Age"), 0, _ingress_row),
    "ingressclasses": (("Name", "Controller", "Parameters", "Age"), 0, _ingress_class_row),
    "ipaddresses": (("Name", "ParentRef"), 0, _ip_address_row),
    "networkpolicies": (("Name", "Pod-Selector", "Age"), 0,
                        _name_value_age_row(lambda o: _selector_text((o.get("spec") or {}).get("podSelector")))),
    "servicecidrs": (("Name", "CIDRs", "Age"), 0,
                     _name_value_age_row(lambda o: ",".join((o.get("spec") or {}).get("cidrs") or []))),
    "runtimeclasses": (("Name", "Handler", "Age"), 0, _name_value_age_row(lambda o: o.get("handler", ""))),
    "deviceclasses": (("Name", "Age"), 0, _name_age_row),
    "resourceclaims": (("Name", "State", "Age"), 0, _resource_claim_row),
    "resourceclaimtemplates": (("Name", "Age"), 0, _name_age_row),
    "resourceslices": (("Name", "Node", "Driver", "Pool", "Age"), 0, _resource_slice_row),
    "csidrivers": (("Name", "AttachRequired", "PodInfoOnMount", "StorageCapacity", "TokenRequests",
                    "RequiresRepublish", "Modes", "Age"), 0, _csi_driver_row),
    "csinodes": (("Name", "Drivers", "Age"), 0,
                 _name_value_age_row(lambda o: len((o.get("spec") or {}).get("drivers") or []))),
    "csistoragecapacities": (("Name", "StorageClassName", "Capacity"), 0,
                             lambda o, now: [_md(o)["name"], o.get("storageClassName", ""),
                                             o.get("capacity") or "<unset>"]),
    "volumeattachments": (("Name", "Attacher", "PV", "Node", "Attached", "Age"), 0, _volume_attachment_row),
    "volumeattributesclasses": (("Name", "DriverName", "Age"), 0,
                                _name_value_age_row(lambda o: o.get("driverName", ""))),
}

#: Column types other than ``string`` (upstream's ``Type`` of each TableColumnDefinition).
_COLUMN_TYPES = {c: "integer" for c in ("Desired", "Current", "Data", "Secrets", "MinPods", "MaxPods", "Replicas",
                                        "Up-to-date", "Available", "Active", "Value", "Revision",
                                        "Allowed Disruptions", "Restarts", "Webhooks", "Validations",
                                        "MatchingPrecedence", "Drivers")}
_COLUMN_TYPES.update({"Created At": "date", "Suspend": "boolean", "AttachRequired": "boolean",
                      "PodInfoOnMount": "boolean", "StorageCapacity": "boolean", "RequiresRepublish": "boolean",
                      "Attached": "boolean"})

#: Served versions printed from their storage form (upstream prints the internal version): an events.k8s.io
#: Event as a core Event, an autoscaling/v1 HPA as autoscaling/v2.
_PRINTED_AS = {r.api_version: storage_resource(r).api_version for r in SERVED_RESOURCES
               if storage_resource(r) is not r}

#: Wide-only (``priority: 1``) columns that sit between default ones, by resource (upstream's events).
_WIDE_NAMES: dict[str, frozenset[str]] = {
    "events": frozenset({"Subobject", "Source", "First Seen", "Count", "Name"}),
}


def partial_object_metadata(obj: dict) -> dict:
    """A row's ``object`` for ``includeObject=Metadata`` (the default): the whole ``metadata`` of ``obj``.

    kubectl computes ``--show-labels`` and ``-L key`` client-side from these
    labels, so the metadata must be whole, not just the name.

    Notes
    -----
    Upstream (``asTable``) converts the object with ``meta.AsPartialObjectMetadata``,
    which copies all of ``ObjectMeta``; ``managedFields`` are left out here as
    the Table path of the request handler drops them.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/endpoints/handlers/response.go (asTable)

    Examples
    --------
    >>> partial_object_metadata({"metadata": {"name": "web", "labels": {"app": "web"}, "managedFields": []}})
    {'kind': 'PartialObjectMetadata', 'apiVersion': 'meta.k8s.io/v1', 'metadata': {'name': 'web', 'labels': {'app': 'web'}}}
    """
    import copy

    md = {k: copy.deepcopy(v) for k, v in (obj.get("metadata") or {}).items() if k != "managedFields"}
    return {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": md}


def table_for(resource: str, objects: Iterable[dict], now: float, *, wide: bool = False) -> dict:
    """A ``meta.k8s.io/v1`` Table of ``objects`` (one row each, ``object`` holding a partial metadata).

    Parameters
    ----------
    resource : str
        Plural resource name (``pods``).
    now : float
        Virtual seconds (for AGE).
    wide : bool
        Include the ``-o wide`` columns (priority 1 upstream; the Table always
        carries them, kubectl hides them unless ``-o wide``).

    Returns
    -------
    dict
        ``{"kind": "Table", "apiVersion": "meta.k8s.io/v1", "columnDefinitions": [...], "rows": [...]}``.
    """
    cols, n_wide, row = COLUMNS.get(resource, (("Name", "Age"), 0, _name_age_row))
    wide_names = _WIDE_NAMES.get(resource, frozenset(cols[len(cols) - n_wide:]) if n_wide else frozenset())
    priorities = [1 if c in wide_names else 0 for c in cols]
    defs = [{"name": c, "type": _COLUMN_TYPES.get(c, "string"), "format": "name" if c == "Name" else "",
             "description": "", "priority": prio} for c, prio in zip(cols, priorities)]
    rows = []
    for o in objects:
        printed = o if o.get("apiVersion") not in _PRINTED_AS else convert(o, _PRINTED_AS[o["apiVersion"]])
        rows.append({"cells": row(printed, now), "object": partial_object_metadata(o)})
    if not wide:
        keep = [i for i, prio in enumerate(priorities) if prio == 0]
        defs = [defs[i] for i in keep]
        for r in rows:
            r["cells"] = [r["cells"][i] for i in keep]
    return {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": {}, "columnDefinitions": defs,
            "rows": rows}


def format_table(table: dict, *, with_namespace: bool = False) -> str:
    """Render a Table as kubectl's human-readable printer (``NAME   READY   STATUS ...``).

    Examples
    --------
    >>> t = table_for("namespaces", [{"metadata": {"name": "default", "creationTimestamp": "2025-08-27T00:00:00Z"},
    ...                               "status": {"phase": "Active"}}], 150)
    >>> print(format_table(t))
    NAME      STATUS   AGE
    default   Active   2m30s
    """
    headers = [c["name"].upper() for c in table["columnDefinitions"]]
    rows = [[str(c) for c in r["cells"]] for r in table["rows"]]
    if with_namespace:
        headers = ["NAMESPACE"] + headers
        rows = [[(r.get("object", {}).get("metadata") or {}).get("namespace", "")] + cells
                for r, cells in zip(table["rows"], rows)]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    lines = ["   ".join(v.ljust(w) for v, w in zip(line, widths)).rstrip() for line in [headers] + rows]
    return "\n".join(lines)


def format_tables(cluster: Any, resources: Iterable[str], *, wide: bool = False) -> str:
    """``kubectl get R1,R2,... -A`` for a cluster: one table per resource that has objects, blank line between."""
    from kubenotes.apiserver.resources import resource_for

    out = []
    for r in resources:
        objs = cluster.list(r)
        if not objs:
            continue
        ri = resource_for(r)
        t = table_for(ri.resource, objs, cluster.now, wide=wide)
        text = format_table(t, with_namespace=ri.namespaced)
        prefix = f"{ri.resource}.{ri.group}" if ri.group else ri.resource
        lines = text.split("\n")
        # kubectl get with several kinds prefixes names with kind/ (e.g. pod/web)
        out.append(f"# {prefix}\n" + "\n".join(lines))
    return "\n\n".join(out) + ("\n" if out else "")
