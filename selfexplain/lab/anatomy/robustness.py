"""Dataset mode for perturbations: accuracy, confidence and explanation shift before/after.

For every example and perturbation the model explains the original and the perturbed
text. Token scores become distributions over word types (lower-cased words, the
scores of a word's tokens summed, normalised): alpha's token scores and the last
layer's [CLS] attention row (mean over heads). Their shift is the base-2 Jensen-Shannon
divergence of the two distributions (0 = same, 1 = disjoint).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from selfexplain.core.pipeline import SelfExplainer
from selfexplain.core.results.attention import cls_attention_scores
from selfexplain.core.results.explanation import Explanation
from selfexplain.core.results.words import word_of_token
from selfexplain.data import Example
from selfexplain.lab.anatomy.perturb import (
    PERTURBATIONS,
    PerturbationInputs,
    example_rng,
    get_perturbation,
    shuffle_degree,
)


def word_distribution(explanation: Explanation, scores: np.ndarray) -> dict[str, float]:
    """Token scores ``[T]`` summed per lower-cased word type and normalised to sum 1."""
    words = word_of_token(explanation)
    totals: dict[str, float] = {}
    for w in range(int(words.max()) + 1 if words.size else 0):
        members = np.nonzero(words == w)[0]
        first, last = explanation.tokens[members[0]], explanation.tokens[members[-1]]
        key = explanation.segment_text(first.segment)[first.start : last.end].lower()
        totals[key] = totals.get(key, 0.0) + float(scores[members].sum())
    norm = sum(totals.values())
    return {k: v / norm for k, v in totals.items()} if norm > 0 else totals


def js_of_dicts(p: Mapping[str, float], q: Mapping[str, float]) -> float:
    """Base-2 Jensen-Shannon divergence of two distributions over word types."""
    keys = sorted(set(p) | set(q))
    a = np.array([p.get(k, 0.0) for k in keys])
    b = np.array([q.get(k, 0.0) for k in keys])
    m = 0.5 * (a + b)
    with np.errstate(divide="ignore", invalid="ignore"):
        kl_a = np.where(a > 0, a * np.log2(a / m), 0.0).sum()
        kl_b = np.where(b > 0, b * np.log2(b / m), 0.0).sum()
    return float(max(0.5 * kl_a + 0.5 * kl_b, 0.0))


def explanation_shift(before: Explanation, after: Explanation) -> tuple[float, float]:
    """``(JS of alpha word scores, JS of [CLS]-attention word scores)``."""
    alpha = js_of_dicts(
        word_distribution(before, before.token_scores()), word_distribution(after, after.token_scores())
    )
    attention = float("nan")
    if before.attentions is not None and after.attentions is not None:
        a = cls_attention_scores(before.attentions, before.token_positions)
        b = cls_attention_scores(after.attentions, after.token_positions)
        attention = js_of_dicts(word_distribution(before, a), word_distribution(after, b))
    return alpha, attention


def corpus_distractor(texts: Sequence[str], index: int, seed: int) -> str:
    """The distractor of example ``index`` in a corpus: another of its texts, drawn from the example's stream
    (the text itself only in a corpus of one)."""
    count = len(texts)
    return texts[(index + 1 + int(example_rng(seed, index).integers(max(count - 1, 1)))) % count]


def perturb_texts(
    name: str, originals: Sequence[Explanation], seed: int, antonyms: Mapping[str, str] | None = None
) -> list[str]:
    """The perturbed first text of each explained example (the registered perturbation ``name``)."""
    spec = get_perturbation(name)
    texts = [e.text for e in originals]
    inputs = [PerturbationInputs(seed, i, corpus_distractor(texts, i, seed), antonyms or {}) for i in range(len(texts))]
    return [spec.apply(texts[i], originals[i], inputs[i]) for i in range(len(texts))]


def explain_all(
    explainer: SelfExplainer,
    texts: Sequence[str],
    pairs: Sequence[str] | None,
    batch_size: int,
    desc: str,
    progress: bool,
) -> list[Explanation]:
    """Explanations with attention maps, in batches; texts are cut to fit the model."""
    out: list[Explanation] = []
    for start in tqdm(range(0, len(texts), batch_size), desc=desc, unit="batch", disable=not progress, leave=False):
        chunk = []
        for i in range(start, min(start + batch_size, len(texts))):
            text, pair, _ = explainer.truncate_to_fit(texts[i], pairs[i] if pairs is not None else None)
            chunk.append((text, pair))
        out += explainer.explain_batch([t for t, _ in chunk], [p for _, p in chunk] if pairs else None, attentions=True)
    return out


def perturbation_study(
    explainer: SelfExplainer,
    examples: Sequence[Example],
    perturbations: Sequence[str] = PERTURBATIONS,
    seed: int = 0,
    antonyms: Mapping[str, str] | None = None,
    batch_size: int = 16,
    progress: bool = True,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(summary, rows)``: one summary row per perturbation; one row per example and perturbation."""
    pairs = [e.pair or "" for e in examples] if explainer.config.pair else None
    originals = explain_all(explainer, [e.text for e in examples], pairs, batch_size, "original", progress)
    rows = []
    for name in tqdm(perturbations, desc="perturbations", unit="kind", disable=not progress):
        if get_perturbation(name).needs_antonyms and not antonyms:
            continue
        texts = perturb_texts(name, originals, seed, antonyms)
        usable = [i for i, t in enumerate(texts) if t.strip()]
        after = explain_all(
            explainer,
            [texts[i] for i in usable],
            [pairs[i] for i in usable] if pairs else None,
            batch_size,
            name,
            progress,
        )
        for i, new in zip(usable, after):
            old, gold = originals[i], examples[i].label
            js_alpha, js_attention = explanation_shift(old, new)
            rows.append(
                {
                    "perturbation": name,
                    "index": i,
                    "original": old.text,
                    "perturbed": new.text,
                    "changed": old.text != new.text,
                    "shuffle_degree": shuffle_degree(old.text, new.text),
                    "label_before": old.label,
                    "label_after": new.label,
                    "correct_before": (old.predicted_index == gold) if gold is not None else np.nan,
                    "correct_after": (new.predicted_index == gold) if gold is not None else np.nan,
                    "confidence_before": old.confidence,
                    "confidence_after": new.confidence,
                    "flipped": old.predicted_index != new.predicted_index,
                    "js_alpha": js_alpha,
                    "js_attention": js_attention,
                }
            )
    table = pd.DataFrame(rows)
    return summarise(table), table


def summarise(table: pd.DataFrame) -> pd.DataFrame:
    """Mean of every measure per perturbation, plus the accuracy drop (before - after)."""
    if table.empty:
        return pd.DataFrame()
    numeric = table.astype({"correct_before": float, "correct_after": float, "changed": float, "flipped": float})
    summary = numeric.groupby("perturbation", sort=False).agg(
        examples=("index", "size"),
        changed=("changed", "mean"),
        accuracy_before=("correct_before", "mean"),
        accuracy_after=("correct_after", "mean"),
        confidence_before=("confidence_before", "mean"),
        confidence_after=("confidence_after", "mean"),
        flip_rate=("flipped", "mean"),
        shuffle_degree=("shuffle_degree", "mean"),
        js_alpha=("js_alpha", "mean"),
        js_attention=("js_attention", "mean"),
    )
    summary["accuracy_drop"] = summary["accuracy_before"] - summary["accuracy_after"]
    return summary.reset_index()
