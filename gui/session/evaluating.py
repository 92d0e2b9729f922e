"""Evaluating runs from the window: on a test file, on a percentage split; predicting a file.

Each asks what it needs through the dialogs, then runs the engine on a worker thread through
the controller (progress, Cancel and errors as for training) and hands the result back to it.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject

from engine.errors import ArborError
from gui.dialogs import DATA_FILTER
from gui.session.jobs import Job

PREDICTIONS_FILTER = "CSV (*.csv);;TSV (*.tsv);;Excel (*.xlsx);;Parquet (*.parquet)"


class Evaluating(QObject):
    """The Model menu's evaluation commands over the controller's runs and tree on screen."""

    def __init__(self, controller, dialogs, parent=None):
        super().__init__(parent)
        self.controller, self.dialogs = controller, dialogs

    def _run(self, number: int | None):
        c = self.controller
        number = c.selected_run if number is None else number
        if number not in c.runs:
            self.dialogs.error(
                "Train a tree first (F5): evaluations belong to a run in the Runs list."
            )
            return None
        return c.runs[number]

    def _table_of(self, run):
        """The open table, as a snapshot; a job checks it is still the one ``run`` was trained on."""
        try:
            return self.controller.doc.snapshot()
        except ArborError as err:
            self.dialogs.error(str(err))
            return None

    # ------------------------------------------------------------------ test file
    def test_file(self, number: int | None = None, path: str | None = None) -> Job | None:
        """Score run ``number``'s tree (the selected run's by default) on the rows of a data file;
        its rows then stay on the tree as test rows (every node counts them, issue 32)."""
        run = self._run(number)
        if run is None:
            return None
        path = path or self.dialogs.open_path(f"Test run {run.number} on a data file", DATA_FILTER)
        if not path:
            return None
        table = self._table_of(run) if run.tree is None else None
        if run.tree is None and table is None:
            return None

        def call(monitor):
            from engine.data.encoding import encode_like
            from engine.data.io import read_table
            from engine.evaluate.evaluation import evaluate_tree
            from engine.evaluate.per_node import HeldOut

            tree = run.tree if run.tree is not None else _grow_again(run, table, monitor)
            monitor.report(0.5, "reading the test file")
            test = read_table(path, target=tree.schema.target)
            monitor.check()
            encoded, label = encode_like(test, tree.schema), f"test set {Path(path).name}"
            return evaluate_tree(tree, encoded, label, run.settings.algorithm), HeldOut(
                encoded, label
            )

        job = Job(f"Testing run {run.number} on {Path(path).name}", call)
        return self._start(job, run.number, self.controller.set_held_out)

    # ------------------------------------------------------------------ split
    def split(self, percent: float, number: int | None = None) -> Job | None:
        """Train run ``number``'s settings on ``percent``% of its table (stratified) and test on the rest."""
        run = self._run(number)
        if run is None:
            return None
        if not 0 < percent < 100:
            self.dialogs.error("The training share must be between 0 and 100 percent.")
            return None
        table = self._table_of(run)
        if table is None:
            return None

        def call(monitor):
            from engine.data.encoding import encode
            from engine.evaluate.evaluation import holdout_evaluate

            _check_same_table(run, table)
            data = encode(table, run.settings.task)
            return holdout_evaluate(data, run.settings, percent, run.settings.seed, monitor)

        return self._start(
            Job(f"Evaluating run {run.number} on a {percent:g}% split", call), run.number
        )

    def _start(self, job: Job, number: int, keep_rows=None) -> Job:
        """Run ``job``; its evaluation goes to run ``number``. With ``keep_rows`` the job
        gives (evaluation, held-out rows) and ``keep_rows`` takes the rows."""
        c = self.controller

        def finished(out, j=job) -> None:
            if not c.runner.is_current(j):
                return
            if keep_rows is not None:
                out, held = out
                keep_rows(held)
            self._on_evaluated(number, out)

        job.finished.connect(finished)
        job.cancelled.connect(
            lambda j=job: c.runner.is_current(j) and c.say("Evaluation cancelled")
        )
        c.start(job)
        c.say(job.name + "…")
        return job

    def _on_evaluated(self, number: int, evaluation) -> None:
        from engine.runs import figure

        self.controller.add_evaluation(number, evaluation)
        self.controller.say(f"Run {number}: {figure(evaluation)}")

    # ------------------------------------------------------------------ predictions
    def predict_file(self, path: str | None = None, output: str | None = None) -> Job | None:
        """Predict every row of a data file with the tree on screen and save them with it."""
        tree = self.controller.tree
        if tree is None:
            self.dialogs.error("Train a tree first (F5); then predict a file with it.")
            return None
        path = path or self.dialogs.open_path("Predict the rows of a data file", DATA_FILTER)
        if not path:
            return None
        suggested = str(Path(path).with_name(f"{Path(path).stem}-predicted.csv"))
        output = output or self.dialogs.save_path(
            "Save the predictions", PREDICTIONS_FILTER, suggested
        )
        if not output:
            return None
        if Path(output).resolve() == Path(path).resolve():
            self.dialogs.error(
                "Save the predictions under another name: the data file would be overwritten."
            )
            return None

        settings = self.controller.settings
        algorithm = settings.algorithm if settings is not None else None

        def call(monitor):
            from engine.data.io import read_table
            from engine.predict import prediction_frame, save_predictions

            monitor.report(0.1, "reading")
            frame = read_table(path).frame
            monitor.check()
            monitor.report(0.4, "predicting")
            out = prediction_frame(
                tree, frame, probabilities=not tree.is_regression, algorithm=algorithm
            )
            monitor.check()
            monitor.report(0.7, "saving")
            save_predictions(out, output)
            return len(out)

        c = self.controller
        job = Job(f"Predicting {Path(path).name}", call)
        job.finished.connect(
            lambda n, j=job: (
                c.runner.is_current(j) and c.say(f"Saved {n:,} prediction(s) to {output}")
            )
        )
        job.cancelled.connect(
            lambda j=job: c.runner.is_current(j) and c.say("Prediction cancelled; nothing saved")
        )
        c.start(job)
        return job


def _check_same_table(run, table) -> None:
    from engine.runs import data_key

    if data_key(table) != run.data_key:
        raise ArborError(
            f"the table has changed since run {run.number} was trained (or another table is "
            "open); train again to evaluate on this table"
        )


def _grow_again(run, table, monitor):
    """A run's tree the log no longer keeps, grown again from its settings on the same table."""
    from engine.data.encoding import encode
    from engine.fitting import fit_tree

    _check_same_table(run, table)
    return fit_tree(encode(table, run.settings.task), run.settings, monitor.scaled(0.0, 0.5))
