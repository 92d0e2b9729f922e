"""The Summary dock: every column's figures (engine.data.summary) in a table, and the selected
column's histogram stacked by class; clicking a bar shows its rows in the Data table."""

from __future__ import annotations

from html import escape

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.data.summary import ColumnSummary, TableSummary, rows_in_bar, summarize
from engine.data.table import NOMINAL, NUMERIC
from engine.errors import ArborError
from gui.drawing import palette
from gui.panels.lazy_plot import LazyPlot
from gui.plain_text import plain_label, plain_tip
from gui.session.jobs import Job, run_aside
from gui.wheel_guard import PlotInPanel

#: Tables with more cells than this are summarised in a worker (a few tenths of a second and up).
WORKER_CELLS = 200_000
#: Edits come in bursts (a paste, typing): the summary waits for a pause this long.
REFRESH_DELAY_MS = 400

HEADINGS = ("Column", "Kind", "Missing", "Distinct", "Min", "Max", "Mean", "Std", "Most frequent")
HEADING_TIPS = (
    "The column's name (★: the target)",
    "nominal: categories; numeric: numbers; ignored: left out of learning",
    "Missing cells, and their share of the rows",
    "Distinct values present",
    "Smallest value",
    "Largest value",
    "Mean of the values present",
    "Standard deviation of the values present (n - 1)",
    "Nominal columns: the most frequent categories and their rows",
)
HOW = "Click a bar (a class's part of it) to show those rows in the Data table"


def _number(value: float) -> str:
    return "" if value != value else f"{value:.4g}"


def _bar_labels(column: ColumnSummary) -> list[str]:
    if column.kind == NUMERIC:
        last = len(column.counts) - 1
        return [
            f"[{_number(a)}, {_number(b)}{']' if k == last else ')'}"
            for k, (a, b) in enumerate(zip(column.edges, column.edges[1:], strict=False))
        ]
    return list(column.categories)


class _Plot(PlotInPanel, pg.PlotWidget):
    """A histogram that asks for little room (pyqtgraph asks for 480 px)."""

    HINT = QSize(280, 160)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return self.HINT


class SummaryPanel(QWidget):
    """The open table's columns: kind, missing and distinct values, range, spread or most
    frequent categories; and the selected column's histogram stacked by class.

    Signals
    -------
    rows_requested(object, str) : the table rows a clicked bar counts (an array of positions),
        and a sentence saying which they are.
    """

    rows_requested = Signal(object, str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.controller = None
        self.summary: TableSummary | None = None
        self._table = None  # the snapshot the summary was made from (bars' rows come from it)
        self._job: Job | None = None
        self._dirty = True
        self.column: ColumnSummary | None = None  # the column the histogram shows
        self._bars: list[tuple[float, float, list[float]]] = []  # x0, x1, class tops of each bar
        self.columns = QTableWidget(0, len(HEADINGS))
        self.columns.setHorizontalHeaderLabels(list(HEADINGS))
        for k, tip in enumerate(HEADING_TIPS):
            self.columns.horizontalHeaderItem(k).setToolTip(tip)
        self.columns.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.columns.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.columns.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.columns.verticalHeader().hide()
        self.columns.verticalHeader().setDefaultSectionSize(22)
        self.columns.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.columns.horizontalHeader().setStretchLastSection(True)
        self.columns.setToolTip("Every column of the table; select one to see its histogram")
        self.columns.itemSelectionChanged.connect(self._on_columns_selection_changed)
        self.caption = plain_label()
        self.caption.setToolTip(HOW)
        # Made when the dock is first shown or a column drawn (issue 29).
        self.figure = LazyPlot(self._set_up, make=lambda: _Plot(background="w"), hint=_Plot.HINT)
        self.legend = QLabel()
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setWordWrap(True)
        self.legend.setToolTip("The colours of the classes, as on the tree")
        self.status = plain_label()
        self.status.setWordWrap(True)
        right = QWidget()
        column = QVBoxLayout(right)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        column.addWidget(self.caption)
        column.addWidget(self.figure, 1)
        column.addWidget(self.legend)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.columns)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.splitter, 1)
        layout.addWidget(self.status)
        self._timer = QTimer(self, singleShot=True, interval=REFRESH_DELAY_MS)
        self._timer.timeout.connect(self._invalidate)

    @property
    def plot(self) -> pg.PlotWidget:
        """The histogram, made the first time it is needed."""
        return self.figure.plot

    def _set_up(self, plot: pg.PlotWidget) -> None:
        plot.setMenuEnabled(False)
        plot.setMouseEnabled(x=False, y=False)
        plot.hideButtons()
        plot.getAxis("left").enableAutoSIPrefix(False)
        plot.getAxis("bottom").enableAutoSIPrefix(False)
        plot.setToolTip(HOW)
        plot.scene().sigMouseClicked.connect(self._on_plot_clicked)
        plot.scene().sigMouseMoved.connect(self._on_plot_hovered)

    def bind(self, controller) -> None:
        self.controller = controller
        doc = controller.doc
        doc.reset.connect(self._invalidate)  # a new table: at once
        doc.columns_changed.connect(self._timer.start)
        doc.cells_changed.connect(self._timer.start)

    # ------------------------------------------------------------------ computing
    def _invalidate(self, *_) -> None:
        self._dirty = True
        if self.isVisible():
            self.refresh()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        if self._dirty:
            self.refresh()

    def refresh(self) -> None:
        """Summarise the table as it is now (a big one in a worker; the old figures stay meanwhile)."""
        self._dirty = False
        self._timer.stop()
        if self._job is not None:
            self._job.cancel()
            self._job = None
        doc = self.controller.doc if self.controller is not None else None
        try:
            table = doc.snapshot() if doc is not None else None
        except ArborError as err:
            self._show(None, None)
            self.status.setText(str(err))
            return
        if table is None:
            self._show(None, None)
            return
        rows, cols = table.frame.shape
        if rows * cols <= WORKER_CELLS:
            self._show(summarize(table), table)
            return
        self.status.setText(f"Summarising {rows:,} rows × {cols} columns…")
        job = Job("Table summary", lambda monitor: summarize(table))
        self._job = job
        job.finished.connect(lambda summary, j=job: self._job is j and self._show(summary, table))
        job.failed.connect(
            lambda message, _details, j=job: self._job is j and self.status.setText(message)
        )
        run_aside(job)

    def _show(self, summary: TableSummary | None, table) -> None:
        self._job = None
        chosen = self.selected_column()
        self.summary, self._table = summary, table
        self.columns.setRowCount(0)
        if summary is None:
            self.status.setText("")
            self._draw(None)
            return
        self.columns.setRowCount(len(summary.columns))
        for r, c in enumerate(summary.columns):
            self._fill_row(r, c)
        self.columns.resizeColumnsToContents()
        for k in range(
            len(HEADINGS) - 1
        ):  # a long name is cut, not the table widened past the dock
            self.columns.setColumnWidth(k, min(self.columns.columnWidth(k), 160))
        by = f"by {summary.target}" if summary.classes else "(the target is numeric: no classes)"
        self.status.setText(f"{summary.n_rows:,} rows, {len(summary.columns)} columns; counts {by}")
        names = [c.name for c in summary.columns]
        self.select_column(chosen if chosen in names else names[0] if names else None)

    def _fill_row(self, r: int, c: ColumnSummary) -> None:
        frequent = ""
        if c.kind == NOMINAL:
            frequent = ", ".join(
                f"{k} {n}" for k, n in zip(c.categories[:3], c.counts[:3], strict=True)
            )
        cells = (
            f"{c.name} ★" if c.is_target else c.name,
            c.kind,
            f"{c.missing:,} ({100 * c.missing_share:.0f}%)",
            f"{c.distinct:,}",
            _number(c.minimum),
            _number(c.maximum),
            _number(c.mean),
            _number(c.std),
            frequent,
        )
        for k, text in enumerate(cells):
            item = QTableWidgetItem(text)  # items show text as it is: no HTML
            if 2 <= k <= 7:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            tip = c.name if k == 0 else text if k == 8 else ""
            if k == 0 and c.note:
                tip = f"{c.name}\n{c.note}"
            if tip:
                item.setToolTip(plain_tip(tip))
            self.columns.setItem(r, k, item)

    # ------------------------------------------------------------------ the histogram
    def selected_column(self) -> str | None:
        rows = self.columns.selectionModel().selectedRows()
        if not rows or self.summary is None:
            return None
        return self.summary.columns[rows[0].row()].name

    def select_column(self, name: str | None) -> None:
        if self.summary is None or name is None:
            self._draw(None)
            return
        row = [c.name for c in self.summary.columns].index(name)
        if self.columns.currentRow() == row and self.selected_column() == name:
            self._draw(self.summary.columns[row])
        else:
            self.columns.selectRow(row)

    def _on_columns_selection_changed(self) -> None:
        name = self.selected_column()
        self._draw(self.summary.column(name) if name is not None else None)

    def _draw(self, column: ColumnSummary | None) -> None:
        if self.figure.built:
            self.plot.clear()
        self._bars = []
        self.column = column
        if column is None or not column.counts:
            self.caption.setText("" if column is None else f"{column.name}: no values to plot")
            self.legend.setText("")
            return
        classes = self.summary.classes
        nominal = column.kind == NOMINAL
        if nominal:
            x0 = np.arange(len(column.counts)) - 0.4
            x1 = x0 + 0.8
        else:
            x0, x1 = np.asarray(column.edges[:-1]), np.asarray(column.edges[1:])
        stacks = (
            np.asarray(column.class_counts, dtype=float)
            if classes
            else np.asarray(column.counts, dtype=float)[:, None]
        )
        tops = np.cumsum(stacks, axis=1)
        bottoms = tops - stacks
        for k in range(stacks.shape[1]):
            colour = palette.class_colour(k) if classes else palette.REGRESSION
            self.plot.addItem(
                pg.BarGraphItem(
                    x0=x0,
                    x1=x1,
                    y0=bottoms[:, k],
                    height=stacks[:, k],
                    brush=colour,
                    pen=pg.mkPen("w", width=0.5),
                )
            )
        self._bars = [
            (float(a), float(b), tops[i].tolist())
            for i, (a, b) in enumerate(zip(x0, x1, strict=True))
        ]
        bottom = self.plot.getAxis("bottom")
        if nominal:
            names = [c if len(c) <= 12 else c[:11] + "…" for c in column.categories]
            bottom.setTicks([list(enumerate(names)), []])
        else:
            bottom.setTicks(None)
        self.plot.setXRange(float(x0[0]), float(x1[-1]), padding=0.02)
        self.plot.setYRange(0, float(tops[:, -1].max()) or 1.0, padding=0.05)
        what = "categories, most frequent first" if nominal else f"{len(column.counts)} bins"
        note = f" ({column.note})" if column.note else ""
        self.caption.setText(f"{column.name}: {what}{note}; click a bar for its rows")
        # Each class's square in its colour; the names escaped, so a name is shown as it is.
        self.legend.setText(
            "&nbsp;&nbsp; ".join(
                f"<span style='color:{palette.class_colour(k).name()}'>■</span>&nbsp;{escape(c)}"
                for k, c in enumerate(classes or ())
            )
        )

    def _bar_at(self, scene_pos) -> tuple[int, int | None] | None:
        """The bar under a scene position and the class whose part of it is there (None: above
        the bar's parts, the whole bar)."""
        if not self._bars:
            return None
        point = self.plot.getPlotItem().vb.mapSceneToView(scene_pos)
        x, y = point.x(), point.y()
        for k, (x0, x1, tops) in enumerate(self._bars):
            if x0 <= x <= x1 and y >= 0:
                if self.summary.classes:
                    part = next((c for c, top in enumerate(tops) if y <= top), None)
                    return k, part
                return k, None
        return None

    def _on_plot_hovered(self, scene_pos) -> None:
        """The plot's tooltip names the bar under the mouse and its rows by class."""
        hit = self._bar_at(scene_pos)
        if hit is None:
            self.plot.setToolTip(HOW)
            return
        k, _ = hit
        c = self.column
        text = f"{c.name} {_bar_labels(c)[k]}: {c.counts[k]:,} rows"
        if self.summary.classes:
            text += "".join(
                f"\n  {cls}: {n:,}"
                for cls, n in zip(self.summary.classes, c.class_counts[k], strict=True)
            )
        self.plot.setToolTip(plain_tip(f"{text}\n{HOW}"))

    def _on_plot_clicked(self, event) -> None:
        hit = self._bar_at(event.scenePos())
        if hit is not None:
            self.click_bar(*hit)

    def click_bar(self, bar: int, class_index: int | None = None) -> None:
        """Ask for the rows bar ``bar`` counts (of class ``class_index`` when given)."""
        c, table = self.column, self._table
        if c is None or table is None:
            return
        rows = rows_in_bar(table, c, bar, class_index)
        label = _bar_labels(c)[bar]
        where = f"{c.name} in {label}" if c.kind == NUMERIC else f"{c.name} = {label}"
        if class_index is not None:
            where += f" and {self.summary.target} = {self.summary.classes[class_index]}"
        self.rows_requested.emit(rows, f"Showing the {len(rows):,} row(s) where {where}")
