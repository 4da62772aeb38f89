"""What every attribution method shares: the method interface, and the one route from word
embeddings to the model (logits, gradients, baselines, the modules captum drives), which runs
through :meth:`SelfExplainer.run <selfexplain.core.pipeline.SelfExplainer.run>`.

An :class:`~selfexplain.core.results.instance.Instance` (``explainer.instance(text, pair)``) is the input run
once. Shapes: ``N`` encoder positions of the one input (special tokens included), ``T`` real
tokens (those the span layer sees), ``H`` hidden size, ``C`` classes, ``K`` copies of the input.
"""

from __future__ import annotations

from typing import ClassVar, Literal

import numpy as np
import torch
from torch import nn

from selfexplain.core.pipeline import SelfExplainer
from selfexplain.core.results.instance import Instance
from selfexplain.methods.explainers.registry import register

__all__ = ["AttributionMethod", "Instance"]


class AttributionMethod:
    """An attribution method: ``attribute(explainer, instance)`` -> token scores ``[T]``.

    Higher score = more important for the instance's target class. Subclasses set ``name``
    (the registry key) and ``label`` (shown in tables), declare their parameters in ``__init__``,
    and set ``windows`` when they also score a text read in several windows (no attention maps,
    no gradients there). A subclass that sets its own ``name`` registers itself
    (:mod:`selfexplain.methods.explainers.registry`, which says what ``rank``, ``core``, ``fast`` and
    ``aliases`` decide); a base class without a name of its own (``PerturbationMethod``) does not.
    """

    name: ClassVar[str] = ""
    label: ClassVar[str] = ""
    windows: ClassVar[bool] = False
    rank: ClassVar[int] = 0
    core: ClassVar[bool] = False
    fast: ClassVar[bool] = False
    aliases: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("name"):
            register(cls)

    def attribute(self, explainer: SelfExplainer, instance: Instance) -> np.ndarray:
        """Token scores ``[T]`` float64 for ``instance.target``."""
        raise NotImplementedError

    def span_scores(self, explainer: SelfExplainer, instance: Instance) -> np.ndarray | None:
        """Span scores ``[T, T]`` (upper triangle) where the method has them natively, else None."""
        return None


def word_embeddings(explainer: SelfExplainer, instance: Instance) -> torch.Tensor:
    """The input's word embeddings ``[1, N, H]`` (no position/type embeddings), detached."""
    ids = instance.batch.input_ids.to(explainer.device)
    return explainer.model.encoder.get_input_embeddings()(ids).detach()


def embedding_logits(explainer: SelfExplainer, instance: Instance, embeds: torch.Tensor) -> torch.Tensor:
    """Logits ``[K, C]`` of ``K`` copies of the instance (its masks, segments and positions) whose word
    embeddings are ``embeds`` ``[K, N, H]``; autograd flows through ``embeds`` when gradients are on
    (captum turns them on around this forward)."""
    return explainer.run(instance.batch, embeds=embeds, grad=torch.is_grad_enabled()).logits


def embedding_gradients(explainer: SelfExplainer, instance: Instance, embeds: torch.Tensor) -> torch.Tensor:
    """Gradient of the target logit wrt ``embeds`` ``[K, N, H]`` (K inputs sharing the instance's
    masks, run as one batch) -> ``[K, N, H]``."""
    embeds = embeds.clone().requires_grad_(True)
    with torch.enable_grad():
        logits = embedding_logits(explainer, instance, embeds)
        (grads,) = torch.autograd.grad(logits[:, instance.target].sum(), embeds)
    return grads.detach()


Baseline = Literal["pad", "zero"]
BASELINES: tuple[Baseline, ...] = ("pad", "zero")
ZERO_ID = -1  # an id that :class:`WordEmbeddings` maps to the zero vector


def check_baseline(baseline: str) -> None:
    if baseline not in BASELINES:
        raise ValueError(f"baseline must be one of {BASELINES}, got {baseline!r}")


def baseline_ids(explainer: SelfExplainer, instance: Instance, baseline: Baseline = "pad") -> torch.Tensor:
    """Ids ``[1, N]``: the pad id (``"pad"``) or :data:`ZERO_ID` (``"zero"``) at real tokens, the
    input's own ids at special tokens (through :class:`WordEmbeddings`, the baseline embeddings)."""
    check_baseline(baseline)
    fill = (explainer.tokenizer.pad_token_id or 0) if baseline == "pad" else ZERO_ID
    ids = instance.batch.input_ids.clone()
    ids[instance.batch.token_mask] = fill
    return ids.to(explainer.device)


def baseline_embeddings(
    explainer: SelfExplainer, instance: Instance, embeds: torch.Tensor, baseline: Baseline = "pad"
) -> torch.Tensor:
    """``[1, N, H]``: the pad token's word embedding (``"pad"``) or zeros (``"zero"``) at real tokens,
    ``embeds`` ``[1, N, H]`` (the input's own) at special tokens."""
    check_baseline(baseline)
    real = instance.batch.token_mask.to(embeds.device).unsqueeze(-1)  # [1, N, 1]
    if baseline == "zero":
        fill = torch.zeros_like(embeds)
    else:
        pad = explainer.tokenizer.pad_token_id or 0
        fill = explainer.model.encoder.get_input_embeddings().weight[pad].detach().expand_as(embeds)
    return torch.where(real, fill, embeds)


class WordEmbeddings(nn.Module):
    """The encoder's word-embedding table as a layer captum can attribute to: ids ``[K, N]`` ->
    ``[K, N, H]``, with :data:`ZERO_ID` giving the zero vector (the ``"zero"`` baseline)."""

    def __init__(self, table: nn.Module) -> None:
        super().__init__()
        self.table = table

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        vectors = self.table(ids.clamp_min(0))
        return vectors * (ids != ZERO_ID).unsqueeze(-1).to(vectors.dtype)


class EmbeddingClassifier(nn.Module):
    """ids ``[K, N]`` -> logits ``[K, C]`` of the instance through :func:`embedding_logits`.

    ``words`` is the layer captum's layer methods attribute to; the network is registered as a
    submodule so DeepLift finds its nonlinearities. Use it under ``explainer.exclusive()`` (captum adds hooks).
    """

    def __init__(self, explainer: SelfExplainer, instance: Instance) -> None:
        super().__init__()
        self.words = WordEmbeddings(explainer.model.encoder.get_input_embeddings())
        self.network = explainer.model
        self.explainer = explainer
        self.instance = instance

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return embedding_logits(self.explainer, self.instance, self.words(ids))


@torch.no_grad()
def real_token_probabilities(
    explainer: SelfExplainer, instance: Instance, embeds: torch.Tensor, real: torch.Tensor
) -> torch.Tensor:
    """Class probabilities ``[K, C]`` of the instance whose real tokens' word embeddings are ``real``
    ``[K, T, H]`` (special tokens keep theirs from ``embeds`` ``[1, N, H]``): the forward of the
    perturbation methods, which replace removed tokens' embeddings by a baseline."""
    full = embeds.expand(real.shape[0], -1, -1).clone()
    full[:, torch.as_tensor(instance.positions, device=full.device)] = real.to(full.dtype)
    return torch.softmax(embedding_logits(explainer, instance, full).float(), dim=-1)
