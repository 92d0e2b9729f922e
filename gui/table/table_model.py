"""The Qt model over the open table: formats only the cells asked for, edits through undo.

Cells are read straight from the frame's columns (categorical codes for
nominal columns), so a million-row table opens and scrolls without
formatting anything off screen.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont

from engine.data.table import IGNORED, NUMERIC
from engine.errors import ArborError
from engine.export.labels import number
from gui.plain_text import plain_tip
from gui.table.document import DataDocument, coerce
from gui.table.table_commands import SetCellCommand

MISSING_TEXT = "?"
NO_PARENT = QModelIndex()
RIGHT_ALIGNED = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
CELL_FLAGS = Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsEditable
_ROLES = frozenset(
    int(r)
    for r in (
        Qt.ItemDataRole.DisplayRole,
        Qt.ItemDataRole.EditRole,
        Qt.ItemDataRole.ForegroundRole,
        Qt.ItemDataRole.FontRole,
        Qt.ItemDataRole.TextAlignmentRole,
    )
)
KIND_MARK = {"nominal": "N", "numeric": "#", "ignored": "–"}


class TableModel(QAbstractTableModel):
    """Rows and columns of a :class:`DataDocument`.

    Signals
    -------
    edit_rejected(int, int, str) : row, column and why an edit was refused.
    """

    edit_rejected = Signal(int, int, str)

    def __init__(self, doc: DataDocument, parent=None):
        super().__init__(parent)
        self.doc = doc
        self._missing_font = QFont()
        self._missing_font.setItalic(True)
        doc.reset.connect(self._on_doc_reset)
        doc.cells_changed.connect(self._on_doc_cells_changed)
        doc.columns_changed.connect(
            lambda: self.headerDataChanged.emit(
                Qt.Orientation.Horizontal, 0, max(0, self.columnCount() - 1)
            )
        )

    def _on_doc_reset(self) -> None:
        self.beginResetModel()
        self.endResetModel()

    def _on_doc_cells_changed(self, top: int, left: int, bottom: int, right: int) -> None:
        self.dataChanged.emit(self.index(top, left), self.index(bottom, right))

    def rowCount(self, parent=NO_PARENT) -> int:  # noqa: N802 - Qt override
        return 0 if parent.isValid() else self.doc.n_rows

    def columnCount(self, parent=NO_PARENT) -> int:  # noqa: N802 - Qt override
        return 0 if parent.isValid() else self.doc.n_columns

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        return self.cell(index.row(), index.column(), role) if index.isValid() else None

    def cell(self, row: int, col: int, role: int = Qt.ItemDataRole.DisplayRole):
        """``data`` by row and column (what the view's proxy calls, without building an index)."""
        if role not in _ROLES:  # the view asks for a dozen roles a cell; these five have answers
            return None
        value = self.doc.value(row, col)
        missing = pd.isna(value)
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            if missing:
                return MISSING_TEXT if role == Qt.ItemDataRole.DisplayRole else ""
            if isinstance(value, float | np.floating):
                return number(float(value))
            return str(value)
        if role == Qt.ItemDataRole.ForegroundRole:
            name = self.doc.column_name(col)
            if missing or self.doc.kinds.get(name) == IGNORED:
                return QBrush(QColor("#9CA3AF"))
        if role == Qt.ItemDataRole.FontRole and missing:
            return self._missing_font
        if role == Qt.ItemDataRole.TextAlignmentRole:
            name = self.doc.column_name(col)
            if self.doc.kinds.get(name) == NUMERIC:
                return RIGHT_ALIGNED
        return None

    def headerData(self, section: int, orientation, role: int = Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if orientation == Qt.Orientation.Vertical:
            return str(section + 1) if role == Qt.ItemDataRole.DisplayRole else None
        if section >= self.doc.n_columns:
            return None
        name = self.doc.column_name(section)
        kind = self.doc.kinds.get(name, "nominal")
        if role == Qt.ItemDataRole.DisplayRole:
            mark = " ◎" if name == self.doc.target else ""
            return f"{name} [{KIND_MARK[kind]}]{mark}"
        if role == Qt.ItemDataRole.ToolTipRole:
            role_text = (
                "the target (what the tree predicts)" if name == self.doc.target else "an attribute"
            )
            return plain_tip(f"{name}: {kind}, {role_text}. Right-click to change.")
        if role == Qt.ItemDataRole.FontRole and name == self.doc.target:
            font = QFont()
            font.setBold(True)
            return font
        return None

    def flags(self, index: QModelIndex):
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return CELL_FLAGS

    def setData(self, index: QModelIndex, value, role: int = Qt.ItemDataRole.EditRole) -> bool:  # noqa: N802
        if not index.isValid() or role != Qt.ItemDataRole.EditRole:
            return False
        row, col = index.row(), index.column()
        name = self.doc.columns[col]
        try:
            typed = coerce(value, self.doc.kinds.get(name, "nominal"))
        except ArborError as err:
            self.edit_rejected.emit(row, col, f"{name} is a numeric column: {err}")
            return False
        old = self.doc.value(row, col)
        if (pd.isna(old) and pd.isna(typed)) or (not pd.isna(old) and old == typed):
            return False
        self.doc.undo_stack.push(SetCellCommand(self.doc, row, col, typed))
        return True
