"""The tree: a plain immutable structure every view, exporter and predictor reads.

A node has an id, its (weighted) class distribution or regression statistics,
its impurity, and either no split (a leaf) or a split with one child per
branch. Multiway (one branch per category), numeric threshold (``<=`` / ``>``)
and binary subset splits are the same case: a split routes a value to a branch.
Labels, rules and colours are derived by exporters and views, never stored.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields, replace
from functools import cached_property, lru_cache
from types import MappingProxyType

import numpy as np

from engine.data.encoding import Schema
from engine.monitor import checkpoint

#: Split kinds.
MULTIWAY, THRESHOLD, SUBSET = "multiway", "threshold", "subset"

#: The stats of a node with nothing to show (shared: it is read-only).
NO_STATS: Mapping[str, float] = MappingProxyType({})


class SplitScores(Mapping):
    """A grown split's ``{"gain": ..., "gain_ratio": ...}`` as a read-only mapping.

    Two slots instead of a dict: a fully grown million-row tree has about 170,000
    split nodes, and a dict behind a mapping proxy cost 230 bytes each.
    """

    __slots__ = ("gain", "gain_ratio")
    _KEYS = ("gain", "gain_ratio")

    def __init__(self, gain: float, gain_ratio: float):
        object.__setattr__(self, "gain", gain)
        object.__setattr__(self, "gain_ratio", gain_ratio)

    def __setattr__(self, name, value):
        raise AttributeError("split scores are read-only")

    def __getitem__(self, key: str) -> float:
        if key in self._KEYS:
            return getattr(self, key)
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._KEYS)

    def __len__(self) -> int:
        return 2

    def __repr__(self) -> str:
        return f"SplitScores(gain={self.gain!r}, gain_ratio={self.gain_ratio!r})"

    def __reduce__(self):
        return SplitScores, (self.gain, self.gain_ratio)


@dataclass(frozen=True)
class Surrogate:
    """A stand-in for a node's split (``--missing surrogate``, rpart's): ``threshold``
    (numeric; values below it go to branch ``below``, the others to ``1 - below``) or
    ``groups`` (nominal: the category codes of branch 0 and branch 1; a category in neither
    routes nothing). ``agreement``: the share of the node's training weight it sends the
    split's way; ``adjusted``: the share of the room above the majority side it takes."""

    attribute: int
    agreement: float
    adjusted: float
    threshold: float | None = None
    below: int = 0
    groups: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())

    def branch_of(self, values: np.ndarray) -> np.ndarray:
        """Branch per value: 0 or 1, or -1 (missing, or a category this surrogate never saw)."""
        values = np.asarray(values, dtype=np.float64)
        out = np.full(values.shape, -1, dtype=np.intp)
        known = ~np.isnan(values)
        if self.threshold is not None:
            below = values[known] < self.threshold
            out[known] = np.where(below, self.below, 1 - self.below)
            return out
        for branch, group in enumerate(self.groups):
            out[known & np.isin(values, group)] = branch
        return out


def surrogate_branches(surrogates, X: np.ndarray, branch: np.ndarray) -> np.ndarray:
    """``branch`` (a split's, -1 where it cannot place a row) with each unplaced row of ``X``
    (the same rows, every attribute) placed by the first surrogate that can."""
    out = branch.copy()
    for s in surrogates:
        todo = out < 0
        if not todo.any():
            break
        out[todo] = s.branch_of(X[todo, s.attribute])
    return out


@dataclass(frozen=True, slots=True)
class Split:
    """How a node routes an instance to one of its children.

    ``groups`` (multiway and subset) lists the category codes of each branch;
    a threshold split sends ``value <= threshold`` to branch 0 and the rest to
    branch 1. ``fractions`` are the branches' shares of the known training
    weight: an instance with a missing value goes down every branch with its
    weight multiplied by these (C4.5's fractional instances). With ``--missing majority``
    or ``surrogate`` the fractions are 1 for the branch with most training weight, 0
    elsewhere, and ``surrogates`` (rpart's) place a missing value first.
    """

    attribute: int
    kind: str
    fractions: tuple[float, ...]
    threshold: float | None = None
    groups: tuple[tuple[int, ...], ...] = ()
    surrogates: tuple[Surrogate, ...] = ()

    @property
    def n_branches(self) -> int:
        return len(self.fractions)

    def branch_of(self, values: np.ndarray) -> np.ndarray:
        """Branch index per value; -1 for a missing value or a category no branch holds."""
        out = np.full(values.shape, -1, dtype=np.intp)
        known = ~np.isnan(values)
        if self.kind == THRESHOLD:
            out[known] = np.where(values[known] <= self.threshold, 0, 1)
            return out
        lookup = _group_lookup(self.groups)
        codes = values[known].astype(np.intp)
        inside = codes < len(lookup)
        mapped = np.full(codes.shape, -1, dtype=np.intp)
        mapped[inside] = lookup[codes[inside]]
        out[known] = mapped
        return out


@lru_cache(maxsize=4096)
def _group_lookup(groups: tuple[tuple[int, ...], ...]) -> np.ndarray:
    """Category code -> branch (-1: none) for a split's groups; made once per groups, as
    pruning routes rows through the same splits again and again (read-only: shared)."""
    lookup = np.full(1 + max((max(g) for g in groups if g), default=0), -1, np.intp)
    for b, group in enumerate(groups):
        lookup[list(group)] = b
    lookup.setflags(write=False)
    return lookup


@dataclass(frozen=True, eq=False, slots=True)
class Node:
    """One node. ``distribution`` holds class weights (empty for regression).

    ``value`` is the mean target for regression; ``stats`` holds derived numbers
    worth showing (split scores, pruning error bounds) keyed by name.
    """

    id: int
    depth: int
    weight: float
    distribution: np.ndarray
    impurity: float
    value: float = float("nan")
    split: Split | None = None
    children: tuple[Node, ...] = ()
    stats: Mapping[str, float] = field(default_factory=lambda: NO_STATS)

    @property
    def is_leaf(self) -> bool:
        return self.split is None

    def walk(self) -> Iterator[Node]:
        """Pre-order traversal without recursion (trees can be deep); cancellable."""
        stack, seen = [self], 0
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))
            seen += 1
            if not seen & 1023:
                checkpoint()


class NodeNumbers:
    """The numbers of a grown tree's nodes, one row per node id (ids are pre-order positions):
    class weights (or nothing, for regression), weight, impurity and mean target."""

    __slots__ = ("distribution", "weight", "impurity", "value")

    def __init__(
        self, distribution: np.ndarray, weight: np.ndarray, impurity: np.ndarray, value: np.ndarray
    ):
        for array in (distribution, weight, impurity, value):
            array.setflags(write=False)
        self.distribution, self.weight, self.impurity, self.value = (
            distribution,
            weight,
            impurity,
            value,
        )


class ArrayNode(Node):
    """A :class:`Node` whose weight, distribution, impurity and value are its row of a shared
    :class:`NodeNumbers`, read when asked for.

    The compiled builder makes these: a fully grown million-row tree has some 350,000
    nodes, and four Python objects of their own cost each of them 150 bytes more.
    ``dataclasses.replace`` on one (editing, pruning, renumbering) gives a plain Node.
    """

    __slots__ = ("_numbers",)

    def __new__(cls, *args, **kwargs):
        # dataclasses.replace calls type(node)(**fields): an ordinary node with its own numbers.
        return Node(*args, **kwargs)

    @classmethod
    def make(
        cls,
        numbers: NodeNumbers,
        id: int,
        depth: int,
        split: Split | None,
        children: tuple[Node, ...],
        stats: Mapping[str, float],
    ) -> ArrayNode:
        node = object.__new__(cls)
        put = object.__setattr__  # the dataclass is frozen
        put(node, "_numbers", numbers)
        put(node, "id", id)
        put(node, "depth", depth)
        put(node, "split", split)
        put(node, "children", children)
        put(node, "stats", stats)
        return node

    @property
    def distribution(self) -> np.ndarray:
        table = self._numbers.distribution
        return table[self.id] if table.ndim == 2 else table

    @property
    def weight(self) -> float:
        return float(self._numbers.weight[self.id])

    @property
    def impurity(self) -> float:
        return float(self._numbers.impurity[self.id])

    @property
    def value(self) -> float:
        return float(self._numbers.value[self.id])

    def __reduce__(self):
        return Node, tuple(getattr(self, f.name) for f in fields(Node))


class _Root:
    """:attr:`Tree.root`: the root node, or for a tree made from growth's arrays
    (:func:`engine.flat.tree_of`, given None) the root of the node objects the arrays make
    the first time it is read."""

    def __get__(self, tree, owner=None):
        if tree is None:  # no default: a tree is made with its root (or None and its arrays)
            raise AttributeError("root")
        root = tree.__dict__["_root"]
        if root is None:
            root = tree.__dict__["_flat"].node_objects()[0]
            tree.__dict__["_root"] = root
        return root

    def __set__(self, tree, root) -> None:
        tree.__dict__["_root"] = root


@dataclass(frozen=True, eq=False)
class Tree:
    """A trained tree plus what it was trained on.

    ``pruning`` is the :class:`engine.prune.record.PruningRecord` of the pass that made
    this tree, when one was asked for: its decisions, node by node, from the tree before.
    A tree made any other way (grown, edited by hand, read from a file) has none, and a
    pickled tree travels without it.

    ``pseudocounts`` (classification): one number per class added to every leaf's class
    weights before they become probabilities (seed 004's pseudocounts: Laplace's 1 each,
    an m-estimate's M times the class's training share); empty, the leaves' raw shares.
    Laplace's never change the class a leaf with rows predicts (its mode); an m-estimate's
    pull a small leaf's towards the training set's most frequent class.

    ``costs`` (classification, ``--costs``): the cost matrix, rows actual and columns
    predicted, one tuple per class; a node then predicts the class of least expected cost
    given its probabilities (:func:`engine.predict.class_codes`), its probabilities staying
    its shares. Empty: the most probable class.

    A tree made from growth's arrays (:func:`engine.flat.tree_of`: every fit's) makes its
    node objects from them when ``root`` is first read; pruning, prediction and
    evaluation work on the arrays and never ask.
    """

    root: Node = _Root()
    schema: Schema
    pruning: object | None = field(default=None, repr=False)
    pseudocounts: tuple[float, ...] = ()
    costs: tuple[tuple[float, ...], ...] = ()

    @property
    def is_regression(self) -> bool:
        return self.schema.is_regression

    @property
    def classes(self) -> tuple[str, ...] | None:
        return self.schema.classes

    def nodes(self) -> Iterator[Node]:
        return self.root.walk()

    @property
    def root_made(self) -> Node | None:
        """The root if the node objects exist, else None: a tree of growth's arrays not yet
        asked for them (reading :attr:`root` makes every node, 16 ms for 4,000)."""
        return self.__dict__["_root"]

    def with_nodes_made(self) -> Tree:
        """This tree, its node objects made now if they were waiting to be asked for
        (:func:`engine.flat.tree_of`): a worker calls it on a tree the window will draw, so
        that a big tree's nodes are not made on the window's thread."""
        _ = self.root
        return self

    # A tree never changes, so its counts are worked out once (the window asks often), from
    # its arrays when it keeps them (engine.flat: a fitted tree does), else by a walk.
    @cached_property
    def n_nodes(self) -> int:
        """Internal nodes plus leaves (Weka's "size of the tree")."""
        flat = self.__dict__.get("_flat")
        return flat.n_nodes if flat is not None else sum(1 for _ in self.nodes())

    @cached_property
    def n_leaves(self) -> int:
        flat = self.__dict__.get("_flat")
        if flat is not None:
            return int(flat.is_leaf.sum())
        return sum(1 for n in self.nodes() if n.is_leaf)

    @cached_property
    def depth(self) -> int:
        """Edges on the longest root-to-leaf path; a single leaf has depth 0."""
        flat = self.__dict__.get("_flat")
        if flat is not None:
            return int(flat.depth.max() - flat.depth[0])
        return max(n.depth for n in self.nodes()) - self.root.depth

    def node(self, node_id: int) -> Node:
        return self.path_to(node_id)[-1][0]

    def path_to(self, node_id: int) -> list[tuple[Node, int]]:
        """(ancestor, branch taken) pairs from the root down to ``node_id``; the node itself is last with -1."""
        # Ids are pre-order positions, so the branch holding ``node_id`` is the last child with an
        # id not above it: a walk down, not a search. A tree numbered otherwise is searched.
        path, node = [], self.root
        while node.id != node_id and node.children:
            branch = max((b for b, c in enumerate(node.children) if c.id <= node_id), default=None)
            if branch is None:
                break
            path.append((node, branch))
            node = node.children[branch]
        if node.id == node_id:
            return [*path, (node, -1)]
        return self._search_path(node_id)

    def _search_path(self, node_id: int) -> list[tuple[Node, int]]:
        stack: list[tuple[Node, list[tuple[Node, int]]]] = [(self.root, [])]
        while stack:
            node, path = stack.pop()
            if node.id == node_id:
                return [*path, (node, -1)]
            for b, child in enumerate(node.children):
                stack.append((child, [*path, (node, b)]))
        raise KeyError(f"no node {node_id}")

    def parents(self) -> dict[int, Node]:
        return {c.id: n for n in self.nodes() for c in n.children}

    def __reduce__(self):
        # Flat, in pre-order: nested nodes would pickle recursively and a deep tree would
        # hit the recursion limit; read-only stats views (MappingProxyType) travel as dicts.
        records = [
            (
                n.id,
                n.depth,
                n.weight,
                n.distribution,
                n.impurity,
                n.value,
                n.split,
                _plain_stats(n.stats),
                len(n.children),
            )
            for n in self.nodes()
        ]
        return _unpickle_tree, (records, self.schema, self.pseudocounts, self.costs)


def _plain_stats(stats: Mapping[str, float]):
    if stats is NO_STATS:
        return None
    return stats if isinstance(stats, SplitScores) else dict(stats)


def _unpickle_tree(
    records: list, schema: Schema, pseudocounts: tuple = (), costs: tuple = ()
) -> Tree:
    built: list[Node] = []
    for *values, stats, n_children in reversed(records):  # children before their parent
        children = tuple(built.pop() for _ in range(n_children))
        stats = NO_STATS if stats is None else stats
        stats = MappingProxyType(stats) if isinstance(stats, dict) else stats
        built.append(Node(*values, children=children, stats=stats))
    return Tree(built.pop(), schema, pseudocounts=pseudocounts, costs=costs)


def partition_rows(
    split: Split,
    values: np.ndarray,
    rows: np.ndarray,
    weights: np.ndarray,
    branch: np.ndarray | None = None,
    X: np.ndarray | None = None,
):
    """Rows and weights reaching each branch of ``split`` (``values``: the split attribute's
    values for ``rows``). A missing value goes down every branch, its weight times the
    branch's fraction: C4.5's fractional instances, used for growing, pruning and predicting.

    Each branch keeps the rows in their order in ``rows`` (missing ones where they were), so
    every node's rows are in the root's order: sums over a node's rows, and ties in sorting
    its values, come out the same in the compiled builder, which keeps rows that way.
    ``branch``: ``split.branch_of(values)``, when the caller has it already; ``X``: the
    rows' values of every attribute, for the split's surrogates (without it, none are used).
    """
    if branch is None:
        branch = split.branch_of(values)
    if split.surrogates and X is not None:  # X: the rows' every attribute
        branch = surrogate_branches(split.surrogates, X, branch)
    missing = branch < 0
    any_missing = bool(missing.any())
    parts = []
    for b, frac in enumerate(split.fractions):
        chosen = branch == b
        if any_missing and frac > 0:
            chosen |= missing
            parts.append(
                (rows[chosen], np.where(missing[chosen], weights[chosen] * frac, weights[chosen]))
            )
        else:
            parts.append((rows[chosen], weights[chosen]))
    return parts


def renumber(root: Node, start_depth: int = 0) -> Node:
    """A copy of ``root`` with ids 0, 1, ... in pre-order and depths recomputed."""
    # Iterative: ids are handed out in pre-order, nodes rebuilt bottom-up.
    counter = iter(range(1 << 62))
    order: list[tuple[Node, int, int]] = []
    stack = [(root, start_depth)]
    while stack:
        node, depth = stack.pop()
        order.append((node, next(counter), depth))
        if not len(order) & 1023:
            checkpoint()
        stack.extend((c, depth + 1) for c in reversed(node.children))
    built: dict[int, Node] = {}
    for k, (node, new_id, depth) in enumerate(reversed(order)):
        if not k & 1023:
            checkpoint()
        children = tuple(built.pop(id(c)) for c in node.children)
        built[id(node)] = replace(node, id=new_id, depth=depth, children=children)
    return built[id(root)]
