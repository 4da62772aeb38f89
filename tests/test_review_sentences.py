"""selfexplain review-sentences (lab/distill): the movie reviews' sentences, tags dropped, as distillation text."""

from __future__ import annotations

from pathlib import Path

import pytest

from selfexplain.cli import main
from selfexplain.lab.distill.reviews import sentences, without_end_mark


def review_sentences(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    """``selfexplain review-sentences ARGS``: exit code, stdout, stderr."""
    code = main(["review-sentences", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_review_splits_after_each_end_mark_and_loses_its_tags() -> None:
    review = "plot : two couples meet . <NEG> what's the deal ? </NEG> find out . . . a <POS>fine film</POS> !"
    assert sentences(review) == [
        "plot : two couples meet .", "what's the deal ?", "find out .", "a fine film !"
    ]  # fmt: skip
    assert sentences("no end mark here") == ["no end mark here"]


def test_the_command_keeps_sentences_of_the_chosen_length_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reviews = tmp_path / "reviews" / "withRats_pos"
    reviews.mkdir(parents=True)
    (reviews / "posR_000.txt").write_text("one two three four . too short . one two three four .")
    (reviews / "posR_001.txt").write_text("<POS> five words make a sentence </POS> !")
    out = tmp_path / "sentences.txt"
    code, said, _ = review_sentences(capsys, tmp_path / "reviews", out, "--min-words", 4, "--max-words", 6)
    assert code == 0
    assert out.read_text().splitlines() == ["one two three four .", "five words make a sentence !"]
    assert "2 sentences from 2 reviews" in said


def test_ended_and_sample_choose_a_seeded_subset_of_ended_sentences(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reviews = tmp_path / "reviews"
    reviews.mkdir()
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]
    text = " ".join(f"{w} is a word ." for w in words) + " an unended last sentence"
    (reviews / "r.txt").write_text(text)

    def run(*extra: str) -> tuple[list[str], str]:
        out = tmp_path / "out.txt"
        code, said, _ = review_sentences(capsys, reviews, out, "--min-words", 4, *extra)
        assert code == 0
        return out.read_text().splitlines(), said

    everything, _ = run()
    assert everything[-1] == "an unended last sentence"
    ended, _ = run("--ended")
    assert ended == [f"{w} is a word ." for w in words]
    first, said = run("--ended", "--sample", "3", "--seed", "40")
    again, _ = run("--ended", "--sample", "3", "--seed", "40")
    other, _ = run("--ended", "--sample", "3", "--seed", "41")
    assert first == again and len(first) == 3 and set(first) < set(ended)
    assert other != first
    assert "3 of 6 sentences" in said


def test_a_sample_larger_than_the_sentences_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    reviews = tmp_path / "reviews"
    reviews.mkdir()
    (reviews / "r.txt").write_text("one two three four .")
    code, _, err = review_sentences(capsys, reviews, tmp_path / "o.txt", "--sample", 2)
    assert code == 2 and "only 1 sentences match" in err
    assert not (tmp_path / "o.txt").exists()


def test_drop_end_mark_removes_the_closing_marks_after_the_same_choice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    drop = without_end_mark
    assert drop("a fine film !") == "a fine film"
    assert drop("wait for it . . .") == "wait for it"
    assert drop("no mark here") == "no mark here"
    assert drop(". . .") == "."  # a sentence of end marks keeps one word rather than vanish
    reviews = tmp_path / "reviews"
    reviews.mkdir()
    (reviews / "r.txt").write_text(" ".join(f"{w} is a word !" for w in ["alpha", "beta", "gamma", "delta"]))

    def run(*extra: str) -> list[str]:
        out = tmp_path / "out.txt"
        common = ["--min-words", "4", "--max-words", "5", "--ended", "--sample", "2", "--seed", "7"]
        assert review_sentences(capsys, reviews, out, *common, *extra)[0] == 0
        return out.read_text().splitlines()

    ended, dropped = run(), run("--drop-end-mark")
    assert [s.removesuffix(" !") for s in ended] == dropped
    assert all(not s.endswith("!") for s in dropped)


def test_sentences_that_differ_only_in_their_end_mark_are_written_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reviews = tmp_path / "reviews"
    reviews.mkdir()
    (reviews / "r.txt").write_text("a fine film indeed . a fine film indeed ! another one here .")
    out = tmp_path / "out.txt"
    code, said, _ = review_sentences(capsys, reviews, out, "--min-words", 4, "--drop-end-mark")
    assert code == 0
    assert out.read_text().splitlines() == ["a fine film indeed", "another one here"]
    assert "2 sentences" in said
