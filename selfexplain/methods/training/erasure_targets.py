"""Word-deletion effects for the erasure term (:func:`selfexplain.methods.training.objectives.erasure_loss`).

A word's *effect* on a model is ``p(c | text) - p(c | text without the word)`` for the class ``c`` the model
gives the whole text (leave-one-out occlusion at the input). Words are the student tokenizer's words (its
pre-tokenizer's, as the span layer's ``span_unit="word"`` groups pieces, with apostrophes joined when the
student's ``apostrophes`` is "joined"), and every piece of a word carries that word's effect. ``selfexplain
distill`` measures a teacher's effects once (:mod:`selfexplain.lab.distill.erasure`); with
``--own-erasure-epoch`` the training loop also reads the student's own (:func:`own_effects`), since the
sharpness measure ``deletion_beats_random`` deletes words from the student's input. The student is training's
own model object, so it is called here, not through :class:`~selfexplain.core.pipeline.SelfExplainer`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

import torch
from transformers import PreTrainedTokenizerBase

from selfexplain.core.inputs import WindowSettings, plan_inputs, tokenise_inputs

if TYPE_CHECKING:
    from selfexplain.core.modeling.model import SelfExplainingModel


class Cuts(NamedTuple):
    """Every input's one-word cuts (:func:`cut_variants`). ``token_words``: per input, its tokens' word
    indices; ``texts`` / ``pairs``: the cut inputs in order (``pairs`` None for single texts); ``owners``
    ``[V]``: the input each cut comes from."""

    token_words: list[list[int | None]]
    texts: list[str]
    pairs: list[str] | None
    owners: torch.Tensor


def input_words(
    tokenizer: PreTrainedTokenizerBase, text: str, pair: str | None = None, apostrophes: str = "split"
) -> tuple[list[int | None], list[tuple[int, int]], list[int]]:
    """Per token of the input as the student reads it (special tokens included; ``apostrophes``: the
    student's setting): its word's index, or None; per word, its characters ``(start, end)`` in its own
    text; and per word, that text (0: ``text``, 1: ``pair``). Words are numbered text first, then pair."""
    row = tokenise_inputs(tokenizer, [text], [pair] if pair is not None else None, apostrophes).rows[0]
    words: dict[tuple[int, int], list[int]] = {}
    for (start, end), side, word in zip(row.offsets, row.sequence_ids, row.word_ids):
        if word is not None and side is not None and end > start:
            span = words.setdefault((side, word), [start, end])
            span[0], span[1] = min(span[0], start), max(span[1], end)
    order = sorted(words)
    index = {key: k for k, key in enumerate(order)}
    token_words = [
        index.get((side, word)) if word is not None and side is not None else None
        for side, word in zip(row.sequence_ids, row.word_ids)
    ]
    return token_words, [(words[key][0], words[key][1]) for key in order], [side for side, _ in order]


def word_spans(
    tokenizer: PreTrainedTokenizerBase, text: str, apostrophes: str = "split"
) -> tuple[list[int | None], list[tuple[int, int]]]:
    """Per token of ``text`` as the student reads it (special tokens included; ``apostrophes``: the
    student's setting): its word's index, or None; and per word, its characters ``(start, end)`` in ``text``."""
    token_words, spans, _ = input_words(tokenizer, text, None, apostrophes)
    return token_words, spans


def cut(text: str, start: int, end: int) -> str:
    """``text`` without its characters ``[start, end)``."""
    return (text[:start] + " " + text[end:]).strip()


def word_cuts(
    tokenizer: PreTrainedTokenizerBase, text: str, apostrophes: str = "split"
) -> tuple[list[int | None], list[str]]:
    """Per token of ``text`` as the student reads it (special tokens included): its word's index,
    or None; and per word, the text with that word's characters cut out."""
    token_words, spans = word_spans(tokenizer, text, apostrophes)
    return token_words, [cut(text, start, end) for start, end in spans]


def cut_variants(
    tokenizer: PreTrainedTokenizerBase,
    texts: Sequence[str],
    apostrophes: str = "split",
    pairs: Sequence[str] | None = None,
) -> Cuts:
    """Per input, its tokens' word indices (:func:`input_words`) and every input's one-word cuts, in
    order. With ``pairs`` a word of either text is cut from its own text and the other text is kept."""
    token_words: list[list[int | None]] = []
    variants: list[str] = []
    cut_pairs: list[str] = []
    owner: list[int] = []
    for row, text in enumerate(texts):
        pair = pairs[row] if pairs is not None else None
        words, spans, where = input_words(tokenizer, text, pair, apostrophes)
        token_words.append(words)
        for (start, end), side in zip(spans, where):
            variants.append(cut(text, start, end) if side == 0 else text)
            cut_pairs.append(cut(pair or "", start, end) if side == 1 else (pair or ""))
        owner.extend([row] * len(spans))
    return Cuts(token_words, variants, cut_pairs if pairs is not None else None, torch.tensor(owner, dtype=torch.long))


def token_effects(
    full: torch.Tensor, kept: torch.Tensor, token_words: Sequence[Sequence[int | None]]
) -> list[torch.Tensor]:
    """Per text, ``[N]``: ``full[text] - kept[cut of the token's word]`` on each of its ``N`` tokens, 0 on
    special tokens. ``full`` ``[E]``: p(c | text); ``kept`` ``[V]``: p(c | cut), cuts in
    :func:`cut_variants` order."""
    effects, at = [], 0
    for row, words in enumerate(token_words):
        count = len({w for w in words if w is not None})
        drop = full[row] - kept[at : at + count]  # [words]
        at += count
        index = torch.tensor([-1 if w is None else w for w in words], dtype=torch.long)
        effect = (
            torch.where(index >= 0, drop[index.clamp_min(0)], torch.zeros(())) if count else torch.zeros(len(words))
        )
        effects.append(effect.float())
    return effects


def word_effects(
    tokenizer: PreTrainedTokenizerBase, text: str, effect: torch.Tensor, apostrophes: str = "split"
) -> tuple[list[tuple[int, int]], torch.Tensor]:
    """The inverse of :func:`token_effects` for one text: its words' characters ``(start, end)`` and
    ``[W]`` each word's effect, read from its pieces in ``effect`` ``[N]`` (every piece of a word carries
    the word's effect); -inf for a word none of whose pieces ``effect`` covers."""
    token_words, spans = word_spans(tokenizer, text, apostrophes)
    index = torch.tensor([-1 if w is None else w for w in token_words], dtype=torch.long)
    drop = torch.full((len(spans),), -float("inf"))
    drop[index[index >= 0]] = effect[index >= 0].float()
    return spans, drop


def own_effects(
    model: SelfExplainingModel,
    tokenizer: PreTrainedTokenizerBase,
    texts: Sequence[str],
    max_length: int = 128,
    batch_size: int = 64,
    pairs: Sequence[str] | None = None,
) -> list[torch.Tensor]:
    """The same effects as :func:`selfexplain.lab.distill.erasure.erasure_effects`, read by ``model``
    itself: per input ``[N]``, ``p(c | input) - p(c | input without the token's word)`` for the class ``c``
    the model predicts on the whole input (``pairs``: the second texts of a pair model; a word of either
    text is cut from its own). Without gradient and in eval mode (the model's training mode is restored);
    inputs longer than ``max_length`` tokens are read cut to fit."""
    cuts = cut_variants(tokenizer, texts, model.config.apostrophes, pairs)
    inputs = [*texts, *cuts.texts]
    second_texts = [*pairs, *cuts.pairs] if pairs is not None and cuts.pairs is not None else None
    settings = WindowSettings.of(model.config)
    plan = plan_inputs(tokenizer, inputs, second_texts, max_length, "truncate", settings, batch_size=batch_size)
    device = next(model.parameters()).device
    probs = torch.empty(len(inputs), len(model.config.label_names))  # [E + V, C]
    training = model.training
    model.eval()
    try:
        with torch.no_grad():
            for indices, batch in plan.batches:
                probs[indices] = torch.softmax(model(**batch.model_inputs(device)).logits.float(), dim=-1).cpu()
    finally:
        model.train(training)
    full = probs[: len(texts)]
    labels = full.argmax(dim=1)  # [E]
    kept = probs[len(texts) :].gather(1, labels[cuts.owners].unsqueeze(1)).squeeze(1)  # [V]
    return token_effects(full.gather(1, labels.unsqueeze(1)).squeeze(1), kept, cuts.token_words)


def with_own_effects(
    model: SelfExplainingModel,
    tokenizer: PreTrainedTokenizerBase,
    texts: Sequence[str],
    effects: Sequence[torch.Tensor],
    share: float,
    max_length: int = 128,
    pairs: Sequence[str] | None = None,
) -> list[torch.Tensor]:
    """``effects`` (the teacher's, per input; empty where an input has none) mixed with the model's own
    (:func:`own_effects`; ``pairs``: a pair model's second texts): ``(1 - share) * teacher + share * own``,
    on the inputs that have effects only (the others stay empty, so the erasure term still reads the
    inputs the caller chose)."""
    rows = [row for row, effect in enumerate(effects) if len(effect)]
    mixed = list(effects)
    if not rows:
        return mixed
    chosen = [pairs[row] for row in rows] if pairs is not None else None
    own = own_effects(model, tokenizer, [texts[row] for row in rows], max_length, pairs=chosen)
    for row, mine in zip(rows, own):  # the same tokenizer and input: the teacher's effects have the same [N]
        mixed[row] = (1.0 - share) * effects[row] + share * mine
    return mixed
