"""Opening and saving: data files, samples, projects, recent files, and the unsaved-changes guard."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, QSettings, Signal

from engine.errors import ArborError
from gui.session.jobs import Job

MAX_RECENT = 8
#: Files at least this big are read on a worker thread, so the window stays live meanwhile.
BACKGROUND_OPEN_BYTES = 4_000_000
SAVE_SUFFIXES = (".csv", ".tsv", ".arff", ".xlsx", ".parquet")


class FileActions(QObject):
    """The File menu's work, over the controller's document.

    ``dialogs`` asks the user; ``layout`` returns the canvas's (positions, collapsed ids)
    for a project and ``apply_layout(positions, collapsed)`` restores them.

    Signals
    -------
    recent_changed() : the list of recent files changed.
    """

    recent_changed = Signal()

    def __init__(self, controller, dialogs, settings: QSettings, layout, apply_layout, parent=None):
        super().__init__(parent)
        self.controller = controller
        self.doc = controller.doc
        self.dialogs = dialogs
        self.settings = settings
        self.layout, self.apply_layout = layout, apply_layout
        self.recovery = None  # set by the window once its Recovery exists

    # ------------------------------------------------------------------ recent files
    def recent_files(self) -> list[str]:
        value = self.settings.value("recent", [])
        return [value] if isinstance(value, str) else list(value or [])

    def remember(self, path: str) -> None:
        files = [p for p in self.recent_files() if p != path]
        self.settings.setValue("recent", [path, *files][:MAX_RECENT])
        self.recent_changed.emit()

    # ------------------------------------------------------------------ the guard
    def confirm_discard(self, what: str) -> bool:
        """True when it is fine to drop the current table (saved, discarded or unmodified)."""
        if not self.doc.modified:
            return True
        answer = self.dialogs.ask_unsaved(what)
        if answer == "save":
            return self.save()
        if answer == "discard":
            if self.recovery is not None:
                self.recovery.clear()
            return True
        return False

    # ------------------------------------------------------------------ tables
    def new_table(self) -> None:
        if self.confirm_discard("starting a new table"):
            self.controller.new_table()

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
        suffix = Path(path).suffix.lower()
        if suffix == ".json":
            return self.open_model(path)
        if suffix == ".arbor":
            return self.open_project(path)
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
        job.finished.connect(
            lambda table, j=job: self._on_open_finished(j, table, str(path), edits)
        )
        job.failed.connect(
            lambda msg, details, j=job: (
                self.controller.runner.is_current(j)
                and self.dialogs.error(f"Could not open {name}: {msg}", details)
            )
        )
        job.cancelled.connect(
            lambda j=job: (
                self.controller.runner.is_current(j)
                and self.controller.say(f"Stopped opening {name}; the table is unchanged")
            )
        )
        self.controller.start(job, report_failure=False, fractions=False)
        self.controller.say(f"Opening {path}…")
        return True

    def _on_open_finished(self, job: Job, table, path: str, edits: int) -> None:
        if not self.controller.runner.is_current(job):
            return
        if self.doc.undo_stack.index() != edits and not self.confirm_discard(
            "opening another file"
        ):
            self.controller.say(f"Kept the table you edited; {Path(path).name} was not opened")
            return
        self._opened(table, path)

    def _opened(self, table, path: str) -> None:
        self.controller.load_table(table, path)
        self.remember(path)
        self.controller.say(f"Opened {path}" + "".join(f" — {n}" for n in table.notes))

    def open_model(self, path: str) -> bool:
        """Show the tree of a saved model (``train --save``, ``ArborClassifier.save_model``)
        beside an empty table of its columns: the file holds no training rows."""
        from engine.data.encoding import schema_table
        from engine.export.model_json import load_model

        try:
            tree, settings = load_model(path)
            table = schema_table(tree.schema)
        except ArborError as err:
            self.dialogs.error(f"Could not open the model {Path(path).name}: {err}")
            return False
        c = self.controller
        c.load_table(table, None)
        if settings is not None:
            c.options_loaded.emit(settings)
        c.load_tree(tree, None, settings)
        self.remember(str(path))
        c.say(
            f"Opened the model {path} ({tree.n_leaves} leaves); it holds no training rows: "
            "open its data to retrain or to see the candidate splits"
        )
        return True

    def open_sample(self, name: str, confirmed: bool = False) -> bool:
        from engine.data.samples import load_sample  # parses each bundled file once a run

        if not confirmed and not self.confirm_discard("loading a sample"):
            return False
        self.controller.load_table(load_sample(name), None, sample=name)
        self.controller.say(f"Loaded the {name} sample")
        return True

    def save(self) -> bool:
        if self.doc.project_path:  # opened from or saved as a project: Save keeps it one
            return self._save_project_to(self.doc.project_path)
        if not self.doc.path or Path(self.doc.path).suffix.lower() not in SAVE_SUFFIXES:
            return self.save_as()
        return self._save_to(self.doc.path)

    def save_as(self) -> bool:
        from gui.dialogs import suggested_name

        suffix = Path(self.doc.path or "").suffix.lower()
        name = suggested_name(self.doc, suffix if suffix in SAVE_SUFFIXES else ".csv")
        path = self.dialogs.save_path("Save table as", suggested=name)
        return self._save_to(path) if path else False

    def _replacing(self, path: str, write) -> bool:
        """``write(replace_read_only)``; a read-only file is replaced only once the user agrees.
        False when they did not."""
        from engine.atomic import ReadOnlyTarget

        try:
            write(False)
        except ReadOnlyTarget:
            if not self.dialogs.ask_yes_no(f"{Path(path).name} is read-only. Replace it anyway?"):
                return False
            write(True)
        return True

    def _save_to(self, path: str) -> bool:
        from engine.data.io import write_table

        try:
            if not self._replacing(
                path, lambda force: write_table(self.doc.snapshot(), path, force)
            ):
                return False
        except ArborError as err:
            self.dialogs.error(f"Could not save: {err}. The previous file is unchanged.")
            return False
        self.doc.mark_saved(path)
        if self.recovery is not None:
            self.recovery.clear()
        self.remember(path)
        self.controller.say(f"Saved {path}")
        return True

    # ------------------------------------------------------------------ projects
    def write_project(self, path, replace_read_only: bool = False) -> None:
        self.project_writer(path, replace_read_only)()

    def project_writer(self, path, replace_read_only: bool = False, session: bool = False):
        """What the window holds now, gathered here on the GUI thread, and a function that
        writes it as a project to ``path`` (safe to call on another thread). A ``session``
        (the recovery file) also keeps where the work came from and the runs' trees, so that
        Restore gives back the session, not only its table."""
        from engine.project import Origin, Project, save_project
        from engine.runs import RunLog

        c, doc = self.controller, self.doc
        positions, collapsed = self.layout() if c.tree is not None else ({}, ())
        runs = RunLog(list(c.runs), c.runs.next_number) if c.runs is not None else None
        origin = None
        if session:
            origin = Origin(
                project_path=str(Path(doc.project_path).resolve()) if doc.project_path else None,
                data_path=str(Path(doc.path).resolve()) if doc.path else None,
                sample=doc.sample_name,
            )
        project = Project(
            doc.snapshot(),
            c.settings,
            c.tree,
            positions,
            tuple(collapsed),
            runs=runs,
            origin=origin,
        )
        # A big table is referenced by its file only while it equals the file (no unsaved
        # edits); otherwise the project stores the table itself.
        unchanged = doc.path if not doc.table_modified else None
        return lambda: save_project(
            project,
            path,
            data_path=unchanged,
            replace_read_only=replace_read_only,
            run_trees=session,
        )

    def save_project_dialog(self) -> bool:
        from gui.dialogs import suggested_name

        name = self.doc.project_path or suggested_name(self.doc, ".arbor")
        path = self.dialogs.save_path("Save project", "Arbor project (*.arbor)", name)
        return self._save_project_to(path) if path else False

    def _save_project_to(self, path: str) -> bool:
        try:
            if not self._replacing(path, lambda force: self.write_project(path, force)):
                return False
        except ArborError as err:
            self.dialogs.error(f"Could not save the project: {err}")
            return False
        self.doc.mark_project_saved(path)
        if self.recovery is not None:
            self.recovery.clear()
        self.remember(path)
        self.controller.say(f"Saved project {path}")
        return True

    def open_project_dialog(self) -> None:
        if not self.confirm_discard("opening a project"):
            return
        path = self.dialogs.open_path("Open project", "Arbor project (*.arbor);;All files (*)")
        if path:
            self.open_project(path)

    def open_project(self, path, modified: bool = False, autosaved: str = "") -> bool:
        """Open the project at ``path``; ``modified``: it is a recovery file (autosaved at
        ``autosaved``), whose work is restored as it was, still unsaved."""
        from engine.data.encoding import encode
        from engine.project import load_project

        try:
            project = load_project(path)
        except ArborError as err:
            self.dialogs.error(f"Could not open the project: {err}")
            return False
        c = self.controller
        origin = project.origin if modified else None
        # The table's file becomes the document's only when they are equal, or after a crash
        # (unsaved edits to that file, which Save then writes to it).
        if origin is not None:
            c.load_table(project.table, origin.data_path, sample=origin.sample)
        else:
            c.load_table(
                project.table, project.table.source if project.table_is_file or modified else None
            )
        if project.settings is not None:
            c.options_loaded.emit(project.settings)
        if project.tree is not None and project.settings is not None:
            c.load_tree(
                project.tree, encode(project.table, project.settings.task), project.settings
            )
            self.apply_layout(project.positions, set(project.collapsed))
        from engine.runs import RunLog

        c.load_runs(project.runs if project.runs is not None else RunLog())
        if not modified:
            self.doc.mark_project_saved(str(path))
            self.remember(str(path))
            c.say(f"Opened project {path}")
            return True
        # Restored from the recovery file: the session as it was, still unsaved.
        self.doc.mark_restored(origin.project_path if origin is not None else None)
        c.say(self._restored_message(autosaved))
        return True

    def _restored_message(self, autosaved: str) -> str:
        """What a restore brought back and where Save will write it (never the recovery file)."""
        doc = self.doc
        when = f" (autosaved {autosaved})" if autosaved else ""
        if doc.project_path:
            return (
                f"Restored the unsaved work on project {Path(doc.project_path).name}{when}; "
                f"Save writes it to {doc.project_path}"
            )
        if doc.path and Path(doc.path).suffix.lower() in SAVE_SUFFIXES:
            return f"Restored the unsaved work on {Path(doc.path).name}{when}; Save writes it to {doc.path}"
        name = Path(doc.path).name if doc.path else doc.sample_name or "an untitled table"
        return f"Restored the unsaved work on {name}{when}; Save asks where to write it"
