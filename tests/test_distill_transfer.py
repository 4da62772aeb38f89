"""``selfexplain fidelity --deletion``: does deleting a surrogate's top span move its teacher more than
deleting a random span (:mod:`selfexplain.lab.distill.transfer`)?"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_distill import _distill, _texts, bert_teacher

from selfexplain.data import Example


@pytest.fixture(scope="module")
def teacher(tiny_encoder: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return bert_teacher(tiny_encoder, tmp_path_factory.mktemp("transfer-teacher"))


def test_teacher_deletion_of_a_model_against_itself_is_its_own_deletion_measure(tiny_model_dir: Path) -> None:
    """With the surrogate as its own teacher, the teacher-side measure is ``sharpness``'s own
    ``deletion_beats_random`` (same places, same seed): the measure reads the teacher's drops."""
    import numpy as np

    from selfexplain.core.pipeline import load_model
    from selfexplain.lab.distill.predictor import load_teacher
    from selfexplain.lab.distill.transfer import teacher_deletion
    from selfexplain.lab.sharpness.run import measure_examples

    explainer = load_model(str(tiny_model_dir))
    texts = ["a dull and long film", "bright warm fun all through the night", "the plot is thin", "so slow"] * 3
    examples = [Example(t) for t in texts]
    own = measure_examples(explainer, examples, progress=False)
    result = teacher_deletion(explainer, load_teacher(str(tiny_model_dir)), examples, progress=False)
    beats = np.array([row["deletion_beats_random"] for row in own], dtype=float)
    assert result.measured == int((~np.isnan(beats)).sum()) > 0 and result.inputs == 12
    assert result.beats == pytest.approx(float(np.nanmean(beats)))
    assert result.beats_where_agreeing == pytest.approx(result.beats)
    drops = np.array([row["top_deletion_drop"] for row in own], dtype=float)
    assert result.top_drop == pytest.approx(float(np.nanmean(drops)), abs=1e-6)


@pytest.mark.slow
def test_fidelity_deletion_reads_the_teacher(teacher: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    texts = _texts(tmp_path / "texts.txt")
    out = tmp_path / "student"
    assert _distill(teacher, texts, out, "--normaliser", "sparsemax", "--epochs", "1") == 0
    capsys.readouterr()
    from selfexplain.cli import main

    argv = ["fidelity", "--model", str(out / "best"), "--teacher", str(teacher), "--data", str(texts), "--deletion"]
    assert main([*argv, "--no-progress", "--no-fused"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    figures = json.loads(lines[-1])
    assert lines[-2].startswith("deleting the surrogate's top span lowers the teacher's probability more")
    assert figures["deletion_inputs"] == 48 and 0 < figures["deletion_measured"] <= 48
    assert 0.0 <= figures["teacher_deletion_beats_random"] <= 1.0
