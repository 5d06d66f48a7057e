"""Service environment variables (kubenotes.kubelet.envvars).

Ported cases:

* ``test_from_services_upstream`` is kubernetes/kubernetes@v1.34.0
  pkg/kubelet/envvars/envvars_test.go ``TestFromServices`` (every service and
  expected variable, incl. the IPv6 ``[2001:DB8::]`` URLs and SCTP).
* ``test_service_env_var_map`` follows pkg/kubelet/kubelet_pods_test.go
  ``TestMakeEnvironmentVariables`` (the master service of ``default`` always;
  namespace services only with enableServiceLinks; a namespace-local
  ``kubernetes`` Service wins).
"""

from __future__ import annotations

from kubenotes.kubelet.envvars import from_services, make_env_variable_name, service_env_vars


def _svc(name, ns="default", cluster_ip="10.96.0.5", ports=None, **spec):
    s = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": ns},
         "spec": {"clusterIP": cluster_ip, "ports": ports if ports is not None else [{"port": 80, "protocol": "TCP"}],
                  **spec}}
    if cluster_ip and cluster_ip != "None" and "clusterIPs" not in spec:
        s["spec"]["clusterIPs"] = [cluster_ip]
    return s


def test_from_services_upstream():
    sl = [
        _svc("foo-bar", cluster_ip="1.2.3.4", ports=[{"port": 8080, "protocol": "TCP"}]),
        _svc("abc-123", cluster_ip="5.6.7.8", ports=[{"name": "u-d-p", "port": 8081, "protocol": "UDP"},
                                                     {"name": "t-c-p", "port": 8081, "protocol": "TCP"}]),
        _svc("q-u-u-x", cluster_ip="9.8.7.6", ports=[{"port": 8082, "protocol": "TCP"},
                                                     {"name": "8083", "port": 8083, "protocol": "TCP"}]),
        _svc("svrc-clusterip-none", cluster_ip="None", ports=[{"port": 8082, "protocol": "TCP"}]),
        _svc("svrc-clusterip-empty", cluster_ip="", ports=[{"port": 8082, "protocol": "TCP"}]),
        _svc("super-ipv6", cluster_ip="2001:DB8::", ports=[{"name": "u-d-p", "port": 8084, "protocol": "UDP"},
                                                          {"name": "t-c-p", "port": 8084, "protocol": "TCP"}]),
        _svc("sctp-1", cluster_ip="1.2.3.4", ports=[{"port": 777, "protocol": "SCTP"}]),
    ]
    expected = [
        ("FOO_BAR_SERVICE_HOST", "1.2.3.4"), ("FOO_BAR_SERVICE_PORT", "8080"),
        ("FOO_BAR_PORT", "tcp://1.2.3.4:8080"), ("FOO_BAR_PORT_8080_TCP", "tcp://1.2.3.4:8080"),
        ("FOO_BAR_PORT_8080_TCP_PROTO", "tcp"), ("FOO_BAR_PORT_8080_TCP_PORT", "8080"),
        ("FOO_BAR_PORT_8080_TCP_ADDR", "1.2.3.4"),
        ("ABC_123_SERVICE_HOST", "5.6.7.8"), ("ABC_123_SERVICE_PORT", "8081"),
        ("ABC_123_SERVICE_PORT_U_D_P", "8081"), ("ABC_123_SERVICE_PORT_T_C_P", "8081"),
        ("ABC_123_PORT", "udp://5.6.7.8:8081"), ("ABC_123_PORT_8081_UDP", "udp://5.6.7.8:8081"),
        ("ABC_123_PORT_8081_UDP_PROTO", "udp"), ("ABC_123_PORT_8081_UDP_PORT", "8081"),
        ("ABC_123_PORT_8081_UDP_ADDR", "5.6.7.8"), ("ABC_123_PORT_8081_TCP", "tcp://5.6.7.8:8081"),
        ("ABC_123_PORT_8081_TCP_PROTO", "tcp"), ("ABC_123_PORT_8081_TCP_PORT", "8081"),
        ("ABC_123_PORT_8081_TCP_ADDR", "5.6.7.8"),
        ("Q_U_U_X_SERVICE_HOST", "9.8.7.6"), ("Q_U_U_X_SERVICE_PORT", "8082"),
        ("Q_U_U_X_SERVICE_PORT_8083", "8083"), ("Q_U_U_X_PORT", "tcp://9.8.7.6:8082"),
        ("Q_U_U_X_PORT_8082_TCP", "tcp://9.8.7.6:8082"), ("Q_U_U_X_PORT_8082_TCP_PROTO", "tcp"),
        ("Q_U_U_X_PORT_8082_TCP_PORT", "8082"), ("Q_U_U_X_PORT_8082_TCP_ADDR", "9.8.7.6"),
        ("Q_U_U_X_PORT_8083_TCP", "tcp://9.8.7.6:8083"), ("Q_U_U_X_PORT_8083_TCP_PROTO", "tcp"),
        ("Q_U_U_X_PORT_8083_TCP_PORT", "8083"), ("Q_U_U_X_PORT_8083_TCP_ADDR", "9.8.7.6"),
        ("SUPER_IPV6_SERVICE_HOST", "2001:DB8::"), ("SUPER_IPV6_SERVICE_PORT", "8084"),
        ("SUPER_IPV6_SERVICE_PORT_U_D_P", "8084"), ("SUPER_IPV6_SERVICE_PORT_T_C_P", "8084"),
        ("SUPER_IPV6_PORT", "udp://[2001:DB8::]:8084"), ("SUPER_IPV6_PORT_8084_UDP", "udp://[2001:DB8::]:8084"),
        ("SUPER_IPV6_PORT_8084_UDP_PROTO", "udp"), ("SUPER_IPV6_PORT_8084_UDP_PORT", "8084"),
        ("SUPER_IPV6_PORT_8084_UDP_ADDR", "2001:DB8::"), ("SUPER_IPV6_PORT_8084_TCP", "tcp://[2001:DB8::]:8084"),
        ("SUPER_IPV6_PORT_8084_TCP_PROTO", "tcp"), ("SUPER_IPV6_PORT_8084_TCP_PORT", "8084"),
        ("SUPER_IPV6_PORT_8084_TCP_ADDR", "2001:DB8::"),
        ("SCTP_1_SERVICE_HOST", "1.2.3.4"), ("SCTP_1_SERVICE_PORT", "777"),
        ("SCTP_1_PORT", "sctp://1.2.3.4:777"), ("SCTP_1_PORT_777_SCTP", "sctp://1.2.3.4:777"),
        ("SCTP_1_PORT_777_SCTP_PROTO", "sctp"), ("SCTP_1_PORT_777_SCTP_PORT", "777"),
        ("SCTP_1_PORT_777_SCTP_ADDR", "1.2.3.4"),
    ]
    assert from_services(sl) == expected


def test_make_env_variable_name():
    assert make_env_variable_name("my-svc") == "MY_SVC"
    assert make_env_variable_name("kubernetes") == "KUBERNETES"


SERVICES = [
    _svc("kubernetes", "default", "1.2.3.1", [{"port": 8081, "protocol": "TCP"}]),
    _svc("test", "test1", "1.2.3.3", [{"port": 8083, "protocol": "TCP"}]),
    _svc("kubernetes", "test2", "1.2.3.4", [{"port": 8084, "protocol": "TCP"}]),
    _svc("test", "test2", "1.2.3.5", [{"port": 8085, "protocol": "TCP"}]),
    _svc("test", "test2", "None", [{"port": 8085, "protocol": "TCP"}]),
    _svc("test", "test2", "", [{"port": 8085, "protocol": "TCP"}]),
    _svc("kubernetes", "kubernetes", "1.2.3.6", [{"port": 8086, "protocol": "TCP"}]),
    _svc("not-special", "kubernetes", "1.2.3.8", [{"port": 8088, "protocol": "TCP"}]),
]


def test_service_env_var_map():
    # a pod in test1: the master service plus the namespace's own
    env = service_env_vars(SERVICES, "test1")
    assert env["KUBERNETES_SERVICE_HOST"] == "1.2.3.1" and env["TEST_SERVICE_HOST"] == "1.2.3.3"
    assert env["TEST_PORT"] == "tcp://1.2.3.3:8083" and env["KUBERNETES_PORT_8081_TCP_PORT"] == "8081"
    assert not any(v == "1.2.3.8" for v in env.values())
    # enableServiceLinks false: only the master service
    env = service_env_vars(SERVICES, "test1", enable_service_links=False)
    assert {k.split("_")[0] for k in env} == {"KUBERNETES"} and env["KUBERNETES_SERVICE_HOST"] == "1.2.3.1"
    # a namespace's own kubernetes Service wins over the master one (whatever the listing order)
    for order in (SERVICES, SERVICES[::-1]):
        env = service_env_vars(order, "test2")
        assert env["KUBERNETES_SERVICE_HOST"] == "1.2.3.4" and env["TEST_SERVICE_HOST"] == "1.2.3.5"
    # ... but not when the pod opted out of service links
    assert service_env_vars(SERVICES, "test2", enable_service_links=False)["KUBERNETES_SERVICE_HOST"] == "1.2.3.1"
    # headless and empty cluster IPs never produce variables
    assert service_env_vars([_svc("h", "x", "None")], "x") == {}


def test_service_env_vars_order_is_by_service_then_upstream():
    env = list(service_env_vars([_svc("zeta", "a", "10.0.0.2"), _svc("alpha", "a", "10.0.0.1")], "a"))
    assert env[0] == "ALPHA_SERVICE_HOST" and env[7] == "ZETA_SERVICE_HOST" and len(env) == 14
