"""Training over partitions gives the in-memory histogram splitter's tree: the same splits,
thresholds and counts, on a Dask cluster (in this process) with uneven partitions: one
empty, one without a class, one where an attribute is all missing.

Counts are compared to rounding: with missing values the fractional weights are added
partition by partition, in another order than in memory."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest

from engine.data.encoding import encode
from engine.data.table import make_table
from engine.fast.builder import grow_tree
from engine.learn.problem import Problem
from engine.monitor import NULL_MONITOR
from engine.prune.pessimistic import collapse_tree
from engine.settings import resolve
from engine.tree import Tree

pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster():
    from engine.scale.cluster import Cluster

    with Cluster(n_workers=2, processes=False) as c:
        yield c


def frame(n, seed=0, missing=0.0, nominal=False, regression=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    X[:, 3] = np.round(X[:, 3] * 3)  # few distinct values: one bin each
    df = pd.DataFrame(X, columns=list("pqrs"))
    score = X[:, 0] + 0.5 * X[:, 1] + rng.normal(scale=0.7, size=n)
    if nominal:
        df["k"] = rng.choice(["u", "v", "w", "x"], size=n)
        score += df["k"].map({"u": 1.0, "v": 0.0, "w": -1.0, "x": 0.5}).to_numpy()
    for column in "pq" if missing else ():
        df.loc[rng.random(n) < missing, column] = np.nan
    if regression:
        df["y"] = score
    else:
        df["c"] = np.where(score > 0.3, "a", np.where(score < -1, "b", "c"))
    return df


def uneven(df, target):
    """Five partitions: a third of the rows; a fifth, without class b; none; a quarter with
    p all missing; the rest."""
    a, b, c = (int(len(df) * f) for f in (0.33, 0.55, 0.8))
    second = df.iloc[a:b]
    if target == "c":
        second = second[second["c"] != "b"]
    fourth = df.iloc[b:c].copy()
    fourth["p"] = np.nan
    return [df.iloc[:a], second, df.iloc[b:b], fourth, df.iloc[c:]]


def in_memory(df, target, settings):
    data = encode(make_table(df.reset_index(drop=True), target), settings.task)
    rows = np.arange(data.n_rows)
    root = grow_tree(
        Problem(data, settings),
        "histogram",
        rows,
        np.ones(data.n_rows),
        0,
        frozenset(),
        NULL_MONITOR,
    )
    tree = Tree(root, data.schema)
    return collapse_tree(tree, data, settings) if settings.algorithm == "c45" else tree


def assert_same_tree(got, want):
    # Compared whole-tree at once: node by node, the checks cost more than the fit itself
    # on the deep trees (thousands of nodes); the tolerances are the same.
    a, b = list(got.root.walk()), list(want.root.walk())
    assert len(a) == len(b)

    def shape(node):
        s = node.split
        return None if s is None else (s.attribute, s.kind, s.threshold, s.groups)

    got_shapes, want_shapes = [shape(x) for x in a], [shape(y) for y in b]
    if got_shapes != want_shapes:
        first = next(
            i for i, (x, y) in enumerate(zip(got_shapes, want_shapes, strict=True)) if x != y
        )
        assert got_shapes[first] == want_shapes[first], a[first].id
    split = [i for i, s in enumerate(got_shapes) if s is not None]
    if split:
        np.testing.assert_allclose(
            np.concatenate([a[i].split.fractions for i in split]),
            np.concatenate([b[i].split.fractions for i in split]),
            rtol=1e-9,
        )
    np.testing.assert_allclose(
        np.stack([x.distribution for x in a]),
        np.stack([y.distribution for y in b]),
        rtol=1e-9,
        atol=1e-9,
    )
    # pytest.approx(rel=1e-9) as it was per node: its absolute floor is 1e-12
    np.testing.assert_allclose([x.weight for x in a], [y.weight for y in b], rtol=1e-9, atol=1e-12)
    if got.is_regression:
        np.testing.assert_allclose(
            [x.value for x in a], [y.value for y in b], rtol=1e-9, atol=1e-12
        )


CASES = {
    "cart": (dict(), "c", dict(algorithm="cart", prune="none", max_depth=8)),
    "cart-regression": (
        dict(regression=True),
        "y",
        dict(algorithm="cart", task="regression", prune="none", max_depth=7),
    ),
    "c45": (dict(nominal=True), "c", dict(algorithm="c45", prune="none", max_depth=6)),
    "c45-missing": (
        dict(missing=0.1, nominal=True),
        "c",
        dict(algorithm="c45", prune="none", max_depth=6),
    ),
    "cart-missing": (dict(missing=0.1), "c", dict(algorithm="cart", prune="none", max_depth=7)),
    "cart-majority": (
        dict(missing=0.1, nominal=True),
        "c",
        dict(algorithm="cart", prune="none", max_depth=7, missing="majority"),
    ),
    "cart-subsets-whole": (dict(nominal=True), "c", dict(algorithm="cart", prune="none")),
    "cart-best-first": (
        dict(),
        "c",
        dict(algorithm="cart", prune="none", growth="best", max_leaves=30),
    ),
    "c45-leaf-limit": (dict(missing=0.05), "c", dict(algorithm="c45", prune="none", max_leaves=20)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_same_tree_as_the_histogram_splitter_in_memory(
    case, cluster, reads, kept_folders, tmp_path
):
    """And the values are kept in the workers' memory: each file is read once, in a fit of
    many passes, and no worker keeps a file."""
    from engine.scale.source import describe, scan
    from engine.scale.training import fit_partitions

    shape, target, options = CASES[case]
    n = 12000 if case in ("cart-subsets-whole", "cart-best-first", "c45-leaf-limit") else 24000
    parts = uneven(frame(n, **shape), target)
    for k, part in enumerate(parts):
        part.to_parquet(tmp_path / f"part.{k}.parquet")
    settings = resolve(splitter="histogram", **options)
    dataset = scan(describe(str(tmp_path)), cluster.map, target)
    reads.clear()  # the scan reads the files' schemas, not their rows
    tree, facts = fit_partitions(dataset, settings, cluster)
    want = in_memory(pd.concat(parts), target, settings)
    assert_same_tree(tree, want)
    assert facts.rows == want.root.weight and facts.partitions == 5
    assert tree.n_leaves > 5
    assert reads == Counter(range(5)) and facts.passes >= 4
    assert facts.kept_in_memory and kept_folders == []
