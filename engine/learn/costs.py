"""The cost matrix as a learner option (issue 33, item 1, ``--costs``): its text read and
checked against the target's classes, and carried on the tree (:attr:`engine.tree.Tree.costs`)
so that every node predicts its class of least expected cost (:func:`engine.predict.class_codes`).

The text is CSV or whitespace-separated: the first row names the predicted classes, each
later row starts with an actual class and gives the cost of each prediction for it (rows
actual, columns predicted, as rpart's loss matrix and Weka's cost matrix). Every fault gets one
message naming it: not square, classes other than the target's, a cell that is not a
number, a negative cost, or a correct prediction that costs something.
"""

from __future__ import annotations

import csv
import io

import numpy as np

from engine.errors import ArborError
from engine.flat import replaced
from engine.settings import Settings
from engine.sums import weighted_columns
from engine.tree import Tree


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


def least_cost(dist: np.ndarray, costs) -> tuple[float, int]:
    """A node's cost as a leaf and the class it then predicts: the class j of least
    sum_k n_k C[k, j] over its class weights ``dist`` (the first on a tie)."""
    expected = weighted_columns(dist, costs)
    j = int(np.argmin(expected))
    return float(expected[j]), j


def cost_per_error(dist: np.ndarray, costs) -> float:
    """What one error of a leaf costs on average, labelled with its least-cost class j: its
    cost over its errors, or with no error among its rows the mean of C[k, j] over the other
    classes (what an error there would cost, the classes counted alike). 1 for a 0/1 matrix."""
    cost, j = least_cost(dist, costs)
    wrong = float(np.sum(dist)) - float(dist[j])
    if wrong > 1e-9:
        return cost / wrong
    column = np.delete(np.asarray(costs, dtype=np.float64)[:, j], j)
    return float(column.mean()) if len(column) else 0.0


def matrix_text(classes: tuple[str, ...], matrix) -> str:
    """The matrix as ``--costs`` reads it: CSV (so a class name with a comma stays whole)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["actual", *classes])
    for name, row in zip(classes, matrix, strict=True):
        writer.writerow([name, *(repr(float(v)) for v in row)])
    return out.getvalue()


def matrix_costs(matrix) -> tuple[tuple[float, ...], ...]:
    """A matrix as the tree holds it (:attr:`engine.tree.Tree.costs`): a tuple per actual class."""
    return tuple(tuple(float(v) for v in row) for row in np.asarray(matrix, dtype=np.float64))


def settings_costs(settings: Settings, classes) -> tuple[tuple[float, ...], ...]:
    """The cost matrix ``settings`` give (``costs``) for these classes; empty without one."""
    text = getattr(settings, "costs", None)
    if not text or classes is None:
        return ()
    return matrix_costs(parse_cost_matrix(text, tuple(classes)))


def with_costs(tree: Tree, settings: Settings) -> Tree:
    """``tree`` carrying the cost matrix ``settings`` give (``costs``), checked against its
    classes; itself when none is given."""
    costs = settings_costs(settings, tree.classes)
    if not costs:
        return tree
    return replaced(tree, costs=costs)  # the same nodes and arrays: the matrix is not in them
