"""Seeds and a paired test: accuracy mean ± sd of two models over seeds, and McNemar's exact test per seed.

Each argument pair is two ``selfexplain eval --predictions`` files of the same data (model A, model B)
for one seed. Prints per seed: both accuracies, the discordant counts (A right / B wrong and the
reverse) and McNemar's exact two-sided p; then mean ± sd (sample sd) over the seeds. Usage:

    selfexplain paired-test A_SEED1.jsonl B_SEED1.jsonl [A_SEED2.jsonl B_SEED2.jsonl ...]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from scipy.stats import binomtest

from selfexplain.errors import DataError, InvalidInputError


def correct(path: Path) -> np.ndarray:
    """``[E]`` bool: prediction == gold, in file order."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return np.array([row["predicted"] == row["gold"] for row in rows])


def mcnemar(a: np.ndarray, b: np.ndarray) -> tuple[int, int, float]:
    """``(A right and B wrong, B right and A wrong, exact two-sided p)``."""
    only_a, only_b = int((a & ~b).sum()), int((b & ~a).sum())
    total = only_a + only_b
    p = binomtest(only_a, total, 0.5).pvalue if total else 1.0
    return only_a, only_b, float(p)


def paired_test(paths: Sequence[Path]) -> None:
    """Print the per-seed table and the mean ± sample sd of both models' accuracies."""
    if len(paths) < 2 or len(paths) % 2:
        raise InvalidInputError("give prediction files in pairs: A_SEED1 B_SEED1 [A_SEED2 B_SEED2 ...]")
    accuracies = []
    print("| seed pair | A acc. | B acc. | A right, B wrong | B right, A wrong | McNemar p |")
    print("|---|---:|---:|---:|---:|---:|")
    for index in range(0, len(paths), 2):
        a, b = correct(Path(paths[index])), correct(Path(paths[index + 1]))
        if a.shape != b.shape:
            raise DataError(f"{paths[index]} and {paths[index + 1]} hold different numbers of examples")
        only_a, only_b, p = mcnemar(a, b)
        accuracies.append((a.mean(), b.mean()))
        print(f"| {index // 2 + 1} | {a.mean():.4f} | {b.mean():.4f} | {only_a} | {only_b} | {p:.3f} |")
    values = np.array(accuracies)
    sd = values.std(axis=0, ddof=1) if len(values) > 1 else np.zeros(2)
    print(f"\nA: {values[:, 0].mean():.4f} ± {sd[0]:.4f}   B: {values[:, 1].mean():.4f} ± {sd[1]:.4f}"
          f"   ({len(values)} seeds, mean ± sample sd)")  # fmt: skip


def run(args: argparse.Namespace) -> None:
    """``selfexplain paired-test``."""
    paired_test(args.files)
