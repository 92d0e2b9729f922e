"""The learning curve and the bias-variance decomposition of a run, computed on a worker.

Each trains many trees with the run's own settings on the open table (which must still be
the one the run was trained on), through the controller (progress in the status bar, Cancel
with Esc or the view's button, errors as for training), and hands the result to ``show``.
"""

from __future__ import annotations

from PySide6.QtCore import QObject

from engine.errors import ArborError
from gui.session.jobs import Job

LEARNING, BIAS_VARIANCE, IMPORTANCE = "learning", "bias-variance", "importance"
NAMES = {
    LEARNING: "learning curve",
    BIAS_VARIANCE: "bias and variance",
    IMPORTANCE: "variable importance",
}


class CurveJobs(QObject):
    """Starts the two computations for a run; ``show(kind, run number, result)`` takes what
    they give."""

    def __init__(self, controller, dialogs, show, parent=None):
        super().__init__(parent)
        self.controller, self.dialogs, self.show = controller, dialogs, show

    def start(self, kind: str, options: dict, number: int | None = None) -> Job | None:
        """Compute ``kind`` (:data:`LEARNING` or :data:`BIAS_VARIANCE`) for run ``number``
        (the selected run's by default) with the view's ``options``."""
        c = self.controller
        number = c.selected_run if number is None else number
        if number not in c.runs:
            self.dialogs.error(
                f"Train a tree first (F5): the {NAMES[kind]} is worked out for a run in the "
                "Runs list, with its options."
            )
            return None
        run = c.runs[number]
        try:
            table = c.doc.snapshot()
        except ArborError as err:
            self.dialogs.error(str(err))
            return None
        settings = run.settings
        compute = {LEARNING: _learning, BIAS_VARIANCE: _bias_variance, IMPORTANCE: _importance}[
            kind
        ]

        def call(monitor):
            from engine.data.encoding import encode
            from engine.runs import data_key

            if data_key(table) != run.data_key:
                raise ArborError(
                    f"the table has changed since run {number} was trained (or another table "
                    f"is open); train again to work out its {NAMES[kind]}"
                )
            return compute(encode(table, settings.task), settings, options, monitor)

        job = Job(f"Run {number}: {NAMES[kind]}", call)
        job.finished.connect(
            lambda result, j=job: c.runner.is_current(j) and self._shown(kind, number, result)
        )
        job.cancelled.connect(
            lambda j=job: c.runner.is_current(j) and c.say(f"The {NAMES[kind]} was cancelled")
        )
        c.start(job)
        c.say(job.name + "…")
        return job

    def _shown(self, kind: str, number: int, result) -> None:
        self.show(kind, number, result)
        self.controller.say(f"Run {number}: {NAMES[kind]} done")


def _learning(data, settings, options: dict, monitor):
    from engine.evaluate.learning_curve import learning_curve

    return learning_curve(
        data, settings, options["folds"], options["steps"], settings.seed, monitor
    )


def _bias_variance(data, settings, options: dict, monitor):
    from engine.evaluate.bias_variance import bias_variance

    return bias_variance(
        data,
        settings,
        options["parameter"],
        options.get("values"),
        options["resampling"],
        options["resamples"],
        settings.seed,
        monitor,
        keep_pruning=options.get("keep_pruning", False),
    )


def _importance(data, settings, options: dict, monitor):
    """Impurity importance of the run's tree grown again, or permutation importance over
    cross-validation's held-out rows (the run's seed deals the folds and the shuffles)."""
    from engine.evaluate.importance import (
        cross_validated_permutation_importance,
        impurity_importance,
    )
    from engine.fitting import fit_tree

    if options.get("kind", "impurity") == "impurity":
        return impurity_importance(fit_tree(data, settings, monitor))
    return cross_validated_permutation_importance(
        data, settings, options["folds"], settings.seed, options["repeats"], monitor
    )
