"""The seeds' hand computation, for any node: one row of measures per attribute.

For each attribute the split it would make at the node (multiway for ID3 and
C4.5 nominal attributes, C4.5's threshold for numeric ones, CART's binary
splits) is scored with every measure the seeds use, so the table matches the
lecture notes whichever algorithm grew the tree.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from engine.data.encoding import Encoded
from engine.errors import ArborError
from engine.learn.criteria import entropy, gini, mean_info, split_info
from engine.learn.growth import make_draft, partition
from engine.learn.problem import Candidate, Problem
from engine.learn.splitting import choose, score_all, scorer_for
from engine.settings import Settings
from engine.tree import Tree


@dataclass(frozen=True)
class AttributeRow:
    name: str
    entropy_before: float
    mean_info: float
    info_gain: float
    split_info: float
    gain_ratio: float
    gini_gain: float
    threshold: float | None
    chosen: bool
    admissible: bool

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def node_rows(tree: Tree, data: Encoded, node_id: int, settings: Settings):
    """Training rows (and their fractional weights) that reach ``node_id``."""
    problem = Problem(data, settings)
    try:
        path = tree.path_to(node_id)
    except KeyError:
        raise ArborError(f"the tree has no node {node_id} (ids run from 0 to "
                         f"{tree.n_nodes - 1})") from None
    draft = make_draft(problem, np.arange(data.n_rows), data.weight.copy(), 0)
    for node, branch in path[:-1]:
        draft.candidate = Candidate(node.split.attribute, node.split, np.zeros(0), 0.0, 0.0)
        rows, weights = partition(problem, draft)[branch]
        draft = make_draft(problem, rows, weights, draft.depth + 1)
    return draft.rows, draft.weights


def attribute_table(data: Encoded, settings: Settings, rows=None, weights=None,
                    chosen_attribute: int | None = None) -> list[AttributeRow]:
    """Measures for every attribute at the node holding ``rows`` (default: the root)."""
    if data.schema.is_regression:
        raise ArborError("the attribute table needs a classification target")
    problem = Problem(data, settings)
    rows = np.arange(data.n_rows) if rows is None else rows
    weights = data.weight[rows] if weights is None else weights
    parent = problem.stats(rows, weights)
    before = float(entropy(parent))
    node_weight = float(weights.sum())
    candidates = score_all(problem, rows, weights)
    if chosen_attribute is None:
        best = choose(problem, candidates)
        chosen_attribute = best.attribute if best is not None else -1
    table = []
    for j, attr in enumerate(data.schema.attributes):
        cand = candidates[j] if candidates[j] is not None else _fallback(problem, j, rows, weights)
        if cand is None:
            table.append(AttributeRow(attr.name, before, before, 0.0, 0.0, 0.0, 0.0, None,
                                      False, False))
            continue
        counts = cand.branch_counts
        known = counts.sum()
        frac = known / node_weight if node_weight else 0.0
        sizes = counts.sum(axis=1)
        mi = float(mean_info(counts))
        ig = float(frac * (float(entropy(counts.sum(axis=0))) - mi))
        unknown = node_weight - known
        si = float(split_info(np.append(sizes, unknown) if unknown > 1e-12 else sizes))
        gg = float(frac * (float(gini(counts.sum(axis=0))) - float(mean_info(counts, gini))))
        table.append(AttributeRow(
            attr.name, before, mi, ig, si, ig / si if si > 0 else 0.0, gg,
            cand.split.threshold, j == chosen_attribute, candidates[j] is not None))
    return table


def _fallback(problem: Problem, j, rows, weights) -> Candidate | None:
    """Score an attribute the algorithm would not consider (so the table is complete)."""
    loose = Problem(problem.data, replace(problem.settings, min_samples_leaf=0.0))
    attr = problem.data.schema.attributes[j]
    return scorer_for(loose.settings, attr.is_nominal)(loose, j, rows, weights, float(weights.sum()))
