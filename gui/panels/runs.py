"""The Runs list: every training of the session with its settings, size and figures.

Like Weka's result list: select a run to see its evaluation, two to compare them; bring a
run's tree back on screen; test it on a data file or a percentage split.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QAbstractTableModel, QItemSelectionModel, Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QBoxLayout,
    QDoubleSpinBox,
    QGridLayout,
    QGroupBox,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from engine.runs import Run, settings_summary
from gui.plain_text import plain_tip

COLUMNS = ("#", "Run", "Leaves", "Train", "Evaluated")


def short_method(method: str) -> str:
    """A word for where figures come from: 'CV', 'test', 'split' or 'training'."""
    if "cross-validation" in method:
        return "CV"
    if method.startswith("test set"):
        return "test"
    return "split" if "train / rest test" in method else method.split()[0]


def score_text(ev, with_method: bool = True) -> str:
    if ev is None:
        return "—"
    value = f"RMSE {ev.rmse:.4g}" if ev.classes is None else f"{100 * ev.accuracy:.1f}%"
    return f"{value} {short_method(ev.method)}" if with_method else value


class RunsModel(QAbstractTableModel):
    """The controller's run log as rows, newest last; the run whose tree is on screen in bold."""

    def __init__(self, controller, parent=None):
        super().__init__(parent)
        self.controller = controller
        self._runs: list[Run] = []

    def refresh(self) -> None:
        self.beginResetModel()
        self._runs = list(self.controller.runs)
        self.endResetModel()

    def on_screen_changed(self) -> None:
        if self._runs:
            self.dataChanged.emit(
                self.index(0, 0), self.index(len(self._runs) - 1, len(COLUMNS) - 1)
            )

    def run_at(self, row: int) -> Run:
        return self._runs[row]

    def row_of(self, number: int) -> int:
        for row, run in enumerate(self._runs):
            if run.number == number:
                return row
        return -1

    def rowCount(self, parent=None) -> int:  # noqa: N802 - Qt override
        return 0 if parent is not None and parent.isValid() else len(self._runs)

    def columnCount(self, parent=None) -> int:  # noqa: N802 - Qt override
        return 0 if parent is not None and parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802 - Qt override
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole:
            return (
                "Run number",
                "Algorithm, the options that differ from its defaults, and the data",
                "Leaves / nodes of the tree",
                "Accuracy (or RMSE) on the training rows",
                "The latest evaluation on rows the tree did not learn from: CV (cross-validation), "
                "test (a test file) or split (a percentage split)",
            )[section]
        return None

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        run, col = self._runs[index.row()], index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return (
                str(run.number),
                f"{settings_summary(run.settings)} · {run.data_name}",
                f"{run.n_leaves}/{run.n_nodes}",
                score_text(run.evaluations[0] if run.evaluations else None, with_method=False),
                score_text(run.honest),
            )[col]
        if role == Qt.ItemDataRole.ToolTipRole:
            if col == 4 and run.honest is not None:
                return plain_tip(run.honest.method)
            return self.tooltip(run)
        if (
            role == Qt.ItemDataRole.FontRole
            and run.tree is not None
            and run.tree is self.controller.tree
        ):
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (0, 2, 3):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def tooltip(self, run: Run) -> str:
        lines = [
            f"<b>Run {run.number}</b> at {run.when}: {escape(run.title)} ({run.n_rows:,} rows)",
            escape(settings_summary(run.settings)),
            f"{run.n_leaves} leaves, {run.n_nodes} nodes, depth {run.depth}",
        ]
        lines += [
            escape(f"{ev.method}: {score_text(ev, with_method=False)}") for ev in run.evaluations
        ]
        if run.tree is None:
            lines.append(
                "<i>Its tree is no longer kept: Show tree grows it again from its settings.</i>"
            )
        if run.tree is not None and run.tree is self.controller.tree:
            lines.append("<i>Its tree is on screen.</i>")
        lines += [f"<span style='color:#6B7280'>{escape(n)}</span>" for n in run.notes]
        return "<br>".join(lines)


class RunsPanel(QWidget):
    """The runs list and what can be done with the selected runs.

    Signals
    -------
    compare_requested(int, int) : compare these two runs side by side.
    test_file_requested(int) : evaluate this run on a data file.
    split_requested(int, float) : evaluate this run's settings on a split (training percentage).
    predict_requested() : predict a data file with the tree on screen.
    """

    compare_requested = Signal(int, int)
    test_file_requested = Signal(int)
    split_requested = Signal(int, float)
    predict_requested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.controller = None
        self.model = None
        self.view = QTableView()
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.view.setWordWrap(False)
        self.view.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.view.setToolTip(
            "Every training since the window opened (or saved in the project). "
            "Select one to see its figures; Ctrl+click a second to compare them"
        )
        self.empty = QLabel("Each training (F5) adds a run here.")
        self.empty.setWordWrap(True)
        self.show_button = QPushButton("Show tree")
        self.show_button.setToolTip(
            "Put the selected run's tree on the canvas (grown again from its "
            "settings if it is no longer kept)"
        )
        self.compare_button = QPushButton("Compare")
        self.compare_button.setToolTip(
            "Compare the two selected runs side by side: figures, confusion "
            "matrices and trees (Ctrl+click to select two)"
        )
        self.remove_button = QPushButton("Remove")
        self.remove_button.setToolTip("Remove the selected runs from the list")
        self.test_button = QPushButton("Test file…")
        self.test_button.setToolTip(
            "Score the selected run's tree on the rows of another data file (a supplied test set)"
        )
        self.split = QDoubleSpinBox()
        self.split.setRange(1, 99)
        self.split.setValue(66)
        self.split.setDecimals(0)
        self.split.setSuffix(" % train")
        self.split.setToolTip(
            "Percentage split: train the run's settings on this share of the rows "
            "(stratified, the run's seed) and test on the rest"
        )
        self.split_button = QPushButton("Split")
        self.split_button.setToolTip("Evaluate the selected run's settings on a percentage split")
        self.predict_button = QPushButton("Predict a file…")
        self.predict_button.setToolTip(
            "Predict every row of a data file with the tree on screen and save "
            "them with the class probabilities"
        )
        side = QWidget()
        grid = QGridLayout(side)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(self.show_button, 0, 0)
        grid.addWidget(self.compare_button, 0, 1)
        grid.addWidget(self.remove_button, 0, 2)
        evaluate = QGroupBox("Evaluate the selected run")
        inner = QGridLayout(evaluate)
        inner.addWidget(self.test_button, 0, 0)
        inner.addWidget(self.predict_button, 0, 1)
        inner.addWidget(self.split, 1, 0)
        inner.addWidget(self.split_button, 1, 1)
        grid.addWidget(evaluate, 1, 0, 1, 3)
        grid.setRowStretch(2, 1)
        table = QWidget()
        column = QVBoxLayout(table)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.empty)
        column.addWidget(self.view, 1)
        # Wide (the bottom dock): the buttons beside the list; narrow (a side dock): under it.
        self.layout_box = QBoxLayout(QBoxLayout.Direction.LeftToRight, self)
        self.layout_box.addWidget(table, 1)
        self.layout_box.addWidget(side)
        self._update_buttons()

    def bind(self, controller) -> None:
        self.controller = controller
        self.model = RunsModel(controller, self)
        self.view.setModel(self.model)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setMinimumSectionSize(28)
        self.view.selectionModel().selectionChanged.connect(self._on_view_selection_changed)
        controller.runs_changed.connect(self._on_controller_runs_changed)
        controller.run_selected.connect(self._on_controller_run_selected)
        controller.tree_changed.connect(
            lambda *_: (self.model.on_screen_changed(), self._update_buttons())
        )
        controller.busy_changed.connect(lambda *_: self._update_buttons())
        self.show_button.clicked.connect(self.show_selected)
        self.remove_button.clicked.connect(self._on_remove_clicked)
        self.compare_button.clicked.connect(self._on_compare_clicked)
        self.test_button.clicked.connect(lambda: self.test_file_requested.emit(self.current()))
        self.split_button.clicked.connect(
            lambda: self.split_requested.emit(self.current(), self.split.value())
        )
        self.predict_button.clicked.connect(self.predict_requested)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        wide = event.size().width() >= 720
        direction = QBoxLayout.Direction.LeftToRight if wide else QBoxLayout.Direction.TopToBottom
        if self.layout_box.direction() != direction:
            self.layout_box.setDirection(direction)

    # ------------------------------------------------------------------ reading
    def selected_numbers(self) -> list[int]:
        if self.model is None:
            return []
        rows = sorted({i.row() for i in self.view.selectionModel().selectedRows()})
        return [self.model.run_at(r).number for r in rows]

    def current(self) -> int:
        return self.controller.selected_run if self.controller is not None else -1

    # ------------------------------------------------------------------ reactions
    def _on_controller_runs_changed(self) -> None:
        chosen = set(self.selected_numbers()) | {self.controller.selected_run}
        self.view.selectionModel().blockSignals(True)
        self.model.refresh()
        for number in chosen:
            row = self.model.row_of(number)
            if row >= 0:
                self.view.selectionModel().select(
                    self.model.index(row, 0),
                    QItemSelectionModel.SelectionFlag.Select
                    | QItemSelectionModel.SelectionFlag.Rows,
                )
        self.view.selectionModel().blockSignals(False)
        self.empty.setVisible(len(self.controller.runs) == 0)
        self._update_buttons()

    def _on_controller_run_selected(self, number: int) -> None:
        row = self.model.row_of(number)
        if row >= 0 and number not in self.selected_numbers():
            self.view.selectRow(row)
        self.view.scrollTo(self.model.index(max(row, 0), 0)) if row >= 0 else None
        self._update_buttons()

    def _on_view_selection_changed(self, *_) -> None:
        index = self.view.selectionModel().currentIndex()
        numbers = self.selected_numbers()
        if index.isValid() and self.model.run_at(index.row()).number in numbers:
            self.controller.select_run(self.model.run_at(index.row()).number)
        elif numbers:
            self.controller.select_run(numbers[-1])
        self._update_buttons()

    def _update_buttons(self) -> None:
        has = self.controller is not None and self.controller.selected_run >= 0
        busy = self.controller is not None and self.controller.busy
        self.show_button.setEnabled(has and not busy)
        self.remove_button.setEnabled(bool(self.selected_numbers()))
        self.compare_button.setEnabled(len(self.selected_numbers()) == 2)
        for b in (self.test_button, self.split_button, self.split):
            b.setEnabled(has and not busy)
        self.predict_button.setEnabled(
            self.controller is not None and self.controller.tree is not None and not busy
        )

    def show_selected(self) -> None:
        if self.current() >= 0:
            self.controller.show_run(self.current())

    def _on_remove_clicked(self) -> None:
        for number in self.selected_numbers():
            self.controller.remove_run(number)

    def _on_compare_clicked(self) -> None:
        numbers = self.selected_numbers()
        if len(numbers) == 2:
            self.compare_requested.emit(*numbers)
