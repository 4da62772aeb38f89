"""Integrated gradients (Sundararajan et al., 2017) on the word embeddings, computed here
(captum is not installed in this environment; the same quantity as captum's
``LayerIntegratedGradients`` on the embedding layer with a Riemann-middle rule)."""

from __future__ import annotations

import numpy as np
import torch

from selfexplain.explainers.base import Explainer, Instance, embedding_gradients, word_embeddings
from selfexplain.pipeline import SelfExplainer


class IntegratedGradientsExplainer(Explainer):
    """Score = ``sum_h (e_t - b_t)_h * mean_k grad_h(b + a_k (e - b))_t`` with ``a_k = (k + 0.5) / steps``.

    Baseline ``b``: the word embedding of the tokenizer's pad token (``"pad"``) or zeros
    (``"zero"``) at every real token; special tokens keep their own embedding. The
    ``steps`` interpolations run in batches of ``batch_size``.
    """

    name = "integrated_gradients"
    label = "Integrated gradients"

    def __init__(self, steps: int = 20, baseline: str = "pad", batch_size: int = 20) -> None:
        if steps < 1 or batch_size < 1:
            raise ValueError("steps and batch_size must be at least 1")
        if baseline not in ("pad", "zero"):
            raise ValueError(f"baseline must be 'pad' or 'zero', got {baseline!r}")
        self.steps = steps
        self.baseline = baseline
        self.batch_size = batch_size

    def baseline_embeddings(self, model: SelfExplainer, instance: Instance, embeds: torch.Tensor) -> torch.Tensor:
        """``[1, N, H]``: the baseline at real tokens, the input's own embedding at special tokens."""
        real = instance.batch.token_mask.to(embeds.device).unsqueeze(-1)  # [1, N, 1]
        if self.baseline == "zero":
            fill = torch.zeros_like(embeds)
        else:
            pad = model.tokenizer.pad_token_id or 0
            fill = model.model.encoder.get_input_embeddings().weight[pad].detach().expand_as(embeds)
        return torch.where(real, fill, embeds)

    def attribute(self, model: SelfExplainer, instance: Instance) -> np.ndarray:
        embeds = word_embeddings(model, instance)  # [1, N, H]
        base = self.baseline_embeddings(model, instance, embeds)
        alphas = (torch.arange(self.steps, dtype=embeds.dtype, device=embeds.device) + 0.5) / self.steps
        total = torch.zeros_like(embeds[0])
        for lo in range(0, self.steps, self.batch_size):
            a = alphas[lo : lo + self.batch_size].view(-1, 1, 1)
            total += embedding_gradients(model, instance, base + a * (embeds - base)).sum(dim=0)
        scores = ((embeds - base)[0] * total / self.steps).sum(dim=-1)
        return scores[instance.positions].double().cpu().numpy()
