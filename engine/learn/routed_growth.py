"""CART grown with ``--missing surrogate``: every row goes down one branch with its whole
weight, rpart's way, rather than C4.5's fractional rows. (``--missing majority``, the same
without surrogates, is grown by the compiled loop, ``Params.majority``; called with it, this
module grows the same tree, which the tests hold the compiled one against.)

A row missing a split's attribute goes by the first of the split's surrogates
(:mod:`engine.learn.surrogates`) that can place it, else down the branch with most of the
known training weight (``majority``: no surrogates). The split search is
:mod:`engine.learn.splitting`'s, the one the compiled kernels repeat, node by node in numpy:
the routing by surrogates is the only thing that differs. The split records the routing: its fractions are 1 for the
majority branch and 0 for the other, so prediction, pruning and every exporter that knows
fractions send an unplaced row where growth sent it.
"""

from __future__ import annotations

import heapq
from dataclasses import replace
from itertools import count

import numpy as np

from engine.data.encoding import Encoded
from engine.learn import rules
from engine.learn.drafts import Draft, freeze, make_draft
from engine.learn.problem import Problem
from engine.learn.splitting import choose, score_all
from engine.learn.surrogates import find, route
from engine.monitor import NULL_MONITOR, Monitor, checkpoint
from engine.settings import Settings
from engine.tree import Node


def grow(
    data: Encoded,
    settings: Settings,
    monitor: Monitor = NULL_MONITOR,
    rows: np.ndarray | None = None,
    weights: np.ndarray | None = None,
    depth: int = 0,
) -> Node:
    """The tree (or the subtree below a node holding ``rows``), depth- or best-first."""
    problem = Problem(data, settings, monitor)
    nominal = np.array([a.is_nominal for a in data.schema.attributes], dtype=bool)
    rows = np.arange(data.n_rows) if rows is None else np.asarray(rows)
    weights = data.weight[rows] if weights is None else np.asarray(weights, dtype=np.float64)
    root = make_draft(problem, rows, weights, depth)
    _evaluate(problem, root)
    total = max(root.weight, 1e-300)
    best_first = settings.growth == "best"
    key = rules.GAIN_PRIORITY if settings.priority == "gain" else rules.WEIGHTED_PRIORITY
    order = count()
    frontier: list = []

    def push(d: Draft) -> None:
        if d.candidate is None:
            return
        if best_first:
            rank = -rules.queue_priority(d.candidate.gain, d.weight, total, key)
            heapq.heappush(frontier, (rank, next(order), d))
        else:  # depth-first: a stack, as a heap on decreasing insertion order
            heapq.heappush(frontier, (0.0, -next(order), d))

    push(root)
    leaves = 1
    while frontier:
        checkpoint()
        _, _, draft = heapq.heappop(frontier)
        if settings.max_leaves is not None and leaves + 1 > settings.max_leaves:
            draft.candidate = None
            continue
        leaves += 1
        draft.children = [
            make_draft(problem, r, w, draft.depth + 1)
            for r, w in _routed(problem, draft, nominal, settings.missing == "surrogate")
        ]
        for child in draft.children:
            _evaluate(problem, child)
        for child in draft.children if best_first else reversed(draft.children):
            push(child)
        monitor.report(min(0.99, 1.0 - 1.0 / leaves), f"{leaves} leaves")
    return freeze(problem, root)


def _evaluate(problem: Problem, draft: Draft) -> None:
    s = problem.settings
    top = 0.0 if problem.regression else float(draft.stats.max(initial=0.0))
    total = 0.0 if problem.regression else float(draft.stats.sum())
    pure = rules.is_pure(top, total, problem.regression, draft.impurity)
    max_depth = -1 if s.max_depth is None else s.max_depth
    if rules.stops_before_search(
        draft.weight, draft.depth, pure, s.min_samples_split, s.min_samples_leaf, max_depth
    ):
        return
    best = choose(problem, score_all(problem, draft.rows, draft.weights))
    if best is None or rules.gain_too_small(best.gain, s.min_gain, True):
        return
    draft.candidate = best


def _routed(problem: Problem, draft: Draft, nominal: np.ndarray, surrogates: bool):
    """The two children's rows and weights; the draft's split given its surrogates and
    its majority branch (as one-hot fractions)."""
    split = draft.candidate.split
    X = problem.data.X[draft.rows]
    primary = split.branch_of(X[:, split.attribute])
    found = find(X, primary, draft.weights, split.attribute, nominal) if surrogates else []
    branch = route(X, primary, draft.weights, found)
    known = primary >= 0
    to1 = draft.weights[known & (primary == 1)].sum() > draft.weights[known & (primary == 0)].sum()
    fractions = (0.0, 1.0) if to1 else (1.0, 0.0)
    split = replace(split, fractions=fractions, surrogates=tuple(found))
    draft.candidate = replace(draft.candidate, split=split)
    return [(draft.rows[branch == b], draft.weights[branch == b]) for b in (0, 1)]
