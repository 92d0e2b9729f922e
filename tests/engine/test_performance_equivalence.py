"""The compiled builder grows the numpy loop's trees; histograms match exact search where they can.

Speed itself is measured in benchmarks/, never asserted here.
"""

import threading
import time

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("numba")

from engine.data.encoding import encode  # noqa: E402
from engine.data.table import make_table  # noqa: E402
from engine.errors import ArborError, Cancelled  # noqa: E402
from engine.estimator import DecisionTree  # noqa: E402
from engine.fast import builder as fastpath
from engine.fast.compile import compile_kernels  # noqa: E402
from engine.fast.histogram import bin_columns, edges_for  # noqa: E402
from engine.learn.growth import grow  # noqa: E402
from engine.learn.problem import Problem  # noqa: E402
from engine.monitor import Monitor  # noqa: E402
from engine.settings import resolve  # noqa: E402


def _data(seed, n=1200, numeric=4, nominal=0, classes=3, regression=False, decimals=None):
    rng = np.random.default_rng(seed)
    cols = {}
    for i in range(numeric):
        x = rng.normal(size=n)
        cols[f"x{i}"] = np.round(x, decimals) if decimals is not None else x.astype(np.float32)
    for i in range(nominal):
        cols[f"c{i}"] = pd.Categorical([f"v{v}" for v in rng.integers(0, 3 + i, n)])
    frame = pd.DataFrame(cols).astype({f"x{i}": np.float64 for i in range(numeric)})
    signal = frame["x0"] + frame["x1"] * frame["x2"] if numeric else rng.normal(size=n)
    if nominal:
        signal = signal + 0.5 * frame["c0"].cat.codes + 0.3 * frame[f"c{nominal - 1}"].cat.codes
    if regression:
        frame["y"] = signal + rng.normal(scale=0.5, size=n)
        return encode(make_table(frame), "regression")
    cuts = np.quantile(signal, np.linspace(0, 1, classes + 1)[1:-1])
    labels = [f"k{i}" for i in range(classes)]
    y = np.digitize(signal + rng.normal(scale=0.6, size=n), cuts)
    frame["y"] = pd.Categorical(np.array(labels)[y], categories=labels)
    return encode(make_table(frame))


def _shape(root):
    """Everything about a tree but the last bits of its gains."""
    out = []
    for n in root.walk():
        split = None
        if n.split is not None:
            split = (n.split.attribute, n.split.kind, n.split.threshold, n.split.groups,
                     tuple(np.round(n.split.fractions, 12)))
        out.append((n.id, n.depth, n.weight, tuple(n.distribution), round(n.impurity, 12),
                    None if np.isnan(n.value) else round(n.value, 9), split))
    return out


def _assert_same(a, b):
    assert _shape(a) == _shape(b)
    for x, y in zip(a.walk(), b.walk(), strict=True):
        assert x.stats.keys() == y.stats.keys()
        for key in x.stats:
            assert x.stats[key] == pytest.approx(y.stats[key], rel=1e-9, abs=1e-12)


@pytest.fixture(params=[64, 100_000], ids=["global-and-local", "all-local"])
def local_rows(request, monkeypatch):
    """Small subtrees are grown on a private copy of their rows: test with and without."""
    monkeypatch.setattr(fastpath, "LOCAL_ROWS", request.param)
    monkeypatch.setattr(fastpath, "HIST_LOCAL_ROWS", request.param)
    return request.param


CASES = [
    ("cart gini", dict(algorithm="cart"), dict()),
    ("cart entropy", dict(algorithm="cart", criterion="entropy", max_depth=6, min_samples_leaf=4),
     dict(classes=2)),
    ("cart best-first", dict(algorithm="cart", growth="best", max_leaves=25, min_samples_leaf=3),
     dict()),
    ("cart regression", dict(algorithm="cart", task="regression", min_samples_leaf=3, max_depth=8),
     dict(regression=True)),
    ("cart min gain", dict(algorithm="cart", min_gain=0.005), dict(classes=4)),
    ("c45 mixed", dict(algorithm="c45", prune="none"), dict(nominal=2)),
    ("c45 ties", dict(algorithm="c45", prune="none"), dict(nominal=2, decimals=1)),
    ("c45 best-first", dict(algorithm="c45", prune="none", growth="best", max_leaves=12),
     dict(nominal=1)),
    ("id3", dict(algorithm="id3"), dict(numeric=0, nominal=4)),
]


@pytest.mark.parametrize("name,params,shape", CASES, ids=[c[0] for c in CASES])
def test_compiled_builder_grows_the_numpy_loops_tree(name, params, shape, local_rows):
    data = _data(len(name), **shape)
    settings = resolve(**params)
    _assert_same(grow(data, settings, compiled=True), grow(data, settings, compiled=False))


def test_compiled_builder_with_fractional_weights_and_a_subset_of_rows():
    """grow_below's case: the rows reaching a node, some weighted (C4.5, no missing values)."""
    data = _data(11, nominal=2)
    rng = np.random.default_rng(2)
    rows = np.sort(rng.choice(data.n_rows, 800, replace=False))
    weights = rng.choice([1.0, 0.5, 2 / 3, 0.25], len(rows))
    settings = resolve(algorithm="c45", prune="none")
    a = grow(data, settings, rows=rows, weights=weights, depth=2, compiled=True)
    b = grow(data, settings, rows=rows, weights=weights, depth=2, compiled=False)
    _assert_same(a, b)


@pytest.mark.parametrize("algorithm", ["cart", "c45"])
def test_histogram_equals_exact_when_every_value_has_its_own_bin(algorithm, local_rows):
    data = _data(5, n=3000, numeric=5, nominal=1 if algorithm == "c45" else 0, decimals=1)
    assert all(len(np.unique(data.X[:, j])) <= 255 for j in range(data.X.shape[1]))
    exact = resolve(algorithm=algorithm, prune="none", splitter="exact")
    hist = resolve(algorithm=algorithm, prune="none", splitter="histogram")
    _assert_same(grow(data, hist, compiled=True), grow(data, exact, compiled=True))


def test_bins_are_quantiles_and_route_like_their_thresholds():
    rng = np.random.default_rng(0)
    x = rng.normal(size=50_000)
    edges = edges_for(x, 255)
    assert len(edges) == 254 and np.all(np.diff(edges) > 0)
    counts = np.bincount(np.searchsorted(edges, x), minlength=255)
    assert counts.min() > 0.5 * len(x) / 255 and counts.max() < 2 * len(x) / 255
    few = np.repeat([3.0, 1.0, 2.0, 7.5], 10)
    assert list(edges_for(few, 255)) == [1.5, 2.5, 5.25]
    X = np.asfortranarray(np.column_stack([x, rng.integers(0, 4, len(x))]).astype(np.float64))
    codes, nbins, lo, hi = bin_columns(X, np.arange(len(x)), np.array([0, 4]), 255, whole=True)
    assert nbins.tolist() == [255, 4] and codes[:, 1].tolist() == X[:, 1].astype(int).tolist()
    for b in range(254):  # bins do not overlap and the CART midpoint separates them
        assert hi[0, b] < lo[0, b + 1]
        assert hi[0, b] <= edges[b] < lo[0, b + 1]


def test_presorted_ties_and_duplicates_give_the_exact_split():
    """Many equal values: the root's stable presort must cut where per-node sorting does."""
    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"a": rng.integers(0, 6, 5000).astype(float),
                          "b": rng.integers(0, 3, 5000).astype(float)})
    frame["y"] = np.where(frame.a + rng.normal(size=5000) > 2.5, "p", "q")
    data = encode(make_table(frame))
    for params in (dict(algorithm="cart"), dict(algorithm="c45", prune="none")):
        settings = resolve(**params)
        _assert_same(grow(data, settings, compiled=True), grow(data, settings, compiled=False))


def test_missing_values_keep_the_numpy_loop():
    data = _data(1, n=5000)
    X = data.X.copy()
    X[::7, 1] = np.nan
    gappy = type(data)(data.schema, X, data.y, data.weight)
    problem = Problem(gappy, resolve(algorithm="cart"))
    assert fastpath.plan(problem, np.arange(5000), np.ones(5000), frozenset()) is None
    problem = Problem(data, resolve(algorithm="cart"))
    assert fastpath.plan(problem, np.arange(5000), np.ones(5000), frozenset()) == "exact"


def test_splitter_option_and_auto(monkeypatch):
    with pytest.raises(ArborError, match="splitter must be one of"):
        resolve(splitter="fast")
    with pytest.raises(ArborError, match="max-bins"):
        resolve(max_bins=1000)
    data = _data(2, n=5000)
    monkeypatch.setattr(fastpath, "AUTO_HISTOGRAM_ROWS", 4000)
    rows, weights = np.arange(5000), np.ones(5000)
    cart = Problem(data, resolve(algorithm="cart"))
    c45 = Problem(data, resolve(algorithm="c45"))
    assert fastpath.plan(cart, rows, weights, frozenset()) == "histogram"
    assert fastpath.plan(c45, rows, weights, frozenset()) == "exact"  # fidelity to J48
    assert fastpath.plan(cart, rows[:3000], weights[:3000], frozenset()) == "exact"


def test_histogram_fits_are_deterministic_and_close_to_exact():
    data = _data(8, n=20_000, numeric=6)
    settings = resolve(algorithm="cart", max_depth=8, splitter="histogram")
    a = grow(data, settings, compiled=True)
    _assert_same(a, grow(data, settings, compiled=True))
    exact = grow(data, resolve(algorithm="cart", max_depth=8, splitter="exact"), compiled=True)
    sizes = [sum(1 for _ in tree.walk()) for tree in (a, exact)]
    assert abs(sizes[0] - sizes[1]) < 0.2 * sizes[1]
    assert a.split.attribute == exact.split.attribute
    assert a.split.threshold == pytest.approx(exact.split.threshold, abs=0.05)


@pytest.mark.parametrize("splitter", ["exact", "histogram"])
def test_cancelling_a_big_compiled_fit_returns_promptly(splitter):
    rng = np.random.default_rng(1)
    n = 600_000
    frame = pd.DataFrame(rng.normal(size=(n, 8)), columns=list("abcdefgh"))
    frame["y"] = np.where(frame.a * frame.b + rng.normal(size=n) > 0, "p", "q")
    table = make_table(frame)
    assert compile_kernels()  # the compiled path, not the numpy loop meanwhile
    monitor, errors = Monitor(), []

    def fit():
        try:
            DecisionTree(algorithm="cart", splitter=splitter).fit(table, monitor=monitor)
        except Cancelled as err:
            errors.append(err)

    thread = threading.Thread(target=fit)
    thread.start()
    time.sleep(0.8)
    start = time.perf_counter()
    monitor.cancel()
    thread.join(timeout=20)
    assert not thread.is_alive() and errors
    assert time.perf_counter() - start < 3.0  # loose: half a second on a quiet machine


def test_node_arrays_grow_past_their_first_capacity(monkeypatch):
    # A fully grown noisy tree outgrows the first 1,024 node rows more than once.
    monkeypatch.setattr(fastpath, "LOCAL_ROWS", 64)
    data = _data(7, n=6000)
    settings = resolve(algorithm="cart")
    compiled = grow(data, settings, compiled=True)
    assert sum(1 for _ in compiled.walk()) > 2 * 1024  # enlarged twice at least
    _assert_same(compiled, grow(data, settings, compiled=False))
