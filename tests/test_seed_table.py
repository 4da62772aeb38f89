"""scripts/seed_table.py: one row per seed and the mean ± sample sd of each figure over the seeds."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "seed_table.py"


def _seed(folder: Path, tag: str, dev: float, test: float, uniform: list[float], words: list[int]) -> None:
    (folder / f"{tag}-dev.json").write_text(json.dumps({"accuracy": dev}))
    (folder / f"{tag}-test.json").write_text(json.dumps({"accuracy": test}))
    rows = pd.DataFrame(
        {"text": ["a", "b", "c", "d"], "predicted": ["x"] * 4, "accuracy": [1.0, 1.0, 0.0, 1.0],
         "uniform_agreement": uniform, "top_span_words": words, "deletion_beats_random": [1.0, 1.0, 1.0, 0.0]}
    )  # fmt: skip
    for part in ("test300", "heldout"):
        (folder / f"{tag}-sharp-{part}").mkdir()
        rows.to_csv(folder / f"{tag}-sharp-{part}" / "sharpness.csv", index=False)


def test_rows_and_mean_with_sample_sd(tmp_path: Path) -> None:
    _seed(tmp_path, "s42", 0.535, 0.552, [0.0, 0.0, 0.0, 1.0], [1, 1, 2, 3])
    _seed(tmp_path, "s43", 0.545, 0.560, [0.0, 1.0, 1.0, 1.0], [1, 2, 3, 3])
    command = [sys.executable, str(SCRIPT), "--folder", str(tmp_path), "s42", "s43"]
    table = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    lines = table.strip().splitlines()
    assert lines[0].startswith("| seed | dev acc. ↑ | test acc. ↑ | held-out acc. ↑ |")
    assert lines[2].startswith("| s42 | 53.5 | 55.2 | 75.0 |")
    # test accuracy 55.2 and 56.0: mean 55.6, sample sd 0.57; uniform 25% and 75%: 50.0 ± 35.4
    mean = lines[4].split(" | ")
    assert mean[0] == "| mean ± sd (2 seeds)" and mean[2] == "55.6 ± 0.6"
    assert "50.0 ± 35.4" in lines[4]
    # median top-span words: 1.5 and 2.5 words, not percentages
    assert "2.0 ± 0.7" in lines[4]
    assert "SST phrase" not in lines[0]  # a measure no seed has is left out


def test_long_review_columns_where_measured(tmp_path: Path) -> None:
    _seed(tmp_path, "s42", 0.923, 0.941, [1.0, 1.0, 0.0, 0.0], [1, 1, 1, 1])
    _seed(tmp_path, "s44", 0.920, 0.932, [1.0, 0.0, 0.0, 0.0], [1, 1, 1, 1])
    for tag, accuracy, auprc in (("s42", 0.870, 0.132), ("s44", 0.817, 0.122)):
        (tmp_path / f"{tag}-movies-300-eval.json").write_text(json.dumps({"accuracy": accuracy}))
        figures = {"alpha": {"auprc": auprc}, "random": {"auprc": 0.084}}
        (tmp_path / f"{tag}-plausibility-movies.json").write_text(json.dumps(figures))
    command = [sys.executable, str(SCRIPT), "--folder", str(tmp_path), "s42", "s44"]
    lines = subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip().splitlines()
    header = lines[0].split(" | ")
    assert header[4:6] == ["long reviews acc. ↑", "long reviews: AP over random, points ↑"]
    assert lines[2].startswith("| s42 | 92.3 | 94.1 | 75.0 | 87.0 | 4.8 |")
    assert lines[3].startswith("| s44 | 92.0 | 93.2 | 75.0 | 81.7 | 3.8 |")
    assert lines[4].split(" | ")[4:6] == ["84.3 ± 3.7", "4.3 ± 0.7"]


def test_dev_table_reads_no_test_figure(tmp_path: Path) -> None:
    for tag, dev, uniform, closing, spans in (
        ("s42", 0.920, [1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [2, 3, 4, 3]),
        ("s44", 0.910, [1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [1, 2, 2, 3]),
    ):
        (tmp_path / f"{tag}-dev.json").write_text(json.dumps({"accuracy": dev}))
        rows = pd.DataFrame(
            {"text": list("abcd"), "predicted": ["x"] * 4, "uniform_agreement": uniform, "top_span_words": [1, 1, 2, 1],
             "nonzero_spans": spans, "closing_punctuation": closing, "deletion_beats_random": [1.0, 1.0, 1.0, 0.0]}
        )  # fmt: skip
        (tmp_path / f"{tag}-sharp-dev300").mkdir()
        rows.to_csv(tmp_path / f"{tag}-sharp-dev300" / "sharpness.csv", index=False)
    # no TAG-test.json exists: the dev table must not need one
    command = [sys.executable, str(SCRIPT), "--dev", "300", "--folder", str(tmp_path), "s42", "s44"]
    lines = subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip().splitlines()
    header = lines[0].split(" | ")
    assert header[1:] == ["dev acc. ↑", "dev: median top-span words ↓", "dev: spans with alpha > 0 ↑",
                          "dev: deletion beats random ↑", "dev: kept, uniform alpha ↓",
                          "dev: ends on closing punctuation ↓ |"]  # fmt: skip
    assert lines[2] == "| s42 | 92.0 | 1.0 | 3.0 | 75.0 | 25.0 | 0.0 |"
    assert lines[3] == "| s44 | 91.0 | 1.0 | 2.0 | 75.0 | 50.0 | 25.0 |"
    # span counts stay counts in the mean row: 3.0 and 2.0 spans, 2.5 ± 0.7
    mean = "| mean ± sd (2 seeds) | 91.5 ± 0.7 | 1.0 ± 0.0 | 2.5 ± 0.7 | 75.0 ± 0.0 | 37.5 ± 17.7 | 12.5 ± 17.7 |"
    assert lines[4] == mean
