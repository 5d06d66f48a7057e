"""apimachinery's name checks, one home (kubenotes/api/validation.py), on upstream's own cases.

Good and bad values from kubernetes/kubernetes@v1.34.0
staging/src/k8s.io/apimachinery/pkg/util/validation/validation_test.go (TestIsQualifiedName,
TestIsValidLabelValue, TestIsDNS1123Label, TestIsDNS1123Subdomain, TestIsDNS1035Label, TestIsValidPortName).
"""

from __future__ import annotations

import pytest

from kubenotes.api.validation import (
    is_dns1035_label,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
    is_valid_port_name,
)
from kubenotes.scheduler.config import _validate_label_name

QUALIFIED_GOOD = ["simple", "now-with-dashes", "1-starts-with-num", "1234", "simple/simple", "now-with-dashes/simple",
                  "now-with-dashes/now-with-dashes", "now.with.dots/simple", "now-with.dashes-and.dots/simple",
                  "1-num.2-num/3-num", "1234/5678", "1.2.3.4/5678", "Uppercase_Is_OK_123",
                  "example.com/Uppercase_Is_OK_123", "requests.storage-foo", "a" * 63, "a" * 253 + "/" + "a" * 63]
QUALIFIED_BAD = ["nospecialchars%^=@", "cantendwithadash-", "-cantstartwithadash-", "only/one/slash",
                 "Example.com/abc", "example_com/abc", "example.com/", "/simple", "a" * 64, "a" * 254 + "/abc"]


@pytest.mark.parametrize("value", QUALIFIED_GOOD)
def test_qualified_name_good(value):
    assert is_qualified_name(value) == []


@pytest.mark.parametrize("value", QUALIFIED_BAD)
def test_qualified_name_bad(value):
    assert is_qualified_name(value) != []


@pytest.mark.parametrize("value, good", [("simple", True), ("now-with-dashes", True), ("1-starts-with-num", True),
                                         ("end-with-num-1", True), ("1234", True), ("a" * 63, True), ("", True),
                                         ("nospecialchars%^=@", False), ("Tama-nui-te-rā.is.Māori.sun", False),
                                         ("\\backslashes\\are\\bad", False), ("-starts-with-dash", False),
                                         ("ends-with-dash-", False), (".starts.with.dot", False),
                                         ("ends.with.dot.", False), ("a" * 64, False)])
def test_label_value(value, good):
    assert (is_valid_label_value(value) == []) is good


@pytest.mark.parametrize("value, good", [("a", True), ("ab", True), ("abc", True), ("a1", True), ("a-1", True),
                                         ("a--1--2--b", True), ("0", True), ("01", True), ("a" * 63, True),
                                         ("", False), ("A", False), ("ABC", False), ("aBc", False), ("A1", False),
                                         ("a1-", False), ("-a1", False), ("a.b", False), ("a" * 64, False)])
def test_dns1123_label(value, good):
    assert (is_dns1123_label(value) == []) is good


@pytest.mark.parametrize("value, good", [("a", True), ("a.b", True), ("a-1.b-2", True), ("0.a", True),
                                         ("a" * 253, True), ("", False), ("A", False), ("a..b", False),
                                         ("a.", False), (".a", False), ("a_b", False), ("a" * 254, False)])
def test_dns1123_subdomain(value, good):
    assert (is_dns1123_subdomain(value) == []) is good


@pytest.mark.parametrize("value, good", [("a", True), ("a-1", True), ("a" * 63, True), ("0", False), ("01", False),
                                         ("1a", False), ("-a", False), ("a-", False), ("a" * 64, False)])
def test_dns1035_label(value, good):
    assert (is_dns1035_label(value) == []) is good


@pytest.mark.parametrize("value, good", [("telnet", True), ("re-mail-ck", True), ("pop3", True), ("a", True),
                                         ("a-1", True), ("1-a", True), ("a-1-b-2-c", True), ("1-a-2-b-3", True),
                                         ("", False), ("-begin", False), ("end-", False), ("two--hyphens", False),
                                         ("whois++", False), ("abcdefghijklmnop", False)])
def test_port_name(value, good):
    assert (is_valid_port_name(value) == []) is good


def test_the_scheduler_config_reports_every_message_of_is_qualified_name():
    # ValidateLabelName: one field.Invalid per IsQualifiedName message. An empty name part is both empty and
    # not matching the regex (upstream checks the regex independently of the emptiness).
    errs = _validate_label_name("example.com/", "topologyKey")
    assert len(errs) == 2
    assert errs[0] == 'topologyKey: Invalid value: "example.com/": name part must be non-empty'
    assert errs[1].startswith('topologyKey: Invalid value: "example.com/": name part must consist of alphanumeric')
