"""Generated training sets and tree comparisons for checking the compiled builder against
the oracle (:mod:`tests.oracle.growth`)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from engine.data.encoding import encode
from engine.data.table import make_table


def generated(
    seed,
    n=1200,
    numeric=4,
    nominal=0,
    classes=3,
    regression=False,
    decimals=None,
    missing=0.0,
    categories=3,
):
    """Numeric (float32-representable) and nominal attributes, a noisy class (or target) that
    depends on a few of them, and a share of every column's cells missing."""
    rng = np.random.default_rng(seed)
    cols = {}
    for i in range(numeric):
        x = rng.normal(size=n)
        cols[f"x{i}"] = np.round(x, decimals) if decimals is not None else x.astype(np.float32)
    for i in range(nominal):
        cols[f"c{i}"] = pd.Categorical([f"v{v}" for v in rng.integers(0, categories + i, n)])
    frame = pd.DataFrame(cols).astype({f"x{i}": np.float64 for i in range(numeric)})
    signal = rng.normal(size=n)
    if numeric:
        signal = frame["x0"] + (frame["x1"] * frame["x2"] if numeric > 2 else 0.0)
    if nominal:
        signal = signal + 0.5 * frame["c0"].cat.codes + 0.3 * frame[f"c{nominal - 1}"].cat.codes
    for c in list(frame.columns):
        gone = rng.random(n) < missing
        if isinstance(frame[c].dtype, pd.CategoricalDtype):
            frame[c] = frame[c].astype(object).where(~gone, None)
        else:
            frame.loc[gone, c] = np.nan
    if regression:
        frame["y"] = signal + rng.normal(scale=0.5, size=n)
        return encode(make_table(frame), "regression")
    cuts = np.quantile(signal, np.linspace(0, 1, classes + 1)[1:-1])
    labels = [f"k{i}" for i in range(classes)]
    y = np.digitize(signal + rng.normal(scale=0.6, size=n), cuts)
    frame["y"] = pd.Categorical(np.array(labels)[y], categories=labels)
    return encode(make_table(frame))


def shape(root):
    """Everything about a tree but its impurities, means and split scores (weights and class
    distributions to the bit: both sides add them in the same order)."""
    out = []
    for n in root.walk():
        split = None
        if n.split is not None:
            split = (
                n.split.attribute,
                n.split.kind,
                n.split.threshold,
                n.split.groups,
                tuple(np.round(n.split.fractions, 12)),
            )
        out.append((n.id, n.depth, n.weight, tuple(n.distribution), split))
    return out


def assert_same(a, b):
    """Two trees are the same node for node (split scores to 1e-9)."""
    assert shape(a) == shape(b)
    xs, ys = list(a.walk()), list(b.walk())
    # The oracle sums a regression node's target with BLAS, in its own order.
    assert_near(
        [(x.impurity, x.value) for x in xs],
        [(y.impurity, y.value) for y in ys],
        [x.id for x in xs],
        rel=1e-10,
        absolute=1e-12,
        nan_ok=True,
    )
    assert [list(x.stats) for x in xs] == [list(y.stats) for y in ys]
    assert_near(
        [v for x in xs for v in x.stats.values()],
        [v for y in ys for v in y.stats.values()],
        [x.id for x in xs for _ in x.stats],
        rel=1e-9,
        absolute=1e-12,
    )


def assert_near(actual, expected, ids, rel, absolute, nan_ok=False):
    """``actual == pytest.approx(expected, rel=rel, abs=absolute, nan_ok=nan_ok)`` for every value
    at once (a node's row of ``actual`` per id in ``ids``): one approx per node cost more than
    the compiled fit it checked. Equal values pass; others within max(rel x |expected|, absolute)."""
    got, want = np.asarray(actual, dtype=np.float64), np.asarray(expected, dtype=np.float64)
    assert got.shape == want.shape
    with np.errstate(invalid="ignore"):
        ok = (got == want) | (np.abs(got - want) <= np.maximum(rel * np.abs(want), absolute))
    if nan_ok:
        ok |= np.isnan(got) & np.isnan(want)
    if not ok.all():
        row = np.argwhere(~ok)[0][0]
        near = pytest.approx(want[row].tolist(), rel=rel, abs=absolute, nan_ok=nan_ok)
        assert got[row].tolist() == near, f"node {ids[row]}"


def assert_close(a, b, rel=1e-9):
    """The same splits everywhere, every number within ``rel`` (sums in other orders)."""
    xs, ys = list(a.walk()), list(b.walk())

    def outline(node):
        s = node.split
        split = None if s is None else (s.attribute, s.kind, s.threshold, s.groups)
        return (
            node.id,
            node.depth,
            split,
            len(node.distribution),
            0 if s is None else len(s.fractions),
        )

    assert [outline(x) for x in xs] == [outline(y) for y in ys]
    ids = [x.id for x in xs]
    counts = [(x.weight, *x.distribution) for x in xs]  # as many per node on both sides
    flat = [v for row in counts for v in row]
    assert_near(
        flat,
        [v for y in ys for v in (y.weight, *y.distribution)],
        [i for i, row in zip(ids, counts, strict=True) for _ in row],
        rel=rel,
        absolute=1e-12,  # pytest.approx's own
    )
    split = [(x, y) for x, y in zip(xs, ys, strict=True) if x.split is not None]
    assert_near(
        [f for x, _ in split for f in x.split.fractions],
        [f for _, y in split for f in y.split.fractions],
        [x.id for x, _ in split for _ in x.split.fractions],
        rel=rel,
        absolute=1e-12,
    )
