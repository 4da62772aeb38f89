"""Reader for the Stanford Sentiment Treebank as PTB trees (``../shared/data/sst_trees``).

Every node of a tree such as ``(3 (2 It) (4 (2 's) (4 good)))`` carries a sentiment label.
Read as sentences, a tree gives one example (the root); read as phrases, it also gives
every labelled subtree of at least ``min_phrase_words`` words, which is how SST models
are usually trained. Phrases are deduplicated by text across the file (first label kept),
and sentences always come first so that ``phrases=False`` and ``phrases=True`` agree on them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from selfexplain.data import DataError, Example, _label_index, _lines

# PTB escapes that the sentence-level SST files keep in lower case; the encoder is uncased.
_ESCAPES = {"-LRB-": "-lrb-", "-RRB-": "-rrb-"}


def parse_tree(line: str, where: str) -> list[tuple[int, list[str]]]:
    """All labelled nodes of one tree, root first, as ``(label, words)``.

    Iterative (no recursion limit on deep trees); raises :class:`DataError` on unbalanced
    brackets or a node without a label.
    """
    nodes: list[tuple[int, list[str]]] = []
    stack: list[tuple[int, list[str]]] = []
    tokens = line.replace("(", " ( ").replace(")", " ) ").split()
    position = 0
    while position < len(tokens):
        token = tokens[position]
        if token == "(":
            if position + 1 >= len(tokens) or not tokens[position + 1].isdigit():
                raise DataError(f"{where}: a tree node without a numeric label")
            node = (int(tokens[position + 1]), [])
            nodes.append(node)
            stack.append(node)
            position += 2
            continue
        if token == ")":
            if not stack:
                raise DataError(f"{where}: unbalanced ')' in tree")
            finished = stack.pop()
            if stack:
                stack[-1][1].extend(finished[1])
        else:
            if not stack:
                raise DataError(f"{where}: a word outside any tree node")
            stack[-1][1].append(_ESCAPES.get(token, token))
        position += 1
    if stack or not nodes:
        raise DataError(f"{where}: unbalanced '(' in tree" if stack else f"{where}: empty tree")
    return nodes


def read_sst_trees(
    path: Path,
    label_names: Sequence[str] | None = None,
    phrases: bool = False,
    min_phrase_words: int = 1,
) -> list[Example]:
    """Examples from a file of SST trees: root sentences, then (optionally) unique phrases."""
    sentences: list[Example] = []
    phrase_examples: list[Example] = []
    seen: set[str] = set()
    for number, line in _lines(path):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        nodes = parse_tree(line, where)
        for depth, (label, words) in enumerate(nodes):
            text = " ".join(words)
            if depth == 0:
                sentences.append(Example(text=text, label=_label_index(label, label_names, where)))
            elif phrases and len(words) >= min_phrase_words and text not in seen:
                seen.add(text)
                phrase_examples.append(Example(text=text, label=_label_index(label, label_names, where)))
    sentence_texts = {e.text for e in sentences}
    return sentences + [e for e in phrase_examples if e.text not in sentence_texts]
