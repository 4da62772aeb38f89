"""selfexplain augment-texts (lab/distill): word-dropout variants of texts, for distillation."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from selfexplain.cli import main
from selfexplain.lab.distill.augment import variants


def test_each_variant_drops_at_least_one_word_and_keeps_one() -> None:
    text = "a fine and warm film"
    found = variants(text, 20, 0.15, random.Random(0))
    assert len(found) == 20
    for variant in found:
        words = variant.split()
        assert 1 <= len(words) < 5 and all(w in text.split() for w in words)
    assert variants("alone", 3, 0.5, random.Random(0)) == []  # a one-word text has no variant


def test_the_command_writes_the_texts_then_seeded_variants(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "train.txt"
    source.write_text("3 a fine and warm film\n\n1 dull , slow and boring\n0 bad\n", encoding="utf-8")
    target = tmp_path / "out.txt"
    args = ["augment-texts", str(source), str(target), "--variants", "2", "--seed", "7", "--labelled"]
    assert main(args) == 0
    lines = target.read_text(encoding="utf-8").splitlines()
    assert lines[:3] == ["a fine and warm film", "dull , slow and boring", "bad"] and len(lines) == 7
    assert capsys.readouterr().out.strip() == f"3 texts and 4 variants written to {target}"
    assert main(args) == 0 and target.read_text(encoding="utf-8").splitlines() == lines  # the seed fixes them
