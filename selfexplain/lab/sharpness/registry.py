"""The columns of ``sharpness.csv`` and the sharpness measures by name, each with its own computation
(docs/sharpness.md, "Measures").

A :class:`Column` is one computed column of the file (or a few written together): its ``key``, what it
``reads`` besides the input's explanation, its ``rank`` and its ``compute``, a function of one
:class:`Batch` of inputs that returns the column's values for the batch. A :class:`Measure` is a column
that the summaries report: it adds its label, its direction (``higher_is_better``), the shipped model's
target and how the per-input values become one number, as ferret's metrics carry their name and sorting.

:data:`COLUMNS` holds every column in file order and :data:`MEASURES` the measures in table order (both
:class:`~selfexplain.support.registry.Registry` objects). A column registers itself where it is defined,
in a module of :mod:`selfexplain.lab.sharpness.columns` (:func:`register_column`, :func:`register_measure`);
the registries import that package when first read, so a new measure is one registration, in one of its
modules or in a new module there. :func:`~selfexplain.lab.sharpness.run.measure_examples` loops over
:data:`COLUMNS`; the summaries, the comparison of two runs and the model card read :data:`MEASURES`.

Order. The summary tables list the measures by ``rank`` (lower first). The file lists the columns that a
run computes per batch before those it computes over the whole data (``finish``), then by what they read
(:data:`READS`: the gold label, alpha alone, the model run again, people's annotations), then by ``rank``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from functools import cached_property
from typing import TYPE_CHECKING, Literal, get_args

import numpy as np

from selfexplain.support.registry import Registry

if TYPE_CHECKING:
    from selfexplain.core.pipeline import SelfExplainer
    from selfexplain.core.results.explanation import Explanation
    from selfexplain.core.results.instance import Instance
    from selfexplain.data import Example
    from selfexplain.lab.sharpness.run import SharpnessOptions

Aggregate = Literal["mean", "median"]
# What a column reads besides the explanation, in file order: the example's gold label, alpha alone, the
# model run again on changed inputs, annotations by people given with the data (SST phrases, rationales).
Reads = Literal["gold", "alpha", "model", "people"]
READS: tuple[Reads, ...] = get_args(Reads)
ONE_SPAN_NOTE = "automatic when alpha has one span"
COLUMNS_PACKAGE = "selfexplain.lab.sharpness.columns"


@dataclass(frozen=True)
class Batch:
    """``B`` inputs of a run as its columns read them: the loaded ``explainer``, the ``examples`` ``[B]``,
    their ``instances`` ``[B]`` (explanation and forward, target = the predicted class), ``first_index`` (the
    index of ``examples[0]`` in the data, which seeds per-input draws) and the run's ``options``."""

    explainer: SelfExplainer
    examples: Sequence[Example]
    instances: Sequence[Instance]
    first_index: int
    options: SharpnessOptions

    @cached_property
    def explanations(self) -> list[Explanation]:
        """``[B]`` the inputs' explanations."""
        return [instance.explanation for instance in self.instances]

    @cached_property
    def predicted(self) -> np.ndarray:
        """``[B]`` int64: each input's predicted class."""
        return np.array([e.predicted_index for e in self.explanations], dtype=np.int64)


# A column's values for a batch: ``[B]`` (its own column) or ``[B, 1 + len(also)]`` (its own, then its
# companion columns), float64 or object (text); a masked entry leaves that input's row without the column.
# None: the column does not apply to this run (no phrases given, say), so the file has no such column.
Compute = Callable[[Batch], "np.ndarray | None"]
# A column computed over the whole data: ``compute`` gives per-input pieces ``[B]`` (object array), and
# ``finish`` turns the pieces of every batch ``[E]`` into the values ``[E]``, given the run's options.
Finish = Callable[[np.ndarray, "SharpnessOptions"], np.ndarray]


@dataclass(frozen=True, kw_only=True)
class Column:
    """A computed column of ``sharpness.csv``.

    ``key``: its name in the file; ``rank``: its place among the columns that read the same (and, for a
    measure, in the summary tables); ``reads``: what it reads besides the explanation (see :data:`READS`);
    ``compute``: its values for a :class:`Batch` (see :data:`Compute`); ``also``: companion columns the same
    computation writes right after it; ``finish``: set for a column computed over the whole data (see
    :data:`Finish`)."""

    key: str
    rank: int
    compute: Compute
    reads: Reads = "alpha"
    also: tuple[str, ...] = ()
    finish: Finish | None = None

    @property
    def names(self) -> tuple[str, ...]:
        """The file columns it writes: ``key``, then ``also``."""
        return (self.key, *self.also)


@dataclass(frozen=True, kw_only=True)
class Measure(Column):
    """A column the summaries report: one number per input (NaN where it does not apply).

    ``label``: its name in tables; ``higher_is_better``: its direction (None for a descriptive number with
    no better direction); ``target``: the shipped model's target, if any; ``aggregate``: how the per-input
    values become one number (NaNs skipped); ``trivial_when_one_span``: the value is fixed (not measured)
    whenever alpha has a single nonzero span, e.g. top-3 mass = 1."""

    label: str
    higher_is_better: bool | None
    target: str = ""
    aggregate: Aggregate = "mean"
    trivial_when_one_span: bool = False

    @property
    def arrow(self) -> str:
        """``↑``, ``↓`` or ``""`` (no direction)."""
        return "" if self.higher_is_better is None else "↑" if self.higher_is_better else "↓"

    @property
    def better(self) -> str:
        """``higher``, ``lower`` or ``""`` (no direction)."""
        return "" if self.higher_is_better is None else "higher" if self.higher_is_better else "lower"

    @property
    def note(self) -> str:
        return ONE_SPAN_NOTE if self.trivial_when_one_span else ""


def file_order(item: tuple[str, Column]) -> tuple[bool, int, int]:
    """Sort key of :data:`COLUMNS`: per-batch columns first, then by :data:`READS`, then by ``rank``."""
    column = item[1]
    return column.finish is not None, READS.index(column.reads), column.rank


def identity(column: Column) -> tuple[object, ...]:
    """What makes two registrations the same column: its fields, functions by their qualified names (so a
    module imported again registers again quietly)."""
    values = (getattr(column, f.name) for f in fields(column))
    return (type(column).__qualname__, *(_named(v) for v in values))


def _named(value: object) -> object:
    return f"{value.__module__}.{value.__qualname__}" if callable(value) else value  # type: ignore[attr-defined]


def _import_columns() -> None:
    importlib.import_module(COLUMNS_PACKAGE)  # its __init__ imports every module of the package


COLUMNS: Registry[Column] = Registry("sharpness column", order=file_order, identity=identity, fill=_import_columns)
MEASURES: Registry[Measure] = Registry(
    "measure", order=lambda item: item[1].rank, identity=identity, fill=_import_columns
)
BY_KEY: Registry[Measure] = MEASURES  # the same registry, by its older name


def register_column(column: Column) -> Column:
    """Add ``column`` to :data:`COLUMNS` under its ``key`` (a key taken by another column is a ``ValueError``)."""
    return COLUMNS.register(column.key, column)


def register_measure(measure: Measure) -> Measure:
    """Add ``measure`` to :data:`MEASURES` and :data:`COLUMNS` under its ``key`` (a key taken by another is
    a ``ValueError``)."""
    register_column(measure)
    return MEASURES.register(measure.key, measure)


def each(function: Callable[[Explanation], float]) -> Compute:
    """The :data:`Compute` that applies a per-input ``function`` of the explanation to every input of the
    batch: ``[B]`` float64."""

    def compute(batch: Batch) -> np.ndarray:
        return np.array([function(e) for e in batch.explanations], dtype=np.float64)

    compute.__module__, compute.__qualname__ = function.__module__, f"each({function.__qualname__})"
    return compute
