from __future__ import annotations

from pathlib import Path

import pytest

from selfexplain.core.formats.examples import read_examples
from selfexplain.core.formats.sst_trees import parse_tree
from selfexplain.data import DataError, Example

TREES = (
    "(3 (2 It) (4 (2 's) (4 (3 (2 a) (4 (3 lovely) (2 film))) (2 .))))\n"
    "\n"
    "(1 (2 -LRB-) (1 (1 (2 a) (1 dull) (2 film)) (2 -RRB-)))\n"
)


def test_parse_tree_gives_every_node_root_first() -> None:
    nodes = parse_tree("(3 (2 It) (4 (3 lovely) (2 film)))", "x")
    assert nodes == [
        (3, ["It", "lovely", "film"]),
        (2, ["It"]),
        (4, ["lovely", "film"]),
        (3, ["lovely"]),
        (2, ["film"]),
    ]


@pytest.mark.parametrize(
    ("tree", "message"),
    [("(3 (2 It) (4 good)", "unbalanced '\\('"), ("(3 (2 It)))", "unbalanced '\\)'"), ("(x It)", "numeric label")],
)
def test_malformed_trees_name_the_line(tree: str, message: str) -> None:
    with pytest.raises(DataError, match=f"where: .*{message}"):
        parse_tree(tree, "where")


def test_tree_file_reads_sentences_like_the_sst_lines(tmp_path: Path) -> None:
    path = tmp_path / "train.txt"
    path.write_text(TREES, encoding="utf-8")
    assert read_examples(path, txt="labelled") == [
        Example("It 's a lovely film .", None, 3),
        Example("-lrb- a dull film -rrb-", None, 1),
    ]


def test_phrases_follow_the_sentences_unique_and_filtered_by_length(tmp_path: Path) -> None:
    path = tmp_path / "train.txt"
    path.write_text(TREES + "(2 (3 lovely) (2 film))\n", encoding="utf-8")
    examples = read_examples(path, phrases=True, min_phrase_words=2, txt="labelled")
    texts = [e.text for e in examples]
    assert texts[:3] == ["It 's a lovely film .", "-lrb- a dull film -rrb-", "lovely film"]
    phrases = examples[3:]
    assert all(len(e.text.split()) >= 2 for e in phrases)
    assert len(texts) == len(set(texts))
    assert Example("a lovely film", None, 3) in phrases and Example("a dull film", None, 1) in phrases
    assert len(read_examples(path, phrases=True, txt="labelled")) > len(examples)


def test_phrases_on_a_plain_sst_file_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "train.txt"
    path.write_text("4 a fine film\n", encoding="utf-8")
    with pytest.raises(DataError, match="phrases need an SST tree file"):
        read_examples(path, phrases=True, txt="labelled")
