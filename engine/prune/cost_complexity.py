"""CART's minimal cost-complexity pruning, one weakest link at a time, as scikit-learn does.

Two measures of a subtree's cost R(T), each plus alpha times its leaves (``MEASURES``):
``impurity``, scikit-learn's total leaf impurity weighted by the leaves' shares of the root's
weight, and ``errors``, seed 001's and Breiman's (and rpart's): the training weight the leaves
misclassify, or for regression their squared errors about the leaf mean. Under ``errors``
alpha is in rows, so rpart's cp is alpha over the root's error (rpart scales by it). With a
cost matrix (``--costs``, the tree's ``costs``), ``errors`` counts each node's expected cost
as a leaf labelled with its class of least expected cost, min_j sum_k n_k C[k, j] (rpart's
risk with a loss matrix); alpha is then in units of cost.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from engine.compiling import lifecycle as compilation
from engine.flat import FlatTree, flat_of
from engine.monitor import checkpoint
from engine.sums import weighted_columns
from engine.tree import Tree


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


#: What R(T) counts: see the module's note.
MEASURES = ("impurity", "errors")


def node_risk(flat: FlatTree, measure: str = "impurity", costs=()) -> np.ndarray:
    """R(t) of every node as a leaf, in ``measure``'s units (see the module's note); under
    ``errors`` with a cost matrix ``costs``, its least expected cost."""
    if measure not in MEASURES:
        raise ValueError(f"unknown cost-complexity measure {measure!r}")
    if measure == "impurity":
        total = float(flat.weight[0])
        return flat.impurity * flat.weight / total if total else np.zeros(flat.n_nodes)
    if flat.regression:  # a node's squared errors about its mean: its variance times its weight
        return flat.impurity * flat.weight
    counts = flat.distribution
    if len(costs):
        return weighted_columns(counts, costs).min(axis=1)
    return counts.sum(axis=1) - counts.max(axis=1)


def _subtree_arrays(flat: FlatTree, measure: str = "impurity", costs=()):
    """Per node: parent, end of subtree, R(t) (:func:`node_risk`), whether a leaf, and the
    share of the root's weight it misclassifies (0: regression)."""
    total = float(flat.weight[0])
    r_node = node_risk(flat, measure, costs)
    e_node = np.zeros(flat.n_nodes)
    if not (flat.regression or not total):
        counts = flat.distribution
        e_node = (counts.sum(axis=1) - counts.max(axis=1)) / total
    return flat.parent, flat.end, r_node, flat.is_leaf, e_node


class _Steps(NamedTuple):
    """The weakest-link steps, one row each (the first: the unpruned tree)."""

    alphas: np.ndarray
    pruned: np.ndarray
    impurities: np.ndarray
    n_leaves: np.ndarray
    errors: np.ndarray


def _weakest_links(
    flat: FlatTree, stop_alpha: float | None = None, measure: str = "impurity", costs=()
):
    """The pruning steps (:class:`_Steps`: alpha, node id, total leaf impurity, leaves and
    training error, a row each), which nodes are left and which are leaves after the last.

    The weakest link comes off a heap keyed by (alpha, node id), so ties go to the
    lowest id as with an argmin over the nodes in order; pruning a node only raises its
    ancestors' alphas, and one popped below its current alpha goes back in at that
    (engine/fast/weakest.py says why the order is the same as pushing every change).
    """
    checkpoint()
    parent, end, r_node, leaf, e_node = _subtree_arrays(flat, measure, costs)
    if compilation.is_ready():  # the same loop compiled (engine/fast/weakest.py)
        return _compiled_links(parent, end, r_node, leaf, e_node, stop_alpha)
    n = flat.n_nodes
    # Both loops below run once per node (the second walks up to the root each time): plain
    # lists, whose element reads and writes cost a tenth of a numpy array's (same arithmetic).
    is_leaf = leaf.tolist()
    parent_l, end_l, r_node_l, e_node_l = (
        parent.tolist(),
        end.tolist(),
        r_node.tolist(),
        e_node.tolist(),
    )
    n_leaves_l = [1.0 if k else 0.0 for k in is_leaf]
    r_branch_l = [r if k else 0.0 for r, k in zip(r_node_l, is_leaf, strict=True)]
    e_branch_l = [e if k else 0.0 for e, k in zip(e_node_l, is_leaf, strict=True)]
    for i in range(n - 1, 0, -1):  # children after their parent: sums reach it complete
        if not i & 1023:
            checkpoint()
        p = parent_l[i]
        n_leaves_l[p] += n_leaves_l[i]
        r_branch_l[p] += r_branch_l[i]
        e_branch_l[p] += e_branch_l[i]
    n_leaves, r_branch = np.array(n_leaves_l), np.array(r_branch_l)
    in_tree = bytearray(b"\x01") * n
    steps = [(0.0, -1, r_branch_l[0], n_leaves_l[0], e_branch_l[0])]
    inner = np.flatnonzero(~leaf)
    with np.errstate(divide="ignore", invalid="ignore"):
        start = (r_node[inner] - r_branch[inner]) / (n_leaves[inner] - 1)
    latest = dict(zip(inner.tolist(), start.tolist(), strict=True))
    queued = dict(latest)  # each node's alpha in the heap (its other pairs: obsolete)
    heap = [(a, i) for i, a in latest.items()]
    heapq.heapify(heap)
    popped = 0
    while heap:
        popped += 1
        if not popped & 255:
            checkpoint()
        alpha, i = heapq.heappop(heap)
        if is_leaf[i] or not in_tree[i] or queued[i] != alpha:
            continue  # pruned already, inside a pruned subtree, or left behind
        if latest[i] != alpha:  # raised since (pruning below only raises it): back in
            queued[i] = latest[i]
            heapq.heappush(heap, (latest[i], i))
            continue
        if stop_alpha is not None and alpha > stop_alpha:
            break
        in_tree[i + 1 : end_l[i]] = bytes(end_l[i] - i - 1)
        is_leaf[i] = True
        d_leaves, d_r, d_e = (
            n_leaves_l[i] - 1,
            r_branch_l[i] - r_node_l[i],
            e_branch_l[i] - e_node_l[i],
        )
        a = i
        while a >= 0:
            n_leaves_l[a] -= d_leaves
            r_branch_l[a] -= d_r
            e_branch_l[a] -= d_e
            if a != i:
                gap = n_leaves_l[a] - 1
                latest[a] = (r_node_l[a] - r_branch_l[a]) / gap if gap else float("inf")
                if latest[a] < queued[a]:  # lowered by a rounding: pushed at once
                    queued[a] = latest[a]
                    heapq.heappush(heap, (latest[a], a))
            a = parent_l[a]
        steps.append((alpha, i, r_branch_l[0], n_leaves_l[0], e_branch_l[0]))
    in_tree = np.frombuffer(bytes(in_tree), dtype=np.uint8).astype(bool)
    is_leaf = np.array(is_leaf, dtype=bool)
    alphas, nodes, imp, leaves, errors = zip(*steps, strict=True)
    return (
        _Steps(
            np.array(alphas), np.array(nodes), np.array(imp), np.array(leaves), np.array(errors)
        ),
        in_tree,
        is_leaf,
    )


def _compiled_links(parent, end, r_node, leaf, e_node, stop_alpha):
    from engine.fast.weakest import weakest_links

    stop = np.inf if stop_alpha is None else float(stop_alpha)
    alphas, nodes, imp, leaves, errors, n, in_tree, is_leaf = weakest_links(
        *(np.ascontiguousarray(a, dtype=np.intp) for a in (parent, end)),
        *(np.ascontiguousarray(a, dtype=np.float64) for a in (r_node, e_node)),
        np.ascontiguousarray(leaf, dtype=bool),
        stop,
    )
    return _Steps(alphas[:n], nodes[:n], imp[:n], leaves[:n], errors[:n]), in_tree, is_leaf


def cost_complexity_path(tree: Tree | FlatTree, measure: str = "impurity", costs=()) -> PruningPath:
    """Every weakest-link step down to the root alone (scikit-learn's
    ``cost_complexity_pruning_path`` under ``impurity``; ``impurities`` are then R(T) in
    ``measure``'s units)."""
    flat = tree if isinstance(tree, FlatTree) else flat_of(tree)
    # Kept with the tree's arrays, read-only: CART's fit searched its tree's path to choose
    # alpha and Train searched it again for the pruning slider.
    key = (
        measure,
        tuple(map(tuple, np.asarray(costs, dtype=np.float64).tolist())) if len(costs) else (),
    )
    kept = flat.__dict__.setdefault("_paths", {})
    if key in kept:
        return kept[key]
    steps, _, _ = _weakest_links(flat, measure=measure, costs=costs)
    path = PruningPath(
        steps.alphas,
        steps.impurities,
        steps.n_leaves.astype(int),
        steps.pruned.astype(np.intp),
        steps.errors,
    )
    for array in (path.alphas, path.impurities, path.n_leaves, path.pruned, path.errors):
        array.setflags(write=False)
    kept[key] = path
    return path


def prune_cost_complexity(tree: Tree, alpha: float, measure: str = "impurity", costs=None) -> Tree:
    """The smallest subtree minimising R(T) + alpha * |leaves(T)| (R in ``measure``'s units;
    ``costs``, by default the tree's cost matrix, counts R under ``errors`` in cost)."""
    flat = flat_of(tree)
    costs = tree.costs if costs is None else costs
    _, _, is_leaf = _weakest_links(flat, stop_alpha=alpha, measure=measure, costs=costs)
    return flat.cut(is_leaf, tree.schema, tree.costs)


def prune_along(tree: Tree, path: PruningPath, alpha: float) -> Tree:
    """:func:`prune_cost_complexity` of ``tree`` at ``alpha`` from its ``path`` (in the tree's
    own cost matrix, as that prunes): the steps before the first whose alpha is above
    ``alpha``, which that search stops at, without searching again."""
    above = np.flatnonzero(path.alphas[1:] > alpha)
    return prune_to_step(tree, path, int(above[0]) if len(above) else len(path.alphas) - 1)


def prune_to_step(tree: Tree, path: PruningPath, step: int) -> Tree:
    """``tree`` after the first ``step`` cuts of its ``path`` (no new search: for a slider)."""
    flat = flat_of(tree)
    is_leaf = flat.is_leaf.copy()
    is_leaf[path.pruned[1 : step + 1]] = True
    return flat.cut(is_leaf, tree.schema, tree.costs)
