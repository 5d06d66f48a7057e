"""Property-based fuzzing of the served API from its own OpenAPI documents: no request gets a 5xx (issue #31).

Schemathesis reads ``/openapi/v3/<group-version>`` as ``serve`` publishes it
(core v1, apps/v1, batch/v1, rbac.authorization.k8s.io/v1) and sends every
operation generated requests: bodies and query parameters that follow the
schema and ones that do not. Whatever it sends, the answer must be a 2xx or
a 4xx Status: a 5xx is the model failing on a client's mistake.

The budget is bounded (one derandomized example per operation, about 300
requests, well under 30 s); ``benchmarks/fuzz_serve.py`` runs the long
version and reports status classes.

Watches and followed logs are asked for without ``watch``/``follow`` (their
streams would run until their timeout); namespaced paths use ``default`` so
creates reach decoding instead of stopping at a missing namespace.
"""

from __future__ import annotations

import collections

import schemathesis
from hypothesis import HealthCheck, Phase, given, settings

from kubenotes.apiserver import validation
from kubenotes.apiserver.authn import ADMIN_USER
from kubenotes.apiserver.http import create_app
from kubenotes.apiserver.server import APIServer

DOCS = ("api/v1", "apis/apps/v1", "apis/batch/v1", "apis/rbac.authorization.k8s.io/v1")
EXAMPLES_PER_OPERATION = 1
AUTH = {"Authorization": "Bearer fuzz"}


class _Admin:
    def authenticate_header(self, header, now_seconds=0.0):
        return ADMIN_USER if header == AUTH["Authorization"] else None


def _tame(case) -> None:
    """No endless streams; namespaced operations in a namespace that exists."""
    if case.query:
        case.query.pop("watch", None)
        case.query.pop("follow", None)
    if case.path_parameters and "namespace" in case.path_parameters:
        case.path_parameters["namespace"] = "default"


def _sender(op, classes: collections.Counter, server_errors: list[str]):
    @given(case=op.as_strategy())
    @settings(max_examples=EXAMPLES_PER_OPERATION, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck), phases=[Phase.explicit, Phase.generate])
    def send(case):
        _tame(case)
        r = case.call(headers=AUTH)
        classes[f"{r.status_code // 100}xx"] += 1
        if r.status_code >= 500:
            server_errors.append(f"{op.method.upper()} {case.formatted_path} {case.query} "
                                 f"{str(case.body)[:200]} -> {r.status_code} {r.text[:300]}")

    return send


def test_fuzzing_the_served_openapi_documents_gets_no_server_error():
    app = create_app(APIServer(validator=validation), authenticator=_Admin())
    classes: collections.Counter = collections.Counter()
    server_errors: list[str] = []
    operations = 0
    for doc in DOCS:
        schema = schemathesis.openapi.from_asgi(f"/openapi/v3/{doc}", app, headers=AUTH)
        for result in schema.get_all_operations():
            operations += 1
            _sender(result.ok(), classes, server_errors)()
    assert operations > 250, operations  # all four documents were read
    assert classes["2xx"] > 0 and classes["4xx"] > 0, classes
    assert server_errors == [], "\n".join(server_errors)
