"""Fit the rational tanh of selfexplain/core/modeling/native/sic_kernels.c and report its error.

tanh(x) ~ x P(x^2) / Q(x^2) on [-9, 9] (tanh(9) rounds to 1 in float32), P and Q of degree
4 with Q(0) = 1, by iteratively reweighted linear least squares pushed towards the minimax
fit. Prints the coefficients (lowest degree first) and the maximum absolute error of the
float32 evaluation against float64 tanh.

    python -m selfexplain.core.modeling.tanh_fit [--degree 4] [--iterations 30]
"""

from __future__ import annotations

import argparse

import numpy as np

LIMIT = 9.0


def fit(degree: int, iterations: int) -> tuple[np.ndarray, np.ndarray]:
    """The coefficients of P and Q (lowest degree first, Q(0) = 1) of the rational fit of tanh on [0, LIMIT]."""
    x = np.linspace(1e-6, LIMIT, 200_001)
    y = np.tanh(x)
    z = x * x
    powers = z[:, None] ** np.arange(degree + 1)
    weights = np.ones_like(x)
    for _ in range(iterations):
        # x P(z) - y (Q(z) - 1) = y, linear in the coefficients of P and of Q beyond Q(0) = 1
        design = np.hstack([x[:, None] * powers, -y[:, None] * powers[:, 1:]]) * weights[:, None]
        solution, *_ = np.linalg.lstsq(design, y * weights, rcond=None)
        p, q = solution[: degree + 1], np.concatenate([[1.0], solution[degree + 1 :]])
        denominator = powers @ q
        error = x * (powers @ p) / denominator - y
        weights = (1 + np.abs(error) / np.abs(error).max()) / np.abs(denominator)
    return p, q


def max_error_float32(p: np.ndarray, q: np.ndarray) -> float:
    """The largest absolute error of the fit evaluated in float32 (as the kernel does) on [-12, 12]."""
    x = np.linspace(-12, 12, 4_000_001).astype(np.float32)
    clamped = np.clip(x, -LIMIT, LIMIT)
    z = clamped * clamped
    numerator = np.polyval(p[::-1].astype(np.float32), z)
    denominator = np.polyval(q[::-1].astype(np.float32), z)
    approx = np.clip(clamped * numerator / denominator, -1, 1)
    return float(np.abs(approx.astype(np.float64) - np.tanh(x.astype(np.float64))).max())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--degree", type=int, default=4)
    parser.add_argument("--iterations", type=int, default=30)
    args = parser.parse_args()
    p, q = fit(args.degree, args.iterations)
    print("P:", ", ".join(repr(float(c)) for c in p))
    print("Q:", ", ".join(repr(float(c)) for c in q))
    print(f"max abs error (float32 evaluation): {max_error_float32(p, q):.2e}")


if __name__ == "__main__":
    main()
