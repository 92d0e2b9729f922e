"""The tree as IF-THEN rules: one per leaf, with coverage and accuracy on the training data,
and optionally a simplified rule set in the style of C4.5rules."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from engine.data.encoding import Encoded
from engine.export.labels import number, predicted, shown
from engine.predict import leaf_weights
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
                low = max(v for v in (low, old.low) if v is not None) if (low or old.low) is not None else None
                high = min(v for v in (high, old.high) if v is not None) if (high or old.high) is not None else None
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


def _score(tree: Tree, data: Encoded, conditions, label: str) -> tuple[float, float]:
    mask = np.ones(data.n_rows, dtype=bool)
    for c in conditions:
        mask &= c.holds(data.X)
    w = data.weight[mask]
    if tree.is_regression:
        return float(w.sum()), float(w.sum())
    k = tree.classes.index(label)
    return float(w.sum()), float(w[data.y[mask] == k].sum())


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


def simplify_rules(tree: Tree, rules: list[Rule], data: Encoded, confidence: float = 0.25) -> list[Rule]:
    """C4.5rules-style: drop conditions that do not raise the pessimistic error, drop duplicate
    rules, order by class, and end with a default rule for the uncovered rows."""
    if tree.is_regression:
        return rules
    simplified, seen = [], set()
    for rule in rules:
        conds = list(rule.conditions)
        best = _pessimistic(tree, data, conds, rule.prediction, confidence)
        improved = True
        while improved and conds:
            improved = False
            for i in range(len(conds)):
                trial = conds[:i] + conds[i + 1:]
                err = _pessimistic(tree, data, trial, rule.prediction, confidence)
                if err <= best + 1e-12:
                    conds, best, improved = trial, err, True
                    break
        key = (tuple(sorted(map(repr, conds))), rule.prediction)
        if key in seen or not conds:
            continue
        seen.add(key)
        covered, correct = _score(tree, data, conds, rule.prediction)
        simplified.append(Rule(tuple(conds), rule.prediction, covered, correct))
    simplified.sort(key=lambda r: (tree.classes.index(r.prediction), -(r.correct / max(r.covered, 1e-9))))
    uncovered = np.ones(data.n_rows, dtype=bool)
    for r in simplified:
        m = np.ones(data.n_rows, dtype=bool)
        for c in r.conditions:
            m &= c.holds(data.X)
        uncovered &= ~m
    counts = np.bincount(data.y[uncovered], weights=data.weight[uncovered], minlength=len(tree.classes))
    if counts.sum() == 0:
        counts = np.bincount(data.y, weights=data.weight, minlength=len(tree.classes))
    default = tree.classes[int(np.argmax(counts))]
    simplified.append(Rule((), default, float(counts.sum()), float(counts.max())))
    return simplified


def _pessimistic(tree, data, conds, label, cf) -> float:
    covered, correct = _score(tree, data, conds, label)
    if covered <= 0:
        return 1.0
    return estimated_errors(covered, covered - correct, cf) / covered


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
