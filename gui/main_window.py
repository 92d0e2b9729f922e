"""The main window: assembles the panels and wires their signals; holds no learning logic."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QLabel,
    QMainWindow,
    QMenu,
    QProgressBar,
    QPushButton,
    QToolBar,
)

from engine.data.table import IGNORED, KINDS
from engine.errors import ArborError
from gui.dialogs import Dialogs
from gui.document import DataDocument
from gui.jobs import Job, JobRunner, TrainResult, train_call
from gui.modelling import Modelling
from gui.panels.algorithm import ConfigPanel
from gui.panels.data import TablePanel
from gui.panels.growth import GrowthPanel
from gui.panels.inspector import Inspector
from gui.panels.pruning import PruningPanel
from gui.panels.results import ResultsPanel
from gui.panels.what_if import WhatIfPanel
from gui.recovery import Recovery
from gui.table_commands import (
    delete_column,
    delete_rows,
    duplicate_column,
    duplicate_rows,
    insert_column,
    insert_rows,
    move_column,
    move_row,
    rename_column,
    set_kind,
    set_target,
)
from gui.table_model import TableModel
from gui.tree_canvas import TreeCanvas

MAX_RECENT = 8


#: Files at least this big are read on a worker thread, so the window stays live meanwhile.
BACKGROUND_OPEN_BYTES = 4_000_000

class MainWindow(QMainWindow):
    """Arbor's window: tree canvas in the centre; data, algorithm, inspector and results docks."""

    def __init__(self, settings: QSettings | None = None):
        super().__init__()
        self.settings = settings or QSettings()
        self.dialogs = Dialogs(self)
        self.doc = DataDocument(self)
        self.model = TableModel(self.doc, self)
        self.table = TablePanel(self.model)
        self.table.setMinimumHeight(190)
        self.canvas = TreeCanvas()
        self.config = ConfigPanel()
        self.inspector = Inspector()
        self.results = ResultsPanel()
        self.growth = GrowthPanel()
        self.pruning = PruningPanel()
        self.what_if = WhatIfPanel()
        self.runner = JobRunner(self)
        self.result: TrainResult | None = None
        self.tree = None  # the tree on the canvas (trained, stepped, pruned or edited by hand)
        self.encoded = None
        self.settings_used = None
        self.modelling = Modelling(self)
        self.recovery = Recovery(self)
        self.setCentralWidget(self.canvas)
        self.docks = {}
        for name, widget, area in (("Data", self.table, Qt.DockWidgetArea.BottomDockWidgetArea),
                                   ("Algorithm", self.config, Qt.DockWidgetArea.LeftDockWidgetArea),
                                   ("Inspector", self.inspector, Qt.DockWidgetArea.RightDockWidgetArea),
                                   ("Results", self.results, Qt.DockWidgetArea.LeftDockWidgetArea),
                                   ("Growth", self.growth, Qt.DockWidgetArea.LeftDockWidgetArea),
                                   ("What-if", self.what_if, Qt.DockWidgetArea.LeftDockWidgetArea),
                                   ("Pruning", self.pruning, Qt.DockWidgetArea.RightDockWidgetArea)):
            dock = QDockWidget(name, self)
            dock.setObjectName(f"dock-{name}")
            dock.setWidget(widget)
            self.addDockWidget(area, dock)
            self.docks[name] = dock
        for name in ("Results", "Growth", "What-if"):
            self.tabifyDockWidget(self.docks["Algorithm"], self.docks[name])
        self.tabifyDockWidget(self.docks["Inspector"], self.docks["Pruning"])
        self.docks["Algorithm"].raise_()
        self.docks["Inspector"].raise_()
        self._build_status_bar()
        self._build_actions()
        self._wire()
        self.resize(1400, 900)
        self._sized = self._restore()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        if not self._sized:  # first start: docks get sizes only once the window is laid out
            self._sized = True
            QTimer.singleShot(0, self._size_docks)

    def _size_docks(self) -> None:
        self.resizeDocks([self.docks["Algorithm"], self.docks["Inspector"]], [330, 500],
                         Qt.Orientation.Horizontal)
        self.resizeDocks([self.docks["Data"]], [260], Qt.Orientation.Vertical)
        self.canvas.fit_to_window()

    # ------------------------------------------------------------------ construction
    def _build_status_bar(self) -> None:
        self.status_label = QLabel()
        self.progress = QProgressBar()
        self.progress.setMinimumWidth(320)
        self.progress.setRange(0, 1000)
        self.progress.hide()
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop the running job (Esc); the table and the tree stay as they were")
        self.cancel_button.hide()
        self.cancel_button.clicked.connect(self.runner.cancel)
        bar = self.statusBar()
        bar.addWidget(self.status_label, 1)
        bar.addPermanentWidget(self.progress)
        bar.addPermanentWidget(self.cancel_button)

    def _action(self, text: str, slot, shortcut=None, tip: str = "") -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            if isinstance(shortcut, list):
                action.setShortcuts(shortcut)
            else:
                action.setShortcut(shortcut)
        action.setToolTip(tip or text.replace("&", "").replace("…", ""))
        action.setStatusTip(action.toolTip())
        action.triggered.connect(lambda *_: slot())
        return action

    def _build_actions(self) -> None:
        K = QKeySequence
        self.act = {
            "new": self._action("&New table", self.new_table, K.StandardKey.New),
            "open": self._action("&Open…", self.open_dialog, K.StandardKey.Open),
            "save": self._action("&Save", self.save, K.StandardKey.Save),
            "save_as": self._action("Save &as…", self.save_as, K("Ctrl+Shift+S")),
            "open_project": self._action("Open &project…", self.open_project_dialog),
            "save_project": self._action("Save p&roject…", self.save_project_dialog, K("Ctrl+Shift+P"),
                                         "Save the table, settings, tree and layout in one file"),
            "export_image": self._action("Export &image…", self.export_image, K("Ctrl+E"),
                                         "Save the whole tree as PNG, SVG or PDF"),
            "export_model": self._action("Export &model (JSON)…", self.export_model),
            "export_rules": self._action("Export &rules…", lambda: self.export_file("rules")),
            "export_python": self._action("Export P&ython function…", lambda: self.export_file("python")),
            "export_pmml": self._action("Export PM&ML…", lambda: self.export_file("pmml")),
            "export_dot": self._action("Export &DOT…", lambda: self.export_file("dot")),
            "copy_image": self._action("Copy image", self.copy_image, K("Ctrl+Shift+C"),
                                       "Copy the whole tree as a picture"),
            "transparent": self._action("Transparent background", lambda: None),
            "quit": self._action("&Quit", self.close, K.StandardKey.Quit),
            "undo": self.doc.undo_stack.createUndoAction(self, "&Undo"),
            "redo": self.doc.undo_stack.createRedoAction(self, "&Redo"),
            "copy": self._action("&Copy cells", self.table.copy_selection, K.StandardKey.Copy),
            "paste": self._action("&Paste cells", self.table.paste, K.StandardKey.Paste),
            "missing": self._action("Set &missing", self.table.set_selection_missing, K("Del")),
            "insert_row": self._action("Insert row", self.insert_row, K("Ctrl+I")),
            "delete_rows": self._action("Delete rows", self.delete_selected_rows, K("Ctrl+Shift+Del")),
            "duplicate_rows": self._action("Duplicate rows", self.duplicate_selected_rows, K("Ctrl+D")),
            "find": self._action("&Find in tree…", self.find_in_tree, K.StandardKey.Find),
            "find_next": self._action("Find next", self.canvas.find_next, K.StandardKey.FindNext),
            "zoom_in": self._action("Zoom &in", self.canvas.zoom_in, K.StandardKey.ZoomIn),
            "zoom_out": self._action("Zoom &out", self.canvas.zoom_out, K.StandardKey.ZoomOut),
            "fit": self._action("&Fit tree", self.canvas.fit_to_window, K("Ctrl+0")),
            "reset_layout": self._action("&Reset layout", self.canvas.reset_layout),
            "expand_all": self._action("&Expand all", self.expand_all, K("Ctrl+Shift+E"),
                                       "Show every node of the tree (a big tree opens with its top levels)"),
            "orientation": self._action("Left to right", self.toggle_orientation),
            "pin": self._action("&Pin node in inspector", self.pin_selected, K("P")),
            "train": self._action("&Train", self.train, [K("F5"), K("Ctrl+R")],
                                  "Grow the tree with the current options (F5)"),
            "cancel": self._action("&Cancel", self.runner.cancel, K("Esc")),
            "about": self._action("&About Arbor", self.about),
        }
        self.act["undo"].setShortcut(K.StandardKey.Undo)
        self.act["redo"].setShortcut(K.StandardKey.Redo)
        self.act["orientation"].setCheckable(True)
        self.act["transparent"].setCheckable(True)
        self.act["transparent"].setToolTip("Exported and copied images get no background")
        self.act["cancel"].setEnabled(False)
        menus = {
            "&File": ["new", "open", None, "save", "save_as", None, "open_project", "save_project", None,
                      "export_image", "copy_image", "transparent", "export_rules", "export_python",
                      "export_pmml", "export_dot", "export_model", None, "quit"],
            "&Edit": ["undo", "redo", None, "copy", "paste", "missing", None, "insert_row", "delete_rows",
                      "duplicate_rows", None, "find", "find_next"],
            "&View": ["zoom_in", "zoom_out", "fit", "reset_layout", "expand_all", "orientation", None, "pin"],
            "&Model": ["train", "cancel"],
            "&Help": ["about"],
        }
        for title, names in menus.items():
            menu = self.menuBar().addMenu(title)
            for name in names:
                if name is None:
                    menu.addSeparator()
                else:
                    menu.addAction(self.act[name])
            if title == "&File":
                self.recent_menu = QMenu("Open &recent", self)
                self.samples_menu = QMenu("S&amples", self)
                menu.insertMenu(self.act["save"], self.recent_menu)
                menu.insertMenu(self.act["save"], self.samples_menu)
            if title == "&File":
                scale_menu = QMenu("Image &scale", self)
                self.image_scale = 2.0
                group = QActionGroup(self)
                for factor in (1.0, 2.0, 3.0, 4.0):
                    action = scale_menu.addAction(f"{factor:g}x ({int(96 * factor)} dpi)")
                    action.setCheckable(True)
                    action.setChecked(factor == self.image_scale)
                    action.triggered.connect(lambda *_, f=factor: setattr(self, "image_scale", f))
                    group.addAction(action)
                menu.insertMenu(self.act["copy_image"], scale_menu)
            if title == "&View":
                menu.addSeparator()
                for dock in self.docks.values():
                    menu.addAction(dock.toggleViewAction())
        from engine.data.samples import sample_names

        for name in sample_names():
            self.samples_menu.addAction(self._action(name, lambda n=name: self.open_sample(n)))
        toolbar = QToolBar("Main")
        toolbar.setObjectName("toolbar-main")
        for name in ("open", "save", None, "undo", "redo", None, "train", "cancel", None,
                     "zoom_in", "zoom_out", "fit"):
            toolbar.addSeparator() if name is None else toolbar.addAction(self.act[name])
        self.addToolBar(toolbar)
        for action in self.act.values():
            self.addAction(action)

    def _wire(self) -> None:
        self.doc.modified_changed.connect(lambda *_: self._update_title())
        self.doc.reset.connect(self._on_doc_reset)
        self.doc.columns_changed.connect(self._on_doc_columns_changed)
        self.model.edit_rejected.connect(self._on_model_edit_rejected)
        self.table.header_menu_requested.connect(self._on_table_header_menu_requested)
        self.table.paste_rejected.connect(lambda msg: self.dialogs.error(msg))
        self.table.rows_selected.connect(self._on_table_rows_selected)
        self.canvas.node_selected.connect(self._on_canvas_node_selected)
        self.canvas.big_tree_shown.connect(self._on_big_tree_shown)
        self.canvas.rows_dropped.connect(self._on_canvas_rows_dropped)
        self.canvas.node_context_menu_requested.connect(self._on_canvas_node_context_menu_requested)
        self.growth.set_source(self._growth_source)
        self.growth.step_taken.connect(self._on_growth_step_taken)
        self.pruning.pruned.connect(lambda tree, alpha: self.show_tree(tree))
        self.pruning.cv_requested.connect(self.cross_validate_alpha)
        self.what_if.path_changed.connect(self.canvas.highlight_nodes)
        self.config.switch_requested.connect(lambda alg: self.config.algorithm.setCurrentText(alg))
        self.runner.busy_changed.connect(self._on_runner_busy_changed)

    # ------------------------------------------------------------------ persistence
    def _restore(self) -> bool:
        """Restore geometry, docks and options; True if a saved layout was found."""
        geometry = self.settings.value("window/geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        state = self.settings.value("window/state")
        restored = isinstance(state, QByteArray) and self.restoreState(state)
        self.config.restore(self.settings)
        self._refresh_recent()
        return bool(restored)

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt override
        if not self.confirm_discard("closing"):
            event.ignore()
            return
        self.runner.cancel()
        self.runner.wait(5000)
        self.recovery.clear()
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        self.config.save(self.settings)
        self.settings.sync()
        event.accept()

    def recent_files(self) -> list[str]:
        value = self.settings.value("recent", [])
        return [value] if isinstance(value, str) else list(value or [])

    def _remember(self, path: str) -> None:
        files = [p for p in self.recent_files() if p != path]
        self.settings.setValue("recent", [path, *files][:MAX_RECENT])
        self._refresh_recent()

    def _refresh_recent(self) -> None:
        self.recent_menu.clear()
        for path in self.recent_files():
            self.recent_menu.addAction(self._action(path, lambda p=path: self.open_path(p)))
        self.recent_menu.setEnabled(bool(self.recent_files()))

    # ------------------------------------------------------------------ files
    def confirm_discard(self, what: str) -> bool:
        """True when it is fine to drop the current table (saved, discarded or unmodified)."""
        if not self.doc.modified:
            return True
        answer = self.dialogs.ask_unsaved(what)
        if answer == "save":
            return self.save()
        if answer == "discard":
            self.recovery.clear()
            return True
        return False

    def new_table(self) -> None:
        if self.confirm_discard("starting a new table"):
            self.doc.new_blank()
            self._drop_tree()

    def open_dialog(self) -> None:
        if not self.confirm_discard("opening another file"):
            return
        path = self.dialogs.open_path()
        if path:
            self.open_path(path, confirmed=True)

    def open_path(self, path: str, confirmed: bool = False) -> bool:
        """Open a data file; a big one is read on a worker thread (True then means started)."""
        from engine.data.io import read_table

        if not confirmed and not self.confirm_discard("opening another file"):
            return False
        try:
            size = Path(path).stat().st_size
        except OSError:
            size = 0  # the reader says what is wrong with the path
        if size < BACKGROUND_OPEN_BYTES:
            try:
                table = read_table(path)
            except ArborError as err:
                self.dialogs.error(f"Could not open {Path(path).name}: {err}")
                return False
            self._opened(table, str(path))
            return True
        name, edits = Path(path).name, self.doc.undo_stack.index()
        job = Job(f"Opening {name}", lambda monitor: read_table(path))
        job.finished.connect(lambda table, j=job: self._on_open_finished(j, table, str(path), edits))
        job.failed.connect(lambda msg, details, j=job: self.runner.is_current(j) and self.dialogs.error(
            f"Could not open {name}: {msg}", details))
        job.cancelled.connect(lambda j=job: self.runner.is_current(j) and self._say(
            f"Stopped opening {name}; the table is unchanged"))
        self.runner.start(job)
        self.progress.setRange(0, 0)  # reading reports no fractions: a busy bar, and Cancel
        self._say(f"Opening {path}…")
        return True

    def _on_open_finished(self, job: Job, table, path: str, edits: int) -> None:
        if not self.runner.is_current(job):
            return
        if self.doc.undo_stack.index() != edits and not self.confirm_discard("opening another file"):
            self._say(f"Kept the table you edited; {Path(path).name} was not opened")
            return
        self._opened(table, path)

    def _opened(self, table, path: str) -> None:
        self.doc.sample_name = None
        self.doc.load(table, path)
        self._remember(path)
        self._drop_tree()
        self._say(f"Opened {path}" + "".join(f" — {n}" for n in table.notes))

    def open_sample(self, name: str, confirmed: bool = False) -> bool:
        from engine.data.samples import load_sample

        if not confirmed and not self.confirm_discard("loading a sample"):
            return False
        self.doc.sample_name = name
        self.doc.load(load_sample(name), None)
        self._drop_tree()
        self._say(f"Loaded the {name} sample")
        return True

    def save(self) -> bool:
        if not self.doc.path or Path(self.doc.path).suffix.lower() not in (".csv", ".tsv", ".arff", ".xlsx",
                                                                            ".parquet"):
            return self.save_as()
        return self._save_to(self.doc.path)

    def save_as(self) -> bool:
        path = self.dialogs.save_path("Save table as")
        return self._save_to(path) if path else False

    def _save_to(self, path: str) -> bool:
        from engine.data.io import write_table

        try:
            write_table(self.doc.snapshot(), path)
        except ArborError as err:
            self.dialogs.error(f"Could not save: {err}. The previous file is unchanged.")
            return False
        self.doc.mark_saved(path)
        self.recovery.clear()
        self._remember(path)
        self._say(f"Saved {path}")
        return True

    # ------------------------------------------------------------------ projects
    def write_project(self, path) -> None:
        from engine.project import Project, save_project

        scene = self.canvas.tree_scene()
        project = Project(self.doc.snapshot(), self.settings_used, self.tree,
                          scene.positions() if self.tree is not None else {}, tuple(scene.collapsed))
        save_project(project, path, data_path=self.doc.path)

    def save_project_dialog(self) -> bool:
        path = self.dialogs.save_path("Save project", "Arbor project (*.arbor)")
        if not path:
            return False
        try:
            self.write_project(path)
        except ArborError as err:
            self.dialogs.error(f"Could not save the project: {err}")
            return False
        self._say(f"Saved project {path}")
        return True

    def open_project_dialog(self) -> None:
        if not self.confirm_discard("opening a project"):
            return
        path = self.dialogs.open_path("Open project", "Arbor project (*.arbor);;All files (*)")
        if path:
            self.open_project(path)

    def open_project(self, path, modified: bool = False) -> bool:
        from dataclasses import asdict

        from engine.data.encoding import encode
        from engine.project import load_project

        try:
            project = load_project(path)
        except ArborError as err:
            self.dialogs.error(f"Could not open the project: {err}")
            return False
        self._drop_tree()
        self.doc.sample_name = None
        self.doc.load(project.table, project.table.source)
        if project.settings is not None:
            self.config.set_params(asdict(project.settings))
        if project.tree is not None and project.settings is not None:
            self.encoded = encode(project.table, project.settings.task)
            self.settings_used = project.settings
            self.show_tree(project.tree)
            scene = self.canvas.tree_scene()
            if project.collapsed:
                scene.build(project.tree, collapsed=set(project.collapsed))
            scene.apply_positions(project.positions)
            self.what_if.set_tree(project.tree, self.doc.frame.iloc[0] if self.doc.n_rows else None)
        if modified:  # restored from the recovery file: still unsaved
            self.doc.undo_stack.resetClean()
        self._say(f"Opened project {path}")
        return True

    def export_image(self) -> None:
        if self.tree is None:
            self.dialogs.error("Train a tree first: there is nothing to export yet.")
            return
        path = self.dialogs.save_path("Export tree image", "PNG (*.png);;SVG (*.svg);;PDF (*.pdf)")
        if path:
            from gui.image_export import save_image

            try:
                save_image(self.tree, path, scale=self.image_scale, orientation=self.canvas.orientation(),
                           transparent=self.act["transparent"].isChecked())
            except ArborError as err:
                self.dialogs.error(str(err))
                return
            self._say(f"Wrote {path}")

    def copy_image(self) -> None:
        if self.tree is None:
            self.dialogs.error("Train a tree first: there is nothing to copy yet.")
            return
        from PySide6.QtGui import QGuiApplication

        from gui.image_export import tree_image

        try:
            image = tree_image(self.tree, self.image_scale, self.act["transparent"].isChecked(),
                               self.canvas.orientation())
        except ArborError as err:
            self.dialogs.error(str(err))
            return
        QGuiApplication.clipboard().setImage(image)
        self._say("Copied the tree as an image")

    EXPORT_FILTERS = {"rules": "Text (*.txt);;Markdown (*.md)", "python": "Python (*.py)",
                      "pmml": "PMML (*.pmml *.xml)", "dot": "Graphviz (*.dot *.gv)"}

    def export_file(self, kind: str) -> None:
        """Rules, Python, PMML or DOT of the tree on the canvas."""
        if self.tree is None:
            self.dialogs.error("Train a tree first: there is nothing to export yet.")
            return
        path = self.dialogs.save_path(f"Export {kind}", self.EXPORT_FILTERS[kind])
        if not path:
            return
        from types import SimpleNamespace

        from engine.export.files import export

        model = SimpleNamespace(tree_=self.tree, settings_=self.settings_used)
        try:
            export(kind, model, self.doc.snapshot(), Path(path))
        except ArborError as err:
            self.dialogs.error(str(err))
            return
        self._say(f"Wrote {path}")

    def export_model(self) -> None:
        if self.tree is None:
            self.dialogs.error("Train a tree first: there is no model to export yet.")
            return
        path = self.dialogs.save_path("Export model", "Arbor model (*.json)")
        if path:
            from engine.export.model_json import save_model

            try:
                save_model(self.tree, self.settings_used, path)
            except ArborError as err:
                self.dialogs.error(str(err))
                return
            self._say(f"Wrote {path}")

    # ------------------------------------------------------------------ table edits
    def _push(self, make) -> None:
        try:
            command = make()
        except ArborError as err:
            self.dialogs.error(str(err))
            return
        self.doc.undo_stack.push(command)

    def insert_row(self) -> None:
        row, _ = self.table.current_source()
        self._push(lambda: insert_rows(self.doc, row + 1 if self.doc.n_rows else 0))

    def delete_selected_rows(self) -> None:
        rows = self.table.selected_rows()
        if rows:
            self._push(lambda: delete_rows(self.doc, rows))

    def duplicate_selected_rows(self) -> None:
        rows = self.table.selected_rows()
        if rows:
            self._push(lambda: duplicate_rows(self.doc, rows))

    def _on_table_header_menu_requested(self, col: int, pos) -> None:
        self.header_menu(col).exec(pos)

    def header_menu(self, col: int) -> QMenu:
        name = self.doc.columns[col]
        menu = QMenu(self)
        for kind in KINDS:
            action = menu.addAction(f"Make {kind}")
            action.setCheckable(True)
            action.setChecked(self.doc.kinds.get(name) == kind)
            action.triggered.connect(lambda *_, k=kind: self._push(lambda: set_kind(self.doc, name, k)))
        target = menu.addAction("Set as target")
        target.setEnabled(name != self.doc.target and self.doc.kinds.get(name) != IGNORED)
        target.triggered.connect(lambda: self._push(lambda: set_target(self.doc, name)))
        menu.addSeparator()
        menu.addAction("Rename…").triggered.connect(lambda: self.rename(name))
        menu.addAction("Insert column…").triggered.connect(lambda: self.insert_column_at(col))
        menu.addAction("Duplicate column").triggered.connect(
            lambda: self._push(lambda: duplicate_column(self.doc, name)))
        menu.addAction("Move left").triggered.connect(lambda: self._push(lambda: move_column(self.doc, name, -1)))
        menu.addAction("Move right").triggered.connect(lambda: self._push(lambda: move_column(self.doc, name, 1)))
        menu.addAction("Delete column").triggered.connect(lambda: self._push(lambda: delete_column(self.doc, name)))
        menu.addSeparator()
        menu.addAction("Move selected row up").triggered.connect(lambda: self._move_row(-1))
        menu.addAction("Move selected row down").triggered.connect(lambda: self._move_row(1))
        return menu

    def _move_row(self, step: int) -> None:
        row, _ = self.table.current_source()
        self._push(lambda: move_row(self.doc, row, step))

    def rename(self, name: str) -> None:
        new = self.dialogs.ask_text("Rename column", "New name:", name)
        if new and new != name:
            self._push(lambda: rename_column(self.doc, name, new))

    def insert_column_at(self, col: int) -> None:
        new = self.dialogs.ask_text("Insert column", "Name of the new column:", "new")
        if new:
            self._push(lambda: insert_column(self.doc, col + 1, new.strip()))

    def _on_model_edit_rejected(self, row: int, col: int, message: str) -> None:
        name = self.doc.columns[col]
        if self.dialogs.ask_yes_no(f"{message}.\n\nMake {name!r} a nominal column so it can hold text?"):
            self._push(lambda: set_kind(self.doc, name, "nominal"))

    # ------------------------------------------------------------------ training
    def train(self) -> Job | None:
        problem = self.config.problem()
        if problem:
            self.dialogs.error(problem)
            return None
        try:
            table = self.doc.snapshot()
        except ArborError as err:
            self.dialogs.error(str(err))
            return None
        folds, seed = self.config.cv_settings()
        job = Job("Training", train_call(table, self.config.params(), folds, seed))
        job.progress_changed.connect(self._on_job_progress_changed)
        job.finished.connect(lambda result, j=job: self._on_job_finished(j, result, table))
        job.failed.connect(lambda msg, details, j=job: self._on_job_failed(j, msg, details))
        job.cancelled.connect(lambda j=job: self._on_job_cancelled(j))
        self.runner.start(job)
        self._say("Training…")
        return job

    def _on_job_progress_changed(self, fraction: float, message: str) -> None:
        self.progress.setValue(int(fraction * 1000))
        self.progress.setFormat(f"{message} %p%")

    def _on_job_finished(self, job: Job, result: TrainResult, table) -> None:
        if not self.runner.is_current(job):
            return  # superseded by a newer run
        from engine.data.encoding import encode

        self.result = result
        self.encoded = result.data if result.data is not None else encode(table, result.model.settings_.task)
        self.settings_used = result.model.settings_
        tree = result.model.tree_
        self.show_tree(tree)
        self.results.show_result(result)
        self.pruning.set_tree(result.full_tree, result.path)
        if result.full_tree is not None and self.settings_used.prune == "cost-complexity":
            self.pruning.select_alpha(self.settings_used.alpha or 0.0)
        self.what_if.set_tree(tree, self.doc.frame.iloc[0] if self.doc.n_rows else None)
        self.growth.reset()
        self.docks["Results"].raise_()
        self._say(f"Trained: {tree.n_leaves} leaves, {tree.n_nodes} nodes, depth {tree.depth}")

    def _on_job_failed(self, job: Job, message: str, details: str) -> None:
        if self.runner.is_current(job):
            self._say("Training failed; the table and the previous tree are unchanged")
            self.dialogs.error(message, details)

    def _on_job_cancelled(self, job: Job) -> None:
        if self.runner.is_current(job):
            self._say("Cancelled; the previous tree is unchanged")

    def _on_runner_busy_changed(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy)
        self.act["cancel"].setEnabled(busy)
        self.progress.setRange(0, 1000)
        if busy:
            self.progress.setValue(0)

    def _drop_tree(self) -> None:
        self.runner.cancel()
        self.result, self.encoded, self.tree = None, None, None
        self.canvas.set_tree(None)
        self.inspector.set_context(None, None, None)
        self.results.clear()
        self.pruning.set_tree(None)
        self.what_if.set_tree(None)
        self.growth.reset()

    def expand_all(self) -> None:
        tree = self.canvas.tree()
        if tree is None:
            return
        if tree.n_nodes > 20_000 and not self.dialogs.ask_yes_no(
                f"The tree has {tree.n_nodes:,} nodes; drawing them all takes about "
                f"{tree.n_nodes / 15_000:.0f} s and the canvas gets slow. Show them all?"):
            return
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            self.canvas.expand_all()
        finally:
            QApplication.restoreOverrideCursor()

    def _on_big_tree_shown(self, levels: int, shown: int, total: int) -> None:
        note = (f"big tree: its top {levels} levels shown ({shown:,} of {total:,} nodes); "
                "double-click a node to open it, or View > Expand all")
        # After whatever the caller says next (e.g. "Trained: ..."), not instead of it.
        QTimer.singleShot(0, lambda: self._say(f"{self.status_label.text()} — {note}"))

    def show_tree(self, tree, select: int = -1) -> None:
        """Put ``tree`` on the canvas and point the inspector and what-if form at it."""
        trained = self.result.model.tree_ if self.result is not None else None
        edited = tree is not None and tree is not trained
        self.tree = tree
        self.canvas.set_tree(tree, keep_view=True)
        self.inspector.set_context(tree, self.encoded, self.settings_used)
        if select >= 0 and tree is not None and select < tree.n_nodes:
            self.canvas.select_node(select)
        if self.what_if.tree is not None:
            self.what_if.tree = tree
            self.what_if.update_prediction()
        if edited and self.encoded is not None:
            self.results.show_edited(tree, self.encoded)

    def _on_canvas_node_context_menu_requested(self, node_id: int, pos) -> None:
        try:
            menu = self.modelling.menu(node_id)
        except ArborError as err:
            self.dialogs.error(str(err))
            return
        menu.exec(pos)

    def _growth_source(self):
        from engine.data.encoding import encode
        from engine.settings import resolve

        problem = self.config.problem()
        if problem:
            raise ArborError(problem)
        table = self.doc.snapshot()
        settings = resolve(**self.config.params())
        data = encode(table, settings.task)
        self.encoded, self.settings_used = data, settings
        return data, settings

    def _on_growth_step_taken(self, tree, expanded: int) -> None:
        self.show_tree(tree, select=expanded)
        self.canvas.highlight_nodes({expanded})

    def cross_validate_alpha(self) -> Job | None:
        if self.result is None or self.result.full_tree is None:
            self.dialogs.error("Train a CART tree first: the pruning path belongs to it.")
            return None
        from dataclasses import replace

        from engine.evaluate.alpha import choose_alpha

        full, data = self.result.full_tree, self.encoded
        settings = replace(self.settings_used, cv_alpha=self.settings_used.cv_alpha or 10)
        job = Job("Cross-validating alpha", lambda monitor: choose_alpha(full, data, settings, monitor))
        job.progress_changed.connect(self._on_job_progress_changed)
        job.finished.connect(lambda choice, j=job: self.runner.is_current(j) and self.pruning.show_cv(choice))
        job.failed.connect(lambda msg, details, j=job: self._on_job_failed(j, msg, details))
        self.runner.start(job)
        return job

    # ------------------------------------------------------------------ canvas, inspector
    def _on_canvas_node_selected(self, node_id: int) -> None:
        if self.tree is None or node_id < 0:
            self.inspector.clear()
            return
        self.inspector.show_node(self.tree, node_id, self.encoded, self.settings_used)

    def _on_table_rows_selected(self, rows: list[int]) -> None:
        if self.tree is None or not rows or self.encoded is None:
            self.canvas.highlight_nodes(set())
            return
        from engine.data.encoding import encode_columns
        from engine.predict import leaf_weights

        tree = self.tree
        frame = self.doc.frame.iloc[rows[:5000]]
        try:
            X = encode_columns(frame, tree.schema.attributes)
        except ArborError:
            return
        reached = leaf_weights(tree, X)
        nodes = set()
        for leaf in reached:
            nodes.update(n.id for n, _ in tree.path_to(leaf))
        self.canvas.highlight_nodes(nodes)

    def filter_rows_to_node(self, node_id: int | None) -> None:
        """Show only the table rows that reach ``node_id`` (None shows every row again)."""
        if node_id is None or self.tree is None or self.encoded is None:
            self.table.proxy.set_rows(None)
            self.table.show_all.hide()
            return
        from engine.learn.explain import node_rows

        rows, weights = node_rows(self.tree, self.encoded, node_id, self.settings_used)
        keep = self.doc.frame.index[self.doc.frame[self.doc.target].notna()]
        positions = {int(keep[r]) for r in rows[weights > 0]} if len(keep) else set()
        self.table.proxy.set_rows(positions)
        self.table.show_all.show()
        self.docks["Data"].raise_()
        self._say(f"Showing the {len(positions)} row(s) that reach node {node_id}")

    def _on_canvas_rows_dropped(self, rows: list[int]) -> None:
        """A row dragged onto the tree: light up its path and say what the tree predicts."""
        self._on_table_rows_selected(rows)
        if self.tree is None or not rows:
            return
        from engine.data.encoding import encode_columns
        from engine.predict import predict_proba, predict_value

        X = encode_columns(self.doc.frame.iloc[rows[:1]], self.tree.schema.attributes)
        if self.tree.is_regression:
            said = f"{predict_value(self.tree, X)[0]:.4g}"
        else:
            said = self.tree.classes[int(predict_proba(self.tree, X)[0].argmax())]
        self._say(f"Row {rows[0] + 1}: the tree predicts {self.tree.schema.target} = {said}")

    def pin_selected(self) -> None:
        node_id = self.canvas.selected_node()
        if node_id >= 0:
            self.inspector.pin_node(node_id)

    def find_in_tree(self) -> None:
        text = self.dialogs.ask_text("Find in tree", "Attribute, value or class:")
        if text:
            hits = self.canvas.find(text)
            self._say(f"{len(hits)} node(s) match {text!r}" + (" — F3 for the next" if hits else ""))

    def toggle_orientation(self) -> None:
        self.canvas.set_orientation("left-to-right" if self.act["orientation"].isChecked() else "top-down")

    def about(self) -> None:
        self.dialogs.info("Arbor — a workbench for decision trees: ID3, C4.5 and CART you can see, "
                          "inspect, prune and export.")

    # ------------------------------------------------------------------ status
    def _say(self, text: str) -> None:
        self.status_label.setText(text)

    def _on_doc_reset(self) -> None:
        self._update_title()
        self.config.set_table_kinds(self.doc.kinds, self.doc.target)

    def _on_doc_columns_changed(self) -> None:
        self.config.set_table_kinds(self.doc.kinds, self.doc.target)
        self._update_title()

    def _update_title(self) -> None:
        name = Path(self.doc.path).name if self.doc.path else self.doc.sample_name or "untitled"
        mark = " *" if self.doc.modified else ""
        shape = f"{self.doc.n_rows} rows × {len(self.doc.columns)} columns, target {self.doc.target}"
        self.setWindowTitle(f"{name}{mark} — Arbor")
        self.setWindowModified(self.doc.modified)
        self.status_label.setToolTip(shape)
