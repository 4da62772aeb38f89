"""The per-input sharpness rows made into one number per measure: the summary dict, the Markdown
table of ``sharpness.md`` and the rows of the Faithfulness page's table."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from selfexplain.lab.sharpness.registry import MEASURES, ONE_SPAN_NOTE

COUNT_PREFIX = "n:"  # summary key of how many inputs a measure was defined on, when fewer than all


def summarise(rows: Sequence[dict[str, float | str]]) -> dict[str, float]:
    """Each measure over the inputs, NaNs skipped: the mean, or the median where the measure says
    so (NaN when no input has a value), and the input count (``examples``). A measure defined on
    fewer inputs than all also gets ``n:KEY``, the count it was averaged over."""
    summary: dict[str, float] = {"examples": float(len(rows))}
    for measure in MEASURES.values():
        values = np.array([r[measure.key] for r in rows if measure.key in r], dtype=np.float64)
        if not values.size:
            continue
        finite = values[np.isfinite(values)]
        if not finite.size:
            summary[measure.key] = float("nan")
            continue
        summary[measure.key] = float(np.median(finite) if measure.aggregate == "median" else finite.mean())
        if finite.size < len(rows):
            summary[COUNT_PREFIX + measure.key] = float(finite.size)
    return summary


def _shown(summary: dict[str, float], key: str) -> bool:
    return key in summary and bool(np.isfinite(summary[key]))


def markdown_summary(summaries: dict[str, dict[str, float]]) -> str:
    """One row per model (or run), one column per measure with a value for some model, with each
    measure's direction; ``(n=K)`` after a value averaged over fewer inputs than the row's ``n``, and
    ``†`` on the measures that are automatic when alpha has one span (explained under the table)."""
    present = [m for m in MEASURES.values() if any(_shown(s, m.key) for s in summaries.values())]
    names = [f"{m.label}{' †' if m.trivial_when_one_span else ''} {m.arrow}".rstrip() for m in present]
    lines = ["| model | n | " + " | ".join(names) + " |", "|---|---:|" + "---:|" * len(present)]
    for name, summary in summaries.items():
        cells = []
        for m in present:
            cell = f"{summary[m.key]:.3f}" if _shown(summary, m.key) else ""
            if cell and COUNT_PREFIX + m.key in summary:
                cell += f" (n={int(summary[COUNT_PREFIX + m.key])})"
            cells.append(cell)
        lines.append(f"| {name} | {int(summary['examples'])} | " + " | ".join(cells) + " |")
    if any(m.trivial_when_one_span for m in present):
        lines += ["", f"† {ONE_SPAN_NOTE}: fixed, not measured, on inputs where only one span has alpha > 0."]
    return "\n".join(lines) + "\n"


def summary_rows(summary: dict[str, float]) -> list[dict[str, str | float | int]]:
    """One row per measure with a value in ``summary``: its label, value, direction, shipped target,
    the inputs it was measured on and a note (``automatic when alpha has one span``)."""
    examples = int(summary.get("examples", 0))
    return [
        {
            "measure": m.label,
            "value": round(summary[m.key], 4),
            "better": m.better,
            "target": m.target,
            "inputs": int(summary.get(COUNT_PREFIX + m.key, examples)),
            "note": m.note,
        }
        for m in MEASURES.values()
        if _shown(summary, m.key)
    ]
