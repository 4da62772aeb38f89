"""Token attribution methods behind one verb: ``get_method(name).attribute(explainer, instance)``.

``instance = explainer.instance(text, pair)`` runs the input once (attentions and hidden states
included; a text longer than one window in windows, which only the methods with ``windows = True``
score); every method returns token scores ``[T]`` for ``instance.target`` (higher = more
important). The registry :data:`METHODS` is what the CLI and the app offer; the methods known from
captum (saliency, input x gradient, integrated gradients, DeepLift, feature ablation, occlusion, LIME,
KernelSHAP) run through captum on the word embeddings.
"""

from __future__ import annotations

from selfexplain.errors import InvalidInputError
from selfexplain.explainers.alpha import AlphaExplainer
from selfexplain.explainers.attention_cls import AttentionCLSExplainer
from selfexplain.explainers.attention_mean import AttentionMeanExplainer
from selfexplain.explainers.attention_rows import AttentionRowsExplainer, PositionPriorExplainer, RolloutRowsExplainer
from selfexplain.explainers.base import AttributionMethod, Instance
from selfexplain.explainers.deeplift import DeepLiftExplainer
from selfexplain.explainers.feature_ablation import FeatureAblationExplainer
from selfexplain.explainers.grad_x_input import GradXInputExplainer
from selfexplain.explainers.gradient import GradientExplainer
from selfexplain.explainers.input_x_gradient import InputXGradientExplainer
from selfexplain.explainers.integrated_gradients import IntegratedGradientsExplainer
from selfexplain.explainers.kernel_shap import KernelShapExplainer
from selfexplain.explainers.lime import LimeExplainer
from selfexplain.explainers.loo import LeaveOneOutExplainer
from selfexplain.explainers.random_baseline import RandomExplainer
from selfexplain.explainers.rollout import RolloutExplainer
from selfexplain.explainers.saliency import SaliencyExplainer
from selfexplain.explainers.window_occlusion import OcclusionExplainer

METHODS: dict[str, type[AttributionMethod]] = {
    cls.name: cls
    for cls in (
        AlphaExplainer,
        AttentionCLSExplainer,
        AttentionMeanExplainer,
        AttentionRowsExplainer,
        RolloutExplainer,
        RolloutRowsExplainer,
        GradientExplainer,
        GradXInputExplainer,
        IntegratedGradientsExplainer,
        SaliencyExplainer,
        InputXGradientExplainer,
        DeepLiftExplainer,
        LeaveOneOutExplainer,
        FeatureAblationExplainer,
        OcclusionExplainer,
        LimeExplainer,
        KernelShapExplainer,
        RandomExplainer,
        PositionPriorExplainer,
    )
}


EXPLAINERS = METHODS  # the registry's name before the rename (pages use it); kept for one release


def get_method(name: str) -> AttributionMethod:
    """The registered attribution method ``name`` with its default parameters."""
    if name not in METHODS:
        raise InvalidInputError(f"unknown explainer {name!r}; choose from {', '.join(METHODS)}")
    return METHODS[name]()


__all__ = ["EXPLAINERS", "METHODS", "AttributionMethod", "Instance", "get_method"]
