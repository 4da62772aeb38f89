"""What every explainer shares: one prepared input, the explainer interface, embedding gradients.

Shapes: ``N`` encoder positions of the one input (special tokens included), ``T`` real
tokens (those the span layer sees), ``H`` hidden size, ``C`` classes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import torch

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


def embedding_gradients(model: SelfExplainer, instance: Instance, embeds: torch.Tensor) -> torch.Tensor:
    """Gradient of the target logit wrt ``embeds`` ``[K, N, H]`` (K inputs sharing the instance's
    masks, run as one batch) -> ``[K, N, H]``."""
    inputs = instance.batch.model_inputs(embeds.device)
    count = embeds.shape[0]
    expanded = {k: v.expand(count, -1) for k, v in inputs.items()}
    embeds = embeds.clone().requires_grad_(True)
    with torch.enable_grad():
        logits = model.model(**expanded, inputs_embeds=embeds).logits
        (grads,) = torch.autograd.grad(logits[:, instance.target].sum(), embeds)
    return grads.detach()
