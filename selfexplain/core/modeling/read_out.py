"""Which encoder layers reach a model's decision.

The span layer (or a baseline's head) reads one hidden state of the encoder, ``config.encoder_layer``
(0 = the embeddings, ``L`` = the last of ``L`` layers; negative counts from the end). Only encoder
layers ``1 .. k`` feed hidden state ``k``: the attention of a later layer never reaches the decision
(a gradient of the loss with respect to it does not exist), and a model cut at its read-out layer
does not run those layers at all.
"""

from __future__ import annotations

from typing import Protocol


class _Config(Protocol):
    encoder_layer: int


class _Model(Protocol):
    config: _Config

    @property
    def num_encoder_layers(self) -> int: ...


def read_out_layer(encoder_layer: int, layers: int) -> int:
    """The hidden state a model reads as a non-negative index ``0 .. layers``: ``encoder_layer`` of an
    encoder that runs ``layers`` layers (``-1`` is ``layers``, ``-2`` is ``layers - 1``, ...). Raises
    ValueError for a hidden state the encoder does not have."""
    if not -(layers + 1) <= encoder_layer <= layers:
        raise ValueError(
            f"encoder_layer {encoder_layer} does not exist: the encoder has hidden states 0..{layers} "
            f"(or -1..-{layers + 1} from the end)"
        )
    return encoder_layer if encoder_layer >= 0 else layers + 1 + encoder_layer


def layers_read(model: _Model) -> int:
    """``k``: the encoder layers ``1 .. k`` that reach ``model``'s decision (its read-out hidden state)."""
    return read_out_layer(int(model.config.encoder_layer), int(model.num_encoder_layers))
