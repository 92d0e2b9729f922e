"""Nodes under construction: the rows (and fractional weights) that reach them, and freezing
them into immutable :class:`engine.tree.Node` objects.

Hand edits (:mod:`engine.learn.editing`) and ``explain`` build nodes this way; the growth
loop itself is compiled (:mod:`engine.fast`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.learn.problem import Candidate, Problem
from engine.tree import NO_STATS, Node, SplitScores, partition_rows, renumber


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


def partition(problem: Problem, draft: Draft) -> list[tuple[np.ndarray, np.ndarray]]:
    """Rows and weights of each branch; missing values go down every branch, weighted (or
    by the split's surrogates, then down its majority branch: ``--missing surrogate``)."""
    split = draft.candidate.split
    X = problem.data.X[draft.rows] if split.surrogates else None
    return partition_rows(
        split, problem.data.X[draft.rows, split.attribute], draft.rows, draft.weights, X=X
    )


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
        id=0,
        depth=d.depth,
        weight=d.weight,
        distribution=distribution,
        impurity=d.impurity,
        value=float(value),
        split=split,
        children=children,
        stats=stats,
    )
