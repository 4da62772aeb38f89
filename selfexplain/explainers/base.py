"""What every explainer shares: one prepared input, the explainer interface, and the one route
from word embeddings to the model (logits, gradients, baselines, the modules captum drives).

Shapes: ``N`` encoder positions of the one input (special tokens included), ``T`` real
tokens (those the span layer sees), ``H`` hidden size, ``C`` classes, ``K`` copies of the input.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

import numpy as np
import torch
from torch import nn

from selfexplain.encoding import EncodedBatch, encode
from selfexplain.errors import InvalidInputError
from selfexplain.model import ModelOutput
from selfexplain.pipeline import SelfExplainer


@dataclass(frozen=True)
class Instance:
    """One input run once through the model (with attentions).

    ``batch`` holds one example (no padding); ``positions`` ``[T]`` are the encoder
    positions of the real tokens; ``probabilities`` ``[C]``; ``target`` the class the
    explainers explain (the predicted one unless given).
    """

    text: str
    pair: str | None
    batch: EncodedBatch
    output: ModelOutput
    positions: np.ndarray
    probabilities: np.ndarray
    target: int

    @property
    def num_tokens(self) -> int:
        return int(self.positions.shape[0])

    @property
    def tokens(self) -> list[str]:
        """The real tokens' text, read from the character offsets."""
        sources = (self.text, self.pair or "")
        segments = self.batch.segment_ids[0].tolist()
        return [sources[segments[p]][slice(*self.batch.offsets[0][p])] for p in self.positions.tolist()]


def prepare(explainer: SelfExplainer, text: str, pair: str | None = None, target: int | None = None) -> Instance:
    """Encode and run ``text`` once; ``target`` defaults to the predicted class."""
    explainer.check_input(text, pair)
    batch = encode(explainer.tokenizer, [text], [pair] if pair is not None else None, explainer.max_tokens, False)
    if not bool(batch.token_mask.any()):
        raise InvalidInputError("the text has no tokens the model can read")
    with torch.no_grad():
        output = explainer.model(
            **batch.model_inputs(_device(explainer)), output_attentions=True, output_hidden_states=True
        )
    probabilities = torch.softmax(output.logits[0].float(), dim=-1).cpu().numpy()
    chosen = int(np.argmax(probabilities)) if target is None else int(target)
    if not 0 <= chosen < probabilities.shape[0]:
        raise InvalidInputError(f"target class {chosen} is out of range (the model has {probabilities.shape[0]})")
    positions = np.flatnonzero(batch.token_mask[0].numpy())
    return Instance(text, pair, batch, output, positions, probabilities, chosen)


def _device(explainer: SelfExplainer) -> torch.device:
    return next(explainer.model.parameters()).device


class Explainer:
    """An attribution method: ``attribute(model, instance)`` -> token scores ``[T]``.

    Higher score = more important for the instance's target class. Subclasses set
    ``name`` (the registry key) and ``label`` (shown in tables) and declare their
    parameters in ``__init__``.
    """

    name: ClassVar[str] = ""
    label: ClassVar[str] = ""

    def attribute(self, model: SelfExplainer, instance: Instance) -> np.ndarray:
        """Token scores ``[T]`` float64 for ``instance.target``."""
        raise NotImplementedError

    def span_scores(self, model: SelfExplainer, instance: Instance) -> np.ndarray | None:
        """Span scores ``[T, T]`` (upper triangle) where the method has them natively, else None."""
        return None


def word_embeddings(model: SelfExplainer, instance: Instance) -> torch.Tensor:
    """The input's word embeddings ``[1, N, H]`` (no position/type embeddings), detached."""
    ids = instance.batch.input_ids.to(_device(model))
    return model.model.encoder.get_input_embeddings()(ids).detach()


def embedding_logits(model: SelfExplainer, instance: Instance, embeds: torch.Tensor) -> torch.Tensor:
    """Logits ``[K, C]`` of ``K`` copies of the instance (its masks, segments and positions) whose word
    embeddings are ``embeds`` ``[K, N, H]``; autograd flows through ``embeds``. Runs under the model's lock."""
    inputs = instance.batch.model_inputs(embeds.device)
    count = embeds.shape[0]
    expanded = {k: v.expand(count, -1) for k, v in inputs.items()}
    with model.lock:
        return model.model(**expanded, inputs_embeds=embeds).logits


def embedding_gradients(model: SelfExplainer, instance: Instance, embeds: torch.Tensor) -> torch.Tensor:
    """Gradient of the target logit wrt ``embeds`` ``[K, N, H]`` (K inputs sharing the instance's
    masks, run as one batch) -> ``[K, N, H]``."""
    embeds = embeds.clone().requires_grad_(True)
    with torch.enable_grad():
        logits = embedding_logits(model, instance, embeds)
        (grads,) = torch.autograd.grad(logits[:, instance.target].sum(), embeds)
    return grads.detach()


Baseline = Literal["pad", "zero"]
BASELINES: tuple[Baseline, ...] = ("pad", "zero")
ZERO_ID = -1  # an id that :class:`WordEmbeddings` maps to the zero vector


def check_baseline(baseline: str) -> None:
    if baseline not in BASELINES:
        raise ValueError(f"baseline must be one of {BASELINES}, got {baseline!r}")


def baseline_ids(model: SelfExplainer, instance: Instance, baseline: Baseline = "pad") -> torch.Tensor:
    """Ids ``[1, N]``: the pad id (``"pad"``) or :data:`ZERO_ID` (``"zero"``) at real tokens, the
    input's own ids at special tokens (through :class:`WordEmbeddings`, the baseline embeddings)."""
    check_baseline(baseline)
    fill = (model.tokenizer.pad_token_id or 0) if baseline == "pad" else ZERO_ID
    ids = instance.batch.input_ids.clone()
    ids[instance.batch.token_mask] = fill
    return ids.to(_device(model))


def baseline_embeddings(
    model: SelfExplainer, instance: Instance, embeds: torch.Tensor, baseline: Baseline = "pad"
) -> torch.Tensor:
    """``[1, N, H]``: the pad token's word embedding (``"pad"``) or zeros (``"zero"``) at real tokens,
    ``embeds`` ``[1, N, H]`` (the input's own) at special tokens."""
    check_baseline(baseline)
    real = instance.batch.token_mask.to(embeds.device).unsqueeze(-1)  # [1, N, 1]
    if baseline == "zero":
        fill = torch.zeros_like(embeds)
    else:
        pad = model.tokenizer.pad_token_id or 0
        fill = model.model.encoder.get_input_embeddings().weight[pad].detach().expand_as(embeds)
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
    submodule so DeepLift finds its nonlinearities. Use it under ``model.lock`` (captum adds hooks).
    """

    def __init__(self, model: SelfExplainer, instance: Instance) -> None:
        super().__init__()
        self.words = WordEmbeddings(model.model.encoder.get_input_embeddings())
        self.network = model.model
        self.explainer = model
        self.instance = instance

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return embedding_logits(self.explainer, self.instance, self.words(ids))


@torch.no_grad()
def real_token_probabilities(
    model: SelfExplainer, instance: Instance, embeds: torch.Tensor, real: torch.Tensor
) -> torch.Tensor:
    """Class probabilities ``[K, C]`` of the instance whose real tokens' word embeddings are ``real``
    ``[K, T, H]`` (special tokens keep theirs from ``embeds`` ``[1, N, H]``): the forward of the
    perturbation methods, which replace removed tokens' embeddings by a baseline."""
    full = embeds.expand(real.shape[0], -1, -1).clone()
    full[:, torch.as_tensor(instance.positions, device=full.device)] = real.to(full.dtype)
    return torch.softmax(embedding_logits(model, instance, full).float(), dim=-1)
