"""Load a model by name or path and explain text: ``load_model(...).explain(text, pair)``.

Shipped models live in one folder (``assets/models/NAME/``); another folder of
model directories can be named with the ``SELFEXPLAIN_MODELS_DIR`` variable.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from pathlib import Path

import numpy as np
import torch
from tqdm.auto import tqdm
from transformers import PreTrainedTokenizerBase

from selfexplain.core.inputs import (
    EncodedBatch,
    InputPlan,
    LongInputs,
    TokenisedText,
    WindowPlan,
    WindowSettings,
    inner_size,
    plan_inputs,
    plan_tokens,
    tokenise,
    tokenise_inputs,
    window_starts,
)
from selfexplain.core.inputs.tokens import fit_text
from selfexplain.core.inputs.windows import check_plan, single_window
from selfexplain.core.modeling.checkpoint import load_model_directory
from selfexplain.core.modeling.config import ModelConfig
from selfexplain.core.modeling.families import prepare_tokenizer
from selfexplain.core.modeling.model import EncoderPrecision, ModelOutput, SelfExplainingModel
from selfexplain.core.modeling.model_folders import (
    DEFAULT_MODEL,
    SHIPPED_MODELS_DIR,
    available_models,
    models_folders,
    resolve_model,
    restricted,
)
from selfexplain.core.results.document import Document, WindowAttention
from selfexplain.core.results.explanation import Explanation
from selfexplain.core.results.instance import Instance
from selfexplain.core.results.readout import ReadoutInfo, document_of, explanation_of
from selfexplain.data import Example
from selfexplain.errors import InvalidInputError
from selfexplain.support.limits import DEFAULT_MAX_INPUT_CHARS, DENSE_MAX_TOKENS, limit_hint, max_input_chars, max_spans

MAX_INPUT_CHARS = DEFAULT_MAX_INPUT_CHARS  # the default; the limit in force is max_input_chars()
# the folder helpers live in model_folders; callers import them from here
__all__ = ["DEFAULT_MODEL", "SHIPPED_MODELS_DIR", "available_models", "models_folders", "resolve_model", "restricted"]
__all__ += ["DENSE_MAX_TOKENS", "MAX_INPUT_CHARS", "SelfExplainer", "load_model", "max_input_chars", "max_spans"]


class SelfExplainer:
    """A loaded model with its tokenizer; turns text into :class:`Explanation` objects.

    :meth:`run` is the only place in the package that calls the model (training, which trains a
    model object of its own, aside): every forward pass holds the model there, through :meth:`exclusive`,
    the one way to hold it."""

    def __init__(
        self, model: SelfExplainingModel, tokenizer: PreTrainedTokenizerBase, directory: Path | None = None
    ) -> None:
        self.model = model.eval()
        self.tokenizer = prepare_tokenizer(tokenizer)  # decoder tokenizers get a pad token
        self.directory = directory
        self._checked_name: tuple[str, str] | None = None  # (config name, the name it stands for)
        # One model is shared by every app session: take it through exclusive(), never this lock directly.
        self.lock = threading.RLock()

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold the model alone for the ``with`` block: the one way to hold it (re-entrant, so a holder may
        call :meth:`run`, which holds it too).

        One loaded explainer is shared by every Streamlit session (the app caches it across sessions,
        each session runs its script in its own thread) and by any other threads of a caller. The model
        has state beyond its weights: captum's hooks (integrated gradients, DeepLift), the span layer's
        cached projection weights, gradients kept through a backward pass, the fused-attention switch of
        windowed reads. Every forward pass holds the model (:meth:`run`), and so must any code that adds
        hooks, changes that state or runs a backward pass, for as long as it does, so that no other
        session's forward pass sees the model half-changed or adds its own hooks' outputs."""
        with self.lock:
            yield

    @property
    def config(self) -> ModelConfig:
        return self.model.config

    @property
    def name(self) -> str:
        """The model's name: its config's ``name``, unless that is the name of another model of the models
        folders (a folder cannot pass itself off as a shipped model: pins and the sidebar would credit the
        wrong one), then the name of its folder; ``"model"`` when it has neither."""
        claimed = self.config.name
        if self.directory is None:
            return claimed or "model"
        own = self.directory.name
        if not claimed or claimed == own:
            return own
        if self._checked_name is None or self._checked_name[0] != claimed:  # checked once per claimed name
            other = available_models().get(claimed)
            taken = other is not None and other.resolve() != self.directory.resolve()
            self._checked_name = (claimed, own if taken else claimed)
        return self._checked_name[1]

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    @property
    def max_tokens(self) -> int:
        """The longest input in tokens, special tokens included."""
        return min(
            self.config.max_length,
            self.model.family.usable_positions(self.model.encoder.config),
            int(getattr(self.tokenizer, "model_max_length", 0) or self.config.max_length),
        )

    @property
    def window_settings(self) -> WindowSettings:
        """How this model lays out a long text: its window stride, span width and span unit."""
        return WindowSettings.of(self.config)

    @property
    def readout(self) -> ReadoutInfo:
        return ReadoutInfo(tuple(self.config.label_names), self.name, self.config.span_unit)

    def check_text(self, text: str, pair: str | None) -> None:
        """Raise :class:`InvalidInputError` for empty, over-long or mismatched inputs (any head)."""
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
        if self.config.pair != (pair is not None):
            wanted = "a pair of texts (premise and hypothesis); give the second text" if self.config.pair else None
            raise InvalidInputError(f"model {self.name!r} takes {wanted or 'a single text, not a pair'}")

    def check_input(self, text: str, pair: str | None) -> None:
        """:meth:`check_text`, and refuse a baseline head (it gives no span explanation)."""
        if self.config.head != "span":
            raise InvalidInputError(
                f"model {self.name!r} is a {self.config.head} baseline and gives no span explanation"
            )
        self.check_text(text, pair)

    def run(
        self,
        inputs: EncodedBatch | WindowPlan | Mapping[str, torch.Tensor],
        attentions: bool = False,
        hidden_states: bool = False,
        grad: bool = False,
        embeds: torch.Tensor | None = None,
    ) -> ModelOutput:
        """The one forward pass of the package, holding the model (:meth:`exclusive`).

        ``inputs``: a batch ``[B, N]`` (an :class:`EncodedBatch` or the model's keyword tensors), or
        the :class:`WindowPlan` of one long text (read with fused attention: no attention maps or
        hidden states). ``embeds`` ``[K, N, H]`` replaces the word embeddings of a one-row batch,
        which is repeated ``K`` times. ``grad`` keeps the autograd graph (gradients of the output
        with respect to ``embeds`` or the attention maps); otherwise no graph is built.
        """
        device = self.device
        with self.exclusive(), torch.set_grad_enabled(grad):
            if isinstance(inputs, WindowPlan):
                if attentions or hidden_states or embeds is not None:
                    raise ValueError("windows return no attention maps or hidden states and take no embeddings")
                with self.model.fused_attention():  # no attention maps are needed here
                    return self.model.forward_windows(**inputs.model_inputs(device))
            if isinstance(inputs, EncodedBatch):
                tensors = inputs.model_inputs(device)
            else:
                tensors = {k: v.to(device) for k, v in inputs.items()}
            if embeds is not None:
                tensors = {k: v.expand(embeds.shape[0], -1) for k, v in tensors.items()}
            return self.model(
                **tensors, output_attentions=attentions, output_hidden_states=hidden_states, inputs_embeds=embeds
            )

    def plan(
        self,
        texts: Sequence[str],
        pairs: Sequence[str] | None = None,
        long: LongInputs = "windows",
        batch_size: int | None = None,
        window: int | None = None,
    ) -> InputPlan:
        """Tokenise the inputs once and plan their forward passes (:func:`~selfexplain.core.inputs.plan_inputs`)
        at :attr:`max_tokens` (or ``window``) with this model's stride, span width and span unit."""
        window = window or self.max_tokens
        return plan_inputs(self.tokenizer, texts, pairs, window, long, self.window_settings, batch_size)

    def encode(self, texts: Sequence[str], pairs: Sequence[str] | None = None) -> EncodedBatch:
        """One batch of inputs that each fit :attr:`max_tokens` (:class:`InputTooLongError` otherwise)."""
        return self.plan(texts, pairs, long="refuse").batches[0][1]

    def window_plan(self, tokens: TokenisedText) -> WindowPlan:
        """A text's tokens laid out in this model's windows (a perturbed long text, for example)."""
        return plan_tokens(self.tokenizer, tokens, self.max_tokens, **self.window_settings.window_arguments)

    def truncate_to_fit(self, text: str, pair: str | None = None) -> tuple[str, str | None, bool]:
        """Cut ``text`` (and ``pair``) at a token boundary so the input fits :attr:`max_tokens`; returns
        ``(text, pair, truncated)`` (see :func:`~selfexplain.core.inputs.tokens.fit_text`)."""
        return fit_text(self.tokenizer, text, pair, self.max_tokens, max_input_chars())

    def token_counts(self, texts: Sequence[str], pairs: Sequence[str] | None = None) -> list[int]:
        """Tokens of each input, special tokens included (one batched tokenizer call)."""
        return tokenise_inputs(self.tokenizer, texts, pairs).counts

    def predict(
        self, texts: Sequence[str], pairs: Sequence[str] | None = None, uniform_alpha: bool = False
    ) -> np.ndarray:
        """Predicted class index of each input ``[B]`` (long single texts in windows); with
        ``uniform_alpha`` alpha is replaced by the uniform distribution over the valid spans."""
        examples = [Example(t, pairs[i] if pairs is not None else None) for i, t in enumerate(texts)]
        windows = not self.config.pair
        return self.predict_probabilities(
            examples, progress=False, windows=windows, uniform_alpha=uniform_alpha
        ).argmax(axis=1)

    def predict_probabilities(
        self,
        examples: Sequence[Example],
        batch_size: int = 64,
        progress: bool = True,
        description: str = "predict",
        windows: bool = False,
        max_length: int | None = None,
        uniform_alpha: bool = False,
    ) -> np.ndarray:
        """Class probabilities ``[E, C]`` (float32) for every example, each tokenised once. Inputs over
        ``max_length`` tokens (default: the model's ``max_length``) are cut to fit, or with ``windows`` (single
        texts) read in windows. ``uniform_alpha`` replaces alpha by the uniform distribution over the valid
        spans. With labels and accuracy: :func:`selfexplain.methods.training.evaluation.predict_examples`."""
        config = self.config
        pairs = [e.pair or "" for e in examples] if config.pair else None
        long = "windows" if windows and not config.pair else "truncate"
        window = max_length or config.max_length
        plan = self.plan([e.text for e in examples], pairs, long, batch_size=batch_size, window=window)
        jobs: list[tuple[list[int], EncodedBatch | WindowPlan]] = list(plan.batches)
        jobs += [([i], plan.windows[i]) for i in sorted(plan.windows)]
        probabilities = np.zeros((len(examples), config.num_labels), dtype=np.float32)
        layer = self.model.span_layer if uniform_alpha else None
        # the uniform switch is model state: with it, nobody else may run until it is switched back
        with self.exclusive() if layer is not None else nullcontext():
            saved = layer.uniform if layer is not None else False
            try:
                if layer is not None:
                    layer.uniform = True
                for index, inputs in tqdm(jobs, desc=description, disable=not progress):
                    logits = self.run(inputs).logits
                    probabilities[index] = torch.softmax(logits.float(), dim=-1).cpu().numpy()
            finally:
                if layer is not None:
                    layer.uniform = saved
        return probabilities

    def explain(self, text: str, pair: str | None = None, attentions: bool = True) -> Explanation:
        """Explain one input; ``attentions`` adds every layer's attention maps.

        A single text longer than the encoder's window is read in overlapping windows
        (one prediction, one alpha over the spans of all windows; no attention maps).
        """
        return self.explain_batch([text], [pair] if pair is not None else None, attentions)[0]

    def explain_batch(
        self,
        texts: Sequence[str],
        pairs: Sequence[str] | None = None,
        attentions: bool = False,
        long: LongInputs = "windows",
    ) -> list[Explanation]:
        """Explain several inputs, each tokenised once: those that fit one window in one forward pass,
        long single texts in windows one by one (``long="windows"``; a long pair is refused), or every
        long input cut to fit (``long="truncate"``: its Explanation's text ends at the cut)."""
        for index, text in enumerate(texts):
            self.check_input(text, pairs[index] if pairs is not None else None)
        plan = self.plan(texts, pairs, long)
        results = {
            i: self.windowed(texts[i], windows, dense=True)[0].explanation() for i, windows in plan.windows.items()
        }
        for indices, batch in plan.batches:
            if not bool(batch.token_mask.any(dim=1).all()):
                raise InvalidInputError("the text has no tokens the model can read")
            output = self.run(batch, attentions=attentions)
            for row, i in enumerate(indices):
                results[i] = explanation_of(batch, output, row, *plan.text_of(i), self.readout)
        return [results[i] for i in range(len(texts))]

    def explain_long(self, text: str) -> Explanation:
        """:meth:`explain_document` made dense; refused over
        :data:`~selfexplain.support.limits.DENSE_MAX_TOKENS` tokens."""
        return self.windowed(text, None, dense=True)[0].explanation()

    def explain_document(self, text: str) -> Document:
        """A single text of any length up to the character limit, read in overlapping windows of
        :attr:`max_tokens` (stride from the config), with its spans kept sparse (see :class:`Document`)."""
        return self.windowed(text, None, dense=False)[0]

    def instance(self, text: str, pair: str | None = None, target: int | None = None) -> Instance:
        """The input run once for the attribution methods and the lab: one window with attentions and hidden
        states, or a single text longer than one window in windows (span heads only). Any head: a baseline's
        explanation has no spans. ``target`` (default: the predicted class) is the class they explain; it must
        be a class index of the model."""
        self.check_text(text, pair)
        plan = self.plan([text], [pair] if pair is not None else None)
        inputs: EncodedBatch | WindowPlan
        if plan.windows:
            if self.config.head != "span":
                raise InvalidInputError(f"model {self.name!r} is a baseline and reads one window only")
            inputs = plan.windows[0]
            document, output = self.windowed(text, inputs, dense=True)
            explanation = document.explanation()
        else:
            inputs = plan.batches[0][1]
            if not bool(inputs.token_mask.any()):
                raise InvalidInputError("the text has no tokens the model can read")
            output = self.run(inputs, attentions=True, hidden_states=True)
            explanation = explanation_of(inputs, output, 0, text, pair, self.readout)
        classes = explanation.probabilities.shape[0]
        chosen = explanation.predicted_index if target is None else int(target)
        if not 0 <= chosen < classes:
            raise InvalidInputError(f"target class {chosen} is out of range (the model has {classes})")
        return Instance(explanation, inputs, output, chosen)

    def windowed(self, text: str, plan: WindowPlan | None, dense: bool) -> tuple[Document, ModelOutput]:
        """The one route for windowed texts: plan the windows (unless given), check the sizes, one
        forward; the :class:`Document` and the forward's output (its alpha and span-layer inputs)."""
        self.check_input(text, None)
        if plan is None:
            plan = self.window_plan(tokenise(self.tokenizer, text, self.config.apostrophes))
        check_plan(plan, dense)
        output = self.run(plan)
        return document_of(plan, output, text, self.readout), output

    def window_count(self, text: str) -> int:
        """How many encoder windows a single text needs (1 when it fits one); one tokenizer call."""
        inner = inner_size(self.tokenizer, self.max_tokens)
        count = len(self.tokenizer(text, add_special_tokens=False)["input_ids"])
        return len(window_starts(count, inner, min(self.config.window_stride, inner)))

    def window_attentions(self, text: str, window_start: int) -> WindowAttention:
        """Every layer's raw self-attention over the window of ``text`` that starts at token
        ``window_start`` (one of :attr:`Document.window_starts`), from one forward of that window alone."""
        self.check_input(text, None)
        inputs, global_index = single_window(
            self.tokenizer, tokenise(self.tokenizer, text), window_start, self.max_tokens
        )
        output = self.run(inputs, attentions=True)
        if not output.attentions:
            raise InvalidInputError(f"the encoder of model {self.name!r} does not return attention maps")
        maps = torch.stack([layer[0] for layer in output.attentions]).float().cpu().numpy()
        return WindowAttention(
            start=window_start,
            tokens=tuple(self.tokenizer.convert_ids_to_tokens(inputs["input_ids"][0].tolist())),
            token_index=global_index[0].numpy(),
            attentions=maps,
        )


def load_model(
    name_or_path: str | Path | None = None, fused: bool = True, precision: EncoderPrecision = "float32"
) -> SelfExplainer:
    """Load a shipped model by name (default ``sst5-minilm``) or a model folder.

    ``fused`` runs the span layer as native kernels (:mod:`selfexplain.core.modeling.native_spans`; built
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
