"""The Algorithm panel's cost matrix (issue 33, item 1, ``--costs``): a button that says
whether costs are set, and the small dialog that edits them, a cell per (actual, predicted)
pair of the target's classes.

The option's value is the matrix's text as ``--costs FILE`` reads it (CSV, the predicted
classes as header, a row per actual class), so the window, the command line and a saved
project hold one thing; a fit checks its classes against the table's.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.errors import ArborError
from engine.learn.costs import matrix_text, parse_cost_matrix
from gui.plain_text import plain_label

#: A bad cell's background (the panel's message colour, lightened).
BAD = QColor("#FDE8E7")


def is_zero_one(matrix) -> bool:
    """Every error costs 1: the plain rule, the same predictions as no matrix."""
    return all(
        float(v) == (0.0 if i == j else 1.0)
        for i, row in enumerate(matrix)
        for j, v in enumerate(row)
    )


class CostMatrixDialog(QDialog):
    """A class-by-class table of costs: rows actual, columns predicted, the diagonal 0 and
    fixed; OK only while every cell is a number of at least 0."""

    def __init__(self, classes: tuple[str, ...], text: str | None = None, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Cost matrix")
        self.classes = tuple(classes)
        K = len(self.classes)
        self.table = QTableWidget(K, K)
        # Plain text items: a class name is never read as markup.
        self.table.setHorizontalHeaderLabels([f"predicted {c}" for c in self.classes])
        self.table.setVerticalHeaderLabels([f"actual {c}" for c in self.classes])
        self.table.setToolTip(
            "What predicting the column's class costs for a row of the row's class; a leaf "
            "predicts the class of least expected cost given its class shares"
        )
        self.message = plain_label()
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #B42318;")
        self.reset_button = QPushButton("Reset to 0/1")
        self.reset_button.setToolTip("Every error costs 1 (the same predictions as no costs)")
        self.reset_button.setShortcut(QKeySequence("Ctrl+R"))
        self.reset_button.clicked.connect(self.reset)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(
            plain_label(
                "Rows: the actual class. Columns: the class predicted. Costs of at least 0."
            )
        )
        layout.addWidget(self.table)
        layout.addWidget(self.message)
        row = QHBoxLayout()
        row.addWidget(self.reset_button)
        row.addStretch(1)
        row.addWidget(self.buttons)
        layout.addLayout(row)
        matrix = None
        if text:
            try:
                matrix = parse_cost_matrix(text, self.classes)
            except ArborError as err:  # another table's matrix: start from 0/1, say why
                self.message.setText(f"The costs set do not fit this table ({err}); 0/1 shown")
        self._fill(matrix)
        self.table.itemChanged.connect(self._check)

    def _fill(self, matrix) -> None:
        self.table.blockSignals(True)
        for i in range(len(self.classes)):
            for j in range(len(self.classes)):
                value = 0.0 if i == j else 1.0 if matrix is None else float(matrix[i][j])
                item = QTableWidgetItem(f"{value:g}")
                if i == j:  # a correct prediction costs nothing
                    item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
                    item.setToolTip("A correct prediction costs nothing")
                self.table.setItem(i, j, item)
        self.table.blockSignals(False)
        self._check()

    def reset(self) -> None:
        """Every error costs 1."""
        self._fill(None)

    def cell(self, i: int, j: int) -> float | None:
        """The cell's cost, or None when it is not a number of at least 0."""
        try:
            value = float(self.table.item(i, j).text().strip())
        except ValueError:
            return None
        return value if value >= 0 and math.isfinite(value) else None

    def _check(self, *_) -> None:
        bad = []
        for i in range(len(self.classes)):
            for j in range(len(self.classes)):
                ok = self.cell(i, j) is not None
                self.table.item(i, j).setBackground(QBrush() if ok else QBrush(BAD))
                if not ok:
                    bad.append((i, j))
        if bad:
            i, j = bad[0]
            self.message.setText(
                f"Predicting {self.classes[j]!r} for {self.classes[i]!r}: "
                f"{self.table.item(i, j).text()!r} is not a number of at least 0"
            )
        elif self.message.text().startswith("Predicting"):
            self.message.setText("")
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(not bad)

    def matrix(self) -> list[list[float]]:
        K = len(self.classes)
        return [[self.cell(i, j) or 0.0 for j in range(K)] for i in range(K)]

    def value(self) -> str | None:
        """The option's value: the matrix's text, or None for 0/1 (no costs)."""
        matrix = self.matrix()
        return None if is_zero_one(matrix) else matrix_text(self.classes, matrix)


class CostsField(QWidget):
    """The panel's row: a Costs... button opening :class:`CostMatrixDialog` and a line
    saying what is set. ``classes()`` gives the table's target classes (empty: none yet)."""

    valueChanged = Signal(object)  # noqa: N815 - the Qt name the panel connects by

    def __init__(self, classes: Callable[[], tuple[str, ...]], parent=None):
        super().__init__(parent)
        self._classes = classes
        self._text: str | None = None
        self.button = QPushButton("Costs...")
        self.button.setToolTip("Edit the cost matrix: what each kind of error costs")
        self.button.clicked.connect(self.edit)
        self.state = plain_label("none")
        # Wrapped and short: the row must fit the Algorithm dock at 1024 pixels wide.
        self.state.setWordWrap(True)
        self.state.setToolTip(
            "none: every error costs 1; set: each row is predicted as the class of least "
            "expected cost, and pruning counts costs"
        )
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.button)
        layout.addWidget(self.state, 1)

    def value(self) -> str | None:
        return self._text

    def setValue(self, text: str | None) -> None:  # noqa: N802 - as the spin boxes say it
        text = text or None
        changed = text != self._text
        self._text = text
        self.state.setText("set" if text else "none")
        if changed:
            self.valueChanged.emit(text)

    def dialog(self) -> CostMatrixDialog | None:
        """The editor for the table's classes, or None (with a message) without them."""
        classes = tuple(self._classes())
        if len(classes) < 2:
            self.state.setText("costs need a table with a class target of 2 or more classes")
            return None
        return CostMatrixDialog(classes, self._text, self)

    def edit(self) -> None:
        dialog = self.dialog()
        if dialog is not None and dialog.exec() == QDialog.DialogCode.Accepted:
            self.setValue(dialog.value())
