"""C4.5's error-based pruning (J48's: collapse, then keep / leaf / raise) on the tree's arrays
(issue 39): what fits and each fold of a cross-validation run.

The training rows are routed once through the grown tree's arrays (:mod:`engine.flat`),
every row down a level at a time, and each node's class weights are one ``bincount``.
While pruning rearranges the tree, a node is a number: which original node's split it
uses, its children, its rows and weights, its class weights and its error bound, worked
out once. Subtree raising routes the parent's rows through the raised branch the same way.
Only the pruned tree's nodes are made as objects, at the end.

With ``record``, each decision is kept as the node objects' pruner kept it (its options,
the subtree before and after), for the window's walk-through.

A tree trained over partitions has no rows here: it is pruned from its nodes' counts (no
subtree raising, which re-routes rows).

Every sum adds the same numbers in the same order as :mod:`engine.prune.pessimistic`'s
node objects did (each node's rows in the root's order, a subtree's leaves last first), so
the trees, fractions, error estimates and records are the same to the last bit; those node
objects are the oracle in ``tests/engine/prune/test_pessimistic_arrays.py``.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from types import MappingProxyType

import numpy as np

from engine.data.encoding import Encoded
from engine.flat import FlatTree, cache_flat, flat_of
from engine.learn.costs import cost_per_error, least_cost
from engine.learn.criteria import IMPURITIES
from engine.learn.tolerances import WEKA_EPS
from engine.monitor import NULL_MONITOR, Monitor, checkpoint
from engine.prune.bounds import estimated_errors
from engine.prune.record import (
    BRANCH,
    COLLAPSED,
    IS_LEAF,
    KEPT,
    LEAF,
    PRUNED,
    RAISED,
    RECORD_LIMIT,
    SUBTREE,
    Decision,
    PruningOption,
    PruningRecord,
    Share,
)
from engine.settings import Settings
from engine.tree import Node, Split, Tree

#: The most cells (nodes times classes) of a table of class weights by node number; above,
#: the nodes rows reach are found first.
BY_NUMBER = 1 << 16

#: Split scores a split loses when pruning makes it a leaf.
_SCORES = ("gain", "gain_ratio")


#: Loops over a tree's nodes look at Cancel every this many nodes.
CHECK_NODES = 8192


def wrong_count(dist: np.ndarray) -> float:
    """A leaf's training errors: the weight of its classes but the most frequent."""
    total = dist.sum()
    return float(total - dist.max()) if total > 0 else 0.0


def _wrong_counts(D: np.ndarray) -> list[float]:
    """:func:`wrong_count` of each row of class weights."""
    total = D.sum(axis=1)
    return np.where(total > 0, total - D.max(axis=1), 0.0).tolist()


def leaf_error_bound(dist: np.ndarray, cf: float, method: str, costs=()) -> float:
    """A leaf's pessimistic errors: the upper bound on its training errors (seed 001), or
    with a cost matrix (``--costs``) the bound on the errors of its least-cost label, each
    at the leaf's average cost of one (for a 0/1 matrix, J48's figure itself)."""
    total = dist.sum()
    if not costs:
        return estimated_errors(float(total), wrong_count(dist), cf, method)
    if total <= 0:
        return 0.0
    _, j = least_cost(dist, costs)
    bound = estimated_errors(float(total), float(total - dist[j]), cf, method)
    return bound * cost_per_error(dist, costs)


def arrays_apply(tree: Tree, data: Encoded | None) -> bool:
    """Whether these arrays prune ``tree`` (else the node objects do): a classification tree
    (C4.5's) without surrogate splits, with its training rows (labelled) or none at all (a
    tree trained over partitions, pruned from its counts)."""
    if tree.is_regression or (data is not None and (not data.n_rows or data.y.min() < 0)):
        return False
    return not flat_of(tree).surrogates


def _needs_rows(data: Encoded | None, settings: Settings) -> None:
    if data is None and settings.subtree_raising and settings.prune == "pessimistic":
        raise ValueError("subtree raising re-routes training rows: it needs the data")


def prune_pessimistic_arrays(
    tree: Tree,
    data: Encoded | None,
    settings: Settings,
    monitor: Monitor = NULL_MONITOR,
    record: bool = False,
) -> Tree:
    """:func:`engine.prune.pessimistic.prune_pessimistic` on the arrays (see
    :func:`arrays_apply` for the trees it takes); with ``record`` (and a tree of at most
    :data:`engine.prune.record.RECORD_LIMIT` nodes) its decisions on the tree."""
    _needs_rows(data, settings)
    live = _Live(flat_of(tree), data, settings, tree.costs, monitor)
    if record and tree.n_nodes <= RECORD_LIMIT:
        live.decisions = []
    live.collapse()
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * int(live.flat.depth.max(initial=0)) + 1000))
    try:
        live.prune(0)
    finally:
        sys.setrecursionlimit(limit)
    pruned = to_tree(live, tree)
    if live.decisions is None:
        return pruned
    made = replace(
        pruned,
        pruning=PruningRecord(
            "pessimistic",
            tree,
            tuple(live.decisions),
            settings.error_estimate,
            settings.confidence,
        ),
    )
    cache_flat(made, flat_of(pruned))
    return made


def collapse_arrays(tree: Tree, data: Encoded | None, settings: Settings) -> Tree:
    """:func:`engine.prune.pessimistic.collapse_tree` on the arrays."""
    _needs_rows(data, settings)
    live = _Live(flat_of(tree), data, settings, tree.costs, NULL_MONITOR)
    live.collapse()
    return to_tree(live, tree)


class _Live:
    """The tree while pruning rearranges it, a node per number (the grown tree's pre-order
    positions first, then the copies subtree raising makes).

    ``src[k]``: the grown node whose split node ``k`` uses; ``kids[k]`` its children (none:
    a leaf) and ``nk``/``kid`` the same as arrays for routing; ``frac[k]`` its split's
    fractions, ``refitted[k]`` them as a tuple when raising refitted them to new rows;
    ``rows``/``wts`` the rows reaching it (in the root's order) and their weights (none for
    a tree pruned from its counts); ``dist`` its class weights; ``bound`` its error bound as
    a leaf; ``stats`` its node's stats.
    """

    def __init__(self, flat: FlatTree, data: Encoded | None, settings: Settings, costs, monitor):
        self.flat = flat
        self.costs, self.monitor = costs, monitor
        self.cf, self.method = settings.confidence, settings.error_estimate
        self.raising = settings.subtree_raising
        self.impurity = IMPURITIES[settings.impurity]
        self.n_classes = flat.distribution.shape[1]
        self.bounds: dict[tuple[float, float], float] = {}
        self.decisions: list[Decision] | None = None  # the record's, when one is kept
        n = flat.n_nodes
        self.size = n
        self.src = np.arange(n, dtype=np.intp)
        self.nk = flat.n_children.copy()
        self.kid = flat.children.copy()
        self.frac = flat.fractions.copy()
        children, counts = flat.children.tolist(), self.nk.tolist()
        self.kids = []
        for a in range(0, n, CHECK_NODES):  # a 300,000-node tree's lists took 0.5 s
            checkpoint()
            b = a + CHECK_NODES
            self.kids.extend(row[:k] for row, k in zip(children[a:b], counts[a:b], strict=True))
        self.refitted: list[tuple | None] = [None] * n
        self.stats: list[dict | None] = [None] * n  # see stats_of
        self.wsum: list[float | None] = [None] * n
        if data is None:  # trained over partitions: the nodes' own counts, no rows
            self.X = self.y = self.rows = self.wts = self.incomplete = None
            self.dist = flat.distribution.astype(np.float64)
            self.wsum = flat.weight.tolist()
        else:
            self.X, self.y = data.X, data.y
            missing = np.isnan(data.X).any(axis=1)
            self.incomplete = missing if missing.any() else None  # rows missing a value
            A, R, W, _ = route(self, 0, np.arange(data.n_rows), data.weight.copy())
            self.rows, self.wts, self.dist = _per_node(self, A, R, W, np.arange(n))
        self.bound = self._bounds(self.dist)
        self.wrong = _wrong_counts(self.dist)
        self.imp = self.impurity(self.dist).tolist()
        self.leaves: list[list[int] | None] = [None] * n  # a pruned subtree's, see prune

    # ---------------------------------------------------------------- per node
    def _bounds(self, D: np.ndarray) -> list[float]:
        """Each row of class weights' error bound as a leaf (the same bound for the same
        total and errors: asked for once)."""
        if self.costs:
            return [leaf_error_bound(d, self.cf, self.method, self.costs) for d in D]
        total = D.sum(axis=1)
        wrong = np.where(total > 0, total - D.max(axis=1), 0.0)
        out, known = [], self.bounds
        for key in zip(total.tolist(), wrong.tolist(), strict=True):
            value = known.get(key)
            if value is None:
                value = known[key] = estimated_errors(key[0], key[1], self.cf, self.method)
            out.append(value)
        return out

    def stats_of(self, k: int) -> dict:
        """Node ``k``'s stats, to add pruning's figures to: its grown node's, copied when
        first asked for (most nodes the collapse drops never are)."""
        stats = self.stats[k]
        if stats is None:
            stats = self.stats[k] = dict(self.flat.node_objects()[k].stats)
        return stats

    def weight(self, k: int) -> float:
        value = self.wsum[k]
        if value is None:
            value = self.wsum[k] = float(self.wts[k].sum())
        return value

    def branches(self, at: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The branch each of ``rows`` goes down at the node beside it (-1: several)."""
        s = self.src[at]
        return self.flat.branches(s, self.X[rows, self.flat.attribute[s]])

    def make_leaf(self, k: int) -> None:
        self.kids[k] = []
        self.nk[k] = 0

    # ---------------------------------------------------------------- the two steps
    def collapse(self) -> None:
        """Turn a split into a leaf when its leaves make no fewer training errors than it
        would (with a cost matrix: cost no less), from the root down."""
        if self.costs:
            wrong = [least_cost(d, self.costs)[0] if d.sum() > 0 else 0.0 for d in self.dist]
        else:
            wrong = self.wrong
        # Each split is judged with its grown subtree whole (only splits below a collapsed
        # one go), so its leaves are the grown leaves between it and its subtree's end.
        flat = self.flat
        leaves = np.flatnonzero(flat.is_leaf)
        first = np.searchsorted(leaves, np.arange(flat.n_nodes)).tolist()
        last = np.searchsorted(leaves, flat.end).tolist()
        at_leaves = [wrong[j] for j in leaves.tolist()]
        stack = [(0, ())]
        while stack:
            checkpoint()
            k, path = stack.pop()
            if not self.kids[k]:
                continue
            below = at_leaves[first[k] : last[k]]
            below.reverse()  # added the last first, as the node objects added them
            if sum(below) >= wrong[k] - 1e-3:
                if self.decisions is None:
                    self.make_leaf(k)
                    continue
                options = self._options(k, wrong.__getitem__)
                before = self._snapshot(k, copy_stats=True)
                self.make_leaf(k)
                self._decide(path, COLLAPSED, options, before, self._snapshot(k))
            else:
                stack.extend((c, (*path, b)) for b, c in enumerate(self.kids[k]))

    def prune(self, k: int, path: tuple[int, ...] = ()) -> None:
        """J48's choice at ``k``, its children first: keep, make a leaf, or raise its most
        populated branch (then choose again below it)."""
        stats = self.stats_of(k)
        recording = self.decisions is not None
        if not self.kids[k]:
            stats["error_as_leaf"] = self.bound[k]
            self.leaves[k] = [k]
            if recording:
                self._decide(path, IS_LEAF, self._options(k, self.bound.__getitem__))
            return
        self.monitor.check()
        for b, child in enumerate(self.kids[k]):
            self.prune(child, (*path, b))
        kids = self.kids[k]
        sizes = [self.weight(c) for c in kids]
        top = max(sizes) - WEKA_EPS
        # J48 raises the last of equally populated branches (its maxBag keeps the last tie).
        largest = max(b for b, size in enumerate(sizes) if size >= top)
        as_leaf = self.bound[k]
        self.leaves[k] = leaves = _leaves_below(self.leaves, kids)
        as_tree = sum(map(self.bound.__getitem__, leaves))
        raised, parts, as_branch = None, None, np.inf
        if self.raising and recording:  # its figures by branch too
            as_branch, parts = self._raised_shares(kids[largest], k)
            if parts is None:  # rows down several branches: the copies give them
                raised = self._copy_raised(kids[largest], k)
                as_branch = sum(self.bound[j] for j in self._walk_leaves(raised))
                parts = self._branch_shares(raised, self.bound.__getitem__)
        elif self.raising:
            as_branch = self._raised(kids[largest], k)
        stats.update(error_as_leaf=as_leaf, error_as_subtree=as_tree)
        if self.raising:
            stats["error_as_branch"] = as_branch
        if recording:
            options = self._options(k, self.bound.__getitem__, parts, largest)
            before = self._snapshot(k, copy_stats=True)
        if as_leaf <= as_tree + 0.1 + WEKA_EPS and as_leaf <= as_branch + 0.1 + WEKA_EPS:
            self.make_leaf(k)
            self.leaves[k] = [k]
            stats["pruned"] = 1.0
            if recording:
                self._decide(path, PRUNED, options, before, self._snapshot(k))
            return
        if as_branch <= as_tree + 0.1 + WEKA_EPS:
            self._adopt(k, self._copy_raised(kids[largest], k) if raised is None else raised)
            stats["raised"] = 1.0
            if recording:
                self._decide(path, RAISED, options, before, self._snapshot(k))
            self.prune(k, path)
        elif recording:
            self._decide(path, KEPT, options)

    # ---------------------------------------------------------------- subtree raising
    def _raised(self, c: int, k: int) -> float:
        """The error bound of ``c``'s subtree's leaves with ``k``'s rows routed through it
        (fractions refitted to them)."""
        if not self.kids[c]:  # a leaf: the same rows as ``k``, so its class weights
            return sum([self.bound[k]])
        A, R, W = self._down_one_branch(c, k), self.rows[k], self.wts[k]
        if A is None:  # some row goes down several branches: fractions refitted
            A, R, W, _ = route(self, c, R, W, refit=True, leaves=True)
        # A leaf no row reaches has no weight, and a bound of 0 (added as the objects did).
        return sum(self._bounds(self._class_weights(A, R, W, self.leaves[c])))

    def _class_weights(self, A, R, W, nodes: list[int]) -> np.ndarray:
        """The class weights of each of ``nodes`` from the rows routed to them (``A, R,
        W``: node, row, weight; none where no row reaches), each sum in the rows' order."""
        C = self.n_classes
        if self.size * C <= BY_NUMBER:  # indexed by node number directly
            D = np.bincount(A * C + self.y[R], weights=W, minlength=self.size * C)
            return D.reshape(-1, C)[nodes]
        found, slot = np.unique(A, return_inverse=True)
        D = np.bincount(slot * C + self.y[R], weights=W, minlength=len(found) * C)
        where = np.minimum(np.searchsorted(found, nodes), max(len(found) - 1, 0))
        hit = found[where] == np.asarray(nodes) if len(found) else np.zeros(len(nodes), bool)
        out = np.zeros((len(nodes), C))
        out[hit] = D.reshape(-1, C)[where[hit]]
        return out

    def _down_one_branch(self, c: int, k: int) -> np.ndarray | None:
        """The leaf of ``c``'s subtree each of ``k``'s rows reaches, if every row goes down
        one branch at every split (no value missing; its weight, then, never changes); else
        None. Subtree raising's usual case, in a few steps a level."""
        rows = self.rows[k]
        if self.incomplete is not None and self.incomplete[rows].any():
            return None
        leaf = np.full(len(rows), c, dtype=np.intp)
        left, at, r = np.arange(len(rows)), leaf, rows
        while len(left):
            branch = self.branches(at, r)
            if (branch < 0).any():
                return None
            at = self.kid[at, branch]
            leaf[left] = at
            inner = self.nk[at] > 0
            left, at, r = left[inner], at[inner], r[inner]
        return leaf

    def _copy_raised(self, c: int, k: int) -> int:
        """Copies of ``c``'s subtree with ``k``'s rows routed through them (each split's
        fractions refitted to its new rows): the branch raised in ``k``'s place; its root."""
        A, R, W, refits = route(self, c, self.rows[k], self.wts[k], refit=True)
        order, stack = [], [c]  # c's subtree, pre-order
        while stack:
            j = stack.pop()
            order.append(j)
            stack.extend(reversed(self.kids[j]))
        old = np.array(order, dtype=np.intp)
        new = self._extend(len(order))
        copy = dict(zip(order, new.tolist(), strict=True))
        rows, wts, dist = _per_node(self, A, R, W, old)
        self.src[new] = self.src[old]
        self.frac[new] = self.frac[old]
        for j, m in zip(order, new.tolist(), strict=True):
            self.kids.append([copy[i] for i in self.kids[j]])
            self.refitted.append(self.refitted[j])
            self.stats.append(dict(self.stats_of(j)))
            if j in refits:
                self.refitted[m] = refits[j]
                self.frac[m, : len(refits[j])] = refits[j]
        self.nk[new] = self.nk[old]
        self.kid[new] = np.where(self.kid[old] >= 0, _mapped(copy, self.kid[old]), -1)
        self.rows.extend(rows)
        self.wts.extend(wts)
        self.dist = np.concatenate([self.dist[: self.size - len(order)], dist])
        self.bound.extend(self._bounds(dist))
        self.wrong.extend(_wrong_counts(dist))
        self.imp.extend(self.impurity(dist).tolist())
        self.wsum.extend([None] * len(order))
        self.leaves.extend([None] * len(order))
        return copy[c]

    def _adopt(self, k: int, root: int) -> None:
        """``k`` takes the split and children of ``root``, the raised branch's copy (it has
        ``k``'s rows, so ``k``'s own class weights)."""
        self.src[k], self.frac[k], self.refitted[k] = (
            self.src[root],
            self.frac[root],
            self.refitted[root],
        )
        self.kids[k], self.nk[k], self.kid[k] = self.kids[root], self.nk[root], self.kid[root]

    # ---------------------------------------------------------------- the record
    def _decide(self, path, verdict: str, options, before=None, after=None) -> None:
        step = len(self.decisions)
        self.decisions.append(Decision(step, tuple(path), verdict, tuple(options), before, after))

    def _walk_leaves(self, k: int) -> list[int]:
        """``k``'s subtree's leaves as it stands, the last first."""
        out, stack = [], [k]
        while stack:
            j = stack.pop()
            if self.kids[j]:
                stack.extend(self.kids[j])
            else:
                out.append(j)
        return out

    def _share(self, branch: int, k: int, estimate) -> Share:
        leaves = self._walk_leaves(k)
        return Share(
            branch,
            self.weight(k),
            sum(self.wrong[j] for j in leaves),
            float(sum(estimate(j) for j in leaves)),
            len(leaves),
        )

    def _options(self, k: int, estimate, raised: tuple | None = None, branch: int = -1):
        """The leaf and subtree options at ``k`` (and the raised branch's, whose shares are
        ``raised``), each with its shares by branch; ``estimate`` of a node number."""
        leaf = Share(-1, self.weight(k), self.wrong[k], float(estimate(k)), 1)
        options = [PruningOption(LEAF, leaf.estimate, (leaf,))]
        if self.kids[k]:
            parts = tuple(self._share(b, c, estimate) for b, c in enumerate(self.kids[k]))
            options.insert(0, PruningOption(SUBTREE, sum(s.estimate for s in parts), parts))
        if raised is not None:
            options.append(PruningOption(BRANCH, sum(s.estimate for s in raised), raised, branch))
        return options

    def _branch_shares(self, raised: int, estimate) -> tuple[Share, ...]:
        """A raised branch's shares: those of its own branches (itself, if a leaf)."""
        parts = tuple(self._share(b, c, estimate) for b, c in enumerate(self.kids[raised]))
        return parts or (self._share(-1, raised, estimate),)

    def _raised_shares(self, c: int, k: int):
        """:meth:`_raised`'s bound and the raised branch's shares, without copying it, when
        every row of ``k`` goes down one branch at every split of ``c``'s subtree (else
        None for the shares)."""
        rows, wts = self.rows[k], self.wts[k]
        if not self.kids[c]:  # a leaf: ``k``'s rows, so ``k``'s class weights
            as_branch = sum([self.bound[k]])
            counted = sum([self.wrong[k]])
            return as_branch, (Share(-1, self.weight(k), counted, float(as_branch), 1),)
        A = self._down_one_branch(c, k)
        if A is None:
            return None, None
        at_leaves = self._class_weights(A, rows, wts, self.leaves[c])
        bound = dict(zip(self.leaves[c], self._bounds(at_leaves), strict=True))
        wrong = dict(zip(self.leaves[c], _wrong_counts(at_leaves), strict=True))
        first = self.branches(np.full(len(rows), c, dtype=np.intp), rows)
        parts = []
        for b, child in enumerate(self.kids[c]):
            leaves = self._walk_leaves(child)
            parts.append(
                Share(
                    b,
                    float(wts[first == b].sum()),
                    sum(wrong[j] for j in leaves),
                    float(sum(bound[j] for j in leaves)),
                    len(leaves),
                )
            )
        return sum(bound[j] for j in self.leaves[c]), tuple(parts)

    def _snapshot(self, k: int, copy_stats: bool = False) -> Node:
        """``k``'s subtree as it stands, as nodes numbered 0 at depth 0 (a decision's before
        or after); ``copy_stats``: ``k``'s own stats as they are now, not as they will be."""
        order, stack = [], [k]
        while stack:
            j = stack.pop()
            order.append(j)
            stack.extend(reversed(self.kids[j]))
        dist = self.dist[np.array(order, dtype=np.intp)]
        dist.setflags(write=False)
        built: dict[int, Node] = {}
        for p in range(len(order) - 1, -1, -1):
            j = order[p]
            below = tuple(built.pop(c) for c in self.kids[j])
            stats = self.stats_of(j)
            if not below:
                stats = {key: v for key, v in stats.items() if key not in _SCORES}
            elif copy_stats and j == k:
                stats = dict(stats)
            built[j] = Node(
                0,
                0,
                self.weight(j),
                dist[p],
                self.imp[j],
                float("nan"),
                self.split_of(j) if below else None,
                below,
                MappingProxyType(stats),
            )
        return built[k]

    def split_of(self, k: int) -> Split:
        """Node ``k``'s split: its grown node's, with the fractions raising refitted."""
        split = self.flat.node_objects()[self.src[k]].split
        refitted = self.refitted[k]
        return split if refitted is None else replace(split, fractions=refitted)

    def _extend(self, m: int) -> np.ndarray:
        """Room for ``m`` more nodes in the arrays; their numbers."""
        start, self.size = self.size, self.size + m
        if self.size > len(self.src):
            grow = max(self.size, 2 * len(self.src)) - len(self.src)
            self.src = np.concatenate([self.src, np.zeros(grow, dtype=np.intp)])
            self.nk = np.concatenate([self.nk, np.zeros(grow, dtype=self.nk.dtype)])
            self.kid = np.concatenate([self.kid, np.full((grow, self.kid.shape[1]), -1)])
            self.frac = np.concatenate([self.frac, np.zeros((grow, self.frac.shape[1]))])
        return np.arange(start, self.size)


def _leaves_below(leaves: list, kids: list[int]) -> list[int]:
    """A split's leaves from its children's (``leaves[c]``, each pruned already), the last
    first: the order in which the node objects added their figures up."""
    checkpoint()
    out: list[int] = []
    for c in reversed(kids):
        out += leaves[c]
    return out


def _mapped(copy: dict, ids: np.ndarray) -> np.ndarray:
    return np.array([[copy.get(i, -1) for i in row] for row in ids.tolist()], dtype=np.intp)


def route(
    live: _Live,
    start: int,
    rows: np.ndarray,
    weights: np.ndarray,
    refit: bool = False,
    leaves: bool = False,
):
    """``rows`` (in the root's order, with ``weights``) routed down ``start``'s subtree a
    level at a time, as C4.5 routes them: a row missing a split's value (or holding a
    category no branch does) goes down every branch of positive fraction, its weight times
    the fraction. ``refit``: each split's fractions refitted to the rows reaching it first
    (subtree raising's), returned by node as tuples.

    Returns every (node, row, weight) reached, grouped by node (level by level, by node
    within a level), each node's rows in the root's order (so that sums over them add as
    the node objects' did); with ``leaves``, those at leaves only, not grouped (each leaf's
    rows still in order), and fractions refitted only where rows with missing values need
    them."""
    nk, kid = live.nk, live.kid
    at = np.full(len(rows), start, dtype=np.intp)
    r, w = rows, weights
    parts, refits = [], {}
    while True:
        checkpoint()
        inner = nk[at] > 0
        if leaves:
            parts.append((at[~inner], r[~inner], w[~inner]))
        else:
            parts.append((at, r, w))
        at, r, w = at[inner], r[inner], w[inner]
        if not len(at):
            break
        branch = live.branches(at, r)
        missing = branch < 0
        any_missing = bool(missing.any())
        if refit and (any_missing or not leaves):
            fractions = _refits(live, at, branch, w, ~missing, refits)
        if not any_missing:
            at = kid[at, branch]
            continue
        # Each row down its branch, or (missing) down every branch of positive fraction,
        # its weight times the fraction: each row's children in turn, so that every node's
        # rows stay in the root's order.
        frac = fractions[missing] if refit else live.frac[at[missing]]
        down = (frac > 0) & (nk[at[missing]][:, None] > np.arange(kid.shape[1]))
        count = np.ones(len(at), dtype=np.intp)
        count[missing] = down.sum(axis=1)
        entry = np.repeat(np.arange(len(at)), count)
        several = np.repeat(missing, count)
        m_row, m_branch = np.nonzero(down)  # each missing row's branches, in order
        branch = branch[entry]
        branch[several] = m_branch
        w = w[entry]
        w[several] *= frac[m_row, m_branch]
        r, at = r[entry], kid[at[entry], branch]
    if leaves:
        A = np.concatenate([p[0] for p in parts])
        return A, np.concatenate([p[1] for p in parts]), np.concatenate([p[2] for p in parts]), {}
    # A node's rows all reach it at one level: each level sorted by node on its own (Cancel
    # looked at between), the levels one after another.
    for k, (at, r, w) in enumerate(parts):
        checkpoint()
        order = _stable_order(at, live.size)
        parts[k] = (at[order], r[order], w[order])
    checkpoint()
    A = np.concatenate([p[0] for p in parts])
    checkpoint()
    return A, np.concatenate([p[1] for p in parts]), np.concatenate([p[2] for p in parts]), refits


def _stable_order(A: np.ndarray, size: int) -> np.ndarray:
    """The positions sorting node numbers ``A`` (below ``size``), stable, so that each node
    keeps its rows' order. numpy sorts 16-bit keys by radix: past 32,767 nodes, the low
    16 bits and then the high (a stable sort of 64-bit keys took 0.15 s of a 200,000-row
    C4.5 collapse, with no cancellation check inside)."""
    if size < 1 << 15:
        return np.argsort(A.astype(np.int16), kind="stable")
    low = np.argsort((A & 0xFFFF).astype(np.uint16), kind="stable")
    return low[np.argsort((A[low] >> 16).astype(np.uint16), kind="stable")]


def _refits(live: _Live, at, branch, w, known, refits: dict) -> np.ndarray:
    """Each split's fractions refitted to the known weight down each of its branches (the
    rows at it, ``at``), kept in ``refits``; the fractions at each row's node."""
    nodes, inv = np.unique(at, return_inverse=True)
    K = live.kid.shape[1]
    sums = np.bincount(
        inv[known] * K + branch[known], weights=w[known], minlength=len(nodes) * K
    ).reshape(len(nodes), K)
    fractions = live.frac[nodes]
    for u, k in enumerate(nodes.tolist()):
        counts = sums[u, : live.nk[k]]
        total = counts.sum()
        if total > 0:
            refits[k] = tuple(counts / total)
            fractions[u, : len(counts)] = refits[k]
    return fractions[inv]


def _per_node(live: _Live, A, R, W, nodes: np.ndarray):
    """The rows, weights and class weights of each of ``nodes`` (none for a node the
    routing ``A, R, W``, grouped by node, never reached), each sum in the rows' order."""
    starts = np.flatnonzero(np.r_[True, A[1:] != A[:-1]]) if len(A) else np.zeros(0, np.intp)
    checkpoint()
    group = np.full(live.size, -1, dtype=np.intp)
    group[A[starts]] = np.arange(len(starts))
    ends = np.r_[starts[1:], len(A)].astype(np.intp)
    at = group[nodes]
    hit = at >= 0
    first, last = np.zeros(len(nodes), np.intp), np.zeros(len(nodes), np.intp)
    first[hit], last[hit] = starts[at[hit]], ends[at[hit]]
    C = live.n_classes
    # Each node's class weights summed over its rows in order (a bin adds in input order).
    dist = np.bincount(A * C + live.y[R], weights=W, minlength=live.size * C)
    dist = dist.reshape(live.size, C)[nodes]
    rows, wts = [], []
    firsts, lasts = first.tolist(), last.tolist()
    for a in range(0, len(nodes), CHECK_NODES):
        checkpoint()
        b = a + CHECK_NODES
        rows.extend(R[i:j] for i, j in zip(firsts[a:b], lasts[a:b], strict=True))
        wts.extend(W[i:j] for i, j in zip(firsts[a:b], lasts[a:b], strict=True))
    return rows, wts, dist


def to_tree(live: _Live, tree: Tree) -> Tree:
    """The pruned tree's node objects, numbered 0, 1, ... in pre-order from depth 0, with
    its arrays (:func:`engine.flat.flat_of`'s) made from the live ones, not from them."""
    order, depths, parents, stack = [], [], [], [(0, 0, -1)]
    while stack:
        if not len(order) % CHECK_NODES:
            checkpoint()
        k, depth, parent = stack.pop()
        parents.append(parent)
        stack.extend((c, depth + 1, len(order)) for c in reversed(live.kids[k]))
        order.append(k)
        depths.append(depth)
    checkpoint()
    kept = np.array(order, dtype=np.intp)
    flat, m = live.flat, len(order)
    dist = live.dist[kept]
    dist.setflags(write=False)
    impurities = [live.imp[k] for k in order]
    nodes: list[Node | None] = [None] * m
    children = np.full((m, live.kid.shape[1]), -1, dtype=np.intp)
    n_children = np.zeros(m, dtype=np.intp)
    for p in range(1, m):
        q = parents[p]
        children[q, n_children[q]] = p
        n_children[q] += 1
    weight = [live.weight(k) for k in order]
    for p in range(m - 1, -1, -1):  # children before their parent
        if not p & 255:
            checkpoint()
        k = order[p]
        below = tuple(nodes[c] for c in children[p, : n_children[p]].tolist())
        stats = live.stats_of(k)
        if below:
            split = live.split_of(k)
        else:
            split = None
            stats = {key: v for key, v in stats.items() if key not in _SCORES}
        nodes[p] = Node(
            p,
            depths[p],
            weight[p],
            dist[p],
            impurities[p],
            float("nan"),
            split,
            below,
            MappingProxyType(stats),
        )
    pruned = Tree(nodes[0], tree.schema, pseudocounts=tree.pseudocounts, costs=tree.costs)
    inner = n_children > 0
    src = live.src[kept]
    parent = np.array(parents, dtype=np.intp)
    by_threshold = flat.by_threshold[src] & inner
    arrays = FlatTree(
        False,
        parent,
        children,
        n_children,
        np.array(depths, dtype=np.intp),
        np.where(inner, flat.attribute[src], -1),
        by_threshold,
        np.where(by_threshold, flat.threshold[src], np.nan),
        np.where(inner, flat.groups[src], -1),
        flat.lookup,
        np.where(inner[:, None], live.frac[kept], 0.0),
        dist,
        np.array(weight),
        np.array(impurities),
        np.full(m, np.nan),
        tuple(nodes),
        tree.pseudocounts,
    )
    cache_flat(pruned, arrays)
    return pruned
