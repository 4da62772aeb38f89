"""Linear probes by layer (Lin et al., 2019, "Open Sesame") on a frozen encoder.

Hidden states are computed once (batched, no grad) and cached as
``sentence`` vectors ``[L+1, S, H]`` (mean over a sentence's real tokens; index 0 =
embeddings) and a seeded sample of ``token`` vectors ``[L+1, T, H]``. Each probe is a
multinomial logistic regression (standardised inputs, L2, 200 full-batch Adam steps), trained on
a sentence-level train/test split so no sentence is in both: one held-out share, or k folds so that
every item is scored once (small corpora). The baseline is the share of the most frequent class
among the items scored.

Tasks: ``label`` (the sentence label, pooled vector), ``position`` (which real-token
position ``0 .. P-1`` a token is at) and ``top_span`` (is the token inside the model's
highest-alpha span).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pandas as pd
import torch
from tqdm.auto import tqdm

from selfexplain.core.pipeline import SelfExplainer
from selfexplain.data import Example

TASKS: tuple[str, ...] = ("label", "position", "top_span")


@dataclass(frozen=True)
class HiddenCache:
    """Cached states: sentence ``[L+1, S, H]``, token ``[L+1, T, H]``; per sentence ``labels`` ``[S]``
    (-1 when unknown); per token ``token_sentence``, ``token_position`` ``[T]`` and ``in_top_span`` ``[T]``."""

    sentence: torch.Tensor
    labels: torch.Tensor
    token: torch.Tensor
    token_sentence: torch.Tensor
    token_position: torch.Tensor
    in_top_span: torch.Tensor


@torch.no_grad()
def cache_hidden_states(
    explainer: SelfExplainer,
    examples: Sequence[Example],
    batch_size: int = 32,
    tokens_per_sentence: int = 8,
    seed: int = 0,
    progress: bool = True,
    on_progress: Callable[[float], None] | None = None,
) -> HiddenCache:
    """One forward pass per batch; keeps pooled vectors and ``tokens_per_sentence`` random tokens a sentence."""
    generator = torch.Generator().manual_seed(seed)
    sentence, token, sent_of, pos_of, in_span, labels = [], [], [], [], [], []
    for start in tqdm(range(0, len(examples), batch_size), desc="hidden states", unit="batch", disable=not progress):
        chunk = examples[start : start + batch_size]
        if on_progress is not None:
            on_progress(min(1.0, (start + batch_size) / len(examples)))
        pairs = [e.pair or "" for e in chunk] if explainer.config.pair else None
        batch = explainer.plan([e.text for e in chunk], pairs, long="truncate").batches[0][1]
        out = explainer.run(batch, hidden_states=True)
        states = torch.stack(out.hidden_states).float().cpu()  # [L+1, B, N, H]
        real = batch.token_mask  # [B, N]
        weights = real.float() / real.float().sum(1, keepdim=True).clamp_min(1)
        sentence.append(torch.einsum("lbnh,bn->lbh", states, weights))
        labels.append(torch.tensor([e.label if e.label is not None else -1 for e in chunk]))
        position = real.long().cumsum(1) - 1  # real-token index of each position
        span = torch.zeros_like(real)
        if out.alpha is not None:
            top = out.alpha.argmax(dim=1).cpu()
            lo, hi = out.span_starts.cpu()[top], out.span_ends.cpu()[top]  # [B]
            where = torch.arange(real.shape[1])
            span = (where[None] >= lo[:, None]) & (where[None] <= hi[:, None]) & real
        score = torch.rand(real.shape, generator=generator).masked_fill(~real, -1.0)
        k = min(tokens_per_sentence, real.shape[1])
        chosen_score, chosen = score.topk(k, dim=1)  # [B, k]
        keep = chosen_score >= 0
        rows = torch.arange(len(chunk))[:, None].expand_as(chosen)[keep]
        cols = chosen[keep]
        token.append(states[:, rows, cols])
        sent_of.append(rows + start)
        pos_of.append(position[rows, cols])
        in_span.append(span[rows, cols])
    return HiddenCache(
        torch.cat(sentence, 1),
        torch.cat(labels),
        torch.cat(token, 1),
        torch.cat(sent_of),
        torch.cat(pos_of),
        torch.cat(in_span).long(),
    )


def fit_probes(
    x: torch.Tensor, y: torch.Tensor, tests: torch.Tensor, l2: float = 1e-3, steps: int = 200
) -> torch.Tensor:
    """Correct test predictions ``[K]`` of K logistic regressions fitted at once on ``x`` ``[n, H]``,
    ``y`` ``[n]``: regression ``k`` trains on ``~tests[k]`` and is scored on ``tests[k]`` (``tests``
    ``[K, n]`` bool). Inputs are standardised with each regression's own train mean and std; the K
    losses are summed and Adam acts per element, so each is fitted as if alone (one matmul a step)."""
    train = (~tests).to(torch.float64)
    count = train.sum(1, keepdim=True)  # [K, 1]
    wide = x.to(torch.float64)
    mean = train @ wide / count  # [K, H]
    variance = (train @ wide.square() - count * mean.square()) / (count - 1).clamp_min(1)
    std, mean = variance.clamp_min(0).sqrt().clamp_min(1e-6).float(), mean.float()
    share = (train / count).float()  # [K, n]: each regression's mean loss over its train rows
    classes = int(y.max()) + 1
    weight = torch.zeros(tests.shape[0], x.shape[1], classes, requires_grad=True)
    bias = torch.zeros(tests.shape[0], classes, requires_grad=True)
    optimiser = torch.optim.Adam([weight, bias], lr=0.05)

    def logits() -> torch.Tensor:  # [K, n, C] = ((x - mean_k) / std_k) @ W_k + b_k
        scaled = weight / std[:, :, None]
        return (
            torch.einsum("nh,khc->knc", x, scaled) - torch.einsum("kh,khc->kc", mean, scaled)[:, None] + bias[:, None]
        )

    for _ in range(steps):
        optimiser.zero_grad()
        loss = torch.nn.functional.cross_entropy(
            logits().reshape(-1, classes), y.repeat(tests.shape[0]), reduction="none"
        )
        (share.reshape(-1) @ loss + l2 * weight.square().sum()).backward()
        optimiser.step()
    with torch.no_grad():
        return ((logits().argmax(-1) == y) & tests).sum(1)


def train_probe(
    x_train: torch.Tensor,
    y_train: torch.Tensor,
    x_test: torch.Tensor,
    y_test: torch.Tensor,
    l2: float = 1e-3,
    steps: int = 200,
) -> float:
    """Test accuracy of a logistic regression fit on ``x_train`` ``[n, H]`` / ``y_train`` ``[n]``."""
    tests = torch.cat([torch.zeros(len(y_train), dtype=torch.bool), torch.ones(len(y_test), dtype=torch.bool)])
    correct = fit_probes(torch.cat([x_train, x_test]), torch.cat([y_train, y_test]), tests[None], l2, steps)
    return float(correct[0]) / len(y_test)


def _split(count: int, test_fraction: float, seed: int) -> torch.Tensor:
    """``[count]`` bool: True for the test sentences."""
    order = torch.randperm(count, generator=torch.Generator().manual_seed(seed))
    test = torch.zeros(count, dtype=torch.bool)
    test[order[: max(1, int(round(count * test_fraction)))]] = True
    return test


def sentence_splits(count: int, seed: int, test_fraction: float = 0.2, folds: int = 0) -> list[torch.Tensor]:
    """Test masks ``[count]`` over sentences: ``folds >= 2`` deals a seeded permutation into that many
    folds (at most ``count``; every sentence is tested once), otherwise one held-out share."""
    if folds < 2:
        return [_split(count, test_fraction, seed)]
    order = torch.randperm(count, generator=torch.Generator().manual_seed(seed))
    fold_of = torch.empty(count, dtype=torch.long)
    fold_of[order] = torch.arange(count) % min(folds, count)
    return [fold_of == f for f in range(min(folds, count))]


def task_data(cache: HiddenCache, task: str, max_position: int = 10) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(x [L+1, n, H], y [n], sentence id [n])`` for one task."""
    if task == "label":
        keep = cache.labels >= 0
        return cache.sentence[:, keep], cache.labels[keep], torch.nonzero(keep).squeeze(1)
    if task == "position":
        keep = cache.token_position < max_position
        return cache.token[:, keep], cache.token_position[keep], cache.token_sentence[keep]
    if task == "top_span":
        return cache.token, cache.in_top_span, cache.token_sentence
    raise ValueError(f"unknown probing task {task!r}; choose from {', '.join(TASKS)}")


def probe_by_layer(
    cache: HiddenCache,
    tasks: Sequence[str] = TASKS,
    seed: int = 0,
    test_fraction: float = 0.2,
    max_position: int = 10,
    progress: bool = True,
    folds: int = 0,
    on_progress: Callable[[float], None] | None = None,
) -> pd.DataFrame:
    """One row per (task, layer): ``accuracy`` on the test items, the ``majority`` baseline (the share
    of the most frequent class among the test labels: always guessing it scores that), ``train`` items
    per fit, ``test`` items scored and ``folds``. ``folds >= 2``: k-fold over sentences, accuracy over
    all items; otherwise one held-out ``test_fraction`` of the sentences. ``on_progress(fraction)`` is called
    after each (task, layer) fit (it may raise to stop the run)."""
    splits = sentence_splits(int(cache.sentence.shape[1]), seed, test_fraction, folds)
    rows = []
    jobs = [(t, layer) for t in tasks for layer in range(cache.sentence.shape[0])]
    data = {t: task_data(cache, t, max_position) for t in tasks}
    for done, (task, layer) in enumerate(tqdm(jobs, desc="probes", unit="probe", disable=not progress), start=1):
        if on_progress is not None and done > 1:
            on_progress((done - 1) / len(jobs))
        x, y, sentence_of = data[task]
        if len(y) == 0:
            continue
        tests = [mask[sentence_of] for mask in splits]
        tests = [test for test in tests if test.any() and not test.all()]
        if not tests:
            continue
        masks = torch.stack(tests)  # [K, n]: disjoint test sets
        correct = int(fit_probes(x[layer], y, masks).sum())
        scored = y[masks.any(0)]
        rows.append(
            {
                "task": task,
                "layer": layer,
                "accuracy": correct / len(scored),
                "majority": float(torch.bincount(scored).max()) / len(scored),
                "train": round(sum(int((~t).sum()) for t in tests) / len(tests)),
                "test": len(scored),
                "folds": len(tests),
            }
        )
    if on_progress is not None:
        on_progress(1.0)
    return pd.DataFrame(rows, columns=["task", "layer", "accuracy", "majority", "train", "test", "folds"])
