"""File > Worksheet's question: which table (seed, rows) and which algorithm the sheet follows."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QFormLayout, QSpinBox

from engine.export.worksheet import ALGORITHMS, MAX_ROWS, MIN_ROWS, NAMES


class WorksheetOptions(QDialog):
    """Seed, rows and algorithm for a worksheet; :meth:`ask` returns them (None: cancelled)."""

    def __init__(self, parent=None, seed: int = 1, algorithm: str = "id3"):
        super().__init__(parent)
        self.setWindowTitle("Worksheet")
        self.seed = QSpinBox()
        self.seed.setRange(0, 999_999)
        self.seed.setValue(seed)
        self.seed.setToolTip(
            "Which random table: the same seed always makes the same sheet, so a class can "
            "share one and the next seed gives a fresh one"
        )
        self.rows = QSpinBox()
        self.rows.setRange(MIN_ROWS, MAX_ROWS)
        self.rows.setValue(10)
        self.rows.setToolTip(
            f"Rows in the table ({MIN_ROWS} to {MAX_ROWS}: a page to work by hand)"
        )
        self.algorithm = QComboBox()
        for a in ALGORITHMS:
            self.algorithm.addItem(NAMES[a], a)
        self.algorithm.setCurrentIndex(max(0, self.algorithm.findData(algorithm)))
        self.algorithm.setToolTip(
            "The algorithm the questions follow: ID3 ranks by gain, C4.5 by gain ratio, "
            "CART by Gini gain on binary splits"
        )
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow("Seed", self.seed)
        form.addRow("Rows", self.rows)
        form.addRow("Algorithm", self.algorithm)
        form.addRow(buttons)

    def values(self) -> tuple[int, int, str]:
        return self.seed.value(), self.rows.value(), self.algorithm.currentData()


def ask_worksheet(parent=None, seed: int = 1, algorithm: str = "id3"):
    """(seed, rows, algorithm) for a worksheet, or None when cancelled."""
    dialog = WorksheetOptions(parent, seed, algorithm)
    return dialog.values() if dialog.exec() == QDialog.DialogCode.Accepted else None
