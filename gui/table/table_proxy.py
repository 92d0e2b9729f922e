"""The rows the table view shows: the source rows filtered and sorted with numpy, not per row in Qt.

Qt's sort/filter proxy asks Python for every row's sort key and every cell's text,
which takes seconds at 100,000 rows and minutes at a million. Here a sort is one
stable ``argsort`` of the column, and a filter one vectorised substring match per
column over the cells' display text (made once per column and kept until the
column changes). The order and the filter stay as they are while cells are
edited, so a row being typed in does not jump away; sorting or filtering again
applies them to the new values.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt

from gui.table.table_model import CELL_FLAGS, MISSING_TEXT, TableModel

NO_PARENT = QModelIndex()
_NUMBER_CHARS = frozenset("0123456789.-")


class RowsProxy(QAbstractTableModel):
    """A filtered, sorted view of a :class:`TableModel` (also limited to a node's rows on request)."""

    def __init__(self, source: TableModel, parent=None):
        super().__init__(parent)
        self._source = source
        self._rows = np.arange(source.rowCount(), dtype=np.int64)  # view row -> source row
        self._where: np.ndarray | None = None  # source row -> view row (-1 hidden), made on demand
        self._sort_column, self._sort_order = -1, Qt.SortOrder.AscendingOrder
        self._needle = ""
        self._node_rows: np.ndarray | None = None
        self._texts: dict[int, pa.Array] = {}
        source.modelReset.connect(self._on_source_reset)
        source.dataChanged.connect(self._on_source_data_changed)
        source.headerDataChanged.connect(self.headerDataChanged)

    # ------------------------------------------------------------------ Qt model
    def sourceModel(self) -> TableModel:  # noqa: N802 - the name Qt's proxies use
        return self._source

    def rowCount(self, parent=NO_PARENT) -> int:  # noqa: N802 - Qt override
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent=NO_PARENT) -> int:  # noqa: N802 - Qt override
        return 0 if parent.isValid() else self._source.columnCount()

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or index.row() >= len(self._rows):
            return None
        return self._source.cell(int(self._rows[index.row()]), index.column(), role)

    def setData(self, index: QModelIndex, value, role: int = Qt.ItemDataRole.EditRole) -> bool:  # noqa: N802
        return index.isValid() and self._source.setData(self.mapToSource(index), value, role)

    def flags(self, index: QModelIndex):
        return CELL_FLAGS if index.isValid() else Qt.ItemFlag.NoItemFlags

    def headerData(self, section: int, orientation, role: int = Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if (
            orientation == Qt.Orientation.Vertical
        ):  # the row's number in the table, as in a spreadsheet
            if 0 <= section < len(self._rows):
                return self._source.headerData(int(self._rows[section]), orientation, role)
            return None
        return self._source.headerData(section, orientation, role)

    def sort(self, column: int, order=Qt.SortOrder.AscendingOrder) -> None:
        self._sort_column, self._sort_order = column, order
        self.layoutAboutToBeChanged.emit()
        persistent = self.persistentIndexList()
        cells = [(int(self._rows[i.row()]), i.column()) for i in persistent]
        self._rows = self._sorted(self._rows)
        self._where = None
        self.changePersistentIndexList(
            persistent, [self.mapFromSource(self._source.index(r, c)) for r, c in cells]
        )
        self.layoutChanged.emit()

    # ------------------------------------------------------------------ mapping
    def mapToSource(self, index: QModelIndex) -> QModelIndex:  # noqa: N802 - the name Qt's proxies use
        if not index.isValid() or index.row() >= len(self._rows):
            return QModelIndex()
        return self._source.index(int(self._rows[index.row()]), index.column())

    def mapFromSource(self, index: QModelIndex) -> QModelIndex:  # noqa: N802 - the name Qt's proxies use
        if not index.isValid():
            return QModelIndex()
        if self._where is None:
            self._where = np.full(self._source.rowCount(), -1, dtype=np.int64)
            self._where[self._rows] = np.arange(len(self._rows))
        row = int(self._where[index.row()]) if index.row() < len(self._where) else -1
        return self.index(row, index.column()) if row >= 0 else QModelIndex()

    # ------------------------------------------------------------------ filtering
    def setFilterFixedString(self, text: str) -> None:  # noqa: N802 - the name Qt's proxies use
        self._needle = text
        self._refresh()

    def filter_text(self) -> str:
        return self._needle

    def set_rows(self, rows) -> None:
        """Show only these source rows (a node's), or every row again with None."""
        self._node_rows = (
            None if rows is None else np.unique(np.asarray(list(rows), dtype=np.int64))
        )
        self._refresh()

    def _refresh(self) -> None:
        self.beginResetModel()
        n = self._source.rowCount()
        rows = (
            np.arange(n, dtype=np.int64)
            if self._node_rows is None
            else self._node_rows[self._node_rows < n]
        )
        if self._needle:
            rows = rows[self._matches(self._needle.lower())[rows]]
        self._rows = self._sorted(rows)
        self._where = None
        self.endResetModel()

    def _matches(self, needle: str) -> np.ndarray:
        """Rows where any cell's displayed text contains ``needle`` (case-insensitive)."""
        doc = self._source.doc
        hit = np.zeros(doc.n_rows, dtype=bool)
        numeric_possible = set(needle) <= _NUMBER_CHARS or MISSING_TEXT in needle
        for col in range(doc.n_columns):
            if not numeric_possible and pd.api.types.is_float_dtype(doc.frame.iloc[:, col].dtype):
                continue  # "12.5" or "?" are all a number column can show
            found = pc.match_substring(self._text(col), needle, ignore_case=True)
            hit |= found.to_numpy(zero_copy_only=False)
        return hit

    def _text(self, col: int) -> pa.Array:
        """The column as the cells display it, one string a row."""
        if col not in self._texts:
            self._texts[col] = pa.array(
                _display_text(self._source.doc.frame.iloc[:, col]), type=pa.string()
            )
        return self._texts[col]

    # ------------------------------------------------------------------ sorting
    def _sorted(self, rows: np.ndarray) -> np.ndarray:
        if (
            self._sort_column < 0
            or self._sort_column >= self._source.columnCount()
            or not len(rows)
        ):
            return np.sort(rows)  # unsorted: the table's own order
        key = _sort_key(self._source.doc.frame.iloc[:, self._sort_column])[rows]
        if self._sort_order == Qt.SortOrder.DescendingOrder:
            key = np.where(np.isnan(key), np.nan, -key)
        return rows[np.argsort(key, kind="stable")]  # missing (NaN) last either way

    # ------------------------------------------------------------------ source changes
    def _on_source_reset(self) -> None:
        self._texts.clear()
        self._node_rows = None  # the rows of a node belong to the table that was replaced
        self._refresh()

    def _on_source_data_changed(
        self, top_left: QModelIndex, bottom_right: QModelIndex, roles=()
    ) -> None:
        for col in range(top_left.column(), bottom_right.column() + 1):
            self._texts.pop(col, None)
        if top_left.row() == bottom_right.row():
            first = self.mapFromSource(top_left)
            if first.isValid():
                self.dataChanged.emit(first, self.index(first.row(), bottom_right.column()))
            return
        if self._rows.size:
            self.dataChanged.emit(
                self.index(0, top_left.column()),
                self.index(len(self._rows) - 1, bottom_right.column()),
            )


def _display_text(series: pd.Series) -> list[str] | np.ndarray:
    """What each cell shows (see ``TableModel.data``): numbers as ``number`` writes them."""
    missing = series.isna().to_numpy()
    if pd.api.types.is_float_dtype(series.dtype):
        text = np.array(list(map("{:.6f}".format, series.to_numpy().tolist())), dtype=object)
        text = pd.Series(text).str.rstrip("0").str.rstrip(".").to_numpy(dtype=object)
        text[text == "-0"] = "0"
    else:
        text = series.astype(str).to_numpy(dtype=object)
    text[missing] = MISSING_TEXT
    return text


def _sort_key(series: pd.Series) -> np.ndarray:
    """A float per row that orders the column (numbers by value, text by its characters), NaN if missing."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        labels = np.array([str(c) for c in series.cat.categories], dtype=object)
        rank = np.empty(len(labels), dtype=np.float64)
        rank[np.argsort(labels, kind="stable")] = np.arange(len(labels))
        codes = series.cat.codes.to_numpy()
        return np.where(codes >= 0, rank[np.maximum(codes, 0)] if len(labels) else np.nan, np.nan)
    if pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype):
        return series.to_numpy(dtype=np.float64, na_value=np.nan)
    codes, _ = pd.factorize(series.map(str, na_action="ignore"), sort=True)
    key = codes.astype(np.float64)
    key[codes < 0] = np.nan
    return key
