"""The inspector's candidate-split table: attribute names in the row header (so they stay
while the columns scroll), the four seed figures first, numbers right-aligned to three places."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetrics
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QStyle,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.learn.significance import BONFERRONI_RULE

#: The tests' columns, after the caller's (issue 33): why gain's favourite may be no surprise.
TEST_COLUMNS = (
    (
        "chi2",
        "chi²",
        "Pearson's chi-squared of the split's branch-by-class table against "
        '"the attribute tells nothing about the class"',
    ),
    (
        "g",
        "G",
        "G (likelihood-ratio) statistic of the same table: 2 Σ observed·ln(observed/expected)",
    ),
    ("df", "df", "degrees of freedom: (branches − 1) × (classes − 1)"),
    ("p_chi2", "p", "chance of a chi-squared this large if the attribute told nothing"),
    (
        "p_chi2_adjusted",
        "p\nadj.",
        BONFERRONI_RULE + ". Many-valued attributes gain more by chance; "
        "their degrees of freedom and this multiplier take it into account",
    ),
    ("p_g_adjusted", "p(G)\nadj.", "the G test's p-value, adjusted the same way"),
)


def tests_cell(row, field: str) -> str:
    """One test cell: statistics to three places, p-values to three significant figures."""
    test = row.test
    if test is None or test.df == 0:
        return "–"
    value = getattr(test, field)
    if field == "df":
        return str(value)
    return f"{value:.3g}" if field.startswith("p") else f"{value:.3f}"


class SplitsTable(QWidget):
    """A heading, the table and the notes below it; hidden when the node has nothing to score."""

    def __init__(self, columns, chosen: str, muted: str, parent=None):
        super().__init__(parent)
        columns = (*columns, *TEST_COLUMNS)
        self._tests = {field for field, _, _ in TEST_COLUMNS}
        self._columns, self._chosen, self._muted = columns, QColor(chosen), QColor(muted)
        self.table = QTableWidget(0, len(columns))
        self.table.setObjectName("inspector-splits")
        for k, (_field, short, full) in enumerate(columns):
            item = QTableWidgetItem(short)
            item.setToolTip(full)
            self.table.setHorizontalHeaderItem(k, item)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.table.setWordWrap(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(False)
        self.table.horizontalHeader().setMinimumSectionSize(16)
        rows = self.table.verticalHeader()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        rows.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        # As wide as the dock, however many columns: the table scrolls sideways, not the inspector.
        self.table.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.table.setMinimumWidth(0)
        small = QFont(self.table.font())  # a point smaller: a dense table of figures
        small.setPointSizeF(max(7.0, small.pointSizeF() - 1))
        self.table.setFont(small)
        self.table.horizontalHeader().setFont(small)
        self.table.verticalHeader().setFont(small)
        # Tight cells: at 1024 px the dock has room for the names and the four seed figures only.
        self.table.setStyleSheet("QHeaderView::section { padding: 1px 2px; }")
        self.heading = QLabel("<b>Candidate splits here</b>")
        self.notes = QLabel()
        self.notes.setWordWrap(True)
        self.notes.setTextFormat(Qt.TextFormat.RichText)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.heading)
        layout.addWidget(self.table)
        layout.addWidget(self.notes)
        self.hide()

    def show_rows(self, rows, text_of, notes_html: str) -> None:
        """Fill from the engine's attribute rows; `text_of(row, field)` formats one cell."""
        table = self.table
        table.setRowCount(len(rows))
        bold = QFont(table.font())
        bold.setBold(True)
        for i, r in enumerate(rows):
            name = QTableWidgetItem(r.name + (" –" if r.reason is not None else ""))
            if r.chosen:
                name.setFont(bold)
                name.setBackground(QBrush(self._chosen))
            elif r.reason is not None:
                name.setForeground(QBrush(self._muted))
            table.setVerticalHeaderItem(i, name)
            for k, (field, _short, _full) in enumerate(self._columns):
                text = tests_cell(r, field) if field in self._tests else text_of(r, field)
                item = QTableWidgetItem(text)
                if field != "split":
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                if r.chosen:
                    item.setBackground(QBrush(self._chosen))
                elif r.reason is not None:
                    item.setForeground(QBrush(self._muted))
                table.setItem(i, k, item)
        self._fit_widths()
        table.resizeRowsToContents()
        self.notes.setText(notes_html)
        self._fit_height()
        table.horizontalScrollBar().setValue(0)  # names and seed figures in view after each step
        self.show()

    def _fit_widths(self) -> None:
        """Columns as wide as their text plus a few pixels (the style's own cell margins are
        wider than a 1024 px screen's dock can spare)."""
        table = self.table
        metrics = table.fontMetrics()
        # The style's cell margins (focus frame margin plus one, each side) and two spare pixels.
        pad = 2 * (table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin) + 1) + 2
        for k in range(table.columnCount()):
            texts = table.horizontalHeaderItem(k).text().split("\n")
            texts += [table.item(i, k).text() for i in range(table.rowCount())]
            table.setColumnWidth(k, max(metrics.horizontalAdvance(t) for t in texts) + pad)
        names = [table.verticalHeaderItem(i).text() for i in range(table.rowCount())]
        bold = QFont(table.font())
        bold.setBold(True)
        wide = QFontMetrics(bold)  # the chosen attribute's name is bold
        table.verticalHeader().setFixedWidth(
            max((wide.horizontalAdvance(n) for n in names), default=0) + pad
        )

    def _fit_height(self) -> None:
        """Every row shown (the inspector scrolls up and down), room kept for the sideways bar."""
        table = self.table
        height = table.horizontalHeader().sizeHint().height() + 2 * table.frameWidth()
        height += sum(table.rowHeight(i) for i in range(table.rowCount()))
        height += table.horizontalScrollBar().sizeHint().height()
        table.setFixedHeight(height)

    def clear(self) -> None:
        self.table.setRowCount(0)
        self.hide()
