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

from collections.abc import Iterator
from dataclasses import dataclass, replace

import numpy as np

from engine.data.encoding import Encoded, subset
from engine.data.folds import stratified_folds, training_rows
from engine.growth import grow
from engine.monitor import NULL_MONITOR, Monitor, checkpoint
from engine.predict import node_output
from engine.prune.cost_complexity import cost_complexity_path
from engine.settings import Settings
from engine.tree import THRESHOLD, Tree, partition_rows

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


def _node_losses(tree: Tree, out, y: np.ndarray) -> np.ndarray:
    """The loss of rows with targets ``y`` predicted ``out`` (a node's class probabilities or mean)."""
    if tree.is_regression:
        return (out - y) ** 2
    return (int(np.argmax(out)) != y).astype(np.float64)


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
    tree: Tree, held: Encoded, probes: np.ndarray, cut: np.ndarray | None = None
) -> tuple[list[_Visit], np.ndarray]:
    """Every held-out row routed once through the full ``tree``: the visits of nodes that are a
    leaf of the tree pruned at some probe, in the order prediction walks the nodes, and which
    rows went down several branches (a missing value, or a category no branch holds).

    Pruned at alpha, the tree keeps the weakest-link steps up to it, so a node is a leaf from
    the first probe at or above the alpha that cuts it (or an ancestor) on; it predicts for
    the probes from there up to the one that cuts its parent.
    """
    if cut is None:
        cut = _cuts(tree)
    P = len(probes)
    visits = []
    fractional = np.zeros(held.n_rows, dtype=bool)
    # The walk of engine.predict._route: children pushed in order, the last popped first; it
    # reaches the nodes of every pruned subtree in the same order as the full tree's.
    stack = [(tree.root, np.arange(held.n_rows), np.ones(held.n_rows), np.inf, None)]
    while stack:
        checkpoint()
        node, rows, weights, above, fallback = stack.pop()
        here = -np.inf if node.is_leaf else min(above, cut[node.id])
        out = node_output(tree, node, fallback)
        lo = int(np.searchsorted(probes, here, side="left"))
        hi = P if node is tree.root else int(np.searchsorted(probes, above, side="left"))
        if lo < hi:
            visits.append(_Visit(rows, weights, out, _node_losses(tree, out, held.y[rows]), lo, hi))
        if node.is_leaf:
            continue
        values = held.X[rows, node.split.attribute]
        branch = node.split.branch_of(values)
        fractional[rows[branch < 0]] = True
        parts = partition_rows(node.split, values, rows, weights, branch)
        stack.extend(
            (child, r, w, here, out)
            for child, (r, w) in zip(node.children, parts, strict=True)
            if len(r)
        )
    return visits, fractional


def _loss_sums_per_probe(tree: Tree, held: Encoded, probes: np.ndarray) -> np.ndarray:
    """The held-out rows' weighted loss and squared loss summed under ``tree`` pruned at
    every probe alpha: an array (2, probes), without pruning the tree once per probe.

    Each row is routed once (:func:`_visits`); at a probe, a row's loss is its loss at the
    node of its path that is then a leaf. When no row went down several branches, each
    node adds its rows' sums to its interval of probes, and nothing of size probes x rows
    is made (on 2,000,000 rows that was 50 GiB). Otherwise the sums are
    :func:`_loss_sums_by_row`'s.
    """
    w = np.broadcast_to(held.weight, (held.n_rows,))
    counted = _counted_loss_sums(tree, held, probes, w)
    if counted is not None:
        return counted
    visits, fractional = _visits(tree, held, probes)
    if fractional.any():
        return _loss_sums_by_row(tree, held, probes, visits, fractional, w)
    P = len(probes)
    spans = np.zeros((2, P + 1))
    for v in visits:
        sums = np.array([w[v.rows] @ v.losses, w[v.rows] @ (v.losses * v.losses)])
        spans[:, v.lo] += sums
        spans[:, v.hi] -= sums
    return np.cumsum(spans, axis=1)[:, :P]


def _counted_loss_sums(
    tree: Tree, held: Encoded, probes: np.ndarray, w: np.ndarray
) -> np.ndarray | None:
    """:func:`_loss_sums_per_probe`'s sums with the rows routed level by level in arrays,
    every row at once, instead of node by node: or None where that could change a bit of
    them (then the walk of :func:`_visits` gives them).

    Only for classification with whole-number row weights and no row going down several
    branches: each loss is then 0 or 1 and every sum a whole number (below 2**53), which
    comes out the same whatever the order of the additions.
    """
    if tree.is_regression or not held.n_rows:
        return None
    if not (np.all(np.isfinite(w)) and np.all(w == np.floor(w)) and abs(w).sum() < 2.0**52):
        return None
    nodes = list(tree.nodes())  # ids are pre-order positions
    n = len(nodes)
    leaf = np.array([node.is_leaf for node in nodes])
    attribute = np.zeros(n, dtype=np.intp)
    threshold = np.full(n, np.nan)
    by_threshold = np.zeros(n, dtype=bool)
    child = np.full(
        (n, max(max((len(node.children) for node in nodes), default=0), 1)), -1, dtype=np.intp
    )
    parent = np.full(n, -1, dtype=np.intp)
    width = 1 + max(
        (
            max(g)
            for node in nodes
            if node.split is not None and node.split.kind != THRESHOLD
            for g in node.split.groups
            if g
        ),
        default=0,
    )
    lookup = np.full((n, width), -1, dtype=np.intp)  # category code -> branch, per node
    counts = np.array([node.distribution for node in nodes])
    # The class of engine.predict.node_output's probabilities: whole counts over a positive
    # total keep their order, so the first largest count is the first largest probability.
    predicted = np.argmax(counts, axis=1)
    whole = np.all(counts == np.floor(counts), axis=1)
    empty = counts.sum(axis=1) <= 0
    for node in nodes:  # parents before children: an empty node predicts its parent's class
        i = node.id
        if not whole[i]:  # fractional counts: the probabilities' own argmax
            total = node.distribution.sum()
            empty[i] = not total > 0
            if not empty[i]:
                predicted[i] = int(np.argmax(node.distribution / total))
        if empty[i]:
            predicted[i] = predicted[parent[i]] if parent[i] >= 0 else 0
        split = node.split
        if split is None:
            continue
        attribute[i] = split.attribute
        if split.kind == THRESHOLD:
            by_threshold[i], threshold[i] = True, split.threshold
        else:
            for b, group in enumerate(split.groups):
                lookup[i, list(group)] = b
        for b, c in enumerate(node.children):
            child[i, b], parent[c.id] = c.id, i
    rows = np.arange(held.n_rows)
    at = np.zeros(held.n_rows, dtype=np.intp)
    fractional = np.zeros(held.n_rows, dtype=bool)
    levels = [(rows, at)]  # the rows reaching each node, a level of the tree at a time
    while True:
        checkpoint()
        inner = ~leaf[at]
        rows, at = rows[inner], at[inner]
        if not len(rows):
            break
        values = held.X[rows, attribute[at]]
        branch = np.full(len(rows), -1, dtype=np.intp)
        numeric = by_threshold[at] & ~np.isnan(values)
        branch[numeric] = np.where(values[numeric] <= threshold[at[numeric]], 0, 1)
        nominal = ~by_threshold[at] & ~np.isnan(values)
        codes = values[nominal].astype(np.intp)
        inside = codes < width
        mapped = np.full(len(codes), -1, dtype=np.intp)
        mapped[inside] = lookup[at[nominal][inside], codes[inside]]
        branch[nominal] = mapped
        whole = branch >= 0  # the others go down every branch: a missing value, or a
        fractional[rows[~whole]] = True  # category no branch holds
        rows, at = rows[whole], child[at[whole], branch[whole]]
        levels.append((rows, at))
    cut = _cuts(tree)
    lo, hi = _probe_spans(cut, parent, leaf, probes)
    P = len(probes)
    spans = np.zeros(P + 1)
    for rows, at in levels:
        keep = (lo[at] < hi[at]) & ~fractional[rows]
        rows, at = rows[keep], at[keep]
        loss = w[rows] * (predicted[at] != held.y[rows])
        np.add.at(spans, lo[at], loss)
        np.subtract.at(spans, hi[at], loss)
    sums = np.cumsum(spans)[:P]
    split_rows = np.flatnonzero(fractional)
    if len(split_rows):  # these rows' losses as the walk of _visits finds them
        split = subset(held, split_rows)
        visits, _ = _visits(tree, split, probes, cut)
        w_split = w[split_rows]
        for p, loss in enumerate(_split_row_losses(tree, split, P, visits)):
            sums[p] += w_split @ loss
    return np.vstack([sums, sums])  # a loss of 0 or 1 is its own square


def _cuts(tree: Tree) -> np.ndarray:
    """Per node of ``tree``, the alpha from which pruning cuts it (inf: never)."""
    path = cost_complexity_path(tree)
    applied = np.maximum.accumulate(
        path.alphas
    )  # pruning at alpha stops at the first step above it
    cut = np.full(tree.n_nodes, np.inf)
    cut[path.pruned[1:]] = applied[1:]
    return cut


def _probe_spans(
    cut: np.ndarray, parent: np.ndarray, leaf: np.ndarray, probes: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per node, the probes ``[lo, hi)`` at which it is a leaf of the pruned tree (see
    :func:`_visits`, whose figures these are)."""
    cut_l, parent_l, leaf_l = cut.tolist(), parent.tolist(), leaf.tolist()
    here = [0.0] * len(cut_l)
    above = [np.inf] * len(cut_l)
    for i in range(len(cut_l)):  # pre-order: a parent's figure is known before its children's
        if parent_l[i] >= 0:
            above[i] = here[parent_l[i]]
        here[i] = -np.inf if leaf_l[i] else min(above[i], cut_l[i])
    lo = np.searchsorted(probes, np.array(here), side="left")
    hi = np.searchsorted(probes, np.array(above), side="left")
    hi[0] = len(probes)
    return lo, hi


def _loss_sums_by_row(
    tree: Tree,
    held: Encoded,
    probes: np.ndarray,
    visits: list[_Visit],
    fractional: np.ndarray,
    w: np.ndarray,
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
    split_losses = _split_row_losses(tree, held, P, visits, fractional)
    loss = np.zeros(n)
    sums = np.zeros((2, P))
    for p in range(P):
        checkpoint()
        chosen = slice(bounds[p], bounds[p + 1])
        loss[whole_rows[chosen]] = whole_losses[chosen]
        loss[split_rows] = next(split_losses)
        sums[:, p] = w @ loss, w @ (loss * loss)
    return sums


def _split_row_losses(
    tree: Tree, held: Encoded, P: int, visits: list[_Visit], fractional: np.ndarray | None = None
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
    if tree.is_regression:
        piece_out = np.concatenate([v.weights[f] * v.out for v, f in pieces])
        shape = (len(split_rows),)
    else:
        piece_out = np.concatenate([v.weights[f][:, None] * v.out for v, f in pieces]).reshape(
            -1, len(tree.classes)
        )
        shape = (len(split_rows), len(tree.classes))
    split_y = held.y[split_rows]
    spans = np.maximum(piece_hi - piece_lo, 0)
    if spans.sum() * (1 if tree.is_regression else shape[1]) <= ALL_PROBES_AT_ONCE:
        # Every probe at once: each (probe, row) still adds its pieces in the walk's order.
        piece = np.repeat(np.arange(len(piece_lo)), spans)
        probe = piece_lo[piece] + np.arange(len(piece)) - np.repeat(np.cumsum(spans) - spans, spans)
        predicted = np.zeros((P, *shape))
        np.add.at(predicted, (probe, piece_rows[piece]), piece_out[piece])
        if tree.is_regression:
            yield from (predicted - split_y) ** 2
        else:
            yield from (np.argmax(predicted, axis=2) != split_y).astype(np.float64)
        return
    for p in range(P):
        active = (piece_lo <= p) & (p < piece_hi)
        predicted = np.zeros(shape)
        np.add.at(predicted, piece_rows[active], piece_out[active])
        if tree.is_regression:
            yield (predicted - split_y) ** 2
        else:
            yield (np.argmax(predicted, axis=1) != split_y).astype(np.float64)


def choose_alpha(
    tree: Tree, data: Encoded, settings: Settings, monitor: Monitor = NULL_MONITOR
) -> AlphaChoice:
    """CV error per alpha on ``tree``'s pruning path, and the alpha each rule picks."""
    path = cost_complexity_path(tree)
    alphas, first = np.unique(path.alphas, return_index=True)
    leaves = path.n_leaves[first]
    # The k-th subtree is the best for alpha in [alphas[k], alphas[k + 1]): each fold's tree is
    # pruned at the geometric mean of those ends (Breiman et al. 1984, 3.4.2; rpart). The last
    # interval has no upper end: every fold's tree is pruned to its root, as the full tree is
    # (at alphas[-1] itself, a fold's tree whose root link is weaker would keep splits).
    probes = np.append(np.sqrt(alphas[:-1] * alphas[1:]), np.inf)
    k = settings.cv_alpha
    y = None if data.schema.is_regression else data.y
    grow_settings = replace(settings, prune="none", cv_alpha=None)
    sums = np.zeros((2, len(probes)))  # weighted loss and squared loss per probe, over the folds
    for f, test in enumerate(stratified_folds(y, data.n_rows, k, settings.seed)):
        monitor.check()
        step = f"choosing alpha, inner fold {f + 1} of {k}"
        monitor.report(f / k, step)
        train = training_rows(test, data.n_rows)
        fold_tree = Tree(
            grow(subset(data, train), grow_settings, monitor.scaled(f / k, (f + 0.8) / k, step)),
            data.schema,
        )
        sums += _loss_sums_per_probe(fold_tree, subset(data, test), probes)
    n = float(np.broadcast_to(data.weight, (data.n_rows,)).sum())
    error = sums[0] / n
    if data.schema.is_regression:  # the weighted spread of the losses about their mean
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
