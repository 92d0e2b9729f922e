"""Pruning a tree grown over partitions, from counts (its rows stay on the cluster).

- C4.5's collapse and pessimistic pruning read only each node's training class weights,
  which the tree holds (subtree raising would re-route the rows: it is switched off, with a
  note);
- reduced-error pruning reads each node's statistics of the held-out rows: one pass routes
  them through the tree and sums them per node;
- cost-complexity at a given ``--alpha`` reads the tree alone; without one, alpha is the
  one whose subtree makes the fewest errors on the held-out rows (the same pass), and with
  ``--one-se`` the largest alpha within one standard error of that (Breiman et al.'s rule,
  on a held-out set instead of cross-validation).
"""

from __future__ import annotations

import numpy as np

from engine.data.encoding import without_rows
from engine.fast.partitions import BY_GROUP, BY_THRESHOLD, Route
from engine.learn.costs import least_cost
from engine.prune.cost_complexity import cost_complexity_path, prune_cost_complexity
from engine.prune.pessimistic import collapse_tree, prune_pessimistic
from engine.prune.reduced_error import prune_reduced_error
from engine.prune.routing import counted_live
from engine.scale.tasks import node_sums
from engine.settings import Settings
from engine.sums import dot
from engine.tree import THRESHOLD, Tree


def tree_route(tree: Tree) -> tuple[Route, np.ndarray]:
    """The tree as a :class:`engine.fast.partitions.Route` (children consecutive), and the
    route position of each node id."""
    nodes = list(tree.nodes())
    order, k = [tree.root], 0
    child0, n_children, rule, attr, thr, frac, group_at, groups = [], [], [], [], [], [], [], []
    fraction_of = {tree.root.id: 1.0}
    while k < len(order):
        node = order[k]
        k += 1
        frac.append(fraction_of[node.id])
        split = node.split
        if split is None:
            child0.append(0)
            n_children.append(0)
            rule.append(BY_THRESHOLD)
            attr.append(-1)
            thr.append(0.0)
            group_at.append(0)
            continue
        child0.append(len(order))
        n_children.append(len(node.children))
        attr.append(split.attribute)
        for c, f in zip(node.children, split.fractions, strict=True):
            fraction_of[c.id] = f
        order.extend(node.children)
        if split.kind == THRESHOLD:
            rule.append(BY_THRESHOLD)
            thr.append(float(split.threshold))
            group_at.append(0)
            continue
        rule.append(BY_GROUP)
        thr.append(0.0)
        size = len(tree.schema.attributes[split.attribute].categories)
        lookup = np.full(size, -1, np.int64)
        for b, members in enumerate(split.groups):
            lookup[list(members)] = b
        group_at.append(len(groups))
        groups.extend(lookup.tolist())
    position = np.empty(len(nodes), np.int64)
    for at, node in enumerate(order):
        position[node.id] = at
    ints = lambda v: np.array(v, dtype=np.int64)  # noqa: E731
    n = len(order)
    route = Route(
        ints(rule),
        ints(attr),
        np.zeros(n, np.int64),
        np.array(thr, np.float64),
        ints(child0),
        ints(n_children),
        np.array(frac, np.float64),
        ints(group_at),
        np.full(n, -1, np.int64),
        ints(groups or [0]),
    )
    return route, position


def held_statistics(tree: Tree, parts) -> tuple[np.ndarray, int]:
    """Per node id, the statistics of the held-out rows that pass it; and their number."""
    route, position = tree_route(tree)
    S = 3 if tree.is_regression else len(tree.schema.classes)
    found = parts.map_held(node_sums, route, S, message="routing the held-out rows")
    rows = sum(n for n, _ in found)
    stats = np.sum([s for _, s in found], axis=0) if found else np.zeros((len(position), S))
    return stats[position], int(rows)


def _leaf_loss(tree: Tree, held: np.ndarray) -> np.ndarray:
    """Held-out loss per node id were it a leaf: misclassified weight (with the tree's cost
    matrix, the cost of its least-cost class), or squared error."""
    out = np.zeros(len(held))
    costs = np.asarray(tree.costs, dtype=np.float64) if tree.costs else None
    for node in tree.nodes():
        s = held[node.id]
        if tree.is_regression:
            v = node.value
            out[node.id] = max(s[2] - 2 * v * s[1] + v * v * s[0], 0.0) if s[0] > 0 else 0.0
        elif node.weight > 0 and costs is not None:
            out[node.id] = dot(s, costs[:, least_cost(node.distribution, costs)[1]])
        elif node.weight > 0:
            out[node.id] = s.sum() - s[int(np.argmax(node.distribution))]
    return out


def held_out_alpha(tree: Tree, held: np.ndarray, one_se: bool, measure: str = "impurity") -> float:
    """The alpha of the pruning path (in ``measure``'s units) whose subtree loses least on
    the held-out rows."""
    path = cost_complexity_path(tree, measure, tree.costs)
    nodes = list(tree.nodes())
    parent = np.full(len(nodes), -1)
    for node in nodes:
        for c in node.children:
            parent[c.id] = node.id
    leaf = _leaf_loss(tree, held)
    now = leaf.copy()  # each subtree's loss as pruning leaves it
    for node in reversed(nodes):
        if node.children:
            now[node.id] = sum(now[c.id] for c in node.children)
    losses = [now[tree.root.id]]
    for cut in path.pruned[1:]:
        delta = leaf[cut] - now[cut]
        a = int(cut)
        while a >= 0:
            now[a] += delta
            a = parent[a]
        losses.append(now[tree.root.id])
    n = float(held[tree.root.id].sum()) if not tree.is_regression else float(held[tree.root.id][0])
    error = np.array(losses) / max(n, 1e-300)
    best = float(error.min())
    limit = best + 1e-12
    if one_se and not tree.is_regression and n > 0:
        limit = best + float(np.sqrt(best * (1 - best) / n))
    k = int(np.flatnonzero(error <= limit)[-1])  # the smallest tree within the limit
    return float(path.alphas[k])


def prune_partitions(tree: Tree, settings: Settings, parts, record: bool = False):
    """``(pruned tree, held-out rows used, alpha chosen)`` as the settings ask."""
    method = settings.prune
    if settings.algorithm == "c45" and method != "pessimistic":
        tree = collapse_tree(tree, None, settings)
    if method == "pessimistic":
        return prune_pessimistic(tree, None, settings, parts.monitor, record), 0, None
    if method == "cost-complexity":
        if settings.alpha is not None:
            pruned = prune_cost_complexity(tree, settings.alpha, settings.ccp_measure)
            return pruned, 0, settings.alpha
        held, rows = held_statistics(tree, parts)
        alpha = held_out_alpha(tree, held, settings.one_se, settings.ccp_measure)
        return prune_cost_complexity(tree, alpha, settings.ccp_measure), rows, alpha
    if method == "reduced-error":
        held, rows = held_statistics(tree, parts)
        live = counted_live(tree.root, held)
        pruned = prune_reduced_error(
            tree, without_rows(tree.schema), None, parts.monitor, record, held=live
        )
        return pruned, rows, None
    return tree, 0, None
