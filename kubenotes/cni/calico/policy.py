"""Kubernetes NetworkPolicy as Calico's Felix enforces it: which policy and rule let a flow through, or none.

Calico's Kubernetes datastore driver turns each ``networking.k8s.io/v1``
NetworkPolicy into a namespaced Calico policy named
``knp.default.<name>`` in the ``default`` tier (order 1000), and Felix
renders, per workload endpoint (a pod's ``cali...`` veth):

* ``cali-tw-<veth>`` ("to workload"): the ingress side. For each policy
  that selects the pod and has ``Ingress`` in ``policyTypes``, in order
  (order, then name), a jump to its ``cali-pi-<id>`` chain ("policy
  inbound"); a rule that matches marks the packet accepted and returns. If
  no policy accepted it, ``End of tier default. Drop if no policies passed
  packet``. If no policy
  selects the pod at all, the namespace's profile ``kns.<namespace>``
  accepts: a pod is isolated for a direction only once a policy selects it
  for that direction (Kubernetes' default allow);
* ``cali-fw-<veth>`` ("from workload"): the same for egress, with
  ``cali-po-<id>`` chains ("policy outbound").

A policy chain's name is :func:`policy_chain_name`: the prefix and the
policy's id (``default/<namespace>/knp.default.<name>``: tier, then name), or, when that would exceed
iptables' 28-character chain names, ``_`` and the start of its SHA-256 in
URL-safe base64 (Felix's ``GetLengthLimitedID``).

Each policy's rules are compiled once into Felix's rule model
(:mod:`kubenotes.cni.calico.rules`: one Calico rule per protocol and peer,
selector IP sets, CIDRs with their ``except``, port ranges and named-port
sets); a flow is allowed by the first such rule that matches it
(:meth:`kubenotes.cni.calico.rules.FelixRule.matches`), the same rules
:mod:`kubenotes.cni.calico.iptables` renders as ``iptables-restore`` text.
A peer is a ``podSelector`` (pods of the policy's namespace), a
``namespaceSelector`` (every pod of the selected namespaces), both (the
selected pods of the selected namespaces), or an ``ipBlock`` (the address in
``cidr`` and in no ``except``; pod or not). A port is a protocol (default
TCP) with a number, a number range up to ``endPort``, or a name looked up
among the destination pod's container ports.

Flannel enforces no NetworkPolicy: its documentation sends users to a
policy engine beside it (Calico's, the "Canal" combination); Flannel is not
modelled here yet.

Notes
-----
Simplified: only Kubernetes NetworkPolicies (no Calico
NetworkPolicy/GlobalNetworkPolicy, tiers other than ``default``,
AdminNetworkPolicy, host endpoints or ``ServiceAccount`` profiles); the flow
is one packet of a new connection (replies ride conntrack's ``ESTABLISHED``
accept at the top of Felix's chains and are not evaluated); IPv4 only, as
the walk. The policy id follows v3.30's ``PolicyChainName`` (tier ``/``
``namespace/knp.default.name``; later releases key chains by kind,
namespace and name; the hashing is the same).

References
----------
projectcalico/calico@v3.30.0 felix/rules/endpoints.go (WorkloadEndpointToIptablesChains, "End of tier default. Drop if no policies passed packet")
projectcalico/calico@v3.30.0 felix/rules/policy.go (PolicyChainName), felix/rules/static.go (chain prefixes)
projectcalico/calico@v3.30.0 felix/hashutils/id.go (GetLengthLimitedID)
projectcalico/calico@v3.30.0 libcalico-go/lib/backend/k8s/conversion/conversion.go (K8sNetworkPolicyToCalico)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/api/networking/v1/types.go (NetworkPolicy semantics)
https://kubernetes.io/docs/concepts/services-networking/network-policies/
https://github.com/flannel-io/flannel#networking-details (Flannel and network policy)
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from kubenotes.api.selectors import LabelSelector
from kubenotes.cni.calico.rules import k8s_rules_to_felix, policy_selector

__all__ = [
    "INGRESS",
    "EGRESS",
    "MAX_CHAIN_NAME_LENGTH",
    "K8S_NETWORK_POLICY_NAME_PREFIX",
    "DEFAULT_TIER",
    "END_OF_TIER_DROP_COMMENT",
    "NAMESPACE_NAME_LABEL",
    "Endpoint",
    "Verdict",
    "get_length_limited_id",
    "policy_chain_name",
    "endpoint_chain_name",
    "policy_types",
    "PolicySet",
    "example_policies",
]

INGRESS = "Ingress"
EGRESS = "Egress"
#: iptables' limit on chain names (``iptables.MaxChainNameLength``).
MAX_CHAIN_NAME_LENGTH = 28
#: The tier every Kubernetes NetworkPolicy is in (``names.DefaultTierName``); its default action is Deny.
DEFAULT_TIER = "default"
#: The comment on the endpoint chain's end-of-tier drop (``endpointIptablesChain``, deny action DROP).
END_OF_TIER_DROP_COMMENT = f"End of tier {DEFAULT_TIER}. Drop if no policies passed packet"
#: ``K8sNetworkPolicyNamePrefix``: a Kubernetes policy's name in Calico.
K8S_NETWORK_POLICY_NAME_PREFIX = "knp.default."
#: The label the API server puts on every Namespace (``kubernetes.io/metadata.name``, GA in v1.22).
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"
_POLICY_INBOUND_PFX = "cali-pi-"
_POLICY_OUTBOUND_PFX = "cali-po-"
_TO_WORKLOAD_PFX = "cali-tw-"
_FROM_WORKLOAD_PFX = "cali-fw-"
_PROFILE_PFX = "kns."


def get_length_limited_id(prefix: str, suffix: str, max_length: int = MAX_CHAIN_NAME_LENGTH) -> str:
    """Felix's ``GetLengthLimitedID``: ``prefix + suffix``, or a hash of the suffix where that is too long.

    Parameters
    ----------
    prefix : str
        Kept as is (``cali-pi-``).
    suffix : str
        The id; replaced by ``_`` and the first characters of its SHA-256
        (URL-safe base64, no padding) when ``prefix + suffix`` exceeds
        ``max_length``, or equals it and starts with ``_``.
    max_length : int
        28 for iptables chains.

    Returns
    -------
    str
        At most ``max_length`` characters.

    Examples
    --------
    >>> get_length_limited_id("cali-pi-", "default/knp.default.a")
    'cali-pi-_ULUuQ9liUVfLlOeTwgj'
    >>> get_length_limited_id("cali-tw-", "calic440f455693")
    'cali-tw-calic440f455693'
    """
    total = len(prefix) + len(suffix)
    if total > max_length or (total == max_length and suffix[:1] == "_"):
        digest = base64.urlsafe_b64encode(hashlib.sha256(suffix.encode()).digest()).decode().rstrip("=")
        return prefix + "_" + digest[:max_length - 1 - len(prefix)]
    return prefix + suffix


def policy_chain_name(namespace: str, name: str, direction: str) -> str:
    """The ``cali-pi-``/``cali-po-`` chain Felix renders a Kubernetes NetworkPolicy's rules into.

    Parameters
    ----------
    namespace, name : str
        The NetworkPolicy.
    direction : str
        :data:`INGRESS` (``cali-pi-``, policy inbound) or :data:`EGRESS` (``cali-po-``).

    Returns
    -------
    str

    Examples
    --------
    >>> policy_chain_name("default", "deny", "Ingress"), policy_chain_name("default", "deny", "Egress")[:8]
    ('cali-pi-_PnGP1ZZ_9vgWtAUgt9E', 'cali-po-')
    """
    pfx = _POLICY_INBOUND_PFX if direction == INGRESS else _POLICY_OUTBOUND_PFX
    return get_length_limited_id(pfx, f"{DEFAULT_TIER}/{namespace}/{K8S_NETWORK_POLICY_NAME_PREFIX}{name}")


def endpoint_chain_name(veth: str, direction: str) -> str:
    """``cali-tw-<veth>`` (to the workload: ingress) or ``cali-fw-<veth>`` (from it: egress).

    Examples
    --------
    >>> endpoint_chain_name("calic440f455693", "Ingress")
    'cali-tw-calic440f455693'
    """
    pfx = _TO_WORKLOAD_PFX if direction == INGRESS else _FROM_WORKLOAD_PFX
    return get_length_limited_id(pfx, veth)


def policy_types(policy: Mapping[str, Any]) -> tuple[str, ...]:
    """A policy's ``spec.policyTypes``, or what ``SetDefaults_NetworkPolicy`` would make them for a manifest.

    Examples
    --------
    >>> policy_types({"spec": {"podSelector": {}}}), policy_types({"spec": {"egress": [{}]}})
    (('Ingress',), ('Ingress', 'Egress'))
    """
    spec = policy.get("spec") or {}
    types = spec.get("policyTypes")
    if types:
        return tuple(types)
    return (INGRESS, EGRESS) if spec.get("egress") else (INGRESS,)


@dataclass(frozen=True)
class Endpoint:
    """One end of a flow: a pod (namespace, name, labels, container ports) or only an address.

    Attributes
    ----------
    ip : str
    namespace, name : str
        Empty for an address that is no pod.
    labels : dict
    ports : tuple of (name, protocol, number)
        The pod's named container ports, what a named NetworkPolicy port resolves to.
    veth : str
        The host-side interface (``cali...``) of a pod on Calico.
    service_account : str
        ``spec.serviceAccountName`` (Felix's ``ksa.<namespace>.<name>`` profile).
    """

    ip: str
    namespace: str = ""
    name: str = ""
    labels: Mapping[str, str] = field(default_factory=dict)
    ports: tuple[tuple[str, str, int], ...] = ()
    veth: str = ""
    service_account: str = "default"

    @property
    def is_pod(self) -> bool:
        return bool(self.name)

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}" if self.name else self.ip

    @classmethod
    def from_pod(cls, pod: Mapping[str, Any], ip: str, veth: str = "") -> "Endpoint":
        """The endpoint of a Pod dict at ``ip``.

        Examples
        --------
        >>> e = Endpoint.from_pod({"metadata": {"name": "web", "labels": {"app": "web"}}, "spec": {"containers": [
        ...     {"ports": [{"name": "http", "containerPort": 8080}]}]}}, "10.0.0.5")
        >>> e.key, e.ports
        ('default/web', (('http', 'TCP', 8080),))
        """
        md = pod.get("metadata") or {}
        ports = tuple((p["name"], p.get("protocol") or "TCP", int(p["containerPort"]))
                      for c in (pod.get("spec") or {}).get("containers") or ()
                      for p in c.get("ports") or () if p.get("name") and p.get("containerPort"))
        return cls(ip, md.get("namespace") or "default", md.get("name") or "", dict(md.get("labels") or {}),
                   ports, veth, (pod.get("spec") or {}).get("serviceAccountName") or "default")


@dataclass(frozen=True)
class Verdict:
    """What Felix decided for one direction of a flow at one endpoint.

    Attributes
    ----------
    direction : str
        :data:`INGRESS` (at the destination pod) or :data:`EGRESS` (at the source pod).
    endpoint : str
        ``namespace/pod`` whose chain decided.
    chain : str
        ``cali-tw-...`` or ``cali-fw-...``.
    allowed : bool
    policy : str or None
        ``namespace/name`` of the NetworkPolicy whose rule allowed the flow;
        None when no policy selects the pod (the profile allowed it) or none allowed it.
    rule : int or None
        Index of that rule in the policy's ``ingress``/``egress`` list.
    policy_chain : str or None
        Its ``cali-pi-``/``cali-po-`` chain.
    selected_by : tuple of str
        Every policy that selects the pod for this direction, in Felix's order.
    reason : str
        One sentence, as the walk prints it.
    """

    direction: str
    endpoint: str
    chain: str
    allowed: bool
    policy: str | None
    rule: int | None
    policy_chain: str | None
    selected_by: tuple[str, ...]
    reason: str

    def to_dict(self) -> dict:
        """The verdict as JSON-ready camelCase keys."""
        return {"direction": self.direction, "endpoint": self.endpoint, "chain": self.chain,
                "allowed": self.allowed, "policy": self.policy, "rule": self.rule, "policyChain": self.policy_chain,
                "selectedBy": list(self.selected_by), "reason": self.reason}


@dataclass(frozen=True)
class _Policy:
    namespace: str
    name: str
    selector: LabelSelector
    types: tuple[str, ...]
    rules: dict  # direction -> tuple of FelixRule (kubenotes.cni.calico.rules)
    calico_selector: str = ""  # Felix's normalised selector (groups policies into cali-gi-/cali-go- chains)

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def calico_name(self) -> str:
        """``<namespace>/knp.default.<name>``: the policy's name in Felix."""
        return f"{self.namespace}/{K8S_NETWORK_POLICY_NAME_PREFIX}{self.name}"


class PolicySet:
    """The NetworkPolicies of a cluster, compiled once, and Felix's decision for a flow.

    Parameters
    ----------
    objects : iterable of dict
        API objects; NetworkPolicies and Namespaces are read, the rest ignored.
        A Namespace without the ``kubernetes.io/metadata.name`` label (or one
        not in the input) gets it, as the API server labels every Namespace.

    Raises
    ------
    kubenotes.errors.FieldError
        A selector the API server would have refused (only for hand-built input).

    Examples
    --------
    >>> deny = {"kind": "NetworkPolicy", "metadata": {"name": "deny", "namespace": "default"},
    ...         "spec": {"podSelector": {"matchLabels": {"app": "web"}}}}
    >>> allow = {"kind": "NetworkPolicy", "metadata": {"name": "allow-client", "namespace": "default"},
    ...          "spec": {"podSelector": {"matchLabels": {"app": "web"}}, "ingress": [
    ...              {"from": [{"podSelector": {"matchLabels": {"role": "client"}}}], "ports": [{"port": 8080}]}]}}
    >>> web = Endpoint("192.168.1.2", "default", "web", {"app": "web"}, veth="cali1")
    >>> client, other = Endpoint("192.168.1.3", "default", "c", {"role": "client"}), Endpoint("192.168.1.4", "default", "o")
    >>> v = PolicySet([deny]).evaluate(client, web, "TCP", 8080, INGRESS)
    >>> v.allowed, v.selected_by
    (False, ('default/deny',))
    >>> ps = PolicySet([deny, allow])
    >>> v = ps.evaluate(client, web, "TCP", 8080, INGRESS)
    >>> v.allowed, v.policy, v.rule, v.chain
    (True, 'default/allow-client', 0, 'cali-tw-cali1')
    >>> ps.evaluate(other, web, "TCP", 8080, INGRESS).allowed, ps.evaluate(client, web, "TCP", 80, INGRESS).allowed
    (False, False)
    """

    def __init__(self, objects: Iterable[Mapping[str, Any]]):
        self.namespace_labels: dict[str, dict[str, str]] = {}
        policies = []
        for o in objects:
            kind = o.get("kind")
            md = o.get("metadata") or {}
            if kind == "Namespace":
                self.namespace_labels[md.get("name") or ""] = {**(md.get("labels") or {}),
                                                               NAMESPACE_NAME_LABEL: md.get("name") or ""}
            elif kind == "NetworkPolicy":
                spec = o.get("spec") or {}
                ns = md.get("namespace") or "default"
                policies.append(_Policy(ns, md.get("name") or "",
                                        LabelSelector.from_api(spec.get("podSelector") or {}), policy_types(o),
                                        {INGRESS: k8s_rules_to_felix(spec.get("ingress"), ns, True),
                                         EGRESS: k8s_rules_to_felix(spec.get("egress"), ns, False)},
                                        policy_selector(spec.get("podSelector"), ns)))
        # Felix orders a tier's policies by order (1000 for every Kubernetes policy), then by name
        self.policies: tuple[_Policy, ...] = tuple(sorted(policies, key=lambda p: (p.namespace, p.name)))
        self._by_namespace: dict[str, list[_Policy]] = {}
        for p in self.policies:  # a namespaced policy selects pods of its namespace only
            self._by_namespace.setdefault(p.namespace, []).append(p)

    def __len__(self) -> int:
        return len(self.policies)

    def ns_labels(self, namespace: str) -> dict[str, str]:
        """The labels of Namespace ``namespace`` (only ``kubernetes.io/metadata.name`` when it is not in the input)."""
        return self.namespace_labels.get(namespace) or {NAMESPACE_NAME_LABEL: namespace}

    def selecting(self, ep: Endpoint, direction: str) -> tuple[_Policy, ...]:
        """The policies that select pod ``ep`` for ``direction`` (isolate it), in Felix's order."""
        if not ep.is_pod:
            return ()
        return tuple(p for p in self._by_namespace.get(ep.namespace, ()) if direction in p.types
                     and p.selector.matches(ep.labels))

    def evaluate(self, src: Endpoint, dst: Endpoint, protocol: str, port: int, direction: str) -> Verdict:
        """Felix's decision for a new flow ``src`` -> ``dst:port`` at one end.

        Parameters
        ----------
        src, dst : Endpoint
            After kube-proxy's DNAT (a Service flow is judged on the endpoint pod it reaches).
        protocol : str
            ``TCP``, ``UDP`` or ``SCTP``.
        port : int
            Destination port.
        direction : str
            :data:`EGRESS`: the source pod's ``cali-fw-`` chain; :data:`INGRESS`:
            the destination pod's ``cali-tw-`` chain.

        Returns
        -------
        Verdict
        """
        ep, peer = (dst, src) if direction == INGRESS else (src, dst)
        chain = endpoint_chain_name(ep.veth, direction) if ep.veth else ""
        selecting = self.selecting(ep, direction)
        keys = tuple(p.key for p in selecting)
        if not selecting:
            return Verdict(direction, ep.key, chain, True, None, None, None, keys,
                           f"no NetworkPolicy selects {ep.key} for {direction.lower()}: the profile "
                           f"{_PROFILE_PFX}{ep.namespace} accepts (not isolated)")
        for p in selecting:
            for rule in p.rules[direction]:
                if not rule.matches(src, dst, protocol, port, self.ns_labels):
                    continue
                i = rule.k8s_index
                pchain = policy_chain_name(p.namespace, p.name, direction)
                return Verdict(direction, ep.key, chain, True, p.key, i, pchain, keys,
                               f"NetworkPolicy {p.key} {direction.lower()}[{i}] matches ({pchain}): accepted")
        return Verdict(direction, ep.key, chain, False, None, None, None, keys,
                       f"selected by NetworkPolicy {', '.join(keys)} and no rule allows {protocol} port {port} "
                       f"{'from' if direction == INGRESS else 'to'} {peer.key}: '{END_OF_TIER_DROP_COMMENT}' "
                       "(default deny)")


def example_policies(deny_web: bool = True, allow_client: bool = False, namespace: str = "default") -> list[dict]:
    """The chapter's NetworkPolicies for :func:`kubenotes.cni.calico.packet.example_cluster`'s ``web`` pods.

    Parameters
    ----------
    deny_web : bool
        ``deny-web``: selects ``app=web`` for Ingress with no rule (default deny for the web pods).
    allow_client : bool
        ``allow-client``: lets pods labelled ``role=client`` in to the web pods on TCP 8080.
    namespace : str

    Returns
    -------
    list of dict
        NetworkPolicy manifests (not defaulted), ``deny-web`` first.

    Raises
    ------
    None
        Any arguments give manifests; a namespace name is not checked.

    Examples
    --------
    >>> [p["metadata"]["name"] for p in example_policies(True, True)]
    ['deny-web', 'allow-client']
    """
    web = {"matchLabels": {"app": "web"}}
    out = []
    if deny_web:
        out.append({"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
                    "metadata": {"name": "deny-web", "namespace": namespace},
                    "spec": {"podSelector": web, "policyTypes": ["Ingress"]}})
    if allow_client:
        out.append({"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
                    "metadata": {"name": "allow-client", "namespace": namespace},
                    "spec": {"podSelector": web, "ingress": [{
                        "from": [{"podSelector": {"matchLabels": {"role": "client"}}}],
                        "ports": [{"protocol": "TCP", "port": 8080}]}]}})
    return out
