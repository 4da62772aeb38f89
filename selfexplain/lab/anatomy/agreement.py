"""The confusion score on agreement sentences (Lin et al., 2019, "Open Sesame").

Sentences come from the templates in ``assets/anatomy/agreement.json``: an antecedent
noun (the subject), a distractor noun of the opposite number, and a target (the verb
that agrees with the subject, or a reflexive pronoun). For the target's first token
``t`` and head ``h`` of layer ``l``:

    share = A[t -> antecedent] / (A[t -> antecedent] + A[t -> distractor])
    confusion = -log2(share)

where attention to a word is summed over its tokens. 0 = all of that attention on the
antecedent; 1 = split evenly; larger = more on the distractor. Scores are averaged
over heads and sentences per layer, separately with the distractor between subject and
target and with it after the target ("plain").
"""

from __future__ import annotations

import json
import string
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from selfexplain.core.pipeline import SelfExplainer

TEMPLATES = Path(__file__).resolve().parents[3] / "assets" / "anatomy" / "agreement.json"


@dataclass(frozen=True)
class AgreementSentence:
    """One sentence with the character spans ``(start, end)`` of its three roles."""

    text: str
    kind: str
    distractor: bool
    target: tuple[int, int]
    antecedent: tuple[int, int]
    other: tuple[int, int]


def fill(template: str, values: dict[str, str]) -> tuple[str, dict[str, tuple[int, int]]]:
    """Format ``template`` and return the character span of every field."""
    text, spans = "", {}
    for literal, field, _, _ in string.Formatter().parse(template):
        text += literal
        if field:
            spans[field] = (len(text), len(text) + len(values[field]))
            text += values[field]
    return text, spans


def agreement_sentences(per_template: int = 75, seed: int = 0, path: Path = TEMPLATES) -> list[AgreementSentence]:
    """``per_template`` sentences from every template; the word choices of draw ``k`` are the
    same for every template of a kind, so "distractor" and "plain" differ only in word order."""
    spec = json.loads(path.read_text(encoding="utf-8"))
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(per_template):
        subj, other = rng.choice(len(spec["nouns"]), size=2, replace=False)
        number = int(rng.integers(2))
        draws.append(
            {
                "subj": spec["nouns"][subj][number],
                "other": spec["nouns"][other][1 - number],
                "prep": spec["prepositions"][int(rng.integers(len(spec["prepositions"])))],
                "verb_agree": spec["verbs"][int(rng.integers(len(spec["verbs"])))][number],
                "verb_refl": spec["reflexive_verbs"][int(rng.integers(len(spec["reflexive_verbs"])))],
                "refl": spec["reflexives"][number],
            }
        )
    sentences = []
    for template in spec["templates"]:
        for draw in draws:
            verb = draw["verb_agree"] if template["kind"] == "agreement" else draw["verb_refl"]
            text, spans = fill(template["text"], {**draw, "verb": verb})
            sentences.append(
                AgreementSentence(
                    text,
                    template["kind"],
                    bool(template["distractor"]),
                    spans[template["target"]],
                    spans["subj"],
                    spans["other"],
                )
            )
    return sentences


def _char_mask(offsets: torch.Tensor, real: torch.Tensor, spans: torch.Tensor) -> torch.Tensor:
    """``[B, N]``: tokens (offsets ``[B, N, 2]``) inside the character span ``[B, 2]``."""
    start, end = offsets[..., 0], offsets[..., 1]
    return real & (end > start) & (start >= spans[:, None, 0]) & (end <= spans[:, None, 1])


def confusion_scores(
    attn: torch.Tensor, target: torch.Tensor, antecedent: torch.Tensor, other: torch.Tensor
) -> torch.Tensor:
    """``[L, B, H]`` confusion from maps ``[L, B, H, N, N]`` and ``[B, N]`` masks (first ``target`` token queries)."""
    first = target & (target.long().cumsum(1) == 1)
    rows = torch.einsum("lbhij,bi->lbhj", attn.double(), first.double())  # [L, B, H, N]
    to_ante = (rows * antecedent.double()[None, :, None]).sum(-1)
    to_other = (rows * other.double()[None, :, None]).sum(-1)
    share = to_ante / (to_ante + to_other).clamp_min(1e-30)
    return -torch.log2(share.clamp_min(1e-30))


@torch.no_grad()
def confusion_by_layer(
    explainer: SelfExplainer, sentences: list[AgreementSentence], batch_size: int = 32
) -> pd.DataFrame:
    """Mean confusion (and its standard error) per kind, distractor condition and layer."""
    scores, kinds, distractors = [], [], []
    for start in range(0, len(sentences), batch_size):
        chunk = sentences[start : start + batch_size]
        pairs = [""] * len(chunk) if explainer.config.pair else None
        batch = explainer.plan([s.text for s in chunk], pairs, long="truncate").batches[0][1]
        out = explainer.run(batch, attentions=True)
        attn = torch.stack(out.attentions).cpu()
        offsets = torch.tensor(batch.offsets)
        real = batch.token_mask & (batch.segment_ids == 0)
        masks = [
            _char_mask(offsets, real, torch.tensor([getattr(s, role) for s in chunk]))
            for role in ("target", "antecedent", "other")
        ]
        scores.append(confusion_scores(attn, *masks).mean(dim=2))  # mean over heads: [L, B]
        kinds += [s.kind for s in chunk]
        distractors += [s.distractor for s in chunk]
    values = torch.cat(scores, dim=1).numpy()  # [L, S]
    frame = pd.DataFrame(
        {
            "kind": np.repeat([kinds], values.shape[0], 0).ravel(),
            "distractor": np.repeat([distractors], values.shape[0], 0).ravel(),
        }
    )
    frame["layer"] = np.repeat(np.arange(1, values.shape[0] + 1), values.shape[1])
    frame["confusion"] = values.ravel()
    grouped = frame.groupby(["kind", "distractor", "layer"])["confusion"]
    table = grouped.agg(["mean", "sem", "size"]).reset_index()
    return table.rename(columns={"mean": "confusion", "size": "sentences"})
