"""Pruning: functions that take a tree (and its training data) and return a new tree.

* ``collapse`` and ``prune_pessimistic``: C4.5's error-based pruning as J48
  does it (seed 001's three options per node: keep, leaf, raise the most
  populated branch), with the bound from :mod:`engine.bounds`.
* ``cost_complexity_path`` / ``prune_cost_complexity``: CART's minimal
  cost-complexity pruning, one weakest link at a time, as scikit-learn does.
* ``prune_reduced_error``: replace a subtree by a leaf whenever that does not
  add errors on held-out rows (seed 004's validation set).
"""

from __future__ import annotations

import heapq
import sys
from dataclasses import dataclass, field, replace
from types import MappingProxyType

import numpy as np

from engine.bounds import estimated_errors
from engine.encoding import Encoded
from engine.monitor import NULL_MONITOR, Monitor
from engine.settings import Settings
from engine.splitting import WEKA_EPS, Problem
from engine.tree import Node, Split, Tree, partition_rows, renumber

# ----------------------------------------------------------------- data routing


@dataclass(eq=False)
class _Live:
    """A node with the training rows that reach it, while pruning rearranges the tree."""

    split: Split | None
    children: list[_Live]
    rows: np.ndarray
    weights: np.ndarray
    dist: np.ndarray
    stats: dict = field(default_factory=dict)

    @property
    def is_leaf(self) -> bool:
        return self.split is None

    def make_leaf(self) -> None:
        self.split, self.children = None, []


def _refit_fractions(split: Split, branch: np.ndarray, weights: np.ndarray) -> Split:
    known = np.bincount(branch[branch >= 0], weights=weights[branch >= 0], minlength=split.n_branches)
    total = known.sum()
    return split if total <= 0 else replace(split, fractions=tuple(known / total))


def _partition(problem: Problem, split: Split, rows, weights, refit: bool):
    values = problem.data.X[rows, split.attribute]
    if refit:
        split = _refit_fractions(split, split.branch_of(values), weights)
    return split, partition_rows(split, values, rows, weights)


def _attach(problem: Problem, node: Node, rows, weights, refit: bool = False) -> _Live:
    """Route ``rows`` through ``node``'s subtree, building live nodes (iteratively)."""
    root = None
    stack = [(node, rows, weights, None)]
    while stack:
        n, r, w, parent = stack.pop()
        live = _Live(n.split, [], r, w, problem.stats(r, w), dict(n.stats))
        if parent is None:
            root = live
        else:
            parent.children.append(live)
        if n.split is not None:
            live.split, parts = _partition(problem, n.split, r, w, refit)
            stack.extend((c, pr, pw, live) for c, (pr, pw) in reversed(list(zip(n.children, parts, strict=True))))
    return root


def _live_from_live(problem: Problem, live: _Live, rows, weights) -> _Live:
    """Re-route new rows through a live subtree (fractions refitted to the new data)."""
    return _attach(problem, _to_node(problem, live), rows, weights, refit=True)


def _to_node(problem: Problem, live: _Live) -> Node:
    order, stack = [], [live]
    while stack:
        n = stack.pop()
        order.append(n)
        stack.extend(n.children)
    built: dict[int, Node] = {}
    for n in reversed(order):
        children = tuple(built.pop(id(c)) for c in n.children)
        built[id(n)] = _node(problem, n, children)
    return built[id(live)]


def _node(problem: Problem, live: _Live, children: tuple[Node, ...]) -> Node:
    weight = float(live.weights.sum())
    if problem.regression:
        dist, value = np.zeros(0), live.dist[1] / live.dist[0] if live.dist[0] > 0 else float("nan")
    else:
        dist, value = live.dist.copy(), float("nan")
    dist.setflags(write=False)
    stats = live.stats if children else {k: v for k, v in live.stats.items()
                                         if k not in ("gain", "gain_ratio")}
    return Node(0, 0, weight, dist, float(problem.impurity(live.dist)), float(value),
                live.split if children else None, children, MappingProxyType(stats))


def _rebuild(problem: Problem, tree: Tree, live: _Live) -> Tree:
    return Tree(renumber(_to_node(problem, live)), tree.schema)


def _training_live(problem: Problem, tree: Tree) -> _Live:
    data = problem.data
    return _attach(problem, tree.root, np.arange(data.n_rows), data.weight.copy())


# ----------------------------------------------------------------- C4.5


def _wrong(dist: np.ndarray) -> float:
    return float(dist.sum() - dist.max()) if dist.sum() > 0 else 0.0


def _leaves(live: _Live):
    stack = [live]
    while stack:
        n = stack.pop()
        if n.is_leaf:
            yield n
        else:
            stack.extend(n.children)


def collapse(problem: Problem, live: _Live) -> None:
    """Turn a split into a leaf when its leaves make no fewer training errors than it would."""
    stack = [live]
    while stack:
        n = stack.pop()
        if n.is_leaf:
            continue
        if sum(_wrong(leaf.dist) for leaf in _leaves(n)) >= _wrong(n.dist) - 1e-3:
            n.make_leaf()
        else:
            stack.extend(n.children)


class _Pessimistic:
    def __init__(self, problem: Problem, settings: Settings, monitor: Monitor):
        self.problem, self.cf = problem, settings.confidence
        self.method, self.raising = settings.error_estimate, settings.subtree_raising
        self.monitor = monitor

    def leaf_errors(self, dist: np.ndarray) -> float:
        return estimated_errors(float(dist.sum()), _wrong(dist), self.cf, self.method)

    def tree_errors(self, live: _Live) -> float:
        return sum(self.leaf_errors(leaf.dist) for leaf in _leaves(live))

    def prune(self, live: _Live) -> None:
        if live.is_leaf:
            live.stats["error_as_leaf"] = self.leaf_errors(live.dist)
            return
        self.monitor.check()
        for child in live.children:
            self.prune(child)
        sizes = np.array([float(c.weights.sum()) for c in live.children])
        # J48 raises the last of equally populated branches (its maxBag keeps the last tie).
        largest = int(np.flatnonzero(sizes >= sizes.max() - WEKA_EPS)[-1])
        as_leaf = self.leaf_errors(live.dist)
        as_tree = self.tree_errors(live)
        raised = None
        as_branch = np.inf
        if self.raising:
            raised = _live_from_live(self.problem, live.children[largest], live.rows, live.weights)
            as_branch = self.tree_errors(raised)
        live.stats.update(error_as_leaf=as_leaf, error_as_subtree=as_tree)
        if self.raising:
            live.stats["error_as_branch"] = as_branch
        if as_leaf <= as_tree + 0.1 + WEKA_EPS and as_leaf <= as_branch + 0.1 + WEKA_EPS:
            live.make_leaf()
            live.stats["pruned"] = 1.0
            return
        if as_branch <= as_tree + 0.1 + WEKA_EPS:
            live.split, live.children = raised.split, raised.children
            live.stats["raised"] = 1.0
            self.prune(live)


def prune_pessimistic(tree: Tree, data: Encoded, settings: Settings,
                      monitor: Monitor = NULL_MONITOR) -> Tree:
    """C4.5 / J48 pruning: collapse, then keep / leaf / raise by the upper error bound."""
    problem = Problem(data, settings)
    live = _training_live(problem, tree)
    collapse(problem, live)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * tree.depth + 1000))
    try:
        _Pessimistic(problem, settings, monitor).prune(live)
    finally:
        sys.setrecursionlimit(limit)
    return _rebuild(problem, tree, live)


def collapse_tree(tree: Tree, data: Encoded, settings: Settings) -> Tree:
    """Only C4.5's collapse step (what J48 does even when pruning is off)."""
    problem = Problem(data, settings)
    live = _training_live(problem, tree)
    collapse(problem, live)
    return _rebuild(problem, tree, live)


# ----------------------------------------------------------------- CART


@dataclass(frozen=True)
class PruningPath:
    """The nested subtrees of minimal cost-complexity pruning, weakest link first.

    ``alphas[k]`` is the effective alpha at which step k happens (the first is
    0, the unpruned tree); ``impurities[k]`` the total leaf impurity (weighted
    by node share) and ``n_leaves[k]`` the leaves after it; ``pruned[k]`` the
    node id cut at step k (-1 for the first); ``errors[k]`` the share of the
    training weight the leaves then misclassify (0 for regression trees).
    """

    alphas: np.ndarray
    impurities: np.ndarray
    n_leaves: np.ndarray
    pruned: np.ndarray
    errors: np.ndarray


def _subtree_arrays(tree: Tree):
    nodes = list(tree.nodes())  # ids are pre-order positions
    n = len(nodes)
    parent = np.full(n, -1)
    end = np.arange(1, n + 1)  # one past the last descendant, in pre-order
    for node in nodes:
        for c in node.children:
            parent[c.id] = node.id
    for node in reversed(nodes):
        if node.children:
            end[node.id] = end[node.children[-1].id]
    total = tree.root.weight
    r_node = np.array([nd.impurity * nd.weight / total for nd in nodes])
    leaf = np.array([nd.is_leaf for nd in nodes])
    if tree.is_regression or not total:
        e_node = np.zeros(n)
    else:
        e_node = np.array([nd.distribution.sum() - nd.distribution.max() for nd in nodes]) / total
    return nodes, parent, end, r_node, leaf, e_node


def _weakest_links(tree: Tree, stop_alpha: float | None = None):
    """(alpha, node id, total leaf impurity, leaves, training error) per pruning step; last state returned.

    The weakest link comes off a heap keyed by (alpha, node id), so ties go to the
    lowest id as with an argmin over the nodes in order; pruning a node changes only
    its ancestors' alphas, which are pushed again (the stale entries are skipped).
    """
    nodes, parent, end, r_node, leaf, e_node = _subtree_arrays(tree)
    n = len(nodes)
    n_leaves = leaf.astype(np.float64)
    r_branch = np.where(leaf, r_node, 0.0)
    e_branch = np.where(leaf, e_node, 0.0)
    for i in range(n - 1, -1, -1):
        if parent[i] >= 0:
            n_leaves[parent[i]] += n_leaves[i]
            r_branch[parent[i]] += r_branch[i]
            e_branch[parent[i]] += e_branch[i]
    in_tree = np.ones(n, dtype=bool)
    is_leaf = leaf.copy()
    steps = [(0.0, -1, r_branch[0], n_leaves[0], e_branch[0])]
    inner = np.flatnonzero(~leaf)
    with np.errstate(divide="ignore", invalid="ignore"):
        start = (r_node[inner] - r_branch[inner]) / (n_leaves[inner] - 1)
    latest = dict(zip(inner.tolist(), start.tolist(), strict=True))
    heap = [(a, i) for i, a in latest.items()]
    heapq.heapify(heap)
    while heap:
        alpha, i = heapq.heappop(heap)
        if is_leaf[i] or not in_tree[i] or latest[i] != alpha:
            continue  # pruned already, inside a pruned subtree, or superseded
        if stop_alpha is not None and alpha > stop_alpha:
            break
        in_tree[i + 1:end[i]] = False
        is_leaf[i] = True
        d_leaves, d_r, d_e = n_leaves[i] - 1, r_branch[i] - r_node[i], e_branch[i] - e_node[i]
        a = i
        while a >= 0:
            n_leaves[a] -= d_leaves
            r_branch[a] -= d_r
            e_branch[a] -= d_e
            if a != i:
                latest[a] = float((r_node[a] - r_branch[a]) / (n_leaves[a] - 1))
                heapq.heappush(heap, (latest[a], a))
            a = parent[a]
        steps.append((alpha, i, r_branch[0], n_leaves[0], e_branch[0]))
    return steps, in_tree, is_leaf


def cost_complexity_path(tree: Tree) -> PruningPath:
    """Every weakest-link step down to the root alone (scikit-learn's ``cost_complexity_pruning_path``)."""
    steps, _, _ = _weakest_links(tree)
    alphas, pruned, imp, leaves, errors = zip(*steps, strict=True)
    return PruningPath(np.array(alphas), np.array(imp), np.array(leaves, dtype=int), np.array(pruned),
                       np.array(errors))


def _cut(tree: Tree, is_leaf: np.ndarray) -> Tree:
    """A copy of ``tree`` in which the nodes flagged in ``is_leaf`` lose their subtrees."""
    built: dict[int, Node] = {}
    for node in reversed(list(tree.nodes())):
        if is_leaf[node.id] and not node.is_leaf:
            stats = {k: v for k, v in node.stats.items() if k not in ("gain", "gain_ratio")}
            built[node.id] = replace(node, split=None, children=(),
                                     stats=MappingProxyType({**stats, "pruned": 1.0}))
        else:
            built[node.id] = replace(node, children=tuple(built[c.id] for c in node.children))
    return Tree(renumber(built[tree.root.id]), tree.schema)


def prune_cost_complexity(tree: Tree, alpha: float) -> Tree:
    """The smallest subtree minimising R(T) + alpha * |leaves(T)|."""
    _, _, is_leaf = _weakest_links(tree, stop_alpha=alpha)
    return _cut(tree, is_leaf)


def prune_to_step(tree: Tree, path: PruningPath, step: int) -> Tree:
    """``tree`` after the first ``step`` cuts of its ``path`` (no new search: for a slider)."""
    is_leaf = np.array([n.is_leaf for n in tree.nodes()])
    is_leaf[path.pruned[1:step + 1]] = True
    return _cut(tree, is_leaf)


# ----------------------------------------------------------------- reduced error


def holdout_split(y: np.ndarray | None, n: int, fraction: float, seed: int):
    """Stratified (for classes) random split of range(n) into (grow, prune) row indices."""
    rng = np.random.default_rng(seed)
    groups = [np.arange(n)] if y is None else [np.flatnonzero(y == c) for c in np.unique(y)]
    held = []
    for g in groups:
        g = rng.permutation(g)
        held.append(g[: int(round(fraction * len(g)))])
    prune_rows = np.sort(np.concatenate(held)) if held else np.array([], dtype=int)
    mask = np.ones(n, dtype=bool)
    mask[prune_rows] = False
    return np.flatnonzero(mask), prune_rows


def prune_reduced_error(tree: Tree, data: Encoded, prune_rows: np.ndarray,
                        monitor: Monitor = NULL_MONITOR) -> Tree:
    """Bottom-up: make a node a leaf when that does not increase errors on ``prune_rows``."""
    problem = Problem(data, Settings(algorithm="cart", criterion="gini", prune="none"))
    if tree.is_regression:
        problem = Problem(data, Settings(algorithm="cart", criterion="squared_error",
                                         task="regression", prune="none"))
    held = _attach(problem, tree.root, prune_rows, data.weight[prune_rows].copy())
    grown = list(tree.nodes())
    order, stack = [], [(held, grown[0])]
    while stack:
        live, node = stack.pop()
        order.append((live, node))
        stack.extend(zip(live.children, node.children, strict=True))
    cut = np.zeros(len(grown), dtype=bool)
    loss: dict[int, float] = {}
    for live, node in reversed(order):
        monitor.check()
        as_leaf = _holdout_loss(problem, live, node)
        if node.is_leaf:
            loss[node.id] = as_leaf
            continue
        as_tree = sum(loss[c.id] for c in node.children)
        if as_leaf <= as_tree + 1e-12:
            cut[node.id] = True
            loss[node.id] = as_leaf
        else:
            loss[node.id] = as_tree
    return _cut(tree, cut)


def _holdout_loss(problem: Problem, live: _Live, node: Node) -> float:
    """Held-out errors (or squared error) if ``node`` predicted from its training counts."""
    if problem.regression:
        y = problem.data.y[live.rows]
        return float(live.weights @ (y - node.value) ** 2) if len(y) else 0.0
    if node.weight <= 0:
        return 0.0
    return float(live.dist.sum() - live.dist[int(np.argmax(node.distribution))])


# ----------------------------------------------------------------- dispatch


def prune_for(tree: Tree, data: Encoded, settings: Settings, monitor: Monitor = NULL_MONITOR) -> Tree:
    """Apply pessimistic or cost-complexity pruning as ``settings`` ask.

    C4.5 always collapses splits that do not lower training error, as J48 does
    even when pruning is off. Reduced-error pruning needs rows the tree was not
    grown on, so :func:`engine.fitting.fit_tree` handles it.
    """
    if settings.prune == "pessimistic":
        return prune_pessimistic(tree, data, settings, monitor)
    if settings.algorithm == "c45":
        tree = collapse_tree(tree, data, settings)
    if settings.prune == "cost-complexity":
        if settings.cv_alpha:
            from engine.alpha import choose_alpha

            alpha = choose_alpha(tree, data, settings, monitor).chosen_alpha
        else:
            alpha = settings.alpha or 0.0
        return prune_cost_complexity(tree, alpha)
    return tree
