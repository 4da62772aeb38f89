"""Encoder families behind one small adapter: what differs between BERT-like encoders and decoder-only
models, so the rest of the package never asks "is there a [CLS]?".

A :class:`Family` says whether attention is causal and where a summary-vector baseline reads (the first
position, [CLS] / ``<s>``, or the last real token of a decoder); :func:`prepare_tokenizer` makes any
tokenizer pad batches (decoder-only tokenizers such as GPT-2's ship without a pad token) on the right,
where every position computation in the package expects padding. Special tokens need no entry: the tokenizer's
``sequence_ids`` already mark them, and spans only ever use real tokens.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import torch
from transformers import PretrainedConfig, PreTrainedTokenizerBase

SummaryPosition = Literal["first", "last"]

# model_type values of decoder-only families (causal attention, no [CLS]); anything else is read as a
# bidirectional encoder unless its config says it is a decoder.
DECODER_TYPES = frozenset(
    {"gpt2", "gpt_neo", "gpt_neox", "gptj", "llama", "mistral", "mixtral", "qwen2", "qwen3", "gemma", "gemma2",
     "gemma3_text", "phi", "phi3", "olmo", "olmo2", "falcon", "bloom", "opt", "smollm3", "granite"}
)  # fmt: skip


@dataclass(frozen=True)
class Family:
    """``name``: the config's ``model_type``; ``causal``: each token attends only to those before it;
    ``summary``: the position a [CLS]-style baseline head reads ("first" token, or "last" real token)."""

    name: str
    causal: bool
    summary: SummaryPosition

    def summary_vectors(self, hidden: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        """``[B, H]``: the vector a summary baseline reads from ``hidden`` ``[B, N, H]`` (right-padded,
        ``attention_mask`` ``[B, N]``): position 0, or each row's last real token for a decoder."""
        if self.summary == "first":
            return hidden[:, 0]
        last = attention_mask.long().sum(dim=1).clamp_min(1) - 1  # [B]
        return hidden[torch.arange(hidden.shape[0], device=hidden.device), last]


def prepare_tokenizer(tokenizer: PreTrainedTokenizerBase) -> PreTrainedTokenizerBase:
    """Give ``tokenizer`` a pad token when it has none (decoder tokenizers such as GPT-2's: its
    end-of-text token, else its unknown or first special token; padded positions are masked, so which
    token fills them does not matter) and pad on the right. Returns the same object."""
    if tokenizer.pad_token is None:
        fallback = tokenizer.eos_token or tokenizer.unk_token or tokenizer.bos_token
        if fallback is None and tokenizer.all_special_tokens:
            fallback = tokenizer.all_special_tokens[0]
        if fallback is None:
            raise ValueError("the tokenizer has no pad, end-of-text or unknown token to pad batches with")
        tokenizer.pad_token = fallback
    tokenizer.padding_side = "right"
    return tokenizer


def family_of(config: PretrainedConfig) -> Family:
    """The :class:`Family` of an encoder config."""
    name = str(getattr(config, "model_type", "") or "")
    decoder = name in DECODER_TYPES or bool(getattr(config, "is_decoder", False))
    return Family(name=name, causal=decoder, summary="last" if decoder else "first")
