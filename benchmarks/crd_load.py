"""Creating custom resources through ``kubenotes serve``: requests per second with schema validation on.

Issue #29 asks that creating 1,000 custom resources "of a schema the size of
cert-manager's Certificate" through ``serve`` sustain at least 100 requests/s.
This benchmark serves an empty cluster (clock paused) in this process, applies a
``certificates.bench.example.com`` CRD whose v1 schema has the shape of
cert-manager's Certificate (spec: names, durations, issuerRef, privateKey with
enums, usages, subject, keystores, secretTemplate, additional output formats;
status: conditions and dates; about 80 properties with descriptions, enums,
patterns and defaults), then ``--writers`` threads POST ``--objects``
Certificates over HTTPS with ``fieldValidation=Strict`` (what kubectl sends),
and prints requests per second and latency percentiles.

Usage: python benchmarks/crd_load.py [--objects 1000] [--writers 4]
"""

from __future__ import annotations

import argparse
import base64
import ssl
import tempfile
import threading
import time

import yaml

from kubenotes.sim.cluster import Cluster
from kubenotes.sim.serve import serve


def _s(desc: str, **kw) -> dict:
    return {"type": "string", "description": desc, **kw}


def _secret_ref() -> dict:
    return {"type": "object", "required": ["name"], "properties": {"name": _s("Name of the Secret."),
                                                                     "key": _s("Key in the Secret.")}}


USAGES = ["signing", "digital signature", "content commitment", "key encipherment", "key agreement",
          "data encipherment", "cert sign", "crl sign", "encipher only", "decipher only", "any", "server auth",
          "client auth", "code signing", "email protection", "s/mime", "ipsec end system", "ipsec tunnel",
          "ipsec user", "timestamping", "ocsp signing", "microsoft sgc", "netscape sgc"]


def certificate_schema() -> dict:
    """A structural schema of the shape and size of cert-manager's Certificate (v1)."""
    lists = {k: {"type": "array", "items": {"type": "string"}, "description": f"{k} of the subject."}
             for k in ("organizations", "countries", "organizationalUnits", "localities", "provinces",
                       "streetAddresses", "postalCodes")}
    spec = {
        "type": "object", "required": ["issuerRef", "secretName"],
        "properties": {
            "commonName": _s("Requested common name X509 certificate subject attribute.", maxLength=64),
            "dnsNames": {"type": "array", "items": {"type": "string"}, "description": "Requested DNS subject "
                                                                                        "alternative names."},
            "duration": _s("Requested 'duration' (i.e. lifetime) of the Certificate.", pattern=r"^[0-9hms.]+$"),
            "renewBefore": _s("How long before the currently issued certificate's expiry cert-manager should "
                              "renew the certificate."),
            "renewBeforePercentage": {"type": "integer", "format": "int32", "minimum": 1, "maximum": 99},
            "emailAddresses": {"type": "array", "items": {"type": "string"}},
            "ipAddresses": {"type": "array", "items": {"type": "string"}},
            "uris": {"type": "array", "items": {"type": "string"}},
            "isCA": {"type": "boolean", "description": "Requested basic constraints isCA value."},
            "issuerRef": {"type": "object", "required": ["name"], "properties": {
                "name": _s("Name of the resource being referred to."),
                "kind": _s("Kind of the resource being referred to."),
                "group": _s("Group of the resource being referred to.")}},
            "secretName": _s("Name of the Secret resource that will be automatically created and managed."),
            "secretTemplate": {"type": "object", "properties": {
                "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}}}},
            "revisionHistoryLimit": {"type": "integer", "format": "int32"},
            "privateKey": {"type": "object", "properties": {
                "algorithm": _s("Private key algorithm.", enum=["RSA", "ECDSA", "Ed25519"]),
                "encoding": _s("Private key cryptography standards (PKCS) encoding.", enum=["PKCS1", "PKCS8"]),
                "rotationPolicy": _s("How private keys should be regenerated.", enum=["Never", "Always"]),
                "size": {"type": "integer", "description": "Key bit size."}}},
            "usages": {"type": "array", "items": _s("Key usage.", enum=USAGES)},
            "subject": {"type": "object", "properties": {**lists, "serialNumber": _s("Serial number.")}},
            "keystores": {"type": "object", "properties": {
                k: {"type": "object", "required": ["create"], "properties": {
                    "create": {"type": "boolean"}, "alias": _s("Alias."), "password": _s("Password."),
                    "passwordSecretRef": _secret_ref(), "profile": _s("Profile.", enum=["LegacyRC2", "LegacyDES",
                                                                                        "Modern2023"])}}
                for k in ("jks", "pkcs12")}},
            "additionalOutputFormats": {"type": "array", "items": {"type": "object", "required": ["type"],
                                                                    "properties": {"type": _s(
                                                                        "Output format.", enum=["DER",
                                                                                                "CombinedPEM"])}}},
            "literalSubject": _s("Requested X.509 certificate subject, as an RFC 4514 string."),
            "nameConstraints": {"type": "object", "properties": {
                "critical": {"type": "boolean"},
                **{k: {"type": "object", "properties": {n: {"type": "array", "items": {"type": "string"}}
                                                        for n in ("dnsDomains", "emailAddresses", "ipRanges",
                                                                  "uriDomains")}}
                   for k in ("permitted", "excluded")}}},
            "otherNames": {"type": "array", "items": {"type": "object", "properties": {
                "oid": _s("OID."), "utf8Value": _s("Value.")}}},
            "encodeUsagesInRequest": {"type": "boolean"},
        }}
    status = {"type": "object", "properties": {
        "conditions": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"],
                       "items": {"type": "object", "required": ["status", "type"], "properties": {
                           "lastTransitionTime": _s("Time of the last transition.", format="date-time"),
                           "message": _s("Message."), "observedGeneration": {"type": "integer", "format": "int64"},
                           "reason": _s("Reason."), "status": _s("Status.", enum=["True", "False", "Unknown"]),
                           "type": _s("Type.")}}},
        "failedIssuanceAttempts": {"type": "integer"},
        "lastFailureTime": _s("Last failure.", format="date-time"),
        "nextPrivateKeySecretName": _s("Next private key Secret."),
        "notAfter": _s("Expiry.", format="date-time"), "notBefore": _s("Start.", format="date-time"),
        "renewalTime": _s("Renewal.", format="date-time"), "revision": {"type": "integer"}}}
    return {"type": "object", "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"},
                                             "metadata": {"type": "object"}, "spec": spec, "status": status}}


def crd() -> dict:
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "certificates.bench.example.com"},
            "spec": {"group": "bench.example.com", "scope": "Namespaced",
                     "names": {"plural": "certificates", "kind": "Certificate", "shortNames": ["cert"]},
                     "versions": [{"name": "v1", "served": True, "storage": True, "subresources": {"status": {}},
                                   "additionalPrinterColumns": [
                                       {"name": "Ready", "type": "string",
                                        "jsonPath": ".status.conditions[0].status"},
                                       {"name": "Secret", "type": "string", "jsonPath": ".spec.secretName"}],
                                   "schema": {"openAPIV3Schema": certificate_schema()}}]}}


def certificate(i: int) -> dict:
    return {"apiVersion": "bench.example.com/v1", "kind": "Certificate", "metadata": {"name": f"cert-{i}"},
            "spec": {"commonName": f"svc-{i}.example.com",
                     "dnsNames": [f"svc-{i}.example.com", f"www-{i}.example.com"],
                     "duration": "2160h", "renewBefore": "360h", "secretName": f"cert-{i}-tls",
                     "issuerRef": {"name": "letsencrypt", "kind": "ClusterIssuer", "group": "cert-manager.io"},
                     "privateKey": {"algorithm": "ECDSA", "size": 256, "rotationPolicy": "Always"},
                     "usages": ["digital signature", "key encipherment", "server auth"],
                     "subject": {"organizations": ["Example"], "countries": ["FR"]},
                     "secretTemplate": {"labels": {"app": f"svc-{i}"}}}}


def main() -> None:
    import httpx

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--objects", type=int, default=1000)
    ap.add_argument("--writers", type=int, default=4)
    args = ap.parse_args()
    s = serve(Cluster.from_manifests("apiVersion: v1\nkind: Namespace\nmetadata: {name: bench}\n"), port=0,
              time_scale=0)
    try:
        cfg = yaml.safe_load(open(s.kubeconfig_path))
        token = cfg["users"][0]["user"]["token"]
        ca = tempfile.NamedTemporaryFile(suffix=".crt", delete=False)
        ca.write(base64.b64decode(cfg["clusters"][0]["cluster"]["certificate-authority-data"]))
        ca.close()
        ctx = ssl.create_default_context(cafile=ca.name)
        head = {"Authorization": f"Bearer {token}"}
        with httpx.Client(verify=ctx, headers=head) as c:
            r = c.post(f"{s.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=crd())
            assert r.status_code == 201, r.text
        url = f"{s.url}/apis/bench.example.com/v1/namespaces/bench/certificates?fieldValidation=Strict"
        lat: list[float] = []
        failed = [0]
        todo = list(range(args.objects))
        lock = threading.Lock()

        def writer() -> None:
            with httpx.Client(verify=ctx, headers=head) as c:
                while True:
                    with lock:
                        if not todo:
                            return
                        i = todo.pop()
                    t = time.perf_counter()
                    r = c.post(url, json=certificate(i))
                    lat.append(time.perf_counter() - t)
                    if r.status_code != 201:
                        failed[0] += 1

        t0 = time.perf_counter()
        threads = [threading.Thread(target=writer) for _ in range(args.writers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - t0
        lat.sort()
        pct = {q: lat[min(len(lat) - 1, int(q / 100 * (len(lat) - 1)))] * 1000 for q in (50, 95, 99)}
        print(f"{args.objects} Certificates, {args.writers} writers: {args.objects / wall:.0f} requests/s, "
              f"p50 {pct[50]:.1f} ms, p95 {pct[95]:.1f} ms, p99 {pct[99]:.1f} ms, failed {failed[0]}")
    finally:
        s.stop()


if __name__ == "__main__":
    main()
