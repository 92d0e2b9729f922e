"""The stable ascending order of a float column, by a radix sort of its values' bits.

Exact search sorts every numeric column once per table (:mod:`engine.data.order`): numpy's
stable argsort (a merge sort) took 130 ms a million values, two seconds of a 16-column,
million-row fit before any growth. A least-significant-digit radix sort of the values'
bits keeps equal values in row order, as the merge sort does, in a few passes over the
column: the same order, numpy's being the tests' oracle. The passes take the highest bits
that differ from value to value; values agreeing in all of those (runs of a few, on a
spread-out column) are sorted among themselves afterwards.
"""

from __future__ import annotations

import numpy as np

from engine.fast.kernels import njit

#: Bits sorted in each pass (2,048 buckets, whose counts stay in the cache); a pass whose
#: digit is the same for every value is skipped.
DIGIT_BITS = 11
#: Passes over the highest bits that differ between the values: a column whose values are
#: spread out is then in order but for short runs of values that agree in all those bits,
#: which are sorted on their own (the six passes that 64 bits take cost twice as much).
HIGH_PASSES = 3
#: Runs of at most this many values are sorted by insertion, longer ones by a merge sort.
INSERTION_MOST = 32
#: Values sampled to tell a spread-out column from one crowded into a few narrow clusters
#: (readings in a small range of a big number, as timestamps), whose long runs would cost
#: more to sort afterwards than the low bits' passes do: those take every pass.
PROBE_VALUES = 4096


@njit(cache=True, nogil=True)
def stable_argsort(values, out, keys, spare_keys, order, spare_order):
    """``np.argsort(values, kind="stable")`` of a float64 column into ``out``, as int32 rows:
    equal values (0.0 and -0.0 among them) in row order, missing values (NaN) last. The
    other arrays are scratch (:func:`buffers`), at least as long as ``values``."""
    n = values.shape[0]
    bits = values.view(np.uint64)
    sign = np.uint64(1) << np.uint64(63)
    ones = np.uint64(0)
    zeros = ~np.uint64(0)
    for i in range(n):
        b = bits[i]
        if b == sign:  # -0.0 sorts as 0.0
            b = np.uint64(0)
        # Negative values' bits in reverse, every other value's above them; NaN last.
        key = ~b if b & sign else b | sign
        if np.isnan(values[i]):
            key = ~np.uint64(0)
        keys[i] = key
        order[i] = i
        ones |= key
        zeros &= key
    varying = ones ^ zeros  # bits not the same in every key
    if n < 2 or varying == 0:
        out[:] = order[:n]
        return
    high = 63  # the highest of them
    while (varying >> np.uint64(high)) & np.uint64(1) == 0:
        high -= 1
    low = max(0, high + 1 - HIGH_PASSES * DIGIT_BITS)  # the lowest bit sorted by passes
    if low > 0 and _crowded(keys, low, n):
        low = 0
    passes = (high - low) // DIGIT_BITS + 1
    buckets = 1 << DIGIT_BITS
    mask = np.uint64(buckets - 1)
    counts = np.zeros((passes, buckets), np.int64)
    for i in range(n):
        k = keys[i] >> np.uint64(low)
        for p in range(passes):
            counts[p, (k >> np.uint64(p * DIGIT_BITS)) & mask] += 1
    start = np.empty(buckets, np.int64)
    for p in range(passes):
        if counts[p].max() == n:  # one digit for all: the order stands
            continue
        total = 0
        for b in range(buckets):
            start[b] = total
            total += counts[p, b]
        shift = np.uint64(low + p * DIGIT_BITS)
        for i in range(n):
            k = keys[i]
            b = (k >> shift) & mask
            at = start[b]
            start[b] = at + 1
            spare_keys[at] = k
            spare_order[at] = order[i]
        keys, spare_keys = spare_keys, keys
        order, spare_order = spare_order, order
    if low > 0:
        _sort_runs(keys, order, low, spare_keys, spare_order, n)
    out[:] = order[:n]


@njit(cache=True, nogil=True)
def _crowded(keys, low, n):
    """Whether more than one in 16 of a sample of the ``n`` ``keys`` agree with another in every bit
    from ``low`` up but not in all: many values in long runs left to sort (equal values,
    ties or missing, need no sorting)."""
    step = max(1, n // PROBE_VALUES)
    sample = np.sort(keys[:n:step])
    shift = np.uint64(low)
    alike = 0
    for i in range(1, sample.shape[0]):
        alike += sample[i] != sample[i - 1] and sample[i] >> shift == sample[i - 1] >> shift
    return alike * 16 > sample.shape[0]


@njit(cache=True, nogil=True)
def _sort_runs(keys, order, low, spare_keys, spare_order, n):
    """Sort by the whole key each run of the ``n`` ``keys`` (in row order within it) that
    agree in every bit from ``low`` up, moving ``order`` along: stably, so equal keys keep
    row order."""
    shift = np.uint64(low)
    i = 0
    while i < n:
        head = keys[i] >> shift
        alike = True
        j = i + 1
        while j < n and (keys[j] >> shift) == head:
            alike = alike and keys[j] == keys[i]
            j += 1
        if not alike and j - i <= INSERTION_MOST:
            for a in range(i + 1, j):
                k = keys[a]
                o = order[a]
                b = a - 1
                while b >= i and keys[b] > k:
                    keys[b + 1] = keys[b]
                    order[b + 1] = order[b]
                    b -= 1
                keys[b + 1] = k
                order[b + 1] = o
        elif not alike:
            by = np.argsort(keys[i:j], kind="mergesort")  # (a merge sort keeps ties in order)
            for a in range(j - i):
                spare_keys[a] = keys[i + by[a]]
                spare_order[a] = order[i + by[a]]
            keys[i:j] = spare_keys[: j - i]
            order[i:j] = spare_order[: j - i]
        i = j


def buffers(n: int) -> tuple[np.ndarray, ...]:
    """Scratch for :func:`stable_order` of columns of up to ``n`` values, to reuse from
    column to column on one thread: fresh buffers cost their first touch, 6-7 ns a value of
    the 30 that sorting ten million values took."""
    return (
        np.empty(n, np.uint64),
        np.empty(n, np.uint64),
        np.empty(n, np.int32),
        np.empty(n, np.int32),
    )


def stable_order(values: np.ndarray, scratch: tuple | None = None) -> np.ndarray:
    """:func:`stable_argsort` of any float column, in ``scratch`` (:func:`buffers`) when it is
    given and big enough. A column that is not a writable C array of doubles (a table's
    block is read-only) is copied first, so that one compiled version serves every column:
    into the scratch whose keys the sort writes only after reading every value, where a
    fresh copy took the first touch of its pages (8 MB a column of a million rows; on a
    machine whose memory came back slowly, two-thread fits sorted no faster than one)."""
    n = len(values)
    if scratch is None or len(scratch[0]) < n:
        scratch = buffers(n)
    if values.dtype != np.float64 or not values.flags.c_contiguous or not values.flags.writeable:
        staged = scratch[1][:n].view(np.float64)
        staged[:] = values
        values = staged
    out = np.empty(n, np.int32)
    stable_argsort(values, out, *scratch)
    return out
