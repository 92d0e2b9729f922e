"""The test oracle for ``--missing surrogate``: CART grown plainly with numpy, rows missing a
split's attribute sent down by its surrogates (:mod:`engine.learn.surrogates`), else with
the majority, as rpart grows (``usesurrogate = 2``) and predicts.

Not used by Arbor itself: the split search is :mod:`engine.learn.splitting`'s, each row
goes down one branch with its whole weight, and the result is plain tuples, so that a
test can hold it against rpart's recorded tree and predictions (and, later, against the
compiled builder's).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.data.encoding import Encoded
from engine.learn import rules
from engine.learn.problem import Problem
from engine.learn.splitting import choose, score_all
from engine.learn.surrogates import Surrogate, find, route
from engine.settings import Settings
from engine.tree import Split


@dataclass(eq=False)
class Grown:
    """A node: its rows' class weights; for a split, the split, its surrogates, the side
    a row none of them places goes to, and the two children."""

    stats: np.ndarray
    split: Split | None = None
    surrogates: list[Surrogate] = field(default_factory=list)
    majority: int = 0
    children: tuple[Grown, ...] = ()

    def walk(self):
        yield self
        for child in self.children:
            yield from child.walk()


def grow(data: Encoded, settings: Settings) -> Grown:
    problem = Problem(data, settings)
    nominal = np.array([a.is_nominal for a in data.schema.attributes])
    rows = np.arange(data.n_rows)
    return _grow(problem, nominal, rows, 0)


def _grow(problem: Problem, nominal, rows, depth: int) -> Grown:
    s = problem.settings
    weights = problem.data.weight[rows]
    stats = problem.stats(rows, weights)
    node = Grown(stats)
    total = float(stats.sum())
    pure = rules.is_pure(float(stats.max(initial=0.0)), total, False, 0.0)
    max_depth = -1 if s.max_depth is None else s.max_depth
    if rules.stops_before_search(
        total, depth, pure, s.min_samples_split, s.min_samples_leaf, max_depth
    ):
        return node
    best = choose(problem, score_all(problem, rows, weights))
    if best is None or rules.gain_too_small(best.gain, s.min_gain, True):
        return node
    X = problem.data.X[rows]
    primary = best.split.branch_of(X[:, best.attribute])
    node.split = best.split
    node.surrogates = find(X, primary, weights, best.attribute, nominal)
    known = primary >= 0
    node.majority = int(
        weights[known & (primary == 1)].sum() > weights[known & (primary == 0)].sum()
    )
    branch = route(X, primary, weights, node.surrogates)
    node.children = tuple(_grow(problem, nominal, rows[branch == b], depth + 1) for b in (0, 1))
    return node


def predict(root: Grown, X: np.ndarray) -> np.ndarray:
    """The class code of each row: the leaf it reaches, a tie to the first class."""
    out = np.empty(len(X), dtype=np.intp)
    for i, x in enumerate(np.asarray(X, dtype=np.float64)):
        node = root
        while node.split is not None:
            b = int(node.split.branch_of(x[node.split.attribute : node.split.attribute + 1])[0])
            for s in node.surrogates:
                if b >= 0:
                    break
                b = int(s.branch_of(x[s.attribute : s.attribute + 1])[0])
            node = node.children[node.majority if b < 0 else b]
        out[i] = int(np.argmax(node.stats))
    return out
