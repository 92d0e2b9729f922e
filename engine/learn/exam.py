"""Exam mode's marking: a student names the attribute (and, for a numeric one, the cut) a
node should split on before Arbor shows its own choice; this module judges the pick and
words the hints, from explain's numbers (:func:`engine.learn.explain.attribute_table`).

A typed cut is judged by the rows it separates, not by its digits: any cut between the
same two neighbouring values at the node sends every row the same way as Arbor's, so it
is right (C4.5 puts its cut at a training value, CART half-way; both are the same split).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.data.encoding import Encoded
from engine.errors import ArborError
from engine.learn.explain import AttributeRow, attribute_table
from engine.settings import Settings

#: What each algorithm ranks attributes by, in words, and the explain field holding it.
CRITERIA = {
    "id3": ("information gain", "info_gain"),
    "c45": ("gain ratio (among attributes with at least the average gain)", "gain_ratio"),
    "cart": ("Gini gain", "gini_gain"),
}


@dataclass(frozen=True)
class Question:
    """One node to split: its attribute table, Arbor's answer and each numeric attribute's
    known values there (to judge a typed cut by the rows it separates).

    ``attribute``: the index Arbor splits on (-1: none, the node becomes a leaf);
    ``threshold``: its cut when numeric. ``cuts``: the candidate cuts per numeric attribute
    index, as the algorithm places them; ``penalised``: (gain, gain ratio) of a numeric
    attribute's best cut after the MDL charge ID3 and C4.5 rank it by.
    """

    node_id: int
    algorithm: str
    n: float
    class_counts: tuple[tuple[str, float], ...]
    table: tuple[AttributeRow, ...]
    attribute: int
    threshold: float | None
    values: dict[int, np.ndarray]
    cuts: dict[int, np.ndarray]
    penalised: dict[int, tuple[float, float]] = field(default_factory=dict)

    @property
    def criterion(self) -> tuple[str, str]:
        return CRITERIA.get(self.algorithm, CRITERIA["id3"])

    def score(self, j: int) -> float:
        """The number the algorithm ranks attribute ``j`` by (a numeric attribute's gain and
        gain ratio after the MDL charge, for ID3 and C4.5)."""
        measure = self.criterion[1]
        if j in self.penalised and measure in ("info_gain", "gain_ratio"):
            return self.penalised[j][measure == "gain_ratio"]
        return float(getattr(self.table[j], measure))


@dataclass(frozen=True)
class Verdict:
    """A pick judged: ``right`` when attribute (and cut) are Arbor's; ``words`` say why."""

    right: bool
    right_attribute: bool
    right_cut: bool | None
    words: str


def ask(
    data: Encoded,
    settings: Settings,
    rows: np.ndarray,
    weights: np.ndarray,
    used: frozenset[int],
    node_id: int,
    attribute: int,
    threshold: float | None,
) -> Question:
    """The question at the node holding ``rows`` whose answer is ``attribute`` (and
    ``threshold``), the split growth takes there.

    Examples
    --------
    >>> from engine.data.encoding import encode
    >>> from engine.data.samples import load_sample
    >>> from engine.settings import resolve
    >>> data = encode(load_sample("weather"))
    >>> rows = np.arange(data.n_rows)
    >>> q = ask(data, resolve(algorithm="id3"), rows, data.weight, frozenset(), 0, 0, None)
    >>> judge(q, 0, None).right, judge(q, 3, None).right
    (True, False)
    """
    from engine.learn.split_curves import split_curve

    table = tuple(attribute_table(data, settings, rows, weights, attribute, used))
    values, cuts, penalised = {}, {}, {}
    for j, attr in enumerate(data.schema.attributes):
        if attr.is_nominal:
            continue
        x = data.X[rows, j]
        values[j] = np.unique(x[~np.isnan(x)])
        try:
            curve = split_curve(data, settings, j, rows, weights)
        except ArborError:  # an attribute with nothing to cut offers no list
            cuts[j] = np.zeros(0)
            continue
        cuts[j] = curve.thresholds
        if "mdl_gain" in curve.values and curve.best is not None:
            penalised[j] = (
                float(curve.values["mdl_gain"][curve.best]),
                float(curve.values["mdl_gain_ratio"][curve.best]),
            )
    counts = np.bincount(data.y[rows], weights=weights, minlength=len(data.schema.classes))
    return Question(
        node_id,
        settings.algorithm,
        float(weights.sum()),
        tuple(zip(data.schema.classes, (float(c) for c in counts), strict=True)),
        table,
        attribute,
        threshold,
        values,
        cuts,
        penalised,
    )


def same_cut(values: np.ndarray, cut: float, guess: float) -> bool:
    """Whether ``guess`` sends every one of ``values`` the way ``cut`` does (at most: left).

    >>> same_cut(np.array([60.0, 65.0, 70.0]), 65.0, 67.5)
    True
    >>> same_cut(np.array([60.0, 65.0, 70.0]), 65.0, 70.0)
    False
    """
    return bool(np.array_equal(values <= cut, values <= guess))


def judge(question: Question, attribute: int, threshold: float | None) -> Verdict:
    """Mark a pick: right when it is Arbor's attribute and, for a numeric one, a cut that
    separates the node's rows as Arbor's does."""
    names = [r.name for r in question.table]
    if question.attribute < 0:
        return Verdict(False, False, None, "Arbor does not split this node: it becomes a leaf.")
    answer = names[question.attribute]
    if attribute != question.attribute:
        return Verdict(
            False,
            False,
            None,
            f"Not quite: {names[attribute]} scores {question.score(attribute):.3f}"
            f" on {question.criterion[0]}; Arbor splits on {answer}"
            f" ({question.score(question.attribute):.3f}).",
        )
    if question.threshold is None:
        return Verdict(True, True, None, f"Right: {answer}, as Arbor splits it.")
    cut = f"{question.threshold:g}"
    if threshold is None or not np.isfinite(threshold):
        return Verdict(
            False, True, False, f"Right attribute, but no cut given: Arbor cuts at {cut}."
        )
    if same_cut(question.values.get(attribute, np.zeros(0)), question.threshold, threshold):
        return Verdict(
            True, True, True, f"Right: {answer} <= {threshold:g} splits the rows as Arbor's {cut}."
        )
    return Verdict(
        False,
        True,
        False,
        f"Right attribute, but <= {threshold:g} sends other rows left than Arbor's cut {cut}.",
    )


def hints(question: Question) -> tuple[str, ...]:
    """The hints, to give one at a time: what to compare, then two attributes ranked."""
    name, _ = question.criterion
    spread = ", ".join(f"{c} {v:g}" for c, v in question.class_counts)
    first = (
        f"Compare the entropies of the children: this node has {question.n:g} rows ({spread}). "
        "The split whose branches are purest (lowest weighted entropy, the mean info) gains most"
        + (
            "; C4.5 then divides the gain by the split info, among attributes whose gain is at "
            "least the average."
            if question.algorithm == "c45"
            else (
                "; CART measures purity with Gini instead." if question.algorithm == "cart" else "."
            )
        )
    )
    admissible = [j for j, r in enumerate(question.table) if r.admissible]
    if len(admissible) < 2:
        return (first, "Only one attribute can split this node here.")
    ranked = sorted(admissible, key=question.score, reverse=True)
    # The best against the weakest: an order that helps without naming the winner outright.
    top, low = question.table[ranked[0]], question.table[ranked[-1]]
    second = f"On {name}, {top.name} ranks above {low.name}."
    return (first, second)
