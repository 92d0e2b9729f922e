"""The histogram bins of a table in partitions, as the in-memory splitter makes them.

The in-memory splitter (:func:`engine.fast.histogram.edges_for`) cuts each numeric
attribute at quantiles of its known values, taken from an evenly spaced sample of at most
about 200,000 of them (every ``n // 200,000``-th in row order; all of them when fewer). Over
partitions each partition contributes its share of that very sample: one pass counts each
partition's known values, so that each knows the index of its first one in the table, and a
second takes the values whose index is a multiple of the step. The merged sample is the one
the in-memory splitter would draw from the whole table, so both cut at the same points, at
any size. (A sample is also what LightGBM's distributed bin finding merges; the merged
sample is a quantile sketch of the column, within 1/sqrt(200,000) of its quantiles.)
"""

from __future__ import annotations

import numpy as np

from engine.scale.scoring import Bins
from engine.scale.tasks import count_known, sample_values


def make_bins(parts, schema, max_bins: int):
    """``(Bins, rows, attributes with a missing value)`` from two passes over ``parts``."""
    from engine.fast.histogram import SAMPLE_ROWS, edges_for

    attrs = schema.attributes
    nominal = np.array([a.is_nominal for a in attrs], dtype=bool)
    counts = parts.map(count_known, message="counting values")
    n_rows = int(sum(n for n, _ in counts))
    known = np.array([k for _, k in counts], dtype=np.int64).reshape(len(counts), len(attrs))
    has_missing = known.sum(axis=0) < n_rows
    totals = known.sum(axis=0)
    steps = np.where(totals > SAMPLE_ROWS, totals // np.maximum(SAMPLE_ROWS, 1), 1)
    offsets = np.cumsum(known, axis=0) - known
    edges, n_bins = [], np.zeros(len(attrs), np.int64)
    samples = (
        parts.map_each(
            sample_values,
            [(o, steps, ~nominal) for o in offsets],
            message="sampling values for the bins",
        )
        if (~nominal).any()
        else []
    )
    for j, a in enumerate(attrs):
        if a.is_nominal:
            edges.append(np.zeros(0))
            n_bins[j] = len(a.categories)
            continue
        sample = np.concatenate([s[j] for s in samples]) if samples else np.zeros(0)
        cut = edges_for(sample, max_bins)
        edges.append(cut)
        n_bins[j] = len(cut) + 1
    return Bins(tuple(edges), n_bins, nominal), n_rows, has_missing
