"""Many inputs as :class:`~selfexplain.core.results.instance.Instance` objects from one forward pass per batch:
the explanation and the forward behind it (what :func:`~selfexplain.lab.faithfulness.alpha_tests.span_view`
reads), without the one-input forward of :meth:`SelfExplainer.instance` for each.

Each instance holds its own row of the batch: the :class:`EncodedBatch` and the :class:`ModelOutput`
cut to that row (``[1, ...]``), so it reads exactly as an instance of that input alone would.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields, replace

import torch

from selfexplain.core.inputs import EncodedBatch
from selfexplain.core.modeling.model import ModelOutput
from selfexplain.core.pipeline import SelfExplainer
from selfexplain.core.results.instance import Instance
from selfexplain.core.results.readout import explanation_of
from selfexplain.errors import InvalidInputError

# ModelOutput fields that are not per row: the span slots ``[S]`` shared by the batch, the loss.
SHARED_OUTPUT_FIELDS = frozenset({"span_starts", "span_ends", "loss"})


def batch_row(batch: EncodedBatch, row: int) -> EncodedBatch:
    """Row ``row`` of ``batch`` as a one-row batch (tensors ``[1, N]``, per-row lists of one)."""
    values = {f.name: getattr(batch, f.name) for f in fields(batch)}
    return replace(batch, **{k: v[row : row + 1] for k, v in values.items() if v is not None})


def output_row(output: ModelOutput, row: int) -> ModelOutput:
    """Row ``row`` of a batch forward: every per-row tensor ``[B, ...]`` cut to ``[1, ...]`` (per-layer
    tuples too); the span slots and the loss are shared and stay as they are."""
    cut: dict[str, object] = {}
    for f in fields(output):
        value = getattr(output, f.name)
        if value is None or f.name in SHARED_OUTPUT_FIELDS:
            continue
        if isinstance(value, tuple):
            cut[f.name] = tuple(layer[row : row + 1] for layer in value)
        elif isinstance(value, torch.Tensor):
            cut[f.name] = value[row : row + 1]
    return replace(output, **cut)


def batch_instances(
    explainer: SelfExplainer, texts: Sequence[str], pairs: Sequence[str] | None = None
) -> list[Instance]:
    """One :class:`Instance` per input (target: its predicted class), in input order. Inputs that fit
    one window run in batches (no attention maps); a long single text runs alone in windows."""
    for index, text in enumerate(texts):
        explainer.check_input(text, pairs[index] if pairs is not None else None)
    plan = explainer.plan(texts, pairs)
    found = {i: explainer.instance(*plan.text_of(i)) for i in plan.windows}
    for indices, batch in plan.batches:
        if not bool(batch.token_mask.any(dim=1).all()):
            raise InvalidInputError("the text has no tokens the model can read")
        output = explainer.run(batch)
        for row, index in enumerate(indices):
            inputs, result = batch_row(batch, row), output_row(output, row)
            explanation = explanation_of(inputs, result, 0, *plan.text_of(index), explainer.readout)
            found[index] = Instance(explanation, inputs, result, explanation.predicted_index)
    return [found[i] for i in range(len(texts))]
