"""What pruning decided at each node, kept as data so views can follow it.

A :class:`PruningRecord` runs from the tree before pruning to the tree after: one
:class:`Decision` per node visited, in the order the pruner made them (C4.5's
collapse top-down, then its bottom-up pass; reduced-error pruning bottom-up).
Each decision holds the options weighed there with the shares that make them
(per branch, or per leaf), the verdict, and the subtree it replaced, so a view
can show the candidates at any node (leaves too), draw what was pruned away,
and replay the pass step by step with :meth:`PruningRecord.tree_at`.

Nodes are addressed by their path (branch indices from the root): pruning only
ever replaces the node it decides on, so a path stays valid from the step that
decides it to the end, while ids shift as subtrees go.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

from engine.tree import Node, Tree, renumber

#: Options a pruner weighs at a node.
SUBTREE, LEAF, BRANCH = "subtree", "leaf", "branch"
#: Verdicts: a leaf has nothing to decide; a split is kept, pruned to a leaf, replaced by its
#: largest branch (C4.5's subtree raising), or collapsed (C4.5's first step: its leaves make
#: no fewer training errors than it would alone).
IS_LEAF, KEPT, PRUNED, RAISED, COLLAPSED = "leaf", "kept", "pruned", "raised", "collapsed"
#: Above this many nodes in the tree before pruning, pruners keep no record (one decision per
#: node costs about 1.4 kB, the grown tree included; the walk-through is for trees a person reads).
RECORD_LIMIT = 5_000


@dataclass(frozen=True)
class Share:
    """One part of an option's estimate: a leaf, or a whole branch summed over its leaves.

    ``n`` instances reach it and its leaves misclassify ``errors`` of them; ``estimate`` is
    the errors the pruner counts (C4.5: ``n`` times the upper confidence bound on the
    error rate; reduced-error pruning: the held-out errors themselves).
    """

    branch: int  # the branch it hangs from; -1: the node itself (the leaf option)
    n: float
    errors: float
    estimate: float
    leaves: int  # 1: a single leaf, whose bound is ``rate``

    @property
    def rate(self) -> float:
        """``estimate / n``: for a single leaf, C4.5's upper bound p on its error rate."""
        return self.estimate / self.n if self.n > 0 else 0.0


@dataclass(frozen=True)
class PruningOption:
    """One way to end the tree at a node, and its estimated errors (the sum of its parts)."""

    kind: str  # SUBTREE, LEAF or BRANCH
    total: float
    parts: tuple[Share, ...]
    branch: int = -1  # BRANCH: the branch raised in the node's place


@dataclass(frozen=True, eq=False)
class Decision:
    """The pruner's verdict at one node, the options it weighed, and what changed there.

    ``before`` is the subtree that stood at ``path`` when it was decided (only when the
    verdict changed it) and ``after`` what replaced it: a leaf, or the raised branch with
    the node's rows routed through it (before the pruner went on into it).
    """

    step: int
    path: tuple[int, ...]
    verdict: str
    options: tuple[PruningOption, ...]
    before: Node | None = None
    after: Node | None = None

    def option(self, kind: str) -> PruningOption | None:
        return next((o for o in self.options if o.kind == kind), None)

    @property
    def changed(self) -> bool:
        return self.after is not None


@dataclass(frozen=True, eq=False)
class PruningRecord:
    """Every decision from ``before`` (the tree given to the pruner) to the pruned tree.

    ``method`` is ``"pessimistic"`` or ``"reduced-error"``; for pessimistic pruning
    ``estimate`` names the error estimate (``"c45"`` or ``"exact"``) and ``confidence``
    its confidence factor.
    """

    method: str
    before: Tree
    decisions: tuple[Decision, ...]
    estimate: str | None = None
    confidence: float | None = None
    #: The tree carrying this record is the state after this many decisions (None: all).
    step: int | None = None

    def tree_at(self, step: int) -> Tree:
        """The tree after the first ``step`` decisions (0: ``before``; all: the pruned tree),
        carrying this record as of that step."""
        root = self.before.root
        for decision in self.decisions[:step]:
            if decision.changed:
                root = _replace_at(root, decision.path, decision.after)
        return Tree(
            renumber(root),
            self.before.schema,
            replace(self, step=step),
            self.before.pseudocounts,
        )

    def _end(self, step: int | None) -> int:
        step = self.step if step is None else step
        return len(self.decisions) if step is None else step

    def decisions_at(self, tree: Tree, node_id: int, step: int | None = None) -> list[Decision]:
        """The decisions about the node at ``node_id``'s place in ``tree`` (the state after
        ``step`` decisions, by default the record's own), oldest first: e.g. collapsed, then
        bounded as a leaf."""
        return self._about(path_of(tree, node_id), self._end(step))

    def removed(self, tree: Tree, node_id: int, step: int | None = None) -> Node | None:
        """What pruning cut away at ``node_id`` (a leaf it made), as grown: nested cuts made
        earlier below it are put back, so the whole removed subtree can be drawn as a ghost."""
        return self._grown(path_of(tree, node_id), self._end(step))

    @cached_property
    def _by_path(self) -> dict[tuple[int, ...], list[int]]:
        """Steps of the decisions at each path, in order."""
        index: dict[tuple[int, ...], list[int]] = {}
        for decision in self.decisions:
            index.setdefault(decision.path, []).append(decision.step)
        return index

    @cached_property
    def _raises(self) -> list[Decision]:
        return [d for d in self.decisions if d.verdict == RAISED]

    def _last_raise(self, path: tuple[int, ...], end: int) -> Decision | None:
        """The latest raise before ``end`` at ``path`` or above it: it put other nodes there."""
        found = [r for r in self._raises if r.step < end and r.path == path[: len(r.path)]]
        return found[-1] if found else None

    def _about(self, path: tuple[int, ...], end: int) -> list[Decision]:
        raised = self._last_raise(path, end)
        start = raised.step if raised is not None else 0
        return [self.decisions[k] for k in self._by_path.get(path, ()) if start <= k < end]

    def _grown(self, path: tuple[int, ...], end: int) -> Node | None:
        cut = self._last_cut(path, end)
        return None if cut is None else self._expand(cut.before, cut.path, cut.step)

    def _last_cut(self, path: tuple[int, ...], end: int) -> Decision | None:
        """The latest cut at ``path`` before ``end``, following the node back through raises:
        a branch raised at A stood at A + (its branch,) before, with all below it."""
        while True:
            raised = self._last_raise(path, end)
            start = raised.step if raised is not None else 0
            cuts = [
                k
                for k in self._by_path.get(path, ())
                if start <= k < end and self.decisions[k].verdict in (PRUNED, COLLAPSED)
            ]
            if cuts:
                return self.decisions[cuts[-1]]
            if raised is None:
                return None
            at = len(raised.path)
            path, end = (*path[:at], raised.option(BRANCH).branch, *path[at:]), raised.step

    def _expand(self, node: Node, path: tuple[int, ...], end: int) -> Node:
        if node.is_leaf:
            grown = self._grown(path, end)
            return node if grown is None else grown
        children = tuple(self._expand(c, (*path, b), end) for b, c in enumerate(node.children))
        return replace(node, children=children)


def path_of(tree: Tree, node_id: int) -> tuple[int, ...]:
    """Branch indices from the root down to ``node_id``."""
    return tuple(branch for _, branch in tree.path_to(node_id)[:-1])


def node_at(root: Node, path: tuple[int, ...]) -> Node:
    node = root
    for branch in path:
        node = node.children[branch]
    return node


def _replace_at(root: Node, path: tuple[int, ...], new: Node) -> Node:
    if not path:
        return new
    spine = [root]
    for branch in path[:-1]:
        spine.append(spine[-1].children[branch])
    for ancestor, branch in zip(reversed(spine), reversed(path), strict=True):
        children = list(ancestor.children)
        children[branch] = new
        new = replace(ancestor, children=tuple(children))
    return new
