"""Random scores: the floor every other method should beat."""

from __future__ import annotations

import zlib

import numpy as np

from selfexplain.core.pipeline import SelfExplainer
from selfexplain.methods.explainers.base import AttributionMethod, Instance


def instance_rng(seed: int, instance: Instance) -> np.random.Generator:
    """A generator that depends only on ``seed`` and the input text (stable across runs and resumes)."""
    key = zlib.crc32(f"{instance.text}\x00{instance.pair or ''}".encode())
    return np.random.default_rng([seed, key])


class RandomMethod(AttributionMethod):
    """Uniform random scores in [0, 1), seeded per input."""

    name = "random"
    label = "Random"
    rank = 41
    core = True
    fast = True
    windows = True

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def attribute(self, explainer: SelfExplainer, instance: Instance) -> np.ndarray:
        return instance_rng(self.seed, instance).random(instance.num_tokens)
