"""Run a model over a corpus once and reduce its attention to the anatomy statistics.

One pass, batched: per batch the encoder returns ``L`` maps ``[B, H, N, N]``; they are
stacked to ``[L, B, H, N, N]`` and folded into :class:`~selfexplain.lab.anatomy.stats.StatsAccumulator`;
with ``gradients`` the loss is back-propagated to the maps for the no-op test (the maps of layers the model
reads; a later layer's gradient is 0); the first
``head_sentences`` sentences also feed the head-distance matrix.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from tqdm.auto import tqdm

from selfexplain.core.modeling.read_out import read_out_layer
from selfexplain.core.pipeline import SelfExplainer
from selfexplain.data import Example
from selfexplain.lab.anatomy.heads import head_distance_sums, mds_embedding, sep_gradient_sums
from selfexplain.lab.anatomy.stats import StatsAccumulator, punctuation_ids, roles_from_batch


@dataclass
class AnatomyResult:
    """Corpus statistics: ``stats`` maps a name to ``[L, H]``; ``sep_gradient`` ``[L, H]`` or None;
    ``head_distance`` ``[K, K]`` mean JS (``K = L * H``) and ``mds`` ``[K, 2]`` or None."""

    model: str
    sentences: int
    pair: bool
    stats: dict[str, np.ndarray]
    sep_gradient: np.ndarray | None = None
    head_distance: np.ndarray | None = None
    mds: np.ndarray | None = None

    @property
    def shape(self) -> tuple[int, int]:
        layers, heads = self.stats["cls"].shape
        return int(layers), int(heads)

    def save(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        data = {
            "model": self.model,
            "sentences": self.sentences,
            "pair": self.pair,
            "stats": {k: v.tolist() for k, v in self.stats.items()},
        }
        for name in ("sep_gradient", "head_distance", "mds"):
            value = getattr(self, name)
            data[name] = value.tolist() if value is not None else None
        (folder / "attention_stats.json").write_text(json.dumps(data), encoding="utf-8")

    @classmethod
    def load(cls, folder: Path) -> AnatomyResult:
        data = json.loads((folder / "attention_stats.json").read_text(encoding="utf-8"))
        arrays = {
            n: np.asarray(data[n]) if data.get(n) is not None else None
            for n in ("sep_gradient", "head_distance", "mds")
        }
        stats = {k: np.asarray(v) for k, v in data["stats"].items()}
        return cls(data["model"], int(data["sentences"]), bool(data["pair"]), stats, **arrays)


def batches(examples: Sequence[Example], size: int) -> list[Sequence[Example]]:
    return [examples[i : i + size] for i in range(0, len(examples), size)]


def decision_gradients(
    loss: torch.Tensor, maps: tuple[torch.Tensor, ...], encoder_layer: int
) -> tuple[torch.Tensor, ...]:
    """The gradient of ``loss`` with respect to each attention map ``[B, H, N, N]`` of ``maps`` (one per encoder
    layer). Only layers ``1 .. k`` feed the hidden state ``k`` the model reads (``encoder_layer``); a later
    layer's attention never reaches the decision, so its gradient is 0 and it is not differentiated."""
    used = read_out_layer(encoder_layer, len(maps))
    grads = torch.autograd.grad(loss, maps[:used]) if used else ()
    return (*grads, *(torch.zeros_like(m) for m in maps[used:]))


def attention_anatomy(
    explainer: SelfExplainer,
    examples: Sequence[Example],
    batch_size: int = 16,
    gradients: bool = True,
    head_sentences: int = 100,
    seed: int = 0,
    progress: bool = True,
    on_progress: Callable[[float], None] | None = None,
) -> AnatomyResult:
    """Every statistic of :mod:`selfexplain.lab.anatomy.stats` over ``examples`` (texts cut to fit);
    ``on_progress`` gets the finished fraction after each batch (for app progress bars)."""
    device = explainer.device
    punct = punctuation_ids(explainer.tokenizer).to(device)
    acc = StatsAccumulator()
    grad_sum: torch.Tensor | None = None
    grad_count = 0.0
    dist_sum: torch.Tensor | None = None
    dist_count = 0.0
    seen = 0
    chunks = batches(examples, batch_size)
    for step, chunk in enumerate(tqdm(chunks, desc="attention", unit="batch", disable=not progress), start=1):
        if on_progress is not None:
            on_progress(step / len(chunks))
        texts = [e.text for e in chunk]
        pairs = [e.pair or "" for e in chunk] if explainer.config.pair else None
        batch = explainer.plan(texts, pairs, long="truncate").batches[0][1]
        inputs = batch.model_inputs(device)
        map_grads: tuple[torch.Tensor, ...] = ()
        # the model is shared (app sessions): hold it (exclusive) through the backward pass too, and take
        # gradients of the attention maps only (torch.autograd.grad), so no parameter's .grad is written
        with explainer.exclusive(), torch.set_grad_enabled(gradients):
            out = explainer.run(batch, attentions=True, grad=gradients)
            maps = out.attentions
            assert maps is not None
            if gradients:
                gold = [e.label for e in chunk]
                labels = out.logits.argmax(dim=-1).detach()
                if all(g is not None for g in gold):
                    labels = torch.tensor(gold, device=device)
                loss = F.cross_entropy(out.logits, labels, reduction="sum")
                map_grads = decision_gradients(loss, tuple(maps), explainer.config.encoder_layer)
        roles = roles_from_batch(
            inputs["input_ids"], inputs["attention_mask"], inputs["token_mask"], inputs["segment_ids"], punct
        )
        stacked = torch.stack([m.detach() for m in maps]).cpu()
        cpu_roles = type(roles)(*(t.cpu() for t in (roles.valid, roles.sep, roles.punct, roles.real, roles.segment)))
        acc.add(stacked, cpu_roles)
        if gradients:
            part = sep_gradient_sums(map_grads, roles.sep, roles.valid).cpu()
            grad_sum = part if grad_sum is None else grad_sum + part
            grad_count += float((roles.valid.sum(1) * roles.sep.sum(1)).sum())
        if seen < head_sentences:
            take = min(len(chunk), head_sentences - seen)
            part_d, queries = head_distance_sums(stacked[:, :take], cpu_roles.valid[:take])
            dist_sum = part_d if dist_sum is None else dist_sum + part_d
            dist_count += queries
            seen += take
    distance = mds = None
    if dist_sum is not None and dist_count:
        distance = (dist_sum / dist_count).numpy()
        mds = mds_embedding(np.sqrt(distance), seed)
    sep_gradient = (grad_sum / max(grad_count, 1.0)).numpy() if grad_sum is not None else None
    return AnatomyResult(explainer.name, acc.sentences, explainer.config.pair, acc.means(), sep_gradient, distance, mds)
