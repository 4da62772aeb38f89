from __future__ import annotations

import json

import numpy as np
import pytest

from selfexplain.core.results.explanation import Explanation, Token, disjoint_spans


def make_explanation(seed: int = 0, n: int = 6) -> Explanation:
    rng = np.random.default_rng(seed)
    text = " ".join(f"w{i}" for i in range(n))
    tokens = tuple(Token(f"w{i}", 3 * i, 3 * i + 2, 0, f"w{i}") for i in range(n))
    mask = np.triu(np.ones((n, n), dtype=bool))
    alpha = np.where(mask, rng.random((n, n)), 0.0)
    alpha /= alpha.sum()
    return Explanation(text, None, tokens, ("neg", "pos"), np.array([0.3, 0.7]), alpha, mask, "demo")


def test_ranking_and_top_spans() -> None:
    exp = make_explanation()
    spans = exp.spans
    assert len(spans) == 21
    assert [s.rank for s in spans] == list(range(1, 22))
    assert all(a.alpha >= b.alpha for a, b in zip(spans, spans[1:]))
    assert sum(s.alpha for s in spans) == pytest.approx(1.0)
    top = exp.top_spans(3)
    assert top == spans[:3]
    for s in spans:
        assert s.text == exp.text[s.start_char : s.end_char]
        assert s.text.split() == [f"w{i}" for i in range(s.start_token, s.end_token + 1)]
    assert exp.label == "pos" and exp.confidence == pytest.approx(0.7)


def test_non_overlapping_spans_share_no_token() -> None:
    exp = make_explanation(seed=3)
    chosen = exp.top_spans_non_overlapping(4)
    assert chosen[0] == exp.spans[0]
    for a in range(len(chosen)):
        for b in range(a + 1, len(chosen)):
            assert not chosen[a].overlaps(chosen[b])


def test_token_scores_equal_covering_alpha_mass() -> None:
    exp = make_explanation(seed=5)
    scores = exp.token_scores()
    expected = [sum(s.alpha for s in exp.spans if s.start_token <= t <= s.end_token) for t in range(exp.num_tokens)]
    np.testing.assert_allclose(scores, expected)


def test_to_dict_is_json_with_required_fields() -> None:
    exp = make_explanation()
    data = json.loads(json.dumps(exp.to_dict(top_k=None)))
    assert {"label", "probabilities", "tokens", "spans", "model"} <= set(data)
    assert len(data["spans"]) == 21 and data["label"] == "pos"
    assert set(data["spans"][0]) >= {"start_token", "end_token", "start_char", "end_char", "segment", "text", "alpha"}
    assert len(exp.to_dict(top_k=5)["spans"]) == 5


def test_disjoint_spans_by_count_and_by_token_budget() -> None:
    starts, ends = np.array([2, 1, 0, 4, 5]), np.array([3, 2, 0, 5, 5])  # priority order
    assert disjoint_spans(starts, ends, 6) == [0, 2, 3]  # (1,2) and (5,5) overlap kept spans
    assert disjoint_spans(starts, ends, 6, count=2) == [0, 2]
    assert disjoint_spans(starts, ends, 6, count=0) == []
    # a budget of 3 tokens: (2,3) takes 2, (0,0) the last one; (4,5) no longer fits
    assert disjoint_spans(starts, ends, 6, budget=3) == [0, 2]
    assert disjoint_spans(starts, ends, 6, budget=1) == [2]
