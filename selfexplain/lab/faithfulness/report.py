"""Write a finished run's tables and figures into its folder (CSV, Markdown, offline HTML;
PNG where kaleido and a Chrome/Chromium browser are at hand, see :mod:`selfexplain.views.files`).

The CSV files keep registry names and metric keys (for scripts); ``summary.md`` and the figures
show method names and metric names with the better direction (:mod:`.labels`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from selfexplain.lab.faithfulness import figures, summary
from selfexplain.lab.faithfulness.labels import metric_legend, readable
from selfexplain.views.files import WrittenFigures, write_figures


def markdown_table(frame: pd.DataFrame, digits: int = 4) -> str:
    """A GitHub Markdown table (no tabulate dependency)."""
    columns = [str(c) for c in frame.columns]
    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    for values in frame.itertuples(index=False):
        cells = [f"{v:.{digits}f}" if isinstance(v, float) else str(v) for v in values]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def write_report(rows: Sequence[dict], out: Path) -> tuple[dict[str, pd.DataFrame], WrittenFigures]:
    """Write summary.csv/.md, tau.csv, alpha_tests.csv and the figures; return the tables and
    what figure files were written."""
    tables = {
        "summary": summary.summary_table(rows),
        "tau": summary.tau_matrix(rows),
        "alpha_tests": summary.alpha_table(rows),
    }
    tables["summary"].to_csv(out / "summary.csv", index=False)
    tables["tau"].to_csv(out / "tau.csv")
    tables["alpha_tests"].to_csv(out / "alpha_tests.csv", index=False)
    text = "## Faithfulness by method\n\n" + markdown_table(readable(tables["summary"]))
    text += "\n" + metric_legend(list(tables["summary"].columns)) + "\n"
    text += "\n## Tests on alpha (span layer)\n\n" + markdown_table(tables["alpha_tests"])
    (out / "summary.md").write_text(text, encoding="utf-8")
    plots = {
        "curves": figures.curve_figure(summary.curve_table(rows)),
        "flips": figures.flip_figure(summary.flip_table(rows)),
        "tau": figures.tau_figure(tables["tau"]),
    }
    return tables, write_figures(out, plots)
