"""The tree as IF-THEN rules: one per leaf, with coverage and accuracy on the training data,
and optionally a simplified rule set in the style of C4.5rules."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from engine.data.encoding import Encoded
from engine.export.labels import number, predicted, shown
from engine.predict import class_codes, leaf_weights, predict_proba
from engine.prune.bounds import estimated_errors
from engine.tree import THRESHOLD, Tree


@dataclass(frozen=True)
class Condition:
    """One test: a threshold interval on a numeric attribute, or a set of categories."""

    attribute: int
    low: float | None = None  # value > low
    high: float | None = None  # value <= high
    categories: frozenset[int] | None = None

    def holds(self, X: np.ndarray) -> np.ndarray:
        x = X[:, self.attribute]
        ok = ~np.isnan(x)
        if self.categories is not None:
            return ok & np.isin(np.nan_to_num(x, nan=-1), list(self.categories))
        if self.low is not None:
            ok &= x > self.low
        if self.high is not None:
            ok &= x <= self.high
        return ok


@dataclass(frozen=True)
class Rule:
    conditions: tuple[Condition, ...]
    prediction: str
    covered: float
    correct: float


def _conditions(tree: Tree, leaf_id: int) -> tuple[Condition, ...]:
    merged: dict[int, Condition] = {}
    order: list[int] = []
    for node, branch in tree.path_to(leaf_id)[:-1]:
        split, a = node.split, node.split.attribute
        old = merged.get(a)
        if split.kind == THRESHOLD:
            low = split.threshold if branch == 1 else None
            high = split.threshold if branch == 0 else None
            if old is not None:  # the tightest interval wins
                low = (
                    max(v for v in (low, old.low) if v is not None)
                    if (low or old.low) is not None
                    else None
                )
                high = (
                    min(v for v in (high, old.high) if v is not None)
                    if (high or old.high) is not None
                    else None
                )
            new = Condition(a, low=low, high=high)
        else:
            cats = frozenset(split.groups[branch])
            new = Condition(a, categories=cats if old is None else cats & old.categories)
        if a not in merged:
            order.append(a)
        merged[a] = new
    return tuple(merged[a] for a in order)


def describe(tree: Tree, cond: Condition) -> str:
    attr = tree.schema.attributes[cond.attribute]
    name = shown(attr.name)
    if cond.categories is not None:
        names = [shown(attr.categories[c]) for c in sorted(cond.categories)]
        return f"{name} = {names[0]}" if len(names) == 1 else f"{name} in {{{', '.join(names)}}}"
    parts = []
    if cond.low is not None:
        parts.append(f"{name} > {number(cond.low)}")
    if cond.high is not None:
        parts.append(f"{name} <= {number(cond.high)}")
    return " AND ".join(parts)


def to_rules(tree: Tree, data: Encoded) -> list[Rule]:
    """One rule per leaf; coverage and correct counts use the training rows that reach the leaf
    (missing values go down every branch with their fractional weight, as in prediction)."""
    reached = leaf_weights(tree, data.X)
    parents = tree.parents()
    rules = []
    for leaf in (n for n in tree.nodes() if n.is_leaf):
        label = predicted(tree, leaf, parents.get(leaf.id))
        rows, weights = reached.get(leaf.id, (np.zeros(0, int), np.zeros(0)))
        covered = float(weights.sum())
        if tree.is_regression:
            correct = covered
        else:
            correct = float(weights[data.y[rows] == tree.classes.index(label)].sum())
        rules.append(Rule(_conditions(tree, leaf.id), label, covered, correct))
    return rules


def simplify_rules(
    tree: Tree, rules: list[Rule], data: Encoded, confidence: float = 0.25
) -> list[Rule]:
    """The rule set C4.5rules makes of ``rules`` (Quinlan 1993, chapter 5), as an ordered list.

    Each rule is generalised on the training rows: while deleting a condition does not raise
    its pessimistic error rate (C4.5's upper bound at ``confidence``), the deletion giving the
    lowest rate is made. Rules that end up duplicated, with no condition, or less accurate
    than guessing their class (a pessimistic error rate above the share of rows of other
    classes) are dropped. The rules are grouped by class, and the classes ordered by the false
    positives of their rules, fewest first; the last rule is the default class, the majority
    of the rows no rule covers (the most frequent class if none or a tie). Each rule's counts
    are the rows it fires on: those it is the first to cover.
    """
    if tree.is_regression:
        return rules
    y, w = data.y, data.weight
    n_classes = len(tree.classes)
    share = np.bincount(y, weights=w, minlength=n_classes) / w.sum()
    kept: list[tuple[int, tuple[Condition, ...], np.ndarray]] = []
    seen = set()
    for rule in rules:
        k = tree.classes.index(rule.prediction)
        conds, covers, rate = _generalise(rule.conditions, data, k, confidence)
        key = (frozenset(conds), k)
        if not conds or key in seen or rate > 1 - share[k]:
            continue
        seen.add(key)
        kept.append((k, conds, covers))
    false_positives = np.zeros(n_classes)
    for k in range(n_classes):
        fires = np.zeros(data.n_rows, dtype=bool)
        for rk, _, covers in kept:
            if rk == k:
                fires |= covers
        false_positives[k] = w[fires & (y != k)].sum()
    rank = {k: (false_positives[k], k) for k in range(n_classes)}
    kept.sort(key=lambda item: rank[item[0]])  # stable: within a class, the tree's order
    free = np.ones(data.n_rows, dtype=bool)
    ordered = []
    for k, conds, covers in kept:
        fires = covers & free
        free &= ~covers
        ordered.append(
            Rule(conds, tree.classes[k], float(w[fires].sum()), float(w[fires & (y == k)].sum()))
        )
    left = np.bincount(y[free], weights=w[free], minlength=n_classes)
    # Ties (and no uncovered rows) go to the class most frequent overall.
    default = max(range(n_classes), key=lambda c: (round(left[c], 9), share[c], -c))
    ordered.append(Rule((), tree.classes[default], float(left.sum()), float(left[default])))
    return ordered


def _generalise(conditions, data: Encoded, k: int, cf: float):
    """``conditions`` less those whose deletion does not raise the pessimistic error rate of
    "conditions -> class k" (the lowest-rate deletion first); with the rows covered, and the rate."""
    conds = list(conditions)
    holds = np.array([c.holds(data.X) for c in conds], dtype=bool).reshape(len(conds), data.n_rows)
    right = data.y == k
    w = data.weight

    def rate(mask: np.ndarray) -> float:
        covered = float(w[mask].sum())
        if covered <= 0:
            return 1.0
        return estimated_errors(covered, covered - float(w[mask & right].sum()), cf) / covered

    fails = (~holds).sum(axis=0)
    current = rate(fails == 0)
    while conds:
        # Without condition i, a row is covered when i is the only condition it fails.
        trials = [rate((fails == 0) | ((fails == 1) & ~holds[i])) for i in range(len(conds))]
        best = int(np.argmin(trials))
        if trials[best] > current + 1e-12:
            break
        current = trials[best]
        fails -= ~holds[best]
        holds = np.delete(holds, best, axis=0)
        del conds[best]
    return tuple(conds), fails == 0, current


def rule_predictions(tree: Tree, rules: list[Rule], X: np.ndarray) -> np.ndarray:
    """Class index per row from an ordered rule list: the first rule that fires (the last rule,
    with no conditions, fires on every row)."""
    out = np.full(len(X), -1, dtype=np.intp)
    for rule in rules:
        fires = out < 0
        for c in rule.conditions:
            fires &= c.holds(X)
        out[fires] = tree.classes.index(rule.prediction)
    return out


def rules_accuracy(tree: Tree, rules: list[Rule], data: Encoded) -> float:
    """Share of the training weight an ordered rule list classifies right."""
    right = rule_predictions(tree, rules, data.X) == data.y
    return float(data.weight[right].sum() / data.weight.sum())


def accuracy_note(tree: Tree, rules: list[Rule], data: Encoded) -> str:
    """The simplified set's training accuracy beside the tree's, as one line of text."""
    w = data.weight
    by_rules = w[rule_predictions(tree, rules, data.X) == data.y].sum()
    by_tree = w[class_codes(predict_proba(tree, data.X), "cart", tree.costs) == data.y].sum()
    total = w.sum()
    return (
        f"Training accuracy: these rules {number(round(by_rules, 2))}/{number(round(total, 2))}"
        f" ({100 * by_rules / total:.1f}%), the tree {number(round(by_tree, 2))}/"
        f"{number(round(total, 2))} ({100 * by_tree / total:.1f}%)"
    )


def rules_text(tree: Tree, rules: list[Rule], fmt: str = "text") -> str:
    """Rules as plain text or Markdown, e.g. ``IF outlook = sunny AND humidity = high THEN play = no  (3/3)``."""
    markdown = fmt == "markdown"
    target = shown(tree.schema.target)
    lines = ["| # | rule | correct / covered |", "| --- | --- | --- |"] if markdown else []
    for i, rule in enumerate(rules, start=1):
        cond = " AND ".join(describe(tree, c) for c in rule.conditions)
        head = f"IF {cond} THEN" if cond else "OTHERWISE"
        stats = f"({number(round(rule.correct, 2))}/{number(round(rule.covered, 2))})"
        text = f"{head} {target} = {shown(rule.prediction)}"
        lines.append(f"| {i} | {_markdown(text)} | {stats} |" if markdown else f"{text}  {stats}")
    return "\n".join(lines) + "\n"


# What could format, link, end the cell, or open HTML or an entity (``<`` before a letter,
# ``&`` before a letter or ``#``); ``<=`` and ``>`` between words are left as they read.
_MARKDOWN_SPECIAL = re.compile(r"[\\`*_\[\]|~$#]|<(?=[A-Za-z/!?])|&(?=[A-Za-z#])")


def _markdown(text: str) -> str:
    """A rule as a Markdown table cell, backslash-escaped so the cell shows the text exactly."""
    return _MARKDOWN_SPECIAL.sub(lambda m: "\\" + m[0], text)
