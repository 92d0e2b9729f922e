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
from engine.learn.drafts import make_draft, partition
from engine.learn.problem import Candidate, Problem
from engine.learn.significance import SplitTest, bonferroni_multiplier, split_test
from engine.learn.splitting import choose, score_all, score_threshold_c45, scorer_for
from engine.learn.tolerances import C45_VALUE_EPS
from engine.settings import Settings
from engine.tree import MULTIWAY, SUBSET, Tree

#: Why an attribute offers no split at a node (``AttributeRow.reason``), in words.
REASONS = {
    "used": "already split on above (a multiway split uses each attribute once on a path)",
    "missing": "every value is missing here",
    "one value": "it has only one value here",
    "no gain": "no split of it gains anything here",
    "no gain (MDL)": "its best threshold (shown with its gain before the penalty) gains no more than C4.5 "
    "charges for choosing one (log2 of the candidate cuts / the node's rows)",
    "small": "every split of it leaves a branch below the minimum leaf size",
}


@dataclass(frozen=True)
class AttributeRow:
    """One attribute's measures at a node; ``reason`` (a key of :data:`REASONS`) says why it
    cannot split there (None when it can). ``threshold`` / ``groups``: the split scored."""

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
    groups: tuple[tuple[str, ...], ...] | None = None
    reason: str | None = None
    #: The split's chi-squared and G tests against "the attribute tells nothing about the
    #: class" (:mod:`engine.learn.significance`); None where no split is scored.
    test: SplitTest | None = None

    def as_dict(self) -> dict:
        out = dict(self.__dict__)
        out["groups"] = None if self.groups is None else [list(g) for g in self.groups]
        test = out.pop("test")
        for key in (
            "chi2",
            "g",
            "df",
            "p_chi2",
            "p_g",
            "multiplier",
            "p_chi2_adjusted",
            "p_g_adjusted",
        ):
            value = None if test is None else getattr(test, key)
            out[key] = None if isinstance(value, float) and np.isnan(value) else value
        return out


def used_on_path(tree: Tree, node_id: int) -> frozenset[int]:
    """Attributes a multiway split already used above ``node_id`` (ID3 and C4.5 split on a
    nominal attribute once per path)."""
    return frozenset(
        a.split.attribute for a, _ in tree.path_to(node_id)[:-1] if a.split.kind == MULTIWAY
    )


def node_rows(tree: Tree, data: Encoded, node_id: int, settings: Settings):
    """Training rows (and their fractional weights) that reach ``node_id``."""
    problem = Problem(data, settings)
    try:
        path = tree.path_to(node_id)
    except KeyError:
        raise ArborError(
            f"the tree has no node {node_id} (ids run from 0 to {tree.n_nodes - 1})"
        ) from None
    draft = make_draft(problem, np.arange(data.n_rows), data.weight.copy(), 0)
    for node, branch in path[:-1]:
        draft.candidate = Candidate(node.split.attribute, node.split, np.zeros(0), 0.0, 0.0)
        rows, weights = partition(problem, draft)[branch]
        draft = make_draft(problem, rows, weights, draft.depth + 1)
    return draft.rows, draft.weights


def attribute_table(
    data: Encoded,
    settings: Settings,
    rows=None,
    weights=None,
    chosen_attribute: int | None = None,
    used: frozenset[int] = frozenset(),
) -> list[AttributeRow]:
    """Measures for every attribute at the node holding ``rows`` (default: the root).

    ``used``: attributes split on above the node (see :func:`used_on_path`); the algorithm
    leaves them out, and so do the table's admissible splits.
    """
    if data.schema.is_regression:
        raise ArborError("the attribute table needs a classification target")
    problem = Problem(data, settings)
    rows = np.arange(data.n_rows) if rows is None else rows
    weights = data.weight[rows] if weights is None else weights
    parent = problem.stats(rows, weights)
    before = float(entropy(parent))
    node_weight = float(weights.sum())
    used = frozenset() if settings.binary else frozenset(used)
    candidates = score_all(problem, rows, weights, used)
    # One loose problem for every attribute that needs one: a problem sorts every numeric
    # column once, so one per attribute was quadratic (26 s on 5,000 columns; issue 31).
    loose = _loose(problem)
    if chosen_attribute is None:
        best = choose(problem, candidates)
        chosen_attribute = best.attribute if best is not None else -1
    table = []
    for j, attr in enumerate(data.schema.attributes):
        fallback = None if candidates[j] is not None else _fallback(loose, j, rows, weights)
        cand = candidates[j] if candidates[j] is not None else fallback
        reason = None if candidates[j] is not None else _reason(problem, j, rows, fallback, used)
        if reason == "no gain (MDL)":  # the cut C4.5 weighed, before its penalty took the gain
            cand = score_threshold_c45(loose, j, rows, weights, node_weight, penalised=False)
        if cand is None:
            table.append(
                AttributeRow(
                    attr.name, before, before, 0.0, 0.0, 0.0, 0.0, None, False, False, None, reason
                )
            )
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
        groups = None
        if cand.split.kind == SUBSET:
            groups = tuple(tuple(attr.categories[c] for c in g) for g in cand.split.groups)
        table.append(
            AttributeRow(
                attr.name,
                before,
                mi,
                ig,
                si,
                ig / si if si > 0 else 0.0,
                gg,
                cand.split.threshold,
                j == chosen_attribute,
                candidates[j] is not None,
                groups,
                reason,
                _test(data, j, rows, counts, cand.split.n_branches),
            )
        )
    return table


#: The attribute table's column each criterion ranks candidate splits by (misclassification
#: has no column of its own: Gini gain ranks its competitors).
RANKED_BY = {"gini": "gini_gain", "entropy": "info_gain", "gain_ratio": "gain_ratio"}
#: Competitors listed per node: rpart's ``maxcompete`` default.
MAX_COMPETITORS = 4


def competitors(
    table: list[AttributeRow], criterion: str, limit: int = MAX_COMPETITORS
) -> list[tuple[AttributeRow, float]]:
    """The next best splits after the chosen one, as rpart lists a node's competitors: the
    attributes that could split here, not chosen, best first by the criterion's score."""
    field = RANKED_BY.get(criterion, "gini_gain")
    rows = [(r, float(getattr(r, field))) for r in table if r.admissible and not r.chosen]
    rows.sort(key=lambda rs: -rs[1])  # stable: the table's order on ties
    return rows[:limit]


def _test(data: Encoded, j: int, rows, counts, n_branches: int) -> SplitTest:
    """The split's tests, adjusted for the splits the attribute could have made at the node."""
    x = data.X[rows, j]
    n_values = len(np.unique(x[~np.isnan(x)]))
    nominal = data.schema.attributes[j].is_nominal
    return split_test(counts, bonferroni_multiplier(nominal, n_values, n_branches))


def _reason(problem: Problem, j: int, rows, fallback: Candidate | None, used) -> str:
    """Why attribute ``j`` offers the algorithm no split at the node holding ``rows``."""
    if j in used:
        return "used"
    x = problem.data.X[rows, j]
    x = x[~np.isnan(x)]
    if len(x) == 0:
        return "missing"
    if x.max() - x.min() <= C45_VALUE_EPS:
        return "one value"
    if fallback is not None:
        return "small"
    nominal = problem.data.schema.attributes[j].is_nominal
    return "no gain (MDL)" if not nominal and not problem.settings.binary else "no gain"


def _loose(problem: Problem) -> Problem:
    return Problem(problem.data, replace(problem.settings, min_samples_leaf=0.0))


def _fallback(loose: Problem, j, rows, weights) -> Candidate | None:
    """Score an attribute the algorithm would not consider (so the table is complete), on the
    ``loose`` problem (:func:`_loose`)."""
    attr = loose.data.schema.attributes[j]
    return scorer_for(loose.settings, attr.is_nominal)(
        loose, j, rows, weights, float(weights.sum())
    )
