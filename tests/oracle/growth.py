"""The test oracle: the growth loop written plainly with numpy, over the readable scorers.

This is not used by Arbor itself. Every tree is grown by the compiled builder
(:mod:`engine.fast`); the tests grow the same trees here, node by node, from
:mod:`engine.learn.splitting`'s scorers and :mod:`engine.learn.rules`, and compare.

Nodes are expanded depth-first (ID3's recursion, made iterative) or best-first
(seed 004's Algorithm 3: a priority queue of leaves ranked by how much their
best split would lower the tree's total impurity, i.e. gain times the node's
share of the instances). Exact split search only: the histogram splitter is
tested against exact search where every value has its own bin.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from itertools import count

import numpy as np

from engine.data.encoding import Encoded
from engine.learn import rules
from engine.learn.drafts import Draft, freeze, make_draft, partition
from engine.learn.problem import Problem
from engine.learn.splitting import choose, score_all
from engine.settings import Settings
from engine.tree import MULTIWAY, Node


def is_pure(problem: Problem, draft: Draft) -> bool:
    top = 0.0 if problem.regression else float(draft.stats.max(initial=0.0))
    total = 0.0 if problem.regression else float(draft.stats.sum())
    return rules.is_pure(top, total, problem.regression, draft.impurity)


def evaluate(problem: Problem, draft: Draft) -> None:
    """Find the split ``draft`` would take, or leave ``candidate`` None for a leaf."""
    s = problem.settings
    if rules.stops_before_search(
        draft.weight,
        draft.depth,
        is_pure(problem, draft),
        s.min_samples_split,
        s.min_samples_leaf,
        -1 if s.max_depth is None else s.max_depth,
    ):
        return
    best = choose(problem, score_all(problem, draft.rows, draft.weights, exclude=draft.used))
    if best is None or rules.gain_too_small(best.gain, s.min_gain, s.binary):
        return
    draft.candidate = best


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


def priority(draft: Draft, total_weight: float, priority_key: str = "weighted") -> float:
    """What ``draft`` is worth to the best-first queue: n/N x gain, or the gain alone
    (``--priority gain``, seed 004's ΔI)."""
    key = rules.GAIN_PRIORITY if priority_key == "gain" else rules.WEIGHTED_PRIORITY
    return rules.queue_priority(draft.candidate.gain, draft.weight, total_weight, key)


def expansions(problem: Problem, root: Draft, frontier: list | None = None) -> Iterator[Draft]:
    """Expand an evaluated root one node at a time, yielding each node just expanded.

    ``frontier``: a list to keep the queue in; its ``(key, tiebreak, draft)`` entries,
    sorted, are the open leaves in the order they will be taken."""
    s = problem.settings
    total = max(root.weight, 1e-300)
    leaves = 1
    order = count()
    frontier = [] if frontier is None else frontier

    def push(d: Draft) -> None:
        if d.candidate is None:
            return
        key = -priority(d, total, s.priority) if s.growth == "best" else 0.0
        # Depth-first: a LIFO stack is a heap keyed on decreasing insertion order.
        tiebreak = next(order) if s.growth == "best" else -next(order)
        heapq.heappush(frontier, (key, tiebreak, d))

    push(root)
    while frontier:
        _, _, draft = heapq.heappop(frontier)
        n_branches = draft.candidate.split.n_branches
        if s.max_leaves is not None and leaves + n_branches - 1 > s.max_leaves:
            draft.candidate = None
            continue
        leaves += n_branches - 1
        children = expand(problem, draft)
        for child in reversed(children) if s.growth != "best" else children:
            push(child)
        yield draft


def preorder_ids(root: Draft) -> dict[int, int]:
    """Each draft's id once frozen (its pre-order position), keyed by ``id(draft)``."""
    ids, stack = {}, [root]
    while stack:
        d = stack.pop()
        ids[id(d)] = len(ids)
        stack.extend(reversed(d.children))
    return ids


def grow(
    data: Encoded,
    settings: Settings,
    rows=None,
    weights=None,
    depth: int = 0,
    used: frozenset = frozenset(),
) -> Node:
    """The tree (or the subtree below a node holding ``rows``) the compiled builder must grow."""
    problem = Problem(data, settings)
    rows = np.arange(data.n_rows) if rows is None else np.asarray(rows)
    weights = data.weight[rows] if weights is None else np.asarray(weights, dtype=np.float64)
    root = make_draft(problem, rows, weights, depth, frozenset(used))
    evaluate(problem, root)
    for _ in expansions(problem, root):
        pass
    return freeze(problem, root)


def grow_steps(data: Encoded, settings: Settings) -> Iterator[tuple]:
    """What :func:`engine.growth.grow_steps` must yield: (tree so far, id of the node
    just split, its priority, the queue of open leaves as (id, priority) in the order taken)."""
    problem = Problem(data, settings)
    root = make_draft(problem, np.arange(data.n_rows), data.weight.copy(), 0)
    evaluate(problem, root)
    total = max(root.weight, 1e-300)
    key = settings.priority if settings.growth == "best" else "weighted"
    frontier: list = []
    for draft in expansions(problem, root, frontier):
        ids = preorder_ids(root)
        queue = tuple(
            (ids[id(d)], priority(d, total, key))
            for _, _, d in sorted(frontier, key=lambda e: e[:2])
        )
        yield freeze(problem, root), ids[id(draft)], priority(draft, total, key), queue
