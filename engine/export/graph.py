"""The tree as a ``networkx.DiGraph``: for layout and graph-style export."""

from __future__ import annotations

from collections.abc import Collection

import networkx as nx

from engine.tree import Tree


def to_digraph(tree: Tree, collapsed: Collection[int] = ()) -> nx.DiGraph:
    """Nodes keyed by node id (with the ``node`` itself and its ``depth``), edges parent ->
    child carrying the branch index as ``order``. Below a ``collapsed`` node nothing is
    added (a big tree shown by its top levels costs what is shown).

    Examples
    --------
    >>> from engine.data.samples import load_sample
    >>> from engine.estimator import DecisionTree
    >>> g = to_digraph(DecisionTree(algorithm="id3").fit(load_sample("weather")).tree_)
    >>> g.number_of_nodes(), g.number_of_edges()
    (8, 7)
    """
    graph = nx.DiGraph()
    stack = [tree.root]
    while stack:
        node = stack.pop()
        graph.add_node(node.id, node=node, depth=node.depth, is_leaf=node.is_leaf)
        if node.id in collapsed:
            continue
        for branch, child in enumerate(node.children):
            graph.add_edge(node.id, child.id, order=branch)
        stack.extend(reversed(node.children))
    return graph
