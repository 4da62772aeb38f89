"""What the teacher needs of each word: the drop in the probability of its label when the word is deleted.

``selfexplain distill --erasure-weight W`` teaches the student's span scores these effects (the span
whose words the teacher needs most scores highest), so that alpha points where erasing the input moves
the *teacher*, not only where the student's own vectors happen to carry the label. A fine-tuned teacher
writes its label into nearly every token (docs/surrogates.md), so without this a surrogate that follows
it closely may put alpha on any token, "." included.

An effect is measured at the input: the word's characters are cut from the text and the teacher reads
what is left (leave-one-out occlusion, as ``selfexplain.methods.explainers.loo`` does for a model's own words).
Words are the student tokenizer's words (its pre-tokenizer's, as the span layer's ``span_unit="word"``
groups pieces), so every piece of a word carries that word's effect. The teacher runs once per word of
every text, so the effects are computed once and cached next to the teacher's probabilities.

With ``--own-erasure-epoch K`` the targets from epoch K on also read the *student's* own effects
(:func:`selfexplain.methods.training.erasure_targets.own_effects`, measured on each batch as it trains, without
gradient), mixed with the teacher's (``--own-erasure-share``).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from transformers import PreTrainedTokenizerBase

from selfexplain.data import Example
from selfexplain.lab.distill.teacher import Teacher, teacher_probabilities
from selfexplain.methods.training.erasure_targets import cut_variants, token_effects

CHUNK = 32768  # variant texts per teacher call: bounds memory on long files (a selfexplain teacher loads once a call)


def erasure_effects(
    teacher: Teacher,
    tokenizer: PreTrainedTokenizerBase,
    examples: Sequence[Example],
    probabilities: torch.Tensor,
    max_length: int = 128,
    progress: bool = True,
    apostrophes: str = "split",
) -> list[torch.Tensor]:
    """Per example, a ``[N]`` float tensor over its ``N`` tokens (as the student tokenises it, special
    tokens included): ``p(c | text) - p(c | text without the token's word)`` for the teacher's label
    ``c``, 0 on special tokens. ``probabilities`` ``[E, C]``: the teacher's on the whole texts (cached
    by the caller). In a pair a word of either text is cut from its own text, the other kept whole."""
    labels = probabilities.argmax(dim=1)  # [E]
    pairs = [e.pair or "" for e in examples] if any(e.pair for e in examples) else None
    cuts = cut_variants(tokenizer, [e.text for e in examples], apostrophes, pairs)
    owners = cuts.owners
    variants = [Example(text, cuts.pairs[k] if cuts.pairs is not None else None) for k, text in enumerate(cuts.texts)]
    kept = torch.empty(len(variants))  # p(c | text without word) per variant
    parts = range(0, len(variants), CHUNK)
    for number, lo in enumerate(parts, start=1):
        description = f"erasure: {len(variants)} texts with one word cut, part {number}/{len(parts)}"
        chunk = variants[lo : lo + CHUNK]
        part = teacher_probabilities(teacher, chunk, max_length, progress=progress, description=description)  # [V, C]
        kept[lo : lo + CHUNK] = part.gather(1, labels[owners[lo : lo + CHUNK]].unsqueeze(1)).squeeze(1)
    full = probabilities.gather(1, labels.unsqueeze(1)).squeeze(1)  # [E]
    return token_effects(full, kept, cuts.token_words)


def pack(effects: Sequence[torch.Tensor]) -> dict[str, torch.Tensor]:
    """Ragged per-example effects as two tensors (for a safetensors cache)."""
    lengths = torch.tensor([len(e) for e in effects], dtype=torch.long)
    values = torch.cat(list(effects)) if effects else torch.zeros(0)
    return {"erasure_values": values.contiguous(), "erasure_lengths": lengths}


def unpack(tensors: dict[str, torch.Tensor]) -> list[torch.Tensor]:
    """The inverse of :func:`pack`."""
    return list(torch.split(tensors["erasure_values"], tensors["erasure_lengths"].tolist()))
