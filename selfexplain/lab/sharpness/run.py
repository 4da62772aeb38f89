"""Running the sharpness measures over examples with a loaded model, in batches: every column of
:data:`~selfexplain.lab.sharpness.registry.COLUMNS`, in file order, each computed over a whole batch."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from tqdm.auto import tqdm

from selfexplain.core.pipeline import SelfExplainer
from selfexplain.core.results.explanation import Explanation
from selfexplain.data import Example
from selfexplain.lab.plausibility.sst_phrases import PhraseIndex
from selfexplain.lab.sharpness.instances import batch_instances
from selfexplain.lab.sharpness.measures_model import DRAWS
from selfexplain.lab.sharpness.registry import COLUMNS, Batch, Column

Rationales = Sequence[Sequence[tuple[int, int]]]  # per example: human rationale [start, end) characters
Row = dict[str, float | str]


@dataclass(frozen=True)
class SharpnessOptions:
    """``seed``/``draws``: the random deletions of ``deletion_beats_random``; ``phrases``: the SST
    phrase labels of the sentences (adds ``sst_phrase_agreement``); ``rationales``: one list of
    human rationale spans per example, in example order (adds ``rationale_token_f1``)."""

    seed: int = 0
    draws: int = DRAWS
    phrases: PhraseIndex | None = None
    rationales: Rationales | None = None


def measure_examples(
    explainer: SelfExplainer,
    examples: Sequence[Example],
    batch_size: int = 32,
    progress: bool = True,
    options: SharpnessOptions | None = None,
) -> list[Row]:
    """One row per example: the text, predicted label, pair and gold label (when the example has them),
    then every column of :data:`~selfexplain.lab.sharpness.registry.COLUMNS` that applies to the run
    (``accuracy`` with a gold label, ``sst_phrase_agreement`` with ``options.phrases``,
    ``rationale_token_f1`` with ``options.rationales``), in file order."""
    options = options or SharpnessOptions()
    if options.rationales is not None and len(options.rationales) != len(examples):
        raise ValueError(f"{len(options.rationales)} rationale lists for {len(examples)} examples")
    columns = list(COLUMNS.values())
    rows: list[Row] = []
    pieces: dict[str, list[np.ndarray]] = {c.key: [] for c in columns if c.finish is not None}
    starts = range(0, len(examples), batch_size)
    for lo in tqdm(starts, desc="sharpness", unit="batch", disable=not progress):
        chunk = examples[lo : lo + batch_size]
        pairs = [e.pair or "" for e in chunk] if explainer.config.pair else None
        batch = Batch(explainer, chunk, batch_instances(explainer, [e.text for e in chunk], pairs), lo, options)
        batch_rows = [input_row(explainer, e, x) for e, x in zip(chunk, batch.explanations)]
        for column in columns:
            values = column.compute(batch)
            if values is None:
                continue
            if column.finish is None:
                write(batch_rows, column, values)
            else:
                pieces[column.key].append(values)
        rows.extend(batch_rows)
    for column in columns:
        if column.finish is not None and pieces[column.key]:
            gathered = np.concatenate(pieces[column.key])  # [E]
            if gathered.shape[0] != len(rows):
                raise ValueError(f"column {column.key!r} gathered {gathered.shape[0]} pieces for {len(rows)} inputs")
            write(rows, column, column.finish(gathered, options))
    return rows


def input_row(explainer: SelfExplainer, example: Example, explanation: Explanation) -> Row:
    """The columns that name the input: ``text``, ``predicted``, then ``pair`` and ``gold`` when it has them."""
    row: Row = {"text": example.text, "predicted": explanation.label}
    if example.pair is not None:
        row["pair"] = example.pair
    if example.label is not None:
        row["gold"] = explainer.config.label_names[example.label]
    return row


def write(rows: Sequence[Row], column: Column, values: np.ndarray) -> None:
    """Put ``values`` ``[R]`` or ``[R, 1 + A]`` (:data:`~selfexplain.lab.sharpness.registry.Compute`) into
    ``rows`` ``[R]`` under ``column.names``, as Python floats or texts; a masked value is left out of its row."""
    names = column.names
    table = values.reshape(len(rows), len(names))  # [R, 1 + A]
    hidden = np.ma.getmaskarray(table).tolist()
    for row, cells, skip in zip(rows, np.ma.getdata(table).tolist(), hidden):
        row.update({name: cell for name, cell, masked in zip(names, cells, skip) if not masked})
