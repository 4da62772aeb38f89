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
from selfexplain.explainers.alpha import AlphaMethod
from selfexplain.explainers.attention_cls import AttentionCLSMethod
from selfexplain.explainers.attention_mean import AttentionMeanMethod
from selfexplain.explainers.attention_rows import AttentionRowsMethod, PositionPriorMethod, RolloutRowsMethod
from selfexplain.explainers.base import AttributionMethod, Instance
from selfexplain.explainers.deeplift import DeepLiftMethod
from selfexplain.explainers.feature_ablation import FeatureAblationMethod
from selfexplain.explainers.grad_x_input import GradXInputMethod
from selfexplain.explainers.gradient import GradientMethod
from selfexplain.explainers.input_x_gradient import InputXGradientMethod
from selfexplain.explainers.integrated_gradients import IntegratedGradientsMethod
from selfexplain.explainers.kernel_shap import KernelShapMethod
from selfexplain.explainers.lime import LimeMethod
from selfexplain.explainers.loo import LeaveOneOutMethod
from selfexplain.explainers.random_baseline import RandomMethod
from selfexplain.explainers.rollout import RolloutMethod
from selfexplain.explainers.saliency import SaliencyMethod
from selfexplain.explainers.window_occlusion import OcclusionMethod

METHODS: dict[str, type[AttributionMethod]] = {
    cls.name: cls
    for cls in (
        AlphaMethod,
        AttentionCLSMethod,
        AttentionMeanMethod,
        AttentionRowsMethod,
        RolloutMethod,
        RolloutRowsMethod,
        GradientMethod,
        GradXInputMethod,
        IntegratedGradientsMethod,
        SaliencyMethod,
        InputXGradientMethod,
        DeepLiftMethod,
        LeaveOneOutMethod,
        FeatureAblationMethod,
        OcclusionMethod,
        LimeMethod,
        KernelShapMethod,
        RandomMethod,
        PositionPriorMethod,
    )
}


def get_method(name: str) -> AttributionMethod:
    """The registered attribution method ``name`` with its default parameters."""
    if name not in METHODS:
        raise InvalidInputError(f"unknown attribution method {name!r}; choose from {', '.join(METHODS)}")
    return METHODS[name]()


__all__ = ["METHODS", "AttributionMethod", "Instance", "get_method"]
