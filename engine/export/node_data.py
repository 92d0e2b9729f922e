"""The data behind one node, ready to plot (as dtreeviz draws it), with no drawing here.

A node's rows are the training rows that reach it, with C4.5's fractional weights where a
value was missing above (:func:`engine.learn.explain.node_rows`). What is worked out of them
depends on the node:

- a numeric split: a histogram of the split attribute by class, with the threshold a bin
  edge (bins are closed on the right, so the bins left of it hold exactly the rows that go
  ``<=``), the rows whose value is missing by class, and each branch's share;
- a nominal split: weights per category by class, the branch each category goes to, and
  each branch's share;
- a regression split: (attribute, target) points, a sample of at most ``max_points`` with
  the sample size said, and each branch's mean target;
- a leaf: its class weights, or (regression) a histogram of its target.

Every figure is a weighted count, so the histogram, the missing row and the category bars
add up to the node's weight by class. :func:`node_data` works out one node (the inspector);
:func:`nodes_data` many, in one walk down the tree (the plots drawn inside the canvas's
nodes and in images).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.data.encoding import Encoded
from engine.learn.explain import node_rows
from engine.settings import Settings, resolve
from engine.tree import THRESHOLD, Split, Tree, partition_rows

#: At most this many (attribute, target) points are drawn for a regression split.
MAX_POINTS = 50_000
#: Histogram bins: about the square root of the rows, within these bounds.
MIN_BINS, MAX_BINS = 4, 40


@dataclass(frozen=True, eq=False)
class NumericSplitData:
    """A threshold split's rows: ``counts[c, b]`` is class ``c``'s weight in bin ``b``, the
    bin ``(edges[b], edges[b + 1]]`` (the first bin also holds its left edge)."""

    node_id: int
    attribute: str
    classes: tuple[str, ...]
    by_class: np.ndarray
    edges: np.ndarray
    counts: np.ndarray
    missing: np.ndarray
    threshold: float
    shares: tuple[float, ...]
    n_rows: int


@dataclass(frozen=True, eq=False)
class NominalSplitData:
    """A split on categories: ``counts[c, k]`` is class ``c``'s weight with category ``k``;
    ``branch[k]`` the branch category ``k`` goes to (-1: none)."""

    node_id: int
    attribute: str
    classes: tuple[str, ...]
    by_class: np.ndarray
    categories: tuple[str, ...]
    counts: np.ndarray
    missing: np.ndarray
    branch: tuple[int, ...]
    shares: tuple[float, ...]
    n_rows: int


@dataclass(frozen=True, eq=False)
class RegressionSplitData:
    """A regression split's (attribute, target) points (category codes for a nominal
    attribute), a sample of ``n_sampled`` of the ``n_known`` rows with a known value;
    ``means[b]`` is branch ``b``'s mean target."""

    node_id: int
    attribute: str
    x: np.ndarray
    y: np.ndarray
    n_known: int
    n_sampled: int
    threshold: float | None
    categories: tuple[str, ...]
    branch: tuple[int, ...]
    means: tuple[float, ...]
    shares: tuple[float, ...]
    n_rows: int

    @property
    def sampled(self) -> bool:
        return self.n_sampled < self.n_known


@dataclass(frozen=True, eq=False)
class LeafData:
    """A leaf: its class weights, or (regression, ``classes`` None) its target's histogram
    (``counts[b]`` the weight in ``(edges[b], edges[b + 1]]``) and mean."""

    node_id: int
    classes: tuple[str, ...] | None
    by_class: np.ndarray
    edges: np.ndarray
    counts: np.ndarray
    mean: float
    n_rows: int


NodeData = NumericSplitData | NominalSplitData | RegressionSplitData | LeafData


def node_data(
    tree: Tree,
    data: Encoded,
    node_id: int,
    settings: Settings | None = None,
    max_points: int = MAX_POINTS,
    seed: int = 0,
) -> NodeData:
    """The data behind node ``node_id`` of ``tree``, grown from ``data``.

    Examples
    --------
    >>> from engine.data.table import make_table
    >>> from engine.data.encoding import encode
    >>> from engine.estimator import DecisionTree
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": ["a", "a", "b", "b"]})
    >>> model = DecisionTree(algorithm="cart", min_samples_leaf=1).fit(make_table(frame))
    >>> plot = node_data(model.tree_, encode(make_table(frame)), 0)
    >>> plot.threshold, plot.shares, plot.counts.sum(axis=1).tolist()
    (2.5, (0.5, 0.5), [2.0, 2.0])
    """
    settings = settings if settings is not None else resolve()
    rows, weights = node_rows(tree, data, node_id, settings)
    return _data_at(tree.node(node_id), data, rows, weights, None, max_points, seed)


def nodes_data(
    tree: Tree,
    data: Encoded,
    node_ids=None,
    max_points: int = MAX_POINTS,
    seed: int = 0,
    monitor=None,
) -> dict[int, NodeData]:
    """The data behind every node of ``tree`` (or those of ``node_ids``), by node id, in one
    walk down from the root: each node's rows are split among its children once, where
    :func:`node_data` walks from the root for every node. The figures are
    :func:`node_data`'s, node for node. ``monitor`` (an engine Monitor) is checked as it goes.

    Examples
    --------
    >>> from engine.data.table import make_table
    >>> from engine.data.encoding import encode
    >>> from engine.estimator import DecisionTree
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": ["a", "a", "b", "b"]})
    >>> model = DecisionTree(algorithm="cart", min_samples_leaf=1).fit(make_table(frame))
    >>> plots = nodes_data(model.tree_, encode(make_table(frame)))
    >>> sorted(plots), plots[1].by_class.tolist(), plots[2].by_class.tolist()
    ([0, 1, 2], [2.0, 0.0], [0.0, 2.0])
    """
    wanted = None if node_ids is None else set(node_ids)
    needed = None
    if wanted is not None:  # the nodes asked for and the ancestors their rows come through
        parents = {c.id: n.id for n in tree.nodes() for c in n.children}
        needed = set()
        for node_id in wanted:
            while node_id is not None and node_id not in needed:
                needed.add(node_id)
                node_id = parents.get(node_id)
    out: dict[int, NodeData] = {}
    stack = [(tree.root, np.arange(data.n_rows), data.weight.copy())]
    while stack:
        node, rows, weights = stack.pop()
        parts = None
        if node.split is not None and (
            needed is None or any(c.id in needed for c in node.children)
        ):
            split = node.split
            X = data.X[rows] if split.surrogates else None
            parts = partition_rows(split, data.X[rows, split.attribute], rows, weights, X=X)
            stack.extend(
                (child, *part)
                for child, part in zip(node.children, parts, strict=True)
                if needed is None or child.id in needed
            )
        if wanted is None or node.id in wanted:
            out[node.id] = _data_at(node, data, rows, weights, parts, max_points, seed)
            if monitor is not None and len(out) % 500 == 0:
                monitor.check()
    return out


def _data_at(node, data: Encoded, rows, weights, parts, max_points: int, seed: int) -> NodeData:
    """What :func:`node_data` works out of ``node``'s rows (``parts``: its branches' rows and
    weights, when split already)."""
    node_id = node.id
    schema = data.schema
    n_rows = len(rows)
    if node.split is None:
        return _leaf(data, node_id, rows, weights)
    split = node.split
    attribute = schema.attributes[split.attribute]
    values = data.X[rows, split.attribute]
    if parts is None:
        X = data.X[rows] if split.surrogates else None
        parts = partition_rows(split, values, rows, weights, X=X)
    shares = _shares(parts)
    if schema.is_regression:
        return _regression_split(
            data, node_id, split, rows, parts, values, shares, max_points, seed
        )
    y = data.y[rows]
    n_classes = len(schema.classes)
    by_class = _by_class(y, weights, n_classes)
    known = ~np.isnan(values)
    missing = _by_class(y[~known], weights[~known], n_classes)
    if split.kind == THRESHOLD:
        edges = _edges(values[known], split.threshold)
        bins = _bin_of(values[known], edges)
        counts = _counts(bins, y[known], weights[known], n_classes, len(edges) - 1)
        return NumericSplitData(
            node_id,
            attribute.name,
            schema.classes,
            by_class,
            edges,
            counts,
            missing,
            float(split.threshold),
            shares,
            n_rows,
        )
    categories = attribute.categories
    codes = values[known].astype(np.intp)
    counts = _counts(codes, y[known], weights[known], n_classes, len(categories))
    return NominalSplitData(
        node_id,
        attribute.name,
        schema.classes,
        by_class,
        categories,
        counts,
        missing,
        _category_branches(split, len(categories)),
        shares,
        n_rows,
    )


def _by_class(y: np.ndarray, weights: np.ndarray, n_classes: int) -> np.ndarray:
    return np.bincount(y, weights=weights, minlength=n_classes).astype(np.float64)


def _counts(
    cells: np.ndarray, y: np.ndarray, weights: np.ndarray, n_classes: int, n_cells: int
) -> np.ndarray:
    """Weight per (class, cell), in one bincount."""
    flat = np.bincount(y * n_cells + cells, weights=weights, minlength=n_classes * n_cells)
    return flat.astype(np.float64).reshape(n_classes, n_cells)


def _shares(parts) -> tuple[float, ...]:
    """Each branch's share of the node's weight, missing values spread as C4.5 spreads them."""
    sums = np.array([w.sum() for _, w in parts])
    total = sums.sum()
    return tuple((sums / total).tolist()) if total > 0 else tuple(0.0 for _ in parts)


def _n_bins(n: int) -> int:
    return int(np.clip(np.ceil(np.sqrt(max(n, 1))), MIN_BINS, MAX_BINS))


def _edges(x: np.ndarray, threshold: float | None, n_bins: int | None = None) -> np.ndarray:
    """Bin edges over ``x`` (and ``threshold``, an edge itself), bins shared between the two
    sides in proportion to their widths."""
    n_bins = n_bins or _n_bins(len(x))
    lo = float(x.min()) if len(x) else 0.0
    hi = float(x.max()) if len(x) else 1.0
    if threshold is None:
        if hi <= lo:
            return np.array([lo - 0.5, lo + 0.5])
        return np.linspace(lo, hi, n_bins + 1)
    lo, hi = min(lo, threshold), max(hi, threshold)
    if hi <= lo:
        return np.array([lo - 0.5, lo, lo + 0.5])
    left = 0 if threshold <= lo else max(1, round(n_bins * (threshold - lo) / (hi - lo)))
    right = 0 if threshold >= hi else max(1, n_bins - left)
    if left == 0:  # every value above the cut: one empty bin to its left keeps it an edge
        return np.concatenate(
            [[threshold - (hi - threshold) / right], np.linspace(threshold, hi, right + 1)]
        )
    if right == 0:
        return np.concatenate(
            [np.linspace(lo, threshold, left + 1), [threshold + (threshold - lo) / left]]
        )
    return np.concatenate(
        [np.linspace(lo, threshold, left + 1), np.linspace(threshold, hi, right + 1)[1:]]
    )


def _bin_of(x: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Bin per value, bins closed on the right: ``value <= threshold`` stays left of the cut."""
    return np.clip(np.searchsorted(edges, x, side="left") - 1, 0, len(edges) - 2)


def _category_branches(split: Split, n_categories: int) -> tuple[int, ...]:
    branch = np.full(n_categories, -1, dtype=np.intp)
    for b, group in enumerate(split.groups):
        inside = [c for c in group if c < n_categories]
        branch[inside] = b
    return tuple(branch.tolist())


def _regression_split(
    data: Encoded,
    node_id: int,
    split: Split,
    rows,
    parts,
    values,
    shares,
    max_points: int,
    seed: int,
) -> RegressionSplitData:
    attribute = data.schema.attributes[split.attribute]
    y = data.y[rows]
    known = np.flatnonzero(~np.isnan(values))
    chosen = known
    if len(known) > max_points:
        chosen = np.sort(np.random.default_rng(seed).choice(known, max_points, replace=False))
    means = []
    for part_rows, part_weights in parts:
        total = part_weights.sum()
        means.append(
            float((part_weights * data.y[part_rows]).sum() / total) if total > 0 else float("nan")
        )
    categories = attribute.categories if attribute.is_nominal else ()
    branch = _category_branches(split, len(categories)) if categories else ()
    threshold = float(split.threshold) if split.kind == THRESHOLD else None
    return RegressionSplitData(
        node_id,
        attribute.name,
        values[chosen].copy(),
        y[chosen].astype(np.float64),
        len(known),
        len(chosen),
        threshold,
        categories,
        branch,
        tuple(means),
        shares,
        len(rows),
    )


def _leaf(data: Encoded, node_id: int, rows, weights) -> LeafData:
    schema = data.schema
    y = data.y[rows]
    if not schema.is_regression:
        by_class = _by_class(y, weights, len(schema.classes))
        return LeafData(
            node_id, schema.classes, by_class, np.zeros(0), by_class, float("nan"), len(rows)
        )
    y = y.astype(np.float64)
    edges = _edges(y, None)
    counts = np.bincount(_bin_of(y, edges), weights=weights, minlength=len(edges) - 1).astype(
        np.float64
    )
    total = weights.sum()
    mean = float((weights * y).sum() / total) if total > 0 else float("nan")
    return LeafData(node_id, None, np.zeros(0), edges, counts, mean, len(rows))
