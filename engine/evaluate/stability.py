"""How stable a tree is, node by node: how often each split recurs in the trees grown on the
cross-validation folds' training rows, and which other attributes score within a small
margin of the chosen one there (near-ties: a little noise in the rows could swap them).

A split recurs in a fold's tree when that tree splits alike (:mod:`engine.evaluate.tree_match`)
at the node standing where this one does: the same attribute, and for a numeric one a
threshold within the tolerance (a share of the attribute's range).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.data import folds as folding
from engine.data.encoding import Encoded, subset
from engine.data.folds import training_rows
from engine.evaluate.tree_match import THRESHOLD_TOLERANCE, attribute_ranges, corresponding
from engine.fitting import fit_tree
from engine.learn import rules
from engine.learn.explain import node_rows, used_on_path
from engine.learn.problem import Problem
from engine.learn.splitting import score_all
from engine.monitor import NULL_MONITOR, Monitor, watching
from engine.settings import Settings
from engine.tree import THRESHOLD, Tree

#: An alternative within this share of the chosen split's score is a near-tie.
NEAR_TIE_MARGIN = 0.05


@dataclass(frozen=True)
class NearTie:
    """An attribute scoring within the margin of the chosen split at a node."""

    attribute: str
    score: float
    chosen_score: float


@dataclass(frozen=True)
class NodeStability:
    """One split node: in how many of ``folds`` trees the split recurs (``recurs``), in how
    many the same attribute splits there at any threshold (``attribute_recurs``), and the
    near-ties among the other attributes."""

    node_id: int
    folds: int
    recurs: int
    attribute_recurs: int
    near_ties: tuple[NearTie, ...]

    @property
    def share(self) -> float:
        return self.recurs / self.folds if self.folds else 0.0


@dataclass(frozen=True, eq=False)
class Stability:
    """Every split node's :class:`NodeStability`, keyed by node id, and the terms used."""

    nodes: dict[int, NodeStability]
    folds: int
    seed: int
    tolerance: float
    margin: float

    def near_tied(self) -> list[int]:
        return [k for k, s in self.nodes.items() if s.near_ties]


def _score(settings: Settings, candidate) -> float:
    return candidate.gain_ratio if settings.criterion == "gain_ratio" else candidate.gain


def average_gain(data: Encoded, settings: Settings, candidates) -> float | None:
    """C4.5's average gain over the candidates that count toward it (None: not C4.5's rule,
    or no candidate); only attributes with at least this gain can be chosen."""
    if settings.algorithm != "c45" or settings.criterion != "gain_ratio":
        return None
    attrs = data.schema.attributes
    counted = rules.counted_in_average(
        [len(a.categories) if a.is_nominal else 0 for a in attrs], data.n_rows
    )
    gains = [c.gain for c in candidates if c is not None and counted[c.attribute]]
    return sum(gains) / len(gains) if gains else None


def near_ties(
    tree: Tree,
    data: Encoded,
    settings: Settings,
    node_id: int,
    margin: float = NEAR_TIE_MARGIN,
    problem: Problem | None = None,
) -> tuple[NearTie, ...]:
    """The other attributes the algorithm could choose at ``node_id`` whose best split scores,
    by the tree's criterion, at least ``(1 - margin)`` times the chosen split's; best first.
    (C4.5: only those with at least the average gain, which its rule lets it choose.)"""
    node = tree.node(node_id)
    if node.split is None:
        return ()
    rows, weights = node_rows(tree, data, node_id, settings)
    used = frozenset() if settings.binary else used_on_path(tree, node_id)
    candidates = score_all(problem or Problem(data, settings), rows, weights, used)
    chosen = candidates[node.split.attribute]
    if chosen is None:  # a split made by hand the algorithm would not make: nothing to weigh
        return ()
    best = _score(settings, chosen)
    average = average_gain(data, settings, candidates)
    ties = [
        NearTie(data.schema.attributes[j].name, float(_score(settings, c)), float(best))
        for j, c in enumerate(candidates)
        if c is not None
        and j != node.split.attribute
        and _score(settings, c) >= best * (1 - margin)
        and (average is None or c.gain >= average - rules.GAIN_AVERAGE_SLACK)
    ]
    return tuple(sorted(ties, key=lambda t: -t.score))


def _recurs(tree: Tree, node_id: int, fold_tree: Tree, slack) -> tuple[bool, bool]:
    """Whether ``fold_tree`` splits alike at ``node_id``'s place, and on the same attribute."""
    ids, whole = corresponding(tree, node_id, fold_tree, slack)
    if not whole:
        return False, False
    mine, theirs = tree.node(node_id).split, fold_tree.node(ids[-1]).split
    if theirs is None or theirs.attribute != mine.attribute:
        return False, False
    if mine.kind == THRESHOLD:
        allowed = slack[mine.attribute]
        return abs(theirs.threshold - mine.threshold) <= allowed + 1e-12, True
    return True, True  # the path to here agreed, so a nominal split's groups did too above


def stability(
    tree: Tree,
    data: Encoded,
    settings: Settings,
    folds: int = 10,
    seed: int | None = None,
    tolerance: float = THRESHOLD_TOLERANCE,
    margin: float = NEAR_TIE_MARGIN,
    monitor: Monitor = NULL_MONITOR,
    weka_folds: bool = False,
) -> Stability:
    """Each split node of ``tree`` (fitted on ``data`` with ``settings``): its recurrence in
    the trees fitted on the training rows of the folds cross-validation deals for ``seed``
    (default: the settings' seed; ``weka_folds``: Weka's dealing, as cross-validation's
    option), and its near-ties.

    Examples
    --------
    >>> from engine.data.encoding import encode
    >>> from engine.data.samples import load_sample
    >>> from engine.fitting import fit_tree
    >>> from engine.settings import resolve
    >>> data, settings = encode(load_sample("iris")), resolve(algorithm="cart", prune="none")
    >>> tree = fit_tree(data, settings)
    >>> s = stability(tree, data, settings, folds=5)
    >>> s.nodes[0].recurs, [t.attribute for t in s.nodes[0].near_ties]
    (5, ['petalwidth'])
    """
    seed = settings.seed if seed is None else seed
    folds = min(folds, data.n_rows)
    slack = attribute_ranges(data) * tolerance
    y = None if data.schema.is_regression else data.y
    with watching(monitor):
        fold_trees = []
        if weka_folds:
            dealt = folding.weka_folds(y, data.n_rows, folds, seed, data.unlabelled)
        else:
            dealt = folding.stratified_folds(y, data.n_rows, folds, seed)
        for f, test in enumerate(dealt):
            if not len(test):
                continue  # Weka's fold of rows without a class only
            monitor.report(f / (folds + 1), f"fold {f + 1} of {folds}")
            part = subset(data, training_rows(test, data.n_rows))
            fold_trees.append(
                fit_tree(part, settings, monitor.scaled(f / (folds + 1), (f + 1) / (folds + 1)))
            )
        monitor.report(folds / (folds + 1), "near-ties")
        out = {}
        problem = Problem(data, settings, monitor)  # numeric columns sorted once for all nodes
        for node in tree.nodes():
            if node.split is None:
                continue
            hits = [_recurs(tree, node.id, t, slack) for t in fold_trees]
            ties = (
                ()
                if data.schema.is_regression
                else near_ties(tree, data, settings, node.id, margin, problem)
            )
            out[node.id] = NodeStability(
                node.id,
                len(fold_trees),
                int(sum(h[0] for h in hits)),
                int(sum(h[1] for h in hits)),
                ties,
            )
        monitor.report(1.0, "stability")
    return Stability(out, len(fold_trees), seed, tolerance, margin)


def stability_summary(s: NodeStability, stab: Stability) -> str:
    """One node's stability in words (the canvas mark's tooltip, the inspector's line)."""
    text = (
        f"This split recurs in {s.recurs} of {s.folds} cross-validation folds' trees "
        f"(thresholds within {100 * stab.tolerance:g}% of the range; seed {stab.seed})"
    )
    if s.attribute_recurs > s.recurs:
        text += f"; the attribute in {s.attribute_recurs}"
    if s.near_ties:
        names = ", ".join(f"{t.attribute} ({t.score:.4f})" for t in s.near_ties)
        text += (
            f". Near-tie (within {100 * stab.margin:g}% of {s.near_ties[0].chosen_score:.4f}): "
            f"{names}"
        )
    return text + "."
