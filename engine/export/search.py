"""Finding nodes by what their labels say, over the whole tree (collapsed parts included).

The labels are written once per tree into a :class:`SearchIndex` (kept while the tree lives),
so typing a search into a 100,000-node tree scans prepared strings instead of formatting
every node again for each keystroke.
"""

from __future__ import annotations

import threading
import weakref

import numpy as np

from engine.export.labels import branch_condition, predicted, shown
from engine.tree import Tree

_INDEXES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


class SearchIndex:
    """Every node's searchable words, lower-cased, in pre-order: the split attribute of a split
    node, the prediction of a leaf, and the test on the branch into it (alone and after its
    attribute's name)."""

    def __init__(self, tree: Tree):
        names = [shown(a.name) for a in tree.schema.attributes]
        self.names = [n.lower() for n in names]
        ids, attribute, into, labels, tests = [], [], [], [], []
        stack = [(tree.root, None, -1)]
        while stack:
            node, parent, branch = stack.pop()
            ids.append(node.id)
            attribute.append(-1 if node.is_leaf else node.split.attribute)
            labels.append(predicted(tree, node, parent).lower() if node.is_leaf else "")
            if parent is None:
                into.append(-1)
                tests.append("")
            else:
                into.append(parent.split.attribute)
                tests.append(branch_condition(tree, parent, branch).lower())
            stack.extend((child, node, b) for b, child in reversed(list(enumerate(node.children))))
        self.ids = np.array(ids, dtype=np.intp)
        self.attribute = np.array(attribute, dtype=np.intp)  # -1: a leaf
        self.into = np.array(
            into, dtype=np.intp
        )  # the attribute tested on the way in (-1: the root)
        self.labels, self.tests = labels, tests
        self.full = [
            f"{self.names[a]} {t}" if a >= 0 else "" for a, t in zip(into, tests, strict=True)
        ]

    def find(self, text: str) -> list[int]:
        text = text.strip().lower()
        if not text:
            return []
        named = np.array([text in n for n in self.names] + [False])  # index -1: no attribute
        hit = named[self.attribute]  # a split node by its attribute
        hit |= np.fromiter(
            (bool(label) and text in label for label in self.labels), bool, len(self.labels)
        )
        # A branch by its test, or by the whole condition when the text reaches beyond the
        # attribute's name ("humidity" finds the node split on it, not its children too).
        tested = np.fromiter((text in test for test in self.tests), bool, len(self.tests))
        beyond = ~named[self.into] & (self.into >= 0)
        if beyond.any():
            rows = np.flatnonzero(beyond & ~hit & ~tested)
            full = self.full
            tested[rows] = [text in full[r] for r in rows.tolist()]
        hit |= tested
        return sorted(self.ids[hit].tolist())


def search_index(tree: Tree) -> SearchIndex:
    """The tree's index, made on first use and kept while the tree lives."""
    index = _INDEXES.get(tree)
    if index is None:
        index = SearchIndex(tree)
        with _LOCK:
            _INDEXES[tree] = index
    return index


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
    return search_index(tree).find(text)
