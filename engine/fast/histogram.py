"""Binning for the histogram splitter: each numeric attribute becomes at most ``max_bins`` codes.

Bins are quantiles of the attribute's values (of an evenly spaced sample of
at most ``SAMPLE_ROWS`` rows on big data). A column with at most ``max_bins``
distinct values gets one bin per value, so on such data the histogram splitter
finds exactly the exact splitter's splits. A split between two bins is placed
the way CART places one between two values, halfway between the largest value
of the lower bin and the smallest value of the upper one; training rows are
routed the same way by code and by threshold.
"""

from __future__ import annotations

import numpy as np

from engine.fast.kernels import njit

#: Bin edges come from at most this many rows (evenly spaced), as in LightGBM's bin construction.
SAMPLE_ROWS = 200_000


def edges_for(values: np.ndarray, max_bins: int) -> np.ndarray:
    """Upper edges of the bins but the last: ``value <= edges[k]`` means bin ``<= k``."""
    if len(values) > SAMPLE_ROWS:
        values = values[:: len(values) // SAMPLE_ROWS]
    distinct, counts = np.unique(values, return_counts=True)
    if len(distinct) <= 1:
        return np.zeros(0)
    if len(distinct) <= max_bins:
        cut = np.ones(len(distinct) - 1, dtype=bool)
    else:
        centre = np.cumsum(counts) - counts / 2.0
        bins = np.minimum((centre * max_bins / counts.sum()).astype(np.int64), max_bins - 1)
        cut = bins[1:] != bins[:-1]
    a, b = distinct[:-1][cut], distinct[1:][cut]
    mid = a / 2.0 + b / 2.0
    return np.where(mid == b, a, mid)


@njit(cache=True, nogil=True)
def _bounds(values, codes, nb):
    lo = np.full(nb, np.inf)
    hi = np.full(nb, -np.inf)
    for i in range(values.shape[0]):
        c = codes[i]
        v = values[i]
        if v < lo[c]:
            lo[c] = v
        if v > hi[c]:
            hi[c] = v
    return lo, hi


def bin_columns(X: np.ndarray, rows: np.ndarray, categories: np.ndarray, max_bins: int,
                whole: bool = False, check=lambda: None):
    """Codes (entries x attributes, uint8), bins per attribute, and each bin's value range.

    ``categories[j]`` > 0 marks a nominal attribute, which keeps its category codes
    (as many bins as categories). ``whole``: ``rows`` is every row of ``X`` in order.
    ``check`` is called between columns (a monitor's cancellation check).
    """
    m, p = len(rows), X.shape[1]
    codes = np.empty((m, p), dtype=np.uint8)
    nbins = np.zeros(p, dtype=np.int64)
    lo = np.full((p, 256), np.inf)
    hi = np.full((p, 256), -np.inf)
    for j in range(p):
        check()
        x = X[:, j] if whole else X[rows, j]
        if categories[j] > 0:
            codes[:, j] = x.astype(np.uint8)
            nbins[j] = categories[j]
            continue
        edges = edges_for(x, max_bins)
        code = np.searchsorted(edges, x, side="left").astype(np.uint8)
        codes[:, j] = code
        nbins[j] = len(edges) + 1
        lo[j, :nbins[j]], hi[j, :nbins[j]] = _bounds(x, code, int(nbins[j]))
    return codes, nbins, lo, hi
