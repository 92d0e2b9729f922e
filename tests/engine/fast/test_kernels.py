"""The compiled kernels, one by one, against the numpy code they repeat.

Sums against numpy's own, impurities against :mod:`engine.learn.criteria`, and each
attribute's best split at a node (numeric sweeps, category tables, CART's subsets, the
choice among attributes) against :mod:`engine.learn.splitting`'s readable scorers, on
generated nodes with fractional weights, missing values, many classes and categories.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

pytest.importorskip("numba")

from engine.data.encoding import Attribute, Encoded, Schema  # noqa: E402
from engine.fast import builder  # noqa: E402
from engine.fast import kernels as K  # noqa: E402
from engine.learn import criteria, rules  # noqa: E402
from engine.learn.problem import Problem  # noqa: E402
from engine.learn.splitting import choose, score_all  # noqa: E402
from engine.monitor import Monitor  # noqa: E402
from engine.settings import resolve  # noqa: E402

pytestmark = pytest.mark.usefixtures("compiled_builder")


@given(st.integers(0, 2000), st.integers(0, 10))
@hsettings(max_examples=60, deadline=None)
def test_pairwise_sum_is_numpys_sum_to_the_bit(n, seed):
    a = np.random.default_rng(seed).random(n + 5) * 10.0 ** np.random.default_rng(seed).integers(
        -3, 4
    )
    for lo in (0, 3):
        assert K.pairwise_sum(a, lo, n) == a[lo : lo + n].sum()


@given(
    st.lists(st.floats(0, 50), min_size=1, max_size=200), st.sampled_from(list(K.IMPURITY_CODES))
)
@hsettings(max_examples=80, deadline=None)
def test_impurity_is_the_criteria(counts, name):
    counts = np.array(counts)
    tmp = np.zeros(len(counts) + 2)
    if name in ("squared_error", "absolute_error"):
        # Absolute error is scored by its own sweep (it needs medians); asked for a node's
        # purity only, it reads as the variance, zero exactly when the target is constant.
        stats = np.array([counts.sum(), counts[0] * 3.0, counts[0] * 9.5])
        want = criteria.squared_error(*stats)
        got = K.impurity(stats, 0, K.IMPURITY_CODES[name], tmp)
        assert got == pytest.approx(want, abs=1e-12)
        return
    want = criteria.IMPURITIES[name](counts)
    assert K.impurity(counts, len(counts), K.IMPURITY_CODES[name], tmp) == want


@st.composite
def nodes(draw):
    """A training set and a node of it: some rows, fractional weights, missing values."""
    seed = draw(st.integers(0, 10_000))
    rng = np.random.default_rng(seed)
    n = draw(st.integers(4, 120))
    regression = draw(st.booleans()) and draw(st.booleans())
    n_classes = 0 if regression else draw(st.sampled_from([2, 2, 3, 4, 5, 140]))
    kinds = draw(st.lists(st.sampled_from(["numeric", "nominal"]), min_size=1, max_size=5))
    missing = draw(st.sampled_from([0.0, 0.0, 0.1, 0.4]))
    attrs, columns = [], []
    for j, kind in enumerate(kinds):
        if kind == "numeric":
            decimals = draw(st.sampled_from([0, 1, 3]))
            columns.append(np.round(rng.normal(size=n) * 3, decimals))
            attrs.append(Attribute(f"x{j}", "numeric"))
        else:
            k = draw(st.sampled_from([2, 3, 5, 12, 13, 20]))
            columns.append(rng.integers(0, k, n).astype(np.float64))
            attrs.append(Attribute(f"c{j}", "nominal", tuple(f"v{v}" for v in range(k))))
        columns[-1][rng.random(n) < missing] = np.nan
    X = np.asfortranarray(np.column_stack(columns))
    if regression:
        y = np.round(np.nan_to_num(X[:, 0]) + rng.normal(size=n), 2)
        schema = Schema(tuple(attrs), "y", None)
    else:
        y = (np.abs(np.nan_to_num(X[:, 0]) * 7 + rng.integers(0, 3, n)) % n_classes).astype(np.intp)
        schema = Schema(tuple(attrs), "y", tuple(f"k{c}" for c in range(n_classes)))
    data = Encoded(schema, X, y, np.ones(n))
    rows = np.sort(rng.choice(n, draw(st.integers(2, n)), replace=False))
    weights = (
        rng.choice([1.0, 1.0, 0.5, 1 / 3, 0.7], len(rows))
        if draw(st.booleans())
        else np.ones(len(rows))
    )
    algorithm = "cart" if regression else draw(st.sampled_from(["cart", "c45", "id3"]))
    params = dict(
        algorithm=algorithm,
        task="regression" if regression else "classification",
        min_samples_leaf=draw(st.sampled_from([0.0, 1.0, 2.0, 3.5])),
    )
    if algorithm == "cart" and not regression:
        params["criterion"] = draw(st.sampled_from(["gini", "entropy", "misclassification"]))
    if algorithm == "id3":
        params["criterion"] = "entropy"
    return data, rows, weights, resolve(**params)


@given(nodes())
@hsettings(max_examples=150, deadline=None)
def test_each_attributes_best_split_is_the_numpy_scorers(node):
    """The compiled node scorers (one call of the growth loop evaluates the root) give every
    attribute the numpy scorer's candidate, and choose the same attribute."""
    data, rows, weights, settings = node
    problem = Problem(data, settings)
    growth = builder.Growth(
        problem,
        "exact",
        rows,
        weights,
        0,
        frozenset(),
        Monitor(),
        builder.kernels(True),
        stepwise=True,
    )
    growth.run(1)  # evaluates the root, and only that
    stats = problem.stats(rows, weights)
    impurity = float(problem.impurity(stats))
    top = 0.0 if problem.regression else float(stats.max())
    pure = rules.is_pure(top, float(stats.sum()), problem.regression, impurity)
    if rules.stops_before_search(
        float(weights.sum()), 0, pure, settings.min_samples_split, settings.min_samples_leaf, -1
    ):
        assert growth.nodes.attribute[0] == -1
        return
    cand = growth.candidates
    want = score_all(problem, rows, weights)
    first = next((j for j, c in enumerate(want) if c is not None), None)
    one_way = len(rows) == 2 and growth.params.binary == 1
    one_way = one_way and growth.params.select == builder.BY_GAIN
    for j, c in enumerate(want):
        if one_way and first is not None and j > first and c is not None:
            # Two entries split one way: the first attribute that splits them is the only
            # one scanned, and every other that does ties with it.
            assert not cand.valid[j]
            assert c.gain == pytest.approx(want[first].gain, rel=1e-12, abs=1e-15)
            continue
        assert bool(cand.valid[j]) == (c is not None), j
        if c is None:
            continue
        assert cand.gain[j] == pytest.approx(c.gain, rel=1e-12, abs=1e-15)
        if np.isnan(cand.ratio[j]):  # chosen by gain: choose works out the winner's alone
            assert growth.params.select == builder.BY_GAIN and c.split.threshold is not None
        else:
            assert cand.ratio[j] == pytest.approx(c.gain_ratio, rel=1e-12, abs=1e-15)
        if c.split.threshold is not None:
            assert (
                builder._threshold(problem, j, cand.threshold[j], settings.binary)
                == c.split.threshold
            )
        if len(c.split.fractions) == 2 and (settings.binary or c.split.threshold is not None):
            assert (cand.fraction0[j], cand.fraction1[j]) == c.split.fractions
    best = choose(problem, want)
    chosen = int(growth.nodes.attribute[0])
    if best is None or rules.gain_too_small(best.gain, settings.min_gain, settings.binary):
        assert chosen == -1
    else:
        assert chosen == best.attribute
        assert growth.nodes.ratio[0] == pytest.approx(best.gain_ratio, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize(
    "splitter,max_bins", [("exact", 255), ("histogram", 255), ("histogram", 4)]
)
def test_a_local_copys_orders_are_a_stable_sort_of_its_values(splitter, max_bins, monkeypatch):
    """A small node grown on a private copy gets its sorted orders without sorting: renumbered
    from the node's own (exact search) or counted out of its bin codes, each bin's run then
    sorted by value (histograms; short runs by insertion, long ones by merge sort). Either
    way the stable argsort of the copied values, missing values last in entry order."""
    rng = np.random.default_rng(7)
    n = 3000
    X = np.asfortranarray(
        np.column_stack(
            [
                rng.normal(size=n),
                np.round(rng.normal(size=n), 1),
                rng.integers(0, 3, n).astype(float),
                rng.normal(size=n),
            ]
        )
    )
    X[rng.random(X.shape) < 0.1] = np.nan
    X[:, 3] = np.nan  # an attribute with no value at all
    X[0, 3] = 1.0
    names = [f"a{j}" for j in range(4)]
    schema = Schema(tuple(Attribute(name, "numeric") for name in names), "y", ("p", "q"))
    data = Encoded(schema, X, (X[:, 0] > 0).astype(np.intp), np.ones(n))
    for name in ("LOCAL_ROWS", "LOCAL_ROWS_LEAST", "HIST_LOCAL_ROWS"):
        monkeypatch.setattr(builder, name, n)  # the root is not local, its copy holds n
    problem = Problem(data, resolve(algorithm="cart", splitter=splitter, max_bins=max_bins))
    C = builder.kernels(True)
    growth = builder.Growth(
        problem, splitter, np.arange(n), np.ones(n), 0, frozenset(), Monitor(), C
    )
    local = growth.local_space
    local.private_values[:] = X.ravel(order="F")  # build_local's copy of the root's entries
    C._local_orders(
        np.int64(0), np.int64(n), growth.space, local, growth.hist, splitter == "histogram"
    )
    for j in range(4):
        assert np.array_equal(local.arena.order[j, :n], np.argsort(X[:, j], kind="stable")), j
