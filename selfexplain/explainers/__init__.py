"""Token attribution methods behind one verb: ``get_explainer(name).attribute(model, instance)``.

``instance = prepare(model, text, pair)`` runs the input once (attentions included);
every explainer returns token scores ``[T]`` for ``instance.target`` (higher = more
important). The registry below is what the CLI and the app offer; the methods known from captum
(saliency, input x gradient, integrated gradients, DeepLift, feature ablation, occlusion, LIME,
KernelSHAP) run through captum on the word embeddings.
"""

from __future__ import annotations

from selfexplain.errors import InvalidInputError
from selfexplain.explainers.alpha import AlphaExplainer
from selfexplain.explainers.attention_cls import AttentionCLSExplainer
from selfexplain.explainers.attention_mean import AttentionMeanExplainer
from selfexplain.explainers.attention_rows import AttentionRowsExplainer, PositionPriorExplainer, RolloutRowsExplainer
from selfexplain.explainers.base import Explainer, Instance, prepare
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

EXPLAINERS: dict[str, type[Explainer]] = {
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


def get_explainer(name: str) -> Explainer:
    """The registered explainer ``name`` with its default parameters."""
    if name not in EXPLAINERS:
        raise InvalidInputError(f"unknown explainer {name!r}; choose from {', '.join(EXPLAINERS)}")
    return EXPLAINERS[name]()


__all__ = ["EXPLAINERS", "Explainer", "Instance", "get_explainer", "prepare"]
