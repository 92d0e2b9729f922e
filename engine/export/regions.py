"""Decision regions: the plane of two numeric attributes cut into the boxes a tree's leaves
hold (issue 32), with the rows to draw on it, and no drawing here.

A point of the plane is an instance whose two attributes take the point's values and whose
other attributes are held at a row's values. The tree routes it as :mod:`engine.predict`
does, so the boxes are exact: a split on one of the two attributes cuts the box it is
given at its threshold (``<=`` to the first branch, so a box is closed on its upper edges
and open on its lower ones: ``(x0, x1] x (y0, y1]``); a split on another attribute sends the
whole box down the branch the held value takes. A held value that is missing (or a category
no branch holds) sends the box down every branch with its weight times the branch's share,
C4.5's fractional instances; there the boxes of several leaves overlap, and the plane is cut
into the cells their edges make, each predicting the weighted sum of its leaves.

The tree "on these two only" (:func:`fit_on_two`) is grown with the same settings on a table
of just the two columns.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from engine.data.encoding import Encoded, Schema
from engine.errors import ArborError
from engine.fitting import fit_tree
from engine.monitor import NULL_MONITOR, Monitor, checkpoint
from engine.predict import class_codes, node_output
from engine.settings import Settings
from engine.tree import THRESHOLD, Tree

#: At most this many rows are drawn as points on the plane (a sample, its size said).
MAX_POINTS = 50_000
#: Cells a missing held value may cut the overlapping boxes into before the plane is refused.
MAX_SHARED_CELLS = 250_000
#: The margin drawn around the rows' values, as a share of their range.
MARGIN = 0.04


@dataclass(frozen=True, eq=False)
class Regions:
    """The plane of attributes ``x_attribute`` and ``y_attribute`` cut into boxes.

    Region ``k`` is the box ``(x0[k], x1[k]] x (y0[k], y1[k]]`` (infinite where the plane is
    open). ``leaves[k]`` are the leaves a point there reaches, with ``shares[k]`` of its
    weight (one leaf and ``(1.0,)`` unless a held value is missing). ``outputs[k]`` is what
    the tree predicts there: class probabilities, or a mean (regression, ``classes`` None).
    ``held`` is the row of values the other attributes are held at.
    """

    x_attribute: int
    y_attribute: int
    x0: np.ndarray
    x1: np.ndarray
    y0: np.ndarray
    y1: np.ndarray
    leaves: tuple[tuple[int, ...], ...]
    shares: tuple[tuple[float, ...], ...]
    outputs: np.ndarray
    classes: tuple[str, ...] | None
    held: np.ndarray

    def __len__(self) -> int:
        return len(self.x0)

    @property
    def shared(self) -> np.ndarray:
        """Whether each region's points are shared among several leaves."""
        return np.array([len(leaves) > 1 for leaves in self.leaves], dtype=bool)

    def at(self, x, y) -> np.ndarray:
        """The region holding each point ``(x, y)`` (-1: none, e.g. a missing coordinate).

        >>> regions = Regions(0, 1, np.array([-np.inf, 2.0]), np.array([2.0, np.inf]),
        ...     np.full(2, -np.inf), np.full(2, np.inf), ((1,), (2,)), ((1.0,), (1.0,)),
        ...     np.eye(2), ("a", "b"), np.zeros(2))
        >>> regions.at([1.0, 2.0, 2.5], [0.0, 0.0, 0.0]).tolist()
        [0, 0, 1]
        """
        x = np.atleast_1d(np.asarray(x, dtype=np.float64))
        y = np.atleast_1d(np.asarray(y, dtype=np.float64))
        out = np.full(x.shape, -1, dtype=np.intp)
        for k in range(len(x)):  # a point at a time over every region: the mouse asks for one
            inside = (self.x0 < x[k]) & (x[k] <= self.x1) & (self.y0 < y[k]) & (y[k] <= self.y1)
            hits = np.flatnonzero(inside)
            if len(hits):
                out[k] = hits[0]
        return out

    def reaching(self, leaf_ids) -> np.ndarray:
        """The regions where a point reaches any of ``leaf_ids`` (in part, where shared)."""
        region, leaf = self._pairs
        hit = np.isin(leaf, np.fromiter(leaf_ids, dtype=np.intp))
        return np.unique(region[hit])

    @cached_property
    def _pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """(region, leaf) for every leaf of every region, flat: what ``reaching`` searches."""
        sizes = np.fromiter((len(leaves) for leaves in self.leaves), np.intp, len(self.leaves))
        region = np.repeat(np.arange(len(self.leaves), dtype=np.intp), sizes)
        leaf = np.fromiter(
            (leaf for leaves in self.leaves for leaf in leaves), np.intp, int(sizes.sum())
        )
        return region, leaf

    def predicted(self, algorithm: str | None = None, costs=()) -> np.ndarray:
        """The class code predicted in each region, by :func:`engine.predict.class_codes`'s
        rule for ``algorithm`` and the cost matrix ``costs`` (regression: the means)."""
        if self.classes is None:
            return self.outputs
        return class_codes(self.outputs, algorithm, costs)


def _check_pair(schema: Schema, x_attribute: int, y_attribute: int) -> None:
    n = len(schema.attributes)
    for index in (x_attribute, y_attribute):
        if not 0 <= index < n:
            raise ArborError(f"there is no attribute {index} (the table has {n})")
        if schema.attributes[index].is_nominal:
            raise ArborError(
                f"{schema.attributes[index].name!r} is nominal: decision regions need two "
                "numeric attributes"
            )
    if x_attribute == y_attribute:
        raise ArborError("choose two different attributes for the plane")


def decision_regions(
    tree: Tree, x_attribute: int, y_attribute: int, held: np.ndarray | None = None
) -> Regions:
    """The boxes ``tree`` cuts the plane of two numeric attributes into, the other attributes
    held at ``held`` (a row of encoded values, as ``Encoded.X`` holds them; None: all missing).

    Examples
    --------
    >>> import pandas as pd
    >>> from engine.data.table import make_table
    >>> from engine.estimator import DecisionTree
    >>> frame = pd.DataFrame({"u": [1.0, 2, 3, 4], "v": [1.0, 4, 2, 3], "c": list("aabb")})
    >>> tree = DecisionTree(algorithm="cart", min_samples_leaf=1).fit(make_table(frame)).tree_
    >>> regions = decision_regions(tree, 0, 1)
    >>> regions.x0.tolist(), regions.x1.tolist(), regions.leaves
    ([-inf, 2.5], [2.5, inf], ((1,), (2,)))
    >>> regions.predicted().tolist()
    [0, 1]
    """
    schema = tree.schema
    _check_pair(schema, x_attribute, y_attribute)
    n_attributes = len(schema.attributes)
    held = np.full(n_attributes, np.nan) if held is None else np.asarray(held, dtype=np.float64)
    if held.shape != (n_attributes,):
        raise ArborError(f"a held row needs {n_attributes} values, not {held.size}")
    inf = float("inf")
    # (node, x0, x1, y0, y1, weight, the parent's output, under a shared branch)
    stack = [(tree.root, -inf, inf, -inf, inf, 1.0, None, False)]
    whole: list[tuple] = []  # leaves' boxes that no other leaf overlaps
    parts: list[tuple] = []  # and those that a missing held value spread over several leaves
    seen = 0
    while stack:
        node, x0, x1, y0, y1, weight, fallback, shared = stack.pop()
        seen += 1
        if not seen & 1023:
            checkpoint()
        if node.is_leaf:
            output = node_output(tree, node, fallback)
            (parts if shared else whole).append((node.id, x0, x1, y0, y1, weight, output))
            continue
        split = node.split
        here = node_output(tree, node, fallback)
        children = node.children
        if split.attribute in (x_attribute, y_attribute):
            if split.kind != THRESHOLD:
                raise ArborError(f"node {node.id} splits a numeric attribute without a threshold")
            t = float(split.threshold)
            if split.attribute == x_attribute:
                boxes = ((x0, min(x1, t), y0, y1), (max(x0, t), x1, y0, y1))
            else:
                boxes = ((x0, x1, y0, min(y1, t)), (x0, x1, max(y0, t), y1))
            for child, (a0, a1, b0, b1) in reversed(list(zip(children, boxes, strict=True))):
                if a0 < a1 and b0 < b1:
                    stack.append((child, a0, a1, b0, b1, weight, here, shared))
            continue
        branch = int(split.branch_of(np.array([held[split.attribute]]))[0])
        if branch >= 0:
            stack.append((children[branch], x0, x1, y0, y1, weight, here, shared))
            continue
        for b in reversed(range(len(children))):  # every branch with a share, as predict does
            if split.fractions[b] > 0:
                stack.append((children[b], x0, x1, y0, y1, weight * split.fractions[b], here, True))
    regions = [
        (x0, x1, y0, y1, (leaf,), (weight,), out) for leaf, x0, x1, y0, y1, weight, out in whole
    ]
    regions.extend(_overlaid(parts))
    return _as_regions(tree, x_attribute, y_attribute, held, regions)


def _overlaid(parts: list[tuple]) -> list[tuple]:
    """The cells the edges of overlapping leaf boxes cut the plane into, each with the leaves
    covering it and the weighted sum of their outputs."""
    if not parts:
        return []
    xs = np.unique([p[1] for p in parts] + [p[2] for p in parts])
    ys = np.unique([p[3] for p in parts] + [p[4] for p in parts])
    n_x, n_y = len(xs) - 1, len(ys) - 1
    if n_x * n_y > MAX_SHARED_CELLS:
        raise ArborError(
            "the held row's missing values spread the plane over too many leaves to draw; "
            "hold the other attributes at a row with no missing values"
        )
    covering: dict[tuple[int, int], list[int]] = {}
    for k, (_leaf, x0, x1, y0, y1, _weight, _out) in enumerate(parts):
        checkpoint()
        i0, i1 = np.searchsorted(xs, x0), np.searchsorted(xs, x1)
        j0, j1 = np.searchsorted(ys, y0), np.searchsorted(ys, y1)
        for i in range(i0, i1):
            for j in range(j0, j1):
                covering.setdefault((i, j), []).append(k)
    cells = []
    for (i, j), found in sorted(covering.items()):
        found.sort(key=lambda k: parts[k][0])
        output = sum(parts[k][5] * np.asarray(parts[k][6], dtype=np.float64) for k in found)
        cells.append(
            (
                float(xs[i]),
                float(xs[i + 1]),
                float(ys[j]),
                float(ys[j + 1]),
                tuple(parts[k][0] for k in found),
                tuple(float(parts[k][5]) for k in found),
                output,
            )
        )
    return cells


def _as_regions(tree: Tree, x_attribute, y_attribute, held, regions: list[tuple]) -> Regions:
    columns = list(zip(*regions, strict=True)) if regions else [()] * 7
    x0, x1, y0, y1 = (np.array(c, dtype=np.float64) for c in columns[:4])
    if tree.is_regression:
        outputs = np.array(columns[6], dtype=np.float64)
    else:
        outputs = np.array(columns[6], dtype=np.float64).reshape(len(regions), len(tree.classes))
    return Regions(
        x_attribute,
        y_attribute,
        x0,
        x1,
        y0,
        y1,
        tuple(columns[4]),
        tuple(columns[5]),
        outputs,
        tree.classes,
        held,
    )


@dataclass(frozen=True, eq=False)
class PlanePoints:
    """The rows to draw on the plane: a sample of ``len(x)`` of the ``n_known`` rows whose two
    values are both known (of ``n_rows``), their rows in the data and their targets (class
    codes, or values), and the ranges to show (the known values' with a margin)."""

    x: np.ndarray
    y: np.ndarray
    target: np.ndarray
    rows: np.ndarray
    n_rows: int
    n_known: int
    x_range: tuple[float, float]
    y_range: tuple[float, float]

    @property
    def sampled(self) -> bool:
        return len(self.x) < self.n_known


def _range(values: np.ndarray) -> tuple[float, float]:
    known = values[~np.isnan(values)]
    if not len(known):
        return (0.0, 1.0)
    lo, hi = float(known.min()), float(known.max())
    margin = (hi - lo) * MARGIN if hi > lo else 0.5
    return (lo - margin, hi + margin)


def plane_points(
    data: Encoded,
    x_attribute: int,
    y_attribute: int,
    max_points: int = MAX_POINTS,
    seed: int = 0,
) -> PlanePoints:
    """The rows of ``data`` on the plane of two numeric attributes: at most ``max_points`` of
    them, the same ones for the same data and ``seed``, kept in the data's order.

    Examples
    --------
    >>> import pandas as pd
    >>> from engine.data.table import make_table
    >>> from engine.data.encoding import encode
    >>> frame = pd.DataFrame({"u": [1.0, 2, None, 4], "v": [1.0, 4, 2, 3], "c": list("aabb")})
    >>> points = plane_points(encode(make_table(frame)), 0, 1, max_points=2)
    >>> points.n_known, len(points.x), points.sampled, points.x_range
    (3, 2, True, (0.88, 4.12))
    """
    _check_pair(data.schema, x_attribute, y_attribute)
    x_all, y_all = data.X[:, x_attribute], data.X[:, y_attribute]
    known = np.flatnonzero(~np.isnan(x_all) & ~np.isnan(y_all))
    chosen = known
    if len(known) > max_points:
        chosen = np.sort(np.random.default_rng(seed).choice(known, max_points, replace=False))
    return PlanePoints(
        x_all[chosen].copy(),
        y_all[chosen].copy(),
        data.y[chosen].copy(),
        chosen,
        data.n_rows,
        len(known),
        _range(x_all),
        _range(y_all),
    )


def on_two(data: Encoded, x_attribute: int, y_attribute: int) -> Encoded:
    """``data`` with only its two attributes ``x_attribute`` and ``y_attribute`` (attributes 0
    and 1 of the result), the target and weights as they were."""
    _check_pair(data.schema, x_attribute, y_attribute)
    schema = data.schema
    attributes = (schema.attributes[x_attribute], schema.attributes[y_attribute])
    X = np.asfortranarray(data.X[:, [x_attribute, y_attribute]])
    return Encoded(
        Schema(attributes, schema.target, schema.classes),
        X,
        data.y,
        data.weight,
        data.notes,
        data.unlabelled,
    )


def fit_on_two(
    data: Encoded,
    settings: Settings,
    x_attribute: int,
    y_attribute: int,
    monitor: Monitor = NULL_MONITOR,
) -> Tree:
    """A tree fitted as ``settings`` ask on the two attributes alone: attributes 0 and 1 of its
    schema are ``x_attribute`` and ``y_attribute`` of ``data``.

    Examples
    --------
    >>> import pandas as pd
    >>> from engine.data.table import make_table
    >>> from engine.data.encoding import encode
    >>> from engine.settings import resolve
    >>> frame = pd.DataFrame({"u": [1.0, 2, 3, 4], "w": [0.0, 1, 0, 1],
    ...                       "v": [1.0, 4, 2, 3], "c": list("aabb")})
    >>> tree = fit_on_two(encode(make_table(frame)), resolve(algorithm="cart",
    ...                   min_samples_leaf=1), 0, 2)
    >>> [a.name for a in tree.schema.attributes], tree.root.split.threshold
    (['u', 'v'], 2.5)
    """
    return fit_tree(on_two(data, x_attribute, y_attribute), settings, monitor)
