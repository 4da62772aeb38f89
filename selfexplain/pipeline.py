"""Load a model by name or path and explain text: ``load_model(...).explain(text, pair)``.

Shipped models live in one folder (``assets/models/NAME/``); another folder of
model directories can be named with the ``SELFEXPLAIN_MODELS_DIR`` variable.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
from transformers import PreTrainedTokenizerBase

from selfexplain.checkpoint import load_model_directory
from selfexplain.config import ModelConfig
from selfexplain.document import Document, WindowAttention
from selfexplain.encoding import EncodedBatch, InputTooLongError, encode
from selfexplain.errors import InvalidInputError
from selfexplain.explanation import Explanation, Token
from selfexplain.families import prepare_tokenizer
from selfexplain.limits import DEFAULT_MAX_INPUT_CHARS, DENSE_MAX_TOKENS, limit_hint, max_input_chars, max_spans
from selfexplain.model import EncoderPrecision, ModelOutput, SelfExplainingModel
from selfexplain.model_folders import (
    DEFAULT_MODEL,
    SHIPPED_MODELS_DIR,
    available_models,
    models_folders,
    resolve_model,
    restricted,
)
from selfexplain.windows import inner_size, plan_windows, tokenise, window_rows, window_starts

MAX_INPUT_CHARS = DEFAULT_MAX_INPUT_CHARS  # the default; the limit in force is max_input_chars()
# the folder helpers live in model_folders; callers import them from here
__all__ = ["DEFAULT_MODEL", "SHIPPED_MODELS_DIR", "available_models", "models_folders", "resolve_model", "restricted"]
__all__ += ["DENSE_MAX_TOKENS", "MAX_INPUT_CHARS", "SelfExplainer", "load_model", "max_input_chars", "max_spans"]


class SelfExplainer:
    """A loaded model with its tokenizer; turns text into :class:`Explanation` objects."""

    def __init__(
        self, model: SelfExplainingModel, tokenizer: PreTrainedTokenizerBase, directory: Path | None = None
    ) -> None:
        self.model = model.eval()
        self.tokenizer = prepare_tokenizer(tokenizer)  # decoder tokenizers get a pad token
        self.directory = directory
        # One model is shared by every app session: forward passes take this lock, and so must
        # any code that adds hooks or otherwise changes the model's state.
        self.lock = threading.RLock()

    @property
    def config(self) -> ModelConfig:
        return self.model.config

    @property
    def name(self) -> str:
        return self.config.name or (self.directory.name if self.directory else "model")

    @property
    def max_tokens(self) -> int:
        """The longest input in tokens, special tokens included."""
        positions = getattr(self.model.encoder.config, "max_position_embeddings", 512)
        return min(
            self.config.max_length,
            int(positions) - (2 if self.model.encoder.config.model_type in ("roberta", "xlm-roberta") else 0),
            int(getattr(self.tokenizer, "model_max_length", 0) or self.config.max_length),
        )

    def check_input(self, text: str, pair: str | None) -> None:
        """Raise :class:`InvalidInputError` for empty, over-long or mismatched inputs."""
        if self.config.head != "span":
            raise InvalidInputError(
                f"model {self.name!r} is a {self.config.head} baseline and gives no span explanation"
            )
        limit = max_input_chars()
        for label, value in (("text", text), ("second text", pair)):
            if value is None:
                continue
            if not value.strip():
                raise InvalidInputError(f"the {label} is empty")
            if len(value) > limit:
                raise InvalidInputError(
                    f"the {label} has {len(value):,} characters; the limit is {limit:,} ({limit_hint()} to raise it)"
                )
        if self.config.pair and pair is None:
            raise InvalidInputError(
                f"model {self.name!r} takes a pair of texts (premise and hypothesis); give the second text"
            )
        if not self.config.pair and pair is not None:
            raise InvalidInputError(f"model {self.name!r} takes a single text, not a pair")

    def truncate_to_fit(self, text: str, pair: str | None = None) -> tuple[str, str | None, bool]:
        """Cut ``text`` (and ``pair``) at a token boundary so the input fits :attr:`max_tokens`.

        Returns ``(text, pair, truncated)``; the cut keeps the start of each text.
        """
        pairs = [pair] if pair is not None else None
        limit = max_input_chars()
        full = encode(self.tokenizer, [text[:limit]], pairs, self.max_tokens, truncate=True)
        if len(text) <= limit and (pair is None or len(pair) <= limit):
            try:
                encode(self.tokenizer, [text], pairs, self.max_tokens, truncate=False)
                return text, pair, False
            except InputTooLongError:
                pass
        ends = {0: 0, 1: 0}
        for position, segment in enumerate(full.sequence_ids[0]):
            if segment is not None:
                ends[segment] = max(ends[segment], full.offsets[0][position][1])
        return text[: ends[0]], (pair[: ends[1]] if pair is not None else None), True

    @torch.no_grad()
    def forward(
        self, texts: Sequence[str], pairs: Sequence[str] | None = None, attentions: bool = False
    ) -> tuple[EncodedBatch, ModelOutput]:
        """Encode (refusing over-long inputs) and run the model once."""
        batch = encode(self.tokenizer, texts, pairs, self.max_tokens, truncate=False)
        if not bool(batch.token_mask.any(dim=1).all()):
            raise InvalidInputError("the text has no tokens the model can read")
        device = next(self.model.parameters()).device
        with self.lock:
            return batch, self.model(**batch.model_inputs(device), output_attentions=attentions)

    def predict(
        self, texts: Sequence[str], pairs: Sequence[str] | None = None, uniform_alpha: bool = False
    ) -> np.ndarray:
        """Predicted class index of each input ``[B]`` (long single texts in windows); with
        ``uniform_alpha`` alpha is replaced by the uniform distribution over the valid spans."""
        from selfexplain.data import Example
        from selfexplain.evaluation import predict_examples

        examples = [Example(t, pairs[i] if pairs is not None else None) for i, t in enumerate(texts)]
        layer = self.model.span_layer
        with self.lock:  # the uniform switch is model state: nobody else may run meanwhile
            saved = layer.uniform if layer is not None else False
            try:
                if layer is not None:
                    layer.uniform = saved or uniform_alpha
                result = predict_examples(
                    self.model, self.tokenizer, examples, progress=False, windows=not self.config.pair
                )
            finally:
                if layer is not None:
                    layer.uniform = saved
        return result.predicted

    def token_counts(self, texts: Sequence[str], pairs: Sequence[str] | None = None) -> list[int]:
        """Tokens of each input, special tokens included (one batched tokenizer call)."""
        if not texts:
            return []
        encoded = self.tokenizer(list(texts), list(pairs) if pairs is not None else None)["input_ids"]
        return [len(ids) for ids in encoded]

    def explain(self, text: str, pair: str | None = None, attentions: bool = True) -> Explanation:
        """Explain one input; ``attentions`` adds every layer's attention maps.

        A single text longer than the encoder's window is read in overlapping windows
        (one prediction, one alpha over the spans of all windows; no attention maps).
        """
        return self.explain_batch([text], [pair] if pair is not None else None, attentions)[0]

    def explain_batch(
        self, texts: Sequence[str], pairs: Sequence[str] | None = None, attentions: bool = False
    ) -> list[Explanation]:
        """Explain several inputs in one forward pass (long single texts in windows, one by one)."""
        for index, text in enumerate(texts):
            self.check_input(text, pairs[index] if pairs is not None else None)
        counts = self.token_counts(texts) if pairs is None else [0] * len(texts)
        long = [count > self.max_tokens for count in counts]
        results = {i: self.explain_long(texts[i]) for i, is_long in enumerate(long) if is_long}
        short = [i for i, is_long in enumerate(long) if not is_long]
        if short:
            sub_pairs = [pairs[i] for i in short] if pairs is not None else None
            batch, output = self.forward([texts[i] for i in short], sub_pairs, attentions)
            for b, i in enumerate(short):
                results[i] = self._explanation(batch, output, b, texts[i], pairs[i] if pairs else None)
        return [results[i] for i in range(len(texts))]

    def explain_long(self, text: str) -> Explanation:
        """A single text in overlapping windows of :attr:`max_tokens` (stride from the config), as a
        dense :class:`Explanation` (the :class:`Document` of :meth:`explain_document`, made dense);
        refused over :data:`~selfexplain.limits.DENSE_MAX_TOKENS` tokens."""
        return self._windowed(text, dense=True).explanation()

    def explain_document(self, text: str) -> Document:
        """A single text of any length up to the character limit, read in overlapping windows of
        :attr:`max_tokens` (stride from the config), with its spans kept sparse (see :class:`Document`)."""
        return self._windowed(text, dense=False)

    @torch.no_grad()
    def _windowed(self, text: str, dense: bool) -> Document:
        """The one route for windowed texts: plan the windows, check the sizes, one forward, a Document."""
        self.check_input(text, None)
        plan = plan_windows(
            self.tokenizer,
            text,
            self.max_tokens,
            self.config.window_stride,
            self.config.max_span_width,
            self.config.span_unit,
        )
        if dense and plan.num_tokens > DENSE_MAX_TOKENS:
            raise InvalidInputError(
                f"the text has {plan.num_tokens:,} tokens; a dense explanation stops at {DENSE_MAX_TOKENS:,} "
                "(explain_document keeps long texts sparse)"
            )
        if plan.num_spans > max_spans():
            raise InvalidInputError(
                f"the text has {plan.num_spans:,} spans, over the limit of {max_spans():,}; shorten it, "
                f"use a model with a maximum span width, or raise the character limit ({limit_hint()})"
            )
        if plan.num_spans == 0:
            raise InvalidInputError("the text has no tokens the model can read")
        device = next(self.model.parameters()).device
        inputs = (plan.input_ids, plan.attention_mask, plan.token_mask, plan.span_starts, plan.span_ends)
        with self.lock, self.model.fused_attention():  # no attention maps are needed here
            output = self.model.forward_windows(*(t.to(device) for t in inputs))
        assert output.alpha is not None
        first, last = plan.span_tokens()
        return Document(
            text=text,
            tokens=tuple(Token(text[a:b], a, b, 0, piece) for (a, b), piece in zip(plan.offsets, plan.pieces)),
            label_names=tuple(self.config.label_names),
            probabilities=torch.softmax(output.logits[0].float(), dim=-1).cpu().numpy(),
            window_starts=plan.window_starts,
            window_size=plan.inner,
            starts=first,
            ends=last,
            alpha=output.alpha[0].float().cpu().numpy(),
            model_name=self.name,
            span_unit=self.config.span_unit,
        )

    def window_count(self, text: str) -> int:
        """How many encoder windows a single text needs (1 when it fits one); one tokenizer call."""
        count = len(self.tokenizer(text, add_special_tokens=False)["input_ids"])
        inner = inner_size(self.tokenizer, self.max_tokens)
        return len(window_starts(count, inner, min(self.config.window_stride, inner)))

    @torch.no_grad()
    def window_attentions(self, text: str, window_start: int) -> WindowAttention:
        """Every layer's raw self-attention over the window of ``text`` that starts at token
        ``window_start`` (one of :attr:`Document.window_starts`), from one forward of that window alone."""
        self.check_input(text, None)
        tokens = tokenise(self.tokenizer, text)
        inner = inner_size(self.tokenizer, self.max_tokens)
        if not 0 <= window_start < max(1, len(tokens.ids)):
            raise InvalidInputError(f"no window starts at token {window_start}; the text has {len(tokens.ids)} tokens")
        input_ids, attention, token_mask, global_index = window_rows(self.tokenizer, tokens.ids, [window_start], inner)
        real, slot = global_index >= 0, global_index.clamp_min(0)  # word ends come from the whole text's words
        word_start = real & torch.from_numpy(tokens.word_start)[slot]
        word_end = real & torch.from_numpy(tokens.word_end)[slot]
        device = next(self.model.parameters()).device
        inputs = {
            "input_ids": input_ids, "attention_mask": attention, "token_mask": token_mask,
            "segment_ids": torch.zeros_like(input_ids), "word_start": word_start, "word_end": word_end,
        }  # fmt: skip
        with self.lock:
            output = self.model(**{k: v.to(device) for k, v in inputs.items()}, output_attentions=True)
        if not output.attentions:
            raise InvalidInputError(f"the encoder of model {self.name!r} does not return attention maps")
        maps = torch.stack([layer[0] for layer in output.attentions]).float().cpu().numpy()
        return WindowAttention(
            start=window_start,
            tokens=tuple(self.tokenizer.convert_ids_to_tokens(input_ids[0].tolist())),
            token_index=global_index[0].numpy(),
            attentions=maps,
        )

    def _explanation(
        self, batch: EncodedBatch, output: ModelOutput, b: int, text: str, pair: str | None
    ) -> Explanation:
        assert output.alpha is not None and output.span_valid is not None
        mask = batch.token_mask[b].numpy()
        positions = np.nonzero(mask)[0]
        count = len(positions)
        index_of = np.full(mask.shape[0], -1)
        index_of[positions] = np.arange(count)
        valid = output.span_valid[b].cpu().numpy()
        starts = index_of[output.span_starts.cpu().numpy()[valid]]
        ends = index_of[output.span_ends.cpu().numpy()[valid]]
        alpha = np.zeros((count, count), dtype=np.float64)
        span_mask = np.zeros((count, count), dtype=bool)
        alpha[starts, ends] = output.alpha[b].cpu().double().numpy()[valid]
        span_mask[starts, ends] = True
        sources = (text, pair or "")
        tokens = []
        for p in positions.tolist():
            segment = int(batch.segment_ids[b, p])
            start, end = batch.offsets[b][p]
            tokens.append(Token(sources[segment][start:end], start, end, segment, batch.tokens[b][p]))
        length = int(batch.attention_mask[b].sum())
        maps = None
        if output.attentions:  # None, or empty when the encoder cannot return attention maps
            maps = torch.stack([layer[b, :, :length, :length] for layer in output.attentions]).float().cpu().numpy()
        return Explanation(
            text=text,
            pair=pair,
            tokens=tuple(tokens),
            label_names=tuple(self.config.label_names),
            probabilities=torch.softmax(output.logits[b].float(), dim=-1).cpu().numpy(),
            alpha=alpha,
            span_mask=span_mask,
            model_name=self.name,
            attention_tokens=tuple(batch.tokens[b][:length]),
            token_positions=positions,
            attentions=maps,
            span_unit=self.config.span_unit,
        )


def load_model(
    name_or_path: str | Path | None = None, fused: bool = True, precision: EncoderPrecision = "float32"
) -> SelfExplainer:
    """Load a shipped model by name (default ``sst5-minilm``) or a model folder.

    ``fused`` runs the span layer as native kernels (:mod:`selfexplain.native_spans`; built
    with the C compiler in about a second on first use and cached), 5-30x faster than eager;
    ``fused=False`` (or ``SELFEXPLAIN_FUSED=0``, or no compiler) runs it in eager PyTorch.
    ``precision="bfloat16"`` runs the encoder in bf16 autocast (faster on CPUs with bf16
    instructions; predictions can differ from float32 on borderline inputs).
    """
    directory = resolve_model(name_or_path)
    model, tokenizer = load_model_directory(directory)
    model.set_fused(fused)
    model.set_encoder_precision(precision)
    return SelfExplainer(model, tokenizer, directory)
