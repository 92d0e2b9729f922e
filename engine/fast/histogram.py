"""The histogram splitter: binning, per-node histograms, and a node's split search over them.

Three separate steps, each usable on its own (training over partitions adds the
partitions' histograms before the third):

1. :func:`bin_columns`: each numeric attribute becomes at most ``max_bins`` codes
   (uint8; a missing value is ``MISSING_CODE``), nominal attributes keep their
   category codes.
2. :func:`accumulate` adds entries to a node histogram ``H[attribute, bin, stat]``
   (the bin after an attribute's last holds its missing values); a child's histogram
   is also its parent's minus its siblings' (:func:`subtract`).
3. :func:`score_histogram` scores every attribute of a node from its histogram, with
   the same scorers and rules as exact search (:mod:`engine.fast.sweeps`), and
   :func:`engine.fast.sweeps.choose` picks the split.

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

from engine.fast.groups import MAX_BINNED_CATEGORIES, MISSING_CODE, NOMINAL
from engine.fast.kernels import (
    PREFETCH_AHEAD,
    PREFETCH_LEAST,
    add_entry,
    copy_into,
    njit,
    prefetch,
    prefetch_target,
    size_of,
)
from engine.fast.sweeps import scan_items, score_subset, score_table

#: Bin edges come from at most this many rows (evenly spaced), as in LightGBM's bin construction.
SAMPLE_ROWS = 200_000
#: An attribute is tried as one bin per value (``bin_columns(exact=True)``) only when a
#: sample of this many of its values holds at most 255 distinct ones.
EXACT_PROBE_ROWS = 4096
#: Rows coded between two cancellation checks: a million-row column took up to 0.45 s
#: under load, one block takes milliseconds.
BLOCK_ROWS = 1 << 16


def edges_for(values: np.ndarray, max_bins: int) -> np.ndarray:
    """Upper edges of the bins but the last: ``value <= edges[k]`` means bin ``<= k``.

    Every distinct value of the (sampled) values its own bin when there are at most
    ``max_bins``; else each distinct value goes to the bin its middle rank falls in (of
    ``max_bins`` equal shares of the values), and an edge lies between two distinct values of
    different bins, halfway (or at the lower, when halfway rounds to the upper).
    ``tests/oracle/edges.py`` is the same rule in numpy, whose edges these equal."""
    if len(values) > SAMPLE_ROWS:
        values = values[:: len(values) // SAMPLE_ROWS]
    return _edges_of_sorted(np.sort(np.asarray(values, dtype=np.float64)), max_bins)


@njit(cache=True)
def _edges_of_sorted(v, max_bins):
    """:func:`edges_for` of sorted values ``v``, in one pass over their runs of equal values
    (a column of 200,000 sampled values: 0.5 ms, where numpy's unique values, counts and
    shares took 4)."""
    n = v.shape[0]
    distinct = 0
    for i in range(n):
        if i == 0 or v[i] != v[i - 1]:
            distinct += 1
    out = np.empty(max(distinct - 1, 0))
    if distinct <= 1:
        return out[:0]
    k = 0
    last_bin = -1
    i = 0
    a = v[0]  # the previous run's first value (numpy's unique value of it)
    while i < n:
        j = i + 1
        while j < n and v[j] == v[i]:
            j += 1
        if distinct <= max_bins:
            here = last_bin + 1
        else:  # the bin of the run's middle rank: its values' cumulative count less half of them
            centre = j - (j - i) / 2.0
            here = min(int(centre * max_bins / n), max_bins - 1)
        if i > 0 and here != last_bin:
            b = v[i]
            mid = a / 2.0 + b / 2.0
            out[k] = a if mid == b else mid
            k += 1
        last_bin = here
        a = v[i]
        i = j
    return out[:k]


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


#: Codes are found among the edges in two steps of this many compares, all made (vectorised):
#: which block of 16 edges a value falls in, then where in the block.
BLOCK_EDGES = 16


def _edge_blocks(edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``edges`` padded with infinities to 16 blocks of 16 (and one more), and the last edge
    of each block: :func:`_code_block`'s tables."""
    padded = np.full(BLOCK_EDGES * (BLOCK_EDGES + 1), np.inf)
    padded[: len(edges)] = edges
    return padded, padded[BLOCK_EDGES - 1 : BLOCK_EDGES * BLOCK_EDGES : BLOCK_EDGES].copy()


@njit(cache=True, nogil=True)
def _code_block(padded, last, values, codes, start, j, lo, hi):
    """Code ``values`` into ``codes[start:, j]`` and widen each bin's value range ``lo``,
    ``hi`` by them; ``padded``, ``last``: the edges' blocks (:func:`_edge_blocks`).

    A value's code is how many edges lie below it (numpy's ``searchsorted``, side "left",
    the test's oracle): the blocks whose last edge does, 16 edges each, plus the edges
    below it in the next block. The 32 compares run as vector instructions; a binary search
    branches on every compare, and mispredicted half of them: numpy's searchsorted took
    40 ns a value, two thirds of a million-row table's setup for the histogram splitter.
    A missing value is ``MISSING_CODE``."""
    for i in range(values.shape[0]):
        v = values[i]
        if np.isnan(v):
            codes[start + i, j] = MISSING_CODE
            continue
        block = 0
        for k in range(BLOCK_EDGES):
            block += last[k] < v
        at = block * BLOCK_EDGES
        c = at
        for k in range(BLOCK_EDGES):
            c += padded[at + k] < v
        codes[start + i, j] = c
        if v < lo[c]:
            lo[c] = v
        if v > hi[c]:
            hi[c] = v


#: The grid coder's cells over the edges' span (a table of 4 KB, in the first-level cache).
GRID_CELLS = 4096
#: Columns with more edges than this in one cell (bins crowded into a sliver of a long span)
#: are coded by blocks instead (:func:`_code_block`).
GRID_MOST = 8


def _edge_grid(edges: np.ndarray):
    """:func:`_code_grid`'s tables for ``edges`` (the edges then infinity; each cell's first
    code; the span's start and cells per unit), or None where the edges crowd into a cell."""
    # The span leaves out a first edge of minus infinity (a column holding minus infinity
    # and few values): a value below the span steps back past it from the first cell.
    finite = edges[np.isfinite(edges)]
    if len(finite) == 0:
        return None
    first, span = float(finite[0]), float(finite[-1]) - float(finite[0])
    scale = (GRID_CELLS - 1) / span if span > 0 else 0.0
    if not np.isfinite(scale):
        return None
    cells = first + np.arange(GRID_CELLS) / scale if scale > 0 else np.full(GRID_CELLS, first)
    start = np.searchsorted(edges, cells, side="left")
    if np.diff(start, append=len(edges)).max() > GRID_MOST:
        return None
    return np.append(edges, np.inf), start.astype(np.uint8), first, scale


@njit(cache=True, nogil=True)
def _code_grid(edges, start, first, scale, values, codes, begin, j, lo, hi):
    """:func:`_code_block` by a grid over the edges' span: a value's cell gives the code of the
    cell's start, and a few compares with the edges in the cell (and, where rounding put
    the value in the next cell, before it) give its own. Twice as fast on normal values, and
    three times on values with ties, as the blocks' 32 compares."""
    last = start.shape[0] - 1
    for i in range(values.shape[0]):
        v = values[i]
        if np.isnan(v):
            codes[begin + i, j] = MISSING_CODE
            continue
        f = (v - first) * scale
        if not f >= 0.0:  # below the span, or an infinity times a zero scale
            f = 0.0
        elif f > last:
            f = last
        c = int(start[int(f)])
        while edges[c] < v:
            c += 1
        while c > 0 and edges[c - 1] >= v:
            c -= 1
        codes[begin + i, j] = c
        if v < lo[c]:
            lo[c] = v
        if v > hi[c]:
            hi[c] = v


def bin_columns(
    X: np.ndarray,
    rows: np.ndarray,
    categories: np.ndarray,
    max_bins: int,
    whole: bool = False,
    check=lambda: None,
    exact: bool = False,
    fold=None,
    ranges: int = 1,
    complete=None,
):
    """Codes (entries x attributes, uint8), bins per attribute, and each bin's value range.

    ``categories[j]`` > 0 marks a nominal attribute, which keeps its category codes
    (as many bins as categories; more than ``MAX_BINNED_CATEGORIES`` are not binned:
    code 0, no bins). Missing values get ``MISSING_CODE``. ``whole``: ``rows`` is every
    row of ``X`` in order. ``check`` is called every :data:`BLOCK_ROWS` rows of a column
    (a monitor's cancellation check).

    ``exact``: one bin per distinct value of each numeric attribute (``max_bins`` unused),
    so that a histogram's splits are exact search's; an attribute with more distinct values
    than codes gets no bins (code 0), told at once from a sample of a continuous attribute,
    else by a bin found to hold two values.

    ``fold(work, items)``: ``[work(item) for item in items]`` (the default), or the same
    side by side on threads. The columns' edges are found a column each, then the rows are
    coded in ``ranges`` ranges, every column of a range by one task, so that no two threads
    write one row's codes (their bytes share a cache line) and no column's codes are copied
    into the table of codes afterwards; the codes and ranges are those of one pass.

    ``complete[j]``: the caller knows attribute ``j`` has no missing value in these rows (its
    known values are then taken as they are, without a pass to find missing ones).
    """
    fold = fold or _in_turn
    X = np.asfortranarray(X if whole else X[rows])  # columns contiguous, as the coders read
    m, p = X.shape
    # Not zeros: every row of a column with bins is coded, and only the others are zeroed
    # (a million rows' zeros, pages cleared as the threads coded them, took 5 ms of CPU).
    codes = np.empty((m, p), dtype=np.uint8)
    complete = np.zeros(p, dtype=bool) if complete is None else complete
    edges = fold(
        lambda j: _column_edges(X[:, j], categories[j], max_bins, exact, check, complete[j]),
        range(p),
    )
    nbins = np.array(
        [
            (c if c <= MAX_BINNED_CATEGORIES else 0) if c > 0 else (0 if e is None else len(e) + 1)
            for c, e in zip(categories.tolist(), edges, strict=True)
        ],
        dtype=np.int64,
    )
    for j in np.flatnonzero(nbins == 0).tolist():  # a column without bins: code 0
        codes[:, j] = 0
    spans = _spans(m, ranges)
    found = fold(lambda span: _code_span(X, span, categories, edges, codes, check), spans)
    lo = np.minimum.reduce([f[0] for f in found])
    hi = np.maximum.reduce([f[1] for f in found])
    if exact:
        _one_value_each(X, codes, nbins, lo, hi, categories, spans, fold)
    return codes, nbins, lo, hi


def _in_turn(work, items) -> list:
    return [work(item) for item in items]


def _spans(m: int, k: int) -> list[tuple[int, int]]:
    """``k`` ranges of about equal length covering ``range(m)`` (fewer for few rows)."""
    cuts = np.linspace(0, m, max(1, min(k, m)) + 1).astype(np.int64).tolist()
    return list(zip(cuts, cuts[1:], strict=False))


def _column_edges(x, n_categories, max_bins, exact, check, complete=False):
    """A numeric column's bins' upper edges (:func:`edges_for` of its known values: all of
    them, where ``complete``), or None: a nominal column, or (``exact``) one of many values."""
    check()
    if n_categories > 0:
        return None
    known = x
    if not complete:
        missing = np.isnan(x)
        known = x[~missing] if missing.any() else x
    if exact and not _few_values(known):
        return None
    return edges_for(known, MISSING_CODE if exact else max_bins)


def code_categories(x: np.ndarray, missing: int = MISSING_CODE) -> np.ndarray:
    """A nominal column's codes: its category codes, ``missing`` where missing."""
    gap = np.isnan(x)
    return np.where(gap, missing, np.where(gap, 0.0, x)).astype(np.uint8)


def _code_span(X, span, categories, edges, codes, check):
    """Code rows ``span`` of every binned column into ``codes``; the bins' value ranges that
    those rows give (to be merged with the other spans')."""
    a, b = span
    p = X.shape[1]
    lo = np.full((p, 256), np.inf)
    hi = np.full((p, 256), -np.inf)
    for j in range(p):
        x = X[a:b, j]
        if categories[j] > 0:
            if categories[j] <= MAX_BINNED_CATEGORIES:
                codes[a:b, j] = code_categories(x)
        elif edges[j] is not None:
            code_column(x, edges[j], codes, j, lo[j], hi[j], check, a)
    return lo, hi


def _one_value_each(X, codes, nbins, lo, hi, categories, spans, fold) -> None:
    """Make every coded numeric column's bins hold one value each (values the sample missed
    share bins: rare ones, mostly in the tails), recoding only the rows of bins holding
    several; a column with more distinct values than codes loses its bins (code 0). The
    spans' rows are read and recoded side by side, as they were coded."""
    p = X.shape[1]
    shared = np.zeros((p, MISSING_CODE + 1), dtype=bool)
    for j in np.flatnonzero((categories == 0) & (nbins > 0)).tolist():
        # (an empty bin, of a column with no known value: inf, -inf)
        shared[j, : nbins[j]] = lo[j, : nbins[j]] < hi[j, : nbins[j]]
    todo = np.flatnonzero(shared.any(axis=1)).tolist()
    if not todo:
        return
    found = fold(
        lambda span: [
            _values_in(codes, j, X[span[0] : span[1], j], shared[j], span[0]) for j in todo
        ],
        spans,
    )
    plans = {}
    for k, j in enumerate(todo):
        nb = nbins[j]
        alone = np.flatnonzero(lo[j, :nb] == hi[j, :nb])
        values = np.union1d(lo[j, alone], np.concatenate([f[k] for f in found]))
        recode = None
        if len(values) <= MISSING_CODE:
            recode = np.full(MISSING_CODE + 1, MISSING_CODE, dtype=np.uint8)
            recode[alone] = np.searchsorted(values, lo[j, alone])
        plans[j] = values, recode

    def again(span):
        a, b = span
        for j, (values, recode) in plans.items():
            if recode is None:
                codes[a:b, j] = 0
            else:
                _recode(codes, j, X[a:b, j], shared[j], recode, values, a)

    fold(again, spans)
    for j, (values, recode) in plans.items():
        lo[j], hi[j] = np.inf, -np.inf
        if recode is None:
            nbins[j] = 0
        else:
            nbins[j] = len(values)
            lo[j, : len(values)] = hi[j, : len(values)] = values


def _few_values(known: np.ndarray) -> bool:
    """Whether an evenly spaced sample of ``known`` has at most as many distinct values as
    there are codes (a continuous attribute's has thousands)."""
    sample = known[:: max(1, len(known) // EXACT_PROBE_ROWS)]
    return len(np.unique(sample)) <= MISSING_CODE


@njit(cache=True, nogil=True)
def _values_in(codes, j, x, shared, start):
    """The values ``x`` of column ``j``'s rows from ``start`` on coded in a bin marked
    ``shared`` (one pass, where numpy's strided gathers of the codes took two)."""
    n = 0
    for i in range(x.shape[0]):
        n += shared[codes[start + i, j]]
    out = np.empty(n)
    n = 0
    for i in range(x.shape[0]):
        if shared[codes[start + i, j]]:
            out[n] = x[i]
            n += 1
    return out


@njit(cache=True, nogil=True)
def _recode(codes, j, x, shared, recode, values, start):
    """Column ``j``'s codes again from row ``start`` on (values ``x``): a row of a bin marked
    ``shared`` by its value's place among ``values``, any other by ``recode`` of its code."""
    for i in range(x.shape[0]):
        c = codes[start + i, j]
        if shared[c]:
            codes[start + i, j] = np.searchsorted(values, x[i])
        else:
            codes[start + i, j] = recode[c]


def code_column(x, edges, codes, j, lo, hi, check=lambda: None, start: int = 0) -> None:
    """Code a numeric column ``x`` by its bins' upper ``edges`` (at most 255) into
    ``codes[start:, j]`` (uint8, missing values ``MISSING_CODE``), and widen each bin's value
    range ``lo``, ``hi`` by its values, in one pass (:func:`_code_grid`, or where its grid
    is crowded :func:`_code_block`)."""
    grid = _edge_grid(edges)
    coder, tables = (_code_block, _edge_blocks(edges)) if grid is None else (_code_grid, grid)
    for a in range(0, len(x), BLOCK_ROWS):
        check()
        block = np.ascontiguousarray(x[a : a + BLOCK_ROWS])  # one compiled layout
        coder(*tables, block, codes, start + a, j, lo, hi)


@njit(cache=True, linked=True)
def bin_of(code, n_bins):
    """Histogram bin of a code: missing values go to the bin after the attribute's last."""
    return n_bins if code == MISSING_CODE else code


@njit(cache=True)
def accumulate(H, codes, entries, weights, lo, hi, cls, target, K, n_bins):
    """Add the entries ``entries[lo:hi]`` (weighing ``weights[lo:hi]``) to the histogram ``H``
    [attribute, bin, stat], in order."""
    _accumulate(H, codes, entries, weights, lo, hi, 0, codes.shape[1], cls, target, K, n_bins)


@njit(cache=True)
def accumulate_attributes(H, codes, entries, weights, lo, hi, a, b, cls, target, K, n_bins):
    """:func:`accumulate` for attributes ``a`` to ``b - 1`` alone: threads counting a range
    of a node's attributes each add what one thread's pass adds to each."""
    _accumulate(H, codes, entries, weights, lo, hi, a, b, cls, target, K, n_bins)


@njit(cache=True, inline="always")
def _accumulate(H, codes, entries, weights, lo, hi, a, b, cls, target, K, n_bins):
    p = codes.shape[1]
    far = hi - lo >= PREFETCH_LEAST  # a big node's entries' rows are scattered over memory
    for t in range(lo, hi):
        if far and t + PREFETCH_AHEAD < hi:
            ahead = entries[t + PREFETCH_AHEAD]
            prefetch(codes, ahead * p + a)
            prefetch_target(ahead, cls, target, K)
        ent = entries[t]
        w = weights[t]
        for j in range(a, b):
            add_entry(H[j, bin_of(codes[ent, j], n_bins[j])], ent, w, cls, target, K)


@njit(cache=True, linked=True)
def subtract(H, G):
    """``H -= G``: a parent's histogram minus a child's is its other children's."""
    for j in range(H.shape[0]):
        for b in range(H.shape[1]):
            for k in range(H.shape[2]):
                H[j, b, k] -= G[j, b, k]


@njit(cache=True)
def score_histogram(
    H, known, kind, n_categories, n_bins, low, high, skip, par, node_weight, work, cand, flog
):
    """Score every attribute not in ``skip`` from the node histogram ``H`` into ``cand``.

    ``known[j]``: the node's entries with a value of attribute ``j`` (C4.5's minimum
    split counts entries, not weight); ``flog`` as for :func:`engine.fast.sweeps.scan_sorted`. Nominal attributes with more categories than
    ``MAX_BINNED_CATEGORIES`` are left to the caller.
    """
    K = par.n_classes
    item_bin, item_stats = work.item_bin, work.item_stats
    for j in range(kind.shape[0]):
        cand.valid[j] = 0
        if skip[j]:
            continue
        if kind[j] == NOMINAL:
            V = n_categories[j]
            if V > MAX_BINNED_CATEGORIES:
                continue
            if par.binary == 1:
                score_subset(j, H[j, :V], V, par, node_weight, work, cand)
            else:
                score_table(j, H[j, :V], V, par, node_weight, work, cand)
            continue
        L = 0
        for b in range(n_bins[j]):
            if size_of(H[j, b], K) > 0:
                item_bin[L] = b
                copy_into(item_stats[L], H[j, b], H.shape[2])
                L += 1
        scan_items(j, L, low[j], high[j], known[j], par, node_weight, work, cand, flog)
