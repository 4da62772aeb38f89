"""Auxiliary training objectives that make alpha carry the decision (docs/sharpness.md).

The paper's loss (cross-entropy minus ``lambda * sum(alpha^2)``) makes alpha sharp, but a sharp alpha can
still be decorative: every span vector may carry the class, so the model decides the same with alpha
replaced by the uniform distribution, the top span read on its own may decide differently, and the
spans alpha falls back on without its top span may still reach the same decision. Three terms aim at
exactly those failures:

- **complement**: the classifier reading *uniform* alpha (every valid span weighted alike, which for a
  sparse alpha is the complement of its few support spans up to those spans' share) should not be able
  to decide: ``KL(p_uniform || uniform over classes) = log C - H(p_uniform)``. After the complement
  control of Yu et al. (2019, "Rethinking Cooperative Rationalization").
- **sufficiency**: the model reading only the words of its top span (the other text of a pair kept)
  should reach the decision it reached on the whole input:
  ``KL(p_full || p_top)`` with ``p_full`` held fixed (after the sufficiency of DeYoung et al., 2020).
- **removal**: with the top span taken out of alpha and the normaliser re-applied to the other spans'
  scores (the ``top_out_flip`` measure of :mod:`selfexplain.lab.sharpness.measures_model`), the classifier
  should no longer reach the full input's decision ``c``: ``-log(1 - p_rest[c])`` (the comprehensiveness
  of DeYoung et al., 2020, read on alpha). Where the complement term asks the *uniform* mix to be
  undecided, this one asks it of the spans a sparse alpha falls back on, usually the top span's
  neighbours.
- **erasure** (surrogates only): the span scores should rank spans as deleting their words moves a
  *teacher*'s probability (:mod:`selfexplain.lab.distill.erasure`), so that a student whose vectors all carry
  the label still puts alpha where the input matters to the model it stands for.

All reuse the batch's own forward: the complement and removal terms rerun only the span layer on the
same token vectors; the sufficiency term encodes the top spans' words, a few tokens each.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
import torch.nn.functional as F

from selfexplain.core.inputs import EncodedBatch
from selfexplain.core.modeling.model import ModelOutput, SelfExplainingModel


def reread_log_probs(
    model: SelfExplainingModel, output: ModelOutput, valid: torch.Tensor, rows: torch.Tensor | None = None
) -> torch.Tensor:
    """Class log-probabilities ``[R, C]`` from the batch's token vectors with alpha normalised over
    ``valid`` ``[B, S]`` instead of the forward's spans (only the span layer and the classifier run
    again); ``rows`` ``[R]`` picks the rows to read (default all ``B``)."""
    assert output.span_inputs is not None and output.span_starts is not None and output.span_ends is not None
    segments = output.span_segments
    if segments is None:
        segments = torch.zeros_like(valid, dtype=torch.long)
    hidden = output.span_inputs
    if rows is not None:
        hidden, valid, segments = hidden[rows], valid[rows], segments[rows]
    spans = model.read_spans(hidden, valid, output.span_starts, output.span_ends, segments)
    return F.log_softmax(model.output(model.dropout(spans.pooled)), dim=-1)


def complement_loss(model: SelfExplainingModel, output: ModelOutput) -> torch.Tensor:
    """``log C - H(p_uniform)`` averaged over the batch, where ``p_uniform`` ``[B, C]`` is the
    prediction from the same token vectors with alpha uniform over each row's valid spans."""
    layer = model.span_layer
    assert layer is not None and output.span_valid is not None
    saved = layer.uniform, layer.normaliser
    layer.uniform, layer.normaliser = True, "softmax"  # all logits 0: the fused softmax path gives the mean
    try:
        log_probs = reread_log_probs(model, output, output.span_valid)
    finally:
        layer.uniform, layer.normaliser = saved
    entropy = -(log_probs.exp() * log_probs).sum(dim=-1)
    return (math.log(log_probs.shape[-1]) - entropy).mean()


def removal_loss(model: SelfExplainingModel, output: ModelOutput) -> torch.Tensor:
    """``-log(1 - p_rest[c])`` averaged over the rows with another valid span, where ``c`` ``[B]`` is the
    class the full output predicts and ``p_rest`` ``[B, C]`` the prediction from the same token vectors with
    each row's top span (highest alpha) out of ``valid`` and the normaliser re-applied; 0 when no row has
    a second span."""
    assert model.span_layer is not None and output.alpha is not None and output.span_valid is not None
    rows = torch.arange(output.alpha.shape[0], device=output.alpha.device)
    rest = output.span_valid.clone()
    rest[rows, output.alpha.detach().argmax(dim=1)] = False
    used = rest.any(dim=1)  # [B]
    if not used.any():
        return output.logits.sum() * 0.0
    keep = used.nonzero(as_tuple=True)[0]
    log_probs = reread_log_probs(model, output, rest, keep)  # [B', C]
    decided = output.logits.detach()[keep].argmax(dim=-1, keepdim=True)
    held = log_probs.gather(1, decided).squeeze(1).exp().clamp(max=1.0 - 1e-6)
    return -torch.log1p(-held).mean()


def top_span_inputs(
    batch: EncodedBatch,
    output: ModelOutput,
    texts: Sequence[str],
    pairs: Sequence[str] | None,
) -> tuple[list[str], list[str] | None]:
    """Each row reduced to the characters of its highest-alpha span: that text replaces its own
    segment, the other text of a pair is kept (as the sharpness measure reads it)."""
    assert output.alpha is not None and output.span_starts is not None and output.span_ends is not None
    top = output.alpha.detach().argmax(dim=1)  # [B]
    first = output.span_starts[top].tolist()
    last = output.span_ends[top].tolist()
    reduced_texts, reduced_pairs = list(texts), list(pairs) if pairs is not None else None
    for row, (i, j) in enumerate(zip(first, last)):
        segment = batch.sequence_ids[row][i] or 0
        words = (texts if segment == 0 else pairs or texts)[row][batch.offsets[row][i][0] : batch.offsets[row][j][1]]
        if segment == 1 and reduced_pairs is not None:
            reduced_pairs[row] = words
        else:
            reduced_texts[row] = words
    return reduced_texts, reduced_pairs


def sufficiency_loss(full_logits: torch.Tensor, top_logits: torch.Tensor) -> torch.Tensor:
    """``KL(p_full || p_top)`` averaged over the batch; ``p_full`` ``[B, C]`` is a fixed target."""
    target = F.softmax(full_logits.detach(), dim=-1)
    return F.kl_div(F.log_softmax(top_logits, dim=-1), target, reduction="batchmean")


def batch_effects(effects: Sequence[torch.Tensor], width: int, skip: Sequence[bool]) -> torch.Tensor:
    """``[B, width]``: each row's word-deletion effects ``[N_i]`` padded (or cut) to the batch's token
    count; rows in ``skip`` (read cut to fit, so their positions moved) are all 0 and take no part."""
    out = torch.zeros(len(effects), width)
    for row, (effect, cut) in enumerate(zip(effects, skip)):
        if not cut:
            n = min(width, len(effect))
            out[row, :n] = effect[:n]
    return out


def erasure_loss(
    model: SelfExplainingModel, output: ModelOutput, effects: torch.Tensor, temperature: float = 0.05
) -> torch.Tensor:
    """Cross-entropy from ``softmax(score / temperature)`` to ``softmax(span_logits)`` over each row's
    valid spans, where a span's ``score`` is the mean of ``effects`` ``[B, N]`` (the teacher's
    probability drop when a token's word is deleted, :mod:`selfexplain.methods.training.erasure_targets`) over its
    tokens.
    Rows where no word's deletion lowers the teacher's probability (all effects <= 0) take no part;
    0 when no row does. The span logits are read with gradient: a sparse normaliser's forward scores
    the slots without one, so they are scored again from the batch's token vectors."""
    layer = model.span_layer
    assert layer is not None and output.span_logits is not None and output.span_valid is not None
    assert output.span_starts is not None and output.span_ends is not None and output.span_inputs is not None
    starts, ends, valid = output.span_starts, output.span_ends, output.span_valid  # [S], [S], [B, S]
    logits = output.span_logits
    if torch.is_grad_enabled() and not logits.requires_grad:
        logits = layer.scores(output.span_inputs, valid, starts, ends)
    effects = effects.to(logits.device, logits.dtype)
    running = F.pad(effects.cumsum(dim=1), (1, 0))  # [B, N + 1]
    score = (running[:, ends + 1] - running[:, starts]) / (ends - starts + 1).to(effects.dtype)  # [B, S]
    target = F.softmax((score / temperature).masked_fill(~valid, float("-inf")), dim=-1)
    log_p = F.log_softmax(logits.masked_fill(~valid, float("-inf")), dim=-1)
    per_row = -(target * log_p.masked_fill(~valid, 0.0)).sum(dim=-1)  # [B]
    used = (effects.amax(dim=1) > 0) & valid.any(dim=1)
    if not used.any():
        return per_row.sum() * 0.0
    return per_row[used].mean()
