"""DeepLift (Shrikumar et al., 2017) through captum's ``LayerDeepLift`` on the word-embedding layer.

captum applies DeepLift's rescale rule to the nonlinear modules it knows (ReLU, Tanh, Sigmoid,
nn.Softmax, ...); a transformer's GELU modules and the functional softmax inside attention are
passed through with their plain gradient, so on these encoders the scores are close to
``(e - b) . gradient at e``. The baseline is the one integrated gradients uses.
"""

from __future__ import annotations

import warnings

import numpy as np
from captum.attr import LayerDeepLift

from selfexplain.core.pipeline import SelfExplainer
from selfexplain.methods.explainers.base import (
    AttributionMethod,
    Baseline,
    EmbeddingClassifier,
    Instance,
    baseline_ids,
    check_baseline,
)
from selfexplain.methods.explainers.captum_support import token_sums


class DeepLiftMethod(AttributionMethod):
    """Score = ``sum_h`` DeepLift attribution of ``e_t`` against the baseline ``b_t`` (the pad
    token's embedding, ``"pad"``, or zeros, ``"zero"``; special tokens keep their own embedding)."""

    name = "deeplift"
    label = "DeepLift"
    rank = 24

    def __init__(self, baseline: Baseline = "pad") -> None:
        check_baseline(baseline)
        self.baseline = baseline

    def attribute(self, explainer: SelfExplainer, instance: Instance) -> np.ndarray:
        classifier = EmbeddingClassifier(explainer, instance)
        baselines = baseline_ids(explainer, instance, self.baseline)  # [1, N]
        with explainer.exclusive(), warnings.catch_warnings():  # captum hooks the network's nonlinear modules
            warnings.filterwarnings("ignore", message="Setting forward, backward hooks", category=UserWarning)
            attributions = LayerDeepLift(classifier, classifier.words).attribute(
                instance.batch.input_ids.to(baselines.device), baselines=baselines, target=instance.target
            )
        return token_sums(attributions, instance)  # [1, N, H] -> [T]
