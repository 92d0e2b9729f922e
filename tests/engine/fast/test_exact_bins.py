"""Exact search counts attributes of few values in histograms of one bin per value
(engine.fast.builder._exact_bins_pay): the splits of sweeping their sorted orders, found
several times quicker."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

pytest.importorskip("numba")

from engine.data.encoding import Encoded  # noqa: E402
from engine.fast import builder, histogram  # noqa: E402
from engine.fast.groups import MISSING_CODE  # noqa: E402
from engine.growth import grow  # noqa: E402
from engine.settings import resolve  # noqa: E402
from tests.oracle.data import generated, shape  # noqa: E402

pytestmark = pytest.mark.usefixtures("compiled_builder")


def exact_bins(x: np.ndarray):
    return histogram.bin_columns(x[:, None], np.arange(len(x)), np.array([0]), 8, True, exact=True)


def test_a_column_of_few_values_gets_one_bin_per_value_in_order():
    rng = np.random.default_rng(0)
    values = np.round(np.linspace(-3, 3, MISSING_CODE), 6)  # as many values as codes
    x = rng.choice(values, size=20_000)
    x[:3] = values[[0, 1, -1]]  # each value at least once, whatever the draw
    x[rng.random(len(x)) < 0.1] = np.nan
    codes, nbins, lo, hi = exact_bins(x)
    known = ~np.isnan(x)
    present = np.unique(x[known])
    assert nbins[0] == len(present)
    np.testing.assert_array_equal(lo[0, : nbins[0]], present)
    np.testing.assert_array_equal(hi[0, : nbins[0]], present)
    np.testing.assert_array_equal(codes[known, 0], np.searchsorted(present, x[known]))
    assert (codes[~known, 0] == MISSING_CODE).all()


def test_a_column_with_no_known_value_keeps_its_one_empty_bin():
    codes, nbins, lo, hi = exact_bins(np.full(30_000, np.nan))
    assert nbins[0] == 1 and (codes[:, 0] == MISSING_CODE).all()


def test_a_value_the_sample_missed_still_gets_a_bin_of_its_own(monkeypatch):
    monkeypatch.setattr(histogram, "SAMPLE_ROWS", 500)
    x = np.arange(20_000) % 10 * 1.0
    x[[7, 1234, 19_999]] = [2.5, -1.0, 100.0]  # once each: between, below and above the rest
    codes, nbins, lo, hi = exact_bins(x)
    assert nbins[0] == 13
    np.testing.assert_array_equal(lo[0, :13], hi[0, :13])
    np.testing.assert_array_equal(codes[[7, 1234, 19_999], 0], [4, 0, 12])


def no_bins(binned) -> bool:
    codes, nbins, lo, hi = binned
    return nbins[0] == 0 and not codes.any() and np.isinf(lo).all() and np.isinf(hi).all()


def test_too_many_values_give_no_exact_bins():
    continuous = np.random.default_rng(1).normal(size=20_000)
    assert no_bins(exact_bins(continuous))  # told by the sample alone
    # 125 values in the sample (every fourth entry), 300 in all: told once coded.
    x = np.arange(20_000) % 250 * 1.0
    x[1::400] = 1000.0 + np.arange(50)
    assert len(np.unique(x[:: len(x) // histogram.EXACT_PROBE_ROWS])) <= MISSING_CODE
    assert no_bins(exact_bins(x))


def sorted_search(data, settings, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(builder, "EXACT_BINS_LEAST_ROWS", 10**12)
        return grow(data, settings)


def binnings(monkeypatch) -> list[bool]:
    """Whether each growth grows from histograms, as growths start."""
    out = []
    start = builder.Growth.__init__

    def spy(growth, *args, **kwargs):
        start(growth, *args, **kwargs)
        out.append(growth.params.histogram == 1)

    monkeypatch.setattr(builder.Growth, "__init__", spy)
    return out


CASES = [
    ("cart", dict(algorithm="cart", max_depth=10), dict(nominal=1, classes=4)),
    ("cart missing", dict(algorithm="cart", max_depth=9), dict(nominal=2, missing=0.1)),
    (
        "cart majority",
        dict(algorithm="cart", max_depth=9, missing="majority"),
        dict(missing=0.1),
    ),
    (
        "regression missing",
        dict(algorithm="cart", task="regression", max_depth=10),
        dict(regression=True, missing=0.1),
    ),
    ("c45", dict(algorithm="c45", prune="none"), dict(nominal=1, classes=3, missing=0.05)),
    ("best-first", dict(algorithm="cart", growth="best", max_leaves=60), dict(missing=0.05)),
]


def splits_and_weights(root) -> tuple[list, np.ndarray]:
    """The tree's shape (:func:`tests.oracle.data.shape`) with its weights and branch
    fractions apart: a bin's fractional weights are added before the sweep adds the bins, so
    they may differ from the sorted orders' in the last bits."""
    rows = shape(root)
    splits = [(i, depth, split and split[:4]) for i, depth, _, _, split in rows]
    numbers = [
        (weight, *counts, *(split[4] if split else ())) for _, _, weight, counts, split in rows
    ]
    return splits, np.concatenate(numbers)


@pytest.mark.parametrize("name, params, data_shape", CASES, ids=[c[0] for c in CASES])
def test_exact_bins_grow_the_tree_of_the_sorted_orders(name, params, data_shape, monkeypatch):
    data = generated(3, n=30_000, decimals=1, **data_shape)
    splits, weights = splits_and_weights(
        sorted_search(data, resolve(threads=1, **params), monkeypatch)
    )
    assert len(splits) > 100
    binned = binnings(monkeypatch)
    for k in (1, 2):
        got_splits, got_weights = splits_and_weights(grow(data, resolve(threads=k, **params)))
        assert got_splits == splits
        np.testing.assert_allclose(got_weights, weights, rtol=1e-9)
    assert binned == [True, True]


def mixed_table(seed, n=30_000, regression=False, missing=0.0, nominal=0):
    """Three continuous attributes, two of one decimal and one of integers 0-4 (the first's
    quintile, so that it matters), the last three counted by value."""
    data = generated(seed, n=n, numeric=6, regression=regression, missing=missing, nominal=nominal)
    X = np.asfortranarray(data.X.copy())
    X[:, 3:5] = np.round(X[:, 3:5], 1)
    X[:, 5] = np.digitize(np.nan_to_num(data.X[:, 0]), [-1.0, -0.3, 0.3, 1.0])
    X[np.isnan(data.X)] = np.nan
    return Encoded(data.schema, X, data.y, data.weight)


MIXED_CASES = [
    ("cart", dict(algorithm="cart", max_depth=12), dict(nominal=1)),
    ("cart missing", dict(algorithm="cart", max_depth=10), dict(missing=0.1, nominal=1)),
    ("majority", dict(algorithm="cart", max_depth=10, missing="majority"), dict(missing=0.1)),
    (
        "regression",
        dict(algorithm="cart", task="regression", max_depth=10),
        dict(regression=True, missing=0.1),
    ),
    ("c45", dict(algorithm="c45", prune="none"), dict(missing=0.05)),
    ("best-first", dict(algorithm="cart", growth="best", max_leaves=80), dict(missing=0.05)),
]


@pytest.mark.parametrize("name, params, data_shape", MIXED_CASES, ids=[c[0] for c in MIXED_CASES])
def test_attributes_of_few_values_counted_beside_sorted_ones_grow_the_same_tree(
    name, params, data_shape, monkeypatch
):
    """Where only some numeric attributes have few values, exact search counts those at each
    big node (no sorted orders for them) and sweeps the others; subtrees grown on a private
    copy order them from their codes. Small subtrees on 256 entries, so that the threads
    share some (and split the nodes above 512 entries together)."""
    for rows in ("LOCAL_ROWS", "LOCAL_ROWS_LEAST"):
        monkeypatch.setattr(builder, rows, 256)
    monkeypatch.setattr(builder, "SPLIT_LEAST_ROWS", 512)
    data = mixed_table(5, **data_shape)
    splits, weights = splits_and_weights(
        sorted_search(data, resolve(threads=1, **params), monkeypatch)
    )
    assert len(splits) > 100
    start = builder.Growth.__init__
    coded = []

    def spy(growth, *args, **kwargs):
        start(growth, *args, **kwargs)
        coded.append(growth.data.numeric_index.tolist())

    monkeypatch.setattr(builder.Growth, "__init__", spy)
    for k in (1, 2, 3):
        got_splits, got_weights = splits_and_weights(grow(data, resolve(threads=k, **params)))
        assert got_splits == splits, k
        np.testing.assert_allclose(got_weights, weights, rtol=1e-9)
    nominal = data_shape.get("nominal", 0)  # nominal attributes come after the numeric ones
    assert coded == [[0, 1, 2, -1, -1, -1] + [-1] * nominal] * 3
    used = {s[2][0] for s in splits if s[2] is not None}
    assert used & {3, 4, 5} and used & {0, 1, 2}


def test_continuous_attributes_keep_their_sorted_orders(monkeypatch):
    data = generated(4, n=30_000, numeric=3, classes=3)
    binned = binnings(monkeypatch)
    grow(data, resolve(algorithm="cart", max_depth=6))
    assert binned == [False]
    # Absolute error's medians are not held by bins.
    data = generated(4, n=30_000, numeric=3, decimals=1, regression=True)
    grow(data, resolve(algorithm="cart", task="regression", criterion="absolute_error"))
    assert binned == [False, False]
    # Histograms of many classes taking more memory than the sorted orders.
    data = generated(4, n=30_000, numeric=3, decimals=1, classes=40)
    grow(data, resolve(algorithm="cart", max_depth=6))
    monkeypatch.setattr(builder, "EXACT_BINS_BYTES", 0)
    grow(data, resolve(algorithm="cart", max_depth=6))
    assert binned == [False, False, True, False]


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_big_nodes_attributes_of_few_values_counted_in_blocks_by_every_thread(task, monkeypatch):
    """A node of two blocks of entries (growth_loop.COUNT_BLOCK) or more has its attributes
    of few values counted a block at a time, the blocks added in order: by every thread at
    once where the top is split by all (``SPLIT_CODED``), else by one. Fractional weights
    (row weights, and missing values) make the sums' order show: every thread count grows
    the same tree to the bit, and that is the sorted orders' split for split."""
    from engine.fast import threads
    from engine.fast.growth_loop import COUNT_BLOCK, SPLIT_CODED
    from tests.engine.fast.test_threads import bits

    data = mixed_table(8, n=2 * COUNT_BLOCK + 9_000, regression=task == "regression", missing=0.1)
    rng = np.random.default_rng(8)
    X = data.X.copy(order="F")
    # The attribute of few values tells the target best: the big nodes split on its counts.
    told = np.digitize(data.y, np.quantile(data.y, [0.2, 0.4, 0.6, 0.8]))
    X[:, 5] = np.where(np.isnan(X[:, 5]), np.nan, np.where(rng.random(len(X)) < 0.8, told, 0))
    weight = rng.uniform(0.5, 1.5, data.n_rows)  # sums of fractions: their order shows
    data = Encoded(data.schema, X, data.y, weight)
    params = dict(algorithm="cart", task=task, max_depth=6)
    monkeypatch.setattr(builder, "THREADS_LEAST_ROWS", 0)
    splits, weights = splits_and_weights(
        sorted_search(data, resolve(threads=1, **params), monkeypatch)
    )
    phases = []
    split_node = threads.Splitter.split

    def splitting(splitter, growth, status):  # every phase the threads were handed
        step = growth.kernels.split_step
        monkeypatch.setattr(
            growth.kernels, "split_step", lambda phase, *a: phases.append(phase) or step(phase, *a)
        )
        try:
            split_node(splitter, growth, status)
        finally:
            monkeypatch.setattr(growth.kernels, "split_step", step)

    monkeypatch.setattr(threads.Splitter, "split", splitting)
    trees = [grow(data, resolve(threads=k, **params)) for k in (1, 2, 3)]
    assert bits(trees[0]) == bits(trees[1]) == bits(trees[2])
    got_splits, got_weights = splits_and_weights(trees[0])
    assert got_splits == splits
    np.testing.assert_allclose(got_weights, weights, rtol=1e-9)
    assert trees[0].split.attribute == 5
    # The root's three blocks and more, counted side by side in both fits on threads.
    assert phases.count(SPLIT_CODED) >= 2 * 3


@pytest.mark.parametrize("exact", [False, True])
def test_rows_coded_in_ranges_side_by_side_give_the_codes_of_one_pass(exact, monkeypatch):
    # Columns: continuous; few values, three of them missed by the sample (recoded); 300
    # values told only once coded (no exact bins); nominal; nominal of too many categories.
    monkeypatch.setattr(histogram, "SAMPLE_ROWS", 500)
    rng = np.random.default_rng(3)
    n = 20_000
    few = np.arange(n) % 10 * 1.0
    few[[7, 12_345, n - 1]] = [2.5, -1.0, 100.0]
    many = np.arange(n) % 250 * 1.0
    many[1::400] = 1000.0 + np.arange(50)
    X = np.column_stack(
        [
            rng.normal(size=n),
            few,
            many,
            rng.integers(0, 4, n).astype(float),
            rng.integers(0, 300, n).astype(float),
        ]
    )
    gaps = rng.random(X.shape) < 0.1
    gaps[:, 2] = False  # (its 300 values told only once coded)
    gaps[[7, 12_345, n - 1], 1] = False
    X[gaps] = np.nan
    X = np.asfortranarray(X)
    categories = np.array([0, 0, 0, 4, 300])
    rows = np.arange(n)
    one = histogram.bin_columns(X, rows, categories, 255, True, exact=exact)
    if exact:
        assert one[1].tolist() == [0, 13, 0, 4, 0]
    assert not one[0][:, one[1] == 0].any()  # a column without bins: every code 0
    with ThreadPoolExecutor(3) as pool:
        for ranges in (2, 3, 7):
            side = histogram.bin_columns(
                X, rows, categories, 255, True, exact=exact,
                fold=lambda work, items: list(pool.map(work, items)), ranges=ranges,
            )  # fmt: skip
            for a, b in zip(one, side, strict=True):
                np.testing.assert_array_equal(a, b)
