"""A cost matrix (issue 33, item 1): what each kind of error costs, read from a file, and the
total and average cost of predictions beside accuracy.

The file is CSV or whitespace-separated: the first row names the predicted classes, each
later row starts with an actual class and gives the cost of each prediction for it (rows
actual, columns predicted, as rpart's loss matrix and Weka's cost matrix). Every fault gets one
message naming it: not square, classes other than the target's, a cell that is not a
number, a negative cost, or a correct prediction that costs something.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.errors import ArborError


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


def _rows(text: str) -> list[list[str]]:
    lines = [line for line in text.splitlines() if line.strip()]
    if lines and ("," in lines[0] or ";" in lines[0]):
        dialect = ";" if lines[0].count(";") > lines[0].count(",") else ","
        return [
            [cell.strip() for cell in row]
            for row in csv.reader(io.StringIO("\n".join(lines)), delimiter=dialect)
        ]
    return [line.split() for line in lines]


def parse_cost_matrix(text: str, classes: tuple[str, ...], where: str = "costs") -> np.ndarray:
    """The matrix in ``text`` in the order of ``classes`` (rows actual, columns predicted)."""
    rows = _rows(text)
    if len(rows) < 2:
        raise ArborError(
            f"{where}: a cost matrix needs a header row of predicted classes and a row per "
            "actual class"
        )
    header = rows[0][1:] if len(rows[0]) == len(rows[1]) else rows[0]
    body = rows[1:]
    if len(header) != len(body) or any(len(row) != len(header) + 1 for row in body):
        raise ArborError(
            f"{where}: the matrix must be square, a row and a column per class, with the "
            f"classes as header and first column; got {len(header)} columns and "
            f"{len(body)} rows"
        )
    actual = [row[0] for row in body]
    for names, what in ((header, "columns"), (actual, "rows")):
        if len(set(names)) != len(names):
            raise ArborError(f"{where}: a class heads two {what}")
        if set(names) != set(classes):
            missing = [c for c in classes if c not in names]
            extra = [c for c in names if c not in classes]
            said = (
                f"no {what[:-1]} for {missing[0]!r}" if missing else f"{extra[0]!r} is not a class"
            )
            raise ArborError(
                f"{where}: the {what} must be the target's classes ({', '.join(classes)}); {said}"
            )
    matrix = np.zeros((len(classes), len(classes)))
    for row in body:
        for name, cell in zip(header, row[1:], strict=True):
            try:
                cost = float(cell)
            except ValueError:
                raise ArborError(
                    f"{where}: the cost of predicting {name!r} for {row[0]!r} is not a number: "
                    f"{cell!r}"
                ) from None
            if not (cost >= 0 and np.isfinite(cost)):
                raise ArborError(
                    f"{where}: costs must be numbers of at least 0; predicting {name!r} for "
                    f"{row[0]!r} costs {cell}"
                )
            if name == row[0] and cost != 0:
                raise ArborError(
                    f"{where}: a correct prediction costs nothing, but {row[0]!r} predicted "
                    f"{name!r} costs {cell} (subtract a row's diagonal from the row: the "
                    "class of least expected cost stays the same)"
                )
            matrix[classes.index(row[0]), classes.index(name)] = cost
    return matrix


def read_cost_matrix(path: str | Path, classes: tuple[str, ...]) -> np.ndarray:
    """:func:`parse_cost_matrix` of a file (its name in the messages)."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except OSError as err:
        raise ArborError(f"cannot read the cost matrix {str(path)!r}: {err.strerror}") from None
    return parse_cost_matrix(text, classes, Path(path).name)


def least_cost_classes(proba: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """Per row of class probabilities, the class whose expected cost sum_k p_k C[k, j] is
    least (the first on a tie)."""
    return np.argmin(proba @ matrix, axis=1)


def cost_figures(
    confusion: np.ndarray, matrix: np.ndarray, y: np.ndarray, proba: np.ndarray, weight
) -> CostFigures:
    """``confusion`` (rows actual, columns predicted, weighted) costed by ``matrix``, and the
    same rows predicted by least expected cost from ``proba``."""
    n = float(confusion.sum())
    total = float((confusion * matrix).sum())
    w = np.broadcast_to(weight, (len(y),))
    least = float(w @ matrix[y, least_cost_classes(proba, matrix)])
    return CostFigures(total, total / n if n else 0.0, least, least / n if n else 0.0)
