"""View > Tree stability: for the tree on screen, each split's recurrence in the trees grown on
the cross-validation folds (the folds the Evaluation options deal for their seed) and its
near-ties, worked out on a worker of its own; near-ties get a badge on the canvas (with a
legend entry) and the selected node's figures go in the inspector.

The work is a fit per fold, so it waits until the tree settles: a new tree starts it only
after :data:`SETTLE_MS` of quiet and never while the Growth panel plays, so stepping through
a growth runs it once, for the tree the steps stop at. Its progress and Cancel sit in the
status bar beside the window's own (Esc cancels it when nothing else runs)."""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QProgressBar, QPushButton

from engine.evaluate.stability import NEAR_TIE_MARGIN
from gui.canvas.marks import NEAR_TIE_COLOUR, NEAR_TIE_SIGN, NodeMarks
from gui.session.jobs import Job, JobRunner

LEGEND = (
    f"<span style='color:{NEAR_TIE_COLOUR.name()}'>&#9679;</span>&nbsp;{NEAR_TIE_SIGN} near-tie: "
    f"another attribute scores within {100 * NEAR_TIE_MARGIN:g}%"
)


#: Milliseconds a new tree must stay on screen before its stability is worked out.
SETTLE_MS = 800


class StabilityMarks(QObject):
    """Works the stability out when asked (and again for each new tree while on, once it
    settles). ``stepping()`` says whether the Growth panel is playing its steps; ``progress``
    and ``cancel_button`` go in the status bar."""

    def __init__(self, controller, canvas, inspector, parent=None, stepping=lambda: False):
        super().__init__(parent)
        self.controller, self.canvas, self.inspector = controller, canvas, inspector
        self.stepping = stepping
        self.on = False
        self.result = None  # (tree, engine.evaluate.stability.Stability)
        # Its own runner: stability never cancels a training or an evaluation, nor they it.
        self.runner = JobRunner(self)
        self.marks = NodeMarks(canvas)
        self._settle = QTimer(self, singleShot=True, interval=SETTLE_MS)
        self._settle.timeout.connect(self._settled)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setMaximumWidth(260)
        self.progress.setToolTip("How far working out the tree's stability has got")
        self.progress.hide()
        self.cancel_button = QPushButton("Cancel stability")
        self.cancel_button.setToolTip(
            "Stop working out the tree's stability (Esc when nothing else runs); the next "
            "tree works it out again while View > Tree stability is on"
        )
        self.cancel_button.clicked.connect(self.cancel)
        self.cancel_button.hide()
        controller.tree_changed.connect(lambda *_: self._tree_changed())
        controller.node_selected.connect(self._show_node)

    @property
    def busy(self) -> bool:
        return self.runner.busy

    def set_on(self, on: bool) -> None:
        self.on = on
        self._settle.stop()
        if on:
            self.compute()
        else:
            self.runner.cancel()
            self._clear()

    def cancel(self) -> None:
        """Stop the work under way (the marks stay off for this tree)."""
        self._settle.stop()
        if self.runner.busy:
            self.runner.cancel()

    def _clear(self) -> None:
        self.result = None
        self.marks.clear()
        self.canvas.set_legend_extra(())
        self.inspector.show_stability("")

    def _tree_changed(self) -> None:
        self.runner.cancel()
        self._clear()
        if self.on and self.controller.tree is not None:  # no tree: nothing to say until one
            self._settle.start()  # again: each growth step puts the work off
        else:
            self._settle.stop()

    def _settled(self) -> None:
        if not self.on or self.controller.tree is None:
            return
        if self.stepping():  # the Growth panel is playing: wait for the steps to stop
            self._settle.start()
            return
        self.compute()

    def compute(self) -> Job | None:
        c = self.controller
        tree, data, settings = c.tree, c.data, c.settings
        if tree is None or data is None or settings is None:
            c.say("Tree stability: train a tree first (F5)")
            return None
        if tree.is_regression:
            c.say("Tree stability is worked out for classification trees")
            return None
        folds = min(c.options.cv_folds or 10, data.n_rows)
        seed, weka = c.options.seed, c.options.weka_folds
        if folds < 2:
            c.say("Tree stability needs at least 2 rows to deal folds from")
            return None

        def call(monitor):
            from engine.evaluate.stability import stability

            return stability(tree, data, settings, folds, seed, monitor=monitor, weka_folds=weka)

        job = Job("Tree stability", call)
        job.finished.connect(lambda result, t=tree, j=job: self._done(t, result, j))
        job.failed.connect(lambda message, *_: c.say(f"Tree stability failed: {message}"))
        job.cancelled.connect(
            lambda j=job: (
                self.runner.is_current(j)
                and c.say("Tree stability cancelled; the next tree works it out again")
            )
        )
        job.progress_changed.connect(lambda f, m, j=job: self._on_progress(j, f, m))
        for hook in (job.finished, job.failed, job.cancelled):
            hook.connect(lambda *_, j=job: self._on_ended(j))
        self.runner.start(job)
        self.progress.setValue(0)
        self.progress.setFormat("Tree stability %p%")
        self.progress.show()
        self.cancel_button.show()
        c.say(f"Working out the tree's stability over {folds} folds (seed {seed})…")
        return job

    def _on_progress(self, job, fraction: float, message: str) -> None:
        if self.runner.is_current(job):
            self.progress.setValue(int(1000 * fraction))
            words = f"Tree stability: {message}" if message else "Tree stability"
            self.progress.setFormat(words.replace("%", "%%") + " %p%")  # % is the bar's own

    def _on_ended(self, job) -> None:
        if self.runner.is_current(job):
            self.progress.hide()
            self.cancel_button.hide()

    def _done(self, tree, result, job) -> None:
        if not self.runner.is_current(job) or tree is not self.controller.tree or not self.on:
            return
        from engine.evaluate.stability import stability_summary

        self.result = (tree, result)
        tips = {k: stability_summary(s, result) for k, s in result.nodes.items() if s.near_ties}
        self.marks.set(tips)
        self.canvas.set_legend_extra((LEGEND,) if tips else ())
        self._show_node(self.controller.selected)
        shaky = sum(1 for s in result.nodes.values() if s.share < 0.5)
        self.controller.say(
            f"Tree stability: {len(tips)} near-tie(s) marked {NEAR_TIE_SIGN}; {shaky} of "
            f"{len(result.nodes)} splits recur in fewer than half the folds"
        )

    def _show_node(self, node_id: int) -> None:
        if self.result is None or self.result[0] is not self.controller.tree:
            self.inspector.show_stability("")
            return
        from engine.evaluate.stability import stability_summary

        s = self.result[1].nodes.get(node_id)
        self.inspector.show_stability("" if s is None else stability_summary(s, self.result[1]))
