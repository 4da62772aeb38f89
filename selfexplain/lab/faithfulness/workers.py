"""Analyse inputs in parallel worker processes, one CPU thread each.

The lab's work per input is hundreds of small forward passes; on a CPU, N single-threaded
processes get more from N cores than one process with N threads (small matrix products
do not split well across threads). Workers are spawned (not forked: forking a process
that has started OpenMP threads can hang), each loads the model from its folder, and
rows come back as they finish; every row depends only on its input and the options
(seeded per input), so the results equal a single-process run's.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict
from typing import Any

import torch

from selfexplain.core.pipeline import SelfExplainer, load_model
from selfexplain.data import Example

# what one input's row is made by: the lab's analyse(explainer, example, index, options)
Analyse = Callable[[SelfExplainer, Example, int, Any], dict[str, object]]

_worker_explainer: SelfExplainer | None = None
_worker_options: object = None
_worker_analyse: Analyse | None = None


def _start_worker(
    directory: str, fused: bool, precision: str, options_type: type, options: dict, analyse: Analyse
) -> None:
    global _worker_explainer, _worker_options, _worker_analyse
    torch.set_num_threads(1)
    _worker_explainer = load_model(directory, fused=fused, precision=precision)  # type: ignore[arg-type]
    options["explainers"] = tuple(options["explainers"])
    _worker_options = options_type(**options)
    _worker_analyse = analyse


def _analyse(job: tuple[int, Example]) -> dict[str, object]:
    index, example = job
    assert _worker_explainer is not None and _worker_analyse is not None
    return _worker_analyse(_worker_explainer, example, index, _worker_options)


def analyse_in_workers(
    explainer: SelfExplainer, jobs: Iterable[tuple[int, Example]], options: object, workers: int, analyse: Analyse
) -> Iterator[dict[str, object]]:
    """Rows for ``jobs`` ``(index, example)`` in completion order, from ``workers`` processes, each made by
    ``analyse`` (a module-level function: the workers import it by name) with ``options`` (a dataclass)."""
    if explainer.directory is None:
        raise ValueError("parallel workers load the model from its folder; this model has none (use workers=1)")
    fused = bool(explainer.model.span_layer is not None and explainer.model.span_layer.fused)
    context = multiprocessing.get_context("spawn")
    settings = (str(explainer.directory), fused, explainer.model.encoder_precision)
    init = (*settings, type(options), asdict(options), analyse)  # type: ignore[call-overload]
    with context.Pool(workers, initializer=_start_worker, initargs=init) as pool:
        yield from pool.imap_unordered(_analyse, list(jobs), chunksize=1)
