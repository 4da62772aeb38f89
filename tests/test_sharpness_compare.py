"""Two models' sharpness rows compared with the decision held fixed (no model: hand-built rows)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from selfexplain.cli import main
from selfexplain.errors import DataError
from selfexplain.lab.sharpness.compare import (
    by_class,
    decision_summaries,
    markdown_by_class,
    markdown_differences,
    paired_differences,
    same_decision,
)

TEXTS = ["a", "b", "c", "d", "e", "f"]


def frames() -> dict[str, pd.DataFrame]:
    """Inputs 0-3 decided alike (pos, pos, neg, neg), 4-5 not; deletion NaN on input 5 for ``one``."""
    one = pd.DataFrame(
        {
            "text": TEXTS,
            "predicted": ["pos", "pos", "neg", "neg", "pos", "neu"],
            "deletion_beats_random": [1.0, 0.0, 1.0, 1.0, 0.0, np.nan],
            "top1_agreement": [1.0, 1.0, 0.0, 1.0, 1.0, 1.0],
        }
    )
    two = pd.DataFrame(
        {
            "text": TEXTS,
            "predicted": ["pos", "pos", "neg", "neg", "neg", "pos"],
            "deletion_beats_random": [1.0, 1.0, 0.0, 1.0, 1.0, 1.0],
            "top1_agreement": [0.0, 0.0, 0.0, 1.0, 0.0, 1.0],
        }
    )
    return {"one": one, "two": two}


def test_same_decision_marks_the_inputs_both_models_call_alike() -> None:
    one, two = frames().values()
    assert same_decision(one, two).tolist() == [True, True, True, True, False, False]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda f: f.iloc[:5], "hold 6 and 5 inputs"),
        (lambda f: f.assign(text=["a", "b", "x", "d", "e", "f"]), "input 3 differs"),
        (lambda f: f.drop(columns="predicted"), "text and predicted"),
        (lambda f: f.assign(pair=["p"] * 6), "'pair' column"),
    ],
)
def test_files_of_different_inputs_are_refused(change, message: str) -> None:
    one, two = frames().values()
    with pytest.raises(DataError, match=message):
        same_decision(one, change(two))


def test_decision_summaries_average_each_part() -> None:
    summaries = decision_summaries(frames())
    assert list(summaries) == [
        "one: all inputs",
        "two: all inputs",
        "one: same decision",
        "two: same decision",
        "one: different decision",
        "two: different decision",
    ]
    assert summaries["one: all inputs"]["deletion_beats_random"] == pytest.approx(3 / 5)
    assert summaries["one: same decision"]["deletion_beats_random"] == pytest.approx(3 / 4)
    assert summaries["two: same decision"]["deletion_beats_random"] == pytest.approx(3 / 4)
    assert summaries["one: different decision"]["deletion_beats_random"] == 0.0
    assert summaries["one: different decision"]["n:deletion_beats_random"] == 1.0  # the NaN is skipped
    assert summaries["two: different decision"]["top1_agreement"] == pytest.approx(0.5)
    assert summaries["two: same decision"]["examples"] == 4.0


def test_decision_summaries_leave_out_an_empty_part() -> None:
    one = frames()["one"]
    assert list(decision_summaries({"x": one, "y": one.copy()})) == [
        "x: all inputs",
        "y: all inputs",
        "x: same decision",
        "y: same decision",
    ]


def test_by_class_counts_means_and_the_other_class_mix() -> None:
    table = by_class(frames())
    assert table.index.tolist() == ["neg", "neu", "pos", "(class mix of the other)"]
    assert table["one n"].tolist()[:3] == [2, 1, 3] and table["two n"].tolist()[:3] == [3, 0, 3]
    assert table.loc["pos", "one deletion_beats_random"] == pytest.approx(1 / 3)
    assert table.loc["neg", "two deletion_beats_random"] == pytest.approx(2 / 3)
    assert np.isnan(table.loc["neu", "one deletion_beats_random"])  # its one input has no value
    assert np.isnan(table.loc["neu", "two deletion_beats_random"])  # never predicted
    # one's rates (neg 1, pos 1/3) weighted by two's counts (neg 3, pos 3); two's rates (neg 2/3, pos 1)
    # by one's counts (neg 2, pos 3; one's neu has no rate of two's to weigh)
    mix = table.loc["(class mix of the other)"]
    assert mix["one deletion_beats_random"] == pytest.approx((3 * 1 + 3 / 3) / 6)
    assert mix["two deletion_beats_random"] == pytest.approx((2 * 2 / 3 + 3 * 1) / 5)
    assert mix["one n"] == 6 and mix["two n"] == 5
    lines = markdown_by_class(table).splitlines()
    assert lines[0] == "| predicted | one n | one deletion_beats_random | two n | two deletion_beats_random |"
    assert lines[3] == "| neu | 1 |  | 0 |  |"


def test_by_class_refuses_an_unknown_measure() -> None:
    with pytest.raises(DataError, match="unknown measure"):
        by_class(frames(), "nope")


def test_paired_differences_are_exact_where_the_resamples_cannot_vary() -> None:
    data = frames()
    data["one"]["uniform_agreement"] = 1.0  # lower is better: two (all 0) is ahead by exactly 1
    data["two"]["uniform_agreement"] = 0.0
    data["one"]["top_out_flip"] = [1.0, 0.0, 1.0, 0.0, 1.0, 0.0]  # differences +-1: the interval spans 0
    data["two"]["top_out_flip"] = [0.0, 1.0, 0.0, 1.0, 0.0, 1.0]
    table = paired_differences(data, draws=500, seed=3).set_index("measure")
    uniform = table.loc["prediction kept with uniform alpha"]
    assert (uniform["difference"], uniform["low"], uniform["high"]) == (-1.0, -1.0, -1.0)
    assert uniform["better"] == "two" and uniform["inputs"] == 6
    flips = table.loc["decision flips with the top span out of alpha"]
    assert flips["low"] < 0 < flips["high"] and flips["better"] == "neither"
    deletion = table.loc["deleting the top span beats deleting a random span"]
    assert deletion["inputs"] == 5  # input 6 has no value for one: left out of both means
    assert (deletion["one"], deletion["two"]) == (pytest.approx(3 / 5), pytest.approx(4 / 5))
    assert "accuracy" not in table.index  # neither frame has the column
    again = paired_differences(data, draws=500, seed=3).set_index("measure")
    pd.testing.assert_frame_equal(table, again)
    markdown = markdown_differences(table.reset_index())
    assert "| prediction kept with uniform alpha | 1.000 | 0.000 | -1.000 [-1.000, -1.000] | 6 | two |" in markdown


def test_paired_differences_refuse_a_bad_bootstrap() -> None:
    with pytest.raises(DataError, match="at least 1 draw"):
        paired_differences(frames(), draws=0)


def write(folder: Path) -> tuple[Path, Path]:
    paths = []
    for name, frame in frames().items():
        (folder / name).mkdir()
        frame.to_csv(folder / name / "sharpness.csv", index=False)
        paths.append(folder / name / "sharpness.csv")
    return paths[0], paths[1]


def test_cli_prints_and_writes_the_tables(tmp_path: Path, capsys) -> None:
    first, second = write(tmp_path)
    assert main(["sharpness-compare", str(first), str(second), "--out", str(tmp_path / "cmp")]) == 0
    printed = capsys.readouterr().out
    assert printed == (tmp_path / "cmp" / "compare.md").read_text(encoding="utf-8")
    assert "| one: same decision | 4 |" in printed and "| two: different decision | 2 |" in printed
    assert "deletion_beats_random by predicted class:" in printed
    assert "| deleting the top span beats deleting a random span | 0.600 | 0.800 | +0.200 [" in printed


@pytest.mark.parametrize(
    ("extra", "message"),
    [(["--measure", "nope"], "unknown measure"), (["--names", "x", "x"], "different --names")],
)
def test_cli_refuses_bad_input_in_one_line(tmp_path: Path, capsys, extra: list[str], message: str) -> None:
    first, second = write(tmp_path)
    assert main(["sharpness-compare", str(first), str(second), *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such file"),
        (b"text,predicted\n\xff\xfe,pos\n", "not a sharpness.csv (UnicodeDecodeError)"),
        (b"", "not a sharpness.csv (EmptyDataError)"),
        (b"text,predicted\nx,pos\ny,pos,1,2\n", "not a sharpness.csv (ParserError)"),
        (b"text,label\nx,pos\n", "needs the text and predicted columns"),
    ],
)
def test_cli_refuses_a_file_that_is_no_sharpness_csv(
    tmp_path: Path, capsys, content: bytes | None, message: str
) -> None:
    first, _ = write(tmp_path)
    other = tmp_path / "other.csv"
    if content is not None:
        other.write_bytes(content)
    assert main(["sharpness-compare", str(first), str(other)]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and str(other) in err and len(err.splitlines()) == 1
