"""The tree as indented text, in the layout Weka's J48 prints.

::

    outlook = sunny
    |   humidity = high: no (3.0)
    |   humidity = normal: yes (2.0)
    outlook = overcast: yes (4.0)
"""

from __future__ import annotations

from engine.export.labels import condition, errors, number, predicted, shown
from engine.tree import Tree


def _java_number(value: float) -> str:
    """Weka's way: two decimals, but integers keep a trailing '.0'."""
    rounded = round(value, 2)
    return f"{rounded:.1f}" if rounded == int(rounded) else number(rounded)


def leaf_text(tree, node, parent) -> str:
    if tree.is_regression:
        return f"{shown(predicted(tree, node, parent))} ({_java_number(node.weight)})"
    wrong = errors(tree, node)
    tail = f"/{_java_number(wrong)}" if wrong > 0 else ""
    return f"{shown(predicted(tree, node, parent))} ({_java_number(node.weight)}{tail})"


def to_text(tree: Tree) -> str:
    """Indented text of the whole tree, one line per branch."""
    if tree.root.is_leaf:
        return f": {leaf_text(tree, tree.root, None)}\n"
    lines: list[str] = []
    stack = [(tree.root, b, 0) for b in reversed(range(len(tree.root.children)))]
    while stack:
        parent, branch, level = stack.pop()
        child = parent.children[branch]
        head = "|   " * level + condition(tree, parent, branch)
        if child.is_leaf:
            lines.append(f"{head}: {leaf_text(tree, child, parent)}")
        else:
            lines.append(head)
            stack.extend((child, b, level + 1) for b in reversed(range(len(child.children))))
    return "\n".join(lines) + "\n"


def summary(tree: Tree) -> str:
    return f"Number of Leaves  : \t{tree.n_leaves}\n\nSize of the tree : \t{tree.n_nodes}\n"
