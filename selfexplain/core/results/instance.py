"""One input run once, for the attribution methods and the faithfulness lab: the :class:`Explanation`
the app shows, plus the forward pass behind it (what the methods perturb and differentiate).

Made by :meth:`selfexplain.core.pipeline.SelfExplainer.instance`. Shapes: ``N`` encoder positions of
the one row (special tokens included), ``T`` real tokens, ``C`` classes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from selfexplain.core.inputs import EncodedBatch, WindowPlan
from selfexplain.core.modeling.model import ModelOutput
from selfexplain.core.results.explanation import Explanation
from selfexplain.errors import InvalidInputError


@dataclass(frozen=True)
class Instance:
    """``explanation``: the result (tokens, probabilities ``[C]``, alpha ``[T, T]``; attention maps when
    the text fits one window). ``inputs``: the :class:`EncodedBatch` of the one row, or the
    :class:`WindowPlan` of a single text longer than one window (:attr:`windowed`). ``output``: that
    forward's :class:`ModelOutput` (one row: attentions and hidden states too). ``target``: the class
    the methods explain (the predicted one unless given)."""

    explanation: Explanation
    inputs: EncodedBatch | WindowPlan
    output: ModelOutput
    target: int

    @property
    def text(self) -> str:
        return self.explanation.text

    @property
    def pair(self) -> str | None:
        return self.explanation.pair

    @property
    def probabilities(self) -> np.ndarray:
        """``[C]``."""
        return self.explanation.probabilities

    @property
    def windowed(self) -> bool:
        return isinstance(self.inputs, WindowPlan)

    @property
    def num_tokens(self) -> int:
        return len(self.explanation.tokens)

    @property
    def tokens(self) -> list[str]:
        """The real tokens' text, read from the character offsets."""
        return [token.text for token in self.explanation.tokens]

    @property
    def batch(self) -> EncodedBatch:
        """The one-row batch; a windowed instance has none (methods that need it refuse it)."""
        if not isinstance(self.inputs, EncodedBatch):
            raise InvalidInputError(
                f"this method needs a text that fits one encoder window; the text has {self.num_tokens} tokens"
            )
        return self.inputs

    @property
    def plan(self) -> WindowPlan:
        """The windows of a windowed instance."""
        if not isinstance(self.inputs, WindowPlan):
            raise ValueError("the instance fits one window and has no window plan")
        return self.inputs

    @property
    def positions(self) -> np.ndarray:
        """``[T]``: the encoder positions of the real tokens in the one row."""
        positions = self.explanation.token_positions
        if positions is None:
            return np.flatnonzero(self.batch.token_mask[0].numpy())
        return positions
