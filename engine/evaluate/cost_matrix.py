"""A cost matrix (issue 33, item 1): what each kind of error costs, read from a file, and the
total and average cost of predictions beside accuracy.

The file is CSV or whitespace-separated: the first row names the predicted classes, each
later row starts with an actual class and gives the cost of each prediction for it (rows
actual, columns predicted, as rpart's loss matrix and Weka's cost matrix). Every fault gets one
message naming it: not square, classes other than the target's, a cell that is not a
number, a negative cost, or a correct prediction that costs something.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.errors import ArborError
from engine.learn.costs import parse_cost_matrix
from engine.predict import class_codes
from engine.sums import dot

__all__ = [
    "CostFigures",
    "cost_figures",
    "least_cost_classes",
    "parse_cost_matrix",
    "read_cost_matrix",
]


@dataclass(frozen=True)
class CostFigures:
    """The cost of the predictions made, and of predicting each row's class of least
    expected cost from its probabilities instead (the same rows, the same weights)."""

    total: float
    average: float
    least_cost_total: float
    least_cost_average: float

    def as_dict(self) -> dict:
        return {
            "total": self.total,
            "average": self.average,
            "least_expected_cost_total": self.least_cost_total,
            "least_expected_cost_average": self.least_cost_average,
        }


def read_cost_matrix(path: str | Path, classes: tuple[str, ...]) -> np.ndarray:
    """:func:`parse_cost_matrix` of a file (its name in the messages)."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except OSError as err:
        raise ArborError(f"cannot read the cost matrix {str(path)!r}: {err.strerror}") from None
    return parse_cost_matrix(text, classes, Path(path).name)


def least_cost_classes(proba: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """Per row of class probabilities, the class whose expected cost sum_k p_k C[k, j] is
    least (the first on a tie): :func:`engine.predict.class_codes`'s rule with costs."""
    return class_codes(proba, None, matrix)


def cost_figures(
    confusion: np.ndarray, matrix: np.ndarray, y: np.ndarray, proba: np.ndarray, weight
) -> CostFigures:
    """``confusion`` (rows actual, columns predicted, weighted) costed by ``matrix``, and the
    same rows predicted by least expected cost from ``proba``."""
    n = float(confusion.sum())
    total = float((confusion * matrix).sum())
    w = np.broadcast_to(weight, (len(y),))
    least = dot(w, matrix[y, least_cost_classes(proba, matrix)])
    return CostFigures(total, total / n if n else 0.0, least, least / n if n else 0.0)
