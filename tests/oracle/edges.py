"""The test oracle for the histogram mode's bin edges (``engine.fast.histogram.edges_for``,
compiled in one pass over the sorted values): the rule in numpy, over unique values and their
counts, as Arbor computed the edges before."""

import numpy as np

from engine.fast.histogram import SAMPLE_ROWS


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
