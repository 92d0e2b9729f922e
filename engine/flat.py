"""The tree as flat arrays, one row per node in pre-order: what pruning, routing, prediction
and evaluation work on (issue 39).

A :class:`FlatTree` holds, per node, its parent and children, the split (attribute, a
threshold or a category -> branch table, the branches' training fractions) and the node's
numbers (class weights or nothing for regression, weight, impurity, mean target). It is made
once, by growth (:func:`engine.fast.builder.to_flat`) or from a tree's nodes (:func:`flat_of`),
and kept with the :class:`engine.tree.Tree`; a pruned tree is the same arrays with a mask of
the nodes that become leaves, compacted (:meth:`FlatTree.cut`).

Growth's arrays also hold what its nodes' objects are made of (the split kinds and scores),
so a grown or pruned tree's node objects are made from them only when something asks for
them (:meth:`FlatTree.node_objects`): the views do, while cross-validation, pruning and
prediction never need them.

What a node predicts (:meth:`FlatTree.outputs`) is worked out here and nowhere else: its
class shares or mean, an empty node its parent's.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from functools import cached_property
from types import MappingProxyType

import numpy as np

from engine.collection import collection_paused
from engine.monitor import checkpoint
from engine.tree import (
    MULTIWAY,
    NO_STATS,
    SUBSET,
    THRESHOLD,
    ArrayNode,
    Node,
    NodeNumbers,
    Split,
    SplitScores,
    Surrogate,
    Tree,
    surrogate_branches,
)

#: Split scores a node loses when pruning makes it a leaf.
_SCORES = ("gain", "gain_ratio")


@dataclass(frozen=True, eq=False)
class FlatTree:
    """A tree's nodes as arrays indexed by pre-order position (a grown or pruned tree's ids).

    ``children[i, b]`` is the position of branch ``b``'s child (-1 past the last);
    ``end[i]`` one past the last position of ``i``'s subtree. At a nominal split,
    ``lookup[groups[i], code]`` is the branch a category code goes down (-1: none holds it);
    ``groups`` is -1 elsewhere (a row of the table per nominal split only: a big tree's
    threshold splits would otherwise each hold a row as wide as the most categories).
    ``nodes`` are the node objects the arrays were made from, when they were;
    ``pseudocounts`` the tree's (:attr:`engine.tree.Tree.pseudocounts`); ``surrogates``
    each node's split's (``--missing surrogate``; empty when no split has any).

    Growth's arrays (and their pruned copies) also hold ``scores`` (each split's gain and
    gain ratio, a row a node), ``subset`` (a nominal split of two groups of categories,
    not one branch per category) and ``pruned`` (a leaf that pruning made of a split):
    with these, the node objects are made from the arrays when first asked for.
    """

    regression: bool
    parent: np.ndarray
    children: np.ndarray
    n_children: np.ndarray
    depth: np.ndarray
    attribute: np.ndarray
    by_threshold: np.ndarray
    threshold: np.ndarray
    groups: np.ndarray
    lookup: np.ndarray
    fractions: np.ndarray
    distribution: np.ndarray
    weight: np.ndarray
    impurity: np.ndarray
    value: np.ndarray
    nodes: tuple[Node, ...] | None = None
    pseudocounts: tuple[float, ...] = ()
    surrogates: tuple[tuple[Surrogate, ...], ...] = ()
    scores: np.ndarray | None = None
    subset: np.ndarray | None = None
    pruned: np.ndarray | None = None

    @property
    def n_nodes(self) -> int:
        return len(self.parent)

    @cached_property
    def is_leaf(self) -> np.ndarray:
        return self.n_children == 0

    @cached_property
    def end(self) -> np.ndarray:
        return ends(self.parent, self.depth)

    @cached_property
    def outputs(self) -> np.ndarray:
        """What each node predicts: class probabilities (one row per node) or a mean.

        A node with no training weight predicts its parent's (parents come first in
        pre-order); an empty root, equal shares (classification) or its own mean. With
        pseudocounts a_k, (n_k + a_k) / (n + sum a) at every node, an empty one included:
        :func:`engine.predict.class_probabilities`, for every node at once.
        """
        n = self.n_nodes
        if self.pseudocounts and not self.regression:
            added = self.distribution + np.asarray(self.pseudocounts, dtype=np.float64)
            return added / added.sum(axis=1)[:, None]
        if self.regression:
            out = self.value.astype(np.float64)
            empty = ~(self.weight > 0)
        else:
            dist = self.distribution
            total = dist.sum(axis=1)
            out = np.full(dist.shape, 1.0 / max(dist.shape[1], 1))
            np.divide(dist, total[:, None], out=out, where=total[:, None] > 0)
            empty = ~(total > 0)
        for i in np.flatnonzero(empty[1:n]).tolist():  # the root has no parent to ask
            out[i + 1] = out[self.parent[i + 1]]
        out.setflags(write=False)  # shared by every prediction from these arrays
        return out

    @cached_property
    def _positions(self) -> dict[int, int]:
        return {id(node): k for k, node in enumerate(self.node_objects())}

    def output_of(self, node: Node):
        """What ``node`` (one of these arrays' node objects) predicts: :attr:`outputs`'s row,
        class probabilities (a copy) or a mean (a float)."""
        k = self._positions.get(id(node))
        if k is None:
            raise KeyError(f"node {node.id} is not one of this tree's nodes")
        return float(self.outputs[k]) if self.regression else self.outputs[k].copy()

    def branches(self, at: np.ndarray, values: np.ndarray) -> np.ndarray:
        """The branch each value goes down at the node ``at`` beside it (every row at once);
        -1 for a missing value or a category no branch holds."""
        branch = np.full(len(at), -1, dtype=np.intp)
        known = ~np.isnan(values)
        numeric = self.by_threshold[at] & known
        branch[numeric] = np.where(values[numeric] <= self.threshold[at[numeric]], 0, 1)
        nominal = ~self.by_threshold[at] & known
        codes = values[nominal].astype(np.intp)
        inside = codes < self.lookup.shape[1]
        mapped = np.full(len(codes), -1, dtype=np.intp)
        mapped[inside] = self.lookup[self.groups[at[nominal][inside]], codes[inside]]
        branch[nominal] = mapped
        return branch

    def _branches_at(self, i: int, values: np.ndarray) -> np.ndarray:
        """:meth:`branches` with every value at node ``i`` (the walk's case: a node at a time)."""
        branch = np.full(len(values), -1, dtype=np.intp)
        known = ~np.isnan(values)
        if self.by_threshold[i]:
            branch[known] = np.where(values[known] <= self.threshold[i], 0, 1)
            return branch
        codes = values[known].astype(np.intp)
        inside = codes < self.lookup.shape[1]
        mapped = np.full(len(codes), -1, dtype=np.intp)
        mapped[inside] = self.lookup[self.groups[i], codes[inside]]
        branch[known] = mapped
        return branch

    def descend(self, X: np.ndarray) -> tuple[list[tuple[np.ndarray, np.ndarray]], np.ndarray]:
        """Every row of ``X`` routed down at once, a level at a time: (rows, node) pairs per
        level, for the rows that go down one branch at every split, and which rows went down
        several (a missing value, or a category no branch holds; their routing stops there)."""
        rows = np.arange(X.shape[0])
        at = np.zeros(len(rows), dtype=np.intp)
        several = np.zeros(len(rows), dtype=bool)
        levels = [(rows, at)]
        leaf = self.is_leaf
        while True:
            checkpoint()
            inner = ~leaf[at]
            rows, at = rows[inner], at[inner]
            if not len(rows):
                return levels, several
            branch = self.branches(at, X[rows, self.attribute[at]])
            one = branch >= 0
            several[rows[~one]] = True
            rows, at = rows[one], self.children[at[one], branch[one]]
            levels.append((rows, at))

    def walk(self, X: np.ndarray, rows: np.ndarray):
        """``(node, rows, weights)`` for every node the ``rows`` of ``X`` reach, as
        C4.5 routes them: a row whose value is missing at a split (or whose category no branch
        holds) goes down every branch with its weight times the branch's training fraction
        (after the split's surrogates, if it has any, could not place it).

        Depth-first, children pushed in branch order and the last taken first: the order
        in which a row's leaves add up to its prediction. A branch no row reaches is not
        visited."""
        stack = [(0, rows, np.ones(len(rows)))]
        while stack:
            checkpoint()
            i, r, w = stack.pop()
            yield i, r, w
            if self.n_children[i] == 0:
                continue
            branch = self._branches_at(i, X[r, self.attribute[i]])
            if self.surrogates and self.surrogates[i]:  # placed by a stand-in, if one can
                branch = surrogate_branches(self.surrogates[i], X[r], branch)
            missing = branch < 0
            any_missing = bool(missing.any())
            for b in range(int(self.n_children[i])):
                frac = self.fractions[i, b]
                chosen = branch == b
                if any_missing and frac > 0:
                    chosen |= missing
                    part = (r[chosen], np.where(missing[chosen], w[chosen] * frac, w[chosen]))
                else:
                    part = (r[chosen], w[chosen])
                if len(part[0]):
                    stack.append((int(self.children[i, b]), *part))

    def cut(self, is_leaf: np.ndarray, schema, costs: tuple = ()) -> Tree:
        """The tree with the nodes flagged in ``is_leaf`` made leaves (their subtrees gone),
        numbered afresh in pre-order; a pruned split keeps its counts, loses its split scores
        and is marked ``pruned``. Growth's arrays give a tree whose node objects are made when
        asked for; other trees' are rebuilt from theirs."""
        n = self.n_nodes
        keep = np.ones(n, dtype=bool)
        cut_here = is_leaf & ~self.is_leaf
        for i in np.flatnonzero(cut_here).tolist():
            if keep[i]:
                keep[i + 1 : self.end[i]] = False
        if self.scores is not None:
            return tree_of(self.compact(keep, cut_here), schema, costs)
        kept, made = _rebuilt(self, keep, cut_here)
        pruned = Tree(made[0], schema, pseudocounts=self.pseudocounts, costs=costs)
        cache_flat(pruned, self.compact(keep, cut_here, tuple(made[i] for i in kept)))
        return pruned

    def compact(self, keep: np.ndarray, cut_here: np.ndarray, nodes=None) -> FlatTree:
        """The arrays of the nodes ``keep`` flags, those ``cut_here`` flags made leaves;
        ``nodes``, their node objects when they are made already."""
        new_id = np.full(self.n_nodes + 1, -1, dtype=np.intp)  # the last: -1 stays -1
        new_id[np.flatnonzero(keep)] = np.arange(int(keep.sum()))
        split = ~cut_here[keep]
        children = np.where(split[:, None], new_id[self.children[keep]], -1)
        return FlatTree(
            self.regression,
            new_id[self.parent[keep]],
            children,
            np.where(split, self.n_children[keep], 0),
            self.depth[keep] - self.depth[0],
            np.where(split, self.attribute[keep], -1),
            self.by_threshold[keep] & split,
            self.threshold[keep],
            np.where(split, self.groups[keep], -1),
            self.lookup,
            self.fractions[keep],
            self.distribution[keep],
            self.weight[keep],
            self.impurity[keep],
            self.value[keep],
            nodes,
            self.pseudocounts,
            tuple(() if cut_here[k] else self.surrogates[k] for k in np.flatnonzero(keep).tolist())
            if self.surrogates
            else (),
            None if self.scores is None else self.scores[keep],
            None if self.subset is None else self.subset[keep] & split,
            None if self.pruned is None else self.pruned[keep] | cut_here[keep],
        )

    def node_objects(self) -> tuple[Node, ...]:
        """The node objects, in pre-order: those the arrays were made from, or (growth's)
        made from the arrays the first time they are asked for, once whichever thread asks."""
        if self.nodes is None:
            if self.scores is None:
                raise ValueError("these arrays were made without node objects")
            with _MAKING, collection_paused():  # the new nodes form no cycles
                if self.nodes is None:
                    object.__setattr__(self, "nodes", _made_nodes(self))  # frozen: made once
        return self.nodes


#: Held while a tree's node objects are made: two threads asking at once get the same ones.
_MAKING = threading.Lock()


def _made_nodes(flat: FlatTree) -> tuple[Node, ...]:
    """Node objects from growth's arrays: each reads its numbers from their rows (an
    :class:`engine.tree.ArrayNode`), its split and stats made from the split's columns."""
    n = flat.n_nodes
    numbers = NodeNumbers(
        np.zeros(0) if flat.regression else flat.distribution,
        flat.weight,
        flat.impurity,
        flat.value,
    )
    lookup = flat.lookup
    built: list = [None] * n
    for i, d, k, j, thr, row, sub, (gain, ratio), cut, fractions, children in zip(
        range(n - 1, -1, -1),  # children before their parent
        flat.depth[::-1].tolist(),
        flat.n_children[::-1].tolist(),
        flat.attribute[::-1].tolist(),
        flat.threshold[::-1].tolist(),
        flat.groups[::-1].tolist(),
        flat.subset[::-1].tolist(),
        flat.scores[::-1].tolist(),
        flat.pruned[::-1].tolist(),
        flat.fractions[::-1].tolist(),
        flat.children[::-1].tolist(),
        strict=True,
    ):
        if not i & 1023:
            checkpoint()
        if not k:
            stats = _PRUNED if cut else NO_STATS
            built[i] = ArrayNode.make(numbers, i, d, None, (), stats)
            continue
        fractions = tuple(fractions[:k])
        if row < 0:
            split = Split(j, THRESHOLD, fractions, threshold=thr)
        elif sub:
            where = lookup[row]
            groups = tuple(tuple(np.flatnonzero(where == b).tolist()) for b in (0, 1))
            split = Split(j, SUBSET, fractions, groups=groups)
        else:
            split = Split(j, MULTIWAY, fractions, groups=tuple((v,) for v in range(k)))
        if flat.surrogates and flat.surrogates[i]:
            split = replace(split, surrogates=flat.surrogates[i])
        kids = tuple(built[c] for c in children[:k])
        built[i] = ArrayNode.make(numbers, i, d, split, kids, SplitScores(gain, ratio))
    return tuple(built)


#: A pruned leaf's stats (shared: read-only).
_PRUNED = MappingProxyType({"pruned": 1.0})


def leaf_of(node: Node) -> Node:
    """``node`` pruned to a leaf: its counts kept, its split scores dropped, marked pruned."""
    stats = {k: v for k, v in node.stats.items() if k not in _SCORES}
    return replace(node, split=None, children=(), stats=MappingProxyType({**stats, "pruned": 1.0}))


def _rebuilt(flat: FlatTree, keep: np.ndarray, cut_here: np.ndarray):
    """The kept positions and the node objects of the pruned tree (by old position),
    numbered afresh in pre-order, depths from the root's."""
    nodes = flat.node_objects()
    kept = np.flatnonzero(keep)
    new_id = np.full(flat.n_nodes, -1, dtype=np.intp)
    new_id[kept] = np.arange(len(kept))
    depth = flat.depth - flat.depth[0]
    made: list[Node | None] = [None] * flat.n_nodes
    kept = kept.tolist()
    for k, i in enumerate(reversed(kept)):  # children before their parent
        if not k & 1023:
            checkpoint()
        node = nodes[i]
        if cut_here[i]:
            made[i] = replace(leaf_of(node), id=int(new_id[i]), depth=int(depth[i]))
        else:
            children = tuple(made[c] for c in flat.children[i, : flat.n_children[i]].tolist())
            made[i] = replace(node, id=int(new_id[i]), depth=int(depth[i]), children=children)
    return kept, made


def ends(parent: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """One past each node's last descendant, from the parents and depths of nodes in pre-order.

    A node's subtree is the run of rows from its own: one past it is its row plus its
    subtree's size, summed into each parent a level at a time from the deepest (a loop over
    the nodes took 3 ms of a 9,000-row regression tree's 50 ms growth)."""
    n = len(parent)
    size = np.ones(n, dtype=np.intp)
    if n > 1:
        by_depth = np.argsort(depth, kind="stable")
        starts = np.searchsorted(depth[by_depth], np.arange(int(depth.max()) + 2))
        for d in range(len(starts) - 2, -1, -1):
            level = by_depth[starts[d] : starts[d + 1]]
            level = level[parent[level] >= 0]  # the root (at whatever depth it is numbered)
            np.add.at(size, parent[level], size[level])
    return np.arange(n, dtype=np.intp) + size


def tree_of(flat: FlatTree, schema, costs: tuple = ()) -> Tree:
    """The tree of growth's arrays ``flat`` (or their pruned copy), its node objects made
    when first asked for (:meth:`FlatTree.node_objects`)."""
    tree = Tree(None, schema, pseudocounts=flat.pseudocounts, costs=costs)
    cache_flat(tree, flat)
    return tree


def replaced(tree: Tree, flat: FlatTree | None = None, **changes) -> Tree:
    """``dataclasses.replace(tree, **changes)`` for a change outside its nodes: the same
    nodes, and the same arrays (or ``flat``, the same nodes' arrays), node objects still
    unmade if nothing has asked for them yet."""
    made = replace(tree, root=tree.__dict__["_root"], **changes)
    flat = tree.__dict__.get("_flat") if flat is None else flat
    if flat is not None:
        cache_flat(made, flat)
    return made


def root_distribution(tree: Tree) -> np.ndarray:
    """The class weights at ``tree``'s root, read from its arrays while its nodes are unmade."""
    if tree.__dict__["_root"] is None:
        return tree.__dict__["_flat"].distribution[0]
    return tree.root.distribution


def cache_flat(tree: Tree, flat: FlatTree) -> None:
    """Keep ``flat`` (the arrays of ``tree``'s very nodes) with ``tree`` for :func:`flat_of`."""
    object.__setattr__(tree, "_flat", flat)  # a tree never changes: its arrays neither


def flat_of(tree: Tree) -> FlatTree:
    """``tree``'s arrays, made on first asking (one walk over its nodes) and kept with it."""
    flat = tree.__dict__.get("_flat")
    if flat is None:
        flat = from_nodes(tree)
        cache_flat(tree, flat)
    return flat


def from_nodes(tree: Tree) -> FlatTree:
    """The arrays of ``tree``'s nodes, in pre-order (one walk)."""
    nodes = tuple(tree.nodes())
    n = len(nodes)
    position = {id(node): k for k, node in enumerate(nodes)}
    K = max(max((len(node.children) for node in nodes), default=0), 1)
    width = 1 + max(
        (
            max(g)
            for node in nodes
            if node.split is not None and node.split.kind != THRESHOLD
            for g in node.split.groups
            if g
        ),
        default=0,
    )
    parent = np.full(n, -1, dtype=np.intp)
    children = np.full((n, K), -1, dtype=np.intp)
    n_children = np.zeros(n, dtype=np.intp)
    depth = np.zeros(n, dtype=np.intp)
    attribute = np.full(n, -1, dtype=np.intp)
    by_threshold = np.zeros(n, dtype=bool)
    threshold = np.full(n, np.nan)
    groups = np.full(n, -1, dtype=np.intp)
    nominal = sum(1 for node in nodes if node.split is not None and node.split.kind != THRESHOLD)
    lookup = np.full((nominal, width), -1, dtype=np.intp)
    rows = iter(range(nominal))
    fractions = np.zeros((n, K))
    weight, impurity, value = np.zeros(n), np.zeros(n), np.zeros(n)
    numbers = _shared_numbers(nodes)
    for k, node in enumerate(nodes):
        if not k & 1023:
            checkpoint()
        depth[k] = node.depth
        if numbers is None:
            weight[k], impurity[k], value[k] = node.weight, node.impurity, node.value
        split = node.split
        if split is None:
            continue
        attribute[k] = split.attribute
        if split.kind == THRESHOLD:
            by_threshold[k], threshold[k] = True, split.threshold
        else:
            groups[k] = row = next(rows)
            for b, group in enumerate(split.groups):
                lookup[row, list(group)] = b
        n_children[k] = len(node.children)
        fractions[k, : len(split.fractions)] = split.fractions
        for b, child in enumerate(node.children):
            c = position[id(child)]
            children[k, b], parent[c] = c, k
    if numbers is not None:  # a grown tree's nodes: their numbers' rows, as they are
        weight, impurity = numbers.weight.astype(np.float64), numbers.impurity.astype(np.float64)
        value = np.array(numbers.value, dtype=np.float64)
    if tree.is_regression:
        distribution = np.zeros((n, 0))
    elif numbers is not None:
        distribution = numbers.distribution.astype(np.float64)
    else:
        distribution = np.array([node.distribution for node in nodes], dtype=np.float64).reshape(
            n, len(tree.classes)
        )
    return FlatTree(
        tree.is_regression,
        parent,
        children,
        n_children,
        depth,
        attribute,
        by_threshold,
        threshold,
        groups,
        lookup,
        fractions,
        distribution,
        weight,
        impurity,
        value,
        nodes,
        tree.pseudocounts,
        _surrogates(nodes),
    )


def _shared_numbers(nodes) -> NodeNumbers | None:
    """The one :class:`engine.tree.NodeNumbers` every node reads its numbers from, row by
    row in pre-order (a grown tree's), or None."""
    numbers = getattr(nodes[0], "_numbers", None) if nodes else None
    if numbers is None or len(numbers.weight) != len(nodes):
        return None
    same = all(
        getattr(node, "_numbers", None) is numbers and node.id == k for k, node in enumerate(nodes)
    )
    return numbers if same else None


def _surrogates(nodes) -> tuple:
    """Each node's split's surrogates, or () when no split has any."""
    if not any(node.split is not None and node.split.surrogates for node in nodes):
        return ()
    return tuple(() if node.split is None else node.split.surrogates for node in nodes)
