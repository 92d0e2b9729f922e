"""Building and pruning a tree by hand: every edit returns a new tree.

Node ids are pre-order positions, so they change when the tree changes; each
function returns the new tree and the edit's node keeps the position the
caller can find again with ``Tree.path_to`` / branch indices.
"""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

import numpy as np

from engine.data.encoding import Encoded
from engine.errors import ArborError
from engine.learn.drafts import freeze, make_draft, partition
from engine.learn.explain import node_rows, used_on_path
from engine.learn.problem import Candidate, Problem
from engine.learn.splitting import score_all, scorer_for
from engine.settings import Settings
from engine.tree import SUBSET, THRESHOLD, Node, Split, Tree, renumber


def replace_subtree(tree: Tree, node_id: int, subtree: Node) -> Tree:
    """A new tree with the node ``node_id`` replaced by ``subtree``."""
    path = tree.path_to(node_id)
    new = subtree
    for ancestor, branch in reversed(path[:-1]):
        children = list(ancestor.children)
        children[branch] = new
        new = replace(ancestor, children=tuple(children))
    return Tree(renumber(new), tree.schema, pseudocounts=tree.pseudocounts, costs=tree.costs)


def make_leaf(tree: Tree, node_id: int) -> Tree:
    """Prune by hand: the node keeps its counts and loses its subtree."""
    node = tree.node(node_id)
    if node.is_leaf:
        return tree
    stats = {k: v for k, v in node.stats.items() if k not in ("gain", "gain_ratio")}
    return replace_subtree(
        tree, node_id, replace(node, split=None, children=(), stats=MappingProxyType(stats))
    )


def ranked_splits(tree: Tree, data: Encoded, settings: Settings, node_id: int) -> list[Candidate]:
    """Every admissible split at ``node_id``, best first by the settings' criterion."""
    rows, weights = node_rows(tree, data, node_id, settings)
    problem = Problem(data, settings)
    exclude = used_on_path(tree, node_id) if not settings.binary else frozenset()
    found = [c for c in score_all(problem, rows, weights, exclude) if c is not None]
    key = (lambda c: c.gain_ratio) if settings.criterion == "gain_ratio" else (lambda c: c.gain)
    return sorted(found, key=key, reverse=True)


def _forced(problem: Problem, attribute: int, rows, weights, threshold, groups) -> Candidate:
    """The candidate for a split the user chose (their threshold or groups, or the best)."""
    attr = problem.data.schema.attributes[attribute]
    if threshold is None and groups is None:
        found = scorer_for(problem.settings, attr.is_nominal)(
            problem, attribute, rows, weights, float(weights.sum())
        )
        if found is None:
            raise ArborError(
                f"{attr.name!r} cannot split this node: it has fewer than two "
                "values here, or a branch would be smaller than the minimum leaf size"
            )
        return found
    x = problem.data.X[rows, attribute]
    if threshold is not None:
        if attr.is_nominal:
            raise ArborError(f"{attr.name!r} is nominal: it splits by values, not a threshold")
        split = Split(attribute, THRESHOLD, (0.5, 0.5), threshold=float(threshold))
    else:
        if not attr.is_nominal:
            raise ArborError(f"{attr.name!r} is numeric: give a threshold, not groups of values")
        split = Split(attribute, SUBSET, (0.5, 0.5), groups=tuple(tuple(g) for g in groups))
    branch = split.branch_of(x)
    known = np.bincount(branch[branch >= 0], weights=weights[branch >= 0], minlength=2)
    if (known > 0).sum() < 2:
        raise ArborError(f"that split of {attr.name!r} leaves one branch empty")
    split = replace(split, fractions=tuple(known / known.sum()))
    return Candidate(attribute, split, np.zeros((2, 0)), 0.0, 0.0)


def split_leaf(
    tree: Tree,
    data: Encoded,
    settings: Settings,
    node_id: int,
    attribute: int,
    threshold: float | None = None,
    groups=None,
) -> Tree:
    """Split a leaf on the attribute the user picked; the children are leaves."""
    node = tree.node(node_id)
    if not node.is_leaf:
        raise ArborError("only a leaf can be split; make the node a leaf first")
    problem = Problem(data, settings)
    rows, weights = node_rows(tree, data, node_id, settings)
    draft = make_draft(problem, rows, weights, node.depth)
    draft.candidate = _forced(problem, attribute, rows, weights, threshold, groups)
    draft.children = [
        make_draft(problem, r, w, node.depth + 1) for r, w in partition(problem, draft)
    ]
    return replace_subtree(tree, node_id, freeze(problem, draft))
