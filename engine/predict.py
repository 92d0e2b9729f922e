"""Routing instances through a tree, with C4.5's fractional instances for missing values.

An instance whose value is missing at a split (or whose category no branch
holds) goes down every branch with its weight multiplied by the branch's share
of the training weight; the leaves' predictions are summed with those weights.
An empty leaf predicts what its parent would.
"""

from __future__ import annotations

import numpy as np

from engine.tree import Node, Tree, leaf_prediction, partition_rows


def _route(tree: Tree, X: np.ndarray, visit) -> None:
    """Depth-first walk calling ``visit(node, rows, weights, fallback)`` at each leaf reached."""
    n = X.shape[0]
    stack: list[tuple[Node, np.ndarray, np.ndarray, object]] = [
        (tree.root, np.arange(n), np.ones(n), None)
    ]
    while stack:
        node, rows, weights, fallback = stack.pop()
        if node.is_leaf:
            visit(node, rows, weights, fallback)
            continue
        here = node_output(tree, node, fallback)
        parts = partition_rows(node.split, X[rows, node.split.attribute], rows, weights)
        for child, (r, w) in zip(node.children, parts, strict=True):
            if len(r):
                stack.append((child, r, w, here))


def node_output(tree: Tree, node: Node, fallback):
    """What a node predicts (class probabilities, or a mean); an empty node its parent's (``fallback``)."""
    if tree.is_regression:
        return node.value if node.weight > 0 or fallback is None else fallback
    return leaf_prediction(node, fallback)


def predict_proba(tree: Tree, X: np.ndarray) -> np.ndarray:
    """Class probabilities, one row per instance (classification trees)."""
    out = np.zeros((X.shape[0], len(tree.classes)))

    def visit(node, rows, weights, fallback):
        np.add.at(out, rows, weights[:, None] * leaf_prediction(node, fallback))

    _route(tree, X, visit)
    return out


def predict_value(tree: Tree, X: np.ndarray) -> np.ndarray:
    """Predicted means (regression trees)."""
    out = np.zeros(X.shape[0])

    def visit(node, rows, weights, fallback):
        np.add.at(out, rows, weights * node_output(tree, node, fallback))

    _route(tree, X, visit)
    return out


def leaf_weights(tree: Tree, X: np.ndarray) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """For every leaf reached: the rows that reach it and with which weight."""
    reached: dict[int, list] = {}

    def visit(node, rows, weights, fallback):
        reached.setdefault(node.id, []).append((rows, weights))

    _route(tree, X, visit)
    return {
        k: (np.concatenate([r for r, _ in v]), np.concatenate([w for _, w in v]))
        for k, v in reached.items()
    }
