"""C4.5's error-based pruning as J48 does it.

Seed 001's three options per node (keep, leaf, raise the most populated branch),
with the bound from :mod:`engine.prune.bounds`, after the collapse step.

C4.5's trees are pruned on their arrays (:mod:`engine.prune.pessimistic_arrays`). The node
objects here, which carry their rows while pruning rearranges them, are the readable
statement of the rules and the arrays' test oracle; they also take the trees the arrays
do not (regression, surrogate splits), which C4.5's settings never make.
"""

from __future__ import annotations

import sys
from dataclasses import replace

import numpy as np

from engine.data.encoding import Encoded, without_rows
from engine.learn.costs import least_cost
from engine.learn.problem import Problem
from engine.learn.tolerances import WEKA_EPS
from engine.monitor import NULL_MONITOR, Monitor, checkpoint
from engine.prune.pessimistic_arrays import (
    arrays_apply,
    collapse_arrays,
    leaf_error_bound,
    prune_pessimistic_arrays,
)
from engine.prune.pessimistic_arrays import wrong_count as _wrong
from engine.prune.record import (
    BRANCH,
    COLLAPSED,
    IS_LEAF,
    KEPT,
    LEAF,
    PRUNED,
    RAISED,
    RECORD_LIMIT,
    SUBTREE,
    Decision,
    PruningOption,
    PruningRecord,
    Share,
)
from engine.prune.routing import LiveNode, counted_live, rebuild, reroute, to_node, training_live
from engine.settings import Settings
from engine.tree import Tree


def _wrong_for(costs):
    """A leaf's training errors: counted, or with a cost matrix (``--costs``) their cost,
    the leaf labelled with its class of least expected cost."""
    if not costs:
        return _wrong
    return lambda dist: least_cost(dist, costs)[0] if dist.sum() > 0 else 0.0


def _by_dist(f):
    """``f`` of a live node's class weights, worked out once per array: a live node's ``dist``
    never changes, and the sums over a subtree's leaves ask for each leaf's figure again at
    every node above it. Keyed by the array itself (held, so its id is not reused)."""
    known: dict[int, tuple[np.ndarray, float]] = {}

    def memo(dist: np.ndarray) -> float:
        hit = known.get(id(dist))
        if hit is not None and hit[0] is dist:
            return hit[1]
        value = f(dist)
        known[id(dist)] = (dist, value)
        return value

    return memo


def _leaves(live: LiveNode):
    stack, seen = [live], 0
    while stack:
        seen += 1
        if not seen & 255:
            checkpoint()
        n = stack.pop()
        if n.is_leaf:
            yield n
        else:
            stack.extend(n.children)


class _Recorder:
    """Collects a pruner's decisions as it makes them (see :mod:`engine.prune.record`)."""

    def __init__(self, problem: Problem):
        self.problem = problem
        self.decisions: list[Decision] = []

    def add(
        self, path, verdict, options, before: LiveNode | None = None, after: LiveNode | None = None
    ) -> None:
        before_node = None if before is None else to_node(self.problem, before, numbered=False)
        after_node = None if after is None else to_node(self.problem, after, numbered=False)
        self.decisions.append(
            Decision(
                len(self.decisions), tuple(path), verdict, tuple(options), before_node, after_node
            )
        )

    def snapshot(self, live: LiveNode) -> LiveNode:
        """``live``'s subtree as it stands (to keep as a decision's ``before``)."""
        return LiveNode(
            live.split, list(live.children), live.rows, live.weights, live.dist, dict(live.stats)
        )

    def finish(self, method: str, before: Tree, settings: Settings | None = None) -> PruningRecord:
        return PruningRecord(
            method,
            before,
            tuple(self.decisions),
            settings.error_estimate if settings else None,
            settings.confidence if settings else None,
        )


def _share(branch: int, live: LiveNode, estimate) -> Share:
    leaves = list(_leaves(live))
    return Share(
        branch,
        float(live.weights.sum()),
        sum(_wrong(leaf.dist) for leaf in leaves),
        float(sum(estimate(leaf.dist) for leaf in leaves)),
        len(leaves),
    )


def _options(
    live: LiveNode, estimate, raised: LiveNode | None = None, branch: int = -1
) -> tuple[PruningOption, ...]:
    """The leaf and subtree options at ``live`` (and the raised branch), shares per branch."""
    leaf = Share(-1, float(live.weights.sum()), _wrong(live.dist), float(estimate(live.dist)), 1)
    options = [PruningOption(LEAF, leaf.estimate, (leaf,))]
    if not live.is_leaf:
        parts = tuple(_share(b, c, estimate) for b, c in enumerate(live.children))
        options.insert(0, PruningOption(SUBTREE, sum(s.estimate for s in parts), parts))
    if raised is not None:  # its shares are those of its own branches (itself, if a leaf)
        parts = tuple(_share(b, c, estimate) for b, c in enumerate(raised.children)) or (
            _share(-1, raised, estimate),
        )
        options.append(PruningOption(BRANCH, sum(s.estimate for s in parts), parts, branch))
    return tuple(options)


def collapse(problem: Problem, live: LiveNode, recorder: _Recorder | None = None, costs=()) -> None:
    """Turn a split into a leaf when its leaves make no fewer training errors than it would
    (with a cost matrix ``costs``: cost no less)."""
    counted = _wrong_for(costs)
    wrong = _by_dist(counted)
    stack = [(live, ())]
    while stack:
        checkpoint()
        n, path = stack.pop()
        if n.is_leaf:
            continue
        if sum(wrong(leaf.dist) for leaf in _leaves(n)) >= wrong(n.dist) - 1e-3:
            if recorder is not None:
                before = recorder.snapshot(n)
                options = _options(n, counted)
                n.make_leaf()
                recorder.add(path, COLLAPSED, options, before, n)
            else:
                n.make_leaf()
        else:
            stack.extend((c, (*path, b)) for b, c in enumerate(n.children))


class _Pessimistic:
    def __init__(
        self,
        problem: Problem,
        settings: Settings,
        monitor: Monitor,
        recorder: _Recorder | None = None,
        costs=(),
    ):
        self.problem, self.cf, self.costs = problem, settings.confidence, costs
        self.method, self.raising = settings.error_estimate, settings.subtree_raising
        self.monitor, self.recorder = monitor, recorder
        self.leaf_errors = _by_dist(self._leaf_errors)

    def _leaf_errors(self, dist: np.ndarray) -> float:
        return leaf_error_bound(dist, self.cf, self.method, self.costs)

    def tree_errors(self, live: LiveNode) -> float:
        return sum(self.leaf_errors(leaf.dist) for leaf in _leaves(live))

    def prune(self, live: LiveNode, path: tuple[int, ...] = ()) -> None:
        record = self.recorder
        if live.is_leaf:
            live.stats["error_as_leaf"] = self.leaf_errors(live.dist)
            if record is not None:
                record.add(path, IS_LEAF, _options(live, self.leaf_errors))
            return
        self.monitor.check()
        for b, child in enumerate(live.children):
            self.prune(child, (*path, b))
        sizes = np.array([float(c.weights.sum()) for c in live.children])
        # J48 raises the last of equally populated branches (its maxBag keeps the last tie).
        largest = int(np.flatnonzero(sizes >= sizes.max() - WEKA_EPS)[-1])
        as_leaf = self.leaf_errors(live.dist)
        as_tree = self.tree_errors(live)
        raised = None
        as_branch = np.inf
        if self.raising:
            raised = reroute(self.problem, live.children[largest], live.rows, live.weights)
            as_branch = self.tree_errors(raised)
        live.stats.update(error_as_leaf=as_leaf, error_as_subtree=as_tree)
        if self.raising:
            live.stats["error_as_branch"] = as_branch
        before = None
        if record is not None:
            options = _options(live, self.leaf_errors, raised, largest)
            before = record.snapshot(live)
        if as_leaf <= as_tree + 0.1 + WEKA_EPS and as_leaf <= as_branch + 0.1 + WEKA_EPS:
            live.make_leaf()
            live.stats["pruned"] = 1.0
            if record is not None:
                record.add(path, PRUNED, options, before, live)
            return
        if as_branch <= as_tree + 0.1 + WEKA_EPS:
            live.split, live.children = raised.split, raised.children
            live.stats["raised"] = 1.0
            if record is not None:
                record.add(path, RAISED, options, before, live)
            self.prune(live, path)
        elif record is not None:
            record.add(path, KEPT, options)


def _recorder(problem: Problem, tree: Tree, record: bool) -> _Recorder | None:
    return _Recorder(problem) if record and tree.n_nodes <= RECORD_LIMIT else None


def prune_pessimistic(
    tree: Tree,
    data: Encoded | None,
    settings: Settings,
    monitor: Monitor = NULL_MONITOR,
    record: bool = False,
) -> Tree:
    """C4.5 / J48 pruning: collapse, then keep / leaf / raise by the upper error bound.

    Without ``data`` (a tree trained over partitions) it prunes from the tree's counts,
    which needs no rows unless a subtree is raised: then subtree raising must be off.

    With ``record`` (and a tree of at most :data:`engine.prune.record.RECORD_LIMIT` nodes)
    the pruned tree carries its :class:`engine.prune.record.PruningRecord` as ``pruning``.

    On the tree's arrays (:mod:`engine.prune.pessimistic_arrays`).
    """
    if arrays_apply(tree, data):
        return prune_pessimistic_arrays(tree, data, settings, monitor, record)
    return prune_pessimistic_nodes(tree, data, settings, monitor, record)


def prune_pessimistic_nodes(
    tree: Tree,
    data: Encoded | None,
    settings: Settings,
    monitor: Monitor = NULL_MONITOR,
    record: bool = False,
) -> Tree:
    """:func:`prune_pessimistic` on node objects, which carry their rows while it
    rearranges them: the oracle the arrays' pruner is tested against
    (``tests/engine/prune/test_pessimistic_arrays.py``)."""
    problem, live = _live(tree, data, settings)
    recorder = _recorder(problem, tree, record)
    collapse(problem, live, recorder, tree.costs)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * tree.depth + 1000))
    try:
        _Pessimistic(problem, settings, monitor, recorder, tree.costs).prune(live)
    finally:
        sys.setrecursionlimit(limit)
    pruned = rebuild(problem, tree, live)
    if recorder is None:
        return pruned
    return replace(pruned, pruning=recorder.finish("pessimistic", tree, settings))


def collapse_tree(tree: Tree, data: Encoded | None, settings: Settings) -> Tree:
    """Only C4.5's collapse step (what J48 does even when pruning is off); without ``data``
    from the tree's counts."""
    if arrays_apply(tree, data):
        return collapse_arrays(tree, data, settings)
    return collapse_nodes(tree, data, settings)


def collapse_nodes(tree: Tree, data: Encoded | None, settings: Settings) -> Tree:
    """:func:`collapse_tree` on node objects (from counts alone; the arrays' oracle)."""
    problem, live = _live(tree, data, settings)
    collapse(problem, live, costs=tree.costs)
    return rebuild(problem, tree, live)


def _live(tree: Tree, data: Encoded | None, settings: Settings) -> tuple[Problem, LiveNode]:
    if data is not None:
        problem = Problem(data, settings)
        return problem, training_live(problem, tree)
    if settings.subtree_raising and settings.prune == "pessimistic":
        raise ValueError("subtree raising re-routes training rows: it needs the data")
    return Problem(without_rows(tree.schema), settings), counted_live(tree.root)
