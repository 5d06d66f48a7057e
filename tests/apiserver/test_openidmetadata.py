"""Service-account issuer discovery documents (kubernetes/kubernetes@v1.34.0 pkg/serviceaccount/openidmetadata.go).

``openIDConfigJSON`` lists the sorted algorithms of the keys, ``publicJWKSFromKeys`` one JWK per key with
``use: sig``, its ``kid`` and ``alg``. Each JWK is read back with PyJWT's ``PyJWK`` (a standard library, not the
model) and verifies a token the model signed with that key.
"""

from __future__ import annotations

import jwt
from cryptography.hazmat.primitives.asymmetric import ec

from kubenotes.apiserver.authn import JWTTokenGenerator, issue_service_account_token
from kubenotes.apiserver.openidmetadata import openid_config, public_jwks

ISSUER = "https://kubernetes.default.svc.cluster.local"


def test_every_jwk_verifies_its_keys_tokens_with_a_standard_library():
    gens = [JWTTokenGenerator(private_key=ec.generate_private_key(curve)) for curve in
            (ec.SECP256R1(), ec.SECP384R1(), ec.SECP521R1())]
    jwks = public_jwks([g.public_key for g in gens])
    for gen, jwk in zip(gens, jwks["keys"]):
        assert (jwk["use"], jwk["kty"], jwk["kid"], jwk["alg"]) == ("sig", "EC", gen.key_id, gen.algorithm)
        tok = issue_service_account_token(gen, "default", "sa", "u")
        key = jwt.PyJWK(jwk).key
        claims = jwt.decode(tok, key, algorithms=[jwk["alg"]], audience=ISSUER,
                            options={"verify_exp": False, "verify_iat": False, "verify_nbf": False})
        assert claims["sub"] == "system:serviceaccount:default:sa"
        other = jwks["keys"][(jwks["keys"].index(jwk) + 1) % 3]
        try:
            jwt.decode(tok, jwt.PyJWK(other).key, algorithms=[other["alg"]], audience=ISSUER,
                       options={"verify_exp": False, "verify_iat": False, "verify_nbf": False})
        except jwt.PyJWTError:
            pass
        else:
            raise AssertionError("another key verified the token")


def test_config_lists_the_algorithms_of_all_keys_sorted():
    keys = [ec.generate_private_key(ec.SECP384R1()).public_key(), ec.generate_private_key(ec.SECP256R1()).public_key()]
    cfg = openid_config(ISSUER, "https://127.0.0.1:6443/openid/v1/jwks", keys)
    assert cfg["id_token_signing_alg_values_supported"] == ["ES256", "ES384"]
    assert list(cfg) == ["issuer", "jwks_uri", "response_types_supported", "subject_types_supported",
                         "id_token_signing_alg_values_supported"]
