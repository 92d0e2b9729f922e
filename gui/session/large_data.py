"""File > Open large dataset: a Parquet file or folder too large to load, previewed and trained
through Dask.

The dialog shows the first rows of the first partition (a preview, read-only) and the columns
with their types, and trains on every row with the Algorithm panel's options, in the worker
thread, on the cluster of its scheduler field (empty: a local cluster, started once and kept
while the window is open). Progress is per pass; Cancel cancels the pass's futures. The tree
comes to the canvas beside an empty table of its columns (its rows stay on the cluster); the
status bar says how many rows and partitions it saw and where the dashboard is. A failure
(a lost scheduler, a bad file) is one message, and the previous tree stays.
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from engine.errors import ArborError
from engine.export.labels import number
from gui.session.jobs import Job

#: Rows the preview shows.
PREVIEW_ROWS = 200
PARQUET_FILTER = "Parquet (*.parquet *.parq *.pq);;All files (*)"


class LargeDataDialog(QDialog):
    """The preview, the schema, the target and the scheduler of a large dataset.

    Signals: none; its Train and Cancel buttons call the owner's ``train`` and the
    controller's ``cancel``.
    """

    def __init__(self, owner: LargeData, layout, frame, parent=None):
        super().__init__(parent)
        self.setWindowTitle(f"Large dataset — {layout.location}")
        self.owner, self.layout_ = owner, layout
        rows = layout.n_rows
        shown = len(frame)
        counted = f"{rows:,} rows" if rows is not None else "rows counted when trained"
        self.heading = heading = QLabel(
            f"<b>Preview</b>: the first {shown:,} rows of {layout.pieces[0].name} "
            f"(read-only). The dataset: {len(layout.pieces):,} partition(s), {counted}, "
            f"{len(layout.columns)} columns. Training reads every row through Dask; none is "
            "loaded here."
        )
        heading.setWordWrap(True)
        self.preview = QTableWidget(shown, len(frame.columns))
        self.preview.setHorizontalHeaderLabels(
            [f"{c}\n({layout.types.get(c, '?')})" for c in frame.columns]
        )
        self.preview.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.preview.setToolTip("A preview of the first rows, read-only: the table is not loaded")
        for r, row in enumerate(frame.itertuples(index=False)):
            for c, value in enumerate(row):
                text = (
                    "?"
                    if value is None or value != value
                    else number(value)
                    if isinstance(value, float)
                    else str(value)
                )
                item = QTableWidgetItem(
                    text
                )  # a count read as float (a column with gaps) reads "2", not "2.0"
                self.preview.setItem(r, c, item)
        self.target = QComboBox()
        self.target.addItems(list(layout.columns))
        self.target.setCurrentIndex(len(layout.columns) - 1)
        self.target.setToolTip("The column to predict (default: the last one)")
        self.scheduler = QLineEdit(owner.address or "")
        self.scheduler.setPlaceholderText("empty: a local cluster, one worker per core")
        self.scheduler.setToolTip(
            "A Dask scheduler (tcp://HOST:PORT) whose workers have Arbor "
            "installed; empty starts a local cluster"
        )
        form = QFormLayout()
        form.addRow("Target", self.target)
        form.addRow("Dask scheduler", self.scheduler)
        self.train_button = QPushButton("&Train on all rows")
        self.train_button.setToolTip(
            "Grow the tree over every partition with the Algorithm "
            "panel's options (F5 in this dialog)"
        )
        self.train_button.setShortcut("F5")
        self.train_button.clicked.connect(owner.train)
        cancel = QPushButton("Cancel training")
        cancel.setToolTip("Stop the training; its Dask futures are cancelled (Esc)")
        cancel.clicked.connect(owner.controller.cancel)
        close = QPushButton("Close")
        close.clicked.connect(self.close)
        buttons = QHBoxLayout()
        buttons.addWidget(self.train_button)
        buttons.addWidget(cancel)
        buttons.addStretch(1)
        buttons.addWidget(close)
        box = QVBoxLayout(self)
        box.addWidget(heading)
        box.addWidget(self.preview, 1)
        box.addLayout(form)
        box.addLayout(buttons)
        self.resize(900, 560)


class LargeData(QObject):
    """Opening and training a dataset in partitions (the window's File menu calls it)."""

    def __init__(self, controller, dialogs, window):
        super().__init__(window)
        self.controller, self.dialogs, self.window = controller, dialogs, window
        self.dialog: LargeDataDialog | None = None
        self.layout = None
        self.cluster = None
        from engine.scale.cluster import scheduler_address

        self.address = scheduler_address()

    # ------------------------------------------------------------------ opening

    def _start_folder(self) -> str:
        """Where the window's other file dialogs start (the data's folder, else the last one used)."""
        start = getattr(self.dialogs, "start_folder", None)  # recording dialogs in tests have none
        return start() if start is not None else ""

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self.window, "Open a large dataset (Parquet)", self._start_folder(), PARQUET_FILTER
        )
        if path:
            self.open(path)

    def open_folder_dialog(self) -> None:
        path = QFileDialog.getExistingDirectory(
            self.window, "Open a folder of Parquet files", self._start_folder()
        )
        if path:
            self.open(path)

    def open(self, location: str) -> Job:
        """Read the footers and the first rows (a worker thread), then show the dialog."""

        def call(monitor):
            from engine.scale.source import describe, preview

            layout = describe(location)
            monitor.check()
            return layout, preview(layout, PREVIEW_ROWS)

        job = Job("Reading the partitions' footers", call)
        job.finished.connect(lambda result: self._show(*result))
        self.controller.start(job, fractions=False)
        return job

    def _show(self, layout, frame) -> None:
        self.layout = layout
        if self.dialog is not None:
            self.dialog.close()
        self.dialog = LargeDataDialog(self, layout, frame, self.window)
        self.dialog.show()
        self.controller.say(
            f"Opened {layout.location} as a large dataset: "
            f"{len(layout.pieces):,} partition(s); a preview is shown"
        )

    # ------------------------------------------------------------------ training

    def train(self) -> Job | None:
        from engine.settings import resolve

        if self.layout is None or self.dialog is None:
            return None
        try:
            settings = resolve(**self.controller.options.params)
        except ArborError as err:
            self.dialogs.error(str(err))
            return None
        layout, target = self.layout, self.dialog.target.currentText()
        address = self.dialog.scheduler.text().strip() or None

        def call(monitor):
            from engine.compiling.lifecycle import wait_until_compiled
            from engine.scale.source import scan
            from engine.scale.training import fit_partitions

            wait_until_compiled(monitor)  # before the workers: they load what it compiles
            cluster = self._cluster(address)
            monitor.report(0.0, f"reading the schema of {len(layout.pieces):,} partitions")
            dataset = scan(
                layout, lambda f, items, *a: cluster.map(f, items, *a, monitor=monitor), target
            )
            tree, facts = fit_partitions(dataset, settings, cluster, monitor)
            return tree, facts, dataset.schema(facts.settings.task)

        job = Job("Training over partitions", call)
        job.finished.connect(lambda result, j=job: self._on_trained(j, *result))
        job.failed.connect(
            lambda *_: self.controller.say(
                "Training over partitions failed; the previous tree is unchanged"
            )
        )
        job.cancelled.connect(
            lambda: self.controller.say(
                "Cancelled; the Dask futures were cancelled and the previous tree is unchanged"
            )
        )
        self.controller.start(job)
        self.controller.say("Training over partitions…")
        return job

    def _cluster(self, address: str | None):
        """The cluster for ``address`` (made in the worker thread: a local one takes seconds)."""
        from engine.scale.cluster import Cluster

        if (
            self.cluster is not None
            and self.cluster.address == address
            and self.cluster.client.status == "running"
        ):
            return self.cluster
        self.close()
        self.cluster = Cluster(address)
        self.address = address
        return self.cluster

    def _on_trained(self, job: Job, tree, facts, schema) -> None:
        from engine.data.encoding import schema_table

        c = self.controller
        if not c.runner.is_current(job):
            return
        c.load_table(schema_table(schema), None)
        c.options_loaded.emit(facts.settings)
        c.load_tree(tree, None, facts.settings)
        kept = (
            "kept in the workers' memory"
            if facts.kept_in_memory
            else "read once, kept as codes, values on the workers' disks"
        )
        where = facts.dashboard or "no dashboard"
        notes = "".join(f" — {n}" for n in facts.notes)
        c.say(
            f"Trained over partitions: the tree saw {facts.rows:,} rows in "
            f"{facts.partitions:,} partition(s) ({kept}; {facts.passes} passes, "
            f"{facts.workers} worker(s), {facts.seconds:.1f} s). Dask dashboard: {where}{notes}"
        )

    def close(self) -> None:
        """Close the cluster (a local one's worker processes end with it)."""
        if self.cluster is not None:
            self.cluster.close()
            self.cluster = None
