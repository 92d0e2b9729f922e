"""The radix sort of big columns (:mod:`engine.fast.radix`) against numpy's stable argsort,
its oracle, and a fit sorted by it against one sorted by numpy."""

import numpy as np
import pytest

pytest.importorskip("numba")

from engine.fast import builder  # noqa: E402
from engine.fast.radix import stable_order  # noqa: E402

pytestmark = pytest.mark.usefixtures("compiled_builder")


def _columns(rng, n):
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 1.0, -1.0])
    yield rng.normal(size=n)
    yield np.round(rng.normal(size=n), 1)  # many ties
    yield rng.integers(0, 5, n).astype(float)
    yield rng.choice(specials, n)
    yield np.full(n, 3.25)
    yield -np.abs(rng.standard_cauchy(n))
    mixed = rng.normal(scale=1e6, size=n)
    mixed[rng.random(n) < 0.2] = np.nan
    yield mixed
    # Close values of a big number (timestamps to the millisecond, repeated, descending)
    # agree in every bit the first passes sort: a few among spread-out values are sorted
    # after them, in long runs; a column crowded with them takes every pass instead.
    close = 1.7e9 + np.repeat(np.arange(n)[::-1], 3)[:n] * 1e-3
    few = rng.random(n) < 0.03
    yield np.where(few, close, rng.normal(size=n))
    yield np.where(rng.random(n) < 0.5, close, -rng.lognormal(size=n))


@pytest.mark.parametrize("n", [0, 1, 2, 17, 5000, 100_000])
def test_the_radix_order_is_numpys_stable_argsort(n):
    rng = np.random.default_rng(n)
    for column in _columns(rng, n):
        got = stable_order(column)
        assert got.dtype == np.int32
        assert got.tolist() == np.argsort(column, kind="stable").tolist()


def test_one_threads_scratch_serves_column_after_column():
    from engine.fast.radix import buffers

    rng = np.random.default_rng(7)
    scratch = buffers(3000)
    columns = [rng.normal(size=3000), np.round(rng.normal(size=1000), 1), rng.normal(size=5000)]
    for column in columns:  # (the last is longer than the scratch: buffers of its own)
        got = stable_order(column, scratch)
        assert got.tolist() == np.argsort(column, kind="stable").tolist()
        assert not any(np.shares_memory(got, b) for b in scratch)


def test_a_column_is_read_not_changed_whatever_its_layout():
    X = np.random.default_rng(1).normal(size=(300, 3))
    X[::7, 1] = -0.0
    view = X[:, 1]  # strided
    before = view.copy()
    assert stable_order(view).tolist() == np.argsort(view, kind="stable").tolist()
    assert np.array_equal(view, before) and np.signbit(view[::7]).all()
    X.flags.writeable = False
    assert stable_order(X[:, 2]).tolist() == np.argsort(X[:, 2], kind="stable").tolist()


def test_a_column_copied_into_the_scratch_sorts_as_itself_and_stays_as_it_was():
    """A read-only block's column, a strided one and other types are copied into the
    thread's scratch (not fresh memory) before the sort, column after column."""
    from engine.fast.radix import buffers

    rng = np.random.default_rng(3)
    block = np.asfortranarray(np.round(rng.normal(size=(4000, 3)), 1))
    block[::5, 0] = np.nan
    block.flags.writeable = False
    scratch = buffers(4000)
    columns = [block[:, 0], block[:, 1], block[::2, 2], np.arange(4000)[::-1] % 9]
    columns.append(rng.normal(size=4000).astype(np.float32))
    for column in columns:
        before = column.copy()
        got = stable_order(column, scratch)
        assert got.tolist() == np.argsort(column, kind="stable").tolist()
        assert np.array_equal(column, before, equal_nan=True)
        assert not any(np.shares_memory(got, b) for b in scratch)


def test_a_fit_sorted_by_radix_is_the_fit_sorted_by_numpy(monkeypatch):
    import pandas as pd

    from engine.data.encoding import encode, subset
    from engine.data.table import make_table
    from engine.estimator import DecisionTree
    from engine.growth import grow_flat

    rng = np.random.default_rng(5)
    n = 3000
    frame = pd.DataFrame(np.round(rng.normal(size=(n, 4)), 2), columns=list("abcd"))
    frame.iloc[::11, 2] = np.nan
    frame["y"] = frame["a"].fillna(0) + frame["b"] * frame["c"].fillna(1) + rng.normal(size=n)
    table = make_table(frame)
    settings = DecisionTree(
        algorithm="cart", task="regression", prune="none", splitter="exact", threads=1
    ).settings()
    fits = []
    for least in (10**9, 1):  # numpy's sort, then the radix sort
        monkeypatch.setattr(builder, "RADIX_LEAST_ROWS", least)
        data = encode(table, "regression")  # afresh: a table keeps its columns' orders
        part = subset(data, np.arange(n)[::-1].copy())  # rows reversed: sorted afresh
        fits.append([grow_flat(d, settings) for d in (data, part)])
    for numpy_fit, radix_fit in zip(*fits, strict=True):
        assert numpy_fit.n_nodes == radix_fit.n_nodes
        assert np.array_equal(numpy_fit.threshold, radix_fit.threshold, equal_nan=True)
        assert np.array_equal(numpy_fit.attribute, radix_fit.attribute)
        assert np.array_equal(numpy_fit.value, radix_fit.value)
