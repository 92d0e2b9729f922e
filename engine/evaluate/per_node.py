"""Test rows on the tree: every node's training and test rows and errors, side by side, and
training against test error as a tree grows or is pruned (issue 32).

A node's *training* figures are its own counts: the weight of the training rows that reach
it and, had it been a leaf, how many of them it would misclassify. Its *test* figures are the
same for rows held out from training (a test file, a percentage split's rest): the test rows
are routed down the tree exactly as prediction routes them (:mod:`engine.predict`), a row
missing the split attribute (or with a category no branch holds) going down every branch with
its weight times the branch's share, as C4.5 does. A node errs on a row whose class is not the
one it predicts (an empty node predicts its parent's class). For regression an error is the
squared difference from the node's mean, summed over its rows.

Every figure is a weight, so a node's test rows are its children's summed, and the leaves'
add up to the test set. A tree's error on a set of rows is its leaves' errors summed: with no
row split by a missing value that is exactly the test evaluation's count of wrong predictions
(:func:`engine.evaluate.evaluation.evaluate_tree`); a row split at a missing value counts at
each leaf it reaches by its share there.

Cross-validation's held-out rows are every row once, each with its *out-of-fold* prediction,
made by the tree of the fold that held it out (:func:`out_of_fold`). They are routed down the
tree trained on all the rows just as test rows are, but a node counts as wrong the rows whose
out-of-fold prediction was wrong (regression: their squared errors), not its own prediction's:
so the leaves' errors add up to the cross-validation's count of wrong predictions exactly,
missing values or not. The fold trees differ from that tree; only where its rows go is its.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass

import numpy as np

from engine.data.encoding import Encoded
from engine.errors import ArborError
from engine.flat import FlatTree, flat_of
from engine.monitor import checkpoint
from engine.predict import class_codes
from engine.tree import Node, Tree


@dataclass(frozen=True, eq=False)
class HeldOut:
    """Rows kept out of training, to be routed down trees: ``data`` encoded like the trees'
    schema, ``label`` what they are (``"test set iris-test.csv"``, ``"the 33% held out"``).

    Cross-validation's held-out rows (:func:`out_of_fold`) also carry ``predictions``: each
    row's out-of-fold prediction (class code or value), made by the tree of the fold that held
    it out. They belong to the one tree ``only`` refers to (the tree trained on all the rows
    whose recipe was cross-validated): any other tree (a pruning step, a growth step) would
    be scored by fold trees that are not its own.
    """

    data: Encoded
    label: str
    predictions: np.ndarray | None = None
    only: weakref.ref | None = None

    @property
    def n(self) -> float:
        """The test rows' total weight."""
        return float(np.sum(self.data.weight))

    @property
    def cross_validated(self) -> bool:
        """Whether these are cross-validation's held-out rows, scored out of fold."""
        return self.predictions is not None

    @property
    def side(self) -> str:
        """What the rows are called beside the training rows: ``test`` or ``CV held-out``."""
        return SIDE_CV if self.cross_validated else SIDE_TEST

    def fits(self, tree: Tree) -> bool:
        """Whether ``tree`` can take these rows: the same attributes, target and classes (and,
        for cross-validation's rows, the very tree they were cross-validated for)."""
        if self.only is not None and self.only() is not tree:
            return False
        mine, its = self.data.schema, tree.schema
        return (
            mine.target == its.target
            and mine.classes == its.classes
            and [(a.name, a.kind, a.categories) for a in mine.attributes]
            == [(a.name, a.kind, a.categories) for a in its.attributes]
        )


SIDE_TEST, SIDE_CV = "test", "CV held-out"

#: What cross-validation's held-out rows on a tree are, said wherever they are shown.
OUT_OF_FOLD_NOTE = (
    "CV held-out rows: every row once, with its out-of-fold prediction, made by the tree of "
    "the fold that held it out; the rows are placed on the nodes of the tree trained on all "
    "the rows, and a node's errors are its rows whose out-of-fold prediction was wrong"
)


#: Why no test curve is drawn for cross-validation's held-out rows as a tree changes.
NO_CV_CURVE = (
    "CV held-out rows are not drawn here: their predictions are the fold trees', which do "
    "not change as this tree grows or is pruned (the nodes and the inspector show them)"
)


def fold_predictions(data: Encoded, outputs: np.ndarray, algorithm: str | None = None, costs=()):
    """Each row's out-of-fold prediction (class code or value) from ``outputs`` as
    :func:`engine.evaluate.evaluation.cross_val_predict` gives them (class probabilities or
    values; ``algorithm`` and ``costs``, the cost matrix, pick the class rule, as the
    cross-validation's count does)."""
    if data.schema.is_regression:
        return np.asarray(outputs, dtype=np.float64)
    return class_codes(outputs, algorithm, costs).astype(np.int32)


def out_of_fold(data: Encoded, predictions: np.ndarray, tree: Tree, label: str) -> HeldOut:
    """Cross-validation's held-out rows for ``tree``: every row of ``data`` (the rows
    cross-validated) with its out-of-fold prediction (:func:`fold_predictions`)."""
    if len(predictions) != data.n_rows:
        raise ArborError("one out-of-fold prediction per row is needed")
    return HeldOut(data, label, predictions, weakref.ref(tree))


@dataclass(frozen=True, eq=False)
class NodeRows:
    """Training and test figures of every node of one tree, in pre-order (``ids``).

    ``train_n``/``test_n`` are the weights reaching each node, ``train_errors``/
    ``test_errors`` what it misclassifies of them as a leaf (regression: its squared errors,
    summed). ``predicted`` is each node's class code (regression: its mean), ``test_dist`` the
    test rows' class weights per node (regression: none). ``leaf`` marks the tree's leaves,
    ``depth`` each node's depth.
    """

    ids: np.ndarray
    depth: np.ndarray
    leaf: np.ndarray
    predicted: np.ndarray
    train_n: np.ndarray
    train_errors: np.ndarray
    test_n: np.ndarray
    test_errors: np.ndarray
    test_dist: np.ndarray | None
    regression: bool
    test_total: float
    #: Whether the test side holds out-of-fold predictions (cross-validation's held-out rows).
    out_of_fold: bool = False
    #: The tree's nodes in the same order (not the tree: a cache keyed by it would keep it).
    nodes: tuple = ()

    def row_of(self, node: Node) -> int | None:
        """The row of ``node`` itself, or None for a node of another tree with the same id
        (what pruning cut, drawn beside the tree it was cut from)."""
        k = self.position.get(node.id)
        return k if k is not None and (not self.nodes or self.nodes[k] is node) else None

    @property
    def position(self) -> dict[int, int]:
        """Node id -> row of the arrays."""
        known = self.__dict__.get("_position")
        if known is None:
            known = {int(i): k for k, i in enumerate(self.ids.tolist())}
            object.__setattr__(self, "_position", known)
        return known

    def of(self, node_id: int) -> dict:
        """One node's figures, as :meth:`records` gives them."""
        return self._record(self.position[node_id])

    def _record(self, k: int) -> dict:
        out = {
            "id": int(self.ids[k]),
            "depth": int(self.depth[k]),
            "leaf": bool(self.leaf[k]),
            "train_n": float(self.train_n[k]),
            "train_errors": float(self.train_errors[k]),
            "test_n": float(self.test_n[k]),
            "test_errors": float(self.test_errors[k]),
        }
        if self.regression:
            out["train_rmse"] = _root_mean(self.train_errors[k], self.train_n[k])
            out["test_rmse"] = _root_mean(self.test_errors[k], self.test_n[k])
        return out

    def records(self) -> list[dict]:
        """Every node's figures, in pre-order: id, depth, leaf, train_n, train_errors,
        test_n, test_errors (and, for regression, each side's root mean squared error)."""
        return [self._record(k) for k in range(len(self.ids))]

    @property
    def train_total(self) -> float:
        return float(self.train_n[0]) if len(self.train_n) else 0.0

    def leaf_sums(self) -> tuple[float, float]:
        """(training errors, test errors) of the tree: its leaves' summed."""
        return float(self.train_errors[self.leaf].sum()), float(self.test_errors[self.leaf].sum())

    def error_rates(self) -> tuple[float, float]:
        """The tree's training and test error: the share of the weight its leaves misclassify
        (regression: the root mean squared error). NaN where there are no rows."""
        train, test = self.leaf_sums()
        if self.regression:
            return _root_mean(train, self.train_total), _root_mean(test, self.test_total)
        return _share(train, self.train_total), _share(test, self.test_total)


def _share(errors: float, n: float) -> float:
    return errors / n if n > 0 else float("nan")


def _root_mean(squared: float, n: float) -> float:
    return float(np.sqrt(squared / n)) if n > 0 else float("nan")


def node_rows(
    tree: Tree, test: Encoded, algorithm: str | None = None, predictions: np.ndarray | None = None
) -> NodeRows:
    """Every node's training and test rows and errors (see the module's docstring).

    ``test`` is encoded like the tree's schema (:func:`engine.data.encoding.encode_like`);
    ``algorithm`` (the tree's) picks the class rule of :func:`engine.predict.class_codes`.

    ``predictions`` (one per test row: class codes or values) scores each test row by its own
    prediction instead of the node's: cross-validation's out-of-fold predictions
    (:func:`out_of_fold`). The rows are still routed down ``tree``, so a node's test rows are
    the rows reaching it, and its errors those rows' wrong predictions (regression: their
    squared errors); the leaves' errors then add up to the cross-validation's.

    Examples
    --------
    >>> from engine.data.samples import load_sample
    >>> from engine.data.encoding import encode
    >>> from engine.estimator import DecisionTree
    >>> table = load_sample("weather")
    >>> tree = DecisionTree(algorithm="id3").fit(table).tree_
    >>> figures = node_rows(tree, encode(table), "id3")
    >>> figures.of(0)["train_n"], figures.of(0)["test_n"], figures.of(0)["test_errors"]
    (14.0, 14.0, 5.0)
    >>> figures.leaf_sums()
    (0.0, 0.0)
    """
    regression = tree.is_regression
    if test.schema.is_regression != regression:
        raise ArborError("the test rows and the tree do not predict the same kind of target")
    if predictions is not None and len(predictions) != test.n_rows:
        raise ArborError("one out-of-fold prediction per test row is needed")
    flat = flat_of(tree)  # one row per node, in the walk's order
    nodes = list(flat.node_objects())
    n = len(nodes)
    K = 0 if regression else len(tree.classes)
    ids = np.array([node.id for node in nodes], dtype=np.int64)
    depth = flat.depth.astype(np.int64)
    leaf = flat.is_leaf.copy()
    train_n = flat.weight.astype(np.float64)
    # What each node predicts (engine.flat.FlatTree.outputs: its own class shares or mean, an
    # empty node its parent's); the arrays' rows are the walk's order, as ``nodes``.
    outputs = flat.outputs
    if regression:
        impurity = np.array([node.impurity for node in nodes], dtype=np.float64)
        predicted = outputs
        empty = ~(train_n > 0)
        train_errors = np.where(empty, 0.0, impurity * train_n)
    else:
        dist = np.array([node.distribution for node in nodes], dtype=np.float64).reshape(n, K)
        total = dist.sum(axis=1)
        empty = ~(total > 0)
        predicted = class_codes(outputs, algorithm, tree.costs)
        train_errors = np.where(empty, 0.0, total - dist[np.arange(n), predicted])
    weight = np.broadcast_to(np.asarray(test.weight, dtype=np.float64), (test.n_rows,))
    pieces = _route_levels(flat, test.X)
    test_n = np.zeros(n)
    test_errors = np.zeros(n)
    test_dist = None if regression else np.zeros((n, K))
    if predictions is not None:  # each row's own error, whichever node it reaches
        own = (test.y - predictions) ** 2 if regression else (test.y != predictions).astype(float)
    for rows, where, shares in pieces:  # a level of the tree at a time
        w = shares * weight[rows]
        test_n += np.bincount(where, weights=w, minlength=n)
        if predictions is not None:
            test_errors += np.bincount(where, weights=w * own[rows], minlength=n)
            if regression:
                continue
        if regression:
            test_errors += np.bincount(
                where, weights=w * (test.y[rows] - predicted[where]) ** 2, minlength=n
            )
        else:
            test_dist += np.bincount(where * K + test.y[rows], weights=w, minlength=n * K).reshape(
                n, K
            )
    if not regression and predictions is None:
        test_errors = test_n - test_dist[np.arange(n), predicted]
    np.maximum(test_errors, 0.0, out=test_errors)  # n - right, rounded below zero
    return NodeRows(
        ids=ids,
        depth=depth,
        leaf=leaf,
        predicted=predicted,
        train_n=train_n,
        train_errors=train_errors,
        test_n=test_n,
        test_errors=test_errors,
        test_dist=test_dist,
        regression=regression,
        test_total=float(weight.sum()),
        out_of_fold=predictions is not None,
        nodes=tuple(nodes),
    )


def _route_levels(flat: FlatTree, X: np.ndarray):
    """The rows reaching each node, a level of the tree at a time, every row at once: yields
    (rows, node positions, shares) per level (one level held at a time: a million rows by
    thirty levels would not fit). A row whose value at a split is missing (or
    a category no branch holds) goes down every branch with a positive fraction, its share
    times the fraction, as :meth:`engine.flat.FlatTree.walk` sends it."""
    child, fraction = flat.children, flat.fractions
    width = child.shape[1]
    inner = ~flat.is_leaf
    rows = np.arange(X.shape[0])
    where = np.zeros(len(rows), dtype=np.intp)
    shares = np.ones(len(rows))
    yield rows, where, shares
    while True:
        checkpoint()
        going = inner[where]
        rows, where, shares = rows[going], where[going], shares[going]
        if not len(rows):
            return
        branch = flat.branches(where, X[rows, flat.attribute[where]])
        down = branch >= 0
        parts_rows = [rows[down]]
        parts_where = [child[where[down], branch[down]]]
        parts_shares = [shares[down]]
        lost = np.flatnonzero(~down)  # down every branch, by its share of the known weight
        for b in range(width):
            share = fraction[where[lost], b]
            keep = lost[share > 0]
            if len(keep):
                parts_rows.append(rows[keep])
                parts_where.append(child[where[keep], b])
                parts_shares.append(shares[keep] * fraction[where[keep], b])
        rows = np.concatenate(parts_rows)
        where = np.concatenate(parts_where)
        shares = np.concatenate(parts_shares)
        yield rows, where, shares


# ---------------------------------------------------------------------- one tree, remembered
_KNOWN: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_KNOWN_LOCK = threading.Lock()


def node_rows_of(tree: Tree, held: HeldOut, algorithm: str | None = None) -> NodeRows | None:
    """:func:`node_rows` of ``held``'s rows in ``tree`` (``algorithm``: the tree's), worked
    out once per tree and rows (views ask again and again: every node's label, the inspector,
    the plot), or None when the rows do not fit the tree. Kept only as long as the tree is."""
    if not held.fits(tree):
        return None
    with _KNOWN_LOCK:
        hit = _KNOWN.get(tree)
    if hit is not None and hit[0] is held and hit[1] == algorithm:
        return hit[2]
    figures = node_rows(tree, held.data, algorithm, held.predictions)
    with _KNOWN_LOCK:
        _KNOWN[tree] = (held, algorithm, figures)
    return figures


def known_node_rows(tree: Tree, held: HeldOut | None) -> NodeRows | None:
    """:func:`node_rows_of`'s figures if they are worked out already, else None (nothing is
    counted: for views that must not wait, such as the nodes' labels)."""
    if held is None:
        return None
    with _KNOWN_LOCK:
        hit = _KNOWN.get(tree)
    return hit[2] if hit is not None and hit[0] is held else None


# ---------------------------------------------------------------------- as the tree changes
@dataclass(frozen=True)
class ErrorCurve:
    """Training against test error over a sequence of trees (growth steps, pruning steps):
    ``train[k]``/``test[k]`` are tree k's error rates (regression: root mean squared errors,
    ``measure`` says which) and ``leaves[k]`` its leaves."""

    train: np.ndarray
    test: np.ndarray
    leaves: np.ndarray
    measure: str

    def as_dict(self) -> dict:
        return {
            "measure": self.measure,
            "train": self.train.tolist(),
            "test": self.test.tolist(),
            "leaves": self.leaves.tolist(),
        }


def measure_of(tree: Tree) -> str:
    """What an :class:`ErrorCurve` of ``tree``'s kind measures."""
    return "RMSE" if tree.is_regression else "error rate"


def error_curve(trees, test: Encoded, algorithm: str | None = None) -> ErrorCurve:
    """Training and test error of each tree of ``trees`` (each routed on its own).

    Examples
    --------
    >>> from engine.data.samples import load_sample
    >>> from engine.data.encoding import encode
    >>> from engine.estimator import DecisionTree
    >>> table = load_sample("weather")
    >>> tree = DecisionTree(algorithm="id3").fit(table).tree_
    >>> curve = error_curve([tree], encode(table), "id3")
    >>> curve.train.tolist(), curve.test.tolist(), curve.leaves.tolist()
    ([0.0], [0.0], [5])
    """
    train, held, leaves, measure = [], [], [], "error rate"
    for tree in trees:
        figures = node_rows(tree, test, algorithm)
        a, b = figures.error_rates()
        train.append(a)
        held.append(b)
        leaves.append(int(figures.leaf.sum()))
        measure = measure_of(tree)
    return ErrorCurve(np.array(train), np.array(held), np.array(leaves, dtype=int), measure)


def path_curve(full: Tree, path, test: Encoded, algorithm: str | None = "cart") -> ErrorCurve:
    """Training and test error at every step of CART's cost-complexity ``path`` of ``full``
    (:func:`engine.prune.cost_complexity.cost_complexity_path`), the test rows routed once.

    Step k's tree is ``full`` with the first k weakest links cut
    (:func:`engine.prune.cost_complexity.prune_to_step`): its leaves are the nodes cut so far
    and the grown leaves not below them, so its errors are theirs summed, and each cut swaps
    the errors of the leaves below a node for the node's own.
    """
    figures = node_rows(full, test, algorithm)
    nodes = list(full.nodes())  # ids are pre-order positions
    n = len(nodes)
    parent = np.full(n, -1, dtype=np.int64)
    for node in nodes:
        for child in node.children:
            parent[child.id] = node.id
    own = np.column_stack([figures.train_errors, figures.test_errors])
    below = np.where(figures.leaf[:, None], own, 0.0)  # errors of the leaves under each node
    for i in range(n - 1, 0, -1):
        below[parent[i]] += below[i]
    leaves = figures.leaf.astype(np.int64)
    for i in range(n - 1, 0, -1):
        leaves[parent[i]] += leaves[i]
    steps = len(path.pruned)
    totals = np.zeros((steps, 2))
    counts = np.zeros(steps, dtype=np.int64)
    totals[0], counts[0] = below[0], leaves[0]
    for k in range(1, steps):
        if not k & 255:
            checkpoint()
        i = int(path.pruned[k])
        delta, lost = own[i] - below[i], leaves[i] - 1
        a = i
        while a >= 0:
            below[a] += delta
            leaves[a] -= lost
            a = parent[a]
        totals[k], counts[k] = below[0], leaves[0]
    train_total, test_total = figures.train_total, figures.test_total
    if full.is_regression:
        train = np.sqrt(totals[:, 0] / train_total) if train_total > 0 else np.full(steps, np.nan)
        test_ = np.sqrt(totals[:, 1] / test_total) if test_total > 0 else np.full(steps, np.nan)
    else:
        train = totals[:, 0] / train_total if train_total > 0 else np.full(steps, np.nan)
        test_ = totals[:, 1] / test_total if test_total > 0 else np.full(steps, np.nan)
    return ErrorCurve(train, test_, counts, measure_of(full))
