"""Encoder families behind one small adapter: what differs between BERT-like encoders and decoder-only
models, so the rest of the package never asks "is there a [CLS]?".

A :class:`Family` says whether attention is causal, where a summary-vector baseline reads (the first
position, [CLS] / ``<s>``, or the last real token of a decoder) and how many position embeddings an input may
use (RoBERTa's start after its padding index); it also holds the package's rules on tokenizer pieces: which
pieces are only whitespace (byte-level BPE's lone "Ġ") and what a piece is without its sub-word marker
("##", "Ġ", "▁"). :func:`prepare_tokenizer` makes any tokenizer pad batches (decoder-only tokenizers such as
GPT-2's ship without a pad token) on the right, where every position computation in the package expects
padding. Special tokens need no entry: the tokenizer's ``sequence_ids`` already mark them, and spans only ever
use real tokens.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import torch
from transformers import PretrainedConfig, PreTrainedTokenizerBase

from selfexplain.support.registry import Registry

SummaryPosition = Literal["first", "last"]

# model_type values of decoder-only families (causal attention, no [CLS]); anything else is read as a
# bidirectional encoder unless its config says it is a decoder.
DECODER_TYPES = frozenset(
    {"gpt2", "gpt_neo", "gpt_neox", "gptj", "llama", "mistral", "mixtral", "qwen2", "qwen3", "gemma", "gemma2",
     "gemma3_text", "phi", "phi3", "olmo", "olmo2", "falcon", "bloom", "opt", "smollm3", "granite"}
)  # fmt: skip
# model_type values whose position ids start after the padding index (RoBERTa's and MPNet's ``padding_idx + 1``,
# with ``padding_idx`` 1): the first POSITION_OFFSET position embeddings never hold an input's token.
OFFSET_POSITION_TYPES = frozenset({"roberta", "xlm-roberta", "mpnet"})
POSITION_OFFSET = 2
# Sub-word markers of the supported tokenizers, stripped in this order (see Family.strip_markers):
# WordPiece's continuation "##" (BERT), then byte-level BPE's "Ġ" (RoBERTa, GPT-2) and SentencePiece's "▁"
# (XLM-R, DeBERTa-v2, Llama) word starts.
CONTINUATION_MARKER = "#"
WORD_START_MARKERS = "Ġ▁"


@dataclass(frozen=True)
class Family:
    """``name``: the config's ``model_type``; ``causal``: each token attends only to those before it;
    ``summary``: the position a [CLS]-style baseline head reads ("first" token, or "last" real token);
    ``position_offset``: position embeddings before the first one an input uses (2 for RoBERTa, else 0).

    The piece rules (:meth:`blank_pieces`, :meth:`strip_markers`) are the same for every family and are
    static: a vocabulary is not tied to the model type (a RoBERTa can be trained over a WordPiece vocabulary),
    and the input layer, which only holds a tokenizer, asks them without a model."""

    name: str
    causal: bool
    summary: SummaryPosition
    position_offset: int = 0

    def usable_positions(self, config: PretrainedConfig) -> int:
        """Positions one input may fill, special tokens included: the config's ``max_position_embeddings``
        (512 when it has none) less :attr:`position_offset`."""
        return int(getattr(config, "max_position_embeddings", 512)) - self.position_offset

    @staticmethod
    def blank_pieces(offsets: Sequence[tuple[int, int]]) -> np.ndarray:
        """``[N]`` bool: the pieces that keep no character once their leading whitespace is left out of their
        character ``offsets`` ``[N]`` (see :func:`selfexplain.core.inputs.encoding.trim_offsets`): a piece that is
        only whitespace, such as byte-level BPE's lone "Ġ" from a double space, and special tokens and padding
        (offsets ``(0, 0)``). A blank piece is no word: no span starts or ends on it."""
        row = np.asarray(offsets, dtype=np.int64).reshape(-1, 2)
        return row[:, 0] >= row[:, 1]

    @staticmethod
    def strip_markers(piece: str) -> str:
        """``piece`` without its sub-word markers: every leading "#" (WordPiece's "##"), then every leading
        "Ġ" or "▁" (a word start). A piece made only of markers ("#", "##", a lone "Ġ") becomes ""."""
        return piece.lstrip(CONTINUATION_MARKER).lstrip(WORD_START_MARKERS)

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


# The families known by model_type (a Registry, filled from the two sets above): any other model_type is read
# as a bidirectional encoder that reads position 0, or as a decoder when its config says it is one.
FAMILIES: Registry[Family] = Registry("encoder family")


def register_family(family: Family) -> Family:
    """Add ``family`` under its ``name`` (a ``model_type``), which :func:`family_of` then reads."""
    return FAMILIES.register(family.name, family)


for _name in sorted(DECODER_TYPES):
    register_family(Family(_name, causal=True, summary="last"))
for _name in sorted(OFFSET_POSITION_TYPES):
    register_family(Family(_name, causal=False, summary="first", position_offset=POSITION_OFFSET))


def family_of(config: PretrainedConfig) -> Family:
    """The :class:`Family` of an encoder config: its registered family's, causal also when the config says it
    is a decoder."""
    name = str(getattr(config, "model_type", "") or "")
    known = FAMILIES.get(name, None)
    decoder = bool(known is not None and known.causal) or bool(getattr(config, "is_decoder", False))
    offset = known.position_offset if known is not None else 0
    return Family(name=name, causal=decoder, summary="last" if decoder else "first", position_offset=offset)


# Where each architecture keeps its stack of layers (BERT, RoBERTa, MPNet: encoder.layer; DistilBERT:
# transformer.layer; GPT-2: h; Llama and most decoders: layers).
LAYER_STACKS = ("encoder.layer", "transformer.layer", "h", "layers")


def layer_stack(encoder: torch.nn.Module) -> tuple[str, torch.nn.ModuleList] | None:
    """The first of :data:`LAYER_STACKS` that names a :class:`~torch.nn.ModuleList` in ``encoder``: its path and
    the list (``[L]`` layers); None when none does."""
    for path in LAYER_STACKS:
        try:
            stack = encoder.get_submodule(path)
        except AttributeError:  # no submodule there
            continue
        if isinstance(stack, torch.nn.ModuleList):
            return path, stack
    return None


def cut_encoder(encoder: torch.nn.Module, keep: int) -> tuple[str, ...]:
    """Drop every layer above the first ``keep`` of ``encoder`` (in place) and set its config's
    ``num_hidden_layers`` to match. Returns the dropped layers' module names (e.g. ``"encoder.layer.3"``), so a
    loader can skip their saved weights; empty when nothing is above ``keep`` or the architecture keeps its layers
    somewhere this function does not know (it then runs whole, which gives the same output, only slower)."""
    found = layer_stack(encoder)
    if found is None:
        return ()
    path, stack = found
    depth = len(stack)
    if keep >= depth:
        return ()
    dropped = tuple(f"{path}.{i}" for i in range(keep, depth))
    del stack[keep:]
    encoder.config.num_hidden_layers = keep
    return dropped
