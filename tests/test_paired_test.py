"""selfexplain paired-test (lab/measures): two models' accuracy over seeds and McNemar's exact test per seed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from selfexplain.cli import main
from selfexplain.lab.measures.paired_test import mcnemar


def _predictions(path: Path, right: list[bool]) -> Path:
    rows = [{"text": f"t{i}", "gold": "pos", "predicted": "pos" if ok else "neg"} for i, ok in enumerate(right)]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_mcnemar_counts_the_discordant_pairs() -> None:
    a = np.array([True, True, True, False, True])
    b = np.array([False, False, True, True, True])
    assert mcnemar(a, b) == (2, 1, pytest.approx(1.0))
    assert mcnemar(a, a) == (0, 0, 1.0)
    only_a, only_b, p = mcnemar(np.ones(10, bool), np.zeros(10, bool))
    assert (only_a, only_b) == (10, 0) and p == pytest.approx(2 * 0.5**10)


def test_the_command_prints_a_row_per_seed_and_the_mean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = [
        _predictions(tmp_path / "a1.jsonl", [True, True, True, False]),
        _predictions(tmp_path / "b1.jsonl", [True, False, False, False]),
        _predictions(tmp_path / "a2.jsonl", [True, True, False, False]),
        _predictions(tmp_path / "b2.jsonl", [True, True, False, False]),
    ]
    assert main(["paired-test", *map(str, files)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "| seed pair | A acc. | B acc. | A right, B wrong | B right, A wrong | McNemar p |"
    assert printed[2] == "| 1 | 0.7500 | 0.2500 | 2 | 0 | 0.500 |"
    assert printed[3] == "| 2 | 0.5000 | 0.5000 | 0 | 0 | 1.000 |"
    assert printed[-1].startswith("A: 0.6250 ± 0.1768   B: 0.3750 ± 0.1768   (2 seeds")


def test_unpaired_or_mismatched_files_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _predictions(tmp_path / "a.jsonl", [True, False])
    b = _predictions(tmp_path / "b.jsonl", [True])
    assert main(["paired-test", str(a)]) == 2
    assert "in pairs" in capsys.readouterr().err
    assert main(["paired-test", str(a), str(b)]) == 2
    assert "different numbers of examples" in capsys.readouterr().err
