"""Sums of products that come out the same to the last bit on every machine.

numpy's ``@`` hands a dot product to BLAS, and OpenBLAS picks its kernel by the processor it
finds: its Haswell, Zen and SkylakeX kernels add the same products in different orders, with
or without fused multiply-adds. The last bits of a cross-validated error, of a reduced-error
pruning record, of an expected cost then depended on the machine, and numbers recorded on
one machine failed their tests on another (an AMD processor here, an Intel one before).
These add in one order everywhere: a product of two floats is the same on every processor,
and numpy's sum adds a contiguous run pairwise in a fixed order whatever the processor.
"""

from __future__ import annotations

import numpy as np


def dot(a: np.ndarray, b: np.ndarray) -> float:
    """``a @ b`` of two vectors: the products summed pairwise in numpy's order."""
    return float(np.add.reduce(np.multiply(a, b, dtype=np.float64)))


def row_dots(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``dot(a[i], b[i])`` for every row ``i`` of two equal-shaped 2-D arrays, each row to the
    bit what :func:`dot` gives it (the rows' sums are numpy's pairwise sums too)."""
    products = np.multiply(a, b, dtype=np.float64)
    return np.add.reduce(np.ascontiguousarray(products), axis=-1)


def weighted_columns(x: np.ndarray, m: np.ndarray) -> np.ndarray:
    """``x @ m`` for ``x`` of shape (..., k) and a (k, j) matrix ``m``: for each j the sum
    over k of ``x[..., k] * m[k, j]``, added in the order of k. One pass per k rather than a
    (..., k, j) array of products: a target of hundreds of classes makes k and j large."""
    x = np.asarray(x, dtype=np.float64)
    m = np.asarray(m, dtype=np.float64)
    out = x[..., 0, None] * m[0]
    for k in range(1, m.shape[0]):
        out += x[..., k, None] * m[k]
    return out
