"""Words for splits, branches and leaves, shared by every text-like exporter and the views."""

from __future__ import annotations

import numpy as np

from engine.tree import MULTIWAY, SUBSET, THRESHOLD, Node, Tree


def number(value: float) -> str:
    """A number as people write it: no trailing zeros, at most 6 significant decimals."""
    if value is None or np.isnan(value):
        return "?"
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def attribute_name(tree: Tree, node: Node) -> str:
    return tree.schema.attributes[node.split.attribute].name


def branch_condition(tree: Tree, node: Node, branch: int) -> str:
    """The test on an edge without the attribute name: '= sunny', '<= 75', 'in {a, b}'."""
    split = node.split
    if split.kind == THRESHOLD:
        return f"{'<=' if branch == 0 else '>'} {number(split.threshold)}"
    categories = tree.schema.attributes[split.attribute].categories
    group = [categories[c] for c in split.groups[branch]]
    if split.kind == MULTIWAY or (split.kind == SUBSET and len(group) == 1):
        return f"= {group[0]}"
    return "in {" + ", ".join(group) + "}"


def condition(tree: Tree, node: Node, branch: int) -> str:
    return f"{attribute_name(tree, node)} {branch_condition(tree, node, branch)}"


def predicted(tree: Tree, node: Node, fallback: Node | None = None) -> str:
    """A leaf's class (or mean); an empty leaf predicts its parent's."""
    if tree.is_regression:
        value = node.value if node.weight > 0 or fallback is None else fallback.value
        return number(value)
    dist = node.distribution
    if dist.sum() <= 0 and fallback is not None:
        dist = fallback.distribution
    return tree.classes[int(np.argmax(dist))]


def errors(tree: Tree, node: Node) -> float:
    """Training weight a leaf gets wrong (regression: 0; the count is what matters)."""
    if tree.is_regression:
        return 0.0
    return float(node.distribution.sum() - node.distribution.max()) if node.weight > 0 else 0.0
