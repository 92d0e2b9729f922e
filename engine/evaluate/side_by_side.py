"""ID3, C4.5, CART and the optimal tree grown on one table, side by side: each algorithm's tree as grown and as
pruned, where each pair first parts and why there (every criterion's ranking of the
attributes at that node), and what each pruning removed.

Each algorithm gets the person's options where they apply and its own defaults otherwise:
the options that define an algorithm (criterion, pruning, minimum leaf size) are the
algorithm's own unless it is the one the person chose; the rest (depth, leaves, seed, ...)
are shared. The optimal tree searches every tree of a depth, so it searches the person's max
depth capped at :data:`OPTIMAL_MAX_DEPTH` (3 when none is chosen), within
:data:`OPTIMAL_SECONDS` unless a time limit is chosen, and only on a table small enough for
that (:data:`OPTIMAL_WORK`); its column says which depth it searched.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from itertools import combinations

import numpy as np

from engine.data.encoding import Encoded
from engine.errors import ArborError
from engine.evaluate.stability import average_gain
from engine.evaluate.tree_match import (
    THRESHOLD_TOLERANCE,
    Change,
    Parting,
    attribute_ranges,
    describe_split,
    first_parting,
    rule_to,
    structural_changes,
)
from engine.fitting import fit_tree, prune_for
from engine.growth import grow_whole
from engine.learn import rules
from engine.learn.explain import node_rows, used_on_path
from engine.learn.problem import Candidate, Problem
from engine.learn.splitting import score_all
from engine.monitor import NULL_MONITOR, Monitor, watching
from engine.optimal import binarise
from engine.settings import OPTIMAL_MAX_DEPTH, OPTIONS, Settings, default, resolve
from engine.tree import Tree

#: The algorithms grown side by side, in the view's order.
SIDE_BY_SIDE: tuple[str, ...] = ("id3", "c45", "cart", "optimal")
GREEDY = ("id3", "c45", "cart")
LABELS = {"id3": "ID3", "c45": "C4.5", "cart": "CART", "optimal": "Optimal"}
#: Options whose default differs between the greedy algorithms: they make the algorithm what
#: it is. (The optimal tree's own depth and bins are not these: a max depth chosen holds for
#: every tree, the optimal one's capped.)
OWN_OPTIONS = frozenset(o.name for o in OPTIONS if set(o.per_algorithm) & set(GREEDY))
#: The optimal tree's search beside the others: at most this long unless the person chose a
#: time limit (it then keeps the best tree found, and says so), ...
OPTIMAL_SECONDS = 20.0
#: ... and only on tables where rows x candidate splits^(depth - 1), about the search's
#: work, stays under this (iris at depth 4: 150 x 54^3, 2.4e7).
OPTIMAL_WORK = 5e7
#: What each criterion's ranking scores, in words.
MEASURES = {
    "entropy": "information gain",
    "gain_ratio": "gain ratio",
    "gini": "Gini decrease",
    "misclassification": "misclassification decrease",
    "squared_error": "variance decrease",
}
GROWN, PRUNED = "grown", "pruned"


def settings_for(algorithm: str, params: Mapping) -> Settings:
    """``algorithm``'s settings beside the person's ``params`` (their chosen algorithm's).

    Examples
    --------
    >>> s = settings_for("cart", {"algorithm": "c45", "max_depth": 3, "criterion": "gain_ratio"})
    >>> s.algorithm, s.criterion, s.max_depth, s.prune
    ('cart', 'gini', 3, 'cost-complexity')
    """
    own = params.get("algorithm") == algorithm
    given = {k: v for k, v in params.items() if k != "algorithm" and (own or k not in OWN_OPTIONS)}
    if algorithm == "optimal" and not own:
        given = {k: v for k, v in given.items() if k in _OPTIMAL_SHARED}
        given["max_depth"] = optimal_depth(params)
        given.setdefault("time_limit", OPTIMAL_SECONDS)
    kept = ("task", "max_depth", "time_limit") if algorithm == "optimal" else ("task",)
    for tried in (given, {k: v for k, v in given.items() if k in kept}):
        try:
            return resolve(algorithm=algorithm, **tried)
        except ArborError:  # an option that does not apply here: this algorithm's defaults
            continue
    # Only the task is left to refuse (regression for a classifier): unavailable() says so.
    return resolve(algorithm=algorithm)


#: The person's options the optimal tree takes beside the greedy ones (the rest are theirs).
_OPTIMAL_SHARED = frozenset(
    ("task", "max_leaves", "min_samples_leaf", "splitter", "time_limit", "laplace", "m_estimate")
)


def optimal_depth(params: Mapping) -> int:
    """The depth the optimal tree searches beside the others: the person's max depth capped
    at :data:`OPTIMAL_MAX_DEPTH`, else the optimal tree's default (3)."""
    depth = params.get("max_depth")
    if depth is None:
        return int(default("max_depth", "optimal"))
    return max(1, min(int(depth), OPTIMAL_MAX_DEPTH))


def depth_note(settings: Settings, params: Mapping) -> str | None:
    """What the optimal tree's column says of its depth (None for the greedy algorithms)."""
    if settings.algorithm != "optimal":
        return None
    depth, asked = settings.max_depth, params.get("max_depth")
    if asked is None:
        return f"depth {depth}, the optimal tree's default (no max depth chosen)"
    if asked > depth:
        return f"depth {depth}: your max depth {asked} capped at {OPTIMAL_MAX_DEPTH}"
    return f"depth {depth}, your max depth"


def unavailable(data: Encoded, settings: Settings) -> str | None:
    """Why ``settings``' algorithm cannot grow a tree on ``data`` (None: it can)."""
    if settings.algorithm == "optimal" and not data.schema.is_regression:
        rows = np.flatnonzero(data.weight > 0)
        splits = binarise(data, rows, settings.splitter, settings.max_bins).n_features
        work = len(rows) * float(max(splits, 1)) ** max(settings.max_depth - 1, 1)
        if work > OPTIMAL_WORK:
            return (
                f"the optimal tree of depth {settings.max_depth} would search {len(rows):,} rows "
                f"over {splits} candidate splits, too long beside the others: choose a smaller "
                "max depth, or grow it alone (Algorithm: optimal)"
            )
    if settings.algorithm == "id3":
        numeric = [a.name for a in data.schema.attributes if not a.is_nominal]
        if numeric:
            return f"ID3 splits nominal attributes only, and {numeric[0]!r} is numeric"
    if data.schema.is_regression and settings.algorithm != "cart":
        return f"{LABELS.get(settings.algorithm, settings.algorithm)} only classifies"
    return None


@dataclass(frozen=True, eq=False)
class Grown:
    """One algorithm's trees: ``grown`` (before pruning) and ``pruned`` (the fit), or
    ``reason`` why it has none; ``removed``: what pruning changed, top down."""

    algorithm: str
    settings: Settings
    grown: Tree | None = None
    pruned: Tree | None = None
    reason: str | None = None
    removed: tuple[Change, ...] = ()
    note: str | None = None  # the optimal tree: the depth it searched, and why

    @property
    def label(self) -> str:
        return LABELS.get(self.algorithm, self.algorithm)

    def tree(self, stage: str) -> Tree | None:
        return self.grown if stage == GROWN else self.pruned


@dataclass(frozen=True)
class Ranked:
    """One attribute in a criterion's ranking at a node. ``admissible``: the algorithm could
    split on it there; ``above_average``: C4.5's rule (gain at least the average gain), None
    for the other algorithms."""

    attribute: str
    score: float
    split: str
    admissible: bool
    chosen: bool
    above_average: bool | None = None


@dataclass(frozen=True, eq=False)
class Divergence:
    """Where two algorithms' trees (at one stage) first part, and the rankings there."""

    first: str
    second: str
    stage: str
    parting: Parting | None
    rule: tuple[str, ...] = ()
    splits: Mapping[str, str] = field(default_factory=dict)
    rankings: Mapping[str, tuple[Ranked, ...]] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class SideBySide:
    """The algorithms' trees on one table and every pair's first divergence."""

    data: Encoded
    algorithms: tuple[Grown, ...]
    divergences: tuple[Divergence, ...]
    tolerance: float = THRESHOLD_TOLERANCE

    def by_name(self, algorithm: str) -> Grown:
        return next(g for g in self.algorithms if g.algorithm == algorithm)

    def divergence(self, first: str, second: str, stage: str = GROWN) -> Divergence | None:
        return next(
            (
                d
                for d in self.divergences
                if d.stage == stage and {d.first, d.second} == {first, second}
            ),
            None,
        )


def _score(settings: Settings, candidate: Candidate) -> float:
    return candidate.gain_ratio if settings.criterion == "gain_ratio" else candidate.gain


def ranking(data: Encoded, grown: Grown, stage: str, node_id: int) -> tuple[Ranked, ...]:
    """Every attribute at ``node_id`` of ``grown``'s tree, best first by its criterion, scored
    on the split the algorithm would make of it there (C4.5: the average-gain rule marked)."""
    tree, settings = grown.tree(stage), grown.settings
    rows, weights = node_rows(tree, data, node_id, settings)
    problem = Problem(data, settings)
    used = frozenset() if settings.binary else used_on_path(tree, node_id)
    candidates = score_all(problem, rows, weights, used)
    node = tree.node(node_id)
    chosen = node.split.attribute if node.split is not None else -1
    average = average_gain(data, settings, candidates)
    out = []
    for j, attr in enumerate(data.schema.attributes):
        c = candidates[j]
        if c is None:
            out.append(Ranked(attr.name, float("-inf"), "—", False, j == chosen))
            continue
        above = None if average is None else bool(c.gain >= average - rules.GAIN_AVERAGE_SLACK)
        words = describe_split(tree, replace(node, split=c.split))
        out.append(Ranked(attr.name, float(_score(settings, c)), words, True, j == chosen, above))
    order = sorted(range(len(out)), key=lambda k: (not out[k].admissible, -out[k].score))
    return tuple(out[k] for k in order)


def _fit(data: Encoded, settings: Settings, monitor: Monitor) -> tuple[Tree, Tree]:
    """The tree as grown and as pruned, growing once (reduced-error pruning grows on part of
    the rows, so its grown tree is the one its record starts from)."""
    if settings.prune == "reduced-error":
        pruned = fit_tree(data, settings, monitor, record=True)
        before = getattr(pruned.pruning, "before", None)
        return (before if before is not None else pruned), pruned
    grown = grow_whole(data, settings, monitor.scaled(0.0, 0.7))
    # The record (C4.5's pessimistic pruning keeps one) lets a view draw what was cut.
    return grown, prune_for(grown, data, settings, monitor.scaled(0.7, 1.0), record=True)


def compare(
    data: Encoded,
    params: Mapping,
    algorithms: tuple[str, ...] = SIDE_BY_SIDE,
    monitor: Monitor = NULL_MONITOR,
    tolerance: float = THRESHOLD_TOLERANCE,
) -> SideBySide:
    """Grow ``algorithms`` on ``data`` with the person's ``params`` (see :func:`settings_for`)
    and find where each pair first parts, before and after pruning.

    Examples
    --------
    >>> from engine.data.encoding import encode
    >>> from engine.data.samples import load_sample
    >>> result = compare(encode(load_sample("iris")), {})
    >>> [(g.label, g.reason is None) for g in result.algorithms]
    [('ID3', False), ('C4.5', True), ('CART', True), ('Optimal', True)]
    >>> d = result.divergence("c45", "cart")
    >>> d.splits["c45"], d.splits["cart"]
    ('petalwidth <= 0.6', 'petallength <= 2.45')
    """
    with watching(monitor):
        slack = attribute_ranges(data) * tolerance
        grown: list[Grown] = []
        n = len(algorithms)
        for k, algorithm in enumerate(algorithms):
            settings = settings_for(algorithm, params)
            reason = unavailable(data, settings)
            label = LABELS.get(algorithm, algorithm)
            monitor.report(k / n, f"growing {label}")
            if reason is not None:
                grown.append(Grown(algorithm, settings, reason=reason))
                continue
            before, after = _fit(data, settings, monitor.scaled(k / n, (k + 1) / n, label))
            removed = tuple(structural_changes(before, after, slack))
            note = depth_note(settings, params)
            stats = before.root.stats
            if note and stats.get("lower bound", 0) < stats.get("training errors", 0):
                note += f"; stopped at the {settings.time_limit:g} s limit: the best tree found"
            grown.append(Grown(algorithm, settings, before, after, None, removed, note))
        divergences = []
        ready = [g for g in grown if g.reason is None]
        for stage in (GROWN, PRUNED):
            for a, b in combinations(ready, 2):
                divergences.append(_divergence(data, a, b, stage, slack))
        monitor.report(1.0, "compared")
        return SideBySide(data, tuple(grown), tuple(divergences), tolerance)


def _divergence(data: Encoded, a: Grown, b: Grown, stage: str, slack) -> Divergence:
    ta, tb = a.tree(stage), b.tree(stage)
    parting = first_parting(ta, tb, slack)
    if parting is None:
        return Divergence(a.algorithm, b.algorithm, stage, None)
    splits = {
        a.algorithm: describe_split(ta, ta.node(parting.first)),
        b.algorithm: describe_split(tb, tb.node(parting.second)),
    }
    rankings = {}
    if not data.schema.is_regression:
        rankings = {
            a.algorithm: ranking(data, a, stage, parting.first),
            b.algorithm: ranking(data, b, stage, parting.second),
        }
    return Divergence(
        a.algorithm,
        b.algorithm,
        stage,
        parting,
        rule_to(ta, parting.first),
        splits,
        rankings,
    )


def _number(value: float) -> float | None:
    return None if not np.isfinite(value) else round(float(value), 6)


def as_dict(result: SideBySide) -> dict:
    """The comparison as JSON-ready data (``python main.py diff --json``)."""
    algorithms = []
    for g in result.algorithms:
        entry: dict = {"algorithm": g.algorithm, "label": g.label, "available": g.reason is None}
        if g.reason is not None:
            entry["reason"] = g.reason
        else:
            entry["criterion"] = g.settings.criterion
            entry["prune"] = g.settings.prune
            if g.note is not None:
                entry["max_depth"], entry["note"] = g.settings.max_depth, g.note
            for stage in (GROWN, PRUNED):
                t = g.tree(stage)
                entry[stage] = {"n_nodes": t.n_nodes, "n_leaves": t.n_leaves, "depth": t.depth}
            entry["pruning_removed"] = [
                {
                    "kind": c.kind,
                    "node": c.before_id,
                    "rule": list(rule_to(g.grown, c.before_id)),
                    "nodes_before": c.nodes_before,
                    "nodes_after": c.nodes_after,
                }
                for c in g.removed
            ]
        algorithms.append(entry)
    pairs = []
    for d in result.divergences:
        entry = {"first": d.first, "second": d.second, "stage": d.stage, "divergence": None}
        if d.parting is not None:
            entry["divergence"] = {
                "kind": d.parting.kind,
                "node": {d.first: d.parting.first, d.second: d.parting.second},
                "rule": list(d.rule),
                "splits": dict(d.splits),
                "rankings": {
                    name: {
                        "measure": MEASURES.get(result.by_name(name).settings.criterion, ""),
                        "attributes": [
                            {
                                "attribute": r.attribute,
                                "score": _number(r.score),
                                "split": r.split,
                                "admissible": r.admissible,
                                "chosen": r.chosen,
                                **(
                                    {}
                                    if r.above_average is None
                                    else {"above_average": r.above_average}
                                ),
                            }
                            for r in ranked
                        ],
                    }
                    for name, ranked in d.rankings.items()
                },
            }
        pairs.append(entry)
    return {"tolerance": result.tolerance, "algorithms": algorithms, "pairs": pairs}


def as_text(result: SideBySide, stage: str = GROWN) -> str:
    """The comparison in words: each tree's size, each pair's first divergence with the
    rankings there, and what each pruning removed."""
    lines = []
    for g in result.algorithms:
        if g.reason is not None:
            lines.append(f"{g.label}: not grown ({g.reason})")
            continue
        t, p = g.grown, g.pruned
        pruning = "no" if g.settings.prune == "none" else g.settings.prune
        lines.append(
            f"{g.label} ({MEASURES.get(g.settings.criterion, g.settings.criterion)}, "
            f"{pruning} pruning): {t.n_nodes} nodes as grown, {p.n_nodes} pruned"
            + (f"; {g.note}" if g.note else "")
        )
    for d in result.divergences:
        if d.stage != stage:
            continue
        a, b = result.by_name(d.first), result.by_name(d.second)
        lines += ["", f"{a.label} and {b.label} ({d.stage})"]
        if d.parting is None:
            lines.append("  the same tree")
            continue
        where = " AND ".join(d.rule) if d.rule else "the root"
        lines.append(f"  first part at {where} ({d.parting.kind})")
        for name in (d.first, d.second):
            g = result.by_name(name)
            measure = MEASURES.get(g.settings.criterion, g.settings.criterion)
            lines.append(f"  {g.label} splits {d.splits[name]}; by {measure}:")
            for r in d.rankings.get(name, ()):
                if not r.admissible:
                    lines.append(f"    {r.attribute:<20} cannot split here")
                    continue
                mark = " *" if r.chosen else ""
                rule = (
                    ""
                    if r.above_average is None
                    else ("  (gain >= average)" if r.above_average else "  (gain below average)")
                )
                lines.append(f"    {r.attribute:<20} {r.score:8.4f}  {r.split}{rule}{mark}")
    later = [d for d in result.divergences if d.stage != stage]
    if later:
        lines += ["", f"The trees {later[0].stage}:"]
    for d in later:
        a, b = result.by_name(d.first), result.by_name(d.second)
        if d.parting is None:
            lines.append(f"  {a.label} and {b.label}: the same tree")
        else:
            where = " AND ".join(d.rule) if d.rule else "the root"
            lines.append(
                f"  {a.label} and {b.label} first part at {where}: "
                f"{d.splits[d.first]} / {d.splits[d.second]}"
            )
    for g in result.algorithms:
        if g.reason is not None:
            continue
        lines += ["", f"{g.label}'s pruning ({g.settings.prune}):"]
        if not g.removed:
            lines.append("  removed nothing")
        for c in g.removed:
            where = " AND ".join(rule_to(g.grown, c.before_id)) or "the root"
            lines.append(f"  {c.kind} at {where}: {c.nodes_before} nodes became {c.nodes_after}")
    lines += ["", "* the attribute the algorithm split on"]
    return "\n".join(lines)
