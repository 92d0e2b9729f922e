"""Routing training (or held-out) rows through a tree while pruning rearranges it.

Pruners turn a :class:`engine.tree.Tree` into live nodes that carry the rows that
reach them, change those, and rebuild an immutable tree: a tree in, a tree out.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType

import numpy as np

from engine.learn.problem import Problem
from engine.monitor import checkpoint
from engine.tree import Node, Split, Tree, partition_rows


@dataclass(eq=False)
class LiveNode:
    """A node with the training rows that reach it, while pruning rearranges the tree.

    Made from counts alone (:func:`counted_live`), ``rows`` is None and ``weights`` holds
    the node's total weight.
    """

    split: Split | None
    children: list[LiveNode]
    rows: np.ndarray | None
    weights: np.ndarray
    dist: np.ndarray
    stats: dict = field(default_factory=dict)

    @property
    def is_leaf(self) -> bool:
        return self.split is None

    def make_leaf(self) -> None:
        self.split, self.children = None, []


def _refit_fractions(split: Split, branch: np.ndarray, weights: np.ndarray) -> Split:
    known = np.bincount(
        branch[branch >= 0], weights=weights[branch >= 0], minlength=split.n_branches
    )
    total = known.sum()
    return split if total <= 0 else replace(split, fractions=tuple(known / total))


def _partition(problem: Problem, split: Split, rows, weights, refit: bool):
    values = problem.data.X[rows, split.attribute]
    branch = split.branch_of(values)
    if refit:  # new fractions, the same branches
        split = _refit_fractions(split, branch, weights)
    X = problem.data.X[rows] if split.surrogates else None  # rpart's stand-ins
    return split, partition_rows(split, values, rows, weights, branch, X)


def attach(problem: Problem, node: Node, rows, weights, refit: bool = False) -> LiveNode:
    """Route ``rows`` through ``node``'s subtree, building live nodes (iteratively)."""
    root = None
    stack = [(node, rows, weights, None)]
    while stack:
        checkpoint()
        n, r, w, parent = stack.pop()
        live = LiveNode(n.split, [], r, w, problem.stats(r, w), dict(n.stats))
        if parent is None:
            root = live
        else:
            parent.children.append(live)
        if n.split is not None:
            live.split, parts = _partition(problem, n.split, r, w, refit)
            stack.extend(
                (c, pr, pw, live)
                for c, (pr, pw) in reversed(list(zip(n.children, parts, strict=True)))
            )
    return root


def counted_live(
    node: Node, stats: np.ndarray | None = None, ids: np.ndarray | None = None
) -> LiveNode:
    """Live nodes from counts, without rows: each node's own training counts, or (``stats``,
    one row per node id, rows ``ids[node.id]`` if given) statistics gathered elsewhere.

    Training over partitions (:mod:`engine.scale`) prunes this way: its rows stay on the
    cluster, and what pruning reads of them (a node's class weights, or a held-out set's
    statistics) is one pass's sums. Nothing here can re-route rows (subtree raising).
    """
    root = None
    stack = [(node, None)]
    while stack:
        n, parent = stack.pop()
        if stats is None:
            dist, weight = np.asarray(n.distribution, dtype=np.float64), n.weight
        else:
            dist = np.asarray(stats[n.id if ids is None else ids[n.id]], dtype=np.float64)
            weight = float(dist[0] if len(dist) == 3 and n.distribution.size == 0 else dist.sum())
        live = LiveNode(n.split, [], None, np.array([weight]), dist.copy(), dict(n.stats))
        if parent is None:
            root = live
        else:
            parent.children.append(live)
        stack.extend((c, live) for c in reversed(n.children))
    return root


def reroute(problem: Problem, live: LiveNode, rows, weights) -> LiveNode:
    """Re-route new rows through a live subtree (fractions refitted to the new data): new
    live nodes of the same shape (a leaf's split scores, if pruning left it any, go when
    the pruned tree is built, :func:`to_node`)."""
    return attach(problem, live, rows, weights, refit=True)


def to_node(problem: Problem, live: LiveNode, numbered: bool = True) -> Node:
    """The immutable subtree of ``live``, numbered 0, 1, ... in pre-order from depth 0 (as
    :func:`engine.tree.renumber` would number it); not ``numbered``, every id and depth 0
    (a pruning record's snapshot)."""
    order, stack = [], [(live, 0)]
    while stack:
        n, depth = stack.pop()
        order.append((n, depth))
        if not len(order) & 1023:
            checkpoint()
        stack.extend((c, depth + 1) for c in reversed(n.children))
    built: dict[int, Node] = {}
    for k in range(len(order) - 1, -1, -1):  # children before their parent
        if not k & 255:
            checkpoint()
        n, depth = order[k]
        children = tuple(built.pop(id(c)) for c in n.children)
        built[id(n)] = _node(problem, n, children, k * numbered, depth * numbered)
    return built[id(live)]


def _node(
    problem: Problem, live: LiveNode, children: tuple[Node, ...], node_id: int, depth: int
) -> Node:
    weight = float(live.weights.sum())
    if problem.regression:
        dist, value = np.zeros(0), live.dist[1] / live.dist[0] if live.dist[0] > 0 else float("nan")
    else:
        dist, value = live.dist.copy(), float("nan")
    dist.setflags(write=False)
    stats = (
        live.stats
        if children
        else {k: v for k, v in live.stats.items() if k not in ("gain", "gain_ratio")}
    )
    return Node(
        node_id,
        depth,
        weight,
        dist,
        float(problem.impurity(live.dist)),
        float(value),
        live.split if children else None,
        children,
        MappingProxyType(stats),
    )


def rebuild(problem: Problem, tree: Tree, live: LiveNode) -> Tree:
    return Tree(
        to_node(problem, live), tree.schema, pseudocounts=tree.pseudocounts, costs=tree.costs
    )


def training_live(problem: Problem, tree: Tree) -> LiveNode:
    data = problem.data
    return attach(problem, tree.root, np.arange(data.n_rows), data.weight.copy())
