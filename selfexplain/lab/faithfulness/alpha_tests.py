"""Experiments on the span layer itself: alpha is attention over spans that feeds the
output layer directly, so the output is linear in alpha: ``logits = alpha @ L + b`` with
``L`` ``[V, C]`` = each valid span's vector through the output layer. Everything below
recomputes logits from a modified alpha with that identity (no encoder pass).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from selfexplain.core.inputs.positions import span_tokens, token_index
from selfexplain.core.modeling.normalisers import normalise
from selfexplain.core.pipeline import SelfExplainer
from selfexplain.core.results.explanation import disjoint_spans
from selfexplain.core.results.instance import Instance
from selfexplain.lab.faithfulness.metrics import first_flip, js_divergence, total_variation

# Removal curves of sparse alphas stop after this many spans: past the support each removal
# brings in a new support of low-score spans, and the curve is O(V^2 log V) to compute.
SPARSE_REMOVALS = 256


@dataclass(frozen=True)
class SpanView:
    """``scores`` ``[V]`` interpretation logits o(i,j) (float64), ``alpha`` = normaliser(scores) ``[V]``
    (the model's alpha), ``contributions`` ``L`` ``[V, C]``, ``bias`` ``[C]``; ``starts``/``ends`` ``[V]``
    real-token indices; ``normaliser`` the model's map from scores to alpha (softmax, sparsemax, entmax15).
    With per-segment alpha (pair models), ``segments`` ``[V]`` is each span's text (0/1) and ``shares``
    ``[2]`` the alpha mass each text holds: alpha is normalised within each text to its share."""

    scores: np.ndarray
    alpha: np.ndarray
    contributions: np.ndarray
    bias: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    normaliser: str = "softmax"
    segments: np.ndarray | None = None
    shares: np.ndarray | None = None

    def rescaled(self, kept: np.ndarray) -> np.ndarray:
        """``[..., V]``: alpha with only ``kept`` ``[..., V]`` left, scaled back to its total (per text, to
        each text's share, with per-segment alpha; a text with nothing left holds nothing)."""
        alpha = np.where(kept, self.alpha, 0.0)
        if self.segments is None or self.shares is None:
            return alpha / alpha.sum(axis=-1, keepdims=True)
        out = np.zeros_like(alpha)
        for side in (0, 1):  # the two texts of a pair
            mask = self.segments == side
            mass = (alpha * mask).sum(axis=-1, keepdims=True)
            out += np.where(mask, alpha * self.shares[side] / np.where(mass > 0, mass, 1.0), 0.0)
        return out

    def renormalised(self, keep: torch.Tensor) -> torch.Tensor:
        """``[R, V]``: the normaliser re-run on the scores of the ``keep`` ``[R, V]`` spans (per text with
        per-segment alpha, each text scaled to its share; a text with nothing left holds nothing)."""
        scores = torch.from_numpy(self.scores).unsqueeze(0).expand(keep.shape[0], -1)
        if self.segments is None or self.shares is None:
            return normalise(self.normaliser, scores, keep)  # type: ignore[arg-type]
        out = torch.zeros(keep.shape, dtype=scores.dtype)
        for side in (0, 1):
            mask = keep & torch.from_numpy(self.segments == side).unsqueeze(0)
            rows = mask.any(dim=1)
            if rows.any():
                part = normalise(self.normaliser, scores[rows], mask[rows])  # type: ignore[arg-type]
                out[rows] += part * float(self.shares[side])
        return out

    def logits(self, alpha: np.ndarray) -> np.ndarray:
        """``[..., C]`` logits for alphas ``[..., V]``."""
        return alpha @ self.contributions + self.bias


def softmax(x: np.ndarray) -> np.ndarray:
    z = np.exp(x - x.max(axis=-1, keepdims=True))
    return z / z.sum(axis=-1, keepdims=True)


@torch.no_grad()
def span_view(explainer: SelfExplainer, instance: Instance) -> SpanView:
    """The valid spans of ``instance`` (one window or several) with their alpha and output contributions."""
    net, output = explainer.model, instance.output
    if net.span_layer is None or output.span_inputs is None or output.span_starts is None:
        raise ValueError("the alpha tests need a span-head model")
    assert output.span_valid is not None and output.span_ends is not None and output.alpha is not None
    valid = output.span_valid[0]
    starts, ends = output.span_starts[valid], output.span_ends[valid]
    with explainer.exclusive():  # the span layer caches its projection weights: model state
        features = net.span_layer.token_features(output.span_inputs)
        vectors = net.span_layer.span_vectors(features, starts, ends)[0]  # [V, H]
    segments = shares = None
    if net.config.segment_alpha and output.span_segments is not None:
        # logits = sum_s alpha_s W_text(s) h_s / share(text(s)) + b (see SelfExplainingModel.read_spans)
        side = output.span_segments[0, valid]
        present = torch.stack([(side == k).any() for k in (0, 1)]).double()
        share_of = present / present.sum()
        size = vectors.shape[-1]
        per_side = torch.stack([vectors @ net.output.weight[:, k * size : (k + 1) * size].T for k in (0, 1)])
        contributions = per_side.gather(0, side.view(1, -1, 1).expand(1, -1, per_side.shape[-1]))[0]
        contributions = (contributions.double() / share_of[side].unsqueeze(1)).cpu().numpy()
        segments, shares = side.cpu().numpy(), share_of.cpu().numpy()
    else:
        contributions = (vectors @ net.output.weight.T).double().cpu().numpy()
    scores = output.span_logits[0, valid].double().cpu().numpy()
    if instance.windowed:
        index = instance.plan.global_index.reshape(-1).numpy()
    else:
        index = token_index(instance.batch.token_mask[0].numpy())
    first, last = span_tokens(index, *(t.cpu().numpy() for t in (output.span_starts, output.span_ends, valid)))
    normaliser = net.config.normaliser
    alpha = output.alpha[0, valid].double().cpu().numpy()
    if normaliser == "softmax" and segments is None:
        alpha = softmax(scores)  # float64 from the scores
    bias = net.output.bias.double().cpu().numpy()
    return SpanView(scores, alpha, contributions, bias, first, last, normaliser, segments, shares)


def removal_logits(view: SpanView, order: np.ndarray, steps: int | None = None) -> np.ndarray:
    """``[K, C]``: logits after removing the first ``k = 1 .. K`` spans of ``order`` and mapping the
    remaining scores to alpha again (``K = V - 1``). For softmax that is alpha renormalised over the
    rest (suffix sums of ``exp(o - max o)``, float64); a sparse normaliser is re-applied, for at most
    :data:`SPARSE_REMOVALS` removals. ``steps`` keeps only the first removals (``[steps, C]``)."""
    if view.normaliser != "softmax" or view.segments is not None:
        return _sparse_removal_logits(view, order, steps=steps)
    weights = np.exp(view.scores[order] - view.scores.max())
    mass = np.cumsum(weights[::-1])[::-1]  # sum over order[k:]
    weighted = np.cumsum((weights[:, None] * view.contributions[order])[::-1], axis=0)[::-1]
    logits = weighted[1:] / mass[1:, None] + view.bias
    return logits if steps is None else logits[:steps]


def _sparse_removal_logits(
    view: SpanView, order: np.ndarray, rows_per_chunk: int = 128, steps: int | None = None
) -> np.ndarray:
    count = view.alpha.shape[0]
    steps = min(count - 1, SPARSE_REMOVALS, steps if steps is not None else SPARSE_REMOVALS)
    rank_of = np.empty(count, dtype=np.int64)
    rank_of[order] = np.arange(count)
    out = []
    for lo in range(1, steps + 1, rows_per_chunk):
        k = torch.arange(lo, min(steps, lo + rows_per_chunk - 1) + 1).unsqueeze(1)  # [R, 1]
        keep = torch.from_numpy(rank_of).unsqueeze(0) >= k  # [R, V]
        alpha = view.renormalised(keep)
        out.append(view.logits(alpha.numpy()))
    return np.concatenate(out) if out else np.zeros((0, view.bias.shape[0]))


def four_way(view: SpanView, rng: np.random.Generator) -> dict[str, dict[str, float | bool]]:
    """Remove spans by alpha, by d logit_pred / d alpha (= ``L[:, pred]``), by alpha x gradient and at
    random until the decision flips: fraction of spans and of alpha mass removed (1.0 if never)."""
    predicted = int(np.argmax(view.logits(view.alpha)))
    gradient = view.contributions[:, predicted]
    orders = {
        "alpha": np.argsort(-view.alpha, kind="stable"),
        "gradient": np.argsort(-gradient, kind="stable"),
        "alpha_x_gradient": np.argsort(-(view.alpha * gradient), kind="stable"),
        "random": rng.permutation(view.alpha.shape[0]),
    }
    count = view.alpha.shape[0]
    results: dict[str, dict[str, float | bool]] = {}
    for name, order in orders.items():
        flip = first_flip(removal_logits(view, order).argmax(axis=1), predicted) if count > 1 else None
        mass = float(view.alpha[order[:flip]].sum()) if flip is not None else 1.0
        results[name] = {
            "span_fraction": flip / count if flip is not None else 1.0,
            "mass_fraction": mass,
            "flipped": flip is not None,
        }
    return results


def permutation_test(view: SpanView, rng: np.random.Generator, permutations: int = 100) -> dict[str, float]:
    """Median total-variation distance of the output when alpha is permuted over the valid spans."""
    original = softmax(view.logits(view.alpha))
    shuffled = np.argsort(rng.random((permutations, view.alpha.shape[0])), axis=1)
    distances = total_variation(softmax(view.logits(view.alpha[shuffled])), original)
    return {"median_tvd": float(np.median(distances)), "max_alpha": float(view.alpha.max())}


def adversarial_alpha(
    view: SpanView, steps: int = 100, restarts: int = 4, tolerance: float = 0.01, seed: int = 0
) -> dict[str, float]:
    """Gradient search (Adam on span logits, ``restarts`` in one batch) for the alpha with the
    largest JS from the model's alpha whose output stays within TVD <= ``tolerance``."""
    generator = torch.Generator().manual_seed(seed)
    base = torch.from_numpy(view.scores)
    alpha = torch.from_numpy(view.alpha)
    contributions, bias = torch.from_numpy(view.contributions), torch.from_numpy(view.bias)
    original = torch.softmax(alpha @ contributions + bias, dim=-1)
    logits = (base + 2.0 * torch.randn(restarts, base.shape[0], generator=generator, dtype=base.dtype)).requires_grad_()
    optimiser = torch.optim.Adam([logits], lr=0.1)
    best = 0.0
    for _ in range(steps):
        candidate = torch.softmax(logits, dim=-1)
        tvd = 0.5 * (torch.softmax(candidate @ contributions + bias, dim=-1) - original).abs().sum(dim=-1)
        mix = 0.5 * (candidate + alpha)
        js = 0.5 * (candidate * (candidate.clamp_min(1e-30).log() - mix.log())).sum(-1) + 0.5 * (
            alpha * (alpha.clamp_min(1e-30).log() - mix.log())
        ).sum(-1)
        feasible = tvd <= tolerance
        if bool(feasible.any()):
            best = max(best, float(js.detach()[feasible].max()))
        loss = (-js + 100.0 * torch.relu(tvd - tolerance)).sum()
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
    return {"adversarial_js": best, "js_max": float(np.log(2.0))}


def uniform_prediction(view: SpanView) -> int:
    """The predicted class when alpha is replaced by the uniform distribution over the valid spans (over
    each text's spans, to its share, with per-segment alpha)."""
    if view.segments is None or view.shares is None:
        return int(np.argmax(view.contributions.mean(axis=0) + view.bias))
    counts = np.bincount(view.segments, minlength=2).astype(np.float64)
    uniform = view.shares[view.segments] / counts[view.segments]
    return int(np.argmax(view.logits(uniform)))


def top_span_masks(view: SpanView, attention: np.ndarray, count: int, k_max: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Token masks ``[k_max, T]``: row ``k - 1`` covers the top ``k`` alpha spans (greedy by alpha,
    non-overlapping), and, in the second array, as many windows of the same lengths chosen greedily
    by attention mass (non-overlapping). Short inputs repeat their last row."""
    order = np.argsort(-view.alpha, kind="stable")
    starts, ends = view.starts[order], view.ends[order]
    taken = np.zeros(count, dtype=bool)
    lengths: list[int] = []
    alpha_rows: list[np.ndarray] = []
    for rank in disjoint_spans(starts, ends, count, count=k_max):
        i, j = int(starts[rank]), int(ends[rank])
        taken[i : j + 1] = True
        lengths.append(j - i + 1)
        alpha_rows.append(taken.copy())
    chosen = np.zeros(count, dtype=bool)
    attention_rows: list[np.ndarray] = []
    for length in lengths:
        sums = np.convolve(attention, np.ones(length), mode="valid")
        blocked = np.convolve(chosen.astype(float), np.ones(length), mode="valid") > 0
        if not blocked.all():
            start = int(np.argmax(np.where(blocked, -np.inf, sums)))
            chosen[start : start + length] = True
        attention_rows.append(chosen.copy())
    while len(alpha_rows) < k_max:
        alpha_rows.append(alpha_rows[-1])
        attention_rows.append(attention_rows[-1])
    return np.array(alpha_rows), np.array(attention_rows)


def js(p: np.ndarray, q: np.ndarray) -> float:
    return float(js_divergence(p, q))
