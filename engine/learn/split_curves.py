"""Split curves: every split one attribute could make at a node, each scored with every measure.

For a numeric attribute, every candidate cut point the algorithm's scorer considers (C4.5:
between distinct values, both sides at least C4.5's minimum split; CART: between values
CART tells apart, both sides at least the minimum leaf), with information gain, gain ratio
and Gini gain at each, and for C4.5 the gain after its MDL penalty (log2 of the cuts tried
over the node's weight, :func:`engine.learn.rules.c45_penalised`) and the gain ratio C4.5
computes from it. For a nominal attribute, each grouping the scorer tries: one for a
multiway split, every split into two groups for CART.

The measures use :mod:`engine.learn.explain`'s arithmetic (stacked, one row per cut), and
the cut the scorer picks is taken from the scorer itself, so the curve's value at ``best``
is, to the bit, the figure ``explain`` shows for the attribute, and ``best`` is the maximum
of the curve of the measure the scorer maximises (:attr:`SplitCurve.criterion`; ties within
Weka's 1e-6 go to the first cut, as C4.5 breaks them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from engine.data.encoding import Encoded
from engine.errors import ArborError
from engine.learn import rules
from engine.learn.criteria import entropy, gini, mean_info, split_info
from engine.learn.problem import Candidate, Problem, per_row_stats
from engine.learn.splitting import (
    _admissible,
    _subset_candidates,
    score_threshold_c45,
    scorer_for,
)
from engine.learn.thresholds import c45_threshold
from engine.learn.tolerances import WEKA_EPS
from engine.settings import Settings
from engine.tree import SUBSET, Split

#: The measures every curve carries, in the order tables and plots show them.
MEASURES = ("info_gain", "gain_ratio", "gini_gain")
#: C4.5's own figures for numeric attributes (after the MDL penalty).
MDL_MEASURES = ("mdl_gain", "mdl_gain_ratio")
LABELS = {
    "info_gain": "information gain",
    "gain_ratio": "gain ratio",
    "gini_gain": "Gini gain",
    "mdl_gain": "gain − MDL penalty (C4.5)",
    "mdl_gain_ratio": "gain ratio after MDL (C4.5)",
}


@dataclass(frozen=True, eq=False)
class SplitCurve:
    """One attribute's candidate splits at a node, one entry per cut (or grouping).

    ``thresholds``: the cut values (a row goes left when its value is at most the cut),
    placed where the algorithm places them; empty for a nominal attribute, whose
    ``groupings`` name each split's branches instead. ``values``: one array per measure
    (:data:`MEASURES`, plus :data:`MDL_MEASURES` for C4.5's numeric splits). ``best``: the
    index of the cut the algorithm's scorer picks for this attribute (the maximum of
    ``values[criterion]``); ``chosen``: the index of the node's own split when it is on
    this attribute. Both None when there is none.
    """

    attribute: str
    nominal: bool
    criterion: str
    thresholds: np.ndarray
    groupings: tuple[tuple[tuple[str, ...], ...], ...]
    values: dict[str, np.ndarray]
    best: int | None
    chosen: int | None
    n: float

    def __len__(self) -> int:
        return len(self.groupings) if self.nominal else len(self.thresholds)

    def cut(self, index: int | None):
        """The cut (a number) or grouping (text) at ``index``; None for None."""
        if index is None:
            return None
        return (
            grouping_text(self.groupings[index]) if self.nominal else float(self.thresholds[index])
        )

    def as_dict(self) -> dict:
        """The curve for JSON: ``thresholds``, one list per measure, ``chosen``/``best`` cuts."""
        out = {
            "attribute": self.attribute,
            "kind": "nominal" if self.nominal else "numeric",
            "criterion": self.criterion,
            "n": self.n,
            "thresholds": [float(t) for t in self.thresholds],
        }
        if self.nominal:
            out["groupings"] = [grouping_text(g) for g in self.groupings]
        out.update({k: [float(v) for v in vals] for k, vals in self.values.items()})
        out.update(
            {
                "best": self.cut(self.best),
                "best_index": self.best,
                "chosen": self.cut(self.chosen),
                "chosen_index": self.chosen,
            }
        )
        return out


def grouping_text(groups) -> str:
    """``a, b | c``: the categories of each branch."""
    return " | ".join(", ".join(g) for g in groups)


def split_curve(
    data: Encoded,
    settings: Settings,
    attribute: str | int,
    rows=None,
    weights=None,
    node_split: Split | None = None,
) -> SplitCurve:
    """The split curve of ``attribute`` at the node holding ``rows`` (default: the root).

    ``node_split``: the split the tree makes at that node, marked as ``chosen`` when it is on
    this attribute.
    """
    if data.schema.is_regression:
        raise ArborError("split curves need a classification target")
    names = [a.name for a in data.schema.attributes]
    if isinstance(attribute, str):
        if attribute not in names:
            raise ArborError(f"no attribute {attribute!r} (attributes: {', '.join(names)})")
        j = names.index(attribute)
    else:
        j = int(attribute)
    attr = data.schema.attributes[j]
    problem = Problem(data, settings)
    rows = np.arange(data.n_rows) if rows is None else np.asarray(rows)
    weights = data.weight[rows] if weights is None else np.asarray(weights)
    node_weight = float(weights.sum())
    used, cand = _candidate(problem, j, rows, weights, node_weight)
    criterion = (
        ("gini_gain" if settings.impurity == "gini" else "info_gain")
        if settings.binary
        else "info_gain"
    )  # C4.5 and ID3 pick a threshold by gain; gain ratio only ranks attributes
    if attr.is_nominal:
        groupings, counts, best = _groupings(used, j, rows, weights, cand)
        thresholds = np.zeros(0)
    else:
        thresholds, counts, best = _cuts(used, j, rows, weights, node_weight, cand)
        groupings = ()
    values = _measures(counts, node_weight)
    if not attr.is_nominal and not settings.binary and len(thresholds):
        penalty = math.log2(len(thresholds)) / node_weight  # rules.c45_penalised, for every cut
        values["mdl_gain"] = values["info_gain"] - penalty
        si = values["split_info"]
        with np.errstate(invalid="ignore", divide="ignore"):
            values["mdl_gain_ratio"] = np.where(
                si > WEKA_EPS, values["mdl_gain"] / np.where(si > 0, si, 1.0), 0.0
            )
    del values["split_info"]
    chosen = None
    if node_split is not None and node_split.attribute == j and len(counts):
        if attr.is_nominal:
            named = tuple(tuple(attr.categories[c] for c in g) for g in node_split.groups)
            chosen = groupings.index(named) if named in groupings else None
        else:
            hit = np.flatnonzero(thresholds == node_split.threshold)
            chosen = int(hit[0]) if len(hit) else None
    return SplitCurve(
        attr.name,
        attr.is_nominal,
        criterion,
        thresholds,
        groupings,
        values,
        best,
        chosen,
        node_weight,
    )


def _candidate(problem: Problem, j: int, rows, weights, node_weight: float):
    """The split ``explain`` scores for attribute ``j`` and the problem that scored it: the
    scorer's, else the scorer's without the minimum leaf (explain's fallback), else C4.5's
    best cut before the MDL penalty refused it (explain's "no gain (MDL)")."""
    nominal = problem.data.schema.attributes[j].is_nominal
    scorer = scorer_for(problem.settings, nominal)
    cand = scorer(problem, j, rows, weights, node_weight)
    if cand is not None:
        return problem, cand
    loose = Problem(problem.data, replace(problem.settings, min_samples_leaf=0.0))
    cand = scorer(loose, j, rows, weights, node_weight)
    if cand is None and not nominal and not problem.settings.binary:
        cand = score_threshold_c45(loose, j, rows, weights, node_weight, penalised=False)
    return loose, cand


def _measures(counts: np.ndarray, node_weight: float) -> dict[str, np.ndarray]:
    """explain's figures for stacked splits: ``counts`` is (splits, branches, classes)."""
    if len(counts) == 0:
        return {k: np.zeros(0) for k in (*MEASURES, "split_info")}
    known = counts.reshape(len(counts), -1).sum(axis=1)  # each split's counts.sum(), as explain
    frac = known / node_weight if node_weight else np.zeros(len(counts))
    sizes = counts.sum(axis=2)
    parent = counts.sum(axis=1)
    ig = frac * (np.asarray(entropy(parent)) - np.asarray(mean_info(counts)))
    unknown = node_weight - known
    padded = np.concatenate([sizes, unknown[:, None]], axis=1)
    si = np.where(unknown > 1e-12, np.asarray(split_info(padded)), np.asarray(split_info(sizes)))
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(si > 0, ig / np.where(si > 0, si, 1.0), 0.0)
    gg = frac * (np.asarray(gini(parent)) - np.asarray(mean_info(counts, gini)))
    return {
        "info_gain": ig + 0.0,
        "gain_ratio": ratio + 0.0,
        "gini_gain": gg + 0.0,
        "split_info": si,
    }


def _cuts(problem: Problem, j: int, rows, weights, node_weight: float, cand: Candidate | None):
    """Every cut the numeric scorer tries: thresholds, (cuts, 2, classes) counts, best index."""
    x = problem.data.X[rows, j]
    known = ~np.isnan(x)
    x, krows, kw = x[known], rows[known], weights[known]
    empty = np.zeros(0), np.zeros((0, 2, max(problem.n_classes, 1))), None
    if cand is None or len(x) < 2:
        return empty
    order = np.argsort(x, kind="stable")
    xs = x[order]
    cum = np.cumsum(per_row_stats(problem, krows[order], kw[order]), axis=0)
    total = problem.stats(rows, weights)
    missing = ~known
    if missing.any():
        total = total - problem.stats(rows[missing], weights[missing])
    binary = problem.settings.binary
    cut = np.flatnonzero(rules.distinct(xs[:-1], xs[1:], binary))
    left = cum[cut]
    right = total - left
    if binary:
        ok = _admissible(problem, left, right)
    else:
        min_split = rules.c45_min_split(
            float(total.sum()), problem.n_classes, problem.settings.min_samples_leaf
        )
        ok = rules.c45_cut_admissible(left.sum(axis=1), right.sum(axis=1), min_split)
    cut, left, right = cut[ok], left[ok], right[ok]
    a, b = xs[cut], xs[cut + 1]
    if binary:
        mid = a / 2.0 + b / 2.0  # rules.cart_threshold, elementwise
        thresholds = np.where((mid == b) | ~np.isfinite(mid), a, mid)
    else:
        mid = (a + b) / 2  # rules.c45_midpoint, then thresholds.c45_threshold, elementwise
        mid = np.where(mid == b, a, mid)
        thresholds = _c45_thresholds(problem.sorted_values[j], mid)
    # The best cut's branch counts as the scorer holds them (its left and right), so explain's
    # figure is recomputed from the very same numbers.
    counts = np.stack([left, right], axis=1)
    hit = np.flatnonzero(thresholds == cand.split.threshold)
    best = int(hit[0]) if len(hit) else None
    if best is not None:
        counts[best] = cand.branch_counts
    return thresholds, counts, best


def _c45_thresholds(values: np.ndarray, mids: np.ndarray) -> np.ndarray:
    """:func:`c45_threshold` for many midpoints: a vectorised guess, checked, and the few it
    gets wrong (values within 1e-6 of each other) done one by one."""
    if len(values) == 0:
        return mids.copy()
    i = np.searchsorted(values, mids + WEKA_EPS, side="right")
    below_ok = (i == 0) | (values[np.maximum(i - 1, 0)] - mids < WEKA_EPS)
    above_ok = (i == len(values)) | (values[np.minimum(i, len(values) - 1)] - mids >= WEKA_EPS)
    out = np.where(i > 0, values[np.maximum(i - 1, 0)], mids)
    for k in np.flatnonzero(~(below_ok & above_ok)):
        out[k] = c45_threshold(values, float(mids[k]))
    return out.astype(np.float64)


def _groupings(problem: Problem, j: int, rows, weights, cand: Candidate | None):
    """Every grouping the nominal scorer tries: names, (groupings, branches, classes) counts,
    best index."""
    attr = problem.data.schema.attributes[j]
    empty = (), np.zeros((0, 2, max(problem.n_classes, 1))), None
    if cand is None:
        return empty
    if cand.split.kind != SUBSET:  # multiway: one grouping, a branch per category
        groups = tuple((c,) for c in attr.categories)
        return (groups,), cand.branch_counts[None].astype(np.float64), 0
    x = problem.data.X[rows, j]
    known = ~np.isnan(x)
    stats = per_row_stats(problem, rows[known], weights[known])
    table = np.zeros((len(attr.categories), stats.shape[1]))
    np.add.at(table, x[known].astype(np.intp), stats)
    present = np.flatnonzero(table.sum(axis=1) > 0)
    sub = table[present]
    masks, left = _subset_candidates(problem, sub)
    total = sub.sum(axis=0)
    right = total - left
    ok = _admissible(problem, left, right)
    masks = masks[ok]
    masks = np.where(
        masks[:, :1], masks, ~masks
    )  # branch 0 holds the first category, as the scorer
    counts = np.zeros((len(masks), 2, sub.shape[1]))
    for c in range(len(present)):  # category by category: sub[mask].sum(axis=0)'s order
        counts[:, 0] += np.where(masks[:, c, None], sub[c], 0.0)
        counts[:, 1] += np.where(masks[:, c, None], 0.0, sub[c])
    groupings = tuple(
        (
            tuple(attr.categories[c] for c in present[mask]),
            tuple(attr.categories[c] for c in present[~mask]),
        )
        for mask in masks
    )
    named = tuple(tuple(attr.categories[c] for c in g) for g in cand.split.groups)
    best = groupings.index(named) if named in groupings else None
    return groupings, counts, best
