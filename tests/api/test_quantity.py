"""kubenotes.api.quantity: the quantity suffix families of upstream's suffix.go."""

import pytest

from kubenotes.api.quantity import quantity_suffix


@pytest.mark.parametrize("q,suffix", [
    ("2Gi", "Gi"), ("1Ki", "Ki"), ("3Ei", "Ei"),                      # binary SI
    ("100m", "m"), ("5n", "n"), ("7u", "u"), ("1k", "k"), ("2E", "E"), ("500M", "M"), ("1.5", ""), (".5", ""),  # decimal SI
    ("1e3", "e3"), ("1E3", "E3"), ("2e-2", "e-2"),                    # decimal exponent
])
def test_suffix_of_every_family(q, suffix):
    assert quantity_suffix(q) == suffix


@pytest.mark.parametrize("q", ["12Q", "1KI", "1mi", "Gi", "", "1.2.3Gi", "1e"])
def test_not_a_number_and_a_known_suffix(q):
    assert quantity_suffix(q) is None
