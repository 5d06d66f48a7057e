"""The Services chapter's small cluster and the queries over it: kube-proxy's view, rule probabilities, discovery.

Nothing here draws; :mod:`kubenotes.viz.proxy` lays the results out. The
cluster is one node ``worker-1``, the Service ``default/web`` (cluster IP
:data:`WEB_CLUSTER_IP`, port 80 -> 8080) and its ready pods, as JSON-shaped
manifests; the EndpointSlices are those the EndpointSlice controller would
write (:mod:`kubenotes.sim.network`), and kube-proxy's state comes from
:func:`kubenotes.proxy.endpoints.proxy_state`.

* :func:`web_objects`, :func:`web_state`: the objects and kube-proxy's view of them;
* :func:`svc_probabilities`: the ``--probability`` of each KUBE-SVC -> KUBE-SEP jump;
* :func:`rule_changes`: the rule lines a change removed and added (an endpoint leaving, say);
* :func:`service_rules`, :func:`nftables_rules`, :func:`rules_for_service`: the part of kube-proxy's
  ``iptables-save`` / ``nft list table`` output that is about the Services (or one Service);
* :func:`balance_runs`: iptables random, IPVS round robin and ClientIP affinity over the same endpoints;
* :func:`discovery_objects`, :func:`discovery_timeline`: Service environment variables against DNS.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/proxy/iptables/proxier.go
kubernetes/kubernetes@v1.34.0 pkg/proxy/endpointschangetracker.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/kubelet_pods.go (getServiceEnvVarMap)
"""

from __future__ import annotations

import functools
import re
from typing import Any

from kubenotes.dns.coredns import ClusterDNS
from kubenotes.kubelet.envvars import service_env_vars
from kubenotes.proxy.balance import DEFAULT_CLIENT_IP_AFFINITY_SECONDS, BalanceResult, simulate_connections
from kubenotes.proxy.endpoints import ProxyState, proxy_state
from kubenotes.proxy.iptables import ENDPOINT_CHAIN_RE, SERVICE_CHAIN_RE, iptables_save, parse_rule
from kubenotes.proxy.nftables import nft_list_table
from kubenotes.sim.network import add_endpoint_slices, kube_proxy_objects
from kubenotes.sim.scenarios import CLUSTER_CIDR

__all__ = [
    "NODE_NAME",
    "WEB_CLUSTER_IP",
    "web_objects",
    "web_state",
    "svc_probabilities",
    "rule_changes",
    "service_rules",
    "nftables_rules",
    "rules_for_service",
    "balance_runs",
    "discovery_objects",
    "discovery_timeline",
]

#: The one node of the chapter's cluster.
NODE_NAME = "worker-1"
#: The cluster IP of the Service ``default/web``.
WEB_CLUSTER_IP = "10.96.0.100"

def _node(name: str = NODE_NAME, ip: str = "192.168.1.11", pod_cidr: str = "10.244.1.0/24") -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "spec": {"podCIDR": pod_cidr, "podCIDRs": [pod_cidr]},
            "status": {"addresses": [{"type": "InternalIP", "address": ip}, {"type": "Hostname", "address": name}],
                       "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                       "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}


def _web_service(session_affinity: bool = False) -> dict:
    spec: dict[str, Any] = {"type": "ClusterIP", "clusterIP": WEB_CLUSTER_IP, "clusterIPs": [WEB_CLUSTER_IP],
                            "selector": {"app": "web"},
                            "ports": [{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP"}]}
    if session_affinity:
        spec["sessionAffinity"] = "ClientIP"
        spec["sessionAffinityConfig"] = {"clientIP": {"timeoutSeconds": DEFAULT_CLIENT_IP_AFFINITY_SECONDS}}
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "default"}, "spec": spec}


def _pod(name: str, ip: str, labels: dict, node: str = NODE_NAME, ready: bool = True, port: int = 8080,
         namespace: str = "default", **spec: Any) -> dict:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace, "uid": f"uid-{name}", "labels": labels},
            "spec": {"nodeName": node, "containers": [{"name": "app", "image": "nginx:1.27",
                                                        "ports": [{"containerPort": port, "protocol": "TCP"}]}],
                     **spec},
            "status": {"phase": "Running", "podIP": ip, "podIPs": [{"ip": ip}],
                       "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}}


def web_objects(n_endpoints: int = 3, *, session_affinity: bool = False) -> list[dict]:
    """The node ``worker-1``, the Service ``default/web`` (10.96.0.100:80 -> 8080) and ``n_endpoints`` ready pods.

    Parameters
    ----------
    n_endpoints : int
        Ready pods ``web-0`` ... behind the Service, at ``10.244.1.10`` upwards, all on ``worker-1``.
    session_affinity : bool
        Give the Service ``sessionAffinity: ClientIP`` with the default
        timeout (:data:`kubenotes.proxy.balance.DEFAULT_CLIENT_IP_AFFINITY_SECONDS`).

    Returns
    -------
    list of dict
        The Node, the Service, then the pods, as JSON-shaped manifests (no EndpointSlices).

    Raises
    ------
    TypeError
        When ``n_endpoints`` is not an int (``range`` refuses it); a count below 1 gives no pods.

    See Also
    --------
    web_state : the same objects as kube-proxy sees them.

    Examples
    --------
    >>> [o["kind"] for o in web_objects(2)]
    ['Node', 'Service', 'Pod', 'Pod']
    """
    pods = [_pod(f"web-{i}", f"10.244.1.{10 + i}", {"app": "web"}) for i in range(n_endpoints)]
    return [_node(), _web_service(session_affinity), *pods]


def web_state(n_endpoints: int = 3, *, session_affinity: bool = False) -> ProxyState:
    """kube-proxy's view on ``worker-1`` of :func:`web_objects` (with the slices the controller would write).

    Parameters
    ----------
    n_endpoints : int
        Ready pods behind ``default/web``.
    session_affinity : bool
        ``sessionAffinity: ClientIP`` on the Service.

    Returns
    -------
    ProxyState
        From :func:`kubenotes.proxy.endpoints.proxy_state` for node ``worker-1``
        and :data:`CLUSTER_CIDR`: the Service ports and their endpoints.

    Raises
    ------
    TypeError
        When ``n_endpoints`` is not an int, as :func:`web_objects`.

    See Also
    --------
    service_rules, nftables_rules

    Notes
    -----
    The EndpointSlices are computed at once by
    :func:`kubenotes.sim.network.kube_proxy_objects` rather than written by a
    running EndpointSlice controller.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/proxy/endpointschangetracker.go

    Examples
    --------
    >>> type(web_state(2)).__name__
    'ProxyState'
    """
    return proxy_state(kube_proxy_objects(web_objects(n_endpoints, session_affinity=session_affinity)), NODE_NAME,
                       cluster_cidr=CLUSTER_CIDR)


def svc_probabilities(iptables_text: str) -> list[str | None]:
    """The ``--probability`` of each KUBE-SVC -> KUBE-SEP jump, in order (None: the unconditional last one).

    Parameters
    ----------
    iptables_text : str
        ``iptables-save`` lines, e.g. :func:`kubenotes.proxy.iptables.iptables_save` of :func:`web_state`.

    Returns
    -------
    list of str or None
        One entry per endpoint of all the KUBE-SVC chains in the text, in rule
        order: the probability as printed (``"0.5000000000"``), None for the last jump.

    Raises
    ------
    AttributeError
        When ``iptables_text`` is not a str.

    Notes
    -----
    kube-proxy gives the i-th of n endpoints probability 1/(n-i), so each is
    chosen with 1/n overall.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/proxy/iptables/proxier.go (``probability``)

    Examples
    --------
    >>> from kubenotes.proxy.iptables import iptables_save
    >>> svc_probabilities(iptables_save(web_state(3)))
    ['0.3333333333', '0.5000000000', None]
    """
    jumps: dict[tuple[str, str], tuple[int, str | None]] = {}  # (KUBE-SVC, KUBE-SEP) -> (rule order, probability)
    order = 0
    for ln in iptables_text.splitlines():
        r = parse_rule(ln)
        if r is None or not (SERVICE_CHAIN_RE.fullmatch(r.chain) and ENDPOINT_CHAIN_RE.fullmatch(r.jump)):
            continue
        order += 1
        jumps[(r.chain, r.jump)] = (order, r.probability)  # a repeated jump keeps its last
    return [p for _, p in sorted(jumps.values(), key=lambda v: v[0])]


def rule_changes(before: str, after: str) -> tuple[list[str], list[str]]:
    """The lines of a rule text that a change removed, and those it added.

    Parameters
    ----------
    before, after : str
        Rule texts, e.g. :func:`kubenotes.proxy.iptables.iptables_save` before
        and after an endpoint left.

    Returns
    -------
    tuple of (list of str, list of str)
        ``(removed, added)``: the lines of ``before`` not in ``after``, then
        those of ``after`` not in ``before``, each in its text's order.

    Raises
    ------
    AttributeError
        When a text is not a str.

    Notes
    -----
    Lines are compared as a set: order and repeats are ignored, so a rule
    that only moved is no change. ``iptables-restore`` replaces whole
    chains; this is what a reader diffing two ``iptables-save`` dumps sees.

    Examples
    --------
    >>> rule_changes("a\\nb\\n", "a\\nc\\n")
    (['b'], ['c'])
    """
    a, b = before.splitlines(), after.splitlines()
    kept_a, kept_b = set(a), set(b)
    return [ln for ln in a if ln not in kept_b], [ln for ln in b if ln not in kept_a]


# nft's service-* and endpoint-* chains, from their ``chain`` line to their closing brace.
_NFT_CHAIN = re.compile(r"^[ \t]*chain (?:service|endpoint)-[A-Z0-9]{8}-.*?^[ \t]*\}[ \t]*\n", re.M | re.S)


def service_rules(state: ProxyState, *, service_only: bool = True) -> str:
    """The ``iptables-save`` text for ``state``; with ``service_only``, the nat lines about KUBE-SVC/KUBE-SEP chains.

    Parameters
    ----------
    state : ProxyState
        What kube-proxy knows, e.g. :func:`kubenotes.sim.services.web_state`.
    service_only : bool
        Keep only the ``nat`` table's lines naming a ``KUBE-SVC-*`` or
        ``KUBE-SEP-*`` chain; False returns the whole dump.

    Returns
    -------
    str
        ``iptables-save`` lines, newline-terminated.

    Raises
    ------
    AttributeError
        When ``state`` is not a :class:`~kubenotes.proxy.endpoints.ProxyState`.

    See Also
    --------
    svc_probabilities, kubenotes.viz.proxy.rule_graph, kubenotes.viz.proxy.rules_html

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/proxy/iptables/proxier.go

    Examples
    --------
    >>> text = service_rules(web_state(2))
    >>> [ln.split("--probability ")[1][:12] for ln in text.splitlines() if "--probability" in ln]
    ['0.5000000000']
    """
    text = iptables_save(state)
    if not service_only:
        return text
    nat = text.partition("*nat\n")[2].partition("\nCOMMIT")[0].splitlines()
    return "\n".join(ln for ln in nat if SERVICE_CHAIN_RE.search(ln) or ENDPOINT_CHAIN_RE.search(ln)) + "\n"


def nftables_rules(state: ProxyState) -> str:
    """The service-* and endpoint-* chains of ``nft list table ip kube-proxy`` for ``state`` (nftables mode).

    Parameters
    ----------
    state : ProxyState
        What kube-proxy knows, e.g. :func:`kubenotes.sim.services.web_state`.

    Returns
    -------
    str
        Those chains as ``nft list table`` prints them (the whole table when there are none).

    Raises
    ------
    AttributeError
        When ``state`` is not a :class:`~kubenotes.proxy.endpoints.ProxyState`.

    See Also
    --------
    service_rules : the same Service in iptables mode.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/proxy/nftables/proxier.go

    Examples
    --------
    >>> nftables_rules(web_state(2)).count("chain endpoint-")
    2
    """
    text = nft_list_table(state)
    return "".join(_NFT_CHAIN.findall(text)) or text


def rules_for_service(iptables_text: str, namespace: str, name: str) -> str:
    """The lines of an ``iptables-save`` dump that are about one Service, table by table.

    A rule is about the Service when its ``--comment`` starts with
    ``<namespace>/<name>`` (kube-proxy comments every per-Service rule so), or
    when it is the ``KUBE-SERVICES`` tail jump to ``KUBE-NODEPORTS`` and the
    Service has NodePort rules; a chain declaration is kept when one of those
    rules is in or jumps to that chain.

    Parameters
    ----------
    iptables_text : str
        ``iptables-save`` output, e.g. :func:`kubenotes.proxy.iptables.iptables_save`.
    namespace, name : str
        The Service.

    Returns
    -------
    str
        ``*table`` headers, declarations and rules in dump order, newline-terminated;
        empty when kube-proxy wrote nothing for the Service (headless, ExternalName).

    Raises
    ------
    AttributeError
        When ``iptables_text`` is not a str.

    See Also
    --------
    service_rules : every Service's KUBE-SVC / KUBE-SEP lines.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/proxy/iptables/proxier.go (``syncProxyRules``: one comment per Service port)

    Examples
    --------
    >>> text = service_rules(web_state(1), service_only=False)
    >>> [ln.split(" -m ")[0] for ln in rules_for_service(text, "default", "web").splitlines() if ln.startswith("-A")]
    ['-A KUBE-SERVICES', '-A KUBE-SEP-GWQABTP5GBYXHJY5', '-A KUBE-SEP-GWQABTP5GBYXHJY5', '-A KUBE-SVC-CDGGSHYLG3RE2FKL', '-A KUBE-SVC-CDGGSHYLG3RE2FKL']
    >>> rules_for_service(text, "default", "nothing")
    ''
    """
    out: list[str] = []
    # each table: its ``*name`` header and its lines up to the next header
    for header, body in re.findall(r"^(\*.*)\n((?:(?!\*).*\n?)*)", iptables_text, re.M):
        lines, chains, mine = body.splitlines(), set(), set()
        for ln, r in ((ln, parse_rule(ln)) for ln in lines):
            if r is not None and (r.comment or "").split(" ")[0].split(":")[0] == f"{namespace}/{name}":
                mine.add(ln)
                chains.update(c for c in (r.chain, r.jump) if c)
        if "KUBE-NODEPORTS" in chains:  # and the tail jump from KUBE-SERVICES to it
            mine.update(ln for ln in lines if ln.startswith("-A KUBE-SERVICES ") and ln.endswith("-j KUBE-NODEPORTS"))
        if mine:
            mine.update(ln for ln in lines if ln.startswith(":") and ln[1:].split(" ")[0] in chains)  # declarations
            out += [header, *(ln for ln in lines if ln in mine)]
    return "\n".join(out) + "\n" if out else ""


_RUNS = (("iptables random", "iptables", None), ("IPVS round robin", "ipvs-rr", None),
         ("ClientIP affinity (iptables)", "iptables", DEFAULT_CLIENT_IP_AFFINITY_SECONDS))


@functools.lru_cache(maxsize=64)
def balance_runs(n_endpoints: int = 3, connections: int = 10_000, clients: int = 50,
                 seed: int = 0) -> dict[str, BalanceResult]:
    """Three load-balancing runs over the same endpoints: iptables random, IPVS rr, ClientIP affinity (memoised).

    Parameters
    ----------
    n_endpoints : int
        Endpoints behind the Service.
    connections : int
        Connections each run opens.
    clients : int
        Distinct client IPs the connections come from.
    seed : int
        Seeds each run's random choices (the same seed for all three).

    Returns
    -------
    dict[str, BalanceResult]
        Run label (``iptables random``, ``IPVS round robin``, ``ClientIP affinity (iptables)``) ->
        :func:`kubenotes.proxy.balance.simulate_connections`'s result.

    Raises
    ------
    ValueError
        As :func:`kubenotes.proxy.balance.simulate_connections` (e.g. fewer than one endpoint).

    See Also
    --------
    kubenotes.viz.proxy.balance_histogram, kubenotes.viz.proxy.balance_table

    Notes
    -----
    Memoised with :func:`functools.lru_cache`: a widget re-rendering a slider position it has seen gets the
    same result object at once.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/proxy/iptables/proxier.go (``probability``)
    kubernetes/kubernetes@v1.34.0 pkg/proxy/ipvs/proxier.go

    Examples
    --------
    >>> list(balance_runs(2, 100, 5))
    ['iptables random', 'IPVS round robin', 'ClientIP affinity (iptables)']
    """
    return {label: simulate_connections(n_endpoints, mode, connections=connections, clients=clients, seed=seed,
                                        session_affinity_timeout_seconds=aff)
            for label, mode, aff in _RUNS}


def discovery_objects() -> list[dict]:
    """Services ``kubernetes`` (default), ``kube-dns`` (kube-system), ``web`` and headless ``db``; pods; their slices.

    The EndpointSlices are those the EndpointSlice controller would write
    (:func:`kubenotes.sim.network.add_endpoint_slices`).

    Parameters
    ----------
    None

    Returns
    -------
    list of dict
        In order: the Services ``kubernetes`` and ``kube-dns``, ``web`` and its
        pods ``web-0..2``, headless ``db`` and its pods ``db-0``, ``db-1``
        (with ``hostname``/``subdomain``), then the EndpointSlices of the
        Services that select pods here (``db``, ``web``).

    Raises
    ------
    None of its own: the objects are fixed.

    Examples
    --------
    >>> sorted(o["metadata"]["name"] for o in discovery_objects() if o["kind"] == "EndpointSlice")
    ['db-00000', 'web-00000']
    """
    kube = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "kubernetes", "namespace": "default"},
            "spec": {"clusterIP": "10.96.0.1", "clusterIPs": ["10.96.0.1"],
                     "ports": [{"name": "https", "port": 443, "targetPort": 6443, "protocol": "TCP"}]}}
    dns = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "kube-dns", "namespace": "kube-system"},
           "spec": {"clusterIP": "10.96.0.10", "clusterIPs": ["10.96.0.10"], "selector": {"k8s-app": "kube-dns"},
                    "ports": [{"name": "dns", "port": 53, "protocol": "UDP"},
                              {"name": "dns-tcp", "port": 53, "protocol": "TCP"},
                              {"name": "metrics", "port": 9153, "protocol": "TCP"}]}}
    db = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "db", "namespace": "default"},
          "spec": {"clusterIP": "None", "clusterIPs": ["None"], "selector": {"app": "db"},
                   "ports": [{"name": "postgres", "port": 5432, "targetPort": 5432, "protocol": "TCP"}]}}
    dbs = [_pod(f"db-{i}", f"10.244.1.{30 + i}", {"app": "db"}, port=5432, hostname=f"db-{i}", subdomain="db")
           for i in range(2)]
    return add_endpoint_slices([kube, dns, *web_objects(3)[1:], db, *dbs])


def discovery_timeline(created_after_pod: str = "web") -> dict[str, Any]:
    """Env vars vs DNS for a pod ``client`` started before the Service ``created_after_pod`` existed.

    Parameters
    ----------
    created_after_pod : str
        A Service name of :func:`discovery_objects` in ``default`` (``web`` or ``db``).

    Returns
    -------
    dict
        ``service``: the name; ``env``: the client's Service variables (fixed when it started);
        ``env_restarted``: what a new container would get now;
        ``dns``: the records ``<service>`` resolves to from the client now; ``resolution``: the questions asked.

    Raises
    ------
    None of its own: an unknown name gives the env of every Service and no DNS records.

    Notes
    -----
    The kubelet injects ``<SVC>_SERVICE_HOST``... only for Services that exist
    when the container starts; DNS answers from the current EndpointSlices.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/kubelet_pods.go (``getServiceEnvVarMap``)

    Examples
    --------
    >>> tl = discovery_timeline("web")
    >>> [k for k in tl["env"] if k.startswith("WEB_")], "WEB_SERVICE_HOST" in tl["env_restarted"]
    ([], True)
    >>> [r.data for r in discovery_timeline("db")["dns"]]
    ['10.244.1.30', '10.244.1.31']
    """
    objs = discovery_objects()
    services = [o for o in objs if o["kind"] == "Service"]
    at_start = [s for s in services if s["metadata"]["name"] != created_after_pod]
    dns = ClusterDNS(objs)
    return {"service": created_after_pod, "env": service_env_vars(at_start, "default"), "env_restarted": service_env_vars(services, "default"),
            "dns": dns.resolve(created_after_pod, "default"), "resolution": dns.resolution(created_after_pod,
                                                                                          "default")}

