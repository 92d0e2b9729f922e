"""The main window: assembles the canvas, the panels and the actions around one controller.

It holds no state of its own beyond layout: the table, options, trained tree and its
numbers are the controller's (``gui.controller``); the commands are declared in
``gui.actions``; file, export and table-edit work live in ``gui.session.files``,
``gui.session.exports`` and ``gui.table.table_edits``.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings, QSize, Qt, QTimer
from PySide6.QtGui import QActionGroup
from PySide6.QtWidgets import (
    QDockWidget,
    QFrame,
    QLabel,
    QMainWindow,
    QMenu,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QTabWidget,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from engine.export.node_labels import NodeLabels
from gui.actions import MENUS, TOOLBAR, build_actions, update_enabled
from gui.canvas.find_bar import FindBar
from gui.canvas.hovering import NodeHover
from gui.canvas.modelling import Modelling
from gui.canvas.tree_canvas import TreeCanvas
from gui.compile_notice import CompileNotice
from gui.controller import Controller
from gui.dialogs import Dialogs
from gui.elided_label import ElidedLabel
from gui.panels.algorithm import AlgorithmPanel
from gui.panels.data import TablePanel
from gui.panels.evaluation import EvaluationPanel
from gui.panels.growth import GrowthPanel
from gui.panels.inspector import Inspector
from gui.panels.pruning import PruningPanel
from gui.panels.regions import RegionsPanel
from gui.panels.results import ResultsPanel
from gui.panels.runs import RunsPanel
from gui.panels.summary import SummaryPanel
from gui.panels.tree_text import TreeTextPanel
from gui.panels.what_if import WhatIfPanel
from gui.plain_text import plain_tip
from gui.presenting import MIN_LABEL_PX_WINDOW, Presenter
from gui.screen_fit import first_geometry, fit_to_screen
from gui.session.collector import collect_in_gui_thread
from gui.session.curve_jobs import CurveJobs
from gui.session.evaluating import Evaluating
from gui.session.exports import IMAGE_SCALES, Exports
from gui.session.files import FileActions
from gui.session.large_data import LargeData
from gui.session.recovery import Recovery
from gui.session.regrow import RegrowOnEdit
from gui.side_bar import SideBar
from gui.side_by_side import SideBySide
from gui.stability_marks import StabilityMarks
from gui.table.table_edits import TableEdits
from gui.table.table_model import TableModel
from gui.theme import Theme
from gui.wheel_guard import install_wheel_guard
from gui.workspaces import Workspaces

#: Docks: name, area, and the dock it shares tabs with (None: its own place). Where a dock
#: opens in each workspace follows from this row (see gui/workspaces.py).
DOCKS = (
    ("Data", Qt.DockWidgetArea.BottomDockWidgetArea, None),
    ("Runs", Qt.DockWidgetArea.BottomDockWidgetArea, "Data"),
    ("Summary", Qt.DockWidgetArea.BottomDockWidgetArea, "Data"),
    ("Regions", Qt.DockWidgetArea.BottomDockWidgetArea, "Data"),
    ("Algorithm", Qt.DockWidgetArea.LeftDockWidgetArea, None),
    ("Inspector", Qt.DockWidgetArea.RightDockWidgetArea, None),
    ("Results", Qt.DockWidgetArea.LeftDockWidgetArea, "Algorithm"),
    ("Growth", Qt.DockWidgetArea.LeftDockWidgetArea, "Algorithm"),
    ("What-if", Qt.DockWidgetArea.LeftDockWidgetArea, "Algorithm"),
    ("Pruning", Qt.DockWidgetArea.RightDockWidgetArea, "Inspector"),
    ("Evaluation", Qt.DockWidgetArea.RightDockWidgetArea, "Inspector"),
    ("Text", Qt.DockWidgetArea.RightDockWidgetArea, "Inspector"),
)

#: Docks whose panel scrolls when the dock is short (the table and the inspector scroll themselves),
#: or narrow: Evaluation's and Summary's widths would take a compact window's canvas under half.
SCROLLED = ("Algorithm", "Results", "Growth", "What-if", "Pruning", "Evaluation", "Summary")


def _scrolling(panel) -> QScrollArea:
    """``panel`` in a scroll area, so a short dock scrolls it instead of raising the window's minimum."""
    area = QScrollArea()
    area.setWidget(panel)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
    return area


#: The setting that makes a file given on the command line train as soon as it is open.
TRAIN_AT_START = "start/train_opened_file"


def trains_at_start(settings) -> bool:
    """Whether a file given on the command line trains at once (off unless the person set it)."""
    return settings.value(TRAIN_AT_START, False) in (True, "true", "1", 1)


class MainWindow(QMainWindow):
    """Arbor's window: tree canvas in the centre; data, algorithm, inspector and results docks."""

    def __init__(self, settings: QSettings | None = None):
        super().__init__()
        collect_in_gui_thread()  # before any worker thread starts: see gui/session/collector.py
        install_wheel_guard()  # the wheel scrolls panels, not the inputs it passes: see gui/wheel_guard.py
        self.settings = settings or QSettings()
        self.controller = Controller(self)
        self.doc = self.controller.doc
        self.model = TableModel(self.doc, self)
        self.table = TablePanel(self.model)
        self.table.setMinimumHeight(190)
        self.canvas = TreeCanvas()
        self.canvas.min_label_px = MIN_LABEL_PX_WINDOW  # fitted, headlines stay readable
        self.config = AlgorithmPanel()
        self.inspector = Inspector()
        self.results = ResultsPanel()
        self.growth = GrowthPanel()
        self.pruning = PruningPanel()
        self.what_if = WhatIfPanel()
        self.runs = RunsPanel()
        self.evaluation = EvaluationPanel()
        self.tree_text = TreeTextPanel()
        self.summary = SummaryPanel()
        self.regions = RegionsPanel()
        for panel in (
            self.config,
            self.inspector,
            self.results,
            self.growth,
            self.pruning,
            self.what_if,
            self.runs,
            self.evaluation,
            self.tree_text,
            self.summary,
            self.regions,
        ):
            panel.bind(self.controller)
        self._dialogs = Dialogs(self, self.doc, self.settings)
        self.files = FileActions(
            self.controller, self._dialogs, self.settings, self._layout, self._apply_layout, self
        )
        self.exports = Exports(self.controller, self._dialogs, self._image_options)
        self.table_edits = TableEdits(self.doc, self.table, self._dialogs, self)
        self.modelling = Modelling(self.controller, self._dialogs, self)
        self.evaluating = Evaluating(self.controller, self._dialogs, self)
        self.curve_jobs = CurveJobs(
            self.controller, self._dialogs, self.evaluation.show_curve, self
        )
        self.large = LargeData(self.controller, self._dialogs, self)
        self.side_by_side = SideBySide(self.controller, self._dialogs, self)
        self.stability_marks = StabilityMarks(
            self.controller, self.canvas, self.inspector, self, self.growth.play_button.isChecked
        )
        self.regrow = RegrowOnEdit(self.controller, self.config.problem, self)
        self.compare_window = None
        self.shortcuts_dialog = None
        self.recovery = Recovery(self.files)
        self.files.recovery = self.recovery
        self.image_scale = 2.0
        self.find_bar = FindBar(self.canvas)
        centre = QWidget()
        column = QVBoxLayout(centre)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.find_bar)
        column.addWidget(self.canvas, 1)
        self.setCentralWidget(centre)
        self.canvas.set_job_starter(self._start_canvas_job)
        self.docks = {}
        for name, area, tab_with in DOCKS:
            dock = QDockWidget(name, self)
            dock.setObjectName(f"dock-{name}")
            dock.setWidget(_scrolling(self._panel(name)) if name in SCROLLED else self._panel(name))
            self.addDockWidget(area, dock)
            self.docks[name] = dock
            if tab_with is not None:
                self.tabifyDockWidget(self.docks[tab_with], dock)
        self.docks["Algorithm"].raise_()
        self.docks["Inspector"].raise_()
        self.docks["Data"].raise_()
        # Five tabs side by side would be elided to "Algori..." in a 300-px dock: stack them on its edge.
        self.setTabPosition(Qt.DockWidgetArea.LeftDockWidgetArea, QTabWidget.TabPosition.West)
        self.setTabPosition(Qt.DockWidgetArea.RightDockWidgetArea, QTabWidget.TabPosition.East)
        self.workspaces = Workspaces(self, DOCKS, self.settings)
        self.side_bar = SideBar(self, DOCKS)  # compact: the panels as buttons on the right edge
        self.theme = Theme(self, self.settings)
        self.exports.colours = self.theme.export_colours
        self.presenter = Presenter(self)
        self._build_status_bar()
        self.act = build_actions(self)
        self.side_bar.use_action(self.act["collapse_panels"])
        self.regions.use_draw_action(self.act["draw_split"])
        labels = self.canvas.style().labels
        for name in NodeLabels.NAMES:
            self.act[f"label_{name}"].setChecked(getattr(labels, name))
        self._build_menus()
        self._wire()
        self._update_actions()
        #: First start on a screen too small for 1400x900 and a frame: start maximized (show_first).
        self.start_maximized = fit_to_screen(self, QSize(1400, 900))
        self._sized = self._restore()
        shown = None
        if not self._sized:  # first start: the current workspace as it starts, for this size
            shown = self.size()
            if self.start_maximized and self.screen() is not None:
                shown = self.screen().availableGeometry().size()
            self.workspaces.arrange(size=shown)
        self.side_bar.apply(size=shown)
        self.theme.apply()

    def show_first(self) -> None:
        """Show the window as it starts: maximized where its first size would not fit with its frame
        (a saved geometry, maximized or not, is shown as it was)."""
        if self.start_maximized:
            self.showMaximized()
        else:
            self.show()

    def _panel(self, name: str):
        return {
            "Data": self.table,
            "Algorithm": self.config,
            "Inspector": self.inspector,
            "Results": self.results,
            "Growth": self.growth,
            "What-if": self.what_if,
            "Pruning": self.pruning,
            "Runs": self.runs,
            "Evaluation": self.evaluation,
            "Text": self.tree_text,
            "Summary": self.summary,
            "Regions": self.regions,
        }[name]

    @property
    def dialogs(self):
        return self._dialogs

    @dialogs.setter
    def dialogs(self, dialogs) -> None:
        """Every helper asks through the same dialogs (tests put recording ones in)."""
        self._dialogs = dialogs
        for helper in (
            self.files,
            self.exports,
            self.table_edits,
            self.modelling,
            self.evaluating,
            self.curve_jobs,
            self.large,
            self.side_by_side,
        ):
            helper.dialogs = dialogs

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        if not self._sized:  # first start: docks get sizes only once the window is laid out
            self._sized = True
            QTimer.singleShot(0, self, self._size_docks)

    def _size_docks(self) -> None:
        """Share the window between the canvas and the docks in proportion to its size: the
        canvas keeps at least half of it (issue 38; gui/workspaces.py)."""
        self.workspaces.size_docks()
        bottom = [
            d
            for d in self.docks.values()
            if not d.isHidden()
            and not d.isFloating()
            and self.dockWidgetArea(d) == Qt.DockWidgetArea.BottomDockWidgetArea
        ]
        if bottom:
            height = self.height()
            self.resizeDocks(
                bottom[:1], [sorted((170, int(0.25 * height), 280))[1]], Qt.Orientation.Vertical
            )
        self.canvas.fit_to_window(readable=True)

    def bars(self) -> list:
        """The menu bar, toolbars and status bar: what a presentation hides."""
        return [self.menuBar(), *self.findChildren(QToolBar), self.statusBar()]

    # ------------------------------------------------------------------ construction
    def _build_status_bar(self) -> None:
        self.status_label = ElidedLabel()
        self.progress = QProgressBar()
        self.progress.setMinimumWidth(320)
        self.progress.setRange(0, 1000)
        self.progress.hide()
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip(
            "Stop the running job (Esc); the table and the tree stay as they were"
        )
        self.cancel_button.hide()
        self.cancel_button.clicked.connect(self.controller.cancel)
        self.compile_notice = CompileNotice()
        self.queue_label = QLabel()
        self.queue_label.hide()
        self.clear_queue_button = QPushButton("Clear queue")
        self.clear_queue_button.setToolTip("Drop the queued trainings; the running one goes on")
        self.clear_queue_button.hide()
        self.clear_queue_button.clicked.connect(lambda: self.controller.clear_queue())
        bar = self.statusBar()
        bar.addWidget(self.status_label, 1)
        bar.addPermanentWidget(self.compile_notice)
        bar.addPermanentWidget(self.queue_label)
        bar.addPermanentWidget(self.clear_queue_button)
        bar.addPermanentWidget(self.progress)
        bar.addPermanentWidget(self.cancel_button)
        bar.addPermanentWidget(self.stability_marks.progress)
        bar.addPermanentWidget(self.stability_marks.cancel_button)

    def _build_menus(self) -> None:
        from engine.data.samples import sample_names

        self.recent_menu = QMenu("Open &recent", self)
        self.samples_menu = QMenu("S&amples", self)
        for name in sample_names():
            self.samples_menu.addAction(name).triggered.connect(
                lambda *_, n=name: self.files.open_sample(n)
            )
        scale_menu = QMenu("Image &scale", self)
        group = QActionGroup(self)
        for factor in IMAGE_SCALES:
            action = scale_menu.addAction(f"{factor:g}x ({int(96 * factor)} dpi)")
            action.setCheckable(True)
            action.setChecked(factor == self.image_scale)
            action.triggered.connect(lambda *_, f=factor: setattr(self, "image_scale", f))
            group.addAction(action)
        labels_menu = QMenu("Node &labels", self)
        for name in NodeLabels.NAMES:
            labels_menu.addAction(self.act[f"label_{name}"])
        workspaces_menu = QMenu("&Workspace", self)
        for name in ("workspace_learn", "workspace_analyse", "workspace_present"):
            workspaces_menu.addAction(self.act[name])
        workspaces_menu.addSeparator()
        workspaces_menu.addAction(self.act["reset_workspace"])
        theme_menu = QMenu("&Theme", self)
        for group_names, menu in (
            (("workspace_learn", "workspace_analyse", "workspace_present"), None),
            (("theme_system", "theme_light", "theme_dark"), theme_menu),
        ):
            group = QActionGroup(self)
            for name in group_names:
                group.addAction(self.act[name])
                if menu is not None:
                    menu.addAction(self.act[name])
        submenus = {
            "@recent": self.recent_menu,
            "@samples": self.samples_menu,
            "@scale": scale_menu,
            "@labels": labels_menu,
            "@workspaces": workspaces_menu,
            "@theme": theme_menu,
        }
        for title, names in MENUS.items():
            menu = self.menuBar().addMenu(title)
            for name in names:
                if name is None:
                    menu.addSeparator()
                elif name == "@docks":
                    for dock in self.docks.values():
                        menu.addAction(dock.toggleViewAction())
                elif name in submenus:
                    menu.addMenu(submenus[name])
                else:
                    menu.addAction(self.act[name])
        toolbar = QToolBar("Main")
        toolbar.setObjectName("toolbar-main")
        for name in TOOLBAR:
            toolbar.addSeparator() if name is None else toolbar.addAction(self.act[name])
        self.addToolBar(toolbar)

    def _wire(self) -> None:
        c = self.controller
        c.message.connect(self._say)
        c.failed.connect(lambda message, details: self.dialogs.error(message, details))
        c.progress_changed.connect(self._on_controller_progress_changed)
        c.busy_changed.connect(self._on_controller_busy_changed)
        c.queue_changed.connect(self._on_controller_queue_changed)
        c.queue_changed.connect(self._update_actions)
        c.tree_changed.connect(self._on_controller_tree_changed)
        c.node_selected.connect(self._on_controller_node_selected)
        c.held_out_changed.connect(self._on_controller_held_out_changed)
        c.test_counted.connect(self._on_controller_test_counted)
        c.result_changed.connect(
            lambda result: result is not None and self.docks["Results"].raise_()
        )
        stack = self.doc.undo_stack
        # Bound methods, not lambdas: Qt drops them with the window, before its children go.
        for signal in (c.tree_changed, c.busy_changed, stack.canUndoChanged, stack.canRedoChanged):
            signal.connect(self._update_actions)
        self.stability_marks.runner.busy_changed.connect(self._update_actions)
        stack.undoTextChanged.connect(self._on_undo_text_changed)
        stack.redoTextChanged.connect(self._on_redo_text_changed)
        self.doc.modified_changed.connect(lambda *_: self._update_title())
        self.doc.reset.connect(self._update_title)
        self.doc.columns_changed.connect(self._update_title)
        self.files.recent_changed.connect(self._refresh_recent)
        self.model.edit_rejected.connect(self.table_edits.offer_nominal)
        self.table.header_menu_requested.connect(
            lambda col, pos: self.table_edits.header_menu(col).exec(pos)
        )
        self.table.paste_rejected.connect(lambda msg: self.dialogs.error(msg))
        self.table.rows_selected.connect(self._on_table_rows_selected)
        self.canvas.node_selected.connect(c.select_node)
        self.canvas.big_tree_shown.connect(self._on_canvas_big_tree_shown)
        self.canvas.tree_scene().layout_changed.connect(self.doc.nodes_moved)
        self.canvas.opened.connect(self._on_canvas_opened)
        self.find_bar.closed.connect(self.canvas.setFocus)
        self.canvas.rows_dropped.connect(self._on_canvas_rows_dropped)
        self.canvas.node_context_menu_requested.connect(self._on_canvas_node_context_menu_requested)
        self.growth.step_taken.connect(self._on_growth_step_taken)
        self.growth.node_chosen.connect(self._on_growth_node_chosen)
        self.growth.started_over.connect(lambda *_: self.canvas.fit_to_window())
        # Exam mode: the node asked about keeps its candidate splits hidden until answered.
        self.growth.question_asked.connect(self.inspector.seal)
        self.growth.question_asked.connect(self.modelling.seal)  # and the node menu's
        self.what_if.path_changed.connect(self.canvas.highlight_nodes)
        self.docks["What-if"].visibilityChanged.connect(self.what_if.set_on_screen)
        self.pruning.walk_shown.connect(self._on_pruning_walk_shown)
        self.pruning.ghosts_toggled.connect(self._on_pruning_ghosts_toggled)
        self.modelling.rows_requested.connect(self.filter_rows_to_node)
        self.modelling.pin_requested.connect(self.inspector.pin_node)
        self.modelling.collapse_requested.connect(self.canvas.toggle_collapsed)
        self.runs.compare_requested.connect(self.compare_runs)
        self.controller.pair_trained.connect(self.compare_runs)
        self.summary.rows_requested.connect(self._on_summary_rows_requested)
        self.regions.nodes_lit.connect(self.canvas.highlight_nodes)
        self.regions.split_drawn.connect(self.modelling.split)  # the node menu's hand split
        self.node_hover = NodeHover(self.canvas)
        self.node_hover.node_hovered.connect(self.regions.light_canvas_node)
        self.runs.test_file_requested.connect(self.evaluating.test_file)
        self.runs.split_requested.connect(
            lambda number, percent: self.evaluating.split(percent, number)
        )
        self.runs.predict_requested.connect(self.evaluating.predict_file)
        self.evaluation.curve_requested.connect(
            lambda kind, options: self.evaluation.follow(kind, self.curve_jobs.start(kind, options))
        )
        c.run_selected.connect(self._on_controller_run_selected)
        c.runs_changed.connect(self._update_actions)
        c.run_selected.connect(self._update_actions)
        self.workspaces.changed.connect(self._on_workspaces_changed)
        self.workspaces.changed.connect(lambda *_: self.side_bar.refresh())
        self.presenter.toggled.connect(self._on_presenter_toggled)
        for dock in self.docks.values():  # a plot made the first time its dock shows: themed
            dock.visibilityChanged.connect(self._on_dock_visibility_changed)

    # ------------------------------------------------------------------ persistence
    def _restore(self) -> bool:
        """Restore geometry, docks and options; True if a saved layout was found."""
        geometry = self.settings.value("window/geometry")
        if isinstance(geometry, QByteArray) and self.restoreGeometry(geometry):
            self.start_maximized = False  # the saved geometry says whether it was
        state = self.settings.value("window/state")
        restored = isinstance(state, QByteArray) and self.restoreState(state)
        if restored:
            self.workspaces.restored()
        self.config.restore(self.settings)
        self.act["train_at_start"].setChecked(trains_at_start(self.settings))
        self.act[f"theme_{self.theme.choice}"].setChecked(True)
        self.act["export_dark"].setChecked(self.theme.exports_follow())
        self._on_workspaces_changed(self.workspaces.current)
        self._refresh_recent()
        return bool(restored)

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt override
        if not self.files.confirm_discard("closing"):
            event.ignore()
            return
        self.controller.cancel()
        self.stability_marks.cancel()  # a job of its own, beside the controller's
        self.controller.runner.wait(5000)
        self.large.close()
        self.recovery.clear()
        self.presenter.leave()  # the window and workspace as they were before presenting are kept
        self.side_bar.hide_panel()  # the panel over the canvas back in its dock
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        self.workspaces.keep()
        self.config.save(self.settings)
        self.settings.sync()
        event.accept()

    def _refresh_recent(self) -> None:
        self.recent_menu.clear()
        for path in self.files.recent_files():
            self.recent_menu.addAction(path).triggered.connect(
                lambda *_, p=path: self.files.open_path(p)
            )
        self.recent_menu.setEnabled(bool(self.files.recent_files()))

    def _layout(self):
        scene = self.canvas.tree_scene()
        return scene.positions(), tuple(scene.collapsed)

    def _apply_layout(self, positions, collapsed) -> None:
        scene = self.canvas.tree_scene()
        if collapsed:
            scene.build(self.controller.tree, collapsed=set(collapsed))
        scene.apply_positions(positions)

    def _image_options(self):
        return (
            self.image_scale,
            self.act["transparent"].isChecked(),
            self.canvas.orientation(),
            self.canvas.style(),
            self.canvas.ghosts(),
        )

    # ------------------------------------------------------------------ commands
    def train(self):
        """Train with the Algorithm panel's options; a problem with them is said, not trained.

        While a training runs, the same one asked again is only said to be running; a different
        one asks whether to replace the running one or to queue behind it."""
        problem = self.config.problem()
        if problem:
            self.dialogs.error(problem)
            return None
        c = self.controller
        if c.clash() == "other":
            running = c.running_training()
            choice = self.dialogs.ask_replace_or_queue(
                running.options.summary(), c.options.summary()
            )
            if choice == "queue":
                c.queue_training()
                return None
            if choice != "replace":
                return None
        return c.train()

    def expand_all(self) -> None:
        """Show every node; a big tree is laid out in the background (Cancel stops it)."""
        self.canvas.expand_all()

    def _start_canvas_job(self, name: str, call, done) -> bool:
        """A big layout for the canvas, run as a job (progress in the status bar, Esc cancels)."""
        from gui.session.jobs import Job, run_aside

        c = self.controller
        job = Job(name, call)
        if c.busy:
            # Beside the running job (the cross-validation after a training, say, a minute on
            # a big table): the tree is on screen already and its layout takes seconds, so it
            # does not wait. The canvas drops a layout a newer one or another tree replaced.
            job.finished.connect(done)  # the canvas says what it shows
            job.failed.connect(lambda message, *_: self._say(f"{name} failed: {message}"))
            run_aside(job)
            self._say(f"{name}, beside the running job…")
            return True
        job.finished.connect(lambda out, j=job: c.runner.is_current(j) and done(out))
        job.cancelled.connect(
            lambda j=job: c.runner.is_current(j) and c.say("Cancelled; the tree is shown as it was")
        )
        c.start(job)
        self._say(f"{name}…")
        return True

    def filter_rows_to_node(self, node_id: int | None) -> None:
        """Show only the table rows that reach ``node_id`` (None shows every row again)."""
        if node_id is None or self.controller.tree is None:
            self.table.show_rows(None)
            return
        positions = self.controller.rows_reaching(node_id)
        self.table.show_rows(positions)
        self.docks["Data"].raise_()
        self._say(f"Showing the {len(positions)} row(s) that reach node {node_id}")

    def pin_selected(self) -> None:
        node_id = self.canvas.selected_node()
        if node_id >= 0:
            self.inspector.pin_node(node_id)

    def find_in_tree(self) -> None:
        """Ctrl+F: the find bar above the canvas (the whole tree is searched, collapsed parts too)."""
        self.find_bar.open()

    def compare_runs(self, a: int | None = None, b: int | None = None) -> None:
        """Two runs side by side in a window of their own (the two selected in the Runs list)."""
        from gui.panels.compare import CompareView

        if a is None or b is None:
            chosen = self.runs.selected_numbers()
            if len(chosen) != 2:
                self.dialogs.error(
                    "Select two runs in the Runs list to compare (Ctrl+click the second)."
                )
                self.docks["Runs"].raise_()
                return
            a, b = chosen
        if self.compare_window is None:
            self.compare_window = CompareView(self.controller, self)
            self.compare_window.setWindowFlag(Qt.WindowType.Window)
            self.compare_window.setWindowTitle("Compare runs — Arbor")
            screen = self.screen()
            if screen is None:
                self.compare_window.resize(1200, 760)
            else:  # within the screen's free area with room for its frame (not maximized: a second window)
                self.compare_window.setGeometry(
                    first_geometry(screen.availableGeometry(), QSize(1200, 760))[0]
                )
        self.compare_window.compare(a, b)
        self.compare_window.show()
        self.compare_window.raise_()
        QTimer.singleShot(
            0, self.compare_window, self.compare_window.fit_trees
        )  # shown again: the trees may be new

    def draw_split(self) -> None:
        """Model > Draw a split (Ctrl+Shift+D): the Regions dock comes up to draw it in."""
        if self.act["draw_split"].isChecked():
            self.side_bar.bring("Regions")

    def compute_curve(self, kind: str) -> None:
        """The Evaluation panel's learning curve or bias-variance view, computed for the
        selected run with the view's options."""
        if self.controller.selected_run not in self.controller.runs:
            self.curve_jobs.start(kind, {})  # says what to do first
            return
        self.side_bar.bring("Evaluation")  # closed, or not in the workspace on screen
        self.evaluation.request(kind)

    def evaluate_split(self) -> None:
        self.evaluating.split(self.runs.split.value())

    def train_split(self) -> None:
        """Train on the Runs panel's percentage of the rows, the rest on the tree (issue 32)."""
        problem = self.config.problem()
        if problem:
            self.dialogs.error(problem)
            return
        self.controller.train_split(self.runs.split.value())

    def set_node_labels(self) -> None:
        """What nodes say, from the View > Node labels checks (exports draw the same)."""
        labels = NodeLabels(
            **{name: self.act[f"label_{name}"].isChecked() for name in NodeLabels.NAMES},
            held=self.controller.held_out,
        )
        self.canvas.set_style(self.canvas.style().with_labels(labels))

    def _on_controller_held_out_changed(self, held) -> None:
        """Test rows came (or went): nodes that show them count the new ones (issue 32)."""
        if held is not None and not self.act["label_test"].isChecked():
            self.act["label_test"].setChecked(True)  # what a person evaluating wants to see
        self.set_node_labels()

    def _on_controller_test_counted(self, tree) -> None:
        """A big tree's test rows were counted aside: its nodes now have them to show."""
        if tree is self.canvas.tree() and self.canvas.style().labels.test:
            self.set_node_labels()

    def toggle_ghosts(self) -> None:
        on = self.act["ghosts"].isChecked()
        self.canvas.set_ghosts(on)
        self.pruning.ghosts.blockSignals(True)
        self.pruning.ghosts.setChecked(on)
        self.pruning.ghosts.blockSignals(False)
        tree = self.controller.tree
        if on and tree is not None and tree.pruning is None:
            from engine.prune.record import RECORD_LIMIT

            self._say(
                "This tree has no pruning record: C4.5's or reduced-error pruning keeps one "
                f"(for trees up to {RECORD_LIMIT:,} nodes); hand edits start afresh"
            )

    def toggle_orientation(self) -> None:
        self.canvas.set_orientation(
            "left-to-right" if self.act["orientation"].isChecked() else "top-down"
        )

    def set_train_at_start(self) -> None:
        """Model > Train a file opened at start: kept at once, for the next start."""
        self.settings.setValue(TRAIN_AT_START, self.act["train_at_start"].isChecked())

    def show_shortcuts(self) -> None:
        """Help > Keyboard shortcuts: generated from the action table, so it lists what is bound."""
        from gui.help import ShortcutsDialog

        if self.shortcuts_dialog is None:
            self.shortcuts_dialog = ShortcutsDialog(self)
        self.shortcuts_dialog.show()
        self.shortcuts_dialog.raise_()

    def open_guide(self) -> bool:
        """Help > User guide (F1): docs/window.md in the desktop's viewer."""
        from gui.help import open_guide

        return open_guide(self.dialogs)

    def about(self) -> None:
        self.dialogs.info(
            "Arbor — a workbench for decision trees: ID3, C4.5 and CART you can see, "
            "inspect, prune and export."
        )

    # ------------------------------------------------------------------ reactions
    def _update_actions(self, *_) -> None:
        update_enabled(self, self.act)

    def _on_workspaces_changed(self, name: str) -> None:
        self.act[f"workspace_{name.lower()}"].setChecked(True)

    def _on_presenter_toggled(self, on: bool) -> None:
        self.act["present"].setChecked(on)
        self._update_actions()

    def _on_dock_visibility_changed(self, visible: bool) -> None:
        if visible and self.theme.dark:
            self.theme.refresh_plots()

    def _on_undo_text_changed(self, text: str) -> None:
        # The button's own text stays "Undo"; the tooltip may name a column, shown as text.
        self.act["undo"].setToolTip(plain_tip(f"Undo {text}".strip()))

    def _on_redo_text_changed(self, text: str) -> None:
        self.act["redo"].setToolTip(plain_tip(f"Redo {text}".strip()))

    def _on_pruning_ghosts_toggled(self, on: bool) -> None:
        self.act["ghosts"].setChecked(on)
        self.toggle_ghosts()

    def _on_pruning_walk_shown(self, tree, node_id: int) -> None:
        """A step of the pruning walk-through: the node decided next is lit and in sight."""
        self.canvas.highlight_nodes({node_id} if node_id >= 0 else set())
        if node_id >= 0:
            self.canvas.follow([node_id, *(c.id for c in tree.node(node_id).children)])

    def _on_growth_step_taken(self, tree, expanded: int) -> None:
        """The view frames the growing tree: all of it while it can be read whole, else the
        node just split and its new children (issue 30: a leaf was left half off the canvas)."""
        self.canvas.highlight_nodes({expanded})
        self.canvas.frame_growth([expanded, *(c.id for c in tree.node(expanded).children)])

    def _on_growth_node_chosen(self, node_id: int) -> None:
        """A node picked in the Growth log or queue: selected (the controller's) and centred."""
        self.canvas.show_readable(node_id)

    def _on_controller_tree_changed(self, tree, select: int) -> None:
        from gui.controller import TRAINED

        # A new training starts from a fitted view; edits, pruning and steps keep the view.
        self.canvas.set_rows(self.controller.data)  # before the tree: its plots read them
        self.canvas.set_tree(tree, keep_view=self.controller.origin != TRAINED)
        self.find_bar.reset()
        if select >= 0:
            self.canvas.select_node(select)

    def _on_controller_run_selected(self, number: int) -> None:
        """A run picked in the Runs list (not one a training selected while it was hidden): show its figures."""
        if number >= 0 and not self.docks["Runs"].visibleRegion().isEmpty():
            self.docks["Evaluation"].raise_()

    def _on_controller_node_selected(self, node_id: int) -> None:
        if self.canvas.selected_node() != node_id:  # not the canvas's own click coming back
            self.canvas.select_node(node_id)

    def _on_controller_progress_changed(self, fraction: float, message: str) -> None:
        if fraction < 0:  # no fractions to report: a busy bar
            self.progress.setRange(0, 0)
            return
        self.progress.setValue(int(fraction * 1000))
        self.progress.setFormat(f"{message} %p%")

    def _on_controller_busy_changed(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy)
        self.progress.setRange(0, 1000)
        if busy:
            self.progress.setValue(0)

    def _on_controller_queue_changed(self) -> None:
        """The queued trainings in the status bar: how many, each one in the tooltip."""
        from html import escape

        queued = self.controller.queued
        self.queue_label.setVisible(bool(queued))
        self.clear_queue_button.setVisible(bool(queued))
        if not queued:
            return
        n = len(queued)
        self.queue_label.setText(f"Queued: {n} training{'s' if n > 1 else ''}")
        items = "".join(f"<li>{escape(r.options.summary())}</li>" for r in queued)
        self.queue_label.setToolTip(
            f"<p>Started one by one when the running job ends, each on the table as "
            f"it is then:</p><ol>{items}</ol>"
        )

    def _on_table_rows_selected(self, rows: list[int]) -> None:
        self.canvas.highlight_nodes(self.controller.nodes_reached(rows))

    def _on_summary_rows_requested(self, rows, said: str) -> None:
        """A bar of the Summary's histogram clicked: the Data table shows the rows it counts."""
        self.table.show_rows(rows)
        self.docks["Data"].raise_()
        self._say(f"{said}; Show all rows brings the others back")

    def _on_canvas_rows_dropped(self, rows: list[int]) -> None:
        """A row dragged onto the tree: light up its path and say what the tree predicts."""
        self._on_table_rows_selected(rows)
        said = self.controller.predict_row(rows[0]) if rows else None
        if said:
            self._say(said)

    def _on_canvas_node_context_menu_requested(self, node_id: int, pos) -> None:
        from engine.errors import ArborError

        try:
            menu = self.modelling.menu(node_id)
        except ArborError as err:
            self.dialogs.error(str(err))
            return
        menu.exec(pos)

    def _on_canvas_opened(self, node_id: int, shown: int, total: int) -> None:
        what = "Every node shown" if node_id < 0 else f"Opened node {node_id}"
        closed = "" if shown == total else "; double-click a closed node to open it"
        self._say(f"{what}: {shown:,} of {total:,} nodes on the canvas{closed}")

    def _on_canvas_big_tree_shown(self, levels: int, shown: int, total: int) -> None:
        note = (
            f"big tree: its top {levels} levels shown ({shown:,} of {total:,} nodes); "
            "double-click a node to open it, or View > Expand all"
        )
        # After whatever the caller says next (e.g. "Trained: ..."), not instead of it.
        QTimer.singleShot(0, self, lambda: self._say(f"{self.status_label.text()} — {note}"))

    # ------------------------------------------------------------------ status
    def _say(self, text: str) -> None:
        self.status_label.setText(text)

    def _update_title(self) -> None:
        doc = self.doc
        source = doc.project_path or doc.path
        name = Path(source).name if source else doc.sample_name or "untitled"
        mark = " *" if doc.modified else ""
        shape = f"{doc.n_rows} rows × {len(doc.columns)} columns, target {doc.target}"
        self.setWindowTitle(f"{name}{mark} — Arbor")
        self.setWindowModified(doc.modified)
        self.status_label.setToolTip(shape)
