"""The data panel: the table view with sorting and filtering (view only) and clipboard blocks."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QMimeData, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QDrag, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from engine.errors import ArborError
from gui.mime import ROWS_MIME
from gui.table.document import coerce
from gui.table.table_commands import PasteCommand
from gui.table.table_model import TableModel
from gui.table.table_proxy import RowsProxy

FILTER_DELAY_MS = 250
MAX_COLUMN_WIDTH = 240  # pixels a column gets for its heading when a table opens


class RowsTableView(QTableView):
    """A table view whose selected rows can be dragged onto the tree canvas."""

    def __init__(self, panel):
        super().__init__()
        self.panel = panel
        self.setDragEnabled(True)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)

    def startDrag(self, actions) -> None:  # noqa: N802 - Qt override
        rows = self.panel.selected_rows()
        if not rows:
            return
        mime = QMimeData()
        mime.setData(ROWS_MIME, ",".join(map(str, rows)).encode())
        drag = QDrag(self)
        drag.setMimeData(mime)
        drag.exec(Qt.DropAction.CopyAction)


class TablePanel(QWidget):
    """Table view + filter box over a :class:`TableModel`.

    Signals
    -------
    header_menu_requested(int, QPoint) : right-click on a column header.
    rows_selected(list) : source-row indices of the current selection.
    paste_rejected(str) : a pasted block did not fit the columns' kinds.
    """

    header_menu_requested = Signal(int, QPoint)
    rows_selected = Signal(list)
    paste_rejected = Signal(str)

    def __init__(self, model: TableModel, parent=None):
        super().__init__(parent)
        self.model = model
        self.proxy = RowsProxy(model, self)
        self.filter = QLineEdit(placeholderText="Filter rows (any column contains…)")
        self.filter.setClearButtonEnabled(True)
        self.filter.setToolTip("Shows only rows containing this text; the data keeps its order")
        # Applied when typing pauses: on a big table each pass over the columns takes a moment.
        self._filter_timer = QTimer(self, singleShot=True, interval=FILTER_DELAY_MS)
        self._filter_timer.timeout.connect(self._apply_filter)
        self.filter.textChanged.connect(self._filter_timer.start)
        self.filter.returnPressed.connect(self._apply_filter)
        self.view = RowsTableView(self)
        self.view.setModel(self.proxy)
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.view.setAlternatingRowColors(True)
        self.view.verticalHeader().setDefaultSectionSize(22)
        # A long name is shortened in its middle, keeping its kind mark ([N], [#]) in view.
        self.view.horizontalHeader().setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.view.horizontalHeader().setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.horizontalHeader().customContextMenuRequested.connect(self._on_header_menu)
        self.view.selectionModel().selectionChanged.connect(self._on_selection_changed)
        self.show_all = QPushButton("Show all rows")
        self.show_all.setToolTip(
            "The table shows only the rows reaching a node; show every row again"
        )
        self.show_all.hide()
        self.show_all.clicked.connect(lambda: self.show_rows(None))
        self.count = QLabel()
        self.count.setToolTip(
            "Rows shown of the table's rows (the filter or a node's rows hide the others)"
        )
        for signal in (self.proxy.modelReset, self.proxy.rowsInserted, self.proxy.rowsRemoved):
            signal.connect(self._show_count)
        model.doc.loaded.connect(self._forget_view)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        row = QHBoxLayout()
        row.addWidget(self.filter, 1)
        row.addWidget(self.count)
        row.addWidget(self.show_all)
        layout.addLayout(row)
        layout.addWidget(self.view)
        self._show_count()

    def _show_count(self, *_) -> None:
        shown, total = self.proxy.rowCount(), self.model.rowCount()
        self.count.setText(f"{total:,} rows" if shown == total else f"{shown:,} of {total:,} rows")

    def _forget_view(self) -> None:
        """A new table starts in its own order, unfiltered: the last file's sort and filter
        text meant its columns."""
        self._filter_timer.stop()
        self.filter.blockSignals(True)
        self.filter.clear()
        self.filter.blockSignals(False)
        self.proxy.setFilterFixedString("")
        header = self.view.horizontalHeader()
        header.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.proxy.sort(-1)
        # Each column as wide as its heading (name and kind mark), within reason: a long name
        # is elided in its middle rather than widening the table past the screen.
        for col in range(self.model.columnCount()):
            wanted = header.sectionSizeFromContents(col).width() + 8
            header.resizeSection(
                col, max(header.defaultSectionSize(), min(wanted, MAX_COLUMN_WIDTH))
            )

    def show_rows(self, rows) -> None:
        """Show only the source rows ``rows`` (a set), or every row again (None)."""
        self.proxy.set_rows(rows)
        self.show_all.setVisible(rows is not None)

    def _apply_filter(self) -> None:
        self._filter_timer.stop()
        if self.filter.text() == self.proxy.filter_text():
            return
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            self.proxy.setFilterFixedString(self.filter.text())
        finally:
            QApplication.restoreOverrideCursor()

    def _on_header_menu(self, pos: QPoint) -> None:
        col = self.view.horizontalHeader().logicalIndexAt(pos)
        if col >= 0:
            self.header_menu_requested.emit(col, self.view.horizontalHeader().mapToGlobal(pos))

    def _on_selection_changed(self, *_) -> None:
        self.rows_selected.emit(self.selected_rows())

    def selected_rows(self) -> list[int]:
        rows = {
            self.proxy.mapToSource(i).row() for i in self.view.selectionModel().selectedIndexes()
        }
        return sorted(rows)

    def selected_cells(self) -> list[tuple[int, int]]:
        cells = [self.proxy.mapToSource(i) for i in self.view.selectionModel().selectedIndexes()]
        return sorted((i.row(), i.column()) for i in cells)

    def current_source(self) -> tuple[int, int]:
        index = self.proxy.mapToSource(self.view.currentIndex())
        return (index.row(), index.column()) if index.isValid() else (0, 0)

    # --------------------------------------------------------------- clipboard
    def copy_selection(self) -> str:
        cells = self.selected_cells()
        if not cells:
            return ""
        rows = sorted({r for r, _ in cells})
        cols = sorted({c for _, c in cells})
        lines = []
        for r in rows:
            lines.append("\t".join(self.model.data(self.model.index(r, c)) or "" for c in cols))
        text = "\n".join(lines)
        QGuiApplication.clipboard().setText(text)
        return text

    def paste(self, text: str | None = None) -> bool:
        text = QGuiApplication.clipboard().text() if text is None else text
        block = [line.split("\t") for line in text.rstrip("\n").split("\n")] if text else []
        if not block:
            return False
        doc = self.model.doc
        top, left = self.current_source()
        rows = min(len(block), doc.n_rows - top)
        cols = min(max(len(r) for r in block), len(doc.columns) - left)
        values = []
        try:
            for r in range(rows):
                row = []
                for c in range(cols):
                    cell = block[r][c] if c < len(block[r]) else ""
                    row.append(coerce(cell, doc.kinds[doc.columns[left + c]]))
                values.append(row)
        except ArborError as err:
            self.paste_rejected.emit(f"cannot paste: {err} (into a numeric column)")
            return False
        doc.undo_stack.push(PasteCommand(doc, top, left, values))
        return True

    def set_selection_missing(self) -> None:
        cells = self.selected_cells()
        if not cells:
            return
        doc = self.model.doc
        doc.undo_stack.beginMacro(f"Set {len(cells)} cell(s) missing")
        from gui.table.table_commands import SetCellCommand

        for r, c in cells:
            doc.undo_stack.push(SetCellCommand(doc, r, c, np.nan))
        doc.undo_stack.endMacro()

    def keyPressEvent(self, event) -> None:  # noqa: N802 - Qt override
        if event.matches(QKeySequence.StandardKey.Copy):
            self.copy_selection()
        elif event.matches(QKeySequence.StandardKey.Paste):
            self.paste()
        elif event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace):
            self.set_selection_missing()
        else:
            super().keyPressEvent(event)
