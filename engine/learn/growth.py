"""The one growth loop every algorithm uses.

Nodes are expanded depth-first (ID3's recursion, made iterative) or best-first
(seed 004's Algorithm 3: a priority queue of leaves ranked by how much their
best split would lower the tree's total impurity, i.e. gain times the node's
share of the instances). Growth works on mutable drafts and freezes them into
immutable :class:`engine.tree.Node` objects at the end.

On larger data without missing values, :func:`grow` hands the same loop,
compiled, to :mod:`engine.fast.compiled` (see :mod:`engine.fast.builder` for when): it
takes the same steps in the same order and yields the same tree, checking the
monitor between chunks of work instead of between nodes.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import count

import numpy as np

from engine.data.encoding import Encoded
from engine.learn.problem import Candidate, Problem
from engine.learn.splitting import choose, score_all
from engine.learn.tolerances import WEKA_EPS
from engine.monitor import NULL_MONITOR, Monitor
from engine.settings import Settings
from engine.tree import MULTIWAY, NO_STATS, Node, SplitScores, partition_rows, renumber


@dataclass(eq=False)
class Draft:
    """A node while the tree grows."""

    rows: np.ndarray
    weights: np.ndarray
    depth: int
    stats: np.ndarray
    impurity: float
    used: frozenset = frozenset()
    candidate: Candidate | None = None
    children: list[Draft] = field(default_factory=list)

    @property
    def weight(self) -> float:
        return float(self.weights.sum())


def make_draft(problem: Problem, rows, weights, depth: int, used=frozenset()) -> Draft:
    stats = problem.stats(rows, weights)
    return Draft(rows, weights, depth, stats, float(problem.impurity(stats)), used)


def is_pure(problem: Problem, draft: Draft) -> bool:
    if problem.regression:
        return draft.impurity <= np.finfo(np.float64).eps
    total = draft.stats.sum()
    return total <= 0 or draft.stats.max() >= total - WEKA_EPS * max(total, 1.0)


def evaluate(problem: Problem, draft: Draft) -> None:
    """Find the split ``draft`` would take, or leave ``candidate`` None for a leaf."""
    s = problem.settings
    w = draft.weight
    if (
        is_pure(problem, draft)
        or w < s.min_samples_split
        or (s.max_depth is not None and draft.depth >= s.max_depth)
        or w < 2 * s.min_samples_leaf
    ):
        return
    candidates = score_all(problem, draft.rows, draft.weights, exclude=draft.used)
    best = choose(problem, candidates)
    if best is None:
        return
    if s.binary:
        if best.gain + 1e-12 < s.min_gain:
            return
    elif best.gain - s.min_gain <= WEKA_EPS:
        return
    draft.candidate = best


def partition(problem: Problem, draft: Draft) -> list[tuple[np.ndarray, np.ndarray]]:
    """Rows and weights of each branch; missing values go down every branch, weighted."""
    split = draft.candidate.split
    return partition_rows(split, problem.data.X[draft.rows, split.attribute], draft.rows, draft.weights)


def expand(problem: Problem, draft: Draft) -> list[Draft]:
    """Split ``draft`` by its candidate; the children are evaluated, ready to expand."""
    used = draft.used
    if draft.candidate.split.kind == MULTIWAY:
        used = used | {draft.candidate.attribute}
    draft.children = [
        make_draft(problem, rows, weights, draft.depth + 1, used)
        for rows, weights in partition(problem, draft)
    ]
    for child in draft.children:
        evaluate(problem, child)
    return draft.children


def priority(draft: Draft, total_weight: float) -> float:
    """How much expanding ``draft`` lowers the tree's total impurity."""
    return draft.candidate.gain * draft.weight / total_weight


def expansions(problem: Problem, root: Draft, monitor: Monitor = NULL_MONITOR,
               frontier: list | None = None) -> Iterator[Draft]:
    """Expand an evaluated root one node at a time, yielding each node just expanded.

    ``frontier``: a list to keep the queue in, for a caller that shows it between steps;
    its ``(key, tiebreak, draft)`` entries, sorted, are the open leaves in the order taken.
    """
    s = problem.settings
    total = max(root.weight, 1e-300)
    leaves, settled = 1, 0.0
    order = count()
    frontier = [] if frontier is None else frontier

    def push(d: Draft) -> None:
        nonlocal settled
        if d.candidate is None:
            settled += d.weight
            return
        key = -priority(d, total) if s.growth == "best" else 0.0
        # Depth-first: a LIFO stack is a heap keyed on decreasing insertion order.
        tiebreak = next(order) if s.growth == "best" else -next(order)
        heapq.heappush(frontier, (key, tiebreak, d))

    push(root)
    while frontier:
        monitor.check()
        _, _, draft = heapq.heappop(frontier)
        n_branches = draft.candidate.split.n_branches
        if s.max_leaves is not None and leaves + n_branches - 1 > s.max_leaves:
            draft.candidate = None
            settled += draft.weight
            continue
        leaves += n_branches - 1
        children = expand(problem, draft)
        for child in reversed(children) if s.growth != "best" else children:
            push(child)
        monitor.report(settled / total, f"{leaves} leaves")
        yield draft


def freeze(problem: Problem, root: Draft) -> Node:
    """Immutable nodes from drafts, ids in pre-order."""
    order, stack = [], [root]
    while stack:
        d = stack.pop()
        order.append(d)
        stack.extend(d.children)
    built: dict[int, Node] = {}
    for d in reversed(order):
        built[id(d)] = to_node(problem, d, tuple(built.pop(id(c)) for c in d.children))
    return renumber(built[id(root)])


def to_node(problem: Problem, d: Draft, children: tuple[Node, ...]) -> Node:
    stats = NO_STATS
    split = None
    if children:
        c = d.candidate
        split = c.split
        stats = SplitScores(c.gain, c.gain_ratio)
    if problem.regression:
        distribution = np.zeros(0)
        value = d.stats[1] / d.stats[0] if d.stats[0] > 0 else float("nan")
    else:
        distribution = d.stats
        value = float("nan")
    distribution.setflags(write=False)
    return Node(
        id=0, depth=d.depth, weight=d.weight, distribution=distribution, impurity=d.impurity,
        value=float(value), split=split, children=children, stats=stats,
    )


def grow(
    data: Encoded,
    settings: Settings,
    monitor: Monitor = NULL_MONITOR,
    rows: np.ndarray | None = None,
    weights: np.ndarray | None = None,
    depth: int = 0,
    used: frozenset = frozenset(),
    compiled: bool | None = None,
) -> Node:
    """Grow a tree on ``data``; or, given ``rows``/``weights``/``depth``/``used`` (attributes
    already split on by multiway ancestors), the subtree below an existing node.

    ``compiled``: None lets :func:`engine.fast.builder.plan` decide (and uses the numpy loop
    below while the kernels' one-time compilation is still running), True uses the
    compiled builder whenever it can (any size, waiting for the compilation), False
    always runs the numpy loop.
    """
    from engine.fast import builder as fastpath
    from engine.fast.compile import COMPILE_PATIENCE, wait_until_compiled

    problem = Problem(data, settings, monitor)
    monitor.report(0.0, "choosing the first split")
    rows = np.arange(data.n_rows) if rows is None else np.asarray(rows)
    weights = data.weight[rows] if weights is None else np.asarray(weights, dtype=np.float64)
    mode = None
    if compiled is not False:
        mode = fastpath.plan(problem, rows, weights, used, force=bool(compiled))
    patience = None if compiled else COMPILE_PATIENCE
    if mode is not None and wait_until_compiled(monitor, patience):
        node = fastpath.grow_compiled(problem, mode, rows, weights, depth, frozenset(used), monitor)
        monitor.report(1.0, "grown")
        return node
    root = make_draft(problem, rows, weights, depth, frozenset(used))
    evaluate(problem, root)
    for _ in expansions(problem, root, monitor):
        pass
    monitor.report(1.0, "grown")
    return freeze(problem, root)


@dataclass(frozen=True)
class GrowthStep:
    """One expansion, for watching the algorithm work.

    ``root`` is the whole tree so far and ``expanded`` the id (in it) of the node just
    split; ``priority`` is what the node was worth to the queue: its share of the rows
    times its split's gain, n/N x gain (seed 004, Algorithm 3; best-first takes the
    largest). ``queue`` lists the open leaves, (id, priority), in the order they will be
    taken: by priority for best-first, last in first out for depth-first.
    """

    root: Node
    expanded: int
    priority: float
    queue: tuple[tuple[int, float], ...]


def grow_steps(data: Encoded, settings: Settings) -> Iterator[GrowthStep]:
    """Grow one split at a time, in the order the settings' growth strategy expands nodes."""
    problem = Problem(data, settings)
    root = make_draft(problem, np.arange(data.n_rows), data.weight.copy(), 0)
    evaluate(problem, root)
    total = max(root.weight, 1e-300)
    frontier: list = []
    for draft in expansions(problem, root, frontier=frontier):
        ids = _preorder_ids(root)
        queue = tuple((ids[id(d)], priority(d, total)) for _, _, d in sorted(frontier, key=lambda e: e[:2]))
        yield GrowthStep(freeze(problem, root), ids[id(draft)], priority(draft, total), queue)


def _preorder_ids(root: Draft) -> dict[int, int]:
    """Each draft's id once frozen (its pre-order position), keyed by ``id(draft)``."""
    ids, stack = {}, [root]
    while stack:
        d = stack.pop()
        ids[id(d)] = len(ids)
        stack.extend(reversed(d.children))
    return ids
