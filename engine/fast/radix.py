"""The stable ascending order of a float column, by a radix sort of its values' bits.

Exact search sorts every numeric column once per table (:mod:`engine.data.order`): numpy's
stable argsort (a merge sort) took 130 ms a million values, two seconds of a 16-column,
million-row fit before any growth. A least-significant-digit radix sort of the values'
bits keeps equal values in row order, as the merge sort does, in a few passes over the
column: the same order, numpy's being the tests' oracle.
"""

from __future__ import annotations

import numpy as np

from engine.fast.kernels import njit

#: Bits sorted in each pass (2,048 buckets, whose counts stay in the cache): six passes
#: cover 64 bits, and a pass whose digit is the same for every value is skipped.
DIGIT_BITS = 11
PASSES = 6


@njit(cache=True, nogil=True)
def stable_argsort(values):
    """``np.argsort(values, kind="stable")`` of a float64 column, as int32 rows: equal values
    (0.0 and -0.0 among them) in row order, missing values (NaN) last."""
    n = values.shape[0]
    bits = values.view(np.uint64)
    keys = np.empty(n, np.uint64)
    sign = np.uint64(1) << np.uint64(63)
    for i in range(n):
        b = bits[i]
        if b == sign:  # -0.0 sorts as 0.0
            b = np.uint64(0)
        # Negative values' bits in reverse, every other value's above them; NaN last.
        key = ~b if b & sign else b | sign
        keys[i] = ~np.uint64(0) if np.isnan(values[i]) else key
    buckets = 1 << DIGIT_BITS
    mask = np.uint64(buckets - 1)
    counts = np.zeros((PASSES, buckets), np.int64)
    for i in range(n):
        k = keys[i]
        for p in range(PASSES):
            counts[p, (k >> np.uint64(p * DIGIT_BITS)) & mask] += 1
    order = np.arange(n).astype(np.int32)
    spare_keys = np.empty(n, np.uint64)
    spare_order = np.empty(n, np.int32)
    start = np.empty(buckets, np.int64)
    for p in range(PASSES):
        if n == 0 or counts[p].max() == n:  # one digit for all: the order stands
            continue
        total = 0
        for b in range(buckets):
            start[b] = total
            total += counts[p, b]
        shift = np.uint64(p * DIGIT_BITS)
        for i in range(n):
            k = keys[i]
            b = (k >> shift) & mask
            at = start[b]
            start[b] = at + 1
            spare_keys[at] = k
            spare_order[at] = order[i]
        keys, spare_keys = spare_keys, keys
        order, spare_order = spare_order, order
    return order


def stable_order(values: np.ndarray) -> np.ndarray:
    """:func:`stable_argsort` of any float column (copied when it is not a writable C array,
    so that one compiled version serves every column)."""
    return stable_argsort(np.require(values, np.float64, ["C_CONTIGUOUS", "WRITEABLE"]))
