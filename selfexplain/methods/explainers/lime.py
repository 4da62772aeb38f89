"""LIME (Ribeiro et al., 2016) through captum: a weighted linear surrogate fitted to the target
probability on random subsets of the real tokens (the others take the baseline embedding)."""

from __future__ import annotations

import numpy as np
from captum._utils.models.linear_model import SkLearnRidge
from captum.attr import Lime

from selfexplain.core.pipeline import SelfExplainer
from selfexplain.methods.explainers.base import Baseline, Instance
from selfexplain.methods.explainers.captum_support import PerturbationMethod, sampled_scores


class LimeMethod(PerturbationMethod):
    """Score of token t = the coefficient of "t is present" in a ridge regression (penalty
    ``ridge``) of ``p_target`` on ``n_samples`` random keep/remove patterns (each token kept with
    probability 1/2), weighted by captum's exponential cosine kernel on the embeddings.

    Seeded by ``seed`` and the input text, so a rerun gives the same scores. Slow: ``n_samples``
    forward passes (``batch_size`` at a time).
    """

    name = "lime"
    label = "LIME"
    rank = 33

    def __init__(
        self, n_samples: int = 200, seed: int = 0, ridge: float = 1.0, baseline: Baseline = "pad", batch_size: int = 50
    ) -> None:
        super().__init__(baseline, batch_size)
        if n_samples < 2 or ridge < 0:
            raise ValueError("n_samples must be at least 2 and ridge at least 0")
        self.n_samples = n_samples
        self.seed = seed
        self.ridge = ridge

    def attribute(self, explainer: SelfExplainer, instance: Instance) -> np.ndarray:
        setup = self.setup(explainer, instance)
        return sampled_scores(
            Lime,
            setup,
            instance,
            self.n_samples,
            self.seed,
            self.batch_size,
            interpretable_model=SkLearnRidge(alpha=self.ridge),
        )
