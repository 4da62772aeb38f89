"""The flip certificate: exact over subsets of the top spans, and checked in the text."""

from __future__ import annotations

import json
from itertools import combinations

import numpy as np
import pytest

from selfexplain.lab.faithfulness.flip import flip_certificate, smallest_flip, subsets_by_size


def brute_force(alpha: np.ndarray, contributions: np.ndarray, bias: np.ndarray, top: int) -> tuple[int, ...] | None:
    order = np.argsort(-alpha, kind="stable")[:top]
    predicted = int(np.argmax(alpha @ contributions + bias))
    for size in range(1, top + 1):
        for chosen in combinations(range(top), size):  # combinations come in rank-sum order within a size
            left = np.ones(alpha.size, dtype=bool)
            left[order[list(chosen)]] = False
            if alpha[left].sum() <= 1e-9:
                continue
            kept = np.where(left, alpha, 0) / alpha[left].sum()
            if int(np.argmax(kept @ contributions + bias)) != predicted:
                return tuple(sorted(order[list(chosen)].tolist()))
    return None


def test_subsets_are_ordered_by_size_then_rank() -> None:
    bits = subsets_by_size(4)
    assert bits.shape == (15, 4)
    sizes = bits.sum(axis=1)
    assert (np.diff(sizes) >= 0).all()
    assert bits[0].tolist() == [True, False, False, False] and bits[4].tolist() == [True, True, False, False]


def test_smallest_flip_matches_brute_force() -> None:
    rng = np.random.default_rng(0)
    found = 0
    for _ in range(30):
        alpha = rng.dirichlet(np.full(12, 0.3))
        contributions = rng.normal(size=(12, 3))
        bias = rng.normal(size=3) * 0.1
        got = smallest_flip(alpha, contributions, bias, 8)
        want = brute_force(alpha, contributions, bias, 8)
        assert (None if got is None else tuple(sorted(got.tolist()))) == want
        found += want is not None
    assert found >= 10  # the test exercises flips, not only "no flip"


@pytest.mark.slow
def test_certificate_in_the_explain_json(tiny_model_dir, capsys) -> None:
    from selfexplain.cli import main
    from selfexplain.core.pipeline import load_model

    text = "A dull, lifeless and overlong film with one bright moment."
    assert main(["explain", text, "--model", str(tiny_model_dir), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "flip" in data
    certificate = flip_certificate(load_model(tiny_model_dir, fused=False), text)
    assert data["flip"] == (certificate.to_dict() if certificate is not None else None)
    if certificate is not None:
        assert certificate.label != data["label"]
        assert abs(sum(certificate.probabilities.values()) - 1) < 1e-6
        assert set(certificate.deleted_probabilities) == set(data["probabilities"])
