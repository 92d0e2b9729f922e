"""The compiled builder grows the oracle's trees (tests/oracle/growth.py, numpy over the readable
scorers), node for node, for everything a fit can hold: missing values, CART's subsets, many
attributes and classes, regression, every criterion, depth- and best-first, leaf limits, step
by step, below a node. Histograms match exact search where every value has its own bin.

Speed itself is measured in benchmarks/, never asserted here.
"""

import threading

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("numba")

from engine.data.encoding import encode  # noqa: E402
from engine.data.table import make_table  # noqa: E402
from engine.errors import ArborError, Cancelled  # noqa: E402
from engine.estimator import DecisionTree  # noqa: E402
from engine.fast import (
    builder,  # noqa: E402
    histogram,  # noqa: E402
)
from engine.fast.groups import MISSING_CODE  # noqa: E402
from engine.fast.histogram import bin_columns, edges_for  # noqa: E402
from engine.growth import grow, grow_steps  # noqa: E402
from engine.learn.problem import Problem  # noqa: E402
from engine.monitor import Monitor  # noqa: E402
from engine.settings import resolve  # noqa: E402
from tests.oracle import growth as oracle  # noqa: E402
from tests.oracle.data import assert_close, assert_same, generated  # noqa: E402

pytestmark = pytest.mark.usefixtures("compiled_builder")


@pytest.fixture(params=[64, 100_000], ids=["global-and-local", "all-local"])
def local_rows(request, monkeypatch):
    """Small subtrees are grown on a private copy of their entries: test with and without."""
    for name in ("LOCAL_ROWS", "LOCAL_ROWS_LEAST", "HIST_LOCAL_ROWS"):
        monkeypatch.setattr(builder, name, request.param)
    return request.param


CASES = [
    ("cart gini", dict(algorithm="cart"), dict()),
    (
        "cart entropy",
        dict(algorithm="cart", criterion="entropy", max_depth=6, min_samples_leaf=4),
        dict(classes=2),
    ),
    (
        "cart misclassification",
        dict(algorithm="cart", criterion="misclassification", max_depth=7),
        dict(classes=4),
    ),
    (
        "cart best-first",
        dict(algorithm="cart", growth="best", max_leaves=25, min_samples_leaf=3),
        dict(),
    ),
    (
        "cart regression",
        dict(algorithm="cart", task="regression", min_samples_leaf=3, max_depth=8),
        dict(regression=True),
    ),
    ("cart min gain", dict(algorithm="cart", min_gain=0.005), dict(classes=4)),
    ("cart subsets", dict(algorithm="cart", max_depth=8), dict(nominal=2, classes=3)),
    ("cart subsets two classes", dict(algorithm="cart"), dict(nominal=3, classes=2, categories=9)),
    (
        "cart subsets heuristic",
        dict(algorithm="cart", max_depth=6),
        dict(nominal=2, classes=4, categories=14),
    ),
    (
        "cart subsets regression",
        dict(algorithm="cart", task="regression", min_samples_leaf=5),
        dict(nominal=2, regression=True, categories=7),
    ),
    ("c45 mixed", dict(algorithm="c45", prune="none"), dict(nominal=2)),
    ("c45 ties", dict(algorithm="c45", prune="none"), dict(nominal=2, decimals=1)),
    (
        "c45 best-first by gain",
        dict(algorithm="c45", prune="none", growth="best", priority="gain", max_leaves=12),
        dict(nominal=1),
    ),
    ("c45 four classes", dict(algorithm="c45", prune="none"), dict(nominal=1, classes=4)),
    ("id3", dict(algorithm="id3"), dict(numeric=0, nominal=4)),
    (
        "id3 best-first by gain",
        dict(algorithm="id3", growth="best", priority="gain", max_leaves=9),
        dict(numeric=0, nominal=4),
    ),
]


#: The table and the oracle's tree for each case and share of missing values, made once for
#: both ``local_rows`` settings (only the compiled builder reads them): the oracle's numpy
#: growth is most of this file's time, making the table next, the compiled growth a small part.
_ORACLE_TREES: dict = {}

#: Rows of each case's table. 600 rows (900 before, for 1.4 times the oracle's time) still
#: give every case each kind of split it had, splits of nodes above and below the 64 rows of
#: ``local_rows``, fractional weights with missing values and subsets of more categories than
#: the exhaustive search takes; the fully grown trees are 16 to 23 levels deep.
ROWS = 600


@pytest.mark.parametrize("missing", [0.0, 0.1], ids=["complete", "10% missing"])
@pytest.mark.parametrize("name,params,shape", CASES, ids=[c[0] for c in CASES])
def test_compiled_builder_grows_the_oracles_tree(name, params, shape, missing, local_rows):
    settings = resolve(**params)
    if (name, missing) not in _ORACLE_TREES:
        data = generated(len(name), n=ROWS, missing=missing, **shape)
        _ORACLE_TREES[name, missing] = data, oracle.grow(data, settings)
    data, want = _ORACLE_TREES[name, missing]
    assert_same(grow(data, settings), want)


def _many(attributes: int, classes: int, n: int = 1000):
    """``n`` rows of ``attributes`` numeric attributes, a nominal one (the last attribute) and
    ``classes`` classes (with 1,000 rows, those past 128 reach 25 rows at 150 classes, as 2,500
    rows did)."""
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        rng.normal(size=(n, attributes)), columns=[f"a{i}" for i in range(attributes)]
    )
    frame["k"] = pd.Categorical(rng.choice([f"g{i}" for i in range(5)], n))
    frame.loc[rng.random(n) < 0.05, "a1"] = np.nan
    names = [f"c{i:03d}" for i in range(classes)]
    spread = (frame.a0 + 3) * classes / 6
    frame["y"] = pd.Categorical(
        np.array(names)[np.clip(spread.astype(int) + rng.integers(0, 3, n), 0, classes - 1)],
        categories=names,
    )
    return encode(make_table(frame))


@pytest.mark.parametrize(
    "attributes,classes,rows",
    [(70, 3, 400), (3, 150, 1000)],
    ids=["many-attributes", "many-classes"],
)
def test_many_attributes_or_many_classes(attributes, classes, rows):
    """No limits on attributes (once 62: a bit mask) or classes (once 128: the sums), each
    past its old limit in a table that is not wide in the other (a fifteenth of the
    oracle's time of both at once, the slow test below). 400 rows are enough for the wide
    table: both trees split on attributes past the 62nd, and C4.5's on the nominal one, the
    71st, whose bit then leaves it out below (asserted; 1,000 rows took 2.5 times the
    oracle's time for no other branch)."""
    data = _many(attributes, classes, rows)
    assert len(data.schema.attributes) == attributes + 1 and len(data.schema.classes) == classes
    assert data.y.max() > 128 or attributes > 62
    for params in (dict(algorithm="cart", max_depth=6), dict(algorithm="c45", prune="none")):
        settings = resolve(**params)
        want = oracle.grow(data, settings)
        assert_same(grow(data, settings), want)
        if attributes > 62:
            used = {n.split.attribute for n in want.walk() if n.split is not None}
            assert max(used) > 62
            assert settings.binary or attributes in used  # the nominal one, multiway


@pytest.mark.slow
def test_many_attributes_and_many_classes():
    """No limits on attributes (once 62: a bit mask) or classes (once 128: the sums), both at
    once. Slow (6 s of CPU, the oracle's scoring of 71 attributes for 150 classes); each limit
    alone is checked by the quick test above."""
    data = _many(70, 150)
    assert len(data.schema.classes) == 150 and data.y.max() > 128
    for params in (dict(algorithm="cart", max_depth=6), dict(algorithm="c45", prune="none")):
        settings = resolve(**params)
        assert_same(grow(data, settings), oracle.grow(data, settings))


def test_a_subtree_below_a_node_with_fractional_weights_and_used_attributes():
    """grow_below's case: the rows reaching a node, some weighted, some attributes used above.
    (400 of 600 rows: C4.5 still splits on the other nominal attribute, multiway, and
    numeric ones, CART's 289 nodes on both nominal attributes' subsets and all four numeric
    ones; 800 of 1,200 rows took twice the oracle's time.)"""
    data = generated(11, n=600, nominal=2, missing=0.1)
    rng = np.random.default_rng(2)
    rows = np.sort(rng.choice(data.n_rows, 400, replace=False))
    weights = rng.choice([1.0, 0.5, 2 / 3, 0.25], len(rows))
    for params in (dict(algorithm="c45", prune="none"), dict(algorithm="cart")):
        settings = resolve(**params)
        used = frozenset({4}) if not settings.binary else frozenset()
        a = grow(data, settings, rows=rows, weights=weights, depth=2, used=used)
        b = oracle.grow(data, settings, rows=rows, weights=weights, depth=2, used=used)
        assert_same(a, b)


def test_segments_outgrow_the_arena_and_best_first_compacts_it(monkeypatch):
    # No slack for missing values' copies: the arena, the private space and (best-first)
    # compaction all have to make room as the tree grows. (500 rows do, each fit at least
    # once, as 1,000 and 3,000 did for 1.6 and five times the oracle's time: the depth-first
    # fits enlarge their private space, best-first its arena, which it compacts before it
    # enlarges.)
    monkeypatch.setattr(builder, "MISSING_SLACK", 0.0)
    monkeypatch.setattr(builder, "LOCAL_ROWS", 300)
    enlarged = []
    bigger = builder.Growth._bigger_space

    def counted(space, need):
        enlarged.append(need)
        return bigger(space, need)

    monkeypatch.setattr(builder.Growth, "_bigger_space", staticmethod(counted))
    data = generated(5, n=500, nominal=2, missing=0.2)
    for params in (
        dict(algorithm="c45", prune="none"),
        dict(algorithm="cart", growth="best"),
        dict(algorithm="cart"),
    ):
        settings = resolve(**params)
        enlarged.clear()
        assert_same(grow(data, settings), oracle.grow(data, settings))
        assert enlarged, params  # the space did run out


def _compiled_and_interpreted(data, settings) -> list:
    """``data``'s tree grown by the compiled kernels, then by their Python source."""
    problem = Problem(data, settings)
    rows, weights = np.arange(data.n_rows), np.ones(data.n_rows)
    return [
        builder.grow_tree(problem, "exact", rows, weights, 0, frozenset(), Monitor(), c)
        for c in (True, False)
    ]


def test_interpreted_kernels_grow_the_same_tree_to_the_bit(compiled_builder):
    """While the kernels compile, small fits run their Python source: the same tree."""
    for shape, params in (
        (dict(nominal=2, missing=0.1), dict(algorithm="c45", prune="none")),
        (dict(nominal=1, missing=0.1), dict(algorithm="cart")),
        (dict(regression=True), dict(algorithm="cart", task="regression", max_depth=5)),
    ):
        runs = _compiled_and_interpreted(generated(9, n=300, **shape), resolve(**params))
        assert_same(*runs)
        for x, y in zip(runs[0].walk(), runs[1].walk(), strict=True):
            # repr() of a float is exact and spells NaN as nan: equal text, equal bits.
            assert repr((float(x.impurity), float(x.value), sorted(x.stats.items()))) == repr(
                (float(y.impurity), float(y.value), sorted(y.stats.items()))
            )
    compiled_builder.clear()  # the interpreted runs were this test's own


def test_big_nodes_fetching_ahead_grow_the_interpreted_tree(compiled_builder):
    """Nodes of PREFETCH_LEAST entries or more ask for entries ahead of their loops (in the
    compiled kernels only): the same tree as their Python source grows, to the bit."""
    from engine.fast.kernels import PREFETCH_LEAST

    for shape, params in (
        (dict(regression=True, missing=0.05), dict(algorithm="cart", task="regression")),
        (dict(nominal=1), dict(algorithm="cart")),
    ):
        data = generated(11, n=2 * PREFETCH_LEAST + 100, numeric=3, **shape)
        assert_same(*_compiled_and_interpreted(data, resolve(prune="none", max_depth=2, **params)))
    compiled_builder.clear()  # the interpreted runs were this test's own


@pytest.mark.parametrize("growth", ["depth", "best"])
def test_step_by_step_growth_follows_the_oracle(growth):
    data = generated(4, n=400, nominal=2, missing=0.1)
    settings = resolve(algorithm="c45", prune="none", growth=growth, max_leaves=15)
    ours, theirs = list(grow_steps(data, settings)), list(oracle.grow_steps(data, settings))
    assert [s.expanded for s in ours] == [e for _, e, _, _ in theirs]
    for step, (root, _, worth, queue) in zip(ours, theirs, strict=True):
        assert_same(step.root, root)
        assert step.priority == pytest.approx(worth, rel=1e-12)
        assert [k for k, _ in step.queue] == [k for k, _ in queue]
        assert [p for _, p in step.queue] == pytest.approx([p for _, p in queue], rel=1e-12)


@pytest.mark.parametrize("algorithm", ["cart", "c45"])
@pytest.mark.parametrize("missing", [0.0, 0.1], ids=["complete", "10% missing"])
def test_histogram_equals_exact_when_every_value_has_its_own_bin(algorithm, missing, local_rows):
    """To the bit on complete data. With missing values, weights become fractions, which
    histograms add bin by bin and exact search value by value: the same splits, the numbers
    to rounding (a tree is kept to nodes big enough not to hinge on a rounding-level tie)."""
    data = generated(
        5, n=3000, numeric=5, nominal=1 if algorithm == "c45" else 0, decimals=1, missing=missing
    )
    assert all(len(np.unique(data.X[:, j])) <= 256 for j in range(data.X.shape[1]))
    limits = dict(max_depth=7, min_samples_leaf=10) if missing else {}
    exact = resolve(algorithm=algorithm, prune="none", splitter="exact", **limits)
    hist = resolve(algorithm=algorithm, prune="none", splitter="histogram", **limits)
    (assert_close if missing else assert_same)(grow(data, hist), grow(data, exact))


def test_compiled_edges_equal_the_numpy_rule():
    """edges_for's one pass over sorted values against tests/oracle/edges.py (numpy's unique
    values and counts), bit for bit, on columns of every kind the tables bring."""
    from tests.oracle.edges import edges_for as oracle

    rng = np.random.default_rng(4)
    n = 300_000  # sampled down to 200,000 values
    columns = {
        "normal": rng.normal(size=n),
        "one decimal": np.round(rng.normal(size=n), 1),
        "integers": rng.integers(0, 300, n).astype(float),
        "255 values": rng.integers(0, 255, n).astype(float),
        "256 values": rng.integers(0, 256, n).astype(float),
        "few": rng.integers(0, 3, 1000).astype(float),
        "constant": np.full(500, 2.5),
        "empty": np.zeros(0),
        "heavy tails": rng.standard_cauchy(size=n),
        "signed zeros": np.where(rng.random(n) < 0.5, -0.0, 0.0) + rng.integers(0, 400, n),
        "crowded": np.concatenate([rng.normal(size=n - 10) * 1e-9, [1e6] * 10]),
        "float32": rng.normal(size=n).astype(np.float32).astype(np.float64),
    }
    for name, x in columns.items():
        for bins in (255, 16, 2):
            got, want = edges_for(x, bins), oracle(x, bins)
            assert got.tobytes() == want.tobytes(), (name, bins)


def test_bins_are_quantiles_and_route_like_their_thresholds():
    rng = np.random.default_rng(0)
    x = rng.normal(size=50_000)
    edges = edges_for(x, 255)
    assert len(edges) == 254 and np.all(np.diff(edges) > 0)
    counts = np.bincount(np.searchsorted(edges, x), minlength=255)
    assert counts.min() > 0.5 * len(x) / 255 and counts.max() < 2 * len(x) / 255
    few = np.repeat([3.0, 1.0, 2.0, 7.5], 10)
    assert list(edges_for(few, 255)) == [1.5, 2.5, 5.25]
    X = np.column_stack([x, rng.integers(0, 4, len(x))]).astype(np.float64)
    X[::10] = np.nan
    X = np.asfortranarray(X)
    codes, nbins, lo, hi = bin_columns(X, np.arange(len(x)), np.array([0, 4]), 255, whole=True)
    assert nbins.tolist() == [255, 4]
    assert (codes[::10] == MISSING_CODE).all()
    known = ~np.isnan(X[:, 1])
    assert codes[known, 1].tolist() == X[known, 1].astype(int).tolist()
    known_edges = edges_for(x[known], 255)
    for b in range(254):  # bins do not overlap and the CART midpoint separates them
        assert hi[0, b] < lo[0, b + 1]
        assert hi[0, b] <= known_edges[b] < lo[0, b + 1]
    # Coded a block of rows at a time (a cancellation check between blocks): the same codes
    # and value ranges whatever the block size, for a whole table or some of its rows.
    rows = np.flatnonzero(rng.random(len(x)) < 0.7)
    for whole, picked in ((True, np.arange(len(x))), (False, rows)):
        whole_column = bin_columns(X, picked, np.array([0, 4]), 255, whole=whole)
        checks = []
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(histogram, "BLOCK_ROWS", 1000)
            blocks = bin_columns(
                X,
                picked,
                np.array([0, 4]),
                255,
                whole=whole,
                check=lambda checks=checks: checks.append(1),
            )
        for a, b in zip(whole_column, blocks, strict=True):
            assert np.array_equal(a, b)
        assert len(checks) >= len(picked) // 1000


def _numpy_codes(edges, x, nb):
    """The codes and bins' value ranges by numpy's searchsorted (the compiled coder's oracle)."""
    missing = np.isnan(x)
    codes = np.searchsorted(edges, x, side="left")
    lo, hi = np.full(nb, np.inf), np.full(nb, -np.inf)
    np.minimum.at(lo, codes[~missing], x[~missing])
    np.maximum.at(hi, codes[~missing], x[~missing])
    return np.where(missing, MISSING_CODE, codes).astype(np.uint8), lo, hi


@pytest.mark.parametrize(
    "kind", ["normal", "ties", "few", "one value", "edges at values", "crowded", "heavy tails"]
)
def test_the_compiled_coders_code_as_searchsorted_does(kind):
    """Both coders, the grid's and the blocks', on every kind of column; the grid's where its
    cells are not crowded (code_column's choice)."""
    rng = np.random.default_rng(3)
    n = 3000
    x = {
        "normal": rng.normal(size=n),
        "ties": np.round(rng.normal(size=n), 1),
        "few": rng.integers(0, 3, n).astype(float),
        "one value": np.full(n, 2.5),
        "edges at values": rng.integers(0, 300, n).astype(float),
        # Most bins in a sliver of the span: the grid's cells would each hold dozens.
        "crowded": np.concatenate([rng.normal(size=n - 20) * 1e-6, rng.normal(size=20) * 1e3]),
        "heavy tails": rng.standard_cauchy(size=n),
    }[kind]
    x[rng.random(n) < 0.1] = np.nan
    x[:3] = [np.inf, -np.inf, np.nan]
    for max_bins in (2, 3, 16, 255):
        edges = edges_for(x[~np.isnan(x)], max_bins)
        if kind == "edges at values":  # values equal to an edge go to its bin, as "left" says
            edges = np.unique(x[~np.isnan(x)])[: max_bins - 1].astype(np.float64)
        nb = len(edges) + 1
        want_codes, want_lo, want_hi = _numpy_codes(edges, x, nb)
        grid = histogram._edge_grid(edges)
        if kind == "crowded" and max_bins == 255:
            assert grid is None
        if kind in ("normal", "ties", "few", "edges at values") and np.isfinite(edges).any():
            assert grid is not None
        # A grid for any edges, crowded or not, to test its coder on all of them.
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(histogram, "GRID_MOST", 256)
            any_grid = histogram._edge_grid(edges)
        coders = [(histogram._code_block, histogram._edge_blocks(edges))]
        if any_grid is not None:
            coders.append((histogram._code_grid, any_grid))
        for coder, tables in coders:
            codes = np.zeros((n, 2), dtype=np.uint8)
            lo, hi = np.full((2, 256), np.inf), np.full((2, 256), -np.inf)
            coder(*tables, x, codes, 0, 1, lo[1], hi[1])
            assert codes[:, 1].tolist() == want_codes.tolist()
            assert lo[1, :nb].tolist() == want_lo.tolist()
            assert hi[1, :nb].tolist() == want_hi.tolist()
            assert (codes[:, 0] == 0).all() and np.isinf(lo[0]).all()


def test_presorted_ties_and_duplicates_give_the_exact_split():
    """Many equal values: the root's stable presort must cut where per-node sorting does."""
    rng = np.random.default_rng(4)
    frame = pd.DataFrame(
        {"a": rng.integers(0, 6, 5000).astype(float), "b": rng.integers(0, 3, 5000).astype(float)}
    )
    frame["y"] = np.where(frame.a + rng.normal(size=5000) > 2.5, "p", "q")
    frame.loc[rng.random(5000) < 0.1, "a"] = np.nan
    data = encode(make_table(frame))
    for params in (dict(algorithm="cart"), dict(algorithm="c45", prune="none")):
        settings = resolve(**params)
        assert_same(grow(data, settings), oracle.grow(data, settings))


def test_splitter_option_and_auto(monkeypatch):
    with pytest.raises(ArborError, match="splitter must be one of"):
        resolve(splitter="fast")
    with pytest.raises(ArborError, match="max-bins"):
        resolve(max_bins=1000)
    monkeypatch.setattr(builder, "AUTO_HISTOGRAM_ROWS", 4000)
    assert builder.plan(resolve(algorithm="cart"), 5000) == "histogram"
    assert builder.plan(resolve(algorithm="c45"), 5000) == "exact"  # fidelity to J48
    assert builder.plan(resolve(algorithm="cart"), 3000) == "exact"
    assert builder.plan(resolve(algorithm="c45", splitter="histogram"), 10) == "histogram"


def test_histogram_fits_are_deterministic_and_close_to_exact():
    data = generated(8, n=20_000, numeric=6, missing=0.1)
    settings = resolve(algorithm="cart", max_depth=8, splitter="histogram")
    a = grow(data, settings)
    assert_same(a, grow(data, settings))
    exact = grow(data, resolve(algorithm="cart", max_depth=8, splitter="exact"))
    sizes = [sum(1 for _ in tree.walk()) for tree in (a, exact)]
    assert abs(sizes[0] - sizes[1]) < 0.2 * sizes[1]
    assert a.split.attribute == exact.split.attribute
    assert a.split.threshold == pytest.approx(exact.split.threshold, abs=0.05)


@pytest.mark.parametrize("splitter", ["exact", "histogram"])
def test_a_cancel_from_another_thread_stops_the_growth_at_its_next_chunk(splitter, monkeypatch):
    """Cancel, called from another thread while the compiled loop grows a tree, stops it at
    the next chunk: the fit raises Cancelled and reports nothing more. The growing thread
    waits at its first report until the cancel is made, so the cancel always lands mid-growth
    whatever the machine's speed. How soon a million-row fit stops is measured by
    benchmarks/bench_cancel.py (phase 'growth', --splitter), never asserted here."""
    monkeypatch.setattr(builder, "CHUNK_WORK", 20_000)  # many chunks on a small table
    rng = np.random.default_rng(1)
    n = 20_000
    frame = pd.DataFrame(rng.normal(size=(n, 8)), columns=list("abcdefgh"))
    frame["y"] = np.where(frame.a * frame.b + rng.normal(size=n) > 0, "p", "q")
    frame.loc[rng.random(n) < 0.1, "c"] = np.nan
    table = make_table(frame)
    growing, cancelled = threading.Event(), threading.Event()
    reports, after, errors = [], [], []

    def report(fraction, message):
        (after if cancelled.is_set() else reports).append((fraction, message))
        if message.endswith("leaves") and not growing.is_set():
            growing.set()
            assert cancelled.wait(60)

    monitor = Monitor(report)

    def fit():
        try:
            DecisionTree(algorithm="cart", splitter=splitter).fit(table, monitor=monitor)
        except Cancelled as err:
            errors.append(err)

    thread = threading.Thread(target=fit)
    thread.start()
    assert growing.wait(60), reports
    monitor.cancel()
    cancelled.set()
    thread.join(timeout=60)
    assert not thread.is_alive() and errors
    assert reports[-1][0] < 1.0, reports  # the growth was under way, not done
    assert after == []  # stopped at the check that follows the report


def test_a_cancel_stops_a_subtree_grown_whole_having_grown_nothing(monkeypatch):
    """A subtree grown whole on a private copy is one call of the compiled loop (131,072
    entries took half a second), which a Cancel reaches through the monitor's stop flag
    (``State.stop``): the call returns having grown nothing of it, and grown again, the tree
    is the one grown without the stop. Here the whole tree is such a subtree (a small root),
    and the flag is set, then cleared, around the call that grows it."""
    from tests.engine.fast.test_threads import bits

    data = generated(3, n=1_500, missing=0.1)
    settings = resolve(algorithm="cart", prune="none")
    want = grow(data, settings)
    stopped = []
    run = builder.Growth.run

    def cancelled_once(growth, budget, step=False):
        nodes = growth.nodes
        if stopped or int(growth.state.n_nodes[0]) != 1 or nodes.local[0] != 1:
            return run(growth, budget, step)
        growth.state.stop[0] = 1  # what Monitor.cancel sets, without the Event check() raises
        try:
            run(growth, budget, step)
        finally:
            growth.state.stop[0] = 0
        stopped.append((int(growth.state.n_nodes[0]), int(nodes.local[0]), int(nodes.end[0])))
        return growth.kernels.PAUSED

    monkeypatch.setattr(builder.Growth, "run", cancelled_once)
    monitor = Monitor()
    got = grow(data, settings, monitor)
    assert stopped == [(1, 1, 1_500)]  # the root still to be grown whole, over its entries
    assert bits(got) == bits(want)
    assert monitor.stop_flag is monitor.scaled(0.2, 0.4).stop_flag
    monitor.cancel()
    assert monitor.stop_flag[0] == 1


def test_node_arrays_grow_past_their_first_capacity(monkeypatch):
    # A fully grown noisy tree outgrows its first node rows more than once. They start at 16
    # here: a table this small starts with room for every node it can have (two per entry),
    # and an enlargement adds at least 1,024 rows, so a tree of more than 1,040 nodes is
    # enlarged twice, by the code a table of more than 32,768 rows runs once its first
    # 65,536 rows fill (1,200 rows: 1,255 nodes; 2,500 rows took twice the oracle's time).
    monkeypatch.setattr(builder, "LOCAL_ROWS", 64)
    first = []
    made = builder.new_nodes

    def small(capacity, n_stats):
        first.append(capacity)
        return made(16, n_stats)

    monkeypatch.setattr(builder, "new_nodes", small)
    data = generated(7, n=1200, missing=0.05)
    settings = resolve(algorithm="cart")
    compiled = grow(data, settings)
    assert first and sum(1 for _ in compiled.walk()) > 16 + 1024  # enlarged twice at least
    assert_same(compiled, oracle.grow(data, settings))


def test_exact_searchs_private_copies_are_capped_by_rows_and_bytes():
    """Up to 131,072 entries, a quarter of the table's rows, and 32 MB of copied values and
    orders (wide tables copy fewer), never under 2,048."""
    assert builder.exact_local_rows(10_000, 15) == 2500
    assert builder.exact_local_rows(300_000, 15) == 75_000  # a quarter of the rows
    assert builder.exact_local_rows(1_000_000, 15) == 131_072
    assert builder.exact_local_rows(1_000_000, 200) == (32 << 20) // (12 * 200)
    assert builder.exact_local_rows(1_000_000, 5000) == 2048
    assert builder.exact_local_rows(1000, 15) == 2048  # the root itself is copied


@pytest.mark.parametrize("n", [0, 1, 7, 100_000])
def test_a_regression_roots_sums_are_added_in_entry_order(n):
    """The compiled pass equals numpy's cumulative sums' last values to the bit (sequential
    additions, as the kernels add the nodes' statistics)."""
    from engine.fast.kernels import ordered_sums

    rng = np.random.default_rng(n)
    w, y = rng.random(n) * 3, rng.normal(size=n) * 100
    wy = w * y
    want = np.array([np.cumsum(a)[-1] if n else 0.0 for a in (w, wy, wy * y)])
    assert ordered_sums(w, y).tobytes() == want.tobytes()
