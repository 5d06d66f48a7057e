"""How many bytes each pod-network encapsulation adds to a packet: one table for every plugin.

Calico (VXLAN, IP-in-IP, none), Flannel (vxlan, wireguard, host-gw, the old udp backend)
and the generic packet walk (:mod:`kubenotes.cni.walk`) all read
:data:`ENCAP_OVERHEAD_BYTES`; a pod's MTU is the link's MTU minus one of these.

=================  =====  ==========================================================================
encapsulation      bytes  headers added in front of the pod's IP packet
=================  =====  ==========================================================================
``vxlan``          50     outer IPv4 20 + UDP 8 + VXLAN 8 + the inner Ethernet frame's 14 (RFC 7348)
``ipip``           20     one outer IPv4 header, protocol 4 (RFC 2003)
``wireguard``      60     outer IPv4 20 + UDP 8 + WireGuard data header 16 + Poly1305 tag 16
``wireguard-ipv6`` 80     the same over an IPv6 underlay (outer IPv6 40)
``udp``            28     outer IPv4 20 + UDP 8 (Flannel's user-space ``udp`` backend, ``flannel0`` TUN)
``none``           0      routed as is (Calico BGP mode, Flannel host-gw)
=================  =====  ==========================================================================

Notes
-----
The outer Ethernet header is the link's own and is not counted (an MTU is an IP-layer
size). WireGuard pads the plaintext to 16 bytes, which the table leaves out, as both
projects do. Flannel sizes ``flannel-wg`` with 80 whatever the underlay (the IPv6 worst
case: ``pkg/backend/wireguard`` ``overhead = 80``); Calico subtracts 60 over IPv4 and 80
over IPv6.

References
----------
flannel-io/flannel@v0.28.9 pkg/backend/vxlan/vxlan_network.go (encapOverhead = 50),
pkg/backend/wireguard/device.go (overhead = 80), pkg/backend/udp/udp_network_amd64.go (encapOverhead = 28)
projectcalico/calico@v3.30.0 felix/dataplane/linux (VXLAN and IP-in-IP MTU)
https://docs.tigera.io/calico/latest/networking/configuring/mtu
https://www.wireguard.com/protocol/
"""

from __future__ import annotations

from kubenotes.errors import KubenotesError

__all__ = ["ENCAP_OVERHEAD_BYTES", "EncapError", "overhead_bytes", "inner_mtu"]

#: Encapsulation -> bytes it adds (see the module docstring's table).
ENCAP_OVERHEAD_BYTES: dict[str, int] = {
    "vxlan": 50,
    "ipip": 20,
    "wireguard": 60,
    "wireguard-ipv6": 80,
    "udp": 28,
    "none": 0,
}


class EncapError(KubenotesError):
    """An encapsulation not in :data:`ENCAP_OVERHEAD_BYTES`."""


def overhead_bytes(encap: str | None) -> int:
    """Bytes ``encap`` adds to each packet (None means ``none``).

    Parameters
    ----------
    encap : str or None
        A key of :data:`ENCAP_OVERHEAD_BYTES`.

    Returns
    -------
    int
        Bytes.

    Raises
    ------
    EncapError
        For an unknown encapsulation.

    Examples
    --------
    >>> overhead_bytes("vxlan"), overhead_bytes("ipip"), overhead_bytes("wireguard"), overhead_bytes(None)
    (50, 20, 60, 0)
    """
    key = "none" if encap is None else encap
    if key not in ENCAP_OVERHEAD_BYTES:
        raise EncapError(f"unknown encapsulation {encap!r} (one of {', '.join(ENCAP_OVERHEAD_BYTES)})")
    return ENCAP_OVERHEAD_BYTES[key]


def inner_mtu(link_mtu: int, encap: str | None) -> int:
    """The MTU left for the pod's packets: the link's MTU minus :func:`overhead_bytes`.

    Examples
    --------
    >>> inner_mtu(1500, "vxlan"), inner_mtu(1500, "wireguard-ipv6"), inner_mtu(9001, "none")
    (1450, 1420, 9001)
    """
    return link_mtu - overhead_bytes(encap)
