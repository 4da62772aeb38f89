"""How widely a mean-pooling model writes its decision into its tokens.

A mean-pooling model (``selfexplain train --head mean``) decides from the mean of its last-layer
token vectors: ``logits = mean_i (W h_i) + b``, so every token ``i`` has logits of its own,
``W h_i + b``. ``selfexplain token-labels`` reports, over the texts of a file, the share of a text's tokens (word
pieces) whose own logits already give the model's label. When that share is high, any weighting of
those vectors (uniform, one token, a few spans) gives the same label: a self-explaining surrogate
that reads the same last-layer vectors can follow such a model closely only with an alpha that does
not matter to its decision (docs/surrogates.md).

    selfexplain token-labels --model sst5-minilm-mean --data runs/dev300.txt --txt labelled
"""

from __future__ import annotations

import argparse

import numpy as np
import torch

from selfexplain.core.formats.examples import read_examples
from selfexplain.core.pipeline import load_model
from selfexplain.errors import InvalidInputError
from selfexplain.lab.distill.fidelity import decisive

BATCH = 32


def token_agreement(explainer, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Per text: the share of its tokens whose own logits give the model's label, and whether the
    model is decisive there (its two most probable labels
    ``selfexplain.lab.distill.fidelity.DECISIVE_MARGIN`` or more apart, as ``distill`` counts it)."""
    model = explainer.model
    if model.config.head != "mean":
        raise InvalidInputError(f"{explainer.name} is not a mean-pooling model (head {model.config.head!r})")
    shares, sure = [], []
    for lo in range(0, len(texts), BATCH):
        batch = explainer.encode(texts[lo : lo + BATCH])
        out = explainer.run(batch, hidden_states=True)
        hidden = out.hidden_states[-1]  # [B, N, H]
        mask = batch.token_mask  # [B, N]
        with explainer.exclusive(), torch.no_grad():
            own = model.output(hidden).argmax(dim=-1)  # [B, N]: each token's own label
        probs = out.logits.softmax(dim=-1)  # [B, C]
        label = probs.argmax(dim=-1, keepdim=True)  # [B, 1]
        same = ((own == label) & mask).sum(dim=1) / mask.sum(dim=1).clamp_min(1)
        shares.append(same.numpy())
        sure.append(decisive(probs).numpy())
    return np.concatenate(shares), np.concatenate(sure)


def run(args: argparse.Namespace) -> None:
    """The measurement for ``selfexplain token-labels``: prints the shares."""
    explainer = load_model(args.model)
    labels = list(explainer.config.label_names)
    texts = [e.text for e in read_examples(args.data, txt=args.txt, label_names=labels)]
    shares, sure = token_agreement(explainer, texts)
    print(f"{explainer.name}: {len(texts)} texts of {args.data}")
    print(f"  tokens whose own logits give the model's label: mean {shares.mean():.1%}, median {np.median(shares):.1%}")
    print(f"  texts where most tokens (> 50%) give it: {(shares > 0.5).mean():.1%}")
    for name, rows in (("decisive", sure), ("hesitant", ~sure)):
        if rows.any():
            print(f"  where the model is {name} ({rows.mean():.0%} of texts): mean {shares[rows].mean():.1%}")
