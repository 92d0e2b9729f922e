"""Choosing CART's complexity parameter by cross-validation (Breiman et al.; seed 001).

Each fold grows a full tree on its training part; the folds' trees are pruned
at the geometric means of neighbouring alphas of the full tree's path (the
one-leaf tree's interval has no upper end: there they are pruned to their root), and their errors on
the held-out part give a CV error (with standard error) per alpha. No fold's tree is
pruned once per alpha: its weakest-link sequence is found once, each held-out row is routed
once through it, and a row's loss at an alpha is its loss at the node of its path that is a
leaf of the tree pruned there. The minimum-error rule takes the best alpha; the one-standard-error rule the
largest alpha whose error is within one standard error of the best.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np

from engine.compiling import lifecycle as compilation
from engine.data.encoding import Encoded, subset
from engine.data.folds import stratified_folds, training_rows
from engine.fast.threads import FOLD_THREADS_MAX_CELLS, POLL, fold_map, n_threads
from engine.flat import FlatTree
from engine.growth import grow_flat
from engine.monitor import NULL_MONITOR, Monitor, checkpoint
from engine.predict import descend
from engine.prune.cost_complexity import PruningPath, cost_complexity_path
from engine.settings import Settings
from engine.sums import dot, row_dots, weighted_columns
from engine.tree import Tree

#: Pieces (times classes) up to which the losses of rows that went down several branches are
#: worked out for every probe at once, rather than a probe at a time.
ALL_PROBES_AT_ONCE = 1 << 20


@dataclass(frozen=True)
class AlphaChoice:
    alphas: np.ndarray
    n_leaves: np.ndarray
    cv_error: np.ndarray
    cv_se: np.ndarray
    min_alpha: float
    one_se_alpha: float
    chosen_alpha: float

    def as_dict(self) -> dict:
        return {
            "alphas": self.alphas.tolist(),
            "n_leaves": self.n_leaves.tolist(),
            "cv_error": self.cv_error.tolist(),
            "cv_se": self.cv_se.tolist(),
            "min_alpha": self.min_alpha,
            "one_se_alpha": self.one_se_alpha,
            "chosen_alpha": self.chosen_alpha,
        }


def _node_losses(regression: bool, out, y: np.ndarray, costs=()) -> np.ndarray:
    """The loss of rows with targets ``y`` predicted ``out`` (a node's class probabilities or
    mean); with a cost matrix ``costs``, the cost of the node's least-cost class for each."""
    if regression:
        return (out - y) ** 2
    if len(costs):
        matrix = np.asarray(costs, dtype=np.float64)
        return matrix[y, int(np.argmin(weighted_columns(out, matrix)))]
    return (int(np.argmax(out)) != y).astype(np.float64)


def _costed_losses(predicted: np.ndarray, y: np.ndarray, costs) -> np.ndarray:
    """Rows' losses from their summed class probabilities ``predicted`` (last axis the
    classes): wrong or right, or with ``costs`` the least-cost class's cost."""
    if not len(costs):
        return (np.argmax(predicted, axis=-1) != y).astype(np.float64)
    matrix = np.asarray(costs, dtype=np.float64)
    return matrix[y, np.argmin(weighted_columns(predicted, matrix), axis=-1)]


@dataclass(frozen=True)
class _Visit:
    """Held-out rows reaching a node of the full tree, for the probes ``[lo, hi)`` at which the
    node is a leaf of the pruned tree: their weights there (below fractional splits, less
    than 1), the node's prediction ``out`` and each row's loss under it."""

    rows: np.ndarray
    weights: np.ndarray
    out: object
    losses: np.ndarray
    lo: int
    hi: int


def _visits(
    flat: FlatTree, held: Encoded, spans: tuple[np.ndarray, np.ndarray], costs=()
) -> list[_Visit]:
    """Every held-out row routed once through the full tree (:meth:`FlatTree.walk`): the
    visits of nodes that are a leaf of the tree pruned at some probe, in the order
    prediction walks the nodes (``spans``: :func:`_probe_spans`).

    Pruned at alpha, the tree keeps the weakest-link steps up to it, so a node is a leaf from
    the first probe at or above the alpha that cuts it (or an ancestor) on; it predicts for
    the probes from there up to the one that cuts its parent.
    """
    lo, hi = spans
    outputs = flat.outputs
    visits = []
    for i, rows, weights in flat.walk(held.X, np.arange(held.n_rows)):
        if lo[i] < hi[i]:
            out = outputs[i]
            losses = _node_losses(flat.regression, out, held.y[rows], costs)
            visits.append(_Visit(rows, weights, out, losses, int(lo[i]), int(hi[i])))
    return visits


def _loss_sums_per_probe(
    flat: FlatTree, held: Encoded, probes: np.ndarray, measure: str = "impurity", costs=()
) -> np.ndarray:
    """The held-out rows' weighted loss and squared loss summed under ``tree`` pruned at
    every probe alpha: an array (2, probes), without pruning the tree once per probe.

    Each row is routed once (:func:`_visits`); at a probe, a row's loss is its loss at the
    node of its path that is then a leaf. When no row went down several branches, each
    node adds its rows' sums to its interval of probes, and nothing of size probes x rows
    is made (on 2,000,000 rows that was 50 GiB). Otherwise the sums are
    :func:`_loss_sums_by_row`'s.
    """
    w = np.broadcast_to(held.weight, (held.n_rows,))
    ends = _alpha_ends(flat, measure, costs)
    levels, fractional = descend(flat, held.X)
    # Costs are no 0/1 losses: the counted sums' exactness argument does not hold for them.
    if not len(costs):
        counted = _counted_loss_sums(flat, held, probes, ends, w, levels, fractional)
        if counted is not None:
            return counted
        if flat.regression and not fractional.any():
            return _level_loss_sums(flat, held, probes, ends, w, levels)
    visits = _visits(flat, held, _probe_spans(flat, ends, probes, one_by_one=True), costs)
    if fractional.any():
        return _loss_sums_by_row(flat, held, probes, visits, fractional, w, costs)
    P = len(probes)
    spans = np.zeros((2, P + 1))
    for v in visits:
        sums = np.array([dot(w[v.rows], v.losses), dot(w[v.rows], v.losses * v.losses)])
        spans[:, v.lo] += sums
        spans[:, v.hi] -= sums
    return np.cumsum(spans, axis=1)[:, :P]


def _counted_loss_sums(
    flat: FlatTree,
    held: Encoded,
    probes: np.ndarray,
    ends: tuple[np.ndarray, np.ndarray],
    w: np.ndarray,
    levels: list[tuple[np.ndarray, np.ndarray]],
    fractional: np.ndarray,
) -> np.ndarray | None:
    """:func:`_loss_sums_per_probe`'s sums from the rows routed level by level in arrays,
    every row at once (``levels``, ``fractional``: :meth:`FlatTree.descend`), instead of
    node by node: or None where that could change a bit of them (then the walk of
    :func:`_visits` gives them).

    Only for classification with whole-number row weights: each loss is then 0 or 1 and
    every sum a whole number (below 2**53), which comes out the same whatever the order of
    the additions. Rows that went down several branches are summed from their walk.
    """
    if flat.regression or not held.n_rows:
        return None
    if not (np.all(np.isfinite(w)) and np.all(w == np.floor(w)) and abs(w).sum() < 2.0**52):
        return None
    predicted = np.argmax(flat.outputs, axis=1)  # an empty node: its parent's shares
    lo, hi = _probe_spans(flat, ends, probes)
    P = len(probes)
    sums = np.zeros(P + 1)
    for rows, at in levels:
        keep = (lo[at] < hi[at]) & ~fractional[rows]
        rows, at = rows[keep], at[keep]
        loss = w[rows] * (predicted[at] != held.y[rows])
        np.add.at(sums, lo[at], loss)
        np.subtract.at(sums, hi[at], loss)
    sums = np.cumsum(sums)[:P]
    split_rows = np.flatnonzero(fractional)
    if len(split_rows):  # these rows' losses as the walk of _visits finds them
        split = subset(held, split_rows)
        visits = _visits(flat, split, _probe_spans(flat, ends, probes, one_by_one=True))
        w_split = w[split_rows]
        for p, loss in enumerate(_split_row_losses(flat, split, P, visits)):
            sums[p] += dot(w_split, loss)
    return np.vstack([sums, sums])  # a loss of 0 or 1 is its own square


def _level_loss_sums(
    flat: FlatTree,
    held: Encoded,
    probes: np.ndarray,
    ends: tuple[np.ndarray, np.ndarray],
    w: np.ndarray,
    levels: list[tuple[np.ndarray, np.ndarray]],
) -> np.ndarray:
    """:func:`_loss_sums_per_probe`'s sums for a regression tree that sent every row down one
    branch at every split, from the rows routed level by level (``levels``:
    :meth:`FlatTree.descend`) rather than by the node-by-node walk of :func:`_visits`, and
    the same to the bit: each node's rows (in the walk's order, ascending) give its two dot
    products, as the walk's did, then the nodes, in the walk's order, add them to their
    intervals of probes one after another.

    A full regression tree has a node per row or two: the walk's Python per node was most of
    a fit's choice of alpha. The dot products of the nodes with as many rows are one call of
    :func:`engine.sums.row_dots`, which sums each as :func:`engine.sums.dot` does."""
    lo, hi = _probe_spans(flat, ends, probes, one_by_one=True)  # the walk's intervals
    rows = np.concatenate([r for r, _ in levels])
    at = np.concatenate([a for _, a in levels])
    keep = lo[at] < hi[at]
    key = at[keep]
    if flat.n_nodes <= np.iinfo(np.uint16).max:  # numpy sorts 16-bit keys by radix, 4x sooner
        key = key.astype(np.uint16)
    by_node = np.argsort(key, kind="stable")  # a node's rows stay in ascending order
    rows, at = rows[keep][by_node], at[keep][by_node]
    nodes, starts, counts = np.unique(at, return_index=True, return_counts=True)
    loss = (flat.outputs[at] - held.y[rows]) ** 2
    weights = w[rows]
    sums = np.empty((2, len(nodes)))
    for size in np.unique(counts).tolist():
        which = np.flatnonzero(counts == size)
        take = starts[which][:, None] + np.arange(size)
        W, L = weights[take], loss[take]
        sums[0, which] = row_dots(W, L)
        sums[1, which] = row_dots(W, L * L)
    # The walk takes a node's last branch first: its k-th node is the one with k nodes
    # before it in that order, its depth plus the nodes of the subtrees to its right.
    depth = flat.depth - flat.depth[0]
    walked = np.argsort(depth[nodes] + flat.n_nodes - flat.end[nodes], kind="stable")
    nodes, sums = nodes[walked], sums[:, walked]
    P = len(probes)
    spans = np.zeros((2, P + 1))
    cells = np.stack([lo[nodes], hi[nodes]], axis=1).ravel()  # a node's lo, then its hi
    for k in (0, 1):  # np.add.at adds in the order given; x + (-s) is x - s to the bit
        np.add.at(spans[k], cells, np.stack([sums[k], -sums[k]], axis=1).ravel())
    return np.cumsum(spans, axis=1)[:, :P]


def _cuts(flat: FlatTree, measure: str = "impurity", costs=()) -> np.ndarray:
    """Per node, the alpha from which pruning cuts it (inf: never)."""
    path = cost_complexity_path(flat, measure, costs)
    # Pruning at alpha stops at the first step above it.
    applied = np.maximum.accumulate(path.alphas)
    cut = np.full(flat.n_nodes, np.inf)
    cut[path.pruned[1:]] = applied[1:]
    return cut


def _alpha_ends(
    flat: FlatTree, measure: str = "impurity", costs=()
) -> tuple[np.ndarray, np.ndarray]:
    """Per node, the alphas between which it is a leaf of the pruned tree: from the one
    pruning cuts it at (-inf for a leaf) to the one its parent goes at (inf for the root).

    A node goes with the first of its ancestors (or itself) to be cut: worked out a level
    of the tree at a time, each level from the one above (compiled, a node at a time in
    pre-order: :func:`engine.fast.weakest.alpha_ends`, whose oracle this loop is)."""
    cut, parent, leaf = _cuts(flat, measure, costs), flat.parent, flat.is_leaf
    if compilation.is_ready():
        from engine.fast.weakest import alpha_ends

        return alpha_ends(
            np.ascontiguousarray(parent, dtype=np.intp), np.ascontiguousarray(leaf), cut
        )
    depth = flat.depth - flat.depth[0]
    by_depth = np.argsort(depth, kind="stable")
    starts = np.searchsorted(depth[by_depth], np.arange(int(depth.max()) + 2))
    here = np.where(leaf, -np.inf, cut)  # the root's: nothing above it
    above = np.full(flat.n_nodes, np.inf)
    for d in range(1, len(starts) - 1):
        level = by_depth[starts[d] : starts[d + 1]]
        above[level] = here[parent[level]]
        here[level] = np.where(leaf[level], -np.inf, np.minimum(above[level], cut[level]))
    return here, above


def _probe_spans(
    flat: FlatTree,
    ends: tuple[np.ndarray, np.ndarray],
    probes: np.ndarray,
    one_by_one: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Per node, the probes ``[lo, hi)`` at which it is a leaf of the tree pruned there (see
    :func:`_visits`).

    A leaf's own end is -inf, before every probe, and a node stops being a leaf where its
    parent starts being one (:func:`_alpha_ends`): only the inner nodes' ends are searched,
    once each (two searches of every node's took a tenth of a fold's losses).

    ``one_by_one``: each node's end searched alone, as the walk of :func:`_visits` always
    has, when the probes are out of order (alphas a rounding below 0 make the first few
    products of neighbours fall): a search for many keys at once, each from where the last
    ended, can then land elsewhere than a search for one. In order, both land alike.
    """
    here, _ = ends
    inner = np.flatnonzero(~flat.is_leaf)
    lo = np.zeros(len(here), dtype=np.intp)
    if one_by_one and np.any(probes[1:] < probes[:-1]):
        lo[inner] = [np.searchsorted(probes, h, side="left") for h in here[inner]]
    else:
        lo[inner] = np.searchsorted(probes, here[inner], side="left")
    hi = np.empty_like(lo)
    hi[1:] = lo[flat.parent[1:]]
    hi[0] = len(probes)
    return lo, hi


def _loss_sums_by_row(
    flat: FlatTree,
    held: Encoded,
    probes: np.ndarray,
    visits: list[_Visit],
    fractional: np.ndarray,
    w: np.ndarray,
    costs=(),
) -> np.ndarray:
    """The sums of :func:`_loss_sums_per_probe` from every row's loss at each probe, added up
    over the rows in their order, as predicting with the tree pruned at that probe would.

    A row that went down one branch at every split takes the loss of the visit whose
    interval holds the probe: one visit per row starts there, so each probe overwrites the
    rows whose predicting node changes. A row that went down several branches is predicted
    the weighted sum of the predictions of the nodes it reaches that are leaves at the
    probe, added in the walk's order as :func:`engine.predict.predict_proba` adds them (so
    the sums are the same to the last bit); its loss is that prediction's.
    """
    P, n = len(probes), held.n_rows
    whole = [(v.lo, v.rows[~fractional[v.rows]], v.losses[~fractional[v.rows]]) for v in visits]
    starts = np.concatenate([np.full(len(r), lo) for lo, r, _ in whole])
    order = np.argsort(starts, kind="stable")
    whole_rows = np.concatenate([r for _, r, _ in whole])[order]
    whole_losses = np.concatenate([loss for _, _, loss in whole])[order]
    bounds = np.searchsorted(starts[order], np.arange(P + 1), side="left")

    split_rows = np.flatnonzero(fractional)
    split_losses = _split_row_losses(flat, held, P, visits, fractional, costs)
    loss = np.zeros(n)
    sums = np.zeros((2, P))
    for p in range(P):
        checkpoint()
        chosen = slice(bounds[p], bounds[p + 1])
        loss[whole_rows[chosen]] = whole_losses[chosen]
        loss[split_rows] = next(split_losses)
        sums[:, p] = dot(w, loss), dot(w, loss * loss)
    return sums


def _split_row_losses(
    flat: FlatTree,
    held: Encoded,
    P: int,
    visits: list[_Visit],
    fractional: np.ndarray | None = None,
    costs=(),
) -> Iterator[np.ndarray]:
    """Per probe, the losses of the rows of ``held`` that went down several branches (all of
    them when ``fractional`` is None), in their order: each is predicted the weighted sum of
    the predictions of the nodes it reaches that are leaves at the probe, added in the
    walk's order as :func:`engine.predict.predict_proba` adds them (so the sums are the same
    to the last bit)."""
    if fractional is None:
        fractional = np.ones(held.n_rows, dtype=bool)
    split_rows = np.flatnonzero(fractional)
    local = np.full(held.n_rows, -1)
    local[split_rows] = np.arange(len(split_rows))
    pieces = [(v, fractional[v.rows]) for v in visits]
    piece_rows = np.concatenate([local[v.rows[f]] for v, f in pieces])
    piece_lo = np.concatenate([np.full(int(f.sum()), v.lo) for v, f in pieces])
    piece_hi = np.concatenate([np.full(int(f.sum()), v.hi) for v, f in pieces])
    if flat.regression:
        piece_out = np.concatenate([v.weights[f] * v.out for v, f in pieces])
        shape = (len(split_rows),)
    else:
        piece_out = np.concatenate([v.weights[f][:, None] * v.out for v, f in pieces]).reshape(
            -1, flat.distribution.shape[1]
        )
        shape = (len(split_rows), flat.distribution.shape[1])
    split_y = held.y[split_rows]
    spans = np.maximum(piece_hi - piece_lo, 0)
    if spans.sum() * (1 if flat.regression else shape[1]) <= ALL_PROBES_AT_ONCE:
        # Every probe at once: each (probe, row) still adds its pieces in the walk's order.
        piece = np.repeat(np.arange(len(piece_lo)), spans)
        probe = piece_lo[piece] + np.arange(len(piece)) - np.repeat(np.cumsum(spans) - spans, spans)
        predicted = np.zeros((P, *shape))
        np.add.at(predicted, (probe, piece_rows[piece]), piece_out[piece])
        if flat.regression:
            yield from (predicted - split_y) ** 2
        else:
            yield from _costed_losses(predicted, split_y, costs)
        return
    for p in range(P):
        active = (piece_lo <= p) & (p < piece_hi)
        predicted = np.zeros(shape)
        np.add.at(predicted, piece_rows[active], piece_out[active])
        if flat.regression:
            yield (predicted - split_y) ** 2
        else:
            yield _costed_losses(predicted, split_y, costs)


def _fold_growth(data: Encoded, settings: Settings) -> tuple[Settings, int]:
    """The settings the inner folds' trees grow with, and how many grow side by side."""
    grow_settings = replace(settings, prune="none", cv_alpha=None)
    # Small tables grow their folds side by side, each on one thread; the sums add in fold order.
    if data.n_rows * max(data.X.shape[1], 1) > FOLD_THREADS_MAX_CELLS:
        return grow_settings, 1
    return replace(grow_settings, threads=1), n_threads(settings.threads)


def _inner_folds(data: Encoded, settings: Settings) -> list:
    """The ``settings.cv_alpha`` inner folds: (index, held-out rows)."""
    y = None if data.schema.is_regression else data.y
    return list(enumerate(stratified_folds(y, data.n_rows, settings.cv_alpha, settings.seed)))


def _grow_fold(data: Encoded, fold, grow_settings: Settings, k: int, monitor: Monitor):
    f, test = fold
    monitor.check()
    step = f"choosing alpha, inner fold {f + 1} of {k}"
    monitor.report(f / k, step)
    # Arrays only: a fold's tree is routed through and dropped, never looked at.
    train = training_rows(test, data.n_rows)
    return grow_flat(subset(data, train), grow_settings, monitor.scaled(f / k, (f + 0.8) / k, step))


def grow_and_choose_alpha(
    data: Encoded, settings: Settings, grow, monitor: Monitor = NULL_MONITOR
) -> tuple[Tree, AlphaChoice | None, PruningPath | None]:
    """``grow(monitor)``, the tree on all of ``data``, :func:`choose_alpha`'s choice for it
    worked out beside its growth and the tree's pruning path it was chosen on (in the tree's
    cost matrix: :func:`engine.prune.cost_complexity.prune_along` prunes along it); or the
    tree and Nones where that is not done.

    Where the folds grow side by side and the whole tree on one thread, the whole tree is
    one more task among the folds': it had left every other core idle for a twelfth of the
    fit (issue 39). The folds' held-out losses are tasks of their own, after every growth:
    a thread out of trees to grow sums the losses of those grown (each waits for its tree
    and the whole tree's probe alphas), where a fold's thread summing its own had left the
    other idle for most of the last growth. Elsewhere choose_alpha grows each fold when it
    needs it and drops it after: a big table's ten trees are never held at once.
    """
    from engine.fast.builder import THREADS_LEAST_ROWS

    grow_settings, threads = _fold_growth(data, settings)
    if threads <= 1 or data.n_rows >= THREADS_LEAST_ROWS:
        return grow(monitor), None, None
    folds = _inner_folds(data, settings)
    k = len(folds)
    probed: list = []  # the whole tree's _probes, once grown
    trees: dict = {}  # a fold's tree, from its growth to its losses
    grown = {f: threading.Event() for f in [None, *range(k)]}

    def work(task, monitor):
        kind, fold = task
        f = None if fold is None else fold[0]
        if kind == "grow":
            try:
                if fold is None:
                    whole = grow(monitor)
                    probed.append(_probes(whole, settings))
                    return whole
                trees[f] = _grow_fold(data, fold, grow_settings, k, monitor)
            finally:
                grown[f].set()  # the losses stop waiting if it failed (fold_map raises that)
            return None
        for event in (grown[None], grown[f]):
            while not event.wait(POLL):
                monitor.check()
        fold_tree = trees.pop(f, None)
        if not probed or fold_tree is None:
            return None
        return _fold_loss_sums(data, fold, fold_tree, probed[0].probes, settings, probed[0].costs)

    # In this order a losses task waits only for a growth begun before it: never a deadlock.
    tasks = [("grow", None), *(("grow", fold) for fold in folds), *(("loss", f) for f in folds)]
    whole, *rest = fold_map(work, tasks, threads, monitor)
    return whole, _choice(probed[0], rest[k:], data, settings, monitor), probed[0].path


class _Probed(NamedTuple):
    """The whole tree's side of the choice (:func:`_probes`)."""

    alphas: np.ndarray  # its distinct weakest-link alphas
    leaves: np.ndarray  # its leaves at each
    probes: np.ndarray  # the alphas every fold's tree is pruned at
    costs: tuple  # its cost matrix
    path: PruningPath


def _probes(tree: Tree, settings: Settings) -> _Probed:
    """``tree``'s distinct weakest-link alphas, its leaves at each, the alphas every fold's
    tree is pruned at, its cost matrix and its pruning path."""
    # With a cost matrix (the tree's, --costs) every fold is pruned and scored in cost.
    costs = tree.costs
    path = cost_complexity_path(tree, settings.ccp_measure, costs)
    alphas, first = np.unique(path.alphas, return_index=True)
    # The k-th subtree is the best for alpha in [alphas[k], alphas[k + 1]): each fold's tree is
    # pruned at the geometric mean of those ends (Breiman et al. 1984, 3.4.2; rpart). The last
    # interval has no upper end: every fold's tree is pruned to its root, as the full tree is
    # (at alphas[-1] itself, a fold's tree whose root link is weaker would keep splits).
    probes = np.append(np.sqrt(alphas[:-1] * alphas[1:]), np.inf)
    return _Probed(alphas, path.n_leaves[first], probes, costs, path)


def _fold_loss_sums(data, fold, fold_tree, probes, settings, costs) -> np.ndarray:
    _, test = fold
    return _loss_sums_per_probe(fold_tree, subset(data, test), probes, settings.ccp_measure, costs)


def choose_alpha(
    tree: Tree, data: Encoded, settings: Settings, monitor: Monitor = NULL_MONITOR
) -> AlphaChoice:
    """CV error per alpha on ``tree``'s pruning path, and the alpha each rule picks."""
    probed = _probes(tree, settings)
    grow_settings, threads = _fold_growth(data, settings)
    folds = _inner_folds(data, settings)
    k = len(folds)

    def fold_sums(fold, monitor):
        fold_tree = _grow_fold(data, fold, grow_settings, k, monitor)
        return _fold_loss_sums(data, fold, fold_tree, probed.probes, settings, probed.costs)

    return _choice(probed, fold_map(fold_sums, folds, threads, monitor), data, settings, monitor)


def _choice(probed: _Probed, fold_sums: list, data: Encoded, settings: Settings, monitor):
    """The CV error and its standard error per alpha from the folds' loss sums (added in fold
    order, whichever thread made them), and the alpha each rule picks."""
    alphas, leaves, probes, costs = probed.alphas, probed.leaves, probed.probes, probed.costs
    sums = np.zeros((2, len(probes)))  # weighted loss and squared loss per probe, over the folds
    for fold in fold_sums:
        sums += fold
    n = float(np.broadcast_to(data.weight, (data.n_rows,)).sum())
    error = sums[0] / n
    if data.schema.is_regression or len(costs):  # the weighted spread of the losses about
        # their mean (a cost is no 0/1 loss: the binomial one below gave NaN past a mean of 1)
        se = np.sqrt(np.maximum(sums[1] / n - error * error, 0.0) / n)
    else:
        se = np.sqrt(error * (1 - error) / n)
    best = int(np.flatnonzero(error <= error.min() + 1e-12)[-1])
    within = np.flatnonzero(error <= error[best] + se[best] + 1e-12)
    one_se = int(within[-1])
    chosen = one_se if settings.one_se else best
    monitor.report(1.0, "alpha chosen")
    return AlphaChoice(
        alphas, leaves, error, se, float(alphas[best]), float(alphas[one_se]), float(alphas[chosen])
    )
