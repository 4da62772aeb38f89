"""A forward pass read out as the result types: one batch row -> :class:`Explanation`, a windowed
text -> :class:`Document`. Pure: tensors in, plain data out; the model is never called here.

Shapes: ``B`` rows of ``N`` encoder positions, ``T`` real tokens, ``S`` span slots, ``C`` classes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from selfexplain.core.inputs import EncodedBatch, WindowPlan, dense_alpha, span_tokens, token_index
from selfexplain.core.modeling.model import ModelOutput
from selfexplain.core.results.document import Document
from selfexplain.core.results.explanation import Explanation, Token


@dataclass(frozen=True)
class ReadoutInfo:
    """What a result carries about the model: its label names, name and span unit."""

    label_names: tuple[str, ...]
    model_name: str
    span_unit: str


def probabilities(output: ModelOutput, row: int = 0) -> np.ndarray:
    """Class probabilities ``[C]`` of one row."""
    return torch.softmax(output.logits[row].detach().float(), dim=-1).cpu().numpy()


def explanation_of(
    batch: EncodedBatch, output: ModelOutput, row: int, text: str, pair: str | None, info: ReadoutInfo
) -> Explanation:
    """Row ``row`` of a batch as an :class:`Explanation`: its real tokens, alpha ``[T, T]`` float64 over
    the valid spans (all zero for a baseline head, which has no spans) and, when the forward returned
    them, every layer's attention ``[L, heads, n, n]`` over the row's ``n`` unpadded positions."""
    mask = batch.token_mask[row].numpy()
    positions = np.flatnonzero(mask)
    count = len(positions)
    if output.alpha is not None and output.span_valid is not None:
        assert output.span_starts is not None and output.span_ends is not None
        valid = output.span_valid[row].cpu().numpy()
        slots = (output.span_starts.cpu().numpy(), output.span_ends.cpu().numpy())
        starts, ends = span_tokens(token_index(mask), *slots, valid)
        values = output.alpha[row].detach().cpu().double().numpy()[valid]
        alpha, span_mask = dense_alpha(count, starts, ends, values)
    else:
        alpha, span_mask = dense_alpha(count, np.zeros(0, dtype=int), np.zeros(0, dtype=int), np.zeros(0))
    sources = (text, pair or "")
    tokens = []
    for p in positions.tolist():  # one Token object per real token
        segment = int(batch.segment_ids[row, p])
        start, end = batch.offsets[row][p]
        tokens.append(Token(sources[segment][start:end], start, end, segment, batch.tokens[row][p]))
    length = int(batch.attention_mask[row].sum())
    maps = None
    if output.attentions:  # None, or empty when the encoder cannot return attention maps
        maps = torch.stack([layer[row, :, :length, :length].detach() for layer in output.attentions])
        maps = maps.float().cpu().numpy()
    return Explanation(
        text=text,
        pair=pair,
        tokens=tuple(tokens),
        label_names=info.label_names,
        probabilities=probabilities(output, row),
        alpha=alpha,
        span_mask=span_mask,
        model_name=info.model_name,
        attention_tokens=tuple(batch.tokens[row][:length]),
        token_positions=positions,
        attentions=maps,
        span_unit=info.span_unit,
    )


def document_of(plan: WindowPlan, output: ModelOutput, text: str, info: ReadoutInfo) -> Document:
    """A windowed text's forward as a sparse :class:`Document` (its spans as ``[S]`` lists)."""
    assert output.alpha is not None
    first, last = plan.span_tokens()
    alpha = output.alpha[0].detach().float().cpu().numpy()
    if output.span_valid is not None:  # spans the model rules out (punctuation edges) are no spans of it
        keep = output.span_valid[0].cpu().numpy()
        first, last, alpha = first[keep], last[keep], alpha[keep]
    tokens: Sequence[Token] = [
        Token(text[a:b], a, b, 0, piece) for (a, b), piece in zip(plan.offsets, plan.pieces)
    ]  # one Token object per real token
    return Document(
        text=text,
        tokens=tuple(tokens),
        label_names=info.label_names,
        probabilities=probabilities(output),
        window_starts=plan.window_starts,
        window_size=plan.inner,
        starts=first,
        ends=last,
        alpha=alpha,
        model_name=info.model_name,
        span_unit=info.span_unit,
    )
