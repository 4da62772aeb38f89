"""Load a model by name or path and explain text: ``load_model(...).explain(text, pair)``.

Shipped models live in one folder (``assets/models/NAME/``); another folder of
model directories can be named with the ``SELFEXPLAIN_MODELS_DIR`` variable.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
from transformers import PreTrainedTokenizerBase

from selfexplain.checkpoint import load_model_directory
from selfexplain.config import CONFIG_FILE, ModelConfig
from selfexplain.encoding import EncodedBatch, InputTooLongError, encode
from selfexplain.errors import InvalidInputError, UnknownModelError
from selfexplain.explanation import Explanation, Token
from selfexplain.families import prepare_tokenizer
from selfexplain.model import EncoderPrecision, ModelOutput, SelfExplainingModel
from selfexplain.windows import plan_windows

SHIPPED_MODELS_DIR = Path(__file__).resolve().parents[1] / "assets" / "models"
DEFAULT_MODEL = "sst5-minilm"
MAX_INPUT_CHARS = 20_000
MAX_SPANS = 4_000_000  # spans of one input; a 20,000-character text stays under it


def models_folders() -> list[Path]:
    """Folders searched for models by name: ``$SELFEXPLAIN_MODELS_DIR`` first, then the shipped ones."""
    extra = os.environ.get("SELFEXPLAIN_MODELS_DIR")
    return ([Path(extra)] if extra else []) + [SHIPPED_MODELS_DIR]


def available_models() -> dict[str, Path]:
    """Model name -> folder, for every model folder in :func:`models_folders`."""
    found: dict[str, Path] = {}
    for folder in reversed(models_folders()):
        if folder.is_dir():
            for config in sorted(folder.glob(f"*/{CONFIG_FILE}")):
                found[config.parent.name] = config.parent
    return found


def restricted() -> bool:
    """Shared deployments set ``SELFEXPLAIN_RESTRICT_MODELS=1``: only folders under the models folders load."""
    return os.environ.get("SELFEXPLAIN_RESTRICT_MODELS", "").lower() in ("1", "true", "yes")


def resolve_model(name_or_path: str | Path | None = None) -> Path:
    """A model folder from a shipped model's name, a folder path, or ``None`` (the default)."""
    name = str(name_or_path) if name_or_path is not None else DEFAULT_MODEL
    known = available_models()
    if name in known:
        return known[name]
    path = Path(name).expanduser()
    if path.is_dir():
        if restricted():
            allowed = [folder.resolve() for folder in models_folders()]
            if not any(path.resolve().is_relative_to(folder) for folder in allowed):
                raise UnknownModelError(f"{name!r} is outside the allowed models folders of this deployment")
        return path
    choices = ", ".join(sorted(known)) or "none installed"
    raise UnknownModelError(f"no model named {name!r} and no folder at that path (shipped models: {choices})")


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
        for label, value in (("text", text), ("second text", pair)):
            if value is None:
                continue
            if not value.strip():
                raise InvalidInputError(f"the {label} is empty")
            if len(value) > MAX_INPUT_CHARS:
                raise InvalidInputError(f"the {label} has {len(value):,} characters; the limit is {MAX_INPUT_CHARS:,}")
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
        full = encode(self.tokenizer, [text[:MAX_INPUT_CHARS]], pairs, self.max_tokens, truncate=True)
        if len(text) <= MAX_INPUT_CHARS and (pair is None or len(pair) <= MAX_INPUT_CHARS):
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

    @torch.no_grad()
    def explain_long(self, text: str) -> Explanation:
        """A single text in overlapping windows of :attr:`max_tokens` (stride from the config)."""
        self.check_input(text, None)
        plan = plan_windows(
            self.tokenizer,
            text,
            self.max_tokens,
            self.config.window_stride,
            self.config.max_span_width,
            self.config.span_unit,
        )
        if plan.span_starts.numel() > MAX_SPANS:
            raise InvalidInputError(
                f"the text has {plan.span_starts.numel():,} spans, over the limit of {MAX_SPANS:,}; shorten it "
                "or use a model with a maximum span width"
            )
        device = next(self.model.parameters()).device
        inputs = (plan.input_ids, plan.attention_mask, plan.token_mask, plan.span_starts, plan.span_ends)
        with self.lock:
            output = self.model.forward_windows(*(t.to(device) for t in inputs))
        assert output.alpha is not None
        flat_index = plan.global_index.reshape(-1).numpy()
        starts = flat_index[plan.span_starts.numpy()]
        ends = flat_index[plan.span_ends.numpy()]
        count = plan.num_tokens
        alpha = np.zeros((count, count), dtype=np.float32)  # float32: a 4,096-token text is 64 MB
        span_mask = np.zeros((count, count), dtype=bool)
        alpha[starts, ends] = output.alpha[0].float().cpu().numpy()
        span_mask[starts, ends] = True
        tokens = tuple(Token(text[a:b], a, b, 0, piece) for (a, b), piece in zip(plan.offsets, plan.pieces))
        return Explanation(
            text=text,
            pair=None,
            tokens=tokens,
            label_names=tuple(self.config.label_names),
            probabilities=torch.softmax(output.logits[0].float(), dim=-1).cpu().numpy(),
            alpha=alpha,
            span_mask=span_mask,
            model_name=self.name,
            windows=plan.window_starts,
            span_unit=self.config.span_unit,
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
