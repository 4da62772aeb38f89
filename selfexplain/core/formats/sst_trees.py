"""Reader for the Stanford Sentiment Treebank as PTB trees (``../shared/data/sst_trees``).

Every node of a tree such as ``(3 (2 It) (4 (2 's) (4 good)))`` carries a sentiment label.
Read as sentences, a tree gives one example (the root); read as phrases, it also gives
every labelled subtree of at least ``min_phrase_words`` words, which is how SST models
are usually trained. Phrases are deduplicated by text across the file (first label kept),
and sentences always come first so that ``phrases=False`` and ``phrases=True`` agree on them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from selfexplain.core.formats.text import source_name, text_lines
from selfexplain.data import DataError, Example, label_index

# PTB escapes that the sentence-level SST files keep in lower case; the encoder is uncased.
_ESCAPES = {"-LRB-": "-lrb-", "-RRB-": "-rrb-"}


@dataclass(frozen=True)
class TreeNode:
    """One labelled node: its ``words`` start at word ``first`` of the sentence."""

    label: int
    words: list[str]
    first: int


def tree_nodes(line: str, where: str) -> list[TreeNode]:
    """All labelled nodes of one tree, root first (depth-first, left to right).

    Iterative (no recursion limit on deep trees); raises :class:`DataError` on unbalanced
    brackets or a node without a label.
    """
    nodes: list[TreeNode] = []
    stack: list[TreeNode] = []
    words_seen = 0
    tokens = line.replace("(", " ( ").replace(")", " ) ").split()
    position = 0
    while position < len(tokens):
        token = tokens[position]
        if token == "(":
            if position + 1 >= len(tokens) or not (tokens[position + 1].isascii() and tokens[position + 1].isdecimal()):
                raise DataError(f"{where}: a tree node without a numeric label")
            node = TreeNode(int(tokens[position + 1]), [], words_seen)
            nodes.append(node)
            stack.append(node)
            position += 2
            continue
        if token == ")":
            if not stack:
                raise DataError(f"{where}: unbalanced ')' in tree")
            finished = stack.pop()
            if stack:
                stack[-1].words.extend(finished.words)
        else:
            if not stack:
                raise DataError(f"{where}: a word outside any tree node")
            stack[-1].words.append(_ESCAPES.get(token, token))
            words_seen += 1
        position += 1
    if stack or not nodes:
        raise DataError(f"{where}: unbalanced '(' in tree" if stack else f"{where}: empty tree")
    return nodes


def parse_tree(line: str, where: str) -> list[tuple[int, list[str]]]:
    """All labelled nodes of one tree, root first, as ``(label, words)`` (see :func:`tree_nodes`)."""
    return [(node.label, node.words) for node in tree_nodes(line, where)]


def read_sst_trees(
    path: str | Path | bytes,
    label_names: Sequence[str] | None = None,
    phrases: bool = False,
    min_phrase_words: int = 1,
    name: str | None = None,
) -> list[Example]:
    """Examples from a file of SST trees (or an upload's bytes, called ``name`` in messages): root
    sentences, then (optionally) unique phrases."""
    sentences: list[Example] = []
    phrase_examples: list[Example] = []
    seen: set[str] = set()
    name = source_name(path, name)
    for number, line in text_lines(path, name):
        if not line.strip():
            continue
        where = f"{name}:{number}"
        nodes = parse_tree(line, where)
        for depth, (label, words) in enumerate(nodes):
            text = " ".join(words)
            if depth == 0:
                sentences.append(Example(text=text, label=label_index(label, label_names, where)))
            elif phrases and len(words) >= min_phrase_words and text not in seen:
                seen.add(text)
                phrase_examples.append(Example(text=text, label=label_index(label, label_names, where)))
    sentence_texts = {e.text for e in sentences}
    return sentences + [e for e in phrase_examples if e.text not in sentence_texts]
