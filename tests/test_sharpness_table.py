"""selfexplain sharpness-table (lab/sharpness/sweep.py): every model of the sharpness sweep in one table."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from helpers import save_tiny

from selfexplain.cli import main
from selfexplain.lab.sharpness import sweep
from selfexplain.views.files import write_figures

LINES = ["3 a fine and warm film", "1 the plot was dull , slow and boring", "2 it is a film"]


def test_the_table_measures_the_sweep_and_the_named_models(
    tiny_encoder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sweep, "write_figures", lambda folder, figures: write_figures(folder, figures, png=False))
    runs = tmp_path / "runs"
    save_tiny(tiny_encoder, runs / "sweep-sst5-sparse" / "best", normaliser="sparsemax")
    baseline = save_tiny(tiny_encoder, tmp_path / "mean-base", head="mean")
    data = tmp_path / "dev.txt"
    data.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    out = tmp_path / "table"
    command = ["sharpness-table", "--runs", str(runs), "--data", str(data), "--out", str(out), str(baseline)]
    assert main(command) == 0
    table = pd.read_csv(out / "sweep.csv")
    assert table["run"].tolist() == ["sparse", "mean-base"]
    assert table["recipe"].tolist()[1] == "mean pooling baseline"
    assert table["recipe"].tolist()[0].startswith("sparsemax, lambda ")
    assert (table["examples"] == 3).all() and table["max_alpha"].notna().tolist() == [True, False]
    assert (out / "sweep.md").is_file() and (out / "tradeoff.html").is_file()
    cached = json.loads((out / "cache" / "sparse.json").read_text())
    assert cached["examples"] == 3.0
    capsys.readouterr()
    assert main(command) == 0  # a rerun reads the cache: nothing measured again
    assert not any(line.startswith("sparse {") for line in capsys.readouterr().out.splitlines())
