"""The tree in Graphviz DOT."""

from __future__ import annotations

from engine.export.labels import attribute_name, branch_condition, number, predicted, shown
from engine.tree import Tree


def _quote(text: str) -> str:
    """A DOT string: every name inside went through :func:`shown`, so the only line break
    is the one between a label's lines; backslashes are doubled so that none starts one of
    Graphviz's escapes (\\N, \\l...)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _label(tree: Tree, node, parent) -> str:
    head = shown(predicted(tree, node, parent)) if node.is_leaf else attribute_name(tree, node)
    if tree.is_regression:
        counts = f"n = {number(round(node.weight, 2))}"
    else:
        counts = " / ".join(number(round(v, 2)) for v in node.distribution)
    return f"{head}\n{counts}"


def to_dot(tree: Tree) -> str:
    """DOT source: boxes for internal nodes, rounded boxes for leaves, conditions on edges."""
    parents = tree.parents()
    lines = [
        f"digraph {_quote('tree: ' + shown(tree.schema.target))} {{",
        '  node [shape=box, fontname="DejaVu Sans", fontsize=10];',
        '  edge [fontname="DejaVu Sans", fontsize=9];',
    ]
    for node in tree.nodes():
        style = ', style="rounded,filled", fillcolor="#F3F4F6"' if node.is_leaf else ""
        lines.append(
            f"  n{node.id} [label={_quote(_label(tree, node, parents.get(node.id)))}{style}];"
        )
        for b, child in enumerate(node.children):
            lines.append(
                f"  n{node.id} -> n{child.id} [label={_quote(branch_condition(tree, node, b))}];"
            )
    lines.append("}")
    return "\n".join(lines) + "\n"
