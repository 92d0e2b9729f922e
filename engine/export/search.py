"""Finding nodes by what their labels say, over the whole tree (collapsed parts included)."""

from __future__ import annotations

from engine.export.labels import branch_condition, predicted, shown
from engine.tree import Tree


def find_nodes(tree: Tree, text: str) -> list[int]:
    """Ids of the nodes whose label contains ``text`` (case ignored), in pre-order.

    A split node matches by its attribute, a leaf by what it predicts, and any node by the
    test on the branch into it, with or without the attribute ("sunny", "= sunny",
    "outlook = sunny", "<= 0.6").

    Examples
    --------
    >>> from engine.data.samples import load_sample
    >>> from engine.estimator import DecisionTree
    >>> tree = DecisionTree(algorithm="id3").fit(load_sample("weather")).tree_
    >>> find_nodes(tree, "humidity"), find_nodes(tree, "OUTLOOK = rainy"), len(find_nodes(tree, "yes"))
    ([1], [5], 3)
    """
    text = text.strip().lower()
    if not text:
        return []
    names = [shown(a.name) for a in tree.schema.attributes]
    named = [text in n.lower() for n in names]
    said: dict[str, bool] = {}  # a leaf's prediction, matched once per distinct label
    hits = []
    stack = [(tree.root, None, -1)]
    while stack:
        node, parent, branch = stack.pop()
        if node.is_leaf:
            label = predicted(tree, node, parent)
            hit = said.get(label)
            if hit is None:
                hit = said[label] = text in label.lower()
        else:
            hit = named[node.split.attribute]
        if not hit and parent is not None:
            # The whole condition counts only for text beyond the attribute's name: "humidity"
            # finds the node split on it, not its children too.
            a = parent.split.attribute
            test = branch_condition(tree, parent, branch).lower()
            hit = text in test or (not named[a] and text in f"{names[a].lower()} {test}")
        if hit:
            hits.append(node.id)
        stack.extend((child, node, b) for b, child in reversed(list(enumerate(node.children))))
    hits.sort()
    return hits
