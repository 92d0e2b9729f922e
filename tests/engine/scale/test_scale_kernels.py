"""engine.fast.partitions against the row-by-row oracle (tests/oracle/partitions.py): routing
by bin, threshold, category and group, missing values down every branch with their
fractions, statistics, entries, histograms, gathered rows and per-node sums."""

from __future__ import annotations

import numpy as np
import pytest

from engine.fast.partitions import (
    BY_BIN,
    BY_CATEGORY,
    BY_GROUP,
    BY_THRESHOLD,
    Leaves,
    Route,
    accumulate_leaves,
    bin_codes,
    node_statistics,
)
from tests.oracle import partitions as oracle


def _data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(size=n), rng.normal(size=n), rng.integers(0, 3, n)]).astype(
        float
    )
    X[rng.random(n) < 0.15, 0] = np.nan
    X[rng.random(n) < 0.1, 2] = np.nan
    edges = [np.array([-1.0, 0.0, 1.0]), np.array([-0.5, 0.5]), np.zeros(0)]
    n_bins = np.array([4, 3, 3])
    codes = bin_codes(X, edges, n_bins, np.array([False, False, True]), np.uint8)
    return X, codes, n_bins


def _route():
    # 0: x0 by bin (<= 1) -> 1, 2;  1: x2 by category -> 3, 4, 5;  2: x2 by groups {0,2} | {1}
    # -> 6, 7;  6: x1 by threshold 0.25 -> 8, 9. Open leaves 3, 4, 5, 7, 8, 9.
    n = 10
    rule = np.array([BY_BIN, BY_CATEGORY, BY_GROUP, 0, 0, 0, BY_THRESHOLD, 0, 0, 0])
    attribute = np.array([0, 2, 2, -1, -1, -1, 1, -1, -1, -1])
    child0 = np.array([1, 3, 6, 0, 0, 0, 8, 0, 0, 0])
    n_children = np.array([2, 3, 2, 0, 0, 0, 2, 0, 0, 0])
    fraction = np.array([1.0, 0.6, 0.4, 0.5, 0.2, 0.3, 0.7, 0.3, 0.45, 0.55])
    slot = np.array([-1, -1, -1, 0, 1, 2, -1, 3, 4, -1])  # leaf 9 is closed
    return Route(
        rule,
        attribute,
        np.array([1] + [0] * 9),
        np.array([0.0] * 6 + [0.25] + [0.0] * 3),
        child0,
        n_children,
        fraction,
        np.zeros(n, np.int64),
        slot,
        np.array([0, 1, 0], np.int64),
    )


@pytest.mark.parametrize("K", [0, 3])
def test_accumulate_leaves_matches_the_oracle(K):
    X, codes, n_bins = _data()
    rng = np.random.default_rng(1)
    y = rng.normal(size=len(X)) if K == 0 else rng.integers(0, K, len(X)).astype(np.int64)
    route = _route()
    hist = np.array([0, -1, 1, 2, -1], np.int64)
    gather = np.array([False, True, False, False, True])
    S, width = (3 if K == 0 else K), 5
    want = oracle.leaves(route, hist, gather, codes, X, y, K, n_bins, 255, True, width)
    capacity = 4  # too small: the kernel says how much it needs
    for _ in range(2):
        leaves = Leaves(
            hist,
            gather,
            np.zeros((5, S)),
            np.zeros(5, np.int64),
            np.zeros((3, 3, width, S + 1)),
            np.zeros(capacity, np.int64),
            np.zeros(capacity),
            np.zeros(capacity, np.int64),
        )
        got = accumulate_leaves(
            route,
            leaves,
            codes,
            X,
            y.astype(np.int64) if K else np.zeros(1, np.int64),
            y if K == 0 else np.zeros(1),
            np.ones(len(X)),
            K,
            n_bins,
            255,
            True,
        )
        capacity = got
    np.testing.assert_allclose(leaves.stats, want[0], rtol=1e-12)
    np.testing.assert_array_equal(leaves.entries, want[1])
    np.testing.assert_allclose(leaves.H, want[2], rtol=1e-12, atol=1e-12)
    rows = list(
        zip(leaves.rows.tolist(), leaves.weights.tolist(), leaves.slots.tolist(), strict=True)
    )
    assert [(r, s) for r, _, s in rows] == [(r, s) for r, _, s in want[3]]
    np.testing.assert_allclose([w for _, w, _ in rows], [w for _, w, _ in want[3]])
    assert got == len(want[3]) > 4


def test_node_statistics_adds_every_node_passed():
    X, codes, _ = _data()
    y = np.random.default_rng(2).integers(0, 2, len(X)).astype(np.int64)
    route = _route()._replace(
        rule=np.array([BY_THRESHOLD, BY_CATEGORY, BY_GROUP, 0, 0, 0, BY_THRESHOLD, 0, 0, 0]),
        threshold=np.array([0.4, 0, 0, 0, 0, 0, 0.25, 0, 0, 0.0]),
    )
    stats = np.zeros((10, 2))
    node_statistics(route, X, y, np.zeros(1), np.ones(len(X)), 2, stats)
    want = np.zeros((10, 2))
    for i in range(len(X)):
        for node, w in oracle.reached(route, codes, X, i, 1.0, 255):
            want[node] += oracle.stat(y, i, w, 2)
    np.testing.assert_allclose(stats, want, rtol=1e-12)
    assert stats[0].sum() == len(X)


def test_values_below_places_c45_thresholds_as_on_the_whole_column(monkeypatch):
    """Per partition, each threshold's candidate training value; their maximum over the
    partitions moves a threshold where c45_threshold moves it on the whole column, values
    just above a threshold within Weka's 1e-6 included."""
    from engine.learn.thresholds import c45_threshold
    from engine.scale import tasks

    rng = np.random.default_rng(3)
    x = np.round(rng.normal(size=600), 3)
    cuts = np.unique(
        np.concatenate([x[:12] - 5e-7, x[12:20] + 5e-7, x[20:26] - 2e-6, [-9.0, 0.0123]])
    )
    pieces = np.array_split(x, 4)
    monkeypatch.setattr(
        tasks, "source_part", lambda source, *a: tasks.Part(source[:, None], np.zeros(len(source)))
    )
    found = np.maximum.reduce(
        [tasks.values_below(p, None, None, None, {0: cuts})[0] for p in pieces]
    )
    snaps = np.unique(found[np.isfinite(found)])
    whole = np.unique(x)
    for cut in cuts:
        assert c45_threshold(snaps, cut) == c45_threshold(whole, cut), cut
    assert found[0] == -np.inf  # no value below -9


@pytest.mark.parametrize("rows", [1, 5000, 70_000])
def test_a_partition_is_coded_with_its_ranges_as_numpys_search_codes_it(rows):
    """with_codes's one compiled pass (codes and each bin's value range) against numpy's
    search and a second pass for the ranges, its oracle: the same bytes, ranges and signs."""
    from engine.fast.histogram import edges_for
    from engine.scale.scoring import Bins
    from engine.scale.tasks import Part, _bounds, with_codes

    rng = np.random.default_rng(rows)
    X = np.column_stack(
        [
            rng.normal(size=rows),
            np.round(rng.normal(size=rows), 1),  # ties on the edges
            rng.integers(0, 4, rows).astype(float),
            rng.choice([-0.0, 0.0, 1.5, -2.0, np.inf], rows),
        ]
    )
    X[rng.random(X.shape) < 0.1] = np.nan
    nominal = np.array([False, False, True, False])
    edges = tuple(
        np.zeros(0) if nominal[j] else edges_for(X[~np.isnan(X[:, j]), j], 255) for j in range(4)
    )
    n_bins = np.array([4 if nominal[j] else len(edges[j]) + 1 for j in range(4)])
    bins = Bins(edges, n_bins, nominal)
    part = with_codes(Part(X, np.zeros(rows)), bins)
    want = bin_codes(X, edges, n_bins, nominal, np.uint8)
    assert np.array_equal(part.codes, want)
    part.codes = want
    low, high = _bounds(part, X, bins)
    for got, oracle_range in ((part.low, low), (part.high, high)):
        assert np.array_equal(got, oracle_range)
        assert np.array_equal(np.signbit(got), np.signbit(oracle_range))
