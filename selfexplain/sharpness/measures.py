"""How sharp and how decisive alpha is: the measures of docs/sharpness.md.

Per input (pure functions of an :class:`~selfexplain.explanation.Explanation`): the largest
alpha, the effective number of spans ``exp(H(alpha))``, the alpha mass of the top 3 spans,
Spearman's correlation between each token's alpha mass and the position prior
``(t + 1)(T - t)``, and the share of the top 5 spans that split a word. With the model:
whether the prediction survives alpha replaced by the uniform distribution, and whether the
model reading only its top-1 span's words predicts the same label.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import spearmanr

from selfexplain.explanation import Explanation, Span, position_prior


@dataclass(frozen=True)
class Measure:
    """A named summary number with its direction (``higher_is_better``) and the shipped target."""

    key: str
    label: str
    higher_is_better: bool
    target: str = ""


MEASURES: tuple[Measure, ...] = (
    Measure("accuracy", "accuracy", True),
    Measure("max_alpha", "mean largest alpha", True, ">= 0.30"),
    Measure("effective_spans", "effective number of spans exp(H)", False),
    Measure("top3_mass", "alpha mass of the top 3 spans", True, ">= 0.60"),
    Measure("uniform_agreement", "prediction kept with uniform alpha", False, "<= 0.70"),
    Measure("top1_agreement", "prediction kept reading only the top-1 span", True, ">= 0.75"),
    Measure("position_spearman", "Spearman(token alpha mass, position prior)", False, "<= 0.40"),
    Measure("split_word_share", "top-5 spans that split a word", False, "0"),
)


def span_alphas(explanation: Explanation) -> np.ndarray:
    """alpha of every valid span ``[V]``, in descending order."""
    return explanation.ranking[2]


def max_alpha(explanation: Explanation) -> float:
    weights = span_alphas(explanation)
    return float(weights[0]) if weights.size else float("nan")


def effective_spans(explanation: Explanation) -> float:
    """``exp(H(alpha))``: 1 for a one-hot alpha, the span count for a uniform one."""
    weights = span_alphas(explanation).astype(np.float64)
    positive = weights[weights > 0]
    return float(np.exp(-(positive * np.log(positive)).sum()))


def top_mass(explanation: Explanation, k: int = 3) -> float:
    return float(span_alphas(explanation)[:k].sum())


def position_spearman(explanation: Explanation) -> float:
    """Spearman between the tokens' alpha mass and the position prior; NaN when either is constant."""
    scores = explanation.token_scores()
    prior = position_prior(np.array([t.segment for t in explanation.tokens]))
    if scores.size < 3 or np.ptp(scores) == 0 or np.ptp(prior) == 0:
        return float("nan")
    return float(spearmanr(scores, prior).statistic)


def splits_word(explanation: Explanation, span: Span) -> bool:
    """True when the span starts or ends inside a word: a letter or digit on both sides of its edge."""
    source = explanation.segment_text(span.segment)
    before = span.start_char > 0 and source[span.start_char - 1].isalnum() and source[span.start_char].isalnum()
    after = span.end_char < len(source) and source[span.end_char - 1].isalnum() and source[span.end_char].isalnum()
    return bool(before or after)


def split_word_share(explanation: Explanation, k: int = 5) -> float:
    spans = explanation.top_spans(k)
    return float(np.mean([splits_word(explanation, s) for s in spans])) if spans else float("nan")


def top_span_input(explanation: Explanation) -> tuple[str, str | None]:
    """The input reduced to the words of the top-1 span: its text replaces its segment; the other
    text of a pair is kept (a pair model needs both)."""
    span = explanation.top_spans(1)[0]
    if span.segment == 1:
        return explanation.text, span.text
    return span.text, explanation.pair


def explanation_row(explanation: Explanation) -> dict[str, float]:
    """The model-free measures of one input."""
    return {
        "max_alpha": max_alpha(explanation),
        "effective_spans": effective_spans(explanation),
        "top3_mass": top_mass(explanation, 3),
        "position_spearman": position_spearman(explanation),
        "split_word_share": split_word_share(explanation),
        "num_spans": float(explanation.span_mask.sum()),
    }


Predict = Callable[[Sequence[str], Sequence[str] | None], np.ndarray]


def decisiveness(
    explanations: Sequence[Explanation], predict: Predict, predict_uniform: Predict
) -> list[dict[str, float]]:
    """Per input: ``uniform_agreement`` (the label survives uniform alpha) and ``top1_agreement``
    (the label survives reading only the top-1 span). ``predict``/``predict_uniform`` map texts
    (and pairs) to predicted class indices ``[B]``."""
    texts = [e.text for e in explanations]
    pairs = [e.pair or "" for e in explanations] if explanations and explanations[0].pair is not None else None
    uniform = predict_uniform(texts, pairs)
    reduced = [top_span_input(e) for e in explanations]
    reduced_pairs = [p or "" for _, p in reduced] if pairs is not None else None
    top1 = predict([t for t, _ in reduced], reduced_pairs)
    return [
        {"uniform_agreement": float(u == e.predicted_index), "top1_agreement": float(t == e.predicted_index)}
        for e, u, t in zip(explanations, uniform.tolist(), top1.tolist())
    ]


def summarise(rows: Sequence[dict[str, float]]) -> dict[str, float]:
    """Mean of each measure over the inputs (NaNs skipped) and the input count."""
    summary: dict[str, float] = {"examples": float(len(rows))}
    for measure in MEASURES:
        values = np.array([r[measure.key] for r in rows if measure.key in r], dtype=np.float64)
        if values.size:
            summary[measure.key] = float(np.nanmean(values)) if np.isfinite(values).any() else float("nan")
    return summary


def markdown_summary(summaries: dict[str, dict[str, float]]) -> str:
    """One row per model (or run), one column per measure, with each measure's direction."""
    present = [m for m in MEASURES if any(m.key in s for s in summaries.values())]
    header = "| model | n | " + " | ".join(f"{m.label} {'↑' if m.higher_is_better else '↓'}" for m in present) + " |"
    lines = [header, "|---|---:|" + "---:|" * len(present)]
    for name, summary in summaries.items():
        cells = [f"{summary[m.key]:.3f}" if m.key in summary else "" for m in present]
        lines.append(f"| {name} | {int(summary['examples'])} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def summary_rows(summary: dict[str, float]) -> list[dict[str, str | float]]:
    """One row per measure present in ``summary``: its label, value, direction and shipped target."""
    return [
        {
            "measure": m.label,
            "value": round(summary[m.key], 4),
            "better": "higher" if m.higher_is_better else "lower",
            "target": m.target,
        }
        for m in MEASURES
        if m.key in summary
    ]
