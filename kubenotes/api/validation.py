"""Name and value checks of ``k8s.io/apimachinery/pkg/util/validation``, with upstream's messages.

``IsDNS1123Label``, ``IsDNS1123Subdomain``, ``IsDNS1035Label``,
``IsQualifiedName`` (label keys), ``IsValidLabelValue``,
``IsValidPortNum``, ``IsValidPortName``, ``IsConfigMapKey``,
``IsRelaxedEnvVarName``, ``IsValidCIDRForLegacyField`` (with
``k8s.io/utils/net``'s ``ParseIPSloppy``/``ParseCIDRSloppy``) and the error
texts they build (``RegexError``, ``MaxLenError``, ``InclusiveRangeError``).
Each returns a list of messages, empty when the value is valid, as upstream's
functions return ``[]string``. The API server's validation
(:mod:`kubenotes.apiserver.validation`), label selectors
(:mod:`kubenotes.api.selectors`) and the scheduler's configuration checks
(:mod:`kubenotes.scheduler.config`) all use these.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/util/validation/ip.go
kubernetes/utils net/parse.go (ParseIPSloppy, ParseCIDRSloppy)
"""

from __future__ import annotations

import functools
import ipaddress
import re
from typing import Any, Callable

__all__ = ["regex_error", "max_len_error", "inclusive_range_error", "is_dns1123_label", "is_dns1123_subdomain",
           "is_dns1035_label", "is_qualified_name", "is_valid_label_value", "is_valid_port_num", "is_valid_port_name",
           "is_config_map_key", "is_relaxed_env_var_name", "PERCENT_FMT", "PERCENT_ERR", "PERCENT_RE",
           "parse_ip_sloppy", "parse_cidr_sloppy", "is_valid_cidr_for_legacy_field"]

_QNAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_QNAME_RE = re.compile(f"^{_QNAME_FMT}$")
_QNAME_ERR = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
_QNAME_MAX = 63
_LABEL_VALUE_FMT = f"({_QNAME_FMT})?"
_LABEL_VALUE_RE = re.compile(f"^{_LABEL_VALUE_FMT}$")
_LABEL_VALUE_ERR = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
_LABEL_VALUE_MAX = 63
_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_LABEL_ERR = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
                      "must start and end with an alphanumeric character")
_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1123_SUBDOMAIN_ERR = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
                          "'.', and must start and end with an alphanumeric character")
_DNS1123_SUBDOMAIN_MAX = 253
_DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
_DNS1035_LABEL_ERR = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
                      "alphabetic character, and end with an alphanumeric character")
_CONFIG_MAP_KEY_FMT = "[-._a-zA-Z0-9]+"
_CONFIG_MAP_KEY_ERR = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'"
#: ``percentFmt`` / ``percentErrMsg`` (``IsValidPercent``).
PERCENT_FMT = "[0-9]+%"
PERCENT_ERR = "a valid percent string must be a numeric string followed by an ending '%'"
PERCENT_RE = re.compile(f"^{PERCENT_FMT}$")
_DNS1123_LABEL_RE = re.compile(f"^{_DNS1123_LABEL_FMT}$")
_DNS1123_SUBDOMAIN_RE = re.compile(f"^{_DNS1123_SUBDOMAIN_FMT}$")
_DNS1035_LABEL_RE = re.compile(f"^{_DNS1035_LABEL_FMT}$")
_CONFIG_MAP_KEY_RE = re.compile(f"^{_CONFIG_MAP_KEY_FMT}$")
_PORT_NAME_CHARS_RE = re.compile("^[-a-z0-9]+$")
_PORT_NAME_LETTER_RE = re.compile("[a-z]")


#: How many valid strings each checker below remembers (then it starts again).
_REMEMBERED_MAX = 65536


def _remember_valid(check: Callable[[str], list[str]]) -> Callable[[str], list[str]]:
    """``check`` answering ``[]`` at once for a string it already found valid.

    The checks depend on the string only, and the same label keys, values and names come back on every object
    an API server admits; a valid string is remembered (up to :data:`_REMEMBERED_MAX`, then the memory starts
    again), an invalid one is checked each time. Every call still gets a list of its own.
    """
    valid: set[str] = set()

    @functools.wraps(check)
    def checked(value: str) -> list[str]:
        if type(value) is str and value in valid:
            return []
        errs = check(value)
        if not errs and type(value) is str:
            if len(valid) >= _REMEMBERED_MAX:
                valid.clear()
            valid.add(value)
        return errs

    return checked


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """``RegexError``: ``msg``, the examples (with upstream's double space after each ``',``) and the regex.

    Examples
    --------
    >>> regex_error("bad", "[a-z]+", "abc", "xyz")
    "bad (e.g. 'abc',  or 'xyz', regex used for validation is '[a-z]+')"
    """
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    return msg + " (e.g. " + "".join(("" if i == 0 else " or ") + f"'{e}', " for i, e in enumerate(examples)) + \
        f"regex used for validation is '{fmt}')"


def max_len_error(n: int) -> str:
    """``MaxLenError``: ``must be no more than N characters``."""
    return f"must be no more than {n} characters"


def inclusive_range_error(lo: int, hi: int) -> str:
    """``InclusiveRangeError``: ``must be between LO and HI, inclusive``."""
    return f"must be between {lo} and {hi}, inclusive"


@_remember_valid
def is_dns1123_label(value: str) -> list[str]:
    """``IsDNS1123Label``: at most 63 lower-case alphanumerics or ``-``, alphanumeric at both ends.

    Examples
    --------
    >>> is_dns1123_label("web"), is_dns1123_label("a.b")
    ([], ['must not contain dots'])
    """
    errs = []
    if len(value) > 63:
        errs.append(max_len_error(63))
    if not _DNS1123_LABEL_RE.match(value):
        if _DNS1123_SUBDOMAIN_RE.match(value):
            errs.append("must not contain dots")
        else:
            errs.append(regex_error(_DNS1123_LABEL_ERR, _DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return errs


@_remember_valid
def is_dns1123_subdomain(value: str) -> list[str]:
    """``IsDNS1123Subdomain``: at most 253 characters of dot-separated DNS-1123 labels.

    Examples
    --------
    >>> is_dns1123_subdomain("example.com"), len(is_dns1123_subdomain("Example"))
    ([], 1)
    """
    errs = []
    if len(value) > _DNS1123_SUBDOMAIN_MAX:
        errs.append(max_len_error(_DNS1123_SUBDOMAIN_MAX))
    if not _DNS1123_SUBDOMAIN_RE.match(value):
        errs.append(regex_error(_DNS1123_SUBDOMAIN_ERR, _DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


def is_dns1035_label(value: str) -> list[str]:
    """``IsDNS1035Label``: a DNS-1123 label that starts with a letter (Service names).

    Examples
    --------
    >>> is_dns1035_label("web"), len(is_dns1035_label("1web"))
    ([], 1)
    """
    errs = []
    if len(value) > 63:
        errs.append(max_len_error(63))
    if not _DNS1035_LABEL_RE.match(value):
        errs.append(regex_error(_DNS1035_LABEL_ERR, _DNS1035_LABEL_FMT, "my-name", "abc-123"))
    return errs


@_remember_valid
def is_qualified_name(value: str) -> list[str]:
    """Problems with a label key, as ``validation.IsQualifiedName`` (empty when valid).

    A qualified name is an optional DNS-subdomain prefix and ``/``, then a
    name of at most 63 alphanumerics, ``-``, ``_`` or ``.``, starting and
    ending alphanumeric.

    Parameters
    ----------
    value : str
        Candidate label key, e.g. ``kubernetes.io/hostname``.

    Returns
    -------
    list[str]
        Upstream's messages, in upstream's order.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go

    Examples
    --------
    >>> is_qualified_name("kubernetes.io/hostname")
    []
    >>> is_qualified_name("/x")
    ['prefix part must be non-empty']
    """
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + m for m in is_dns1123_subdomain(prefix))
    else:
        return [
            "a qualified name "
            + regex_error(_QNAME_ERR, _QNAME_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errs.append("name part must be non-empty")
    elif len(name) > _QNAME_MAX:
        errs.append("name part " + max_len_error(_QNAME_MAX))
    if not _QNAME_RE.match(name):
        errs.append("name part " + regex_error(_QNAME_ERR, _QNAME_FMT, "MyName", "my.name", "123-abc"))
    return errs


@_remember_valid
def is_valid_label_value(value: str) -> list[str]:
    """Problems with a label value, as ``validation.IsValidLabelValue`` (empty when valid).

    Parameters
    ----------
    value : str
        Candidate value; the empty string is valid.

    Returns
    -------
    list[str]
        Upstream's messages.

    Examples
    --------
    >>> is_valid_label_value(""), is_valid_label_value("v1.2_x")
    ([], [])
    >>> is_valid_label_value("-bad")[0][:40]
    'a valid label must be an empty string or'
    """
    errs = []
    if len(value) > _LABEL_VALUE_MAX:
        errs.append(max_len_error(_LABEL_VALUE_MAX))
    if not _LABEL_VALUE_RE.match(value):
        errs.append(regex_error(_LABEL_VALUE_ERR, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


def is_valid_port_num(port: Any) -> list[str]:
    """``IsValidPortNum``: 1 to 65535.

    Examples
    --------
    >>> is_valid_port_num(80), is_valid_port_num(0)
    ([], ['must be between 1 and 65535, inclusive'])
    """
    if isinstance(port, int) and not isinstance(port, bool) and 1 <= port <= 65535:
        return []
    return [inclusive_range_error(1, 65535)]


def is_valid_port_name(port: str) -> list[str]:
    """``IsValidPortName``: an IANA service name (at most 15 characters, a letter, no ``--``, no edge hyphen).

    Examples
    --------
    >>> is_valid_port_name("http"), is_valid_port_name("http--x")
    ([], ['must not contain consecutive hyphens'])
    """
    errs = []
    if len(port) > 15:
        errs.append(max_len_error(15))
    if not _PORT_NAME_CHARS_RE.match(port):
        errs.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not _PORT_NAME_LETTER_RE.search(port):
        errs.append("must contain at least one letter (a-z)")
    if "--" in port:
        errs.append("must not contain consecutive hyphens")
    if port and (port[0] == "-" or port[-1] == "-"):
        errs.append("must not begin or end with a hyphen")
    return errs


def is_config_map_key(value: str) -> list[str]:
    """``IsConfigMapKey``: a key of a ConfigMap's or Secret's data.

    Examples
    --------
    >>> is_config_map_key("app.conf"), is_config_map_key("..x")
    ([], ["must not start with '..'"])
    """
    errs = []
    if len(value) > 253:
        errs.append(max_len_error(253))
    if not _CONFIG_MAP_KEY_RE.match(value):
        errs.append(regex_error(_CONFIG_MAP_KEY_ERR, _CONFIG_MAP_KEY_FMT, "key.name", "KEY_NAME", "key-name"))
    if value == ".":
        errs.append("must not be '.'")
    elif value == "..":
        errs.append("must not be '..'")
    elif value.startswith(".."):
        errs.append("must not start with '..'")
    return errs


_RELAXED_ENV_VAR_NAME_ERR = "a valid environment variable name must consist only of printable ASCII characters other than '='"


def is_relaxed_env_var_name(value: str) -> list[str]:
    """``IsRelaxedEnvVarName``: an environment variable name (or ``envFrom`` prefix).

    The relaxed rule of ``RelaxedEnvironmentVariableValidation`` (GA in v1.34, so
    the only rule the API server applies): printable ASCII other than ``=``.

    Parameters
    ----------
    value : str
        The name.

    Returns
    -------
    list of str
        Upstream's messages; empty when the name is valid.

    Examples
    --------
    >>> is_relaxed_env_var_name("MY.env-name 1"), is_relaxed_env_var_name("A=B")
    ([], ["a valid environment variable name must consist only of printable ASCII characters other than '='"])
    >>> is_relaxed_env_var_name("")
    ['environment variable name must be non-empty']
    """
    errs = []
    if not value:
        errs.append("environment variable name must be non-empty")
    if any(ord(ch) > 126 or ord(ch) < 32 or ch == "=" for ch in value):
        errs.append(_RELAXED_ENV_VAR_NAME_ERR)
    return errs


# --- IP and CIDR values (k8s.io/utils/net ParseIPSloppy/ParseCIDRSloppy; util/validation/ip.go) ------------

_CIDR_ERR = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"


def parse_ip_sloppy(value: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """``netutils.ParseIPSloppy``: an IP address, IPv4 octets allowed leading zeros (read as decimal).

    Returns None where upstream returns nil (not an address). An IPv4-mapped
    IPv6 address (``::ffff:1.2.3.4``) is returned as the IPv4 address, as Go's
    ``net.IP`` treats it.

    Examples
    --------
    >>> str(parse_ip_sloppy("010.001.002.003")), parse_ip_sloppy("10.0.0.256"), str(parse_ip_sloppy("::ffff:1.2.3.4"))
    ('10.1.2.3', None, '1.2.3.4')
    """
    if ":" in value:
        try:
            ip6 = ipaddress.IPv6Address(value)
        except ValueError:
            return None
        return ip6.ipv4_mapped or ip6
    parts = value.split(".")
    if len(parts) == 4 and all(p.isascii() and p.isdigit() and len(p) <= 3 and int(p) <= 255 for p in parts):
        return ipaddress.IPv4Address(".".join(str(int(p)) for p in parts))
    return None


def parse_cidr_sloppy(value: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    """``netutils.ParseCIDRSloppy``: the network of ``ip/prefix`` (host bits dropped), or None.

    Examples
    --------
    >>> str(parse_cidr_sloppy("192.168.1.5/24")), parse_cidr_sloppy("192.168.1.0"), parse_cidr_sloppy("10.0.0.0/33")
    ('192.168.1.0/24', None, None)
    """
    addr, sep, bits = value.partition("/")
    if not sep or not bits.isascii() or not bits.isdigit():
        return None
    ip = parse_ip_sloppy(addr)
    if ip is None:
        return None
    n = int(bits)
    width = 128 if ":" in addr else 32
    if n > width:
        return None
    if width == 128 and ip.version == 4:  # ::ffff:a.b.c.d/n: Go keeps it an IPv6 network
        ip = ipaddress.IPv6Address("::ffff:" + str(ip))
    return ipaddress.ip_network(f"{ip}/{n}", strict=False)


def is_valid_cidr_for_legacy_field(value: str, strict: bool = False) -> list[str]:
    """``IsValidCIDRForLegacyField``: a CIDR as fields older than strict IP validation accept it.

    ``strict`` is the StrictIPCIDRValidation feature gate (alpha, off in
    v1.34): with it, leading zeros, IPv4-mapped IPv6 addresses and host bits
    beyond the prefix are refused too.

    Examples
    --------
    >>> is_valid_cidr_for_legacy_field("192.168.1.5/24"), is_valid_cidr_for_legacy_field("192.168.1.0")
    ([], ['must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'])
    >>> is_valid_cidr_for_legacy_field("192.168.1.5/24", strict=True)
    ['must not have bits set beyond the prefix length']
    """
    net = parse_cidr_sloppy(value)
    if net is None:
        return [_CIDR_ERR]
    if not strict:
        return []
    try:
        exact = ipaddress.ip_network(value, strict=False)
    except ValueError:
        return ["must not have leading 0s in IP or prefix length"]
    addr = ipaddress.ip_interface(value).ip
    if addr.version == 6 and addr.ipv4_mapped is not None:
        return ["must not have an IPv4-mapped IPv6 address"]
    if addr != exact.network_address:
        return ["must not have bits set beyond the prefix length"]
    return []
