"""What the captum methods share: seeding, reducing captum's ``[1, *, H]`` attributions to token
scores, and the setup of the perturbation methods.

Gradient methods attribute to the word embeddings ``[1, N, H]`` and a token's score is the sum of
its attribution over the hidden dimension (captum's convention). Perturbation methods (LIME,
KernelSHAP, occlusion, feature ablation) see only the real tokens' embeddings ``[1, T, H]``, one
feature per token (a feature mask), and remove a token by putting the baseline embedding (the pad
token's, or zeros) in its place; they explain the target class probability, like leave-one-out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import torch
from captum.attr import Lime

from selfexplain.core.pipeline import SelfExplainer
from selfexplain.methods.explainers.base import (
    AttributionMethod,
    Baseline,
    Instance,
    baseline_embeddings,
    check_baseline,
    real_token_probabilities,
    word_embeddings,
)
from selfexplain.methods.explainers.random_baseline import instance_rng


@contextmanager
def seeded(seed: int, instance: Instance) -> Iterator[None]:
    """Run the block with torch's CPU generator seeded by ``seed`` and the input text; the caller's
    generator state is restored afterwards (captum samples with torch's global generator)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(int(instance_rng(seed, instance).integers(2**62)))
        yield


def token_sums(attributions: torch.Tensor, instance: Instance) -> np.ndarray:
    """``[1, N, H]`` attributions over the word embeddings -> scores ``[T]`` of the real tokens."""
    return attributions[0].detach().sum(dim=-1).double().cpu().numpy()[instance.positions]


def feature_scores(attributions: torch.Tensor) -> np.ndarray:
    """``[1, T, H]`` attributions of one-feature-per-token methods (every hidden unit of a token holds
    the token's value) -> scores ``[T]``."""
    return attributions[0].detach().mean(dim=-1).double().cpu().numpy()


@dataclass(frozen=True)
class PerturbationSetup:
    """Inputs of a perturbation method: ``inputs`` ``[1, T, H]`` (the real tokens' embeddings),
    ``baselines`` ``[1, T, H]``, ``feature_mask`` ``[1, T, 1]`` (token t is feature t) and
    ``forward``: real-token embeddings ``[K, T, H]`` -> class probabilities ``[K, C]``."""

    inputs: torch.Tensor
    baselines: torch.Tensor
    feature_mask: torch.Tensor
    forward: Callable[[torch.Tensor], torch.Tensor]


class PerturbationMethod(AttributionMethod):
    """Base of the captum perturbation methods: ``baseline`` is what replaces a removed token's
    embedding (``"pad"`` or ``"zero"``); ``batch_size`` perturbations run per forward pass."""

    def __init__(self, baseline: Baseline = "pad", batch_size: int = 50) -> None:
        check_baseline(baseline)
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.baseline = baseline
        self.batch_size = batch_size

    def setup(self, explainer: SelfExplainer, instance: Instance) -> PerturbationSetup:
        embeds = word_embeddings(explainer, instance)  # [1, N, H]
        positions = torch.as_tensor(instance.positions, device=embeds.device)
        base = baseline_embeddings(explainer, instance, embeds, self.baseline)
        mask = torch.arange(instance.num_tokens, device=embeds.device).view(1, -1, 1)
        return PerturbationSetup(
            inputs=embeds[:, positions],
            baselines=base[:, positions],
            feature_mask=mask,
            forward=lambda real: real_token_probabilities(explainer, instance, embeds, real),
        )


def sampled_scores(
    method: type[Lime],
    setup: PerturbationSetup,
    instance: Instance,
    n_samples: int,
    seed: int,
    batch_size: int,
    **options: object,
) -> np.ndarray:
    """Token scores ``[T]`` of a sampling method (captum's ``Lime`` or its subclass ``KernelShap``, built
    on ``setup.forward`` with ``options``) from ``n_samples`` random keep/remove patterns of the real
    tokens, ``batch_size`` per forward pass, sampled under :func:`seeded` (``seed`` and the input text)."""
    attributor = method(setup.forward, **options)
    with seeded(seed, instance):
        attributions = attributor.attribute(
            setup.inputs,
            baselines=setup.baselines,
            target=instance.target,
            feature_mask=setup.feature_mask,
            n_samples=n_samples,
            perturbations_per_eval=batch_size,
        )
    return feature_scores(attributions)  # [1, T, H] -> [T]
