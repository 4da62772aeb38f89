"""The Self-Explaining classifier (Sun et al., 2020) over any Hugging Face encoder.

encoder -> token vectors ``[B, N, H]`` -> span layer (SIC + interpretation)
-> alpha-weighted span vector ``[B, H]`` -> output layer -> logits ``[B, C]``.
The same class holds the plain baselines (``head="cls"`` / ``"mean"``) so both
are trained, saved and evaluated by one code path.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Literal

import torch
import torch.nn.functional as F
from torch import nn
from transformers import PreTrainedModel

from selfexplain.core.modeling.config import ModelConfig
from selfexplain.core.modeling.encoders import load_encoder
from selfexplain.core.modeling.families import cut_encoder, family_of
from selfexplain.core.modeling.read_out import read_out_layer
from selfexplain.core.modeling.spans import SpanLayer, SpanLayerOutput, span_index, span_validity

EncoderPrecision = Literal["float32", "bfloat16"]
WINDOW_GROUP = 8  # windows encoded together by forward_windows without gradients


@dataclass(frozen=True)
class ModelOutput:
    """One forward pass.

    logits ``[B, C]``; for the span head, alpha/span_logits/span_valid ``[B, S]``
    over the slots ``span_starts``/``span_ends`` ``[S]`` (positions in the
    encoder's sequence); attentions: per layer ``[B, heads, N, N]``;
    hidden_states: per layer (embeddings first) ``[B, N, H]``; span_inputs: the
    token vectors the span layer read ``[B, N, H]`` (windows: ``[1, Wn * n, H]``,
    the slots of ``span_starts``); span_segments ``[B, S]`` the text (0/1) each slot lies in;
    loss a scalar when labels were given.
    """

    logits: torch.Tensor
    alpha: torch.Tensor | None = None
    span_logits: torch.Tensor | None = None
    span_valid: torch.Tensor | None = None
    span_starts: torch.Tensor | None = None
    span_ends: torch.Tensor | None = None
    attentions: tuple[torch.Tensor, ...] | None = None
    hidden_states: tuple[torch.Tensor, ...] | None = None
    span_inputs: torch.Tensor | None = None
    span_segments: torch.Tensor | None = None
    loss: torch.Tensor | None = None


def sparsity_loss(
    logits: torch.Tensor, labels: torch.Tensor, alpha: torch.Tensor | None, lambda_: float
) -> torch.Tensor:
    """``CE - lambda * sum(alpha^2)``, averaged over the batch (alpha ``[B, S]``)."""
    loss = F.cross_entropy(logits, labels)
    if alpha is not None and lambda_:
        loss = loss - lambda_ * alpha.pow(2).sum(dim=1).mean()
    return loss


class SelfExplainingModel(nn.Module):
    """Encoder + span layer + output layer; see the module docstring."""

    def __init__(self, config: ModelConfig, encoder: PreTrainedModel | None = None, pretrained: bool = True) -> None:
        super().__init__()
        self.config = config
        self.encoder = encoder if encoder is not None else load_encoder(config.encoder, pretrained=pretrained)
        hidden = self.encoder.config.hidden_size
        self.family = family_of(self.encoder.config)
        layers = int(self.encoder.config.num_hidden_layers)
        # the hidden state the head reads, 0..layers (ValueError for one the encoder does not have)
        self.read_layer = read_out_layer(config.encoder_layer, layers)
        if config.encoder_layer < -1:  # a negative index counts from the uncut top; after the cut it would not
            config.encoder_layer = self.read_layer
        # the encoder runs only as far as the head reads: layers above read_layer are never computed nor kept
        # (decoders are left whole: their last hidden state passes a final norm the middle ones do not)
        self.dropped_layers = () if self.family.causal else cut_encoder(self.encoder, max(self.read_layer, 1))
        self.span_layer = SpanLayer(hidden, config.span_representation) if config.head == "span" else None
        if self.span_layer is not None:
            self.span_layer.uniform = config.uniform_alpha
            self.span_layer.normaliser = config.normaliser  # type: ignore[assignment]
            self.span_layer.length_prior = config.span_length_prior
        # True on the token ids a span may not start or end on ([vocab]; None when any may)
        table = None
        if config.punctuation_ids:
            size = max(int(self.encoder.config.vocab_size), max(config.punctuation_ids) + 1)
            table = torch.zeros(size, dtype=torch.bool)
            table[torch.tensor(config.punctuation_ids)] = True
        self.punctuation: torch.Tensor | None
        self.register_buffer("punctuation", table, persistent=False)
        self.dropout = nn.Dropout(config.dropout)
        # per-segment alpha: the classifier reads the premise's and the hypothesis's weighted sums side by side
        self.output = nn.Linear(hidden * (2 if config.segment_alpha else 1), config.num_labels)
        self.encoder_precision: EncoderPrecision = "float32"

    def set_encoder_precision(self, precision: EncoderPrecision) -> None:
        """Run the encoder in ``"float32"`` (exact) or ``"bfloat16"`` autocast (about 2x faster on CPUs
        with bf16 instructions, hidden states within ~0.2 of float32); the span layer and output
        layer always run in float32."""
        if precision not in ("float32", "bfloat16"):
            raise ValueError(f"unknown encoder precision {precision!r}; use float32 or bfloat16")
        self.encoder_precision = precision

    def set_fused(self, enabled: bool) -> None:
        """Run the span layer as native kernels (see :mod:`selfexplain.core.modeling.native_spans`) or eager."""
        if self.span_layer is not None:
            self.span_layer.fused = enabled

    @contextmanager
    def fused_attention(self) -> Iterator[None]:
        """Within the block the encoder runs PyTorch's fused attention ("sdpa": faster and no
        ``[heads, n, n]`` probabilities kept, so no attention maps either; hidden states agree to ~1e-6),
        where the encoder supports it; its own implementation comes back afterwards. This changes model
        state: hold the model (:meth:`selfexplain.core.pipeline.SelfExplainer.exclusive`)."""
        config = self.encoder.config
        current = getattr(config, "_attn_implementation", None)
        switched = False
        if current not in (None, "sdpa") and hasattr(self.encoder, "set_attn_implementation"):
            try:
                self.encoder.set_attn_implementation("sdpa")
                switched = True
            except (ValueError, ImportError):  # this architecture has no fused attention
                pass
        try:
            yield
        finally:
            if switched:
                self.encoder.set_attn_implementation(current)

    def _encode(self, attention_mask: torch.Tensor, **inputs: object) -> object:
        """The encoder's output, under bf16 autocast when :attr:`encoder_precision` asks for it."""
        reduced = self.encoder_precision == "bfloat16"
        with torch.autocast(attention_mask.device.type, dtype=torch.bfloat16, enabled=reduced):
            return self.encoder(attention_mask=attention_mask, return_dict=True, **inputs)

    def read_spans(
        self, hidden: torch.Tensor, valid: torch.Tensor, starts: torch.Tensor, ends: torch.Tensor,
        segments: torch.Tensor,
    ) -> SpanLayerOutput:  # fmt: skip
        """The span layer over ``hidden`` ``[B, N, H]``: ``pooled`` ``[B, H]`` (``[B, 2H]`` with per-segment
        alpha), ``logits`` and ``alpha`` ``[B, S]``. ``segments`` ``[B, S]``: the text of each slot.

        With ``config.segment_alpha`` the normaliser runs once per text, and each text present holds an
        equal share of alpha (1/2 each for a pair), so ``alpha`` still sums to 1 and
        ``logits = sum_s alpha_s * W_text(s) h_s / share(text(s)) + b`` stays linear in alpha."""
        assert self.span_layer is not None
        if not self.config.segment_alpha:
            return self.span_layer(hidden, valid, starts, ends)
        sides = [valid & (segments == side) for side in (0, 1)]  # two texts, not a loop over spans
        present = torch.stack([side.any(dim=1) for side in sides], dim=1)  # [B, 2]
        shares = present.to(hidden.dtype) / present.sum(dim=1, keepdim=True).clamp_min(1)
        # a row without spans on one side normalises that side over all its spans; the side is then zeroed
        masks = torch.stack([torch.where(present[:, i : i + 1], side, valid) for i, side in enumerate(sides)])
        parts = self.span_layer.forward_per_text(hidden, masks, starts, ends)
        keep = [present[:, i : i + 1].to(hidden.dtype) for i in (0, 1)]
        alpha = parts[0].alpha * shares[:, :1] * keep[0] + parts[1].alpha * shares[:, 1:] * keep[1]
        pooled = torch.cat([parts[0].pooled * keep[0], parts[1].pooled * keep[1]], dim=-1)
        logits = torch.where(sides[0], parts[0].logits, parts[1].logits)
        return SpanLayerOutput(pooled=pooled, logits=logits, alpha=alpha)

    def _word_edges(
        self, input_ids: torch.Tensor, valid: torch.Tensor, starts: torch.Tensor, ends: torch.Tensor,
        segments: torch.Tensor,
    ) -> torch.Tensor:  # fmt: skip
        """``valid`` ``[B, S]`` less the spans that start or end on a punctuation id (``input_ids`` ``[B, N]``,
        ``segments`` ``[B, S]`` the text of each slot); a text left with no span keeps all of its own."""
        if self.punctuation is None:
            return valid
        blocked = self.punctuation[input_ids.clamp(0, self.punctuation.numel() - 1)]  # [B, N]
        kept = valid & ~blocked[:, starts] & ~blocked[:, ends]
        side = segments.clamp(0, 1)
        has = torch.stack([(kept & (side == text)).any(dim=1) for text in (0, 1)], dim=1)  # [B, 2]
        return torch.where(has.gather(1, side), kept, valid)

    @property
    def num_encoder_layers(self) -> int:
        """The encoder layers this model runs: exactly those on the path to the decision (1..k for a head that
        reads hidden state k)."""
        return int(self.encoder.config.num_hidden_layers)

    def _read(self, out: object) -> torch.Tensor:
        """The hidden state the head reads, ``[B, N, H]`` float32, from an encoder output."""
        if self.read_layer == self.num_encoder_layers:
            return out.last_hidden_state.float()  # type: ignore[attr-defined]
        return out.hidden_states[self.read_layer].float()  # type: ignore[attr-defined]

    @property
    def _needs_states(self) -> bool:
        return self.read_layer != self.num_encoder_layers

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        token_mask: torch.Tensor,
        segment_ids: torch.Tensor,
        token_type_ids: torch.Tensor | None = None,
        labels: torch.Tensor | None = None,
        output_attentions: bool = False,
        output_hidden_states: bool = False,
        inputs_embeds: torch.Tensor | None = None,
        word_start: torch.Tensor | None = None,
        word_end: torch.Tensor | None = None,
    ) -> ModelOutput:
        """Inputs ``[B, N]``: ids, attention mask, ``token_mask`` (True on real tokens,
        False on special tokens and padding) and ``segment_ids`` (0/1 for pair texts);
        ``word_start``/``word_end`` (True on a word's first / last piece) are required by
        word-level models (``config.span_unit == "word"``) and ignored by piece-level ones.

        ``inputs_embeds`` ``[B, N, H]`` replaces the word embeddings of ``input_ids``
        (for gradient explainers); position and type embeddings are still added.
        """
        need_states = output_hidden_states or self._needs_states
        encoder_args: dict[str, torch.Tensor] = {"attention_mask": attention_mask}
        if inputs_embeds is not None:
            encoder_args["inputs_embeds"] = inputs_embeds
        else:
            encoder_args["input_ids"] = input_ids
        if token_type_ids is not None and getattr(self.encoder.config, "type_vocab_size", 0) > 1:
            encoder_args["token_type_ids"] = token_type_ids
        out = self._encode(**encoder_args, output_attentions=output_attentions, output_hidden_states=need_states)
        hidden = self._read(out)
        extras: dict[str, object] = {
            "attentions": tuple(a.float() for a in out.attentions) if output_attentions else None,
            "hidden_states": tuple(h.float() for h in out.hidden_states) if output_hidden_states else None,
        }
        alpha = None
        if self.span_layer is not None:
            starts, ends = span_index(hidden.shape[1], self.config.max_span_width, hidden.device)
            if self.config.span_unit == "word":
                if word_start is None or word_end is None:
                    raise ValueError("a word-level model needs word_start and word_end (see selfexplain.core.inputs)")
                valid = span_validity(token_mask, segment_ids, starts, ends, word_start, word_end)
            else:
                valid = span_validity(token_mask, segment_ids, starts, ends)
            segments = segment_ids[:, starts]
            valid = self._word_edges(input_ids, valid, starts, ends, segments)
            spans = self.read_spans(hidden, valid, starts, ends, segments)
            pooled, alpha = spans.pooled, spans.alpha
            extras.update(alpha=alpha, span_logits=spans.logits, span_valid=valid, span_starts=starts, span_ends=ends)
            extras.update(span_inputs=hidden, span_segments=segments)
        elif self.config.head == "cls":
            pooled = self.family.summary_vectors(hidden, attention_mask)
        else:
            weights = token_mask.to(hidden.dtype).unsqueeze(-1)
            pooled = (hidden * weights).sum(dim=1) / weights.sum(dim=1).clamp_min(1.0)
        logits = self.output(self.dropout(pooled))
        loss = sparsity_loss(logits, labels, alpha, self.config.lambda_) if labels is not None else None
        return ModelOutput(logits=logits, loss=loss, **extras)  # type: ignore[arg-type]

    def forward_windows(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        token_mask: torch.Tensor,
        span_starts: torch.Tensor,
        span_ends: torch.Tensor,
        labels: torch.Tensor | None = None,
    ) -> ModelOutput:
        """One long text as ``Wn`` encoder windows ``[Wn, n]``; one prediction ``[1, C]``.

        ``span_starts``/``span_ends`` ``[S]`` are flat slot positions ``w * n + p``
        (see :mod:`selfexplain.core.inputs.windows`): every window's token vectors are laid
        end to end and all spans share one softmax and one weighted sum.
        """
        # Without gradients the windows are encoded a group at a time: a long document's windows at
        # once would hold every window's [heads, n, n] attention scores together (GBs at 100+ windows).
        group = WINDOW_GROUP if not torch.is_grad_enabled() else input_ids.shape[0]
        states = []
        for lo in range(0, input_ids.shape[0], group):
            out = self._encode(
                input_ids=input_ids[lo : lo + group],
                attention_mask=attention_mask[lo : lo + group],
                output_hidden_states=self._needs_states,
            )
            states.append(self._read(out))
        hidden = torch.cat(states) if len(states) > 1 else states[0]  # [Wn, n, H]
        alpha, extras = None, {}
        if self.span_layer is not None:
            flat = hidden.reshape(1, -1, hidden.shape[-1])
            valid = torch.ones(1, span_starts.numel(), dtype=torch.bool, device=hidden.device)
            flat_ids = input_ids.reshape(1, -1)
            valid = self._word_edges(flat_ids, valid, span_starts, span_ends, torch.zeros_like(valid, dtype=torch.long))
            spans = self.span_layer(flat, valid, span_starts, span_ends)
            pooled, alpha = spans.pooled, spans.alpha
            extras = {"alpha": alpha, "span_logits": spans.logits, "span_valid": valid, "span_inputs": flat}
            extras.update(span_starts=span_starts, span_ends=span_ends)
        elif self.config.head == "cls":
            pooled = self.family.summary_vectors(hidden, attention_mask).mean(dim=0, keepdim=True)
        else:
            weights = token_mask.to(hidden.dtype).unsqueeze(-1)
            pooled = ((hidden * weights).sum(dim=(0, 1)) / weights.sum().clamp_min(1.0)).unsqueeze(0)
        logits = self.output(self.dropout(pooled))
        loss = sparsity_loss(logits, labels, alpha, self.config.lambda_) if labels is not None else None
        return ModelOutput(logits=logits, loss=loss, **extras)  # type: ignore[arg-type]
