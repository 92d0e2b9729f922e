"""Comparing trees' structure: whether two nodes split alike, the node of one tree that stands
where a node of another does, where two trees first part, and what changed between them.

Two splits are alike when they test the same attribute and send the same values the same way:
the same category groups (in any branch order), or thresholds within a tolerance of each
other, since C4.5 cuts at a value seen in the data and CART halfway between two, so the "same"
cut differs a little by convention. Nodes correspond when every split above them is alike and
they hang from corresponding branches.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.data.encoding import Encoded
from engine.tree import THRESHOLD, Node, Split, Tree

#: Thresholds this share of the attribute's range apart count as the same cut.
THRESHOLD_TOLERANCE = 0.05
#: How two trees part at a node: different attributes, one stops (a leaf) where the other
#: splits, or the same attribute split another way (other groups, another threshold).
ATTRIBUTE, STOP, SHAPE = "attribute", "stop", "shape"


def attribute_ranges(data: Encoded) -> np.ndarray:
    """Each attribute's range of known values (0 for an all-missing or nominal column): what
    :data:`THRESHOLD_TOLERANCE` is a share of.

    Examples
    --------
    >>> from engine.data.encoding import encode
    >>> from engine.data.samples import load_sample
    >>> attribute_ranges(encode(load_sample("iris"))).round(1).tolist()
    [3.6, 2.4, 5.9, 2.4]
    """
    out = np.zeros(len(data.schema.attributes))
    for j, attr in enumerate(data.schema.attributes):
        column = data.X[:, j]
        known = column[~np.isnan(column)]
        if not attr.is_nominal and len(known):
            out[j] = float(known.max() - known.min())
    return out


def _branch_keys(split: Split) -> list:
    """A key per branch that names the values it takes, independent of the branch order."""
    if split.kind == THRESHOLD:
        return ["<=", ">"]
    return [frozenset(g) for g in split.groups]


def alike(a: Split | None, b: Split | None, slack: Sequence[float] = ()) -> bool:
    """Whether ``a`` and ``b`` split alike; ``slack[j]``: how far apart two thresholds on
    attribute ``j`` may be (default: they must be equal)."""
    if a is None or b is None:
        return a is b
    if a.attribute != b.attribute or (a.kind == THRESHOLD) != (b.kind == THRESHOLD):
        return False
    if a.kind == THRESHOLD:
        allowed = slack[a.attribute] if a.attribute < len(slack) else 0.0
        return abs(float(a.threshold) - float(b.threshold)) <= allowed + 1e-12
    return set(_branch_keys(a)) == set(_branch_keys(b))


def _child_for(a: Split, branch: int, b_node: Node) -> Node:
    """The child of ``b_node`` (split alike ``a``) on the branch that takes ``a``'s ``branch``."""
    return b_node.children[_branch_keys(b_node.split).index(_branch_keys(a)[branch])]


def corresponding(
    tree: Tree, node_id: int, other: Tree, slack: Sequence[float] = ()
) -> tuple[list[int], bool]:
    """The ids of ``other``'s nodes along ``node_id``'s path in ``tree``, from the root, as far
    as the splits above agree; and whether the whole path was followed (the last id then
    stands exactly where ``node_id`` does).

    Examples
    --------
    >>> from engine.estimator import DecisionTree
    >>> from engine.data.samples import load_sample
    >>> weather = load_sample("weather")
    >>> id3 = DecisionTree(algorithm="id3").fit(weather).tree_
    >>> cart = DecisionTree(algorithm="cart", prune="none").fit(weather).tree_
    >>> corresponding(id3, 2, id3)
    ([0, 1, 2], True)
    >>> corresponding(id3, 2, cart)
    ([0], False)
    """
    ids, here = [], other.root
    for node, branch in tree.path_to(node_id)[:-1]:
        ids.append(here.id)
        if not alike(node.split, here.split, slack):
            return ids, False
        here = _child_for(node.split, branch, here)
    ids.append(here.id)
    return ids, True


@dataclass(frozen=True)
class Parting:
    """Where two trees first part: the node ids in each (``first``, ``second``), the branches
    from the root that lead there (as (node id in the first tree, branch) pairs), and how they
    part (:data:`ATTRIBUTE`, :data:`STOP` or :data:`SHAPE`)."""

    first: int
    second: int
    path: tuple[tuple[int, int], ...]
    kind: str


def first_parting(a: Tree, b: Tree, slack: Sequence[float] = ()) -> Parting | None:
    """The shallowest node (leftmost among the shallowest, in ``a``'s branch order) where ``a``
    and ``b`` stop agreeing; None when they split alike everywhere.

    Examples
    --------
    >>> from engine.estimator import DecisionTree
    >>> from engine.data.samples import load_sample
    >>> lenses = load_sample("contact-lenses")
    >>> id3 = DecisionTree(algorithm="id3").fit(lenses).tree_
    >>> cart = DecisionTree(algorithm="cart", prune="none").fit(lenses).tree_
    >>> first_parting(id3, id3) is None
    True
    >>> first_parting(id3, cart).kind
    'shape'
    """
    queue = deque([(a.root, b.root, ())])
    while queue:
        x, y, path = queue.popleft()
        if not alike(x.split, y.split, slack):
            if x.split is None or y.split is None:
                kind = STOP
            else:
                kind = ATTRIBUTE if x.split.attribute != y.split.attribute else SHAPE
            return Parting(x.id, y.id, path, kind)
        for branch, child in enumerate(x.children):
            queue.append((child, _child_for(x.split, branch, y), (*path, (x.id, branch))))
    return None


@dataclass(frozen=True)
class Change:
    """One structural difference between a tree before and after: at the node standing at
    ``before_id`` / ``after_id`` (-1: none), a split was ``"added"`` (a leaf now splits),
    ``"removed"`` (a split is now a leaf) or ``"changed"`` (another split); ``nodes_before`` and
    ``nodes_after`` count the subtree there on each side."""

    kind: str
    before_id: int
    after_id: int
    nodes_before: int
    nodes_after: int


def _size(node: Node) -> int:
    return sum(1 for _ in node.walk())


def structural_changes(before: Tree, after: Tree, slack: Sequence[float] = ()) -> list[Change]:
    """Every place, top down, where ``after`` splits otherwise than ``before``; below a change
    nothing more is listed (the subtree there is another one).

    Examples
    --------
    >>> from engine.estimator import DecisionTree
    >>> from engine.data.samples import load_sample
    >>> lenses = load_sample("contact-lenses")
    >>> grown = DecisionTree(algorithm="cart", prune="none").fit(lenses).tree_
    >>> pruned = DecisionTree(algorithm="cart").fit(lenses).tree_
    >>> structural_changes(grown, grown)
    []
    >>> [(c.kind, c.nodes_before, c.nodes_after) for c in structural_changes(grown, pruned)]
    [('removed', 5, 1), ('removed', 5, 1)]
    """
    changes: list[Change] = []
    queue = deque([(before.root, after.root)])
    while queue:
        x, y = queue.popleft()
        if alike(x.split, y.split, slack):
            for branch, child in enumerate(x.children):
                queue.append((child, _child_for(x.split, branch, y)))
            continue
        kind = "added" if x.split is None else "removed" if y.split is None else "changed"
        changes.append(Change(kind, x.id, y.id, _size(x), _size(y)))
    return changes


def describe_split(tree: Tree, node: Node) -> str:
    """A split in words ("petalwidth <= 0.6", "outlook: sunny | overcast | rainy"), or "leaf"."""
    split = node.split
    if split is None:
        return "leaf"
    attr = tree.schema.attributes[split.attribute]
    if split.kind == THRESHOLD:
        return f"{attr.name} <= {split.threshold:.6g}"
    groups = [", ".join(attr.categories[c] for c in g) for g in split.groups]
    return f"{attr.name}: " + " | ".join(f"{{{g}}}" if "," in g else g for g in groups)


def branch_words(tree: Tree, node: Node, branch: int) -> str:
    """The test of ``node``'s ``branch`` ("outlook = sunny", "petalwidth > 0.6")."""
    split = node.split
    attr = tree.schema.attributes[split.attribute]
    if split.kind == THRESHOLD:
        return f"{attr.name} {'<=' if branch == 0 else '>'} {split.threshold:.6g}"
    values = [attr.categories[c] for c in split.groups[branch]]
    if len(values) == 1:
        return f"{attr.name} = {values[0]}"
    return f"{attr.name} in {{{', '.join(values)}}}"


def rule_to(tree: Tree, node_id: int) -> tuple[str, ...]:
    """The branch tests from the root to ``node_id`` (empty for the root)."""
    return tuple(branch_words(tree, n, b) for n, b in tree.path_to(node_id)[:-1])


def change_words(before: Tree, after: Tree, changes: list[Change]) -> list[str]:
    """Each change in words: where (the rule to it in ``before``) and what became of it.

    Examples
    --------
    >>> from engine.estimator import DecisionTree
    >>> from engine.data.samples import load_sample
    >>> lenses = load_sample("contact-lenses")
    >>> grown = DecisionTree(algorithm="cart", prune="none").fit(lenses).tree_
    >>> pruned = DecisionTree(algorithm="cart").fit(lenses).tree_
    >>> change_words(grown, pruned, structural_changes(grown, pruned))[0]
    'at tear-prod-rate = normal AND astigmatism = no: the split on age: {young, pre-presbyopic} | presbyopic removed (5 nodes became 1)'
    """
    out = []
    for c in changes:
        where = " AND ".join(rule_to(before, c.before_id)) or "the root"
        old, new = before.node(c.before_id), after.node(c.after_id)
        if c.kind == "added":
            what = f"a new split on {describe_split(after, new)}"
        elif c.kind == "removed":
            what = f"the split on {describe_split(before, old)} removed"
        else:
            what = f"{describe_split(before, old)} became {describe_split(after, new)}"
        out.append(f"at {where}: {what} ({c.nodes_before} nodes became {c.nodes_after})")
    return out
