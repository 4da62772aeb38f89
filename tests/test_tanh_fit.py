"""selfexplain/core/modeling/tanh_fit.py: the rational tanh of the native kernels is the fit it writes."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from selfexplain.core.modeling import tanh_fit

KERNELS = Path(tanh_fit.__file__).resolve().parent / "native" / "sic_kernels.c"


def kernel_coefficients(name: str) -> np.ndarray:
    """The coefficients of ``p`` or ``q`` in the kernel's Horner form, lowest degree first."""
    body = re.search(rf"const float {name} = (.*?);", KERNELS.read_text(encoding="utf-8"), re.S)
    assert body is not None
    return np.array([float(c) for c in re.findall(r"[0-9.]+(?:e[-+]?[0-9]+)?(?=f)", body.group(1))])[::-1]


@pytest.mark.slow
def test_the_kernels_hold_the_fit_and_its_error() -> None:
    p, q = tanh_fit.fit(4, 30)
    # the least-squares fit is ill-conditioned: another BLAS build moves a coefficient in its 6th digit (seen
    # at 1.03e-6 on a second machine), which the float32 kernel cannot tell apart
    kernel_p, kernel_q = kernel_coefficients("p"), kernel_coefficients("q")
    assert kernel_p == pytest.approx(p, rel=1e-5)
    assert kernel_q == pytest.approx(q, rel=1e-5)
    assert tanh_fit.max_error_float32(p, q) < 4e-7
    assert tanh_fit.max_error_float32(kernel_p, kernel_q) < 4e-7  # the coefficients the kernel holds
