"""scripts/review_sentences.py: the movie reviews' sentences, tags dropped, as distillation text."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from helpers import load_script

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "review_sentences.py"


def test_a_review_splits_after_each_end_mark_and_loses_its_tags() -> None:
    review = "plot : two couples meet . <NEG> what's the deal ? </NEG> find out . . . a <POS>fine film</POS> !"
    assert load_script("review_sentences").sentences(review) == [
        "plot : two couples meet .", "what's the deal ?", "find out .", "a fine film !"
    ]  # fmt: skip
    assert load_script("review_sentences").sentences("no end mark here") == ["no end mark here"]


def test_the_script_keeps_sentences_of_the_chosen_length_once(tmp_path: Path) -> None:
    reviews = tmp_path / "reviews" / "withRats_pos"
    reviews.mkdir(parents=True)
    (reviews / "posR_000.txt").write_text("one two three four . too short . one two three four .")
    (reviews / "posR_001.txt").write_text("<POS> five words make a sentence </POS> !")
    out = tmp_path / "sentences.txt"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path / "reviews"), str(out), "--min-words", "4", "--max-words", "6"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert out.read_text().splitlines() == ["one two three four .", "five words make a sentence !"]
    assert "2 sentences from 2 reviews" in done.stdout
